"""The paper's experiments as plain function calls (paper 002, sections 4.2-4.3).

Every experiment takes plain arguments, validates all of them before doing any
work (a ``ValueError`` naming the argument), and returns a dataclass of numpy
arrays that holds everything needed to draw it, with ``to_frame()`` (a long
pandas DataFrame, one row per estimator and step, for CSV) and ``to_json()``
(and ``from_json``). Same arguments and seed, same numbers (fit times aside).

* :func:`get_problem`: a train / test split of a Friedman1 problem or of a
  shipped data set.
* :func:`run_convergence`: Figure 1, test (and train) score after every
  boosting step, against steps, trees per output and fit time.
* :func:`run_projection_size`: Figures 5-6, gbrt-relabel-rpo with q random
  projections against gbmort (the q -> infinity limit).
* :func:`run_projection_schemes`: Figures 2-4, gbrt-rpo (or relabel) with
  each random projection scheme.
* :func:`run_bias_variance` (from :mod:`engine.bias_variance`): the
  Monte-Carlo bias-variance decomposition (thesis 001 sections 4.1-4.2,
  paper 003 section 3.3), on joblib or a dask cluster.
* :func:`run_model_selection` (from :mod:`engine.model_selection`): the
  hyper-parameter selection protocol of section 4.1.2 and Tables 4-7.

The last two live in their own modules (which import this one for shared
checks); they are re-exported here lazily, on first access, so that
``from engine.experiments import run_bias_variance`` works without an import
cycle.

Long runs: ``progress(fraction_done, message)`` is called between chunks of
boosting steps (about every 50 ms) and ``stop`` (a ``threading.Event`` or any
object with ``is_set()``) is checked there; once it is set the experiment
returns promptly with what is done (``complete=False``).

How the numbers are measured (regression). Each estimator is fitted twice
with the same seed (the fits are identical, only what is measured differs):
once with the test set as ``eval_set`` (test macro-r2 after every step,
computed inside the compiled loop, and the fit times, which leave the scoring
out) and once with the training set as ``eval_set`` (train macro-r2 after
every step). Multi-label: one fit without an evaluation set (fit times), then LRAP
of ``staged_decision_function`` at about 60 log-spaced steps (always
including the first and the last), NaN at the other steps.
"""

from __future__ import annotations

import importlib
import json
import numbers
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from engine.artificial import ArtificialGBRT
from engine.datasets import (
    FRIEDMAN_STRUCTURES,
    INPUT_DISTRIBUTIONS,
    list_datasets,
    load_dataset,
    make_friedman1_multioutput,
)
from engine.projections import PROJECTIONS, check_projection
from engine.registry import ALIASES, BOOSTING_CONFIGS, ESTIMATOR_NAMES, make_estimator
from engine.validation import check_int as _int

__all__ = [
    "FRIEDMAN_PROBLEMS",
    "EXPERIMENT_ESTIMATORS",
    "Curve",
    "ConvergenceResult",
    "ProjectionSizeResult",
    "get_problem",
    "run_convergence",
    "run_projection_size",
    "run_projection_schemes",
    "run_bias_variance",
    "BiasVarianceResult",
    "run_model_selection",
    "ModelSelectionResult",
]

# Experiments defined in their own modules, re-exported on first access (PEP 562):
# those modules import this one, so importing them here would be a cycle.
_REEXPORTS = {
    "run_bias_variance": "engine.bias_variance",
    "BiasVarianceResult": "engine.bias_variance",
    "run_model_selection": "engine.model_selection",
    "ModelSelectionResult": "engine.model_selection",
}


def __getattr__(name):
    module = _REEXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_REEXPORTS))

FRIEDMAN_PROBLEMS = tuple(f"friedman1-{s}" for s in FRIEDMAN_STRUCTURES)
ARTIFICIAL = "artificial-gbrt"
EXPERIMENT_ESTIMATORS = ESTIMATOR_NAMES + tuple(ALIASES) + (ARTIFICIAL,)
METRICS = {"regression": "macro-r2", "multilabel": "LRAP"}
LOSSES = {"regression": ("squared_error", "absolute_error"), "multilabel": ("logistic", "squared_error")}
SCHEME_SUFFIX = {"subsample": "subsampled", "gaussian": "gaussian", "achlioptas": "achlioptas", "sparse": "sparse"}
N_EVAL_POINTS = 60
# Fraction of an estimator's progress given to each measuring pass (regression).
_PASS_WEIGHTS = (0.6, 0.4)


# --------------------------------------------------------------------------
# Result containers
# --------------------------------------------------------------------------


def _to_list(a):
    """ndarray -> JSON-ready list, NaN -> None."""
    a = np.asarray(a, dtype=np.float64)
    return [None if not np.isfinite(v) else float(v) for v in a.ravel()]


def _from_list(values, dtype=np.float64):
    return np.array([np.nan if v is None else v for v in values], dtype=dtype)


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

    def steps_to_reach(self, score, x="trees_per_output"):
        """First value of ``x`` at which the test score reaches ``score`` (None if never)."""
        hit = np.flatnonzero(np.nan_to_num(self.test_score, nan=-np.inf) >= score)
        return None if hit.size == 0 else float(getattr(self, x)[hit[0]])

    def score_within(self, seconds):
        """Best test score among the evaluated steps whose fit time is <= ``seconds``."""
        ok = (self.fit_time <= seconds) & np.isfinite(self.test_score)
        return float(self.test_score[ok].max()) if ok.any() else float("nan")

    def to_dict(self):
        return {"name": self.name, "label": self.label, **{k: _to_list(getattr(self, k)) for k in self.ARRAYS}}

    @classmethod
    def from_dict(cls, d):
        arrays = {k: _from_list(d[k]) for k in cls.ARRAYS}
        for k in ("step", "n_trees"):
            arrays[k] = arrays[k].astype(np.int64)
        return cls(name=d["name"], label=d["label"], **arrays)

    def truncated(self, n):
        return Curve(self.name, self.label, **{k: getattr(self, k)[:n] for k in self.ARRAYS})


@dataclass
class ConvergenceResult:
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

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d):
        curves = {c["name"]: Curve.from_dict(c) for c in d["curves"]}
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   n_outputs=d["n_outputs"], curves=curves, params=d["params"],
                   complete=d["complete"], notes=d["notes"])

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))


@dataclass
class ProjectionSizeResult:
    """gbrt-relabel-rpo with q projections against gbmort (Figures 5-6).

    q_values : the q swept (int array); the arrays below have one entry per q
    score : test score after ``n_steps`` steps
    best_score : best test score over the steps
    fit_time : seconds to fit ``n_steps`` steps
    budget_score : best test score reached within ``time_budget`` seconds
    gbmort_score, gbmort_best_score, gbmort_fit_time, gbmort_budget_score :
        the same for gbmort (NaN if it was not run)
    time_budget : seconds (the given budget, or by default the shortest total
        fit time among all runs, so that every run reaches it)
    curves : the full learning curves ("q=1", ..., "gbmort"), as in
        :class:`ConvergenceResult`
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

    ARRAYS = ("score", "best_score", "fit_time", "budget_score")
    SCALARS = ("gbmort_score", "gbmort_best_score", "gbmort_fit_time", "gbmort_budget_score", "time_budget")

    def convergence(self) -> ConvergenceResult:
        """The curves as a :class:`ConvergenceResult` (to draw score against fit time)."""
        return ConvergenceResult("projection-size", self.dataset, self.task, self.metric, self.n_outputs,
                                 self.curves, self.params, self.complete, self.notes)

    def to_frame(self) -> pd.DataFrame:
        """One row per q, then a row for gbmort (q = NaN, estimator "gbmort")."""
        df = pd.DataFrame({"estimator": f"gbrt-relabel-rpo-{SCHEME_SUFFIX[self.projection]}",
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
                **{k: _to_list(getattr(self, k)) for k in self.ARRAYS},
                **{k: _to_list([getattr(self, k)])[0] for k in self.SCALARS},
                "curves": [c.to_dict() for c in self.curves.values()], "params": self.params,
                "complete": self.complete, "notes": list(self.notes)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d):
        return cls(dataset=d["dataset"], task=d["task"], metric=d["metric"], n_outputs=d["n_outputs"],
                   projection=d["projection"], n_steps=d["n_steps"],
                   q_values=np.array(d["q_values"], dtype=np.int64),
                   **{k: _from_list(d[k]) for k in cls.ARRAYS},
                   **{k: float("nan") if d[k] is None else float(d[k]) for k in cls.SCALARS},
                   curves={c["name"]: Curve.from_dict(c) for c in d["curves"]}, params=d["params"],
                   complete=d["complete"], notes=d["notes"])

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))


# --------------------------------------------------------------------------
# Argument checking
# --------------------------------------------------------------------------


def _real(value, name, low, high=np.inf, low_open=False):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        interval = f"{'(' if low_open else '['}{low}, {high}{']' if np.isfinite(high) else ')'}"
        raise ValueError(f"{name} must be in {interval}, got {value}")
    return float(value)


def _check_callbacks(progress, stop):
    if progress is not None and not callable(progress):
        raise ValueError("progress must be None or a callable progress(fraction_done, message)")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise ValueError("stop must be None or an object with is_set() (e.g. threading.Event)")


def _problem_shape(dataset, n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs, seed):
    """Validate the data arguments; return (task, total outputs) without loading anything."""
    _int(seed, "seed", 0)
    if dataset in FRIEDMAN_PROBLEMS:
        _int(n_train, "n_train", 2)
        _int(n_test, "n_test", 2)
        _int(n_outputs, "n_outputs", 1)
        _real(noise, "noise", 0.0)
        _int(n_noisy_outputs, "n_noisy_outputs", 0)
        if input_distribution not in INPUT_DISTRIBUTIONS:
            raise ValueError(f"input_distribution must be one of {INPUT_DISTRIBUTIONS}, got {input_distribution!r}")
        return "regression", n_outputs + n_noisy_outputs
    shipped = {d["name"]: d for d in list_datasets()}
    if not isinstance(dataset, str) or dataset not in shipped:
        raise ValueError(
            f"dataset must be one of {list(FRIEDMAN_PROBLEMS)} or a shipped data set "
            f"({', '.join(shipped)}), got {dataset!r}")
    if n_noisy_outputs:
        raise ValueError("n_noisy_outputs is only available for the Friedman1 problems")
    meta = shipped[dataset]
    return meta["task"], meta["n_outputs"]


def _check_model_args(task, n_outputs, n_steps, learning_rate, max_leaf_nodes, max_features, loss):
    _int(n_steps, "n_steps", 1)
    _real(learning_rate, "learning_rate", 0.0, 1.0, low_open=True)
    if max_leaf_nodes is not None:
        _int(max_leaf_nodes, "max_leaf_nodes", 2)
    if loss is not None and loss not in LOSSES[task]:
        raise ValueError(f"loss must be None or one of {LOSSES[task]} for a {task} problem, got {loss!r}")
    # max_features: let the estimator check it (it knows the accepted forms).
    probe = make_estimator("gbmort", task=task, max_features=max_features)
    probe._validate_params()


def _check_estimators(estimators, dataset, task):
    if isinstance(estimators, str):
        estimators = [estimators]
    try:
        estimators = list(estimators)
    except TypeError:
        raise ValueError("estimators must be a list of estimator names") from None
    if not estimators:
        raise ValueError("estimators is empty: give at least one estimator name")
    for name in estimators:
        if name not in EXPERIMENT_ESTIMATORS:
            raise ValueError(f"estimators: unknown name {name!r}; valid names are {EXPERIMENT_ESTIMATORS}")
    if len(set(estimators)) != len(estimators):
        raise ValueError(f"estimators lists a name twice: {estimators}")
    if ARTIFICIAL in estimators and dataset not in FRIEDMAN_PROBLEMS:
        raise ValueError(f"estimators: {ARTIFICIAL} knows the output structure of the Friedman1 "
                         f"problems only ({', '.join(FRIEDMAN_PROBLEMS)}), not of {dataset!r}")
    return estimators


def _check_q(name, q, n_outputs):
    config = BOOSTING_CONFIGS[ALIASES.get(name, name)]
    if config.get("strategy") == "projected_relabel":
        try:
            check_projection(config["projection"], q, n_outputs)
        except ValueError as exc:
            raise ValueError(f"n_projections: {exc}") from None


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


def get_problem(dataset, *, n_train=300, n_test=4000, n_outputs=16, noise=1.0,
                input_distribution="uniform", n_noisy_outputs=0, seed=0):
    """A train / test split of a problem: ``(X_train, Y_train, X_test, Y_test, task, info)``.

    dataset : "friedman1-chain", "friedman1-group", "friedman1-ind" or the
        name of a shipped data set (:func:`engine.datasets.list_datasets`).

    Friedman1 problems (section 4.2.1): ``n_train`` training and ``n_test``
    test samples (paper: 300 and 4000, d = 16) drawn independently from two
    generators derived from ``seed``; ``info["bayes_test"]`` holds E[Y | X]
    on the test set.

    Shipped data sets: the standard train / test split when the source ships
    one; otherwise a random split seeded by ``seed`` with 50% of the rows for
    training and 50% for testing. (The paper uses 40% train, 10% validation
    and 50% test; these experiments tune nothing, so the validation part is
    given to training.) ``n_train``, ``n_test``, ``n_outputs``, ``noise`` and
    ``input_distribution`` only apply to the Friedman1 problems.

    ``info``: name, description, n_features, n_outputs, n_train, n_test, split.
    """
    task, _ = _problem_shape(dataset, n_train, n_test, n_outputs, noise, input_distribution,
                             n_noisy_outputs, seed)
    if dataset in FRIEDMAN_PROBLEMS:
        structure = dataset.split("-", 1)[1]
        seeds = np.random.SeedSequence(seed).spawn(2)
        kw = dict(n_outputs=n_outputs, noise=noise, input_distribution=input_distribution,
                  n_noisy_outputs=n_noisy_outputs)
        X_tr, Y_tr, _ = make_friedman1_multioutput(structure, n_samples=n_train,
                                                   random_state=np.random.default_rng(seeds[0]), **kw)
        X_te, Y_te, bayes = make_friedman1_multioutput(structure, n_samples=n_test,
                                                       random_state=np.random.default_rng(seeds[1]), **kw)
        info = {"name": dataset, "n_original_outputs": n_outputs, "bayes_test": bayes,
                "split": f"independent draws: {n_train} train, {n_test} test (seed {seed})",
                "description": (f"{dataset}: {n_outputs} outputs"
                                + (f" + {n_noisy_outputs} purely noisy outputs" if n_noisy_outputs else "")
                                + f", {X_tr.shape[1]} inputs {input_distribution}, noise sd {noise}")}
    else:
        data = load_dataset(dataset)
        if data.test_indices is not None:
            X_tr, Y_tr, X_te, Y_te = data.train_test_split()
            split = "standard train/test split"
        else:
            perm = np.random.default_rng(seed).permutation(data.n_samples)
            half = data.n_samples // 2
            tr, te = np.sort(perm[:half]), np.sort(perm[half:])
            X_tr, Y_tr, X_te, Y_te = data.X[tr], data.Y[tr], data.X[te], data.Y[te]
            split = f"random 50/50 train/test split (seed {seed})"
        info = {"name": dataset, "n_original_outputs": data.n_outputs, "bayes_test": None,
                "split": split, "description": data.description}
    info.update(n_features=int(X_tr.shape[1]), n_outputs=int(Y_tr.shape[1]),
                n_train=int(X_tr.shape[0]), n_test=int(X_te.shape[0]))
    return X_tr, Y_tr, X_te, Y_te, task, info


# --------------------------------------------------------------------------
# Measuring one estimator
# --------------------------------------------------------------------------


class _Stopped(Exception):
    pass


class _Reporter:
    """Maps an estimator's steps to overall progress and checks the stop flag."""

    def __init__(self, progress, stop, n_units):
        self.progress, self.stop, self.n_units = progress, stop, max(n_units, 1)
        self.unit = 0
        self.last = 0.0

    def stopped(self):
        return self.stop is not None and self.stop.is_set()

    def report(self, within, message):
        fraction = min(1.0, max(self.last, (self.unit + min(within, 1.0)) / self.n_units))
        self.last = fraction
        if self.progress is not None:
            self.progress(fraction, message)

    def callback(self, n_total, offset, weight, message):
        def cb(n_done, _estimator):
            self.report(offset + weight * n_done / n_total, f"{message}: step {n_done}/{n_total}")
            return self.stopped()
        return cb


def _macro_r2_from_sse(sse, sst):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
    return 1.0 - ratio.mean(axis=-1)


def fast_lrap(Y_true, Y_score, chunk=None):
    """LRAP (eq. 25) with scikit-learn's conventions, vectorised over samples.

    Equal to ``sklearn.metrics.label_ranking_average_precision_score`` (ties
    count as ranked above; a sample with no true label or with every label
    true scores 1), but about 100 times faster: the experiments score
    dozens of staged models.
    """
    R = np.asarray(Y_true) > 0
    S = np.asarray(Y_score, dtype=np.float64)
    n, d = S.shape
    chunk = chunk or max(1, int(4_000_000 // max(d * d, 1)))
    total = 0.0
    for a in range(0, n, chunk):
        r, s = R[a:a + chunk], S[a:a + chunk]
        above = s[:, None, :] >= s[:, :, None]           # [i, j, k]: s_k >= s_j
        rank = above.sum(axis=2)
        hits = np.einsum("ijk,ik->ij", above, r.astype(np.float64))
        n_rel = r.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            per = np.where(r, hits / rank, 0.0).sum(axis=1) / n_rel
        trivial = (n_rel == 0) | (n_rel == d)
        total += np.where(trivial, 1.0, per).sum()
    return float(total / n)


def _eval_points(n_steps, n_points=N_EVAL_POINTS):
    return np.unique(np.round(np.geomspace(1, n_steps, min(n_points, n_steps))).astype(int))


def _staged_lrap(est, X, Y, points, reporter, offset, weight, message):
    """LRAP at the (1-based) steps in ``points``; NaN elsewhere. Stops early if asked."""
    out = np.full(est.n_steps_, np.nan)
    wanted = set(int(p) for p in points)
    last = int(points[-1]) if len(points) else 0
    for m, F in enumerate(est.staged_decision_function(X), start=1):
        if m in wanted:
            out[m - 1] = fast_lrap(Y, F)
            reporter.report(offset + weight * m / max(last, 1), f"{message}: LRAP at step {m}")
            if reporter.stopped():
                break
        if m >= last:
            break
    return out


def _copied_sse(est, X, Y, chunk=256):
    """Per-step SSE of each column of Y when one staged 1-D prediction is copied to all of them."""
    y2 = (Y ** 2).sum(axis=0)
    rows, buf = [], []
    for f in est.staged_predict(X):
        buf.append(f)
        if len(buf) == chunk:
            S = np.asarray(buf)
            rows.append(y2 - 2.0 * S @ Y + (S * S).sum(axis=1)[:, None])
            buf = []
    if buf:
        S = np.asarray(buf)
        rows.append(y2 - 2.0 * S @ Y + (S * S).sum(axis=1)[:, None])
    return np.vstack(rows) if rows else np.zeros((0, Y.shape[1]))


def _fit(est, X, Y, n, reporter, offset, weight, message, eval_set=None):
    est.set_params(n_estimators=n)
    est.fit(X, Y, eval_set=eval_set, callback=reporter.callback(n, offset, weight, message))
    return est


def _measure(name, problem, model_kwargs, n_steps, seed, reporter, label):
    """Fit one estimator (all passes) and return its :class:`Curve` (maybe shortened by stop)."""
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    d = Y_tr.shape[1]
    d0 = info["n_original_outputs"]
    msg = f"{label}"
    artificial = name == ARTIFICIAL
    structure = info["name"].split("-", 1)[1] if artificial else None

    def make(est_name, **extra):
        kw = dict(model_kwargs)
        if BOOSTING_CONFIGS[ALIASES.get(est_name, est_name)]["strategy"] != "projected_relabel":
            kw.pop("n_projections", None)
        return make_estimator(est_name, task=task, random_state=seed, **kw, **extra)

    if artificial and structure in ("chain", "group"):
        # One single-target model on the output the oracle knows is best, copied to the d0
        # real outputs; a purely noisy output is predicted by its training mean.
        kw = {k: v for k, v in model_kwargs.items() if k != "n_projections"}
        model = ArtificialGBRT(structure, d0, task=task, random_state=seed, n_estimators=n_steps, **kw)
        model.fit(X_tr, Y_tr, callback=reporter.callback(n_steps, 0.0, 0.5, f"{msg} (fit)"))
        est = model.inner_
        k = est.n_steps_
        fit_time, train_loss = est.fit_times_.copy(), est.train_score_.copy()
        scores = []
        for w, (X, Y) in zip((0.3, 0.2), ((X_te, Y_te), (X_tr, Y_tr))):
            if reporter.stopped():
                scores.append(np.full(k, np.nan))
                continue
            sse = _copied_sse(est, X, Y[:, :d0])
            const = Y_tr[:, d0:].mean(axis=0)
            sse_noise = ((Y[:, d0:] - const) ** 2).sum(axis=0)
            sse = np.hstack([sse, np.tile(sse_noise, (k, 1))])
            scores.append(_macro_r2_from_sse(sse, ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)))
            reporter.report(0.5 + w, f"{msg}: scored")
        test, train = scores
        n_trees = np.arange(1, k + 1)
    else:
        est_name = "st-gbrt" if artificial else name
        single = artificial or BOOSTING_CONFIGS[ALIASES.get(name, name)]["strategy"] == "single_target"
        # artificial-gbrt on ind is st-gbrt on the real outputs (noisy ones: training mean).
        Ytr_fit, Yte_fit = (Y_tr[:, :d0], Y_te[:, :d0]) if artificial else (Y_tr, Y_te)
        d_fit = Ytr_fit.shape[1]
        est = make(est_name)
        if task == "regression":
            w1, w2 = _PASS_WEIGHTS
            _fit(est, X_tr, Ytr_fit, n_steps, reporter, 0.0, w1, f"{msg} (test curve)", eval_set=(X_te, Yte_fit))
            k = est.n_steps_
            test, train_loss = est.eval_score_.copy(), est.train_score_.copy()
            fit_time, train = est.fit_times_.copy(), np.full(k, np.nan)
            if not reporter.stopped():
                tr = _fit(make(est_name), X_tr, Ytr_fit, k, reporter, w1, w2, f"{msg} (train curve)",
                          eval_set=(X_tr, Ytr_fit))
                train[: tr.n_steps_] = tr.eval_score_
            if artificial and d > d0:
                const = Y_tr[:, d0:].mean(axis=0)
                r2n = {}
                for key, Y in (("test", Y_te), ("train", Y_tr)):
                    sst = ((Y[:, d0:] - Y[:, d0:].mean(axis=0)) ** 2).sum(axis=0)
                    r2n[key] = _macro_r2_from_sse(((Y[:, d0:] - const) ** 2).sum(axis=0), sst)
                test = (d0 * test + (d - d0) * r2n["test"]) / d
                train = (d0 * train + (d - d0) * r2n["train"]) / d
        else:
            _fit(est, X_tr, Ytr_fit, n_steps, reporter, 0.0, 0.5, f"{msg} (fit)")
            k = est.n_steps_
            fit_time, train_loss = est.fit_times_.copy(), est.train_score_.copy()
            points = _eval_points(k)
            test = train = np.full(k, np.nan)
            if not reporter.stopped():
                test = _staged_lrap(est, X_te, Y_te, points, reporter, 0.5, 0.3, f"{msg} (test)")
            if not reporter.stopped():
                train = _staged_lrap(est, X_tr, Y_tr, points, reporter, 0.8, 0.2, f"{msg} (train)")
        n_trees = np.arange(1, k + 1) * (d_fit if single else 1)
    step = np.arange(1, k + 1)
    return Curve(name=name, label=label, step=step, n_trees=n_trees.astype(np.int64),
                 trees_per_output=n_trees / d, fit_time=np.asarray(fit_time, dtype=float),
                 train_score=np.asarray(train, dtype=float), test_score=np.asarray(test, dtype=float),
                 train_loss=np.asarray(train_loss, dtype=float))


def _notes(task, n_steps):
    if task == "regression":
        return ["Test and train macro-r2 after every step (eval_set inside the compiled loop); fit "
                "times exclude that scoring."]
    return [f"LRAP evaluated with staged_decision_function at {len(_eval_points(n_steps))} log-spaced "
            "steps (first and last included), NaN at the other steps; fit times from the same fit "
            "(no evaluation set)."]


def _run_curves(experiment, dataset, names_labels, problem, model_kwargs, n_steps, seed, params,
                progress, stop):
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    reporter = _Reporter(progress, stop, len(names_labels))
    curves = {}
    complete = True
    for i, (name, label) in enumerate(names_labels):
        reporter.unit = i
        if reporter.stopped():
            complete = False
            break
        if (name == ARTIFICIAL and info["name"] == "friedman1-ind" and "st-gbrt" in curves
                and Y_tr.shape[1] == info["n_original_outputs"]):
            # On ind the oracle is st-gbrt itself: same model, same seed, same curves.
            curve = Curve(ARTIFICIAL, label, **{k: curves["st-gbrt"].__dict__[k].copy() for k in Curve.ARRAYS})
        else:
            curve = _measure(name, problem, model_kwargs, n_steps, seed, reporter, label)
        if curve.n_steps:
            curves[name] = curve
        if reporter.stopped():
            complete = False
            break
    if progress is not None:
        progress(1.0 if complete else reporter.last, "done" if complete else "stopped")
    return ConvergenceResult(experiment=experiment, dataset=dataset, task=task, metric=METRICS[task],
                             n_outputs=int(Y_tr.shape[1]), curves=curves, params=params,
                             complete=complete, notes=_notes(task, n_steps) + [info["split"]])


# --------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------


def _data_kwargs(n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs):
    return dict(n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs)


def run_convergence(dataset, estimators, *, n_steps, learning_rate=0.1, max_leaf_nodes=2,
                    max_features=None, loss=None, n_projections=1, seed=0,
                    n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                    n_noisy_outputs=0, progress=None, stop=None) -> ConvergenceResult:
    """Learning curves of several estimators on one problem (paper Figure 1).

    estimators : names from ``ESTIMATOR_NAMES`` (or "br-gbrt") plus
        "artificial-gbrt" (Friedman1 problems only): chain -> one single-target
        model of output 1, copied to all outputs; group -> one model of the
        mean output, copied; ind -> st-gbrt.
    n_steps : boosting steps for every estimator. For st-gbrt (and
        artificial-gbrt on ind) a step fits one tree per output, so it gets d
        times more trees: compare on ``trees_per_output`` or ``fit_time``.
    n_projections : q of the gbrt-relabel-rpo estimators (others ignore it).
    Data arguments: see :func:`get_problem`. Model arguments: as in
    :func:`engine.make_estimator`; ``loss=None`` is the square loss
    (regression) or the logistic loss (multi-label). Every estimator is seeded
    with ``seed``.

    Returns a :class:`ConvergenceResult`.
    """
    data_kw = _data_kwargs(n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs)
    task, d = _problem_shape(dataset, seed=seed, **data_kw)
    estimators = _check_estimators(estimators, dataset, task)
    _check_model_args(task, d, n_steps, learning_rate, max_leaf_nodes, max_features, loss)
    _int(n_projections, "n_projections", 1)
    for name in estimators:
        if name != ARTIFICIAL:
            _check_q(name, n_projections, d)
    _check_callbacks(progress, stop)

    model_kwargs = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                        max_features=max_features, n_projections=n_projections)
    if loss is not None:
        model_kwargs["loss"] = loss
    params = dict(estimators=estimators, n_steps=n_steps, seed=seed, loss=loss, **data_kw,
                  **{k: v for k, v in model_kwargs.items()})
    problem = get_problem(dataset, seed=seed, **data_kw)
    return _run_curves("convergence", dataset, [(e, e) for e in estimators], problem, model_kwargs,
                       n_steps, seed, params, progress, stop)


def run_projection_schemes(dataset, *, schemes=("subsample", "gaussian", "achlioptas", "sparse"),
                           strategy="projected", n_steps, n_projections=1, learning_rate=0.1,
                           max_leaf_nodes=2, max_features=None, loss=None, seed=0,
                           n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                           n_noisy_outputs=0, progress=None, stop=None) -> ConvergenceResult:
    """Learning curves of gbrt-rpo (``strategy="projected"``, Algorithm 3) or
    gbrt-relabel-rpo (``"projected_relabel"``, Algorithm 4, with q =
    ``n_projections``) for each random projection scheme (paper Figures 2-4).

    Returns a :class:`ConvergenceResult` with ``experiment="schemes"``; its
    curves are keyed by estimator name (e.g. "gbrt-rpo-gaussian") and labelled
    by scheme.
    """
    data_kw = _data_kwargs(n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs)
    task, d = _problem_shape(dataset, seed=seed, **data_kw)
    if isinstance(schemes, str):
        schemes = [schemes]
    schemes = list(schemes)
    if not schemes:
        raise ValueError("schemes is empty: give at least one projection scheme")
    for s in schemes:
        if s not in PROJECTIONS:
            raise ValueError(f"schemes: unknown scheme {s!r}; valid ones are {PROJECTIONS}")
    if len(set(schemes)) != len(schemes):
        raise ValueError(f"schemes lists a scheme twice: {schemes}")
    if strategy not in ("projected", "projected_relabel"):
        raise ValueError(f"strategy must be 'projected' or 'projected_relabel', got {strategy!r}")
    _check_model_args(task, d, n_steps, learning_rate, max_leaf_nodes, max_features, loss)
    q = _int(n_projections, "n_projections", 1)
    if strategy == "projected" and q != 1:
        raise ValueError("n_projections must be 1 for strategy='projected' (Algorithm 3); "
                         "use strategy='projected_relabel' for q > 1")
    for s in schemes:
        try:
            check_projection(s, q, d)
        except ValueError as exc:
            raise ValueError(f"n_projections: {exc}") from None
    _check_callbacks(progress, stop)

    prefix = "gbrt-rpo" if strategy == "projected" else "gbrt-relabel-rpo"
    names_labels = [(f"{prefix}-{SCHEME_SUFFIX[s]}", s) for s in schemes]
    model_kwargs = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                        max_features=max_features, n_projections=q)
    if loss is not None:
        model_kwargs["loss"] = loss
    params = dict(schemes=schemes, strategy=strategy, n_steps=n_steps, seed=seed, loss=loss,
                  **data_kw, **model_kwargs)
    problem = get_problem(dataset, seed=seed, **data_kw)
    return _run_curves("schemes", dataset, names_labels, problem, model_kwargs, n_steps, seed, params,
                       progress, stop)


def run_projection_size(dataset, *, q_values, projection="gaussian", n_steps, time_budget=None,
                        include_gbmort=True, learning_rate=0.1, max_leaf_nodes=2, max_features=None,
                        loss=None, seed=0, n_train=300, n_test=4000, n_outputs=16, noise=1.0,
                        input_distribution="uniform", n_noisy_outputs=0, progress=None,
                        stop=None) -> ProjectionSizeResult:
    """gbrt-relabel-rpo (Algorithm 4) with each q in ``q_values`` random
    projections of the given scheme, and gbmort (Algorithm 2, the q -> infinity
    limit) as the reference (paper Figures 5-6).

    For each q: the test score after ``n_steps`` steps and the fit time
    (Figure 6), the best score reached within ``time_budget`` seconds of
    fitting (Figure 5 read at one time; default: the shortest total fit time
    among the runs) and the full learning curves.

    Returns a :class:`ProjectionSizeResult`.
    """
    data_kw = _data_kwargs(n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs)
    task, d = _problem_shape(dataset, seed=seed, **data_kw)
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {projection!r}")
    try:
        q_values = [int(_int(q, "q_values", 1)) for q in q_values]
    except TypeError:
        raise ValueError("q_values must be a list of integers") from None
    if not q_values:
        raise ValueError("q_values is empty: give at least one number of projections q")
    if len(set(q_values)) != len(q_values):
        raise ValueError(f"q_values lists a value twice: {q_values}")
    for q in q_values:
        try:
            check_projection(projection, q, d)
        except ValueError as exc:
            raise ValueError(f"q_values: {exc}") from None
    if time_budget is not None:
        _real(time_budget, "time_budget", 0.0, low_open=True)
    _check_model_args(task, d, n_steps, learning_rate, max_leaf_nodes, max_features, loss)
    _check_callbacks(progress, stop)

    name = f"gbrt-relabel-rpo-{SCHEME_SUFFIX[projection]}"
    base = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_features=max_features)
    if loss is not None:
        base["loss"] = loss
    params = dict(q_values=q_values, projection=projection, n_steps=n_steps, time_budget=time_budget,
                  include_gbmort=include_gbmort, seed=seed, loss=loss, **data_kw,
                  **{k: v for k, v in base.items() if k != "loss"})
    problem = get_problem(dataset, seed=seed, **data_kw)
    runs = [(name, f"q={q}", q) for q in q_values] + ([("gbmort", "gbmort", 1)] if include_gbmort else [])
    reporter = _Reporter(progress, stop, len(runs))
    curves, complete = {}, True
    for i, (est_name, label, q) in enumerate(runs):
        reporter.unit = i
        if reporter.stopped():
            complete = False
            break
        curve = _measure(est_name, problem, {**base, "n_projections": q}, n_steps, seed, reporter, label)
        if curve.n_steps:
            curves[label] = curve
        if reporter.stopped():
            complete = False
            break
    if progress is not None:
        progress(1.0 if complete else reporter.last, "done" if complete else "stopped")

    totals = [c.fit_time[-1] for c in curves.values() if np.isfinite(c.fit_time[-1])]
    budget = float(time_budget) if time_budget is not None else (float(min(totals)) if totals else float("nan"))

    def stats(c):
        if c is None:
            return (np.nan,) * 4
        final = c.test_score[-1] if c.n_steps == n_steps else np.nan
        return final, c.best_score, c.fit_time[-1] if c.n_steps == n_steps else np.nan, c.score_within(budget)

    rows = np.array([stats(curves.get(f"q={q}")) for q in q_values], dtype=float).reshape(len(q_values), 4)
    g = stats(curves.get("gbmort"))
    notes = _notes(task, n_steps) + [problem[5]["split"],
                                     f"time budget {budget:.4g} s" + (" (shortest total fit time)" if time_budget is None else "")]
    return ProjectionSizeResult(
        dataset=dataset, task=task, metric=METRICS[task], n_outputs=d, projection=projection,
        n_steps=n_steps, q_values=np.array(q_values, dtype=np.int64), score=rows[:, 0],
        best_score=rows[:, 1], fit_time=rows[:, 2], budget_score=rows[:, 3],
        gbmort_score=float(g[0]), gbmort_best_score=float(g[1]), gbmort_fit_time=float(g[2]),
        gbmort_budget_score=float(g[3]), time_budget=budget, curves=curves, params=params,
        complete=complete, notes=notes)
