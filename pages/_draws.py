"""One draw, many draws (used by the Bias–variance page): learning sets added one at a time.

:func:`draws_section` keeps a :class:`engine.dashboard.draws.RunningBiasVariance` for the page's
current settings in ``st.session_state[DRAWS_KEY]`` (a new one when the settings change). "Draw 1"
adds one learning set; "Draw 25" adds 25 one at a time, redrawing the picture every few draws so
the estimate is seen converging. The numbers after k draws are those of the batch run over the
same k learning sets (tests/dashboard/test_draws.py).
"""

import json

import streamlit as st

from engine.dashboard.draws import MAX_DRAWS, RunningBiasVariance
from engine.plotting.draws import draws_figure
from pages._challenges import challenge_banner

DRAWS_KEY = "bv_draws"
REDRAW_EVERY = 5


def _running(settings: dict) -> RunningBiasVariance:
    config = json.dumps(settings, sort_keys=True)
    held = st.session_state.get(DRAWS_KEY)
    if held is None or held[0] != config:
        held = (config, RunningBiasVariance(**settings))
        st.session_state[DRAWS_KEY] = held
    return held[1]


def _reset():
    st.session_state.pop(DRAWS_KEY, None)


def draws_section(settings: dict, description: str):
    """The section; ``settings`` are RunningBiasVariance's arguments (estimator, structure, ...)."""
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
    c[3].caption(description)
    chart, text = st.empty(), st.empty()

    def show(frame):
        r = running.result()
        if r is None:               # no empty chart before the first draw
            text.caption("No learning set drawn yet.")
            return
        chart.plotly_chart(draws_figure(running), key=f"bv_draws_chart_{frame}", config={"displaylogo": False})
        algorithm = (f", of which algorithm variance **{r.var_algorithm[0]:.3f}**" if r.n_seeds > 1 else "")
        text.markdown(
            f"After **{running.n_draws}** draw{'s' if running.n_draws != 1 else ''}: bias² **{r.bias2[0]:.3f}**, "
            f"variance **{r.variance[0]:.3f}**{algorithm}, noise {r.noise[0]:.3f}; expected error "
            f"**{r.error[0]:.3f}** = noise + bias² + variance."
            + (" With one draw the variance across learning sets is 0: it needs at least two."
               if running.n_draws == 1 else ""))

    if one:
        running.draw(1)
    if many:
        for i in range(25):
            running.draw(1)
            if (i + 1) % REDRAW_EVERY == 0 and i + 1 < 25:
                show(f"{running.n_draws}_live")
    show(running.n_draws)
    challenge_banner("pages/bias_variance.py", running)
