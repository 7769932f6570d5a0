"""Forests: random forests on randomly projected outputs (paper 003, Joly, Geurts & Wehenkel 2014).

Five experiments, each one call of engine.experiments (forests, forest_variance, compression)
run as the page's background run (pages/_jobs.py) with progress and Stop, drawn by
engine.plotting (forests, compression):

* projection size (Figure 1): a single tree, Algorithm 1 (shared projection) and
  Algorithm 2 (a projection per tree) against q, mo-rf as the reference;
* input vs output randomization (Figure 2): score against k = max_features for a few q;
* projection schemes (Figure 3): Gaussian, Rademacher, sparse Rademacher, sub-sampling;
* variance split (Appendix C, on Friedman1): a single projected tree's algorithm variance
  split into its projection and tree terms, forests with Algorithms 1 and 2 beside them;
* compression (thesis chapter 7): an extra-trees forest rewritten as a linear model on its
  node indicators, its ℓ1 path (error and test nodes against t), t chosen by cross-validation
  and marked, the compression factor beside the chart.

Every control is in the URL (keys prefixed ``fx_``), drawn from its row of the parameter table
(engine/app/page_content/parameters/forests.py), e.g.
``/forests?fx_exp=schemes&fx_data=yeast&fx_seed=3``. The first visit runs the linked view
(default: projection size on corel5k, 374 labels, 10 trees, q = 1, 4, 16:
engine.app.page_content.page_defaults) at once.
"""

import ast
import re

import streamlit as st

from engine.experiments import compression as ce
from engine.experiments import forest_variance
from engine.experiments import Problem
from engine.experiments import forests as fe
from engine import plotting as pf
from engine.app.page_content import takeaways
from engine.app.page_content.page_defaults import FEW_OUTPUTS, FORESTS_DATASET
from engine.app.page_content.studies import clamp_note
from engine.app.page_models.cost import (
    estimate_compression_seconds,
    estimate_forest_sweep_seconds,
    estimate_forest_variance_seconds,
)
from engine.datasets import THESIS_PROBLEMS, list_datasets
from engine.experiments.claims import claims_for, claims_frame
from pages._deeplink import preset_go, route_through_app
from pages._jobs import PageRun, fmt_seconds, gate
from pages._status import failure, progress_bar
from engine.app.page_models import dataspec
from pages._data_choice import SPEC_KEY, chosen_dataset
from pages._compare import pin_controls, reset_button, with_pinned
from pages._parameters import parameter_widget
from pages._render import show_chart, show_table

route_through_app(__file__)

run = PageRun("fx")   # this page's background run (st.session_state["fx_page_run"])
# The cost gate (pages/_jobs.py): runs estimated up to AUTO_SECONDS start by themselves (the default
# view among them), up to MAX_SECONDS they wait for a button showing the estimate, above are refused.
AUTO_SECONDS = 20.0
MAX_SECONDS = 900.0
FORCE = "fx_force"
FROM_DATA_PAGE = "Data page"
SWEEP_OF = {"size": "projection-size", "randomization": "randomization", "schemes": "schemes"}


@st.cache_data
def multilabel_sets():
    return {d["name"]: d for d in list_datasets() if d["task"] == "multilabel"}


@st.cache_data
def compression_sets():
    """The thesis's Friedman1 (default) and Two-norm, then every shipped data set."""
    return [*THESIS_PROBLEMS, *(d["name"] for d in list_datasets())]


def parse_ints(text, name):
    try:
        values = [int(v) for v in str(text).replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"{name}: write whole numbers separated by commas, e.g. 1, 2, 4") from None
    if not values:
        raise ValueError(f"{name}: give at least one number")
    return sorted(set(values))


def data_problem(choice):
    """(the Problem for the experiment functions, its description); an upload the server no longer
    holds is a ValueError saying so."""
    if choice != FROM_DATA_PAGE:
        return Problem(choice), f"shipped data set **{choice}** (standard train/test split when it has one)"
    spec = st.session_state.get("dataset_spec") or {"source": "friedman", "structure": "chain"}
    if spec.get("source") == "shipped":
        return Problem(spec["name"]), f"**{spec['name']}**, chosen on the Data page"
    if spec.get("source") == "friedman":
        name = f"friedman1-{spec.get('structure', 'chain')}"
        problem = Problem(name, n_train=int(spec.get("n_samples", 300)), n_test=1000,
                          n_outputs=int(spec.get("n_outputs", 16)), noise=float(spec.get("noise", 1.0)),
                          input_distribution=spec.get("input_distribution", "uniform"),
                          n_noisy_outputs=int(spec.get("n_noisy_outputs", 0)))
        return problem, f"**{name}** from the Data page ({problem.n_train} train, 1000 test samples)"
    ds, words = chosen_dataset()
    if ds is None:
        raise ValueError(words)
    # Problem.of: its data count in the run's key (engine.app.serving.run_key), so two uploads of one name differ.
    return Problem.of(ds), f"**{words}**, the Data page's choice (a seeded 50/50 split)"


# --- controls ----------------------------------------------------------------------------------
st.title("Forests")
st.markdown(
    "Random forests whose trees are grown on **random projections of the outputs** and whose leaves "
    "predict the original outputs (paper 003). How small can the projection be, should every tree get "
    "its own, and how does it interact with the forest's own input randomization? And, once grown, how "
    "small can a forest get (**Compression**, thesis chapter 7)?"
)

catalogue = multilabel_sets()
data_options = [FROM_DATA_PAGE, *catalogue]
own_data = st.session_state.get(SPEC_KEY, {}).get("source", "friedman") != "friedman"   # an upload, a shipped set
with st.sidebar:
    st.header("Forest experiment")
    reset_button("fx")
    experiment = parameter_widget("fx_exp")
    variance = experiment == "variance"
    compression = experiment == "compression"
    if variance:
        structure = parameter_widget("fx_structure")
        n_sets = parameter_widget("fx_sets")
    elif compression:
        compression_options = [FROM_DATA_PAGE, *compression_sets()]
        compression_data = parameter_widget("fx_cdata", options=compression_options, index=0 if own_data else 1)
        n_min = parameter_widget("fx_nmin")
        n_folds = parameter_widget("fx_cv")
    else:
        data_choice = parameter_widget("fx_data", options=data_options,
                                       default=FROM_DATA_PAGE if own_data else FORESTS_DATASET)
    if not compression:
        q_text = parameter_widget("fx_q", parse=lambda text: parse_ints(text, "q"))
    if experiment == "size":
        single_trees = parameter_widget("fx_single")
    if experiment not in ("schemes", "compression"):
        projection = parameter_widget("fx_proj")
    elif experiment == "schemes":
        schemes = parameter_widget("fx_schemes")
    if experiment == "randomization":
        k_text = parameter_widget("fx_k", parse=lambda text: parse_ints(text, "k") if text.strip() else None)
    n_trees = parameter_widget("fx_trees")
    n_repeats = parameter_widget("fx_repeats", disabled=variance)
    seed = parameter_widget("fx_seed")

# The engine's errors name its arguments (max_features_values: ...); the page names its controls instead.
ENGINE_ARGUMENTS = {"max_features_values": "Features per node k (fx_k)", "q_values": "Projected dimensions q (fx_q)",
                    "n_estimators": "Trees per forest (fx_trees)", "n_runs": "Repeats (fx_repeats)"}


def control_names(message: str) -> str:
    """``message`` with each engine argument it names replaced by the page's control."""
    for argument, control in ENGINE_ARGUMENTS.items():
        message = re.sub(rf"\b{argument}\b", control, message)
    return message


refused, data_text = None, ""
try:
    if variance:
        data_text = f"Friedman1-**{structure}** learning sets (300 train, 16 outputs, 500 test points)" + (
            ", not the Data page's choice: splitting the variance needs Friedman1's generator (a fresh learning "
            "set per draw) and its Bayes model" if own_data else "")
        data = Problem(f"friedman1-{structure}", n_train=300, n_test=500)
    elif compression and compression_data == FROM_DATA_PAGE:
        data, data_text = data_problem(FROM_DATA_PAGE)
    elif compression:
        data_text = (f"**{compression_data}** (thesis Appendix A: 300 train, 2000 test samples per run)"
                     if compression_data in THESIS_PROBLEMS else
                     f"shipped data set **{compression_data}** (standard train/test split when it has one)")
        data = Problem(compression_data, n_train=300, n_test=2000)
    else:
        data, data_text = data_problem(data_choice)
    if data is None:
        raise ValueError("this page needs the Friedman1 problems or a shipped data set; pick one above")
    # q above d, the number of outputs, adds nothing (q -> d approaches the unprojected forest) and costs
    # more with every q: clamped to [1, d], and said (a link such as ?fx_q=100000 on corel5k's 374 labels).
    d = None if compression else data.size()["n_outputs"]
    q_values = None if compression else sorted({min(max(q, 1), d) for q in parse_ints(q_text, "q")})
    if q_values and (q_note := clamp_note(q_text, 1, d, f"q (d = {d} outputs)")):
        st.sidebar.warning(q_note, icon="✂️")
    # Every argument checked here by building the settings (and a sweep's plan), never inside the job.
    if compression:
        # Extra trees as in Table 7.1: K = p (every feature a candidate), no bootstrap.
        settings_ = ce.CompressionSettings(n_estimators=int(n_trees), max_features=1.0, n_min=int(n_min),
                                           cv=int(n_folds), n_runs=int(n_repeats), lasso=data.dataset in THESIS_PROBLEMS)
        call = (ce.run_compression, (data, settings_), dict(seed=int(seed)))
        shown = settings_.params()
        cost = estimate_compression_seconds(data, settings_)
    elif variance:
        forest = fe.ForestSettings(n_estimators=int(n_trees), max_features=1.0, projection=projection,
                                   q_values=tuple(q_values))
        split = forest_variance.VarianceSplitSettings(n_learning_sets=int(n_sets))
        call = (forest_variance.run_forest_bias_variance, (data, forest, split), dict(seed=int(seed)))
        shown = {**forest.params(), "n_learning_sets": int(n_sets)}
        cost = estimate_forest_variance_seconds(forest_variance.check_settings(data, forest, split, seed=int(seed)),
                                                int(n_sets))
    else:
        forest = fe.ForestSettings(n_estimators=int(n_trees), n_repeats=int(n_repeats), q_values=tuple(q_values),
                                   **({} if experiment == "schemes" else {"projection": projection}))
        options = (dict(include_single_tree=bool(single_trees)) if experiment == "size" else
                   dict(max_features_values=parse_ints(k_text, "k") if k_text.strip() else None)
                   if experiment == "randomization" else dict(schemes=list(schemes)))
        plan = fe.plan_sweep(SWEEP_OF[experiment], data, forest, seed=int(seed), **options)
        timed = experiment == "size"         # the projection-size chart draws fit times: measured steadily
        call = (fe.run_sweep, (plan,), dict(timing=timed))
        shown = {**forest.params(), **options}
        cost = estimate_forest_sweep_seconds(plan, timing=timed)
except ValueError as exc:
    refused = control_names(str(exc))

# The run's identity (compared with the sidebar's) and a pin's label: plain values only.
settings = None if refused else (experiment, data.dataset, repr(sorted({**shown, "seed": int(seed)}.items())))
dataset = None if refused else data.dataset


def run_experiment():
    """Fit the chosen experiment's forests in the page's background run."""
    run.start(call[0], *call[1], settings=settings, estimate=cost, **call[2])


st.caption(f"Data: {data_text or dataspec.describe_spec(st.session_state[SPEC_KEY])}. Seed **{int(seed)}**. "
           "Share the URL to share this view.")
if refused:
    st.error(refused, icon="⚠️")
    st.stop()

# Every run, whatever set its values (the URL, a preset, the sidebar), passes the cost gate.
gate(run, settings, cost, run_experiment, auto_seconds=AUTO_SECONDS, max_seconds=MAX_SECONDS,
     button_key="fx_run_big", force_key=FORCE, detail=f"{experiment} on {dataset}, one core",
     force=preset_go(),   # a Home preset runs on its one click
     too_costly="use fewer or smaller values of q, fewer trees or repeats, or a smaller data set.")
running = run.running
c1, c2, c3 = st.columns([1, 1, 4], vertical_alignment="center")
c1.button("Run", type="primary", key="fx_run", on_click=st.session_state.__setitem__, args=(FORCE, True),
          disabled=running or cost > MAX_SECONDS,
          help=f"Fit every forest of this experiment in the background (estimated {fmt_seconds(cost)}).")
c2.button("Stop", key="fx_stop", on_click=run.stop, disabled=not running,
          help="Stop after the current fit and keep what is done.")
if run.started and run.entry["settings"] != settings and not running:
    c3.info("The chart below was made with other settings than the sidebar's (its data set and notes are under it): "
            "press **Run** to update it.", icon="🔁")


def explain_variance(result):
    t = result.terms

    def term(v):  # the unbiased estimate of a variance that is (nearly) 0 can come out negative
        return f"{v:.3f}" if v > 0 else "≈ 0"

    rows = [f"q = {int(q)}: projection {term(t['var_projection_corrected'][i])} + tree "
            f"{term(t['var_tree_corrected'][i])}; forests: Algorithm 1 {t['alg1_var_algorithm'][i]:.3f} "
            f"(predicted {t['alg1_var_algorithm_predicted'][i]:.3f}), Algorithm 2 {t['alg2_var_algorithm'][i]:.3f} "
            f"(predicted {t['alg2_var_algorithm_predicted'][i]:.3f})" for i, q in enumerate(result.q_values)]
    return ("A single projected tree varies with its projection (purple) and with its bootstrap sample "
            "(brown; every node searches all features here); the two add up to its algorithm variance. "
            "Averaging M trees that **share one projection** (Algorithm 1) divides "
            "only the tree term by M; a **new projection per tree** (Algorithm 2) divides both, so its "
            "algorithm variance is never larger (Appendix C.2; diamonds: that prediction). The tree and both "
            "forests have the same average model, hence the same bias and learning-set variance (table: the "
            "*_corrected columns), so their errors differ by exactly this algorithm variance. "
            + "; ".join(rows) + ".")


INDICATOR_TEXT = (
    "Every node of every tree defines an **indicator function**: 1 for the inputs that reach the node, 0 for "
    "the others. The forest's prediction is a weighted sum of these indicators (thesis eq. 7.1), so an "
    "ℓ1-penalised fit that gives weight to only a few of them keeps just those nodes and the nodes above them."
)


def explain_compression(result):
    s = result.summary_frame().iloc[0]
    lasso = (f" The linear Lasso on the raw inputs: error {s['lasso_error']:.3f} with "
             f"{s['lasso_features']:.0f} features." if s["lasso_error"] == s["lasso_error"] else "")
    return (f"The test error (red) falls quickly as t grows while the compressed forest keeps few test nodes "
            f"(lower panel); cross-validation (dotted) stops at **t\\* = {s['t_star']:.2f}**. There the compressed "
            f"forest's test error is **{s['ret_error']:.3f}** against **{s['et_error']:.3f}** for the whole forest "
            f"({result.metric}; thesis Table 7.1 on friedman1: 0.186 against 0.196).{lasso}")


def explain(result):
    """One or two sentences beside the chart, with the numbers of this run."""
    if isinstance(result, forest_variance.ForestBiasVarianceResult):
        return explain_variance(result)
    if isinstance(result, ce.CompressionResult):
        return explain_compression(result)
    s = result.summary_frame()
    if s.empty:
        return "Nothing finished yet."
    metric = result.metric
    ref = s[s["series"] == fe.FOREST_REF]["score"]
    ref_text = f" The unprojected forest (mo-rf) scores **{ref.iloc[0]:.3f}**." if len(ref) and result.experiment != "randomization" else ""
    if result.experiment == "projection-size":
        # How to read it (the paper's claims, attributed); what this run shows is computed.
        return ("The paper proves a single projected tree converges to the unprojected tree as q grows "
                "(Theorem 3.1) and expects a **new projection per tree** (Algorithm 2) to be never worse on "
                "average than sharing one (Algorithm 1, section 3.3). Right: fit time, the median of repeated "
                "fits with their range as bars. "
                + takeaways.forest_size_takeaway(result, fe.SHARED, fe.PER_TREE, fe.FOREST_REF))
    if result.experiment == "randomization":
        best = s.loc[s["score"].idxmax()]
        return ("Both k (features drawn per node) and q (projected outputs) randomize the trees; "
                "their best mix is problem dependent (section 4.4). Best here: "
                f"**{best['series']}** at k = {int(best['max_features'])}, {metric} {best['score']:.3f}.")
    best = s.loc[s["score"].idxmax()]
    # Dense against dense, computed from this run and said against its repeats' noise (issue 31: "alike"
    # beside 0.193 against 0.255 of one repeat).
    return ("Sparse projections read few outputs per component and can give a different bias-variance trade-off "
            "(paper 003, section 4.5). " + takeaways.forest_schemes_takeaway(result) + " Best here: "
            f"**{best['series']}**" + (f" at q = {int(best['q'])}" if best["q"] == best["q"] else "")
            + f", {metric} {best['score']:.3f}.{ref_text}")


FIGURES = {"projection-size": pf.forest_projection_size_figure, "randomization": pf.forest_randomization_figure,
           "schemes": pf.forest_schemes_figure, "variance": pf.forest_bias_variance_figure,
           "path": pf.compression_path_figure}


def run_settings(settings):
    """A run's settings ((experiment, data set, repr of the call's keywords)) as a dict, for a pin's label."""
    try:
        return {"experiment": settings[0], "dataset": settings[1], **dict(ast.literal_eval(settings[2]))}
    except (TypeError, ValueError, SyntaxError, IndexError):
        return {"settings": repr(settings)}


@st.fragment(run_every=run.poll_while(running, 0.5))
def results_panel():
    view = run.view()
    run.rerun_when_finished()  # once the run ends: one full rerun re-enables the buttons, stops polling
    if view.running:
        progress_bar(view)
        return
    if view.status == "failed":
        failure(view, "The experiment")
        return
    result = view.result
    if result is None:     # nothing run yet (the gate waits or refused), or stopped before any result
        if view.status == "stopped":
            st.warning(f"Stopped after {view.elapsed:.1f} s, before the first fit finished: nothing to draw.",
                       icon="⏹️")
        return
    variance_split = isinstance(result, forest_variance.ForestBiasVarianceResult)
    compressed = isinstance(result, ce.CompressionResult)
    kind = "variance" if variance_split else result.experiment
    if view.status == "stopped":   # the one sentence about how the run ended (else "Finished in" below)
        done = (f"{result.n_learning_sets_done} of {result.params.get('n_learning_sets', '?')} learning sets"
                if variance_split else f"{len(result.rows)} of {result.params.get('n_runs', '?')} runs" if compressed
                else f"{len(result.records)} of {result.params.get('n_fits', '?')} fits")
        n_done = (result.n_learning_sets_done if variance_split else len(result.rows) if compressed
                  else len(result.records))
        st.warning(f"Stopped after {done} ({view.elapsed:.1f} s): "
                   + ("the chart shows what was done." if n_done else "nothing finished to draw."), icon="⏹️")
        if not n_done:
            return
    pinned, pin_label = pin_controls("fx", result, run_settings(view.settings))
    fig = with_pinned(FIGURES[kind](result), FIGURES[kind], pinned, pin_label,
                      same_kind=type(pinned) is type(result) and getattr(pinned, "experiment", 0) == getattr(result, "experiment", 0))
    left, right = st.columns([3, 1])
    show_chart(left, fig, key="fx_chart", config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}})
    with right:
        if compressed:
            s = result.summary_frame().iloc[0]
            st.metric("Compression factor", f"{s['compression_factor']:.0f}×",
                      help="Test nodes of the forest divided by those of the compressed forest (thesis Table 7.1: "
                      "34× on friedman1).")
            st.markdown(f"**{s['et_nodes']:,.0f} → {s['ret_nodes']:,.0f}** test nodes; {s['n_weighted']:.0f} "
                        "indicator functions keep a weight.")
            st.markdown(INDICATOR_TEXT)
        st.markdown("**What to look for**")
        st.markdown(explain(result))
        if not (compressed or variance_split):   # the sweeps: are the differences beyond the seed noise?
            one_repeat, note = takeaways.forest_noise_note(result)
            if one_repeat:
                st.warning(note, icon="🎲")
            elif note:
                st.markdown(note)
        if kind == "projection-size" and result.n_outputs < FEW_OUTPUTS:
            st.caption(f"With {result.n_outputs} outputs every split is cheap: the time a projection saves needs "
                       f"many outputs (try {FORESTS_DATASET}, bibtex or cal500).")
        st.caption(("" if view.status == "stopped" else f"Finished in {view.elapsed:.1f} s. ") + " ".join(result.notes))
    where = f"friedman1-{result.structure}" if variance_split else result.dataset
    name = f"forests_{kind}_{where}_seed{result.params.get('seed', 0)}"
    d1, d2, d3 = st.columns(3)
    d1.download_button("CSV", data=lambda: result.to_frame().to_csv(index=False), file_name=f"{name}.csv",
                       mime="text/csv", on_click="ignore", key="fx_csv", icon="⬇️",
                       help="One row per fit (variance split: one row per q): the numbers behind the chart.")
    d2.download_button("JSON", data=result.to_json, file_name=f"{name}.json", mime="application/json",
                       on_click="ignore", key="fx_json", icon="⬇️",
                       help="The whole result with its settings and notes (its from_json reads it back).")
    d3.download_button("Standalone HTML", data=lambda: fig.to_html(include_plotlyjs=True), file_name=f"{name}.html",
                       mime="text/html", on_click="ignore", key="fx_html", icon="⬇️",
                       help="The chart as a web page that opens offline (plotly.js embedded).")
    if not (variance_split or compressed) and result.dataset == "delicious" and result.records:   # issue 33
        with st.expander("The thesis's claims beside this run (chapter 5, delicious)"):
            show_table(st, claims_frame(claims_for(result)), hide_index=True)
    with st.expander("Table"):
        if variance_split:
            st.caption("One row per q, averaged over test points and outputs. Plain terms add up to `error`; "
                       "`*_corrected` terms are unbiased estimates (the plain learning-set variance of a mean of "
                       "finitely many models still holds part of their algorithm variance), comparable across "
                       "the tree and the two algorithms, and may come out slightly negative near 0.")
        show_table(st, result.to_frame() if variance_split else result.summary_frame(), hide_index=True)


results_panel()
