"""The result of the real-data study and the tables read beside paper 002's Tables 8-12.

:class:`RealDataResult` holds every cell (one row per data set, method,
split and kind) and derives the rest from them: test scores per data set and
method (mean ± std over splits, next to the paper's Tables 10-12), the
average ranks with the Friedman test and the Nemenyi critical difference
(Figures 7-8) and the Wilcoxon p-value matrix next to the paper's Tables 8-9
(:mod:`engine.experiments.rank_statistics`).

Cell kinds: ``validation`` (one boosting setting on the 80%: its best
validation score, ``best_step``, and ``selected`` for the one the selection picked), ``test-refit`` / ``test-no-refit`` (the chosen
setting fitted again on the whole training set / on the 80%, scored on the
test set) and ``test`` (forests and BOOMER: nothing to select, fitted on the
whole training set). ``refit`` says which of the two boosting test scores is
the study's.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from engine.experiments.published import PAPER002_FRIEDMAN, PAPER002_METHODS, PAPER002_SCORES, PAPER002_WILCOXON
from engine.experiments.rank_statistics import (
    average_ranks,
    dataset_ranks,
    friedman_pvalue,
    nemenyi_critical_difference,
    wilcoxon_matrix,
)
from engine.experiments.runner import JsonResult
from engine.experiments.study_cells import PAPER_NAME
from engine.names import METRICS, REAL_DATA_METHODS

__all__ = ["CELL_COLUMNS", "RealDataResult", "paper_average_ranks", "paper_method_name"]

CELL_COLUMNS = ["dataset", "task", "method", "split", "kind", "setting", "n_steps", "score", "seconds", "cpu_seconds",
                "cached", "best_step", "selected", "selected_params"]


def paper_method_name(method, task):
    """The paper's name of one of our methods: br-gbrt / br-rf in multi-label."""
    if task == "multilabel" and method in ("st-gbrt", "st-rf"):
        return "br-" + method[3:]
    return method


@dataclass
class RealDataResult(JsonResult):
    budget: str
    settings: dict
    datasets: list          # dicts: name, paper_name, task, n_samples, n_features, n_outputs, n_train, ...
    methods: list
    cells: list             # dicts: dataset, method, split, kind, setting, n_steps, score, seconds, cpu_seconds,
                            # cached, best_step, selected, selected_params (see CELL_COLUMNS)
    notes: list = field(default_factory=list)
    refit: bool = True
    partial: bool = False
    n_computed: int = 0
    n_cached: int = 0
    n_corrupt: int = 0
    total_time: float = 0.0

    # ------------------------------------------------------------ serialization

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**d)

    def to_frame(self) -> pd.DataFrame:
        """Every cell, long format (``CELL_COLUMNS``): data set, method, split, kind, setting, n_steps,
        score, seconds (wall), cpu_seconds (the fitting thread's CPU), cached; for a validation cell
        best_step and selected; for a boosting test cell selected_params (JSON text). Cells of
        results written before these columns existed leave them empty."""
        return pd.DataFrame(self.cells, columns=CELL_COLUMNS)

    def selection_frame(self) -> pd.DataFrame:
        """What the model selection picked, per data set, boosting method and split: the setting,
        the chosen number of steps and the step budget the time allowed, ``at_step_budget`` (the
        best validation step is the budget's last one: the curve was still rising when time ran
        out, so the setting may be starved), its validation score, how many candidates there were
        and the runner-up (setting and validation score), and the test score that followed."""
        rows = []
        df = self.to_frame()
        picked = df[df["kind"] == ("test-refit" if self.refit else "test-no-refit")]
        for cell in picked.itertuples():
            if not isinstance(cell.selected_params, str) or not cell.selected_params:
                continue
            chosen = json.loads(cell.selected_params)
            runner = chosen.get("runner_up") or {}
            rows.append(dict(dataset=cell.dataset, method=cell.method, split=cell.split,
                             setting=cell.setting, n_steps=chosen["n_steps"], step_budget=chosen["step_budget"],
                             at_step_budget=chosen["n_steps"] >= chosen["step_budget"],
                             validation_score=chosen["validation_score"], n_candidates=chosen["n_candidates"],
                             runner_up=runner.get("setting", ""), runner_up_score=runner.get("validation_score", np.nan),
                             test_score=cell.score))
        return pd.DataFrame(rows, columns=["dataset", "method", "split", "setting", "n_steps", "step_budget",
                                           "at_step_budget", "validation_score", "n_candidates", "runner_up",
                                           "runner_up_score", "test_score"])

    # ------------------------------------------------------------ test scores

    def _task(self, dataset):
        return next(d["task"] for d in self.datasets if d["name"] == dataset)

    def test_frame(self, refit=None) -> pd.DataFrame:
        """The test score of every (data set, method, split): boosting's refit or no-refit score
        (``refit`` None = the study's choice), forests' and BOOMER's only one."""
        refit = self.refit if refit is None else refit
        kinds = ("test", "test-refit" if refit else "test-no-refit")
        df = self.to_frame()
        return df[df["kind"].isin(kinds)].reset_index(drop=True)

    def _n_splits(self):
        return int(self.settings["n_splits"])

    def summary_frame(self) -> pd.DataFrame:
        """Per data set and method: mean ± std of the test score over the finished splits
        (refit and no-refit for boosting), seconds, and the paper's value (Tables 10-12)."""
        rows = []
        df = self.to_frame()
        for info in self.datasets:
            name, task = info["name"], info["task"]
            ranks = self._dataset_ranks(name)
            for method in self.methods:
                cells = df[(df["dataset"] == name) & (df["method"] == method)]
                if cells.empty:
                    continue
                row = dict(dataset=name, task=task, metric=METRICS[task], method=method)
                for label, kinds in (("", ("test", "test-refit" if self.refit else "test-no-refit")),
                                     (" refit", ("test-refit",)), (" no-refit", ("test-no-refit",))):
                    scores = cells[cells["kind"].isin(kinds)]["score"].to_numpy()
                    row[f"mean{label}"] = scores.mean() if scores.size else np.nan
                    row[f"std{label}"] = scores.std(ddof=1) if scores.size >= 2 else np.nan
                    if not label:
                        row["splits"] = int(scores.size)
                final = cells[cells["kind"].isin(("test", "test-refit" if self.refit else "test-no-refit"))]
                row["final fit seconds"] = final["seconds"].mean() if len(final) else np.nan
                selection = cells[cells["kind"] == "validation"].groupby("split")["seconds"].sum()
                row["selection seconds per split"] = selection.mean() if len(selection) else 0.0
                row["rank"] = ranks.get(method, np.nan)
                paper = PAPER002_SCORES.get(info["paper_name"], {}).get(paper_method_name(method, task))
                row["paper mean"], row["paper std"], row["paper rank"] = paper if paper else (np.nan,) * 3
                row["ours"] = _text(row["mean"], row["std"], row["rank"])
                row["paper"] = _text(*paper) if paper else ""
                rows.append(row)
        return pd.DataFrame(rows)

    def _mean_scores(self, name, methods):
        df = self.test_frame()
        df = df[df["dataset"] == name]
        means = {}
        for method in methods:
            scores = df[df["method"] == method]["score"]
            if len(scores) == self._n_splits():
                means[method] = float(scores.mean())
        return means

    def _dataset_ranks(self, name):
        """Ranks of the paper's methods on one data set (complete ones only), as in Tables 10-12."""
        means = self._mean_scores(name, [m for m in self.methods if m in REAL_DATA_METHODS])
        if len(means) < 2:
            return {}
        ranks = dataset_ranks(np.array([list(means.values())]))[0]
        return dict(zip(means, ranks))

    # ------------------------------------------------------------ rank statistics

    def score_table(self, task, methods=None):
        """(data sets, methods, scores): mean test scores of the data sets of ``task`` on which
        every one of ``methods`` (default: the paper's methods in this run) finished every split."""
        if methods is None:
            methods = [m for m in self.methods if m in REAL_DATA_METHODS]
        names, rows = [], []
        for info in self.datasets:
            if info["task"] != task:
                continue
            means = self._mean_scores(info["name"], methods)
            if len(means) == len(methods):
                names.append(info["name"])
                rows.append([means[m] for m in methods])
        return names, list(methods), np.array(rows).reshape(len(rows), len(methods))

    def statistics(self, task, methods=None):
        """Average ranks, Friedman p-value, Nemenyi CD and Wilcoxon matrix over the complete data sets."""
        names, methods, scores = self.score_table(task, methods)
        out = dict(task=task, datasets=names, methods=methods, n_datasets=len(names))
        if len(names) < 1 or len(methods) < 2:
            return dict(out, average_ranks=[np.nan] * len(methods), friedman_pvalue=np.nan,
                        critical_difference=np.nan, pvalues=np.full((len(methods),) * 2, np.nan),
                        signs=[[""] * len(methods) for _ in methods])
        pvalues, signs = wilcoxon_matrix(scores)
        return dict(out, average_ranks=average_ranks(scores).tolist(), friedman_pvalue=friedman_pvalue(scores),
                    critical_difference=nemenyi_critical_difference(len(methods), len(names)),
                    pvalues=pvalues, signs=signs)

    def ranks_frame(self, task, methods=None) -> pd.DataFrame:
        """Average ranks: ours, the paper's over all its data sets (Tables 10-12), and the paper's
        re-ranked over the data sets of this run (its means, the same ranking)."""
        st = self.statistics(task, methods)
        ours = [paper_method_name(m, task) for m in st["methods"]]
        paper_all = paper_average_ranks(task, None, ours)
        paper_same = paper_average_ranks(task, st["datasets"], ours)
        df = pd.DataFrame({"method": st["methods"], "average rank": st["average_ranks"],
                           "paper: all its data sets": paper_all, "paper: these data sets": paper_same})
        return df.sort_values("average rank", kind="stable").reset_index(drop=True)

    def wilcoxon_frame(self, task, methods=None) -> pd.DataFrame:
        """The Wilcoxon p-value matrix as text, 'ours | paper' (Tables 8-9), '(>)' = row better."""
        st = self.statistics(task, methods)
        paper = PAPER002_WILCOXON[task]
        names = st["methods"]
        cells = []
        for i, a in enumerate(names):
            row = []
            for j, b in enumerate(names):
                if i == j:
                    row.append("")
                    continue
                p = st["pvalues"][i][j]
                ours = ("nan" if not np.isfinite(p) else f"{p:.2g}") + (f"({st['signs'][i][j]})" if st["signs"][i][j] else "")
                published = paper.get((paper_method_name(a, task), paper_method_name(b, task)))
                theirs = "" if published is None else f"{published[0]:g}" + (f"({published[1]})" if published[1] else "")
                row.append(f"{ours} | {theirs}" if theirs else ours)
            cells.append(row)
        return pd.DataFrame(cells, index=names, columns=names)

    def statistics_notes(self, task, methods=None):
        """One sentence per test: ours next to the paper's."""
        st = self.statistics(task, methods)
        paper = PAPER002_FRIEDMAN[task]
        if st["n_datasets"] < 1:
            return [f"{task}: no data set finished every split of every method yet; no ranks."]
        cd = f"{st['critical_difference']:.2f}"
        paper_cd = f"; the paper's CD for {len(PAPER002_METHODS[task])} methods and {paper['n_datasets']} " \
                   f"data sets: {paper['critical_difference']}" if paper["critical_difference"] else ""
        fp = st["friedman_pvalue"]
        friedman = (f"Friedman p = {fp:.3g}" if np.isfinite(fp) else
                    "no Friedman p-value (it needs at least 2 data sets with differing ranks)")
        return [f"{task}: {len(st['methods'])} methods over {st['n_datasets']} data sets "
                f"({', '.join(st['datasets'])}): {friedman} (the paper: "
                f"{paper['pvalue']:g} over its {paper['n_datasets']}); Nemenyi critical difference "
                f"(alpha = 0.05) {cd}{paper_cd}."]


def _text(mean, std, rank):
    if not np.isfinite(mean):
        return ""
    out = f"{mean:.3f} ± {std:.3f}" if np.isfinite(std) else f"{mean:.3f}"
    return out + (f" ({rank:g})" if np.isfinite(rank) else "")


def paper_average_ranks(task, our_datasets, paper_methods):
    """The paper's average ranks of ``paper_methods``, from its per data set means (Tables 10-12),
    over all its data sets of ``task`` (None) or over the ones named (our names)."""
    names = [d for d, rows in PAPER002_SCORES.items() if PAPER002_METHODS[task][0] in rows]
    if our_datasets is not None:
        wanted = {PAPER_NAME.get(d, d) for d in our_datasets}
        names = [d for d in names if d in wanted]
    if not names or any(m not in PAPER002_METHODS[task] for m in paper_methods) or len(paper_methods) < 2:
        return [np.nan] * len(paper_methods)
    scores = np.array([[PAPER002_SCORES[d][m][0] for m in paper_methods] for d in names])
    return dataset_ranks(scores).mean(axis=0).tolist()

