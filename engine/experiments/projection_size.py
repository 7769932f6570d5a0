"""Figures 5-6 of paper 002: gbrt-relabel-rpo with q random projections against gbmort.

gbmort is the q -> infinity limit of gbrt-relabel-rpo (Algorithm 4 with the
identity projection grows gbmort's trees); the experiment shows how small q
can be before the score suffers, and what it saves in fit time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from engine.experiments.curves import ConvergenceResult, Curve
from engine.experiments.measuring import auto_eval_points, check_eval_points, measure_all, measuring_notes
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, check_callbacks, from_list, to_list
from engine.experiments.settings import BoostingSettings, check_q_values, check_seed
from engine.experiments.timing import resolve_timing
from engine.metrics import macro_r2, ranking_average_precision
from engine.names import METRICS, PROJECTED_RELABEL, PROJECTIONS, boosting_name
from engine.validation import check_choice, check_in_interval

__all__ = ["MATCH_TOLERANCE", "ProjectionSizeResult", "run_projection_size"]

# "Reaches gbmort's score": within this much of it (LRAP or macro-r2, absolute).
MATCH_TOLERANCE = 0.005


@dataclass
class ProjectionSizeResult(JsonResult):
    """gbrt-relabel-rpo with q projections against gbmort (Figures 5-6).

    q_values : the q swept (int array); the arrays below have one entry per q
    score : test score after ``n_steps`` steps
    best_score : best test score over the steps
    fit_time : seconds to fit ``n_steps`` steps
    budget_score : best test score so far at ``time_budget`` seconds of fitting, linear in fit
        time between the scored steps (:meth:`~engine.experiments.convergence.Curve.score_at`)
    gbmort_score, gbmort_best_score, gbmort_fit_time, gbmort_budget_score :
        the same for gbmort (NaN if it was not run)
    time_budget : seconds (the given budget, or by default the shortest total
        fit time among all runs, so that every run reaches it)
    curves : the full learning curves ("q=1", ..., "gbmort"), as in
        :class:`ConvergenceResult`
    baseline_score : the test score of the constant model every method starts from
        (the training mean of each output: label frequencies for multi-label), so a
        reader sees how much was learned at all
    """

    dataset: str
    task: str
    metric: str
    n_outputs: int
    projection: str
    n_steps: int
    q_values: np.ndarray
    score: np.ndarray
    best_score: np.ndarray
    fit_time: np.ndarray
    budget_score: np.ndarray
    gbmort_score: float
    gbmort_best_score: float
    gbmort_fit_time: float
    gbmort_budget_score: float
    time_budget: float
    curves: dict
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)
    baseline_score: float = float("nan")

    ARRAYS = ("score", "best_score", "fit_time", "budget_score")
    SCALARS = ("gbmort_score", "gbmort_best_score", "gbmort_fit_time", "gbmort_budget_score", "time_budget",
               "baseline_score")

    def convergence(self) -> ConvergenceResult:
        """The curves as a :class:`ConvergenceResult` (to draw score against fit time)."""
        return ConvergenceResult("projection-size", self.dataset, self.task, self.metric, self.n_outputs,
                                 self.curves, self.params, self.complete, self.notes)

    def cheapest_match(self, tolerance=MATCH_TOLERANCE):
        """The quickest q whose final score is within ``tolerance`` of gbmort's (Figure 6's reading).

        Returns a dict (q, score, fit_time, time_ratio = fit_time / gbmort's) or None when
        gbmort was not run or no q comes that close.
        """
        check_in_interval(tolerance, "tolerance", 0.0)
        if not (np.isfinite(self.gbmort_score) and np.isfinite(self.gbmort_fit_time) and self.gbmort_fit_time > 0):
            return None
        ok = np.isfinite(self.score) & np.isfinite(self.fit_time) & (self.score >= self.gbmort_score - tolerance)
        if not ok.any():
            return None
        k = int(np.flatnonzero(ok)[np.argmin(self.fit_time[ok])])
        return {"q": int(self.q_values[k]), "score": float(self.score[k]), "fit_time": float(self.fit_time[k]),
                "time_ratio": float(self.fit_time[k] / self.gbmort_fit_time)}

    def learned_little(self, margin=MATCH_TOLERANCE * 2):
        """True when no model's final score is more than ``margin`` above the constant model's.

        Then "q reaches gbmort's score" says nothing (nobody learned): a page should say so.
        """
        check_in_interval(margin, "margin", 0.0)
        scores = np.append(self.score, self.gbmort_score)
        scores = scores[np.isfinite(scores)]
        if not np.isfinite(self.baseline_score) or scores.size == 0:
            return False
        return bool(scores.max() - self.baseline_score <= margin)

    def to_frame(self) -> pd.DataFrame:
        """One row per q, then a row for gbmort (q = NaN, estimator "gbmort")."""
        df = pd.DataFrame({"estimator": boosting_name(PROJECTED_RELABEL, self.projection),
                           "q": self.q_values.astype(float), **{k: getattr(self, k) for k in self.ARRAYS}})
        if np.isfinite(self.gbmort_score):
            df.loc[len(df)] = {"estimator": "gbmort", "q": np.nan, "score": self.gbmort_score,
                               "best_score": self.gbmort_best_score, "fit_time": self.gbmort_fit_time,
                               "budget_score": self.gbmort_budget_score}
        df.insert(0, "dataset", self.dataset)
        df["n_steps"] = self.n_steps
        df["time_budget"] = self.time_budget
        return df

    def to_dict(self):
        return {"dataset": self.dataset, "task": self.task, "metric": self.metric,
                "n_outputs": self.n_outputs, "projection": self.projection, "n_steps": self.n_steps,
                "q_values": [int(q) for q in self.q_values],
                **{k: to_list(getattr(self, k)) for k in self.ARRAYS},
                **{k: to_list([getattr(self, k)])[0] for k in self.SCALARS},
                "curves": [c.to_dict() for c in self.curves.values()], "params": self.params,
                "complete": self.complete, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d):
        return cls(dataset=d["dataset"], task=d["task"], metric=d["metric"], n_outputs=d["n_outputs"],
                   projection=d["projection"], n_steps=d["n_steps"],
                   q_values=np.array(d["q_values"], dtype=np.int64),
                   **{k: from_list(d[k]) for k in cls.ARRAYS},
                   **{k: float("nan") if d.get(k) is None else float(d[k]) for k in cls.SCALARS},
                   curves={c["label"]: Curve.from_dict(c) for c in d["curves"]}, params=d["params"],
                   complete=d["complete"], notes=d["notes"])


def constant_model_score(task, Y_train, Y_test):
    """Test score of predicting each output's training mean (the step-0 model of every method).

    Multi-label: LRAP of ranking the labels by their training frequency; regression:
    macro-r2 of the training means (0 up to the train / test difference).
    """
    mean = np.asarray(Y_train, dtype=np.float64).mean(axis=0)
    Y_test = np.asarray(Y_test, dtype=np.float64)
    constant = np.broadcast_to(mean, Y_test.shape)
    if task == "multilabel":
        return float(ranking_average_precision(Y_test > 0, constant))
    return float(macro_r2(Y_test, constant))


def run_projection_size(problem, boosting, *, q_values, projection="gaussian", time_budget=None,
                        include_gbmort=True, seed=0, timing=True, train_curve=True, n_eval_points=None,
                        progress=None, stop=None) -> ProjectionSizeResult:
    """gbrt-relabel-rpo (Algorithm 4) with each q in ``q_values`` random
    projections of the given scheme, and gbmort (Algorithm 2, the q -> infinity
    limit) as the reference (paper Figures 5-6).

    ``problem``: a :class:`~engine.experiments.problems.Problem` (a data set and its data
    arguments) or a data set's name (its defaults); drawn with ``seed``, which also seeds every
    model. ``boosting``: the :class:`~engine.experiments.convergence.BoostingSettings` every model
    is fitted with (``n_steps``, learning rate, tree size, loss, leaf estimation).

    For each q: the test score after ``n_steps`` steps and the fit time
    (Figure 6), the best score so far at ``time_budget`` seconds of fitting
    (Figure 5 read at one time, every curve interpolated there; default: the
    shortest total fit time among the runs) and the full learning curves.

    ``timing``: how fit times are measured (:mod:`engine.experiments.timing`):
    True (default) fits a tiny untimed model before each timed one and fits
    short models again (the median of their cumulative times), so the first
    model of the sweep does not carry the process's warm-up and fits of a few
    hundredths of a second are not timer noise; False fits each model once.
    ``train_curve=False`` skips the train score (NaN, half the work on
    regression); ``n_eval_points`` (multi-label): steps scored with LRAP, by
    default :func:`~engine.experiments.convergence.auto_eval_points` of the
    test set's size (60 on small problems, 8 on the delicious-shaped set).

    Returns a :class:`ProjectionSizeResult`.
    """
    problem, task, d, q_values = _checked(problem, boosting, q_values, projection, time_budget, seed)
    timing = resolve_timing(timing)
    n_eval_points = check_eval_points(n_eval_points)
    check_callbacks(progress, stop)

    name = boosting_name(PROJECTED_RELABEL, projection)
    params = dict(q_values=q_values, projection=projection, n_steps=boosting.n_steps, time_budget=time_budget,
                  include_gbmort=include_gbmort, seed=seed, loss=boosting.loss,
                  timing=None if timing is None else asdict(timing), train_curve=bool(train_curve),
                  **problem.data_kwargs(), **{k: v for k, v in boosting.model_kwargs().items() if k != "loss"})
    data = problem.draw(seed)
    if n_eval_points is None:
        n_eval_points = auto_eval_points(data.Y_test.shape[0], d)
    params["n_eval_points"] = n_eval_points
    runs = [(name, f"q={q}", q) for q in q_values] + ([("gbmort", "gbmort", 1)] if include_gbmort else [])
    runner = Runner(progress, stop, len(runs))
    curves, complete = measure_all(runs, data, boosting, seed, runner, timing=timing, train_curve=bool(train_curve),
                                   n_eval_points=n_eval_points, by_label=True)
    runner.finish(complete)
    notes = measuring_notes(task, boosting.n_steps, timing, train_curve=bool(train_curve), n_eval_points=n_eval_points)
    return _result(problem, data, boosting.n_steps, projection, q_values, curves, time_budget, params, complete,
                   notes)


def _checked(problem, boosting, q_values, projection, time_budget, seed):
    """Every argument of :func:`run_projection_size` but the measuring ones, checked before anything
    is drawn: ``(Problem, task, outputs, q_values as a list)``."""
    problem = Problem.of(problem)
    if not isinstance(boosting, BoostingSettings):
        raise ValueError(f"boosting must be a BoostingSettings, got {type(boosting).__name__}")
    check_seed(seed)
    task, d = problem.shape()
    check_choice(projection, "projection", PROJECTIONS)
    q_values = list(check_q_values(q_values, words=()))
    for q in q_values:
        boosting.check_q(boosting_name(PROJECTED_RELABEL, projection), d, q, argument="q_values")
    if time_budget is not None:
        check_in_interval(time_budget, "time_budget", 0.0, low_open=True)
    boosting.check(task, d)
    return problem, task, d, q_values


def _result(problem, data, n_steps, projection, q_values, curves, time_budget, params, complete, notes):
    """The sweep's numbers read from its curves: final, best and budget scores and fit times per q."""
    totals = [c.fit_time[-1] for c in curves.values() if np.isfinite(c.fit_time[-1])]
    budget = float(time_budget) if time_budget is not None else (float(min(totals)) if totals else float("nan"))

    def stats(c):
        if c is None:
            return (np.nan,) * 4
        final = c.test_score[-1] if c.n_steps == n_steps else np.nan
        return final, c.best_score, c.fit_time[-1] if c.n_steps == n_steps else np.nan, c.score_at(budget)

    rows = np.array([stats(curves.get(f"q={q}")) for q in q_values], dtype=float).reshape(len(q_values), 4)
    g = stats(curves.get("gbmort"))
    task = data.task
    baseline = constant_model_score(task, data.Y_train, data.Y_test)
    notes = notes + [data.split, f"time budget {budget:.4g} s"
                     + (" (shortest total fit time)" if time_budget is None else "")]
    return ProjectionSizeResult(
        dataset=problem.dataset, task=task, metric=METRICS[task], n_outputs=data.n_outputs, projection=projection,
        n_steps=n_steps, q_values=np.array(q_values, dtype=np.int64), score=rows[:, 0],
        best_score=rows[:, 1], fit_time=rows[:, 2], budget_score=rows[:, 3],
        gbmort_score=float(g[0]), gbmort_best_score=float(g[1]), gbmort_fit_time=float(g[2]),
        gbmort_budget_score=float(g[3]), time_budget=budget, curves=curves, params=params,
        complete=complete, notes=notes, baseline_score=baseline)
