"""Time to accuracy on a wide multi-label set: the engine against XGBoost, test LRAP against fit seconds.

:func:`run_time_to_accuracy` fits, on the standard split of bibtex or corel5k (CSR inputs,
one thread), gbrt-relabel-rpo-gaussian (q Gaussian projections of the gradient per tree;
with ``leaf_estimation="newton"`` second-order leaves) and, where it
is installed, XGBoost with its defaults (one tree per label, depth 6, learning rate 0.3, hist,
Newton leaves). Each curve is the test LRAP at a few log-spaced steps against the fit seconds
spent up to that step: the engine's own clock per step (``fit_times_``), XGBoost's from a
per-round callback; XGBoost's scores are its predictions cut at round r (``iteration_range``).
Scoring is not counted as fit time.

XGBoost is one of the app's own dependencies (pyproject.toml: its CPU-only build, ``xgboost-cpu``, on
Linux), so the race has both curves from the README's install. A run says which peers it ran with
(``with_xgboost``, an argument, hence part of the run store's key and of ``params``): a race run before
XGBoost was installed is never served as the race with it.

Where napkinXC is installed (the bench extra; issue 46), napkinXC's probabilistic label trees race
too (``with_plt``, the same rule): what a practitioner fits first on hundreds of labels, with its
defaults on L2-normalised rows (engine.experiments.label_trees). A PLT fit has no steps: its curve is
one point, its fit seconds (wall clock, as the other curves) and its test LRAP.
"""
from __future__ import annotations

import importlib.util
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from engine.datasets import load_dataset
from engine.estimators import MultiLabelBoostingClassifier
from engine.experiments.label_trees import l2_rows, plt_fit, plt_installed
from engine.experiments.runner import JsonResult
from engine.metrics import lrap
from engine.names import LEAF_ESTIMATIONS, PROJECTED_RELABEL
from engine.validation import check_choice, check_int

__all__ = ["PLT_LABEL", "RACE_DATASETS", "TimeToAccuracyResult", "XGBOOST_PACKAGE", "plt_installed",
           "run_time_to_accuracy", "xgboost_installed", "xgboost_missing_note"]

RACE_DATASETS = ("bibtex", "corel5k")
N_CHECKPOINTS = 12
# The distribution that provides the ``xgboost`` module as pyproject.toml installs it: the CPU-only wheel
# on Linux (the default ``xgboost`` wheel there pulls in NVIDIA's NCCL, 350 MB the race never uses).
XGBOOST_PACKAGE = "xgboost-cpu" if sys.platform.startswith("linux") else "xgboost"
PLT_LABEL = "napkinXC PLT: defaults (probabilistic label trees, L2-normalised rows; one fit)"


def xgboost_installed():
    """Whether the ``xgboost`` module can be imported (asked afresh: an install made while the
    server runs counts from the next page view on)."""
    importlib.invalidate_caches()
    return importlib.util.find_spec("xgboost") is not None


def xgboost_missing_note():
    return (f"XGBoost is not installed here (it is one of the app's dependencies: `pip install {XGBOOST_PACKAGE}`): "
            "only the engine's curve is drawn.")


@dataclass
class TimeToAccuracyResult(JsonResult):
    dataset: str
    params: dict
    curves: dict                    # label -> {"seconds": [...], "score": [...], "steps": [...]}
    notes: list = field(default_factory=list)

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**d)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([dict(method=label, step=s, seconds=t, lrap=v) for label, c in self.curves.items()
                             for s, t, v in zip(c["steps"], c["seconds"], c["score"])])

    def best(self):
        """{label: (best test LRAP, fit seconds to reach it)}."""
        out = {}
        for label, c in self.curves.items():
            k = int(np.argmax(c["score"]))
            out[label] = (c["score"][k], c["seconds"][k])
        return out


def _checkpoints(n):
    return np.unique(np.round(np.logspace(0, np.log10(n), N_CHECKPOINTS)).astype(int)).tolist()


def _engine_curve(X, Y, X_test, Y_test, n_steps, learning_rate, max_leaf_nodes, q, leaf_estimation,
                  seed, stop):
    # Every hyper-parameter the curve relies on, explicitly (the estimators' defaults serve a first fit).
    params = dict(strategy=PROJECTED_RELABEL, projection="gaussian", n_projections=q,
                  loss="logistic", learning_rate=learning_rate, n_estimators=n_steps, max_leaf_nodes=max_leaf_nodes,
                  max_depth=None, min_samples_leaf=1, max_features=None, subsample=1.0,
                  leaf_estimation=leaf_estimation, l2_regularization=1.0, early_stopping=False,
                  split_search="auto", max_bins=255, n_jobs=1, random_state=seed)
    est = MultiLabelBoostingClassifier(**params)
    est.fit(X, Y, callback=None if stop is None else (lambda n, model: stop.is_set()))
    wanted = set(_checkpoints(est.n_steps_))
    steps, seconds, scores = [], [], []
    for m, F in enumerate(est.staged_decision_function(X_test), start=1):
        if m in wanted:
            steps.append(m)
            seconds.append(float(est.fit_times_[m - 1]))
            scores.append(float(lrap(Y_test, F)))
    return dict(steps=steps, seconds=seconds, score=scores)


def _xgboost_curve(X, Y, X_test, Y_test, rounds, seed, stop=None):
    import xgboost

    stamps = []

    class Clock(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            stamps.append(time.perf_counter())
            return stop is not None and stop.is_set()      # a stop ends the fit after this round

    model = xgboost.XGBClassifier(n_estimators=rounds, tree_method="hist", multi_strategy="one_output_per_tree",
                                  n_jobs=1, random_state=seed, callbacks=[Clock()])
    started = time.perf_counter()
    model.fit(X, Y)
    steps = [r for r in _checkpoints(len(stamps))]
    scores = [float(lrap(Y_test, model.predict_proba(X_test, iteration_range=(0, r)))) for r in steps]
    return dict(steps=steps, seconds=[stamps[r - 1] - started for r in steps], score=scores)


def _plt_curve(X, Y, X_test, Y_test, seed):
    seconds, P = plt_fit(l2_rows(X), Y, l2_rows(X_test), seed=seed, clock=time.perf_counter)
    return dict(steps=[1], seconds=[float(seconds)], score=[float(lrap(Y_test, P))])


def _check_peer(value, name, installed, peer, package):
    """with_<peer> resolved: None -> whether it is installed; True without it is refused."""
    if value is None:
        return installed
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True, False or None, got {value!r}")
    if value and not installed:
        raise ValueError(f"{name}=True but {peer} is not installed (pip install {package})")
    return bool(value)


def run_time_to_accuracy(dataset="bibtex", *, n_steps=100, xgboost_rounds=50, learning_rate=0.3, max_leaf_nodes=32,
                         q=5, leaf_estimation="mean", with_xgboost=None, with_plt=None, seed=0,
                         progress=None, stop=None) -> TimeToAccuracyResult:
    """Test LRAP against fit seconds: the engine (gbrt-relabel-rpo-gaussian) and XGBoost's defaults.

    ``leaf_estimation``: "mean" (the papers) or "newton" (second-order leaves).
    ``with_xgboost``: whether XGBoost races too (None: when it is installed). False, or None without
    XGBoost: only the engine's curve, and a note that says why; True without XGBoost is refused. The
    value used is ``params["with_xgboost"]``. ``with_plt``: the same for napkinXC's PLT.
    ``stop`` (a threading.Event) ends the engine's fit early and skips the peers (a note says so).
    """
    check_choice(dataset, "dataset", RACE_DATASETS)
    n_steps = check_int(n_steps, "n_steps", 1)
    xgboost_rounds = check_int(xgboost_rounds, "xgboost_rounds", 1)
    max_leaf_nodes = check_int(max_leaf_nodes, "max_leaf_nodes", 2)
    q = check_int(q, "q", 1)
    seed = check_int(seed, "seed", 0)
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) or not 0 < learning_rate <= 1:
        raise ValueError(f"learning_rate must be in (0, 1], got {learning_rate!r}")
    check_choice(leaf_estimation, "leaf_estimation", LEAF_ESTIMATIONS)
    with_xgboost = _check_peer(with_xgboost, "with_xgboost", xgboost_installed(), "XGBoost", XGBOOST_PACKAGE)
    with_plt = _check_peer(with_plt, "with_plt", plt_installed(), "napkinXC", "napkinxc")
    data = load_dataset(dataset)
    test = np.zeros(data.X.shape[0], dtype=bool)
    test[data.test_indices] = True
    X, Y, X_test, Y_test = data.X[~test], data.Y[~test], data.X[test], data.Y[test]
    label = f"engine: gbrt-relabel-rpo-gaussian, q = {q}, {max_leaf_nodes} leaves, {leaf_estimation} leaves"
    if progress is not None:
        progress(0.0, f"{dataset}: fitting the engine")
    curves = {label: _engine_curve(X, Y, X_test, Y_test, n_steps, learning_rate, max_leaf_nodes, q,
                                   leaf_estimation, seed, stop)}
    notes = [f"{dataset}: standard split, {X.shape[0]} training / {X_test.shape[0]} test rows, "
             f"{Y.shape[1]} labels; one thread; fit seconds exclude scoring."]
    if stop is not None and stop.is_set():
        notes.append("Stopped: the engine's curve ends where it was stopped, XGBoost was not fitted.")
    elif with_xgboost:
        if progress is not None:
            progress(0.5, f"{dataset}: fitting XGBoost")
        curves["XGBoost: defaults (one tree per label, depth 6, learning rate 0.3)"] = _xgboost_curve(
            X, Y, X_test, Y_test, xgboost_rounds, seed, stop)
        if stop is not None and stop.is_set():
            notes.append("Stopped: XGBoost's curve ends where it was stopped.")
    elif xgboost_installed():
        notes.append("XGBoost was left out of this race (with_xgboost=False): only the engine's curve is drawn.")
    else:
        notes.append(xgboost_missing_note())
    if with_plt and not (stop is not None and stop.is_set()):
        if progress is not None:
            progress(0.8, f"{dataset}: fitting napkinXC's PLT")
        curves[PLT_LABEL] = _plt_curve(X, Y, X_test, Y_test, seed)
    params = dict(n_steps=n_steps, xgboost_rounds=xgboost_rounds, learning_rate=learning_rate,
                  max_leaf_nodes=max_leaf_nodes, q=q, leaf_estimation=leaf_estimation,
                  with_xgboost=with_xgboost, with_plt=with_plt, seed=seed)
    return TimeToAccuracyResult(dataset=dataset, params=params, curves=curves, notes=notes)
