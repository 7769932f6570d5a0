"""Random forests on randomly projected outputs: the experiments of paper 003.

Joly, Geurts & Wehenkel (2014), "Random forests with random projections of the
output space for high dimensional multi-label classification" (ECML). Plain
function calls, same conventions as :mod:`engine.experiments`: plain
arguments, every argument validated before any work (``ValueError`` naming
it), ``progress(fraction_done, message)`` called after every fit, ``stop``
(anything with ``is_set()``) checked before every fit (then the result holds
what is done and ``complete=False``), same arguments and seed -> same scores
(fit times aside).

* :func:`run_forest_projection_size` (Figure 1): score and fit time against q
  for a single projected tree, Algorithm 1 (one projection shared by all
  trees) and Algorithm 2 (a new projection per tree); the unprojected tree and
  forest (mo-rf) are the references.
* :func:`run_forest_randomization` (Figure 2, section 4.4): input
  randomization (max_features = k) against output randomization (q).
* :func:`run_forest_schemes` (Figure 3, section 4.5): Algorithm 2 with each
  projection scheme (Gaussian, Rademacher / Achlioptas, sparse Rademacher,
  output sub-sampling) against q.
* :func:`run_forest_bias_variance` (section 3.3, Appendix C): the algorithm
  variance of a projected tree split into a projection term and a
  tree-randomization term, and the variances of Algorithms 1 and 2.
* :func:`run_forest_table1` / :func:`reproduce_forest_table1` (Table 1): LRAP
  of mo-rf and of Algorithm 2 with Gaussian projections on the shipped
  multi-label data sets of Table 1.

Scores. Multi-label: LRAP (eq. 6 of paper 003) of ``predict_proba``; as in
the paper (section 4.1), test samples without any relevant label are
discarded first. Regression: macro-r2. Data: :func:`engine.experiments.get_problem`
(Friedman1 problems, or a shipped data set with its standard split when it has
one, else a seeded 50/50 split).

Sweep results (:class:`ForestSweepResult`) are long tables of records, one
per fit: ``series`` (e.g. "Algorithm 2 (per tree)"), ``x`` (q or k; NaN for a
reference that does not depend on x), ``repeat``, ``score``, ``fit_time``.
``summary_frame()`` averages the repeats (mean, std) per series and x.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engine.datasets import FRIEDMAN_STRUCTURES, make_friedman1_multioutput
from engine.experiments import (
    METRICS,
    _check_callbacks,
    _int,
    _problem_shape,
    _real,
    fast_lrap,
    get_problem,
)
from engine.forest import ProjectedForestClassifier, ProjectedForestRegressor, resolve_n_components
from engine.projections import PROJECTIONS, check_projection

__all__ = [
    "ForestSweepResult",
    "ForestBiasVarianceResult",
    "TABLE1_DATASETS",
    "Table1Result",
    "run_forest_projection_size",
    "run_forest_randomization",
    "run_forest_schemes",
    "run_forest_bias_variance",
    "run_forest_table1",
    "reproduce_forest_table1",
    "score_predictions",
]

SINGLE_TREE = "single projected tree"
SHARED = "Algorithm 1 (shared projection)"
PER_TREE = "Algorithm 2 (projection per tree)"
TREE_REF = "single tree, original outputs"
FOREST_REF = "mo-rf (original outputs)"
SCHEME_LABELS = {"gaussian": "Gaussian", "achlioptas": "Rademacher (s = 3)",
                 "sparse": "sparse Rademacher (s = √d)", "subsample": "output sub-sampling"}
DATA_KEYS = ("n_train", "n_test", "n_outputs", "noise", "input_distribution", "n_noisy_outputs")


# --------------------------------------------------------------------------
# Scores and fitting
# --------------------------------------------------------------------------


def score_predictions(task, Y_true, P):
    """LRAP (multi-label; samples without a relevant label dropped, as in paper 003) or macro-r2."""
    Y_true = np.asarray(Y_true)
    if task == "multilabel":
        keep = Y_true.sum(axis=1) > 0
        if not keep.any():
            return float("nan")
        return fast_lrap(Y_true[keep], np.asarray(P)[keep])
    sst = ((Y_true - Y_true.mean(axis=0)) ** 2).sum(axis=0)
    sse = ((Y_true - P) ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
    return float(1.0 - ratio.mean())


def _forest(task, **params):
    cls = ProjectedForestClassifier if task == "multilabel" else ProjectedForestRegressor
    return cls(**params)


def _predict(est, task, X):
    return est.predict_proba(X) if task == "multilabel" else est.predict(X)


def _fit_score(task, params, problem):
    X_tr, Y_tr, X_te, Y_te = problem[:4]
    est = _forest(task, **params)
    t0 = time.perf_counter()
    est.fit(X_tr, Y_tr)
    fit_time = time.perf_counter() - t0
    return score_predictions(task, Y_te, _predict(est, task, X_te)), fit_time


class _Runner:
    """Runs a list of planned fits in order, with progress, stop and records."""

    def __init__(self, progress, stop, n_fits):
        self.progress, self.stop, self.n = progress, stop, max(n_fits, 1)
        self.done, self.records, self.complete = 0, [], True

    def stopped(self):
        return self.stop is not None and self.stop.is_set()

    def run(self, plan, task, problem):
        for series, x, repeat, params in plan:
            if self.stopped():
                self.complete = False
                break
            score, fit_time = _fit_score(task, params, problem)
            self.records.append({"series": series, "x": float("nan") if x is None else float(x),
                                 "repeat": int(repeat), "score": float(score), "fit_time": float(fit_time)})
            self.done += 1
            if self.progress is not None:
                xs = "" if x is None else f", x = {x:g}"
                self.progress(self.done / self.n, f"{series}{xs} (repeat {repeat + 1}): {self.done}/{self.n} fits")
        if self.progress is not None:
            self.progress(1.0 if self.complete else self.done / self.n, "done" if self.complete else "stopped")


# --------------------------------------------------------------------------
# Result of the sweeps
# --------------------------------------------------------------------------


def _nan_list(values):
    return [None if not np.isfinite(v) else float(v) for v in np.asarray(values, dtype=float).ravel()]


@dataclass
class ForestSweepResult:
    """Scores of several forest series over one swept parameter.

    experiment : "projection-size", "randomization" or "schemes"
    x_name : "q" (projected dimension) or "max_features" (k, features drawn per node)
    records : one dict per fit: series, x (NaN for an x-independent reference),
        repeat, score, fit_time (seconds)
    series : series names in drawing order; references (x = NaN) drawn as lines
    """

    experiment: str
    dataset: str
    task: str
    metric: str
    n_outputs: int
    n_features: int
    x_name: str
    series: list
    records: list
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        cols = ["series", "x", "repeat", "score", "fit_time"]
        df = pd.DataFrame(self.records, columns=cols)
        df = df.rename(columns={"x": self.x_name})
        df.insert(0, "dataset", self.dataset)
        df.insert(1, "experiment", self.experiment)
        return df

    def summary_frame(self) -> pd.DataFrame:
        """Mean and std (over repeats) of score and fit time per series and x."""
        df = pd.DataFrame(self.records, columns=["series", "x", "repeat", "score", "fit_time"])
        if df.empty:
            return pd.DataFrame(columns=["series", self.x_name, "score", "score_std", "fit_time", "n_repeats"])
        df["x"] = df["x"].fillna(-1.0)  # groupby drops NaN keys
        g = df.groupby(["series", "x"], sort=False)
        out = g.agg(score=("score", "mean"), score_std=("score", lambda s: float(np.std(s))),
                    fit_time=("fit_time", "mean"), n_repeats=("score", "size")).reset_index()
        out["x"] = out["x"].where(out["x"] >= 0, np.nan)
        order = {s: i for i, s in enumerate(self.series)}
        out["_o"] = out["series"].map(order)
        out = out.sort_values(["_o", "x"]).drop(columns="_o").reset_index(drop=True)
        return out.rename(columns={"x": self.x_name})

    def curve(self, series):
        """(x, mean score, std, mean fit time) arrays of one series, sorted by x."""
        s = self.summary_frame()
        s = s[s["series"] == series]
        return (s[self.x_name].to_numpy(float), s["score"].to_numpy(float),
                s["score_std"].to_numpy(float), s["fit_time"].to_numpy(float))

    def to_dict(self):
        return {"experiment": self.experiment, "dataset": self.dataset, "task": self.task,
                "metric": self.metric, "n_outputs": self.n_outputs, "n_features": self.n_features,
                "x_name": self.x_name, "series": list(self.series),
                "records": [{**r, "x": _nan_list([r["x"]])[0], "score": _nan_list([r["score"]])[0]}
                            for r in self.records],
                "params": self.params, "complete": self.complete, "notes": list(self.notes)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d):
        recs = [{**r, "x": np.nan if r["x"] is None else float(r["x"]),
                 "score": np.nan if r["score"] is None else float(r["score"])} for r in d["records"]]
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   n_outputs=d["n_outputs"], n_features=d["n_features"], x_name=d["x_name"],
                   series=list(d["series"]), records=recs, params=d["params"], complete=d["complete"],
                   notes=list(d["notes"]))

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))


# --------------------------------------------------------------------------
# Argument checking
# --------------------------------------------------------------------------


def _data(dataset, seed, data_kw):
    """Validate the data arguments; (task, d, n_features) without loading a shipped set's arrays twice."""
    task, d = _problem_shape(dataset, seed=seed, **data_kw)
    return task, d


def _int_list(values, name, minimum=1):
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        values = [values]
    try:
        values = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a list of integers") from None
    if not values:
        raise ValueError(f"{name} is empty: give at least one value")
    out = [_int(v, name, minimum) for v in values]
    if len(set(out)) != len(out):
        raise ValueError(f"{name} lists a value twice: {out}")
    return sorted(out)


def _q_list(q_values, projection, d, name="q_values", skip_too_large=False):
    """Integers >= 1; "log" -> round(ln d). With sub-sampling, q > d is an error (or skipped)."""
    if isinstance(q_values, (str, bytes)) or np.isscalar(q_values):
        q_values = [q_values]
    try:
        raw = list(q_values)
    except TypeError:
        raise ValueError(f"{name} must be a list of integers (or 'log')") from None
    if not raw:
        raise ValueError(f"{name} is empty: give at least one projected dimension q")
    plain = [q for q in raw if not isinstance(q, str)]
    if len(plain) != len(set(plain)):
        raise ValueError(f"{name} lists a value twice: {raw}")
    qs = []
    for q in raw:
        if isinstance(q, str) and q == "log":
            q = resolve_n_components("log", d)
        qs.append(_int(q, name, 1))
    qs = sorted(set(qs))
    if projection is not None and not skip_too_large:
        for q in qs:
            try:
                check_projection(projection, q, d)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
    return qs


def _common(n_estimators, n_repeats, max_features, n_jobs, task):
    _int(n_estimators, "n_estimators", 1)
    _int(n_repeats, "n_repeats", 1)
    if n_jobs is not None:
        _int(n_jobs, "n_jobs", -1)
        if n_jobs == 0:
            raise ValueError("n_jobs must be None, -1 or >= 1, got 0")
    try:
        _forest(task, max_features=max_features)._validate_params()
    except ValueError as exc:
        raise ValueError(str(exc)) from None


def _repeat_seeds(seed, n_repeats):
    """One random_state per repeat; every series of a repeat uses it (common random numbers)."""
    return [int(s) for s in np.random.default_rng(seed).integers(0, 2**31 - 1, size=n_repeats)]


def _default_max_features(task, max_features):
    if max_features is not None:
        return max_features
    return "sqrt" if task == "multilabel" else 1.0


def _base_notes(task, info, n_estimators, n_repeats, max_features):
    scoring = ("LRAP of predict_proba on the test set, samples without any relevant label dropped "
               "(paper 003, section 4.1)" if task == "multilabel" else "macro-r2 on the test set")
    return [f"{scoring}; {info['split']}.",
            f"{n_estimators} trees per forest, bootstrap, best splits over max_features = {max_features!r}; "
            f"{n_repeats} repeat(s), each with its own seed shared by every series (mean shown).",
            "Fit times are wall-clock seconds of fit() on this machine (predictions not included)."]


# --------------------------------------------------------------------------
# Figure 1: projection size
# --------------------------------------------------------------------------


def run_forest_projection_size(dataset="emotions", *, q_values=(1, 2, 4), projection="gaussian",
                               n_estimators=10, max_features=None, include_single_tree=True,
                               include_shared=True, include_reference=True, n_repeats=1, seed=0,
                               n_jobs=1, n_train=300, n_test=1000, n_outputs=16, noise=1.0,
                               input_distribution="uniform", n_noisy_outputs=0, progress=None,
                               stop=None) -> ForestSweepResult:
    """Score and fit time against q (paper 003, Figure 1).

    Series: "single projected tree" (one CART tree, no bootstrap, all
    features, grown on q projected outputs), "Algorithm 1 (shared
    projection)" and "Algorithm 2 (projection per tree)" (forests of
    ``n_estimators`` trees); references at every q: the single tree and mo-rf
    grown on the original outputs. q values may include "log" (round(ln d)).
    """
    data_kw = dict(n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                   input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs)
    task, d = _data(dataset, seed, data_kw)
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {projection!r}")
    qs = _q_list(q_values, projection, d)
    _common(n_estimators, n_repeats, max_features, n_jobs, task)
    _check_callbacks(progress, stop)

    mf = _default_max_features(task, max_features)
    problem = get_problem(dataset, seed=seed, **data_kw)
    info = problem[5]
    tree = dict(n_estimators=1, bootstrap=False, max_features=1.0, n_jobs=1)
    forest = dict(n_estimators=n_estimators, max_features=mf, n_jobs=n_jobs)
    proj = dict(projection=projection)
    plan = []
    for r, rs in enumerate(_repeat_seeds(seed, n_repeats)):
        if include_reference:
            if include_single_tree:
                plan.append((TREE_REF, None, r, {**tree, "random_state": rs}))
            plan.append((FOREST_REF, None, r, {**forest, "random_state": rs}))
        for q in qs:
            if include_single_tree:
                plan.append((SINGLE_TREE, q, r, {**tree, **proj, "n_components": q, "random_state": rs}))
            if include_shared:
                plan.append((SHARED, q, r, {**forest, **proj, "n_components": q,
                                            "projection_per_tree": False, "random_state": rs}))
            plan.append((PER_TREE, q, r, {**forest, **proj, "n_components": q, "random_state": rs}))
    series = [s for s in (SINGLE_TREE, SHARED, PER_TREE, TREE_REF, FOREST_REF) if any(p[0] == s for p in plan)]
    runner = _Runner(progress, stop, len(plan))
    runner.run(plan, task, problem)
    params = dict(dataset=dataset, q_values=qs, projection=projection, n_estimators=n_estimators,
                  max_features=mf, include_single_tree=include_single_tree, include_shared=include_shared,
                  include_reference=include_reference, n_repeats=n_repeats, seed=seed, **data_kw)
    notes = _base_notes(task, info, n_estimators, n_repeats, mf) + [
        "Single trees: one fully grown CART tree (no bootstrap, all features)."]
    return ForestSweepResult("projection-size", dataset, task, METRICS[task], d, info["n_features"], "q",
                             series, runner.records, params, runner.complete, notes)


# --------------------------------------------------------------------------
# Figure 2: input vs output randomization
# --------------------------------------------------------------------------


def _resolve_k(values, p):
    """max_features values -> distinct integers k in [1, p] (fractions are of p)."""
    if values is None:
        grid = np.unique(np.round(np.geomspace(1, p, min(p, 6))).astype(int))
        return [int(k) for k in grid]
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        values = [values]
    try:
        values = list(values)
    except TypeError:
        raise ValueError("max_features_values must be a list of integers k or fractions of p") from None
    if not values:
        raise ValueError("max_features_values is empty: give at least one value")
    ks = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"max_features_values must hold integers k >= 1 or fractions in (0, 1], got {v!r}")
        if isinstance(v, (int, np.integer)):
            if v < 1 or v > p:
                raise ValueError(f"max_features_values: k must be in [1, {p}] (the number of features), got {v}")
            ks.append(int(v))
        else:
            if not 0.0 < v <= 1.0:
                raise ValueError(f"max_features_values: a fraction of the features must be in (0, 1], got {v}")
            ks.append(max(1, int(round(v * p))))
    return sorted(set(ks))


def run_forest_randomization(dataset="emotions", *, max_features_values=None, q_values=(1, 2),
                             projection="gaussian", n_estimators=10, include_reference=True, n_repeats=1,
                             seed=0, n_jobs=1, n_train=300, n_test=1000, n_outputs=16, noise=1.0,
                             input_distribution="uniform", n_noisy_outputs=0, progress=None,
                             stop=None) -> ForestSweepResult:
    """Score against max_features k for a few q (paper 003, Figure 2, section 4.4).

    One series per q ("q = 1", ...): Algorithm 2 (a projection per tree) with
    ``projection``; "mo-rf (original outputs)" is the unprojected forest at the
    same k. Small k = strong input randomization, small q = strong output
    randomization. ``max_features_values``: integers k in [1, p] or fractions
    of p (default: about 6 log-spaced k from 1 to p).
    """
    data_kw = dict(n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                   input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs)
    task, d = _data(dataset, seed, data_kw)
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {projection!r}")
    qs = _q_list(q_values, projection, d)
    _common(n_estimators, n_repeats, None, n_jobs, task)
    _check_callbacks(progress, stop)
    problem = get_problem(dataset, seed=seed, **data_kw)
    info = problem[5]
    p = info["n_features"]
    ks = _resolve_k(max_features_values, p)

    forest = dict(n_estimators=n_estimators, n_jobs=n_jobs)
    plan = []
    for r, rs in enumerate(_repeat_seeds(seed, n_repeats)):
        for k in ks:
            if include_reference:
                plan.append((FOREST_REF, k, r, {**forest, "max_features": k, "random_state": rs}))
            for q in qs:
                plan.append((f"q = {q}", k, r, {**forest, "max_features": k, "projection": projection,
                                                "n_components": q, "random_state": rs}))
    series = [f"q = {q}" for q in qs] + ([FOREST_REF] if include_reference else [])
    runner = _Runner(progress, stop, len(plan))
    runner.run(plan, task, problem)
    params = dict(dataset=dataset, max_features_values=ks, q_values=qs, projection=projection,
                  n_estimators=n_estimators, include_reference=include_reference, n_repeats=n_repeats,
                  seed=seed, **data_kw)
    notes = _base_notes(task, info, n_estimators, n_repeats, "k (the x axis)") + [
        f"Output randomization: Algorithm 2 with {SCHEME_LABELS[projection]} projections of size q."]
    return ForestSweepResult("randomization", dataset, task, METRICS[task], d, p, "max_features",
                             series, runner.records, params, runner.complete, notes)


# --------------------------------------------------------------------------
# Figure 3: projection schemes
# --------------------------------------------------------------------------


def run_forest_schemes(dataset="emotions", *, schemes=("gaussian", "achlioptas", "sparse", "subsample"),
                       q_values=(1, 2, 4), n_estimators=10, max_features=None, include_reference=True,
                       n_repeats=1, seed=0, n_jobs=1, n_train=300, n_test=1000, n_outputs=16, noise=1.0,
                       input_distribution="uniform", n_noisy_outputs=0, progress=None,
                       stop=None) -> ForestSweepResult:
    """Algorithm 2 with each projection scheme against q (paper 003, Figure 3).

    One series per scheme (labelled as in ``SCHEME_LABELS``); mo-rf on the
    original outputs is the reference. Output sub-sampling cannot draw more
    than d outputs: its q > d points are left out (said in ``notes``).
    """
    data_kw = dict(n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                   input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs)
    task, d = _data(dataset, seed, data_kw)
    if isinstance(schemes, str):
        schemes = [schemes]
    try:
        schemes = list(schemes)
    except TypeError:
        raise ValueError("schemes must be a list of projection schemes") from None
    if not schemes:
        raise ValueError("schemes is empty: give at least one projection scheme")
    for s in schemes:
        if s not in PROJECTIONS:
            raise ValueError(f"schemes: unknown scheme {s!r}; valid ones are {PROJECTIONS}")
    if len(set(schemes)) != len(schemes):
        raise ValueError(f"schemes lists a scheme twice: {schemes}")
    qs = _q_list(q_values, "gaussian", d)
    _common(n_estimators, n_repeats, max_features, n_jobs, task)
    _check_callbacks(progress, stop)
    mf = _default_max_features(task, max_features)
    problem = get_problem(dataset, seed=seed, **data_kw)
    info = problem[5]

    forest = dict(n_estimators=n_estimators, max_features=mf, n_jobs=n_jobs)
    plan, skipped = [], []
    for r, rs in enumerate(_repeat_seeds(seed, n_repeats)):
        if include_reference:
            plan.append((FOREST_REF, None, r, {**forest, "random_state": rs}))
        for s in schemes:
            for q in qs:
                if s == "subsample" and q > d:
                    if r == 0:
                        skipped.append(q)
                    continue
                plan.append((SCHEME_LABELS[s], q, r, {**forest, "projection": s, "n_components": q,
                                                      "random_state": rs}))
    series = [SCHEME_LABELS[s] for s in schemes] + ([FOREST_REF] if include_reference else [])
    runner = _Runner(progress, stop, len(plan))
    runner.run(plan, task, problem)
    params = dict(dataset=dataset, schemes=schemes, q_values=qs, n_estimators=n_estimators, max_features=mf,
                  include_reference=include_reference, n_repeats=n_repeats, seed=seed, **data_kw)
    notes = _base_notes(task, info, n_estimators, n_repeats, mf) + [
        "Every scheme with Algorithm 2 (a new projection per tree)."]
    if skipped:
        notes.append(f"Output sub-sampling left out at q = {', '.join(map(str, skipped))} (> d = {d}).")
    return ForestSweepResult("schemes", dataset, task, METRICS[task], d, info["n_features"], "q",
                             series, runner.records, params, runner.complete, notes)


# --------------------------------------------------------------------------
# Bias-variance: projection term vs tree-randomization term (Appendix C)
# --------------------------------------------------------------------------


BV_TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "var_projection", "var_tree",
            "var_projection_corrected", "var_tree_corrected", "error",
            "alg1_bias2", "alg1_var_learning_set", "alg1_var_algorithm", "alg1_error",
            "alg2_bias2", "alg2_var_learning_set", "alg2_var_algorithm", "alg2_error",
            "alg1_var_algorithm_predicted", "alg2_var_algorithm_predicted",
            "var_learning_set_corrected", "alg1_var_learning_set_corrected",
            "alg2_var_learning_set_corrected")


@dataclass
class ForestBiasVarianceResult:
    """Bias-variance decomposition of projected trees and forests, one entry per q.

    Single projected tree f(x; L, Phi, theta) (paper 003, Appendix C.1), averaged
    over test points and outputs:

    * ``error = noise + bias2 + var_learning_set + var_algorithm``;
    * ``var_algorithm = E_L Var_{Phi,theta} f = var_projection + var_tree`` with
      ``var_projection = E_L Var_Phi E_theta[f | Phi]`` (the random projection) and
      ``var_tree = E_L E_Phi Var_theta[f | Phi]`` (bootstrap / feature sampling). These
      three are population variances over the nested grid (``n_projections``
      projections x ``n_tree_seeds`` tree seeds per learning set), so the identity holds
      to rounding error (``identity_gap``).
    * ``*_corrected``: the same two terms without the finite-grid bias (the mean over
      ``n_tree_seeds`` trees still carries var_tree / n_tree_seeds), used for the
      predictions below.

    Forests of M = ``n_estimators`` trees, measured over ``n_forest_seeds`` random
    states per learning set (unbiased variances): ``alg1_*`` Algorithm 1 (one shared
    projection), ``alg2_*`` Algorithm 2 (a projection per tree). Appendix C.2 predicts
    ``alg1_var_algorithm = var_projection + var_tree / M`` and
    ``alg2_var_algorithm = (var_projection + var_tree) / M`` (the ``*_predicted``
    arrays, from the corrected single-tree terms): Algorithm 2 is never worse.

    Learning-set variance. ``var_learning_set`` (and ``alg1_``/``alg2_``) is the
    population variance over learning sets of each set's mean model, which makes
    the rows add up to ``error`` exactly; but a set's mean over finitely many trees
    or forests still carries their algorithm variance divided by their number
    (about var_algorithm / 16 for the default 4 x 4 single trees, far more than for
    4 forests), so the single tree's plain value is the largest. Appendix C.2 says
    all three share one average model, hence one Var_L E f:
    ``*var_learning_set_corrected`` removes that leak and the finite-L bias
    (unbiased estimates, so comparable across the three, and possibly slightly
    negative when the true value is near 0).
    """

    structure: str
    projection: str
    n_outputs: int
    n_estimators: int
    q_values: np.ndarray
    terms: dict
    params: dict
    complete: bool = True
    n_learning_sets_done: int = 0
    notes: list = field(default_factory=list)

    def __getattr__(self, name):
        terms = self.__dict__.get("terms", {})
        if name in terms:
            return terms[name]
        raise AttributeError(name)

    @property
    def identity_gap(self) -> float:
        """max |var_algorithm - var_projection - var_tree| over q (rounding error only)."""
        t = self.terms
        gap = np.abs(t["var_algorithm"] - t["var_projection"] - t["var_tree"])
        return float(np.nanmax(gap)) if gap.size else float("nan")

    def to_frame(self) -> pd.DataFrame:
        df = pd.DataFrame({"q": self.q_values.astype(int), **{k: self.terms[k] for k in BV_TERMS}})
        df.insert(0, "projection", self.projection)
        df.insert(0, "structure", self.structure)
        df["n_estimators"] = self.n_estimators
        return df

    def to_dict(self):
        return {"structure": self.structure, "projection": self.projection, "n_outputs": self.n_outputs,
                "n_estimators": self.n_estimators, "q_values": [int(q) for q in self.q_values],
                "terms": {k: _nan_list(v) for k, v in self.terms.items()}, "params": self.params,
                "complete": self.complete, "n_learning_sets_done": self.n_learning_sets_done,
                "notes": list(self.notes)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d):
        terms = {k: np.array([np.nan if v is None else v for v in vals], dtype=float)
                 for k, vals in d["terms"].items()}
        return cls(structure=d["structure"], projection=d["projection"], n_outputs=d["n_outputs"],
                   n_estimators=d["n_estimators"], q_values=np.array(d["q_values"], dtype=np.int64),
                   terms=terms, params=d["params"], complete=d["complete"],
                   n_learning_sets_done=d["n_learning_sets_done"], notes=list(d["notes"]))

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))


def _trees_on_projection(X_tr, Y_tr, X_te32, phi, kind, tree_seeds, template, bootstrap=True):
    """Predictions (T, n_test, d) of single trees all grown on Y @ phi.T, one per tree seed.

    Uses the forest's own grower (engine.forest internals) so that a tree here is
    exactly a tree of ProjectedForestRegressor with that seed, but with the
    projection held fixed while the tree seed varies.
    """
    from engine.forest import _grow_batch, _leaves, _project

    n, p = X_tr.shape
    params = template._tree_params(n, p)
    X32 = np.asfortranarray(X_tr, dtype=np.float32)
    Y = np.ascontiguousarray(Y_tr, dtype=np.float64)
    targets = _project(Y, phi, kind)
    stores = _grow_batch(X32, Y, np.ones(n), list(tree_seeds), params, bool(bootstrap), kind, targets,
                         phi.shape[0])
    return np.stack([store.value[leaf] for store, leaf in zip(stores, _leaves(stores, X_te32))])


def run_forest_bias_variance(structure="ind", *, q_values=(1, 4), projection="gaussian", n_estimators=10,
                             n_learning_sets=6, n_projections=4, n_tree_seeds=4, n_forest_seeds=4,
                             include_forests=True, max_features=1.0, bootstrap=True, n_train=300, n_test=500,
                             n_outputs=16, noise=1.0, seed=0, n_jobs=1, progress=None,
                             stop=None) -> ForestBiasVarianceResult:
    """Split the algorithm variance of projected trees / forests (paper 003, section 3.3, Appendix C).

    Friedman1 ``structure`` ("chain", "group", "ind"; the Bayes model is known). For
    each of ``n_learning_sets`` learning sets and each q: ``n_projections`` projections
    x ``n_tree_seeds`` bootstrap trees per projection (nested seeds) give the single
    tree's terms; ``n_forest_seeds`` forests of ``n_estimators`` trees with Algorithm 1
    and with Algorithm 2 give their measured algorithm variances
    (``include_forests=False`` skips them). Trees: best splits over ``max_features``,
    on a bootstrap sample if ``bootstrap`` (with ``bootstrap=False`` and
    ``max_features=1.0`` a tree is deterministic given its projection: var_tree = 0). See :class:`ForestBiasVarianceResult`.
    """
    if structure not in FRIEDMAN_STRUCTURES:
        raise ValueError(f"structure must be one of {FRIEDMAN_STRUCTURES}, got {structure!r}")
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {projection!r}")
    _int(n_outputs, "n_outputs", 1)
    qs = _q_list(q_values, projection, n_outputs)
    _int(n_estimators, "n_estimators", 1)
    _int(n_learning_sets, "n_learning_sets", 2)
    _int(n_projections, "n_projections", 2)
    _int(n_tree_seeds, "n_tree_seeds", 2)
    _int(n_forest_seeds, "n_forest_seeds", 2)
    _int(n_train, "n_train", 2)
    _int(n_test, "n_test", 1)
    _real(noise, "noise", 0.0)
    _int(seed, "seed", 0)
    _common(n_estimators, 1, max_features, n_jobs, "regression")
    if not isinstance(bootstrap, (bool, np.bool_)):
        raise ValueError(f"bootstrap must be True or False, got {bootstrap!r}")
    _check_callbacks(progress, stop)

    d, nq = n_outputs, len(qs)
    test_seq, *set_seqs = np.random.SeedSequence(seed).spawn(n_learning_sets + 1)
    X_te, _, bayes = make_friedman1_multioutput(structure, n_samples=n_test, n_outputs=d, noise=noise,
                                                random_state=np.random.default_rng(test_seq))
    X_te32 = np.ascontiguousarray(X_te, dtype=np.float32)
    noise_var = (np.arange(1, d + 1) if structure == "chain" else np.ones(d)) * noise ** 2
    template = ProjectedForestRegressor(max_features=max_features)
    template._validate_params()

    kinds = ("tree", "alg1", "alg2") if include_forests else ("tree",)
    means = {k: [[] for _ in qs] for k in kinds}          # E_theta f per learning set
    # Per learning set, an unbiased estimate of the variance of that set's mean model
    # around E_theta f (it leaks into the spread of the means over learning sets).
    leak = {k: [[] for _ in qs] for k in kinds}
    var_alg = {k: [[] for _ in qs] for k in kinds}        # Var_theta f per learning set (mean over x, j)
    var_proj, var_tree, var_proj_c, var_tree_c = (np.zeros(nq) for _ in range(4))
    n_units, done, complete = n_learning_sets * nq, 0, True
    for i, seq in enumerate(set_seqs):
        if stop is not None and stop.is_set():
            complete = False
            break
        data_seq, algo_seq = seq.spawn(2)
        X_tr, Y_tr, _ = make_friedman1_multioutput(structure, n_samples=n_train, n_outputs=d, noise=noise,
                                                   random_state=np.random.default_rng(data_seq))
        rng = np.random.default_rng(algo_seq)
        for a, q in enumerate(qs):
            from engine.projections import draw_projections
            phis = draw_projections(projection, n_projections, q, d, rng)
            F = np.stack([_trees_on_projection(X_tr, Y_tr, X_te32, phi, projection,
                                               rng.integers(0, 2**63 - 1, size=n_tree_seeds), template,
                                               bootstrap)
                          for phi in phis])                               # (P, T, n_test, d)
            group = F.mean(axis=1)                                        # E_theta[f | Phi]
            means["tree"][a].append(F.mean(axis=(0, 1)))
            var_alg["tree"][a].append(F.reshape(-1, *F.shape[2:]).var(axis=0).mean())
            vt = F.var(axis=1).mean()
            vp = group.var(axis=0).mean()
            leak["tree"][a].append(vp / (n_projections - 1))      # mean of P i.i.d. group means
            var_tree[a] += vt
            var_proj[a] += vp
            vt_c = vt * n_tree_seeds / (n_tree_seeds - 1)
            var_tree_c[a] += vt_c
            var_proj_c[a] += vp * n_projections / (n_projections - 1) - vt_c / n_tree_seeds
            if include_forests:
                for kind, per_tree in (("alg1", False), ("alg2", True)):
                    G = np.stack([ProjectedForestRegressor(
                        n_estimators=n_estimators, max_features=max_features, projection=projection,
                        n_components=q, projection_per_tree=per_tree, n_jobs=n_jobs, bootstrap=bootstrap,
                        random_state=int(rng.integers(0, 2**31 - 1))).fit(X_tr, Y_tr).predict(X_te)
                        for _ in range(n_forest_seeds)])
                    means[kind][a].append(G.mean(axis=0))
                    var_alg[kind][a].append(G.var(axis=0, ddof=1).mean())
                    leak[kind][a].append(var_alg[kind][a][-1] / n_forest_seeds)
            done += 1
            if progress is not None:
                progress(done / n_units, f"learning set {i + 1}/{n_learning_sets}, q = {q}")
    n_done = len(means["tree"][0]) if qs else 0
    if progress is not None:
        progress(1.0 if complete else done / n_units, "done" if complete else "stopped")

    nan = np.full(nq, np.nan)
    terms = {k: nan.copy() for k in BV_TERMS}
    terms["noise"][:] = noise_var.mean()
    # Only learning sets where every q was done (a stop may cut one mid-way).
    n_full = min((len(m) for m in means["tree"]), default=0)
    if n_full >= 1:
        for kind, prefix in (("tree", ""), ("alg1", "alg1_"), ("alg2", "alg2_")):
            if kind not in means:
                continue
            for a in range(nq):
                M = np.stack(means[kind][a][:n_full])                     # (L, n_test, d)
                terms[f"{prefix}bias2"][a] = ((M.mean(axis=0) - bayes) ** 2).mean()
                terms[f"{prefix}var_learning_set"][a] = M.var(axis=0).mean() if n_full > 1 else np.nan
                terms[f"{prefix}var_learning_set_corrected"][a] = (
                    M.var(axis=0, ddof=1).mean() - np.mean(leak[kind][a][:n_full]) if n_full > 1 else np.nan)
                terms[f"{prefix}var_algorithm"][a] = np.mean(var_alg[kind][a][:n_full])
                terms[f"{prefix}error"][a] = (terms["noise"][a] + terms[f"{prefix}bias2"][a]
                                              + terms[f"{prefix}var_learning_set"][a]
                                              + terms[f"{prefix}var_algorithm"][a])
        counts = np.array([len(m) for m in means["tree"]], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            terms["var_projection"] = var_proj / counts
            terms["var_tree"] = var_tree / counts
            terms["var_projection_corrected"] = var_proj_c / counts
            terms["var_tree_corrected"] = var_tree_c / counts
        # The exact identity uses the same learning sets on both sides.
        for a in range(nq):
            terms["var_algorithm"][a] = np.mean(var_alg["tree"][a])
        M_ = n_estimators
        terms["alg1_var_algorithm_predicted"] = terms["var_projection_corrected"] + terms["var_tree_corrected"] / M_
        terms["alg2_var_algorithm_predicted"] = (terms["var_projection_corrected"] + terms["var_tree_corrected"]) / M_
    params = dict(structure=structure, q_values=qs, projection=projection, n_estimators=n_estimators,
                  n_learning_sets=n_learning_sets, n_projections=n_projections, n_tree_seeds=n_tree_seeds,
                  n_forest_seeds=n_forest_seeds, include_forests=include_forests, max_features=max_features,
                  bootstrap=bootstrap,
                  n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise, seed=seed)
    notes = [f"friedman1-{structure}, d = {d}: {n_done} learning set(s) of {n_train} samples, one test set "
             f"of {n_test} points with its Bayes model; noise variance known exactly.",
             f"Single trees: {n_projections} projections x {n_tree_seeds} bootstrap trees per learning set "
             "(nested seeds); forests: "
             + (f"{n_forest_seeds} random states per learning set and algorithm." if include_forests else "not run."),
             "Averages over test points and outputs."]
    return ForestBiasVarianceResult(structure, projection, d, n_estimators, np.array(qs, dtype=np.int64),
                                    terms, params, complete, n_done, notes)


# --------------------------------------------------------------------------
# Table 1: LRAP on the shipped multi-label data sets of the paper
# --------------------------------------------------------------------------

# The data sets of paper 003's Table 1 that are shipped (birds, flags: not in Table 1).
TABLE1_DATASETS = ("emotions", "scene", "yeast", "genbase", "medical", "cal500")


@dataclass
class Table1Result:
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
        rows = [{**r, "lrap": _nan_list([r["lrap"]])[0]} for r in self.rows]
        return {"rows": rows, "params": self.params, "complete": self.complete, "notes": list(self.notes)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        rows = [{**r, "lrap": np.nan if r["lrap"] is None else r["lrap"]} for r in d["rows"]]
        return cls(rows=rows, params=d["params"], complete=d["complete"], notes=d["notes"])


def _q_label_values(q_specs, d):
    out = []
    for spec in q_specs:
        if spec == "log":
            out.append(("ln d", resolve_n_components("log", d)))
        elif spec == "d":
            out.append(("d", d))
        else:
            out.append((str(spec), int(spec)))
    return out


def run_forest_table1(datasets=TABLE1_DATASETS, *, q_values=(1, "log", "d"), n_estimators=100,
                      max_features="sqrt", n_repeats=1, seed=0, n_jobs=1, progress=None,
                      stop=None) -> Table1Result:
    """Paper 003, Table 1: LRAP of mo-rf and of Algorithm 2 with Gaussian projections.

    q_values : integers, "log" (round(ln d), the paper's middle column) and "d".
    The paper: k = sqrt(p), n_min = 1 (fully grown), 100 trees, 10 random
    train/test splits (mean ± std); here: the data set's standard split (the
    same for every repeat; repeats change only the forests' seeds) or, without
    one, a 50/50 split seeded by ``seed``.
    """
    if isinstance(datasets, str):
        datasets = [datasets]
    datasets = list(datasets)
    if not datasets:
        raise ValueError("datasets is empty: give at least one multi-label data set")
    for name in datasets:
        task, _ = _problem_shape(name, 300, 1000, 16, 1.0, "uniform", 0, seed)
        if task != "multilabel":
            raise ValueError(f"datasets: {name!r} is not a multi-label data set (LRAP needs 0/1 labels)")
    q_values = list(q_values)
    if not q_values:
        raise ValueError("q_values is empty")
    for q in q_values:
        if not (q in ("log", "d") or (isinstance(q, (int, np.integer)) and not isinstance(q, bool) and q >= 1)):
            raise ValueError(f"q_values must hold integers >= 1, 'log' or 'd', got {q!r}")
    _common(n_estimators, n_repeats, max_features, n_jobs, "multilabel")
    _check_callbacks(progress, stop)

    n_fits = len(datasets) * n_repeats * (1 + len(q_values))
    done, rows, complete = 0, [], True
    seeds = _repeat_seeds(seed, n_repeats)
    for name in datasets:
        problem = get_problem(name, seed=seed)
        info = problem[5]
        d = info["n_outputs"]
        runs = [("mo-rf", None, "", {})] + [
            ("rf-gaussian-per-tree", q, label, {"projection": "gaussian", "n_components": q})
            for label, q in _q_label_values(q_values, d)]
        for r, rs in enumerate(seeds):
            for method, q, label, extra in runs:
                if stop is not None and stop.is_set():
                    complete = False
                    break
                score, fit_time = _fit_score("multilabel", dict(n_estimators=n_estimators, max_features=max_features,
                                                                n_jobs=n_jobs, random_state=rs, **extra), problem)
                rows.append({"dataset": name, "d": d, "n_train": info["n_train"], "n_test": info["n_test"],
                             "split": info["split"], "method": method, "q": q, "q_label": label, "repeat": r,
                             "lrap": score, "fit_time": fit_time})
                done += 1
                if progress is not None:
                    progress(done / n_fits, f"{name}: {method}" + (f" q = {q}" if q else ""))
    if progress is not None:
        progress(1.0 if complete else done / n_fits, "done" if complete else "stopped")
    params = dict(datasets=datasets, q_values=q_values, n_estimators=n_estimators, max_features=max_features,
                  n_repeats=n_repeats, seed=seed)
    notes = [f"{n_estimators} trees, max_features = {max_features!r}, fully grown, bootstrap.",
             "LRAP of predict_proba; test samples without a relevant label dropped (paper 003, section 4.1).",
             "Standard train/test split where the data set ships one, else a 50/50 split seeded by seed; "
             "the paper averages 10 random splits instead."]
    return Table1Result(rows, params, complete, notes)


def reproduce_forest_table1(out_dir, quick=False, seed=0, progress=None):
    """Paper 003 Table 1 on the shipped data sets: CSV, JSON and a markdown table in ``out_dir``.

    Full: 100 trees, q = 1, round(ln d), d, 3 repeats (forest seeds). Quick: 10 trees,
    one repeat, emotions and yeast only. Returns the list of written paths.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if quick:
        res = run_forest_table1(("emotions", "yeast"), n_estimators=10, n_repeats=1, seed=seed, progress=progress)
    else:
        res = run_forest_table1(n_estimators=100, n_repeats=3, seed=seed, n_jobs=-1, progress=progress)
    paths = [out / "forest_table1.csv", out / "forest_table1.json", out / "forest_table1.md"]
    res.to_frame().to_csv(paths[0], index=False)
    paths[1].write_text(res.to_json())
    paths[2].write_text(res.to_markdown() + "\n\n" + "\n".join(f"- {n}" for n in res.notes) + "\n")
    return [str(p) for p in paths]
