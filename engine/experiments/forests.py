"""Random forests on randomly projected outputs: the experiments of paper 003.

Joly, Geurts & Wehenkel (2014), "Random forests with random projections of the
output space for high dimensional multi-label classification" (ECML). Plain
function calls, same conventions as the other experiments: plain
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

The variance split of Appendix C is :mod:`engine.experiments.forest_variance`,
Table 1 :mod:`engine.experiments.forest_table1`.

Scores. Multi-label: LRAP (eq. 6 of paper 003) of the label scores
``decision_function`` = 2 P(label) - 1 (the same ranking as the probabilities); as in
the paper (section 4.1), test samples without any relevant label are
discarded first. Regression: macro-r2. Data: :meth:`engine.experiments.problems.Problem.draw`
(Friedman1 problems, or a shipped data set with its standard split when it has
one, else a seeded 50/50 split).

Sweep results (:class:`ForestSweepResult`) are long tables of records, one
per fit: ``series`` (e.g. "Algorithm 2 (per tree)"), ``x`` (q or k; NaN for a
reference that does not depend on x), ``repeat``, ``score``, ``fit_time``.
``summary_frame()`` averages the repeats (mean, std) per series and x.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, Stopped, check_callbacks, jsonable
from engine.experiments.settings import ForestSettings, check_flag, check_names, check_seed
from engine.experiments.timing import repeat_in_turns, resolve_timing, spread
from engine.experiments.worker import FitWorker
from engine.methods import SCHEMES
from engine.metrics import ranking_average_precision
from engine.names import METRICS, PROJECTIONS

__all__ = [
    "ForestSweepResult",
    "SweepPlan",
    "plan_sweep",
    "run_sweep",
    "run_forest_projection_size",
    "run_forest_randomization",
    "run_forest_schemes",
    "score_predictions",
]

SINGLE_TREE = "single projected tree"
SHARED = "Algorithm 1 (shared projection)"
PER_TREE = "Algorithm 2 (projection per tree)"
TREE_REF = "single tree, original outputs"
FOREST_REF = "mo-rf (original outputs)"
# Each scheme's series label (its row in the method table), densest first as in paper 003's Figure 3:
# Gaussian, Rademacher (s = 3), sparse Rademacher, output sub-sampling.
SCHEME_LABELS = {scheme: SCHEMES[scheme].label
                 for scheme in sorted(SCHEMES, key=lambda s: (not SCHEMES[s].dense, SCHEMES[s].q_at_most_d))}


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
        return ranking_average_precision(Y_true[keep] > 0, np.asarray(P)[keep])
    sst = ((Y_true - Y_true.mean(axis=0)) ** 2).sum(axis=0)
    sse = ((Y_true - P) ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
    return float(1.0 - ratio.mean())


def make_forest(task, **params):
    """A projected forest (classifier for multi-label data) with these parameters."""
    cls = ProjectedForestClassifier if task == "multilabel" else ProjectedForestRegressor
    return cls(**params)


def _predict(est, task, X):
    return est.decision_function(X) if task == "multilabel" else est.predict(X)


def fit_and_score(task, params, data):
    """Fit a forest on a drawn problem's (:class:`~engine.experiments.problems.ProblemData`)
    training set; (test score, fit seconds)."""
    est = make_forest(task, **params)
    t0 = time.perf_counter()
    est.fit(data.X_train, data.Y_train)
    fit_time = time.perf_counter() - t0
    return score_predictions(task, data.Y_test, _predict(est, task, data.X_test)), fit_time


def fit_seconds(task, params, data, rows=None, n_estimators=None):
    """Seconds of one fit (no scoring): a repeat for the timing, or with ``rows`` / ``n_estimators``
    a small untimed warm-up."""
    X_tr, Y_tr = data.X_train, data.Y_train
    if rows is not None:
        X_tr, Y_tr = X_tr[:rows], Y_tr[:rows]
    est = make_forest(task, **{**params, **({} if n_estimators is None else {"n_estimators": n_estimators})})
    t0 = time.perf_counter()
    est.fit(X_tr, Y_tr)
    return time.perf_counter() - t0


def _fit_plan(plan, task, problem, progress, stop, timing=None):
    """Fit the planned forests (series, x, repeat, params) in order; (records, complete).

    With ``timing`` (:class:`engine.experiments.timing.Timing`) the times are measured as on every
    timed chart of the app: one small untimed warm-up fit first, then the short fits repeated in
    turns (:func:`~engine.experiments.timing.repeat_in_turns`); each record's ``fit_time`` is the
    median, ``fit_time_low`` / ``fit_time_high`` the range and ``timed_fits`` their number.

    With a ``stop`` flag the fits run in a worker process (:class:`~engine.experiments.worker.FitWorker`)
    that a stop ends at once, also in the middle of a tree; the fits finished before are kept."""
    runner = Runner(progress, stop, len(plan))
    records, complete = [], True
    with FitWorker(stop) as worker:
        data = worker.share(problem)
        try:
            if timing is not None and timing.warmup_steps and plan and not runner.stopped():
                worker.call(fit_seconds, task, plan[0][3], data, rows=timing.warmup_rows,
                            n_estimators=timing.warmup_steps)
            for series, x, repeat, params in plan:
                if runner.stopped():
                    complete = False
                    break
                score, fit_time = worker.call(fit_and_score, task, params, data)
                records.append({"series": series, "x": float("nan") if x is None else float(x),
                                "repeat": int(repeat), "score": float(score), "fit_time": float(fit_time)})
                xs = "" if x is None else f", x = {x:g}"
                runner.report(len(records), f"{series}{xs} (repeat {repeat + 1}): {len(records)}/{len(plan)} fits")
        except Stopped:
            complete = False
        if timing is not None and complete and records:
            runner.report(len(records), "repeating the short fits in turns for steady times")
            first = {i: r["fit_time"] for i, r in enumerate(records)}

            def refit(params):
                try:
                    return worker.call(fit_seconds, task, params, data)
                except Stopped:      # cut short: the repeats measured so far are kept
                    return None
            refits = {i: (lambda p=plan[i][3]: refit(p)) for i in first}
            for i, fits in repeat_in_turns(first, refits, timing, runner.stopped).items():
                median, low, high = spread(fits)
                records[i].update(fit_time=median, fit_time_low=low, fit_time_high=high, timed_fits=len(fits))
    runner.finish(complete)
    return records, complete


# --------------------------------------------------------------------------
# Result of the sweeps
# --------------------------------------------------------------------------


@dataclass
class ForestSweepResult(JsonResult):
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
            return pd.DataFrame(columns=["series", self.x_name, "score", "score_std", "fit_time", "time_low",
                                         "time_high", "n_repeats"])
        df["x"] = df["x"].fillna(-1.0)  # groupby drops NaN keys
        full = pd.DataFrame(self.records)
        df["time_low"] = full["fit_time_low"] if "fit_time_low" in full else df["fit_time"]
        df["time_high"] = full["fit_time_high"] if "fit_time_high" in full else df["fit_time"]
        df["time_low"] = df["time_low"].fillna(df["fit_time"])
        df["time_high"] = df["time_high"].fillna(df["fit_time"])
        g = df.groupby(["series", "x"], sort=False)
        out = g.agg(score=("score", "mean"), score_std=("score", lambda s: float(np.std(s))),
                    fit_time=("fit_time", "mean"), time_low=("time_low", "min"), time_high=("time_high", "max"),
                    n_repeats=("score", "size")).reset_index()
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
                "records": jsonable(self.records),
                "params": self.params, "complete": self.complete, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d):
        recs = [{**r, "x": np.nan if r["x"] is None else float(r["x"]),
                 "score": np.nan if r["score"] is None else float(r["score"])} for r in d["records"]]
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   n_outputs=d["n_outputs"], n_features=d["n_features"], x_name=d["x_name"],
                   series=list(d["series"]), records=recs, params=d["params"], complete=d["complete"],
                   notes=list(d["notes"]))


# --------------------------------------------------------------------------
# The plan of a sweep: every fit, checked and listed before any data are drawn
# --------------------------------------------------------------------------


@dataclass
class SweepPlan:
    """What a sweep will fit, made from the problem's size alone (nothing drawn or loaded): the
    experiment runs it (:func:`run_sweep`), a page checks a request by making it and the app's cost
    estimate prices its fits.

    fits : one ``(series, x, repeat, forest parameters)`` per fit, in the order they run
    series : the series in drawing order; params : the sweep's settings (a result's ``params``);
    notes : the sweep's own sentences (after the shared ones)
    """

    experiment: str
    problem: Problem
    forest: ForestSettings
    task: str
    n_outputs: int
    n_features: int
    x_name: str
    series: list
    fits: list
    params: dict
    notes: list = field(default_factory=list)


def repeat_seeds(seed, n_repeats):
    """One random_state per repeat; every series of a repeat uses it (common random numbers)."""
    return [int(s) for s in np.random.default_rng(seed).integers(0, 2**31 - 1, size=n_repeats)]


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


def _size_fits(task, d, p, forest, seeds, include_single_tree=True, include_shared=True, include_reference=True):
    """Figure 1: single trees and Algorithms 1 and 2 at every q, the unprojected tree and mo-rf."""
    flags = dict(include_single_tree=check_flag(include_single_tree, "include_single_tree"),
                 include_shared=check_flag(include_shared, "include_shared"),
                 include_reference=check_flag(include_reference, "include_reference"))
    qs, mf = forest.qs(d), forest.features(task)
    tree = dict(n_estimators=1, bootstrap=False, max_features=1.0, n_jobs=1)
    grown = dict(n_estimators=forest.n_estimators, max_features=mf, n_jobs=forest.n_jobs)
    proj = dict(projection=forest.projection)
    fits = []
    for r, rs in enumerate(seeds):
        if include_reference:
            if include_single_tree:
                fits.append((TREE_REF, None, r, {**tree, "random_state": rs}))
            fits.append((FOREST_REF, None, r, {**grown, "random_state": rs}))
        for q in qs:
            if include_single_tree:
                fits.append((SINGLE_TREE, q, r, {**tree, **proj, "n_components": q, "random_state": rs}))
            if include_shared:
                fits.append((SHARED, q, r, {**grown, **proj, "n_components": q,
                                            "projection_per_tree": False, "random_state": rs}))
            fits.append((PER_TREE, q, r, {**grown, **proj, "n_components": q, "random_state": rs}))
    series = [s for s in (SINGLE_TREE, SHARED, PER_TREE, TREE_REF, FOREST_REF) if any(f[0] == s for f in fits)]
    params = dict(q_values=qs, projection=forest.projection, max_features=mf, **flags)
    return "q", series, fits, params, ["Single trees: one fully grown CART tree (no bootstrap, all features)."]


def _randomization_fits(task, d, p, forest, seeds, max_features_values=None, include_reference=True):
    """Figure 2: Algorithm 2 at every k for each q, mo-rf at the same k."""
    include_reference = check_flag(include_reference, "include_reference")
    qs, ks = forest.qs(d), _resolve_k(max_features_values, p)
    grown = dict(n_estimators=forest.n_estimators, n_jobs=forest.n_jobs)
    fits = []
    for r, rs in enumerate(seeds):
        for k in ks:
            if include_reference:
                fits.append((FOREST_REF, k, r, {**grown, "max_features": k, "random_state": rs}))
            for q in qs:
                fits.append((f"q = {q}", k, r, {**grown, "max_features": k, "projection": forest.projection,
                                                "n_components": q, "random_state": rs}))
    series = [f"q = {q}" for q in qs] + ([FOREST_REF] if include_reference else [])
    params = dict(max_features_values=ks, q_values=qs, projection=forest.projection,
                  include_reference=include_reference)
    notes = [f"Output randomization: Algorithm 2 with {SCHEME_LABELS[forest.projection]} projections of size q."]
    return "max_features", series, fits, params, notes


def _schemes_fits(task, d, p, forest, seeds, schemes=tuple(SCHEME_LABELS),
                  include_reference=True):
    """Figure 3: Algorithm 2 with each scheme at every q (sub-sampling only up to q = d), mo-rf."""
    schemes = check_names(schemes, "schemes", PROJECTIONS, "projection scheme")
    include_reference = check_flag(include_reference, "include_reference")
    qs, mf = forest.qs(d, projection="gaussian"), forest.features(task)
    grown = dict(n_estimators=forest.n_estimators, max_features=mf, n_jobs=forest.n_jobs)
    fits = []
    for r, rs in enumerate(seeds):
        if include_reference:
            fits.append((FOREST_REF, None, r, {**grown, "random_state": rs}))
        for s in schemes:
            fits += [(SCHEME_LABELS[s], q, r, {**grown, "projection": s, "n_components": q, "random_state": rs})
                     for q in qs if not (SCHEMES[s].q_at_most_d and q > d)]
    series = [SCHEME_LABELS[s] for s in schemes] + ([FOREST_REF] if include_reference else [])
    params = dict(schemes=schemes, q_values=qs, max_features=mf, include_reference=include_reference)
    notes = ["Every scheme with Algorithm 2 (a new projection per tree)."]
    skipped = [q for q in qs if q > d] if any(SCHEMES[s].q_at_most_d for s in schemes) else []
    if skipped:
        notes.append(f"Output sub-sampling left out at q = {', '.join(map(str, skipped))} (> d = {d}).")
    return "q", series, fits, params, notes


SWEEPS = {"projection-size": _size_fits, "randomization": _randomization_fits, "schemes": _schemes_fits}


def plan_sweep(experiment, problem, forest, *, seed=0, **options) -> SweepPlan:
    """The checked plan of a sweep (``SWEEPS``: "projection-size", "randomization", "schemes") on
    ``problem`` (a :class:`~engine.experiments.problems.Problem` or a data set's name) with
    ``forest`` (:class:`~engine.experiments.settings.ForestSettings`) and the sweep's own
    ``options`` (those of its ``run_forest_*``); a ``ValueError`` naming what is refused."""
    if experiment not in SWEEPS:
        raise ValueError(f"experiment must be one of {tuple(SWEEPS)}, got {experiment!r}")
    problem = Problem.of(problem)
    if not isinstance(forest, ForestSettings):
        raise ValueError(f"forest must be a ForestSettings, got {type(forest).__name__}")
    seed = check_seed(seed)
    size = problem.size()
    task, d, p = size["task"], size["n_outputs"], size["n_features"]
    seeds = repeat_seeds(seed, forest.n_repeats)
    x_name, series, fits, params, notes = SWEEPS[experiment](task, d, p, forest, seeds, **options)
    params = dict(dataset=problem.dataset, **params, n_estimators=forest.n_estimators, n_repeats=forest.n_repeats,
                  seed=seed, n_fits=len(fits), **problem.data_kwargs())
    return SweepPlan(experiment, problem, forest, task, d, p, x_name, series, fits, params, notes)


def _base_notes(task, info, n_estimators, n_repeats, max_features):
    scoring = ("LRAP of the label probabilities on the test set, samples without any relevant label dropped "
               "(paper 003, section 4.1)" if task == "multilabel" else "macro-r2 on the test set")
    return [f"{scoring}; {info['split']}.",
            f"{n_estimators} trees per forest, bootstrap, best splits over max_features = {max_features!r}; "
            f"{n_repeats} repeat(s), each with its own seed shared by every series (mean shown).",
            "Fit times are wall-clock seconds of fit() on this machine (predictions not included)."]


def _timing_note(timing):
    return ("Fit times: seconds of fit() (predictions not included) after one small untimed warm-up fit; "
            f"each fit under {timing.short_seconds:g} s was repeated in turns with the others, up to "
            f"{timing.max_fits} times (at most {timing.budget_seconds:g} s more each): the median is drawn, "
            "the bars span the fastest and slowest fit.")


def run_sweep(plan, *, timing=None, progress=None, stop=None) -> ForestSweepResult:
    """Draw the plan's problem (with its seed) and fit its forests in order: a :class:`ForestSweepResult`.

    ``timing`` (True, a :class:`~engine.experiments.timing.Timing` or a dict of its fields; None or
    False: one plain fit each) measures the fit times after a warm-up, short fits repeated in turns
    (median and range), as every timed chart of the app does."""
    if not isinstance(plan, SweepPlan):
        raise ValueError(f"plan must be a SweepPlan (plan_sweep), got {type(plan).__name__}")
    timing = resolve_timing(timing)
    check_callbacks(progress, stop)
    data = plan.problem.draw(plan.params["seed"])
    records, complete = _fit_plan(plan.fits, plan.task, data, progress, stop, timing)
    mf = "k (the x axis)" if plan.experiment == "randomization" else plan.params["max_features"]
    notes = _base_notes(plan.task, data.info, plan.forest.n_estimators, plan.forest.n_repeats, mf) + plan.notes
    params = dict(plan.params)
    if timing is not None:
        params["timing"] = dict(timing.__dict__)
        notes[2] = _timing_note(timing)
    return ForestSweepResult(plan.experiment, plan.problem.dataset, plan.task, METRICS[plan.task], plan.n_outputs,
                             data.info["n_features"], plan.x_name, plan.series, records, params, complete, notes)


# --------------------------------------------------------------------------
# The three figures of paper 003
# --------------------------------------------------------------------------


def run_forest_projection_size(problem, forest, *, include_single_tree=True, include_shared=True,
                               include_reference=True, timing=True, seed=0, progress=None,
                               stop=None) -> ForestSweepResult:
    """Score and fit time against q (paper 003, Figure 1), on ``problem`` (a
    :class:`~engine.experiments.problems.Problem` or a data set's name, drawn with ``seed``) with
    ``forest`` (:class:`~engine.experiments.settings.ForestSettings`: trees, max_features, the
    projection scheme and the q swept).

    Series: "single projected tree" (one CART tree, no bootstrap, all features, grown on q
    projected outputs), "Algorithm 1 (shared projection)" and "Algorithm 2 (projection per tree)"
    (forests of ``n_estimators`` trees); references at every q: the single tree and mo-rf grown on
    the original outputs. ``timing``: see :func:`run_sweep` (True by default here).
    """
    plan = plan_sweep("projection-size", problem, forest, seed=seed, include_single_tree=include_single_tree,
                      include_shared=include_shared, include_reference=include_reference)
    return run_sweep(plan, timing=timing, progress=progress, stop=stop)


def run_forest_randomization(problem, forest, *, max_features_values=None, include_reference=True, seed=0,
                             progress=None, stop=None) -> ForestSweepResult:
    """Score against max_features k for a few q (paper 003, Figure 2, section 4.4).

    One series per q of ``forest`` ("q = 1", ...): Algorithm 2 (a projection per tree) with its
    projection; "mo-rf (original outputs)" is the unprojected forest at the same k (``forest``'s
    own max_features is not used). Small k = strong input randomization, small q = strong output
    randomization. ``max_features_values``: integers k in [1, p] or fractions of p (default: about
    6 log-spaced k from 1 to p).
    """
    plan = plan_sweep("randomization", problem, forest, seed=seed, max_features_values=max_features_values,
                      include_reference=include_reference)
    return run_sweep(plan, progress=progress, stop=stop)


def run_forest_schemes(problem, forest, *, schemes=tuple(SCHEME_LABELS),
                       include_reference=True, seed=0, progress=None, stop=None) -> ForestSweepResult:
    """Algorithm 2 with each projection scheme against q (paper 003, Figure 3).

    One series per scheme (labelled as in ``SCHEME_LABELS``; ``forest``'s own projection is not
    used); mo-rf on the original outputs is the reference. Output sub-sampling cannot draw more
    than d outputs: its q > d points are left out (said in ``notes``).
    """
    plan = plan_sweep("schemes", problem, forest, seed=seed, schemes=schemes, include_reference=include_reference)
    return run_sweep(plan, progress=progress, stop=stop)
