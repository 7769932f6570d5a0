"""The Benchmark page's real-data mode: paper 002's section 4.4 study on several shipped data sets.

Controls (in the URL like the rest of the page), one background run through pages/_jobs.py,
and the study's own tables and figures (engine.reports.real_data). Finished cells
are kept on disk (a temporary folder shared by the app's sessions), so a stopped run that is
started again with the same settings only computes what it had not finished.
"""
import os
import tempfile
from pathlib import Path

import streamlit as st

from engine.estimators.boomer import boomer_status
from engine.experiments.real_data import (RealDataSettings, StudyData, StudyExecution, available_study_datasets,
                                          run_real_data, study_work)
from engine.app.page_models.cost import estimate_real_data_seconds
from engine.reports.real_data import (
    TASK_TITLE,
    cd_figure,
    comparisons,
    paper_cd_figure,
    per_dataset_frame,
    real_data_html,
    run_notes,
)
from engine.names import BOOMER_NAMES, SECOND_ORDER_METHODS
from pages._jobs import PageRun, estimate_text, fmt_seconds
from pages._status import failure, progress_bar
from engine.app.page_content.parameters import parameter
from pages._parameters import parameter_button, parameter_widget
from pages._render import show_chart, show_table

run = PageRun("bench_rd")      # its own slot: the one-data-set mode keeps its run
CACHE_VARIABLE = "RPO_REAL_DATA_CACHE"    # where finished cells go (tests give each their own)
# Two multi-label sets, the smallest of the paper's list: a run draws a critical-difference diagram of ours
# (it needs two data sets of a kind; edm + emotions, one of each, drew none: issue 31) for the same cost
# (a quick run of the eight methods: 56 s for either pair at load 20 on 2 cores).
DEFAULT_DATASETS = ["emotions", "birds"]
MIN_DATASETS = 2        # a critical-difference diagram over fewer data sets says nothing
CHART_CONFIG = {"displaylogo": False}
MAX_SECONDS = 4 * 3600      # the cost gate: a study estimated above is refused here (the command line runs it)


@st.cache_data(show_spinner=False, max_entries=64)
def estimated_seconds(datasets, methods, budget):
    """The study's estimated seconds on one core (engine.app.page_models.cost), from what it will fit."""
    return estimate_real_data_seconds(study_work(StudyData(datasets), RealDataSettings(budget=budget, methods=methods)))


@st.cache_data(show_spinner=False)
def boomer_available():
    python, _, message = boomer_status()
    return python is not None, message


def cache_folder():
    return Path(os.environ.get(CACHE_VARIABLE) or Path(tempfile.gettempdir()) / "rpo-explorer" / "real-data")


def select_papers_list():
    st.session_state["bench_rd_datasets"] = available_study_datasets()


def sidebar():
    """The controls; returns the settings of a run."""
    shipped = available_study_datasets()
    installed, message = boomer_available()
    st.session_state.setdefault("bench_rd_datasets", [d for d in DEFAULT_DATASETS if d in shipped])
    datasets = parameter_widget("bench_rd_datasets", options=shipped)
    parameter_button("bench_rd_papers_list", on_click=select_papers_list,
                     help=f"Select every shipped data set of the paper's list ({len(shipped)} of its 29).")
    methods = parameter_widget("bench_rd_methods")
    boomer = parameter_widget("bench_rd_boomer", default=installed, disabled=not installed,
                              help=parameter("bench_rd_boomer").help + ("" if installed else f" {message}"))
    if not installed:
        st.caption("BOOMER is not installed: `sh tests/install_boomer.sh`.")
    newton = parameter_widget("bench_rd_newton")
    budget = parameter_widget("bench_rd_budget")
    refit = parameter_widget("bench_rd_refit")
    seed = parameter_widget("bench_rd_seed")
    return dict(datasets=list(datasets), methods=list(methods) + (list(BOOMER_NAMES) if boomer and installed else [])
                + (list(SECOND_ORDER_METHODS) if newton else []), budget=budget, refit=bool(refit), seed=int(seed))


def start(settings, cost):
    if not run.running and settings["datasets"] and settings["methods"] and cost <= MAX_SECONDS:
        study = RealDataSettings(budget=settings["budget"], methods=settings["methods"], seed=settings["seed"],
                                 refit=settings["refit"])
        run.start(run_real_data, StudyData(settings["datasets"]), study, StudyExecution(out=cache_folder()),
                  report_partial=True, settings=settings, estimate=cost)


def show_paper():
    st.markdown("**The paper's critical-difference diagrams** (average ranks of its eight methods, redrawn "
                "from its Tables 10-12). Press **Run the study** to put ours beside them.")
    for task in ("multilabel", "regression"):
        show_chart(st, paper_cd_figure(task), key=f"bench_rd_paper_cd_{task}", config=CHART_CONFIG)


def show_result(result):
    st.caption(" ".join(run_notes(result)))
    shown = 0
    for task, label, methods in comparisons(result):
        title = TASK_TITLE[task]
        st.subheader(f"{title[0].upper()}{title[1:]}: {label}")
        st.caption(" ".join(result.statistics_notes(task, methods)))
        n_datasets = result.statistics(task, methods)["n_datasets"]
        if n_datasets >= MIN_DATASETS:
            show_chart(st, cd_figure(result, task, methods, label), key=f"bench_rd_cd_{task}_{shown}",
                            config=CHART_CONFIG)
        else:
            st.info(f"{n_datasets} complete data set(s) of this kind: the critical-difference diagram needs at "
                    f"least {MIN_DATASETS} (add data sets, or wait for the run).", icon="ℹ️")
        left, right = st.columns([3, 2])
        show_table(left, result.ranks_frame(task, methods).round(2), key=f"bench_rd_ranks_{task}_{shown}",
                       hide_index=True)   # average ranks to two decimals (5.3125 -> 5.31)
        right.markdown("**What to look for**: methods joined by a thick bar are not significantly different "
                       "(Nemenyi, alpha = 0.05). The paper's columns: its average ranks over all its data "
                       "sets, and re-ranked over the data sets of this run.")
        if label == "the paper's methods":
            st.markdown("Wilcoxon signed-rank p-values, **ours | the paper's** (Tables 8-9; '(>)': the row "
                        "method is better, shown where p < 0.05)")
            if n_datasets < 6:   # exact two-sided signed-rank test: p >= 2 / 2**n
                st.caption(f"With {n_datasets} data set(s) the Wilcoxon test cannot go below p = "
                           f"{min(1.0, 2 / 2 ** n_datasets):.2g}: no pair can differ at 0.05 before 6 data sets, "
                           "so these p-values say nothing yet.")
            show_table(st, result.wilcoxon_frame(task, methods), key=f"bench_rd_wilcoxon_{task}")
        shown += 1
    for task in ("multilabel", "regression"):
        table = per_dataset_frame(result, task)
        if not table.empty:
            st.markdown(f"**Per data set** ({TASK_TITLE[task]}): ours (rank) | the paper's")
            show_table(st, table, key=f"bench_rd_per_dataset_{task}", hide_index=True)
    base = f"real-data_{result.budget}_seed{result.settings['seed']}"
    d1, d2, d3 = st.columns(3)
    d1.download_button("Summary (CSV)", result.summary_frame().to_csv(index=False), f"{base}_summary.csv",
                       "text/csv", on_click="ignore", key="bench_rd_dl_csv", icon="⬇️",
                       help="Mean ± std per data set and method, next to the paper's Tables 10-12.")
    d2.download_button("Everything (JSON)", result.to_json(), f"{base}.json", "application/json",
                       on_click="ignore", key="bench_rd_dl_json", icon="⬇️", help="Every cell, the settings and notes.")
    d3.download_button("Report (HTML)", lambda: real_data_html(result), f"{base}.html", "text/html",
                       on_click="ignore", key="bench_rd_dl_html", icon="⬇️",
                       help="The standalone page `python -m engine reproduce real-data` writes (works offline).")


def real_data_mode():
    """The whole real-data mode of the page (call after the mode switch)."""
    st.markdown(
        "Paper 002's **systematic study** (section 4.4): the eight methods on real multi-label and "
        "multi-output regression data sets, hyper-parameters chosen on 20 % of the training set under the "
        "paper's **time budget** (100 T in classification, 500 T in regression, T = one gbmort stump step), "
        "ranked per data set; the **Friedman test** and the **Nemenyi critical difference** say which "
        "differences in average rank are significant (Figures 7-8), the **Wilcoxon test** compares pairs "
        "(Tables 8-9). BOOMER, gradient-boosted multi-label rules, runs beside them when installed.")
    with st.sidebar:
        settings = sidebar()
    if not settings["datasets"] or not settings["methods"]:
        st.warning("Choose at least one data set and one method in the sidebar.", icon="⚠️")
    running = run.running   # one read for the buttons and the polling (PageRun.poll_while)
    chosen = bool(settings["datasets"] and settings["methods"])
    # The cost gate: the study starts only from its button, which shows the estimate; above the
    # limit it is refused (cells already cached make a run shorter than estimated).
    cost = estimated_seconds(tuple(settings["datasets"]), tuple(settings["methods"]), settings["budget"]) if chosen else 0.0
    refused = cost > MAX_SECONDS
    if refused:
        st.error(f"This study is estimated at {estimate_text(cost, run.name)}, above this app's limit of "
                 f"{fmt_seconds(MAX_SECONDS)}: choose fewer or smaller data sets or the quick budget, or run "
                 f"`python -m engine reproduce real-data --budget {settings['budget']}`.", icon="⛔")
    c1, c2, _ = st.columns([2, 1, 3], vertical_alignment="center")
    c1.button(f"Run the study ({settings['budget']}, ≈ {fmt_seconds(cost)})", type="primary", key="bench_rd_start",
              disabled=running or not chosen or refused,
              on_click=start, args=(settings, cost),
              help=f"Estimated {estimate_text(cost, run.name)} on one core (cells cached from an earlier run are not "
              "computed again). Runs in the background; Stop keeps the finished cells, and a new start with "
              "the same settings computes only what is missing.")
    c2.button("Stop", key="bench_rd_stop", disabled=not running, on_click=run.stop,
              help="Stop after the current fit: finished cells are kept and shown, flagged partial.")

    @st.fragment(run_every=run.poll_while(running, 0.5))
    def results():
        if not run.started:
            show_paper()
            return
        view = run.view()
        if view.status == "running":
            progress_bar(view)
        if view.settings != settings:
            st.caption("Showing the last run; its settings differ from the sidebar's.")
        if view.status == "failed":
            failure(view)
        elif view.result is None:
            st.info("Running the first data set…" if view.status == "running"
                    else "Stopped before the first data set finished: its cells are kept for the next start.")
        else:
            if view.result.partial:
                st.warning("**Partial results**: the data sets finished so far "
                           + ("(still running)." if view.status == "running" else "(stopped)."), icon="⏸️")
            show_result(view.result)
        run.rerun_when_finished()

    results()
