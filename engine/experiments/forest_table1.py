"""Table 1 of paper 003: LRAP of random forests on Gaussian output projections, shipped data sets.

Random forests grown on the original outputs (mo-rf) against Algorithm 2 (a
new Gaussian projection per tree) with q = 1, round(ln d) and d: the paper's
evidence that a tiny q loses little. The published numbers are in
:mod:`engine.experiments.published`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.experiments.forests import fit_and_score, repeat_seeds
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, check_callbacks, jsonable
from engine.experiments.settings import ForestSettings, check_seed, q_of

__all__ = ["TABLE1_DATASETS", "Table1Result", "run_forest_table1"]

# The data sets of paper 003's Table 1 that are shipped (birds, flags: not in Table 1).
TABLE1_DATASETS = ("emotions", "scene", "yeast", "genbase", "medical", "cal500")
# The paper's forests: 100 trees, k = sqrt(p), q = 1, round(ln d) and d.
TABLE1_FOREST = ForestSettings(n_estimators=100, max_features="sqrt", q_values=(1, "log", "d"))


@dataclass
class Table1Result(JsonResult):
    """LRAP of mo-rf and of Algorithm 2 (Gaussian, q = 1, round(ln d), d) per data set.

    rows : one dict per (dataset, method, repeat): dataset, d, n_train, n_test, split,
        method ("mo-rf" or "rf-gaussian-per-tree"), q (None for mo-rf), q_label
        ("1", "ln d", "d", ...), repeat, lrap, fit_time
    """

    rows: list
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["dataset", "d", "n_train", "n_test", "split", "method", "q",
                                                "q_label", "repeat", "lrap", "fit_time"])

    def summary_frame(self) -> pd.DataFrame:
        """One row per data set: mean LRAP (and fit time) per column (mo-rf, q = 1, ...)."""
        df = self.to_frame()
        if df.empty:
            return pd.DataFrame()
        df["column"] = np.where(df["method"] == "mo-rf", "mo-rf", "q=" + df["q_label"].astype(str))
        order = list(dict.fromkeys(df["column"]))
        lr = df.pivot_table(index=["dataset", "d"], columns="column", values="lrap", aggfunc="mean", sort=False)
        return lr[order].reset_index()

    def to_markdown(self) -> str:
        """The summary as a markdown table (LRAP, 3 decimals; q values in brackets)."""
        df = self.to_frame()
        if df.empty:
            return ""
        cols = list(dict.fromkeys(np.where(df["method"] == "mo-rf", "mo-rf", "q=" + df["q_label"].astype(str))))
        head = "| data set | d | n train / test | " + " | ".join(
            "random forest (mo-rf)" if c == "mo-rf" else f"Gaussian, {c.replace('q=', 'q = ')}" for c in cols) + " |"
        lines = [head, "|" + "---|" * (3 + len(cols))]
        for (name, d), g in df.groupby(["dataset", "d"], sort=False):
            cells = []
            for c in cols:
                sel = g[g["method"] == "mo-rf"] if c == "mo-rf" else g[(g["method"] != "mo-rf")
                                                                      & ("q=" + g["q_label"].astype(str) == c)]
                if sel.empty:
                    cells.append("")
                    continue
                text = f"{sel['lrap'].mean():.3f}"
                if len(sel) > 1:
                    text += f" ± {sel['lrap'].std(ddof=0):.3f}"
                if c != "mo-rf" and not c.endswith(tuple("0123456789")):
                    text += f" (q = {int(sel['q'].iloc[0])})"
                cells.append(text)
            lines.append(f"| {name} | {d} | {g['n_train'].iloc[0]} / {g['n_test'].iloc[0]} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def to_dict(self):
        return {"rows": jsonable(self.rows), "params": self.params, "complete": self.complete,
                "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d):
        rows = [{**r, "lrap": np.nan if r["lrap"] is None else r["lrap"]} for r in d["rows"]]
        return cls(rows=rows, params=d["params"], complete=d["complete"], notes=d["notes"])


def _q_label_values(q_specs, d):
    """(label, q) per q of the table: "log" -> ("ln d", round(ln d)), "d" -> ("d", d)."""
    return [({"log": "ln d", "d": "d"}.get(spec, str(spec)), q_of(spec, d)) for spec in q_specs]


def _problems(problems):
    """The data sets as Problems, each a multi-label one (LRAP needs 0/1 labels)."""
    if isinstance(problems, (str, Problem)):
        problems = [problems]
    problems = [Problem.of(p, "problems") for p in problems]
    if not problems:
        raise ValueError("problems is empty: give at least one multi-label data set")
    for problem in problems:
        if problem.shape()[0] != "multilabel":
            raise ValueError(f"problems: {problem.dataset!r} is not a multi-label data set (LRAP needs 0/1 labels)")
    return problems


def run_forest_table1(problems=TABLE1_DATASETS, forest=TABLE1_FOREST, *, seed=0, progress=None,
                      stop=None) -> Table1Result:
    """Paper 003, Table 1: LRAP of mo-rf and of Algorithm 2 with Gaussian projections.

    ``problems``: the multi-label data sets (names or :class:`~engine.experiments.problems.Problem`).
    ``forest``: :class:`~engine.experiments.settings.ForestSettings`; its ``q_values`` may hold
    integers, "log" (round(ln d), the paper's middle column) and "d", in the table's order; its
    projection is not used (Table 1 is Gaussian). The paper: k = sqrt(p), n_min = 1 (fully grown),
    100 trees, 10 random train/test splits (mean ± std); here: the data set's standard split (the
    same for every repeat; repeats change only the forests' seeds) or, without one, a 50/50 split
    seeded by ``seed``.
    """
    problems = _problems(problems)
    if not isinstance(forest, ForestSettings):
        raise ValueError(f"forest must be a ForestSettings, got {type(forest).__name__}")
    check_seed(seed)
    check_callbacks(progress, stop)
    n_estimators, max_features, n_repeats = forest.n_estimators, forest.features("multilabel"), forest.n_repeats

    runner = Runner(progress, stop, len(problems) * n_repeats * (1 + len(forest.q_values)))
    rows, complete = [], True
    seeds = repeat_seeds(seed, n_repeats)
    for problem in problems:
        data = problem.draw(seed)
        info = data.info
        d = info["n_outputs"]
        runs = [("mo-rf", None, "", {})] + [
            ("rf-gaussian-per-tree", q, label, {"projection": "gaussian", "n_components": q})
            for label, q in _q_label_values(forest.q_values, d)]
        for r, rs in enumerate(seeds):
            for method, q, label, extra in runs:
                if runner.stopped():
                    complete = False
                    break
                score, fit_time = fit_and_score("multilabel", dict(n_estimators=n_estimators, max_features=max_features,
                                                                   n_jobs=forest.n_jobs, random_state=rs, **extra), data)
                rows.append({"dataset": problem.dataset, "d": d, "n_train": info["n_train"], "n_test": info["n_test"],
                             "split": info["split"], "method": method, "q": q, "q_label": label, "repeat": r,
                             "lrap": score, "fit_time": fit_time})
                runner.report(len(rows), f"{problem.dataset}: {method}" + (f" q = {q}" if q else ""))
    runner.finish(complete)
    params = dict(datasets=[p.dataset for p in problems], q_values=list(forest.q_values), n_estimators=n_estimators,
                  max_features=max_features, n_repeats=n_repeats, seed=seed)
    notes = [f"{n_estimators} trees, max_features = {max_features!r}, fully grown, bootstrap.",
             "LRAP of the label probabilities; test samples without a relevant label dropped (paper 003, section 4.1).",
             "Standard train/test split where the data set ships one, else a 50/50 split seeded by seed; "
             "the paper averages 10 random splits instead."]
    return Table1Result(rows, params, complete, notes)
