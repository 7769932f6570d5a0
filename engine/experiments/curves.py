"""Learning curves: one estimator's test (and train) score after every boosting step
(:class:`Curve`), and several estimators' curves on one problem (:class:`ConvergenceResult`), the
result of paper 002's Figures 1-6 (:mod:`engine.experiments.convergence`,
:mod:`engine.experiments.projection_size`). Measured by :mod:`engine.experiments.measuring`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from engine.experiments.runner import JsonResult, from_list, to_list

__all__ = ["Curve", "ConvergenceResult"]


@dataclass
class Curve:
    """One estimator's learning curve; every array has one entry per boosting step.

    step : 1 .. n_steps (boosting iterations)
    n_trees : trees fitted so far (st-gbrt fits one tree per output and step)
    trees_per_output : n_trees / n_outputs, the x axis that puts all methods
        on the same footing (st-gbrt: one step = one tree per output)
    fit_time : cumulative fitting seconds (measured without an evaluation set)
    train_score, test_score : macro-r2 (regression) or LRAP (multi-label);
        NaN at steps that were not evaluated
    train_loss : the training loss the estimator minimises (``train_score_``)
    timed_fits : how many identical fits ``fit_time`` is the median of (1: a single fit;
        see :mod:`engine.experiments.timing`)
    """

    name: str
    label: str
    step: np.ndarray
    n_trees: np.ndarray
    trees_per_output: np.ndarray
    fit_time: np.ndarray
    train_score: np.ndarray
    test_score: np.ndarray
    train_loss: np.ndarray
    timed_fits: int = 1
    time_range: Optional[tuple] = None   # (lowest, highest) total fit seconds over the timed fits

    ARRAYS = ("step", "n_trees", "trees_per_output", "fit_time", "train_score", "test_score", "train_loss")

    @property
    def n_steps(self) -> int:
        return int(self.step.size)

    @property
    def best_index(self) -> Optional[int]:
        """Index of the best test score (None if nothing was evaluated)."""
        finite = np.isfinite(self.test_score)
        if not finite.any():
            return None
        return int(np.nanargmax(np.where(finite, self.test_score, -np.inf)))

    @property
    def best_score(self) -> float:
        i = self.best_index
        return float("nan") if i is None else float(self.test_score[i])

    @property
    def best_step(self) -> Optional[int]:
        i = self.best_index
        return None if i is None else int(self.step[i])

    @property
    def still_rising(self) -> bool:
        """Whether the best test score is at the last step: the run ended before this curve's
        plateau, so its best score is not yet its best (the chart, the takeaway and the
        challenges all say so from here)."""
        b = self.best_index
        return b is not None and self.n_steps > 1 and b >= self.n_steps - 1

    def steps_to_reach(self, score, x="trees_per_output"):
        """First value of ``x`` at which the test score reaches ``score`` (None if never)."""
        hit = np.flatnonzero(np.nan_to_num(self.test_score, nan=-np.inf) >= score)
        return None if hit.size == 0 else float(getattr(self, x)[hit[0]])

    def score_at(self, seconds):
        """The best test score so far at ``seconds`` of fitting, linear in fit time between the
        scored steps around it (NaN before the first scored step; the best score after the last).

        Why interpolate: on a wide data set only a few steps are scored (8 on delicious by
        default), so "the best scored step before a time budget" reads the model whose own
        total time sets the budget at its last step, and every other model at a scored step up
        to 2.4 times earlier. Figure 5's "q = 1 converges faster at a fixed budget" then holds
        by construction of the grid. Interpolating reads every model at the same time; on a
        rising concave curve it is a lower bound, by less the denser the grid."""
        ok = np.isfinite(self.test_score) & np.isfinite(self.fit_time)
        if not ok.any():
            return float("nan")
        t, best = self.fit_time[ok], np.maximum.accumulate(self.test_score[ok])
        if seconds < t[0]:
            return float("nan")
        return float(np.interp(seconds, t, best))

    def to_dict(self):
        return {"name": self.name, "label": self.label, **{k: to_list(getattr(self, k)) for k in self.ARRAYS},
                "timed_fits": int(self.timed_fits),
                "time_range": None if self.time_range is None else [float(v) for v in self.time_range]}

    @classmethod
    def from_dict(cls, d):
        arrays = {k: from_list(d[k]) for k in cls.ARRAYS}
        for k in ("step", "n_trees"):
            arrays[k] = arrays[k].astype(np.int64)
        rng = d.get("time_range")
        return cls(name=d["name"], label=d["label"], **arrays, timed_fits=int(d.get("timed_fits", 1)),
                   time_range=None if rng is None else tuple(rng))

    def truncated(self, n):
        return Curve(self.name, self.label, **{k: getattr(self, k)[:n] for k in self.ARRAYS},
                     timed_fits=self.timed_fits)   # time_range: of the whole fits, not of a prefix


@dataclass
class ConvergenceResult(JsonResult):
    """Learning curves of several estimators on one problem (Figures 1-4).

    experiment : "convergence" or "schemes"
    dataset, task ("regression" / "multilabel"), metric ("macro-r2" / "LRAP")
    n_outputs : outputs of the problem (including any noisy outputs)
    curves : dict name -> :class:`Curve`, in the order the estimators were given
    params : the settings the experiment ran with (plain JSON values)
    complete : False when ``stop`` interrupted the run; every curve present is
        then consistent (same length in all arrays) but may be shorter than
        ``n_steps`` or have NaN where a measuring pass was skipped
    notes : sentences that say how the numbers were measured
    """

    experiment: str
    dataset: str
    task: str
    metric: str
    n_outputs: int
    curves: dict
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        frames = []
        for c in self.curves.values():
            df = pd.DataFrame({k: getattr(c, k) for k in Curve.ARRAYS})
            df.insert(0, "label", c.label)
            df.insert(0, "estimator", c.name)
            frames.append(df)
        if not frames:
            return pd.DataFrame(columns=["estimator", "label", *Curve.ARRAYS])
        df = pd.concat(frames, ignore_index=True)
        df.insert(0, "dataset", self.dataset)
        return df

    def summary_frame(self, reach=None) -> pd.DataFrame:
        """One row per estimator: best test score, its step, final score, total fit time."""
        rows = []
        for c in self.curves.values():
            i = c.best_index
            row = {"estimator": c.name, "best_score": c.best_score, "best_step": c.best_step,
                   "best_trees_per_output": None if i is None else float(c.trees_per_output[i]),
                   "final_score": float(c.test_score[-1]) if c.n_steps else float("nan"),
                   "n_steps": c.n_steps, "fit_time": float(c.fit_time[-1]) if c.n_steps else float("nan")}
            if reach is not None:
                row[f"trees_per_output_to_{reach}"] = c.steps_to_reach(reach)
                row[f"seconds_to_{reach}"] = c.steps_to_reach(reach, x="fit_time")
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self):
        return {"experiment": self.experiment, "dataset": self.dataset, "task": self.task,
                "metric": self.metric, "n_outputs": self.n_outputs, "params": self.params,
                "complete": self.complete, "notes": list(self.notes),
                "curves": [c.to_dict() for c in self.curves.values()]}

    @classmethod
    def from_dict(cls, d):
        curves = {c["name"]: Curve.from_dict(c) for c in d["curves"]}
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   n_outputs=d["n_outputs"], curves=curves, params=d["params"],
                   complete=d["complete"], notes=d["notes"])
