"""Benchmark: the paper's Table 4 protocol (section 4.1.2) on one data set, with reference rows;
or (mode "real-data study", pages/_real_data.py) paper 002's section 4.4 on several data sets.

Every estimator's hyper-parameters (learning rate, tree size, features per split, number of
steps) are chosen on a validation set, the chosen model is refitted and scored on the test
set, over several random splits; then mean ± std, ranks and paired t-tests (Table 5).
scikit-learn's per-output gradient boosting and random forests run under the same protocol as
reference rows. The work runs in the page's background run (pages/_jobs.py) polled by one fragment,
so the page never blocks and Stop keeps the finished repeats.

Every setting is in the URL (widget key = query parameter; the widgets are drawn from
engine/app/page_content/parameters/benchmark.py), e.g.
``/benchmark?bench_dataset=friedman1-chain&bench_repeats=5&bench_seed=0``; estimators are
repeated parameters (``&bench_estimators=st-gbrt&bench_estimators=gbmort``).
"""

import dataclasses
import json

import streamlit as st

from engine.app.page_content import takeaways
from engine.app.page_models import dataspec
from engine.app.page_models.cost import estimate_model_selection_cost
from engine.experiments import model_selection as ms
from engine.experiments import selection_tables as tables
from engine.experiments.published import PAPER_TABLE4, PAPER_TABLE6
from engine.app.page_content.parameters.benchmark import DEFAULT_DATASET, MODES
from engine import plotting
from engine.datasets import list_datasets
from engine.experiments.time_to_accuracy import XGBOOST_PACKAGE, xgboost_installed
from engine.names import ARTIFICIAL, DEFAULTS, FRIEDMAN_PROBLEMS, XGBOOST
from pages._deeplink import preset_go, route_through_app
from pages._jobs import PageRun, estimate_text
from pages._status import failure, progress_bar
from pages._real_data import real_data_mode
from pages._compare import reset_button
from pages._data_choice import SPEC_KEY, UPLOAD_KEY, link_note
from pages._parameters import parameter_widget
from pages._render import show_chart, show_table

route_through_app(__file__)

run = PageRun("bench")   # this page's background run (st.session_state["bench_page_run"])
NOTICE_KEY = "bench_notice"
DATA_PAGE = "data-page"  # dataset option: whatever the Data page chose
FRIEDMAN = list(FRIEDMAN_PROBLEMS)
# scikit-learn reference rows, added by a checkbox that is on by default: per-output gradient boosting
# (the costly one: ~20 s of a quick friedman1 run, 16 outputs x grid x steps) and one multi-output forest.
REFERENCES = ["sklearn-gb", "sklearn-rf"]
PEERS = [DEFAULTS, XGBOOST]    # the engine as a practitioner gets it, and XGBoost with its defaults
CONFIRM_SECONDS = 10 * 60     # above: an explicit confirmation before Start
REFUSE_SECONDS = 4 * 3600     # above: refused in the page (the command line can still run it)
CHART_CONFIG = {"displaylogo": False}  # toolbar kept: PNG download


@st.cache_data
def shipped_catalogue():
    return {d["name"]: d for d in list_datasets()}


def fmt_seconds(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s" if s >= 1 else "under a second"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def resolve_dataset(choice):
    """(argument for run_model_selection, display name, problem text or None)."""
    if choice != DATA_PAGE:
        return choice, choice, None
    spec = st.session_state.get(SPEC_KEY, dataspec.DEFAULT_SPEC)
    try:
        ds = dataspec.dataset_from_spec(spec, st.session_state.get(UPLOAD_KEY))
    except ValueError as exc:
        return None, dataspec.describe_spec(spec), str(exc)
    ds = dataclasses.replace(ds, name=f"{ds.name} (Data page)")  # not the paper's protocol: say so
    return ds, ds.name, None


@st.cache_data(show_spinner="Timing a short probe fit…", max_entries=32)
def cached_estimate(choice, spec_json, estimators, budget, n_repeats, seed, noisy):
    # spec_json only keys the cache for the Data page's choice (its data set may change).
    dataset, _, _ = resolve_dataset(choice)
    return estimate_model_selection_cost(ms.selection_problem(dataset, noisy), ms.SelectionSettings(budget, n_repeats),
                                         list(estimators), seed=seed)


def widget_values():
    ss = st.session_state
    return (ss["bench_dataset"], list(ss["bench_estimators"]), bool(ss["bench_refs"]), bool(ss["bench_peers"]), ss["bench_budget"],
            int(ss["bench_repeats"]), int(ss["bench_seed"]), int(ss["bench_noisy"]))


def with_references(chosen, refs, peers):
    """The estimators a run fits: the chosen ones, then the reference rows and the peers not already
    chosen (XGBoost only where it is installed)."""
    extra = (REFERENCES if refs else []) + ([p for p in PEERS if p != XGBOOST or xgboost_installed()] if peers else [])
    return list(chosen) + [r for r in extra if r not in chosen]


def start_run(dataset, settings, drawn):
    if run.running:
        return
    if widget_values() != drawn:
        # A control moved just before the click reached the server with it, after the button was
        # drawn (and its cost estimated) for the old settings: redraw first, start on the next click.
        st.session_state[NOTICE_KEY] = "The settings changed as you clicked: check the estimate and press again."
        return
    run.start(
        ms.run_model_selection, ms.selection_problem(dataset, settings["noisy"]),
        ms.SelectionSettings(settings["budget"], settings["repeats"], n_jobs=1), list(settings["estimators"]),
        seed=settings["seed"], report_partial=True, settings=settings,
    )  # fmt: skip


# --- page ------------------------------------------------------------------------------------
st.title("Benchmark")
with st.sidebar:
    mode = parameter_widget("bench_mode")
if mode == MODES[1]:
    real_data_mode()
    st.stop()
st.markdown(
    "The paper's comparison protocol (section 4.1.2, Tables 4–5): for every method, choose the "
    "hyper-parameters and the **number of boosting steps on a validation set**, refit, score on "
    "the **test set**, and repeat on several random splits. Then rank the methods and ask "
    "whether their differences are **significant** (paired t-test). scikit-learn's gradient "
    "boosting and random forests run under the same protocol as reference rows."
)

catalogue = shipped_catalogue()
with st.sidebar:
    st.header("Benchmark settings")
    reset_button("bench")
    dataset_options = FRIEDMAN + list(catalogue) + [DATA_PAGE]

    def dataset_label(name):
        if name == DATA_PAGE:
            return f"The Data page's choice: {dataspec.describe_spec(st.session_state[SPEC_KEY])}"
        if name in catalogue:
            c = catalogue[name]
            return f"{name} · {c['task']} · {c['n_samples']}×{c['n_outputs']}"
        return f"{name} (synthetic, 300 train / 4000 test)"

    own_data = st.session_state[SPEC_KEY].get("source") != "friedman"
    choice = parameter_widget("bench_dataset", options=dataset_options, default=DATA_PAGE if own_data else DEFAULT_DATASET)
    st.caption(dataset_label(choice))
    estimators = parameter_widget("bench_estimators")
    refs = parameter_widget("bench_refs")
    peers = parameter_widget("bench_peers")
    if peers and not xgboost_installed():
        st.caption(f"XGBoost is not installed here (`pip install {XGBOOST_PACKAGE}`): its row is left out.")
    noisy = parameter_widget("bench_noisy", disabled=choice not in FRIEDMAN)
    budget = parameter_widget("bench_budget")
    repeats = parameter_widget("bench_repeats")
    seed = parameter_widget("bench_seed")
    st.caption(f"Seed **{seed}** · every setting is in the page URL: copy it to share this benchmark."
               + (" " + link_note() if choice == DATA_PAGE and st.session_state[SPEC_KEY].get("source") == "upload" else ""))

dataset, dataset_name, problem = resolve_dataset(choice)
st.caption(f"Data: **{dataspec.describe_spec(st.session_state[SPEC_KEY]) if choice == DATA_PAGE else choice}**"
           + (", the Data page's choice." if choice == DATA_PAGE else " (the sidebar's Data set)."))
is_friedman = choice in FRIEDMAN
# The oracle exists for friedman1 only: elsewhere it is left out (and said), so the default list runs on any data.
oracle_left_out = ARTIFICIAL in estimators and not is_friedman
run_estimators = with_references([e for e in estimators if e != ARTIFICIAL or is_friedman], refs, peers)
settings = {"dataset": dataset_name, "estimators": run_estimators, "budget": budget, "repeats": int(repeats),
            "seed": int(seed), "noisy": int(noisy) if is_friedman else 0}
task = "regression" if is_friedman else (catalogue[choice]["task"] if choice in catalogue else getattr(dataset, "task", "regression"))

running = run.running

# --- checks: a message, never an exception ----------------------------------------------------------
blocked = None
if problem:
    blocked = f"The Data page's data set cannot be used here: {problem}"
elif not run_estimators:
    blocked = "Choose at least one estimator in the sidebar" + (" (artificial-gbrt alone cannot run here)." if oracle_left_out else ".")
if blocked:
    st.warning(blocked, icon="⚠️")
elif oracle_left_out:
    st.caption(f"artificial-gbrt is left out of this run: it is the oracle that knows how the friedman1 outputs were "
               f"generated, and does not exist for **{dataset_name}**.")

# --- cost estimate and start / stop --------------------------------------------------------------
estimate = None
if not blocked:
    try:
        estimate = cached_estimate(
            choice, json.dumps(st.session_state.get(SPEC_KEY), sort_keys=True, default=str) if choice == DATA_PAGE else "",
            tuple(run_estimators), budget, int(repeats), int(seed), settings["noisy"],
        )  # fmt: skip
    except (ValueError, TypeError) as exc:   # TypeError: an input the estimators do not take (a sparse X)
        blocked = str(exc)
        st.warning(f"These settings cannot run: {exc}", icon="⚠️")

if NOTICE_KEY in st.session_state:
    st.info(st.session_state.pop(NOTICE_KEY), icon="🔁")
refused = needs_confirmation = False
if estimate is not None:
    cost = fmt_seconds(estimate["seconds"])
    label = "Run quick benchmark" if budget == "quick" else f"Start {budget} run (≈ {cost})"
    refused = estimate["seconds"] > REFUSE_SECONDS
    needs_confirmation = not refused and estimate["seconds"] > CONFIRM_SECONDS
    if refused:
        st.error(
            f"Too costly for this page: a **{budget}** run of these settings fits **{estimate['n_fits']:,}** models, "
            f"about **{cost}** on this machine (the page's limit is {fmt_seconds(REFUSE_SECONDS)}). Use the quick or "
            f"moderate budget, fewer repeats or fewer estimators, or run it from the command line: "
            f"`python -m engine reproduce table4 --budget {budget} --out results/`.",
            icon="⛔",
        )
    elif budget != "quick" or needs_confirmation:
        st.warning(
            f"A **{budget}** run fits **{estimate['n_fits']:,}** models ({estimate['n_configs']} grid points "
            f"× {repeats} repeats × {len(run_estimators)} estimators, up to {estimate['n_steps']:,} steps each): "
            f"about **{cost}** on this machine. It runs in the background; Stop keeps the finished repeats.",
            icon="⏱️",
        )
else:
    label, cost = "Run quick benchmark", None
if preset_go() and estimate is not None and not (blocked or refused or running):
    start_run(dataset, settings, widget_values())   # a Home preset runs what it promises on its one click
    running = run.running
# The confirmation is not in the URL on purpose: a shared link must never start hours of work by itself.
confirmed = st.checkbox(
    f"Yes, run for about {cost}", False, key="bench_confirm",
    help=f"Runs estimated above {fmt_seconds(CONFIRM_SECONDS)} start only once this is ticked.",
) if needs_confirmation else True
c1, c2, c3 = st.columns([2, 1, 3], vertical_alignment="center")
c1.button(
    label, type="primary", key="bench_start",
    disabled=running or bool(blocked) or estimate is None or refused or not confirmed,
    on_click=start_run, args=(dataset, settings, widget_values()),
    help="Start the protocol in the background with the settings on the left. "
    + (f"Estimated time: {cost} (from a short probe fit; usually an overestimate)." if cost else ""),
)  # fmt: skip
c2.button("Stop", key="bench_stop", disabled=not running, on_click=run.stop,
          help="Finish after the current fit: the repeats already done are kept and shown, flagged partial.")
if estimate is not None:
    c3.caption(f"{estimate['n_fits']:,} fits · estimated {estimate_text(estimate['seconds'], run.name)} (measured probe: {estimate['probe_seconds']:.2f} s) · seed {seed}")


# --- results (one top-level polling fragment) ------------------------------------------------------
def show_paper_table():
    if settings["noisy"] == 16:
        rows = [{"estimator": e, "paper half-macro-r2": h, "half rank": hr, "paper macro-r2": m, "paper std": s,
                 "paper rank": r} for e, (h, hr, m, s, r) in PAPER_TABLE6[choice].items()]
        st.markdown(f"**The paper's Table 6 on {choice}** with 16 noisy outputs (test set, 5 repeats, full grid):")
    else:
        rows = [{"estimator": e, "paper mean": m, "paper std": s, "paper rank": r}
                for e, (m, s, r) in PAPER_TABLE4[choice].items()]
        st.markdown(f"**The paper's Table 4 on {choice}** (macro-r2 on the test set, 5 repeats, full grid):")
    show_table(st, sorted(rows, key=lambda r: r["paper rank"]), key="bench_paper_table", hide_index=True)
    cost_text = f"estimated {fmt_seconds(estimate['seconds'])}" if estimate is not None else "no estimate"
    st.caption(f"Press **Run quick benchmark** to put our numbers next to these ({cost_text}).")


def show_result(result, settings):
    paper, paper_label = tables.paper_table4_rows(result), "paper (Table 4)"
    table6 = tables.paper_table6_rows(result)
    if table6 is not None:       # the paper's macro-r2 over all 32 outputs, comparable with ours
        paper, paper_label = {e: (m, s, r) for e, (_, _, m, s, r) in table6.items()}, "paper (Table 6)"
    frame = tables.benchmark_frame(result)
    st.subheader(f"{result.dataset}: test {result.metric}")
    st.caption(
        f"{result.n_repeats_done} of {result.n_repeats} repeats · budget **{settings['budget']}** · seed "
        f"**{result.seed}** · {result.split}; {result.n_train} train ({result.n_validation} of them for "
        f"validation) / {result.n_test} test · {result.total_time:.1f} s"
    )
    left, right = st.columns([3, 1])
    shown = [c for c in ("rank", "estimator", "mean ± std", "half-macro-r2", "paper (Table 4)", "paper (Table 6)",
                         "repeats", "scores per repeat") if c in frame]
    show_table(
        left, frame, key="bench_table", hide_index=True, column_order=shown,  # numbers stay in the CSV
        column_config={"mean": st.column_config.NumberColumn(format="%.4f"), "std": st.column_config.NumberColumn(format="%.4f"),
                       "paper mean": st.column_config.NumberColumn(format="%.3f"), "paper std": st.column_config.NumberColumn(format="%.3f")},
    )  # fmt: skip
    with right:
        st.markdown("**What to look for**")
        st.markdown(
            "Rank 1 has the best mean test score. Differences smaller than the std rarely mean much: "
            "check the p-values below before calling a winner."
            + (" The paper's columns used the full grid and 5 repeats. " + takeaways.benchmark_order_sentence(result, paper)
               if paper else "")
            + (f" With {result.n_noisy_outputs} purely noisy outputs, macro-r2 counts them too (nobody "
               "can score above 0 on them); half-macro-r2 scores the real outputs only: methods that share "
               "trees across outputs must now avoid fitting the noise." if result.half_mean is not None else "")
        )  # fmt: skip
    scores_fig = plotting.benchmark_scores_figure(result, paper=paper, paper_label=paper_label)
    left, right = st.columns([3, 1])
    show_chart(left, scores_fig, key="bench_scores", config=CHART_CONFIG)
    with right:
        st.markdown("**What to look for**")
        st.markdown(
            "Each dot is one split. When the dots of two methods overlap, the split matters more "
            "than the method." + (" Red diamonds: the paper's means." if paper else "")
        )
    enough = result.n_repeats_done >= ms.MIN_TEST_REPEATS     # else no difference is called significant
    pv_fig = plotting.benchmark_pvalue_figure(result.estimators, result.pvalues, result.signs, alpha=0.05 if enough else None)
    left, right = st.columns([3, 1])
    if result.n_repeats_done >= 2:
        show_chart(left, pv_fig, key="bench_pvalues", config=CHART_CONFIG)
    else:
        left.info("The paired t-test needs at least 2 finished repeats.")
    with right:
        st.markdown("**What to look for**")
        st.markdown(
            "Read a row: '>' means that row's method has the better mean than the column's, '<' the "
            "worse. "
            + ("Dark blue cells, each marked * (p < 0.05), are differences unlikely to be chance; pale ones are not. "
               if enough else "")
            + takeaways.benchmark_significance_sentence(result)
        )
    with st.expander("Chosen hyper-parameters per repeat"):
        st.caption(
            "Selected on the validation set (the test set is never seen). Forests have fixed settings (paper "
            "defaults); defaults has the estimator's own."
        )
        show_table(st, tables.chosen_frame(result), key="bench_chosen", hide_index=True)
    d1, d2, d3, d4 = st.columns(4)
    base = f"benchmark_{result.dataset}_{settings['budget']}_seed{result.seed}"
    d1.download_button("Table (CSV)", frame.to_csv(index=False), f"{base}.csv", "text/csv", on_click="ignore",
                       key="bench_dl_csv", icon="⬇️", help="The score table above, one row per estimator.")
    d2.download_button("Everything (JSON)", result.to_json(), f"{base}.json", "application/json", on_click="ignore",
                       key="bench_dl_json", icon="⬇️",
                       help="Per-repeat scores, p-values, chosen hyper-parameters, budget and split description.")
    d3.download_button("Scores figure (HTML)", lambda: plotting.standalone_html(scores_fig), f"{base}_scores.html",
                       "text/html", on_click="ignore", key="bench_dl_scores", icon="⬇️",
                       help="A standalone interactive page that works offline.")
    d4.download_button("p-values figure (HTML)", lambda: plotting.standalone_html(pv_fig), f"{base}_pvalues.html",
                       "text/html", on_click="ignore", key="bench_dl_pvalues", icon="⬇️",
                       help="A standalone interactive page that works offline.")


@st.fragment(run_every=run.poll_while(running, 0.5))
def results_panel():
    if not run.started:
        if is_friedman and settings["noisy"] in (0, 16):
            show_paper_table()
        elif is_friedman:
            st.info(f"The paper has no table with {settings['noisy']} noisy outputs (Table 6 adds 16). Press "
                    "**Run quick benchmark** to compare the chosen estimators.")
        else:
            st.info("Press **Run quick benchmark** to compare the chosen estimators on this data set.")
        return
    view = run.view()
    status, result = view.status, view.result
    if status == "running":
        progress_bar(view)
    if view.settings != settings:
        st.caption("Showing the last run; its settings differ from the sidebar's.")
    if status == "failed":
        failure(view)
    elif result is None:
        if status == "stopped":
            st.warning("Stopped before the first repeat finished: nothing to show.", icon="⏹️")
        else:
            st.info("Running the first repeat…")
    else:
        if result.partial:
            why = "stopped" if status == "stopped" else "still running"
            st.warning(
                f"**Partial results** ({why}): {result.n_repeats_done} of {result.n_repeats} repeats.", icon="⏸️"
            )
        show_result(result, view.settings)
    run.rerun_when_finished()  # one full rerun: buttons re-enabled, polling off


results_panel()
