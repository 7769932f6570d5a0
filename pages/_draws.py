"""One draw, many draws (used by the Bias–variance page): learning sets added one at a time.

:func:`draws_section` keeps a :class:`engine.app.page_models.draws.RunningBiasVariance` for the page's
current settings in ``st.session_state[DRAWS_KEY]`` (a new one when the settings change). "Draw 1"
adds one learning set; "Draw 25" adds 25 one at a time, redrawing the picture every few draws so
the estimate is seen converging. The numbers after k draws are those of the batch run over the
same k learning sets (tests/engine_app/test_draws.py).

A projected forest (rf-<scheme>-shared / -per-tree) is drawn with
:class:`engine.app.page_models.draws.RunningForestBiasVariance` (:func:`~engine.app.page_models.draws.running_for`
chooses): its chart and sentence add the split of the forest's algorithm variance into the
projection term and the tree term (paper 003, Appendix C), converging with the draws.
"""

import json

import streamlit as st

from engine.formatting import fmt_number
from engine.experiments import Problem
from engine.experiments.bias_variance import BiasVarianceSettings
from engine.app.page_models.draws import MAX_DRAWS, RunningBiasVariance, RunningForestBiasVariance, running_for
from engine.plotting.draws import FOREST_KINDS, draws_figure, forest_draws_figure
from pages._challenges import challenge_banner
from pages._render import show_chart

DRAWS_KEY = "bv_draws"
REDRAW_EVERY = 5


def _running(settings: dict) -> RunningBiasVariance | RunningForestBiasVariance:
    config = json.dumps(settings, sort_keys=True)
    held = st.session_state.get(DRAWS_KEY)
    if held is None or held[0] != config:
        s = dict(settings)
        problem = Problem(f"friedman1-{s.pop('structure')}", n_train=s.pop("n_train"), n_test=s.pop("n_test"),
                          n_outputs=s.pop("n_outputs"), noise=s.pop("noise"))
        seed = s.pop("seed")
        held = (config, running_for(problem, BiasVarianceSettings(s.pop("estimator"),
                                                                  estimator_params=s.pop("estimator_params") or {},
                                                                  **s), seed=seed))
        st.session_state[DRAWS_KEY] = held
    return held[1]


def _reset():
    st.session_state.pop(DRAWS_KEY, None)


def draws_section(settings: dict, description: str):
    """The section; ``settings`` are :func:`running_for`'s arguments (estimator, structure, ...)."""
    st.subheader("One draw, many draws")
    st.markdown(
        "The decomposition above is an average over many learning sets. Build it yourself: **Draw 1** fits the "
        "model on one new learning set (one thin curve), **Draw 25** adds 25, one at a time. Watch the mean curve "
        "settle and the terms converge as the number of draws grows."
    )
    try:
        running = _running(settings)
    except ValueError as exc:
        st.error(f"These settings cannot be drawn: {exc}")
        return
    c = st.columns([1, 1, 1, 4], vertical_alignment="center")
    one = c[0].button("Draw 1", key="bv_draw_one", type="primary", disabled=running.n_draws + 1 > MAX_DRAWS,
                     help="Draw one new learning set, fit the model on it and add it to the running decomposition.")
    many = c[1].button("Draw 25", key="bv_draw_many", disabled=running.n_draws + 25 > MAX_DRAWS,
                      help="Add 25 learning sets, one at a time (the picture is redrawn every few draws).")
    c[2].button("Start over", key="bv_draw_reset", on_click=_reset, help="Forget the draws and start from none.")
    forest = isinstance(running, RunningForestBiasVariance)
    if forest:
        g = running.settings
        description = (f"{settings['estimator']} = {FOREST_KINDS[running.shown]}: {g['n_estimators']} fully grown "
                       f"trees, q = {running.q} · per learning set: {g['n_projections']} projections × "
                       f"{g['n_tree_seeds']} single trees and {g['n_forest_seeds']} forests of each algorithm · "
                       f"Friedman1-{g['structure']}, {g['n_train']} samples per set")
    c[3].caption(description)
    chart, text = st.empty(), st.empty()

    def show(frame):
        if running.n_draws == 0:    # no empty chart before the first draw
            text.caption("No learning set drawn yet.")
            return
        figure = forest_draws_figure(running, running.shown) if forest else draws_figure(running)
        show_chart(chart, figure, key=f"bv_draws_chart_{frame}", config={"displaylogo": False})
        text.markdown(_forest_sentence(running, settings["estimator"]) if forest else _sentence(running))

    if one:
        running.draw(1)
    if many:
        for i in range(25):
            running.draw(1)
            if (i + 1) % REDRAW_EVERY == 0 and i + 1 < 25:
                show(f"{running.n_draws}_live")
    show(running.n_draws)
    challenge_banner("pages/bias_variance.py", running, pending=False)   # asked beside the chart drawn above


def _sentence(running: RunningBiasVariance) -> str:
    r = running.result()
    algorithm = (f", of which algorithm variance **{r.var_algorithm[0]:.3f}**" if r.n_seeds > 1 else "")
    return (f"After **{running.n_draws}** draw{'s' if running.n_draws != 1 else ''}: bias² **{r.bias2[0]:.3f}**, "
            f"variance **{r.variance[0]:.3f}**{algorithm}, noise {r.noise[0]:.3f}; expected error "
            f"**{r.error[0]:.3f}** = noise + bias² + variance."
            + (" With one draw the variance across learning sets is 0: it needs at least two."
               if running.n_draws == 1 else ""))


def _forest_sentence(running: RunningForestBiasVariance, estimator: str) -> str:
    """The shown forest's terms and the split of its algorithm variance, all read from the draws."""
    t, k, a = running.terms(), running.n_draws, running.shown
    other = "alg1" if a == "alg2" else "alg2"
    M = running.settings["n_estimators"]
    how = ("One projection shared by the trees keeps the whole projection term and divides the tree term by "
           f"M = {M}" if a == "alg1" else f"A projection per tree divides both terms by M = {M}")
    return (
        f"After **{k}** draw{'s' if k != 1 else ''} of {estimator}: bias² **{t[f'{a}_bias2']:.3f}**, variance "
        f"**{t[f'{a}_variance']:.3f}** (learning set {fmt_number(t[f'{a}_var_learning_set'])} + algorithm "
        f"**{fmt_number(t[f'{a}_var_algorithm'])}**), noise {t['noise']:.3f}; expected error **{t[f'{a}_error']:.3f}** "
        "= noise + bias² + variance."
        + (" With one draw the variance across learning sets is 0: it needs at least two." if k == 1 else "")
        + f"\n\n**The algorithm variance, split** (paper 003, Appendix C): one projected tree's is "
        f"**{fmt_number(t['var_algorithm'])}** = projection term **{fmt_number(t['var_projection'])}** + tree term "
        f"**{fmt_number(t['var_tree'])}** (measured on the nested grid). Corrected for the grid's few trees per "
        f"projection (their mean still carries part of the tree term), the projection term is "
        f"{fmt_number(t['var_projection_corrected'])} and the tree term {fmt_number(t['var_tree_corrected'])}. {how}: projection "
        f"**{fmt_number(t[f'{a}_projection_part'])}** + trees **{fmt_number(t[f'{a}_tree_part'])}** = "
        f"{fmt_number(t[f'{a}_var_algorithm_predicted'])} predicted, against **{fmt_number(t[f'{a}_var_algorithm'])}** measured "
        f"({FOREST_KINDS[other].split(',')[0]} on the same draws: {fmt_number(t[f'{other}_var_algorithm'])} measured)."
    )
