"""What the real-data study shows: its figures, tables and report files, beside paper 002's
(shared by the ``reproduce real-data`` target and the Benchmark page)."""
from __future__ import annotations

import numpy as np
import pandas as pd

import tempfile
from pathlib import Path

from engine.experiments.published import PAPER002_FRIEDMAN, PAPER002_METHODS
from engine.experiments.rank_statistics import nemenyi_critical_difference
from engine.experiments.real_data_result import paper_average_ranks
from engine.names import ALIASES, BOOMER_NAMES, REAL_DATA_METHODS, SECOND_ORDER_METHODS, TASKS
from engine.plotting.real_data import critical_difference_figure
from engine.reports.writer import Report, write_html_report

__all__ = ["comparisons", "per_dataset_frame", "report_sections", "extra_tables", "real_data_html",
           "write_real_data_report"]

# The diagrams name the methods as the tables beside them do (ours: st-gbrt / st-rf), and say once
# what the paper calls them in multi-label (issue 31: the diagram said br-rf where its table said st-rf).
PAPER_NAMES_NOTE = {"multilabel": "st-gbrt / st-rf: the paper's br-gbrt / br-rf", "regression": ""}

TASK_TITLE = {"multilabel": "multi-label data sets (LRAP; the paper's Figure 7, Tables 8, 10-11)",
              "regression": "multi-output regression data sets (macro-r2; the paper's Figure 8, Tables 9, 12)"}


def comparisons(result):
    """(task, label, methods) of every rank comparison the result can make: the paper's methods per
    task, for multi-label with BOOMER also those together, and with the second-order rows (Newton
    leaves, an extension) ranked with the paper's methods apart, so the paper's ranks stay comparable."""
    out = []
    paper = [m for m in result.methods if m in REAL_DATA_METHODS]
    for task in TASKS:
        if not any(d["task"] == task for d in result.datasets):
            continue
        if len(paper) >= 2:
            out.append((task, "the paper's methods", paper))
        boomer = [m for m in result.methods if m in BOOMER_NAMES]
        if task == "multilabel" and boomer and len(paper) + len(boomer) >= 2:
            out.append((task, "with BOOMER", paper + boomer))
        newton = [m for m in result.methods if m in SECOND_ORDER_METHODS]
        if newton and len(paper) + len(newton) >= 2:
            out.append((task, "with second-order leaves", paper + newton))
    return out


def cd_figure(result, task, methods, label):
    st = result.statistics(task, methods)
    sub = (f"{st['n_datasets']} data sets; Friedman p = {st['friedman_pvalue']:.3g}"
           if st["n_datasets"] else "no data set complete yet")
    if PAPER_NAMES_NOTE[task] and any(m in ("st-gbrt", "st-rf") for m in st["methods"]):
        sub += f" ({PAPER_NAMES_NOTE[task]})"
    return critical_difference_figure(list(st["methods"]), st["average_ranks"], st["critical_difference"],
                                      title=f"{task}: {label} (average rank, 1 = best)", subtitle=sub)


def per_dataset_frame(result, task):
    """Methods x data sets of ``task``: 'ours (rank) | paper (rank)' (Tables 10-12 layout)."""
    summary = result.summary_frame()
    if summary.empty:
        return pd.DataFrame()
    summary = summary[summary["task"] == task]
    if summary.empty:
        return pd.DataFrame()
    cells = summary.assign(cell=[f"{o} | {p}" if p else o for o, p in zip(summary["ours"], summary["paper"])])
    table = cells.pivot(index="method", columns="dataset", values="cell")
    order = [m for m in result.methods if m in table.index]
    return table.loc[order].reset_index()


def report_sections(result):
    """(heading, figures, tables, notes) for :func:`engine.reports.writer.write_html_report`."""
    sections = []
    for task, label, methods in comparisons(result):
        st = result.statistics(task, methods)
        tables = [result.ranks_frame(task, methods)]
        if label == "the paper's methods":
            tables.append(result.wilcoxon_frame(task, methods).reset_index().rename(columns={"index": "method"}))
        figures = [cd_figure(result, task, methods, label)] if st["n_datasets"] >= 2 else []
        sections.append((f"{TASK_TITLE[task]}: {label}", figures, tables,
                         result.statistics_notes(task, methods)
                         + ([f"Wilcoxon signed-rank p-values over the {st['n_datasets']} data sets, "
                             "'ours | paper' ('(>)': the row method better, shown where p < 0.05)."]
                            if label == "the paper's methods" else [])))
    for task in TASKS:
        table = per_dataset_frame(result, task)
        if not table.empty:
            sections.append((f"Per data set: {TASK_TITLE[task]}", [], [table],
                             ["mean ± std over the splits (rank among the paper's methods) | the paper's "
                              "(Tables 10-12)."]))
    return sections


def extra_tables(result):
    """{name: DataFrame} for ``<target>_<name>.csv``: ranks and Wilcoxon matrices per comparison, and
    ``selection`` (what the model selection picked per data set, method and split)."""
    out = {}
    for task, label, methods in comparisons(result):
        suffix = task if label == "the paper's methods" else f"{task}_{label.lower().replace(' ', '_').replace('-', '_')}"
        out[f"ranks_{suffix}"] = result.ranks_frame(task, methods).set_index("method")
        if label == "the paper's methods":
            out[f"wilcoxon_{suffix}"] = result.wilcoxon_frame(task, methods)
    selection = result.selection_frame()
    if not selection.empty:
        out["selection"] = selection.set_index(["dataset", "method", "split"])
    return out


def run_notes(result):
    """How the run went: budget, cells computed or taken from the cache, partial or not."""
    s = result.settings
    notes = [f"budget {result.budget!r}: {s['n_splits']} splits, grid {s['grid']}, time budget "
             f"{s['time_factor']['multilabel']} T (multi-label) / {s['time_factor']['regression']} T (regression), "
             f"at most {s['max_steps']} steps; forests of {s['forest_trees']} trees; seed {s['seed']}; "
             f"the study's test score: {'refit on the whole training set' if result.refit else 'no refit'}.",
             f"{result.n_computed} cells computed, {result.n_cached} taken from the cache, "
             f"{result.total_time:.0f} s" + (" — stopped: a partial result" if result.partial else "") + "."]
    T = [f"{d['name']} {1e3 * d['T_seconds']:.3g} ms" for d in result.datasets if np.isfinite(d.get("T_seconds", np.nan))]
    if T:
        notes.append("T (one gbmort stump step, square loss; CPU time of the fitting thread): " + ", ".join(T) + ".")
    return notes + list(result.notes)


def paper_cd_figure(task):
    """The paper's own diagram (Figure 7 or 8), redrawn from the ranks of its Tables 10-12."""
    methods = list(PAPER002_METHODS[task])
    n = PAPER002_FRIEDMAN[task]["n_datasets"]
    figure = {"multilabel": "Figure 7", "regression": "Figure 8"}[task]
    note = f"; {PAPER_NAMES_NOTE[task]}" if PAPER_NAMES_NOTE[task] else ""
    return critical_difference_figure(
        [ALIASES.get(m, m) for m in methods], paper_average_ranks(task, None, methods),
        nemenyi_critical_difference(len(methods), n),
        title=f"The paper's {figure}: {task}, {n} data sets (redrawn from its Tables 10-12)",
        subtitle=f"Friedman p = {PAPER002_FRIEDMAN[task]['pvalue']:g} (as the paper reports it){note}")


def real_data_html(result):
    """The study's standalone HTML page (the one ``reproduce real-data`` writes) as text."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_html_report(Path(tmp) / "real-data.html", "Paper 002, section 4.4: the real-data study",
                                 [("How this run was made", [], [], run_notes(result))] + report_sections(result))
        return path.read_text(encoding="utf-8")


def write_real_data_report(result, out_dir):
    """The files of the ``real-data`` target for a :class:`RealDataResult` (also the page's export)."""
    title = "Paper 002, section 4.4: the real-data study (ours vs paper)" + (" — partial" if result.partial else "")
    report = Report("real-data", title)
    sections = report_sections(result)
    report.add("study", result, "How this run was made", [], [], notes=run_notes(result))
    report.sections.extend(sections)
    return report.write(out_dir, result.summary_frame(), extra_csv=extra_tables(result),
                        settings=dict(result.settings, budget=result.budget))
