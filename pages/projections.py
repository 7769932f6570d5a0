"""Projections: how many random projections (q) and which projection scheme (paper Figures 2-6).

Two experiments, both from ``engine.experiments``:

* ``proj_experiment=size``: gbrt-relabel-rpo with each q of ``proj_q_values`` against gbmort (the
  q -> infinity limit): test score and fit time against q (Figure 6), score against fit time
  (Figure 5);
* ``proj_experiment=schemes``: gbrt-rpo (or gbrt-relabel-rpo) with output sub-sampling, Gaussian,
  Achlioptas and sparse projections (Figures 2-4).

Every setting is in the URL (its widget drawn from engine/app/page_content/parameters/projections.py), e.g. ``/projections?proj_experiment=size&proj_dataset=delicious&proj_q_values=1,20,50``
(every key starts with ``proj_``: a page's keys are its own, so no setting leaks to another page).
Small runs start by themselves; bigger ones wait for a button that shows the estimated cost.

Data sets: the Friedman1 problems and the shipped benchmarks; the wide-output ones (delicious, the
papers' own set, corel5k, cal500, bibtex: d = 983 to 159) are where a tree on
q projections is much cheaper than gbmort's tree on all d outputs. Fit times are measured after a
warm-up fit, and short fits are repeated (median), by the experiment itself
(``engine.experiments.timing``); the page says so under the charts.
The work runs in the page's background run (pages/_jobs.py), polled by one fragment, with a Stop button.
"""

import json
import secrets

import streamlit as st

from engine import plotting
from engine.app.page_content import takeaways
from engine.app.page_models.cost import estimate_projection_seconds
from engine.app.page_content.page_defaults import FEW_OUTPUTS, PROJECTIONS_DATASET
from engine.app.page_content.parameters import parameter
from engine.app.page_content.parameters.projections import STRATEGIES
from engine.app.page_content.studies import clamp_note, parse_values
from engine.datasets import list_datasets
from engine.experiments import BoostingSettings, Problem, run_projection_schemes, run_projection_size
from engine.experiments.claims import claims_for, claims_frame
from engine.experiments.projection_size import MATCH_TOLERANCE
from engine.experiments.convergence import auto_eval_points
from engine.experiments.timing import Timing
from engine.methods import SCHEMES
from engine.names import FRIEDMAN_PROBLEMS, LOSSES, MULTI_OUTPUT, PROJECTED_RELABEL
from pages._predict import ask
from pages._deeplink import preset_go, route_through_app
from pages._jobs import PageRun, gate
from pages._status import failure, run_status
from pages._data_choice import SPEC_KEY, chosen_dataset
from pages._race import leaf_widget, race_section
from pages._compare import pin_controls, reset_button, with_pinned
from pages._parameters import parameter_button, parameter_widget
from pages._render import show_chart, show_table

route_through_app(__file__)

# Runs estimated up to this start by themselves: the default view (bibtex, about 13 s on a 2-core
# machine: python -m engine.bench --pages) among them, so a class opening the page sees the chart
# (identical runs are computed once for every session: engine.app.serving.runstore).
AUTO_SECONDS = 20.0
MAX_SECONDS = 900.0
FORCE = "proj_force"
# Where the effect shows: many outputs, so a tree on q << d projections is much cheaper than gbmort's.
# (scikit-learn's generator at delicious' shape, synthetic-delicious-shape, is not offered: its trees learn
# nothing; the real delicious serves every purpose it had here. It stays in the engine for the bench.)
WIDE_OUTPUTS = ("delicious", "corel5k", "cal500", "bibtex")
run = PageRun("proj")   # this page's background run (st.session_state["proj_page_run"])


@st.cache_data
def catalogue():
    """Shipped data sets, the wide-output ones first."""
    rows = {d["name"]: d for d in list_datasets()}
    return {**{n: rows[n] for n in WIDE_OUTPUTS if n in rows}, **{n: r for n, r in rows.items() if n not in WIDE_OUTPUTS}}


def default_q(d):
    """Powers of two up to d for few outputs; else 1 and about 10, 20, 50 % of d (as the paper)."""
    if d <= 32:
        return ", ".join(str(2**i) for i in range(d.bit_length()) if 2**i <= d)
    return ", ".join(str(q) for q in sorted({1, *(max(1, round(f * d)) for f in (0.1, 0.2, 0.5))}))


def new_seed():
    st.session_state["proj_seed"] = secrets.randbelow(100_000)


DATA_CHOICE = "data"     # the Data page's upload, among the data sets


def use_data_page(name):
    st.session_state["proj_dataset"] = name


st.title("Projections")
st.markdown(
    "gbrt-rpo grows each tree on a **random projection** of the residuals. How many projections does "
    "a tree need, and does the kind of projection matter? With **q** projections per tree "
    "(gbrt-relabel-rpo), accuracy approaches gbmort (all outputs, q → ∞) while each tree gets cheaper to grow."
)
data_line = st.empty()   # which data the q sweep and the schemes run on, said once the sidebar has chosen
race_section()

shipped = catalogue()
upload_chosen = st.session_state.get(SPEC_KEY, {}).get("source") == "upload"
datasets = list(FRIEDMAN_PROBLEMS) + list(shipped) + ([DATA_CHOICE] if upload_chosen else [])
with st.sidebar:
    st.header("Projections")
    reset_button("proj")
    experiment = parameter_widget("proj_experiment")
    wide = ", ".join(f"{n} (d = {shipped[n]['n_outputs']})" for n in WIDE_OUTPUTS if n in shipped)
    dataset = parameter_widget(
        "proj_dataset", options=datasets, default=DATA_CHOICE if upload_chosen else PROJECTIONS_DATASET,
        help=f"{parameter('proj_dataset').help} Wide outputs, where fewer projections save the most time: {wide}. "
        "Scores: macro-r2 or LRAP (multi-label).")
    if dataset in shipped:
        meta = shipped[dataset]
        sparse_note = " · sparse inputs" if meta.get("sparse") else ""
        st.caption(f"{dataset}: {meta['task']}, {meta['n_samples']:,} samples × {meta['n_features']:,} inputs × "
                   f"{meta['n_outputs']} outputs{sparse_note}")  # fmt: skip
    spec = st.session_state.get("dataset_spec") or {}
    data_page = (f"friedman1-{spec['structure']}" if spec.get("source") == "friedman"
                 else spec.get("name") if spec.get("source") == "shipped" else None)  # fmt: skip
    if data_page in datasets and data_page != dataset:
        st.button(f"Use the Data page's {data_page}", key="proj_use_data", on_click=use_data_page,
                  args=(data_page,), help="Switch to the data set chosen on the Data page.")  # fmt: skip
    friedman = dataset in FRIEDMAN_PROBLEMS
    uploaded, data_words = chosen_dataset() if dataset == DATA_CHOICE else (None, "")
    n_outputs = parameter_widget("proj_n_outputs", disabled=not friedman)
    n_test = parameter_widget("proj_n_test", disabled=not friedman)
    d = n_outputs if friedman else uploaded.n_outputs if uploaded is not None else shipped.get(dataset, {}).get("n_outputs", 1)
    task = "regression" if friedman else uploaded.task if uploaded is not None else shipped.get(dataset, {}).get("task", "regression")

    if experiment == "size":
        projection = parameter_widget("proj_projection")
        q_text = parameter_widget(
            "proj_q_values", placeholder=default_q(d),
            help=f"Comma-separated numbers of projections per tree, at most 8 (sub-sampling needs q ≤ d = {d}). "
            f"Empty: {default_q(d)}.",
            parse=lambda text: parse_values(text or default_q(d), kind=int, low=1, max_count=8))
        at_most_d = SCHEMES[projection].q_at_most_d     # sub-sampling draws q of the d outputs
        q_high = d if at_most_d else 4 * d
        q_note = clamp_note(q_text, 1, q_high, "q" + (f" ({SCHEMES[projection].description} draws q of the d outputs)"
                                                      if at_most_d else ""))
        if q_note:
            st.warning(q_note, icon="✂️")
        leaf_estimation = leaf_widget(loss_key=f"proj_loss_{task}")   # None when the engine has no such parameter
    else:
        schemes = parameter_widget("proj_schemes")
        algorithm = parameter_widget("proj_algorithm")
    loss = parameter_widget(f"proj_loss_{task}")
    n_steps = parameter_widget("proj_n_steps")
    learning_rate = parameter_widget("proj_learning_rate")
    leaves = parameter_widget("proj_max_leaf_nodes")
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    seed = parameter_widget("proj_seed", where=c1)
    parameter_button("proj_new_seed", where=c2, on_click=new_seed)

# --- configuration and cost ---------------------------------------------------------------------------
# The train score is not drawn here: train_curve=False saves a second pass over the training set.
common = dict(n_steps=int(n_steps), learning_rate=float(learning_rate), max_leaf_nodes=int(leaves), seed=int(seed),
              loss=None if loss == LOSSES[task][0] else loss, train_curve=False)
if friedman:
    common.update(n_outputs=int(n_outputs), n_test=int(n_test))
data_line.caption(f"Data of the q sweep and the schemes (sidebar): **{data_words if dataset == DATA_CHOICE else dataset}**"
                  + (", the Data page's choice." if dataset == DATA_CHOICE else "."))
if dataset == DATA_CHOICE:
    if uploaded is None:
        st.error(f"{data_words[0].upper()}{data_words[1:]}.", icon="📤")
        st.stop()
    try:
        problem = Problem.of(uploaded)     # its data count in the run's key (engine.app.serving.run_key), not its name
    except ValueError as exc:             # e.g. too few rows to split
        st.error(f"The Data page's choice cannot be swept: {exc}.", icon="⚠️")
        st.stop()
else:
    problem = Problem(dataset, **{k: common[k] for k in ("n_outputs", "n_test") if k in common})
if experiment == "size":
    try:
        q_values = parse_values(q_text or default_q(d), kind=int, low=1, high=q_high,
                                max_count=8)  # fmt: skip
    except ValueError as exc:
        st.error(f"Values of q: {exc}. Example: {default_q(d)}", icon="⚠️")
        st.stop()
    kwargs = dict(q_values=q_values, projection=projection, **common)
    if leaf_estimation is not None:
        kwargs["leaf_estimation"] = leaf_estimation
    target = run_projection_size
    call_kwargs = dict(q_values=q_values, projection=projection, seed=common["seed"], train_curve=False)
    models = [(PROJECTED_RELABEL, q) for q in q_values] + [(MULTI_OUTPUT, None)]
else:
    if not schemes:
        st.error("Choose at least one projection scheme in the sidebar.", icon="⚠️")
        st.stop()
    kwargs = dict(schemes=list(schemes), strategy=STRATEGIES[algorithm], **common)
    target = run_projection_schemes
    call_kwargs = dict(schemes=list(schemes), strategy=STRATEGIES[algorithm], seed=common["seed"], train_curve=False)
    models = [(STRATEGIES[algorithm], 1)] * len(schemes)
# the call: the problem (built above) and the boosting settings as objects (checked when built), the sweep as keywords
call_args = (problem, BoostingSettings(common["n_steps"], learning_rate=common["learning_rate"],
                                       max_leaf_nodes=common["max_leaf_nodes"], loss=common["loss"],
                                       leaf_estimation=leaf_estimation if experiment == "size" else None))
n_runs = len(models)
config = json.dumps({"experiment": experiment, "dataset": dataset, **kwargs}, sort_keys=True)
size = problem.size()
cost = estimate_projection_seconds(
    models=models, n_steps=int(n_steps), loss=loss, projection=projection if experiment == "size" else "gaussian",
    max_leaf_nodes=int(leaves), n_eval_points=auto_eval_points(size["n_test"], d), train_curve=False, timing=Timing(),
    **{k: size[k] for k in ("task", "n_train", "n_test", "n_features", "n_outputs", "nnz_per_row")},
)  # fmt: skip

gate(run, config, cost, lambda: run.start(target, *call_args, settings=config, estimate=cost, **call_kwargs),
     auto_seconds=AUTO_SECONDS, max_seconds=MAX_SECONDS, button_key="proj_run_big", force_key=FORCE,
     force=preset_go(),   # a Home preset runs on its one click
     too_costly="use fewer steps or fewer values of q.", detail=f"{n_runs} models × {n_steps} steps on {dataset}")
running = run.running


run_status(run, run.poll_while(running, 0.5), estimate=cost, stop_key="proj_stop",
           stop_help="Stop now and show the models finished so far (flagged as partial).")
done = run.finished   # Predict first (pages/_predict.py): the q sweep's question, before its charts
asked = done.result if experiment == "size" and done is not None and hasattr(done.result, "q_values") else None
if experiment == "size" and not ask("proj", "q_faster", asked, pending=running or asked is not None, about=config):
    st.stop()

# --- results -----------------------------------------------------------------------------------------------
done = run.finished
if done is None or done.result is None:
    if done is not None and done.status == "failed":
        failure(done)
    elif not running:
        st.info("Choose the settings in the sidebar; small runs start by themselves.")
    st.stop()

res = done.result
params = res.params
if done.settings != config:
    st.warning(f"The charts below are the last finished run, made with other settings than the sidebar's "
               f"(**{res.dataset}**, {params['n_steps']} steps, seed {params['seed']}); every sentence beside them "
               "describes that run.", icon="🔁")
if not res.complete:   # the one sentence about how the run ended (else "took t s" below)
    st.warning(f"**Stopped after {done.elapsed:.1f} s: partial result.** Only the models finished before Stop are "
               "drawn; the others are missing (or end early).", icon="✋")  # fmt: skip
timing = Timing(**params["timing"]) if params.get("timing") else None
# The run's notes without the timing paragraph, which the caption below says (with the fits per model).
data_notes = [n for n in res.notes[-2:] if timing is None or n != timing.describe()]
st.caption(f"Seed **{params['seed']}** · {res.dataset} · {res.n_outputs} outputs · {params['n_steps']} steps, "
           f"μ = {params['learning_rate']}, {params['max_leaf_nodes']} leaves, {params.get('loss') or LOSSES[res.task][0]} loss · "
           + ("" if not res.complete else f"took {done.elapsed:.1f} s · ") + " · ".join(data_notes))  # fmt: skip
fits = ", ".join(f"{label}: {c.timed_fits}" for label, c in res.curves.items())
st.caption((timing.describe() if timing else "Each model was fitted and timed once, without a warm-up fit.")
           + f" Timed fits per model: {fits}. Times are measured while the app serves pages on a shared machine; "
           "differences of a few hundredths of a second are noise.")  # fmt: skip
chart_config = {"displaylogo": False}  # toolbar kept: PNG download
figures = {}
pinned, pin_label = pin_controls("proj", res, done.settings)
if hasattr(res, "q_values"):
    figures["score_time_vs_q"] = fig = with_pinned(plotting.projection_size_figure(res), plotting.projection_size_figure,
                                                   pinned, pin_label, same_kind=hasattr(pinned, "q_values"))
    left, right = st.columns([3, 1])
    show_chart(left, fig, key="proj_size", config=chart_config)
    with right:
        st.markdown("**What to look for**")
        st.markdown("Left: the test score for each q, with gbmort (dashed) as the q → ∞ limit and the constant "
                    "model all methods start from (dotted grey). Right: the fit time of each q (the median of "
                    "repeated fits; bars span the fastest and slowest).")  # fmt: skip
        st.markdown(takeaways.projection_time_trend(res))
        st.markdown(takeaways.projection_size_takeaway(res, MATCH_TOLERANCE))
        if res.n_outputs < FEW_OUTPUTS:
            st.caption(f"With {res.n_outputs} outputs a gbmort tree is cheap: the time saved by few projections "
                       "needs many outputs (try delicious, corel5k, cal500 or bibtex).")
    figures["score_vs_fit_time"] = fig = plotting.projection_size_curves_figure(res)
    left, right = st.columns([3, 1])
    show_chart(left, fig, key="proj_curves", config=chart_config)
    with right:
        st.markdown("**What to look for**")
        st.markdown("Each curve is one model's test score as it trains, against its fitting time (Figure 5). The "
                    "curve furthest up and to the left reaches a given score soonest.")  # fmt: skip
else:
    figures["schemes"] = fig = with_pinned(plotting.schemes_figure(res), plotting.schemes_figure, pinned, pin_label,
                                           same_kind=not hasattr(pinned, "q_values"))
    left, right = st.columns([3, 1])
    show_chart(left, fig, key="proj_schemes_chart", config=chart_config)
    summary = res.summary_frame()
    with right:
        st.markdown("**What to look for**")
        st.markdown("One learning curve per projection scheme, against trees per output. Curves that climb faster "
                    "share more useful splits between outputs.")  # fmt: skip
        st.markdown(takeaways.schemes_takeaway(res))
    figures["schemes_vs_fit_time"] = fig = plotting.schemes_figure(
        res, x="fit_time", title=f"{res.dataset}: test {res.metric} against fit time, per projection scheme")
    left, right = st.columns([3, 1])
    show_chart(left, fig, key="proj_schemes_time", config=chart_config)
    with right:
        st.markdown("**What to look for**")
        st.markdown("The same curves against fit time: a curve further left reached its score in less time.")
        st.markdown(takeaways.schemes_time_takeaway(res))
        if res.n_outputs < FEW_OUTPUTS:
            st.caption(f"With {res.n_outputs} outputs every tree is cheap: differences in cost between the schemes "
                       "need many outputs (try delicious, bibtex, corel5k or cal500).")

if res.dataset == "delicious":   # issue 33: the paper's delicious figures, its claims held to this run
    with st.expander("The paper's claims beside this run (Figures 3, 5, 6 on delicious)"):
        show_table(st, claims_frame(claims_for(res)), hide_index=True)

st.subheader("Export")
c = st.columns(2 + len(figures))
c[0].download_button("Results (CSV)", res.to_frame().to_csv(index=False), f"projections_{experiment}.csv", "text/csv",
                     key="proj_csv", on_click="ignore", help="One row per model (and per step for the curves).")  # fmt: skip
c[1].download_button("Results (JSON)", res.to_json(), f"projections_{experiment}.json", "application/json",
                     key="proj_json", on_click="ignore", help="Everything, including full learning curves and settings.")  # fmt: skip
for col, (name, fig) in zip(c[2:], figures.items()):
    col.download_button(f"Figure: {name} (HTML)", lambda fig=fig: plotting.standalone_html(fig),
                        f"projections_{name}.html", "text/html", key=f"proj_html_{name}", on_click="ignore",
                        help="A standalone interactive HTML file that works offline.")  # fmt: skip
