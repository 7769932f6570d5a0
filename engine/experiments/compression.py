"""Thesis 001, chapter 7: ℓ1-based compression of extra-trees forests (Table 7.1, Figures 7.2-7.4).

Each run draws a training and a test set (thesis Appendix A: 300 and 2000
samples for Friedman1 and Two-norm; a shipped data set's standard split, or a
seeded 50/50 split), grows an extra-trees forest (ET: ``splitter="random"``,
no bootstrap, K = ``max_features``, n_min = the minimum number of samples to
split a node) and compresses it with
:class:`~engine.estimators.compression.CompressedForestRegressor` (the
classifier for 0/1 labels): the monotone Lasso path with step eps, t chosen
by ``cv``-fold cross-validation, the forest pruned to the weighted nodes and
their ancestors (rET). As in Table 7.1 a run also fits the linear Lasso on the
original features (``LassoCV``, ``cv`` folds; ``MultiTaskLassoCV`` for several
outputs), whose complexity is its number of non-zero features.

Errors (the thesis works on pre-whitened data): the quadratic error on the
outputs standardised with the training set's mean and standard deviation
(regression), or the 0-1 loss per label, i.e. the error rate for one label
(classification). Complexity: test nodes.

* :func:`run_compression`: Table 7.1 and Figure 7.2 (errors and test nodes
  along the path, the chosen t*), ``n_runs`` independent runs;
* :func:`run_compression_sweep`: Figures 7.3-7.4, ET and rET against n_min or M.

Same conventions as the other experiments: every argument checked first
(``ValueError`` naming it), ``progress(fraction, message)``, ``stop`` (the fit
in progress ends at its next fold when it runs in this process), runs through
:func:`~engine.experiments.runner.ordered_map` (joblib or dask with ``n_jobs``
/ ``client``), same arguments and seed -> same numbers (fit times aside).
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.linear_model import LassoCV, MultiTaskLassoCV

from engine.estimators.compression import CompressedForestClassifier, CompressedForestRegressor, FitStopped
from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, Stopped, check_callbacks, jsonable, ordered_map
from engine.experiments.settings import check_flag, check_seed
from engine.experiments.worker import FitWorker
from engine.validation import check_in_interval, check_int, check_n_jobs

__all__ = ["CompressionResult", "CompressionSettings", "run_compression", "run_compression_sweep", "SWEEP_PARAMETERS",
           "compression_forest", "compression_cell"]

# Figure 7.3 sweeps n_min (the minimum number of samples to split), Figure 7.4 the number of trees M.
SWEEP_PARAMETERS = {"n_min": "n_min, minimum number of samples to split a node", "n_estimators": "M, number of trees"}
ROW_COLUMNS = ["dataset", "repeat", "x", "n_estimators", "max_features", "n_min", "n_train", "n_test",
               "et_error", "ret_error", "lasso_error", "et_nodes", "ret_nodes", "compression_factor",
               "lasso_features", "t_star", "n_steps", "n_weighted", "path_steps", "fit_time"]


def compression_forest(task, *, n_estimators=100, max_features=1.0, n_min=1):
    """The thesis's extra trees: random thresholds, no bootstrap, K = max_features, n_min."""
    cls = ProjectedForestClassifier if task == "multilabel" else ProjectedForestRegressor
    return cls(n_estimators=n_estimators, max_features=max_features, min_samples_split=max(2, int(n_min)),
               splitter="random", bootstrap=False)


def _run_seed(seed, run):
    return int(np.random.SeedSequence([seed, run]).generate_state(1)[0] % (2**31 - 1))


def _error(task, Y, P, y_mean, y_scale):
    """Multi-label: the 0-1 loss per label of P >= 1/2, read from the decision function
    2 P - 1 (>= 0 exactly when P >= 1/2); regression: the quadratic loss on standardised outputs."""
    if task == "multilabel":
        return float(np.mean((P >= 0.0) != (Y > 0.5)))
    return float(np.mean(((Y - P) / y_scale) ** 2))


def _lasso(task, X_tr, Y_tr, X_te, Y_te, cv, seed, y_mean, y_scale):
    """Table 7.1's linear Lasso on the original (standardised) features: (test error, features kept)."""
    mu, sd = X_tr.mean(axis=0), X_tr.std(axis=0)
    sd[sd == 0] = 1.0
    A, B = (X_tr - mu) / sd, (X_te - mu) / sd
    model = (LassoCV(cv=cv, random_state=seed) if Y_tr.shape[1] == 1
             else MultiTaskLassoCV(cv=cv, random_state=seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # convergence notes on the weakest penalties
        model.fit(A, Y_tr[:, 0] if Y_tr.shape[1] == 1 else Y_tr)
    P = model.predict(B).reshape(len(B), -1)
    coef = np.atleast_2d(model.coef_)
    return _error(task, Y_te, P, y_mean, y_scale), int(np.any(coef != 0, axis=0).sum())


def compression_cell(problem, forest_params, cv, step, max_steps, seed, run, x, lasso, keep_curve, callback=None):
    """One run: draw the data, compress the forest, score ET, rET (and the Lasso) on the test set.

    Returns ``(row, curve)``: a dict with the keys ``ROW_COLUMNS`` and, when
    ``keep_curve``, the path's arrays (t, cv_error, train_error, test_error,
    n_nodes), else None.
    """
    rs = _run_seed(seed, run)
    data = problem.draw(rs)
    X_tr, Y_tr, X_te, Y_te, task, info = data.X_train, data.Y_train, data.X_test, data.Y_test, data.task, data.info
    forest = compression_forest(task, **forest_params)
    cls = CompressedForestClassifier if task == "multilabel" else CompressedForestRegressor
    model = cls(forest, cv=cv, step=step, max_steps=max_steps, random_state=rs)
    started = time.perf_counter()
    model.fit(X_tr, Y_tr, callback=callback)
    fit_time = time.perf_counter() - started
    y_mean, y_scale = Y_tr.mean(axis=0), Y_tr.std(axis=0)
    y_scale[y_scale == 0] = 1.0
    # Y is 2-D here, so both give (n_test, d): label scores 2 P - 1 or outputs
    predict = "decision_function" if task == "multilabel" else "predict"
    et_pred = getattr(model.forest_, predict)(X_te)
    ret_pred = getattr(model, predict)(X_te)
    lasso_error, lasso_features = (_lasso(task, X_tr, Y_tr, X_te, Y_te, cv, rs, y_mean, y_scale) if lasso
                                   else (np.nan, np.nan))
    row = {"dataset": problem.dataset, "repeat": int(run), "x": x, "n_estimators": forest_params["n_estimators"],
           "max_features": forest_params["max_features"], "n_min": forest_params["n_min"],
           "n_train": info["n_train"], "n_test": info["n_test"],
           "et_error": _error(task, Y_te, et_pred, y_mean, y_scale),
           "ret_error": _error(task, Y_te, ret_pred, y_mean, y_scale), "lasso_error": lasso_error,
           "et_nodes": model.n_nodes_forest_, "ret_nodes": model.n_nodes_,
           "compression_factor": model.compression_factor_, "lasso_features": lasso_features,
           "t_star": model.t_, "n_steps": model.n_steps_, "n_weighted": model.n_weighted_,
           "path_steps": model.path_model_.n_steps, "fit_time": fit_time}
    curve = None
    if keep_curve:
        test = model.path_errors(X_te, Y_te)
        length = len(model.path_["t"])
        test = np.concatenate([test, np.full(length - len(test), test[-1])])
        curve = {"t": model.path_["t"], "cv_error": model.path_["cv_error"],
                 "train_error": model.path_["train_error"], "test_error": test, "n_nodes": model.path_["n_nodes"]}
    return row, curve


# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------

CURVE_KEYS = ("t", "cv_error", "train_error", "test_error", "n_nodes")


@dataclass
class CompressionResult(JsonResult):
    """ET / rET / Lasso per run, and for the path experiment the curves along t.

    experiment : "path" (Table 7.1, Figure 7.2) or "sweep" (Figures 7.3-7.4)
    x_name : None for "path"; "n_min" or "n_estimators" for a sweep (rows' ``x``)
    rows : one dict per run (``ROW_COLUMNS``)
    curves : per run (path experiment): {t, cv_error, train_error, test_error, n_nodes}
    metric : what the errors are ("quadratic error on standardised outputs" or "0-1 loss")
    """

    experiment: str
    dataset: str
    task: str
    metric: str
    x_name: object
    rows: list
    curves: list
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=ROW_COLUMNS)

    def summary_frame(self) -> pd.DataFrame:
        """Mean (and std) over runs; one row per x for a sweep, one row for the path experiment."""
        df = self.to_frame()
        keys = ["et_error", "ret_error", "lasso_error", "et_nodes", "ret_nodes", "compression_factor",
                "lasso_features", "t_star", "n_weighted", "fit_time"]
        if df.empty:
            return pd.DataFrame(columns=["dataset", "x", "n_runs", *keys])
        df = df.assign(x=df["x"].fillna(-1.0))
        g = df.groupby("x", sort=True)
        out = g[keys].mean()
        for k in ("et_error", "ret_error", "et_nodes", "ret_nodes", "compression_factor"):
            out[f"{k}_std"] = g[k].std(ddof=0)
        out["n_runs"] = g.size()
        out = out.reset_index()
        out["x"] = out["x"].where(out["x"] >= 0, np.nan)
        out.insert(0, "dataset", self.dataset)
        return out

    def mean_curves(self) -> dict:
        """The curves averaged over runs (each continued with its last value to the longest)."""
        if not self.curves:
            return {k: np.zeros(0) for k in CURVE_KEYS}
        length = max(len(c["t"]) for c in self.curves)
        step = self.params.get("step", 0.01)
        out = {"t": np.arange(length) * step}
        for k in CURVE_KEYS[1:]:
            out[k] = np.mean([np.concatenate([c[k], np.full(length - len(c[k]), c[k][-1])])
                              for c in self.curves], axis=0)
        return out

    def to_dict(self):
        return {"experiment": self.experiment, "dataset": self.dataset, "task": self.task, "metric": self.metric,
                "x_name": self.x_name, "rows": jsonable(self.rows),
                "curves": [jsonable(c) for c in self.curves], "params": jsonable(self.params),
                "complete": self.complete, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d):
        rows = [{k: (np.nan if v is None else v) for k, v in r.items()} for r in d["rows"]]
        curves = [{k: np.array(v, dtype=float) for k, v in c.items()} for c in d["curves"]]
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   x_name=d["x_name"], rows=rows, curves=curves, params=d["params"], complete=d["complete"],
                   notes=list(d["notes"]))


# --------------------------------------------------------------------------
# The experiments
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CompressionSettings:
    """The forests of a compression run and how they are compressed, checked when built.

    n_estimators (M), max_features (K), n_min : the extra trees (:func:`compression_forest`)
    cv, step, max_steps : the ℓ1 path (:class:`~engine.estimators.compression.CompressedForestRegressor`)
    n_runs : independent runs, each on a new draw of the data
    lasso : also fit the linear Lasso on the inputs (Table 7.1's third column)
    n_jobs : runs at once (joblib)

    Thesis setting (Table 7.1): M = 100, K = p (``max_features=1.0``), n_min = 1, cv = 10,
    step = 0.01, 50 runs.
    """

    n_estimators: int = 100
    max_features: object = 1.0
    n_min: int = 1
    cv: int = 10
    step: float = 0.01
    max_steps: int | None = None
    n_runs: int = 1
    lasso: bool = True
    n_jobs: int = 1

    def __post_init__(self):
        check_int(self.n_estimators, "n_estimators", 1)
        check_int(self.n_min, "n_min", 1)
        check_int(self.cv, "cv", 2)
        check_in_interval(self.step, "step", 0.0, low_open=True)
        if self.max_steps is not None:
            check_int(self.max_steps, "max_steps", 1)
        check_int(self.n_runs, "n_runs", 1)
        check_flag(self.lasso, "lasso")
        check_n_jobs(self.n_jobs)
        try:
            compression_forest("regression", **self.forest_params()).check_params()
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    def forest_params(self) -> dict:
        return dict(n_estimators=self.n_estimators, max_features=self.max_features, n_min=self.n_min)

    def params(self) -> dict:
        return dict(**self.forest_params(), cv=self.cv, step=self.step, max_steps=self.max_steps, n_runs=self.n_runs)


def _check(problem, settings, seed, progress, stop):
    """(the Problem, its task); ValueError naming what is refused."""
    problem = Problem.of(problem)
    if not isinstance(settings, CompressionSettings):
        raise ValueError(f"settings must be a CompressionSettings, got {type(settings).__name__}")
    check_seed(seed)
    check_callbacks(progress, stop)
    return problem, problem.shape()[0]


def _notes(task, dataset):
    notes = ["Extra trees (random thresholds, no bootstrap); the monotone Lasso by forward stagewise "
             "regression on the standardised node indicators; t chosen by cross-validation, the forest "
             "regrown on the whole training set and pruned at t*.",
             "Errors: " + ("0-1 loss per label (error rate)." if task == "multilabel" else
                           "quadratic error on outputs standardised with the training set's mean and sd "
                           "(the thesis's pre-whitened data).") + " Complexity: test nodes."]
    if dataset == "friedman1":
        notes.append("Friedman1: p = 10 inputs U(0,1), noise N(0,1), 5 x5 as in Friedman (1991) "
                     "(Appendix A prints 6 x5).")
    return notes


def _run_cells(experiment, dataset, task, cells, n_units_per_cell, params, x_name, keep_curves, n_jobs,
               progress, stop, report_partial, client=None):
    runner = Runner(progress, stop, len(cells) * n_units_per_cell)
    rows, curves, complete = [], [], True

    def result(done):
        metric = "0-1 loss" if task == "multilabel" else "quadratic error on standardised outputs"
        return CompressionResult(experiment, dataset, task, metric, x_name, list(rows), list(curves), params,
                                 done, _notes(task, dataset))

    local = [{"callback": runner.fit_callback(i * n_units_per_cell, f"run {i + 1}/{len(cells)}",
                                              width=n_units_per_cell, planned=n_units_per_cell)}
             for i in range(len(cells))]
    # In this process with a stop flag: each run in a worker process that a stop ends at once (one
    # forest of fully grown trees on a wide data set takes seconds, beyond any stop check).
    worker = FitWorker(stop if n_jobs in (None, 1) and client is None else None)
    if worker.stop is not None:
        results = (worker.call(compression_cell, *cell, **kw) for cell, kw in zip(cells, local))
    else:
        results = ordered_map(compression_cell, cells, n_jobs=1 if n_jobs is None else n_jobs, client=client,
                              local_kwargs=local)
    try:
        while True:
            if runner.stopped():
                complete = False
                break
            try:
                row, curve = next(results)
            except StopIteration:
                break
            except (FitStopped, Stopped):
                complete = False
                break
            rows.append(row)
            if curve is not None:
                curves.append(curve)
            extra = {"partial": result(False)} if report_partial and len(rows) < len(cells) else {}
            runner.report(len(rows) * n_units_per_cell, f"run {len(rows)}/{len(cells)} done", **extra)
    finally:
        results.close()
        worker.close()
    runner.finish(complete)
    return result(complete)


def run_compression(problem, settings, *, seed=0, client=None, progress=None, stop=None,
                    report_partial=False) -> CompressionResult:
    """Table 7.1 and Figure 7.2: compress ``settings.n_runs`` extra-trees forests; errors and nodes along t.

    problem : a :class:`~engine.experiments.problems.Problem`: "friedman1", "two-norm" (thesis
        Appendix A.1: 300 training and 2000 test samples), a Friedman1 multi-output problem or a
        data set (its own split); run r draws it with a seed derived from ``seed`` and r.
    settings : a :class:`CompressionSettings`.
    """
    problem, task = _check(problem, settings, seed, progress, stop)
    cells = [(problem, settings.forest_params(), settings.cv, settings.step, settings.max_steps, seed, r,
              float("nan"), settings.lasso, True) for r in range(settings.n_runs)]
    params = dict(dataset=problem.dataset, **settings.params(), n_train=problem.n_train, n_test=problem.n_test,
                  lasso=settings.lasso, seed=seed)
    return _run_cells("path", problem.dataset, task, cells, settings.cv + 1, params, None, True, settings.n_jobs,
                      progress, stop, report_partial, client)


def run_compression_sweep(problem, settings, *, parameter="n_min", values=(1, 2, 5, 10, 20, 50), seed=0, client=None,
                          progress=None, stop=None, report_partial=False) -> CompressionResult:
    """Figures 7.3 (``parameter="n_min"``) and 7.4 (``"n_estimators"``, thesis: n_min = 10): ET vs rET.

    Every value of the parameter replaces ``settings``' own and gets ``settings.n_runs`` runs; run
    r draws the same data for every value (common random numbers), so the curves differ only
    through the parameter. The Lasso is not fitted.
    """
    if parameter not in SWEEP_PARAMETERS:
        raise ValueError(f"parameter must be one of {list(SWEEP_PARAMETERS)}, got {parameter!r}")
    values = list(values) if not isinstance(values, (str, bytes)) else None
    if not values:
        raise ValueError("values must be a non-empty list of integers")
    for v in values:
        check_int(v, "values", 1)
    problem, task = _check(problem, settings, seed, progress, stop)
    values = sorted(set(int(v) for v in values))
    cells = []
    for v in values:
        forest_params = {**settings.forest_params(), parameter: v}
        cells += [(problem, forest_params, settings.cv, settings.step, settings.max_steps, seed, r, float(v), False,
                   False) for r in range(settings.n_runs)]
    params = dict(dataset=problem.dataset, parameter=parameter, values=values, **settings.params(),
                  n_train=problem.n_train, n_test=problem.n_test, seed=seed)
    return _run_cells("sweep", problem.dataset, task, cells, settings.cv + 1, params, parameter, False,
                      settings.n_jobs, progress, stop, report_partial, client)
