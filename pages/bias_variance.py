"""Bias–variance: decompose the expected test error of a boosting variant or a forest over many
learning sets.

Every setting is in the URL (widget key = query parameter; the widgets are drawn from
engine/app/page_content/parameters/bias_variance.py), e.g.
``/bias_variance?bv_problem=group&bv_sweep=n_estimators&bv_max_leaf_nodes=2&bv_compare_leaves=8&bv_seed=0``
(every key starts with ``bv_``: a page's keys are its own, so no setting leaks to another page).
Small runs start by themselves (the default view tells the story: stumps against 8-leaf trees
over the number of boosting steps); bigger ones wait for an explicit button that shows the
estimated cost first. The work runs in the page's background run (``pages/_jobs.py``) polled by one
fragment; Stop keeps the learning sets done so far (a partial, flagged result).
"""

import json
import secrets

import pandas as pd
import streamlit as st

from engine import plotting
from engine import plotting as pbv
from engine.app.page_models.cost import estimate_bias_variance_seconds
from engine.experiments import Problem
from engine.experiments.bias_variance import BiasVarianceSettings, check_run
from engine.app.page_content.studies import FOREST_SWEEPABLE, SWEEPABLE, clamp_note, parse_values, run_bias_variance_study
from engine.methods import method_of
from engine.estimators.registry import FOREST_NAMES
from engine.experiments.runner import jsonable
from pages._challenges import challenge_intro
from pages._deeplink import registered_pages, route_through_app
from pages._bv_data import bias_variance_on_data
from pages._data_choice import SPEC_KEY
from pages._draws import draws_section
from pages._jobs import PageRun, gate
from pages._status import failure, run_status
from pages._compare import pin_controls, reset_button, with_pinned
from pages._parameters import parameter_widget
from pages._render import show_chart

route_through_app(__file__)

DEFAULT_VALUES = {
    # Default view: 2 runs x 8 learning sets x one staged 300-step fit each, about 0.4 s of fitting on 2 cores
    # (1000 steps took 2 s and only added a flat tail): stumps keep losing bias, 8-leaf trees level off
    # higher in variance. Longer sweeps are one edit of the Values box away.
    "n_estimators": "1, 3, 10, 30, 100, 300",
    "learning_rate": "0.02, 0.05, 0.1, 0.2, 0.5, 1",
    "max_leaf_nodes": "2, 4, 8, 16, 32",
    "n_projections": "1, 2, 4, 8, 16",
}
FOREST_DEFAULT_VALUES = {
    "n_estimators": "1, 2, 5, 10, 20, 50, 100",
    "max_features": "0.2, 0.4, 0.6, 0.8, 1",
    "n_components": "1, 2, 4, 8, 16",
    "max_leaf_nodes": "4, 16, 64, 256",
}
SWEEP_HELP = {
    "n_estimators": "number of boosting steps M (forests: number of trees)",
    "learning_rate": "learning rate μ (shrinkage)",
    "max_leaf_nodes": "leaves per tree (2 = stumps; forests: fully grown unless swept)",
    "n_projections": "q, random projections per tree (relabel variants only)",
    "max_features": "fraction of the input features drawn at every split (input randomization)",
    "n_components": "q, size of the random output projection (projected forests only)",
}
AUTO_SECONDS = 10.0 # runs estimated below this start by themselves
MAX_SECONDS = 600.0  # refused above this (2 cores)
FORCE = "bv_force"
run = PageRun("bv")   # this page's background run (st.session_state["bv_page_run"])


def tree_label(leaves):
    return "stumps" if int(leaves) == 2 else f"{int(leaves)} leaves"


def resample():
    st.session_state["bv_seed"] = secrets.randbelow(100_000)
    st.session_state[FORCE] = True


st.title("Bias–variance")
if st.session_state.get(SPEC_KEY, {}).get("source", "friedman") != "friedman":   # an upload or a shipped set
    on_data = parameter_widget("bv_data")
    if on_data == "data":
        bias_variance_on_data()
        st.stop()
challenge_intro("pages/bias_variance.py")   # the question at the top, as on the other pages (checked by the draws)
st.caption("Data: **friedman1**, drawn afresh for every learning set (its generator; the problem is chosen below). "
           "Choose an upload or a shipped set on the Data page to decompose on its rows instead.")
st.markdown(
    "Train the same algorithm on many **independent learning sets** drawn from Friedman1, and "
    "watch how its expected test error splits into **noise** (nobody can remove it), **bias²** "
    "(the average model is wrong) and **variance** (the model changes with the data). "
    "By default: stumps against 8-leaf trees as boosting adds steps."
)

# --- controls -------------------------------------------------------------------------------------
with st.sidebar:
    st.header("Bias–variance")
    reset_button("bv", extra=("bv_slice",))
    estimator = parameter_widget("bv_estimator")
    forest = estimator in FOREST_NAMES
    row, _ = method_of(estimator)             # the method table's row of the variant
    projected_forest = forest and row.projected
    sweepable = FOREST_SWEEPABLE if forest else SWEEPABLE
    sweep_options = [k for k in sweepable if projected_forest or k != "n_components"]
    defaults = FOREST_DEFAULT_VALUES if forest else DEFAULT_VALUES
    sweep = parameter_widget("bv_sweep", options=sweep_options)
    st.caption(f"{sweep}: {SWEEP_HELP[sweep]}")
    kind, low, high = sweepable[sweep]
    values_text = parameter_widget(
        "bv_values", placeholder=defaults[sweep],
        help=f"Comma-separated values of {sweep} (at most 12, clamped to [{low}, {high}]). Empty: {defaults[sweep]}.",
        parse=lambda text: parse_values(text or defaults[sweep], kind=kind, low=low, high=high))
    clamped = clamp_note(values_text, low, high, sweep) if values_text else None
    if clamped:
        st.warning(clamped, icon="✂️")
    if forest:
        st.caption("Forests grow fully grown trees on bootstrap samples (mo-et: random thresholds, no "
                   "bootstrap); the tree size, comparison and learning rate below apply to boosting only.")
    if projected_forest and "pages/forests.py" in registered_pages():
        # Here the algorithm variance is one term; paper 003 Appendix C splits it further.
        st.page_link(
            "pages/forests.py", label="Split the algorithm variance: projection vs trees", icon="🌲",
            query_params={"fx_exp": "variance"},
            help="The Forests page's Appendix C experiment splits a projected forest's algorithm variance "
            "into the part due to the projection and the part due to the trees, for Algorithms 1 and 2.",
        )  # fmt: skip
    leaves = parameter_widget("bv_max_leaf_nodes", disabled=forest or sweep == "max_leaf_nodes")
    compare = parameter_widget("bv_compare_leaves", disabled=forest or sweep == "max_leaf_nodes")
    n_estimators = parameter_widget("bv_n_estimators", disabled=sweep == "n_estimators")
    learning_rate = parameter_widget("bv_learning_rate", disabled=forest or sweep == "learning_rate")
    relabel = not forest and row.takes_q     # gbrt-relabel-rpo
    q_name = "n_components" if projected_forest else "n_projections"
    n_projections = parameter_widget("bv_n_projections", disabled=not (relabel or projected_forest) or sweep == q_name)

    st.subheader("Problem and repetitions")
    structure = parameter_widget("bv_problem")
    n_outputs = parameter_widget("bv_n_outputs")
    noise = parameter_widget("bv_noise")
    n_sets = parameter_widget("bv_n_sets")
    n_train = parameter_widget("bv_n_train")
    n_test = parameter_widget("bv_n_test")
    n_seeds = parameter_widget("bv_n_seeds")
    seed = parameter_widget("bv_seed")

# --- configuration and cost ---------------------------------------------------------------------
try:
    values = parse_values(values_text or defaults[sweep], kind=kind, low=low, high=high)
except ValueError as exc:
    st.error(f"Values: {exc}. Example: {defaults[sweep]}", icon="⚠️")
    st.stop()
if sweep == "n_projections" and not relabel:
    st.error("Sweeping q (n_projections) needs a gbrt-relabel-rpo variant: choose one in the sidebar.", icon="⚠️")
    st.stop()

q_values = values if sweep == q_name else [int(n_projections)]
if "subsampled" in estimator and max(q_values) > int(n_outputs):
    st.error(f"Output sub-sampling draws q distinct outputs, so q must be at most d = {n_outputs}: lower q "
             "or raise the number of outputs.", icon="⚠️")
    st.stop()

if forest:
    base = {"n_estimators": int(n_estimators)}
    if projected_forest:
        base["n_components"] = int(n_projections)
else:
    base = {"learning_rate": float(learning_rate), "n_estimators": int(n_estimators), "max_leaf_nodes": int(leaves)}
    if relabel:
        base["n_projections"] = int(n_projections)
base.pop(sweep, None)
common = dict(estimator=estimator, param_name=sweep, param_values=values, structure=structure,
              n_learning_sets=int(n_sets), n_train=int(n_train), n_test=int(n_test), n_seeds=int(n_seeds),
              n_outputs=int(n_outputs), noise=float(noise), seed=int(seed))  # fmt: skip
if forest or sweep == "max_leaf_nodes" or compare == "none":
    label = tree_label(leaves) if not forest and sweep != "max_leaf_nodes" else estimator
    plain = {label: base}
else:
    plain = {tree_label(leaves): base}
    if int(compare) != int(leaves):
        plain[tree_label(compare)] = {**base, "max_leaf_nodes": int(compare)}
config = json.dumps({label: {**common, "estimator_params": params} for label, params in plain.items()}, sort_keys=True)
# The runs' problem and settings, checked as they are built (a value the estimator refuses is said here).
try:
    problem = Problem(f"friedman1-{structure}", n_train=int(n_train), n_test=int(n_test), n_outputs=int(n_outputs),
                      noise=float(noise))
    runs = {label: (problem, BiasVarianceSettings(estimator, estimator_params=params, param_name=sweep,
                                                  param_values=values, n_learning_sets=int(n_sets),
                                                  n_seeds=int(n_seeds)))
            for label, params in plain.items()}
    for p_, s_ in runs.values():
        check_run(p_, s_)
except ValueError as exc:
    st.error(f"These settings cannot run: {exc}", icon="⚠️")
    st.stop()
cost = sum(estimate_bias_variance_seconds(p_, s_) for p_, s_ in runs.values())

# --- job: start small runs by themselves, big ones on request ---------------------------------------
gate(run, config, cost, lambda: run.start(run_bias_variance_study, runs, seed=int(seed), settings=config, estimate=cost),
     auto_seconds=AUTO_SECONDS, max_seconds=MAX_SECONDS, button_key="bv_run_big", force_key=FORCE,
     too_costly="use fewer learning sets, smaller sets or fewer steps (or the command line).",
     detail=f"{len(runs)} run(s) × {n_sets} learning sets × {n_seeds} seed(s), on one core")

running = run.running


# Poll fast while a run is young (the default one ends in under a second), slower after.
run_status(run, run.poll_while(running, 0.2 if run.view().elapsed < 5 else 0.5), estimate=cost, stop_key="bv_stop",
           stop_help="Stop after the current learning set and show the decomposition over the sets done so far "
                     "(flagged as partial).")

# --- results -------------------------------------------------------------------------------------------
done = run.finished
if done is None or not done.result:
    if done is not None and done.status == "failed":
        failure(done)
    elif not running:
        st.info("Choose the settings in the sidebar; small runs start by themselves.")
    st.stop()

results = done.result
if done.status == "failed":
    st.error("The run failed; showing what was finished.", icon="⚠️")
if done.settings != config:
    st.caption("Showing the last finished run (its settings differ from the sidebar's).")
first = next(iter(results.values()))
partial = any(r.partial for r in results.values())
if done.status == "stopped" or partial:
    sets = ", ".join(f"{k}: {r.n_sets_done}/{r.n_learning_sets}" for k, r in results.items())
    st.warning(f"**Stopped after {done.elapsed:.1f} s: partial result** over the learning sets finished ({sets}); "
               "fewer sets mean noisier estimates, and a run that did not start is missing.", icon="✋")  # fmt: skip
stopped = done.status == "stopped" or partial     # then the warning above says how it ended, once
st.caption(
    f"Seed **{first.seed}** · {first.n_sets_done} learning sets of {first.n_train} samples · {first.n_test} test "
    f"points · {first.n_seeds} seed(s) per set · Friedman1-{first.structure}, d = {first.n_outputs}, noise sd "
    f"{first.noise_sd:g} · {first.estimator}" + ("" if stopped else f" · took {done.elapsed:.1f} s")
)

chart_config = {"displaylogo": False}  # toolbar kept: PNG download
p = first.param_name
names = list(results)

# 1. stacked decomposition, with the formula and the takeaway beside it
pinned, pin_label = pin_controls("bv", results, done.settings)
stacked = with_pinned(pbv.bias_variance_stacked_figure(results), pbv.bias_variance_stacked_figure, pinned, pin_label,
                      same_kind=pinned is not None and next(iter(pinned.values())).param_name == p)
left, right = st.columns([3, 1])
show_chart(left, stacked, key="bv_stacked", config=chart_config)
with right:
    st.markdown("**The decomposition**")
    st.latex(r"\begin{aligned}\mathrm{Err} &= \sigma^2 + \mathrm{bias}^2 \\ &+ \mathrm{Var}_L(E_\theta f) \\ &+ E_L \mathrm{Var}_\theta(f)\end{aligned}")
    st.markdown(
        "Each band is one term, stacked bottom to top; the black line is the total expected error. "
        "Look for where the blue (variance) bands start to grow while the red (bias²) band shrinks."
    )
    last = names[-1]
    r_last = results[last]
    k_best = int(r_last.error.argmin())
    if len(names) > 1:
        a, b = results[names[0]], r_last
        st.markdown(
            f"**Takeaway.** With {last} the variance term rises to **{b.variance[-1]:.2f}** at {p} = "
            f"{b.param_values[-1]}, against **{a.variance[-1]:.2f}** with {names[0]}, while its bias² falls to "
            f"**{b.bias2[-1]:.2f}** (vs {a.bias2[-1]:.2f}). The lowest error is **{b.error.min():.2f}** with {last} "
            f"({p} = {b.param_values[k_best]}) and **{a.error.min():.2f}** with {names[0]} "
            f"({p} = {a.param_values[int(a.error.argmin())]}); the noise floor is {a.noise[0]:.2f}."
        )
    else:
        r = r_last
        st.markdown(
            f"**Takeaway.** From {p} = {r.param_values[0]} to {r.param_values[-1]}, bias² goes from "
            f"**{r.bias2[0]:.2f}** to **{r.bias2[-1]:.2f}** and the variance from **{r.variance[0]:.2f}** to "
            f"**{r.variance[-1]:.2f}**. The lowest expected error, **{r.error.min():.2f}**, is at {p} = "
            f"{r.param_values[k_best]}; the noise floor is {r.noise[0]:.2f}."
        )

# 2. the same numbers as lines
lines = pbv.bias_variance_lines_figure(results)
left, right = st.columns([3, 1])
show_chart(left, lines, key="bv_lines", config=chart_config)
with right:
    st.markdown("**What to look for**")
    st.markdown(
        "The same terms as lines on a log scale, so the small variance is visible next to the bias; one dash "
        "style per run. Bias² (red) usually falls and variance (blue) rises along the sweep; the error "
        "(black) is lowest where the two balance."
    )
    if first.n_seeds > 1:
        st.markdown(f"Algorithm variance (the model's own randomness: projections, bootstrap, feature draws) at the last value: "
                    f"**{r_last.var_algorithm[-1]:.3f}**.")  # fmt: skip

# 3. resample the training set: curves on a 1-D slice
st.subheader("Resample the training set")
# The options are the values themselves (as strings: the URL holds them, e.g. bv_slice=300). A value
# from the URL or from an earlier sweep that is not among this run's values is clamped to the last one.
options = [str(v) for v in first.param_values]
wanted_slice = st.session_state.get("bv_slice", st.query_params.get("bv_slice"))
st.session_state["bv_slice"] = wanted_slice if wanted_slice in options else options[-1]
slice_value = parameter_widget("bv_slice", label=f"Curves at {p} =", options=options)
slice_index = options.index(slice_value)
curves = pbv.slice_curves_panels_figure(results, index=slice_index)
left, right = st.columns([3, 1])
show_chart(left, curves, key="bv_curves", config=chart_config)
with right:
    st.markdown("**What to look for**")
    st.markdown(
        "Thin lines: the model fitted on different learning sets (output 1, along x₁ with the other inputs "
        "at 0.5). Their spread is the variance; the gap between their mean (orange) and the Bayes model "
        "(dashed) is the bias."
    )
    st.button("Resample", key="bv_resample", on_click=resample,
              help="Draw new learning sets (a new random seed) and run again.")  # fmt: skip
    st.caption(f"Current seed: {first.seed}")

# --- one draw, many draws: the first run's settings at the sweep's last value (pages/_draws.py) ---
draw_params = {**base, sweep: values[-1]}
draws_section(
    dict(estimator=estimator, structure=structure, n_train=int(n_train), n_test=int(n_test), n_seeds=int(n_seeds),
         n_outputs=int(n_outputs), noise=float(noise), estimator_params=draw_params, seed=int(seed)),
    f"{estimator}, " + ", ".join(f"{k} {v}" for k, v in draw_params.items())
    + f" · Friedman1-{structure}, {n_train} samples per set, {n_seeds} seed(s) per set",
)

# --- exports ---------------------------------------------------------------------------------------------------------
st.subheader("Export")
frame = pd.concat([r.to_frame().assign(run=k) for k, r in results.items()], ignore_index=True)
c = st.columns(5)
c[0].download_button("Results (CSV)", frame.to_csv(index=False), "bias_variance.csv", "text/csv", key="bv_csv",
                     on_click="ignore", help="One row per run and parameter value: every term of the decomposition.")
c[1].download_button("Results (JSON)", lambda: json.dumps(jsonable({k: r.to_dict() for k, r in results.items()})),
                     "bias_variance.json", "application/json", key="bv_json", on_click="ignore",
                     help="Everything, including per-output terms and the slice curves.")  # fmt: skip
for col, (name, fig) in zip(c[2:], (("stacked", stacked), ("lines", lines), ("curves", curves))):
    col.download_button(f"Figure: {name} (HTML)", lambda fig=fig: plotting.standalone_html(fig),
                        f"bias_variance_{name}.html", "text/html", key=f"bv_html_{name}", on_click="ignore",
                        help="A standalone interactive HTML file that works offline.")  # fmt: skip
