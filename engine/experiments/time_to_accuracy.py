"""Time to accuracy: the engine against XGBoost, test score against fit seconds, on any data set.

:func:`run_time_to_accuracy` fits, on one thread, gbrt-relabel-rpo-gaussian (q Gaussian projections
of the gradient per tree, as a :class:`BoostingSettings` says; with ``leaf_estimation="newton"``
second-order leaves), the engine's estimator with its defaults (``RaceSettings.with_defaults``: only
the seed and one thread set, early stopping "auto" included: what a practitioner fits first) and,
where it is installed, XGBoost with its defaults (one tree per output, depth 6, learning rate 0.3,
hist, Newton leaves). The data: a data set's :class:`~engine.experiments.problems.Problem` (the
page's bibtex or corel5k, their standard split and CSR inputs, or the Data page's choice, an
upload): its standard split, else a random 50/50 split seeded by ``seed``. The score is
the test LRAP in multi-label classification (the logistic loss, XGBoost's classifier), the test
macro-r2 in regression (the square loss, XGBoost's regressor). Each curve is the test score at a
few log-spaced steps against the fit seconds spent up to that step: the engine's own clock per step
(``fit_times_``), XGBoost's from a per-round callback; XGBoost's scores are its predictions cut at
round r (``iteration_range``). Scoring is not counted as fit time.

XGBoost is one of the app's own dependencies (pyproject.toml: its CPU-only build, ``xgboost-cpu``, on
Linux), so the race has both curves from the README's install. A run says which peers it ran with
(``RaceSettings.with_xgboost``, resolved when the settings are built, hence part of the run store's
key and of ``params``): a race run before XGBoost was installed is never served as the race with it.

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

from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.experiments.label_trees import l2_rows, plt_fit, plt_installed
from engine.experiments.problems import data_set_problem
from engine.experiments.runner import JsonResult, check_callbacks
from engine.experiments.settings import BoostingSettings, check_flag, check_kind, check_seed
from engine.metrics import lrap, macro_r2
from engine.names import PROJECTED_RELABEL
from engine.validation import check_int

__all__ = ["PLT_LABEL", "RACE_BOOSTING", "RACE_DATASETS", "RaceSettings", "TimeToAccuracyResult", "XGBOOST_PACKAGE",
           "plt_installed", "run_time_to_accuracy", "xgboost_installed", "xgboost_missing_note"]

RACE_DATASETS = ("bibtex", "corel5k")       # the page's two wide multi-label sets (any data set races)
# The engine's racer unless told: gbrt-relabel-rpo-gaussian, q = 5, 32 leaves, learning rate 0.3, the papers' leaves.
RACE_BOOSTING = BoostingSettings(n_steps=100, learning_rate=0.3, max_leaf_nodes=32, leaf_estimation="mean", q=5)
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
            "only the engine's curves are drawn.")


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
        metric = self.params.get("metric", "LRAP").lower()
        return pd.DataFrame([dict(method=label, step=s, seconds=t, **{metric: v}) for label, c in self.curves.items()
                             for s, t, v in zip(c["steps"], c["seconds"], c["score"])])

    def best(self):
        """{label: (best test score, fit seconds to reach it)}."""
        out = {}
        for label, c in self.curves.items():
            k = int(np.argmax(c["score"]))
            out[label] = (c["score"][k], c["seconds"][k])
        return out


def _checkpoints(n):
    return np.unique(np.round(np.logspace(0, np.log10(n), N_CHECKPOINTS)).astype(int)).tolist()


def _score(task, Y_test, F):
    """The race's score of the (n, d) predictions / label scores ``F``."""
    return float(lrap(Y_test, F) if task == "multilabel" else macro_r2(Y_test, F))


def _staged_curve(est, task, X_test, Y_test):
    """A fitted engine estimator's curve: the score at log-spaced steps against its fit seconds."""
    wanted = set(_checkpoints(est.n_steps_))
    staged = est.staged_decision_function(X_test) if task == "multilabel" else est.staged_predict(X_test)
    steps, seconds, scores = [], [], []
    for m, F in enumerate(staged, start=1):
        if m in wanted:
            steps.append(m)
            seconds.append(float(est.fit_times_[m - 1]))
            scores.append(_score(task, Y_test, F))
    return dict(steps=steps, seconds=seconds, score=scores)


def _stop_callback(stop):
    return None if stop is None else (lambda n, model: stop.is_set())


def _estimator(task):
    return MultiLabelBoostingClassifier if task == "multilabel" else MultiOutputBoostingRegressor


def _leaves(boosting):
    """The racer's leaf estimation: the papers' "mean" unless the settings say "newton"."""
    return boosting.leaf_estimation or "mean"


def _engine_curve(task, X, Y, X_test, Y_test, boosting, seed, stop):
    # Every hyper-parameter the curve relies on, explicitly (the estimators' defaults serve a first fit).
    default_loss = "logistic" if task == "multilabel" else "squared_error"
    params = dict(strategy=PROJECTED_RELABEL, projection="gaussian", n_projections=boosting.q,
                  loss=boosting.loss or default_loss, learning_rate=boosting.learning_rate,
                  n_estimators=boosting.n_steps, max_leaf_nodes=boosting.max_leaf_nodes,
                  max_depth=None, min_samples_leaf=1, max_features=boosting.max_features, subsample=1.0,
                  leaf_estimation=_leaves(boosting), l2_regularization=1.0, early_stopping=False,
                  split_search="auto", max_bins=255, n_jobs=1, random_state=seed)
    est = _estimator(task)(**params)
    est.fit(X, Y, callback=_stop_callback(stop))
    return _staged_curve(est, task, X_test, Y_test)


def _defaults_curve(task, X, Y, X_test, Y_test, seed, stop):
    """The engine's estimator with its defaults: only the seed, and one thread as every racer."""
    est = _estimator(task)(random_state=seed, n_jobs=1)
    est.fit(X, Y, callback=_stop_callback(stop))
    return _staged_curve(est, task, X_test, Y_test)


def _xgboost_curve(task, X, Y, X_test, Y_test, rounds, seed, stop=None):
    import xgboost

    stamps = []

    class Clock(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            stamps.append(time.perf_counter())
            return stop is not None and stop.is_set()      # a stop ends the fit after this round

    kind = xgboost.XGBClassifier if task == "multilabel" else xgboost.XGBRegressor
    model = kind(n_estimators=rounds, tree_method="hist", multi_strategy="one_output_per_tree",
                 n_jobs=1, random_state=seed, callbacks=[Clock()])
    started = time.perf_counter()
    model.fit(X, Y)
    steps = [r for r in _checkpoints(len(stamps))]
    cut = model.predict_proba if task == "multilabel" else model.predict
    scores = [_score(task, Y_test, np.asarray(cut(X_test, iteration_range=(0, r))).reshape(len(Y_test), -1))
              for r in steps]
    return dict(steps=steps, seconds=[stamps[r - 1] - started for r in steps], score=scores)


def _race_data(problem, seed):
    """``(X, Y, X_test, Y_test, task, split sentence)`` of a data set: its standard split, else a
    random 50/50 one seeded by ``seed``."""
    data = problem.load(seed)
    if data.test_indices is not None:
        test = np.zeros(data.X.shape[0], dtype=bool)
        test[data.test_indices] = True
        tr, te, split = ~test, test, "standard split"
    else:
        perm = np.random.default_rng(seed).permutation(data.n_samples)
        half = data.n_samples // 2
        tr, te, split = np.sort(perm[:half]), np.sort(perm[half:]), f"random 50/50 split (seed {seed})"
    task = "multilabel" if data.task == "multilabel" else "regression"
    return data.X[tr], data.Y[tr], data.X[te], data.Y[te], task, split


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


@dataclass(frozen=True)
class RaceSettings:
    """Who races beside the engine, checked when built (a ValueError naming the argument).

    xgboost_rounds : rounds of XGBoost's curve (its defaults otherwise: one tree per output, depth 6,
        learning rate 0.3, hist, Newton leaves)
    with_xgboost : whether XGBoost races; None: whether it is installed, resolved when the settings
        are built (so a run says which peers it ran with, and its run key too); True without
        XGBoost is refused
    with_plt : the same for napkinXC's probabilistic label trees (multi-label only)
    with_defaults : also the engine's estimator with its defaults (only the seed set, one thread)
    """

    xgboost_rounds: int = 50
    with_xgboost: bool | None = None
    with_plt: bool | None = None
    with_defaults: bool = False

    def __post_init__(self):
        check_int(self.xgboost_rounds, "xgboost_rounds", 1)
        object.__setattr__(self, "with_xgboost", _check_peer(self.with_xgboost, "with_xgboost", xgboost_installed(),
                                                             "XGBoost", XGBOOST_PACKAGE))
        object.__setattr__(self, "with_plt", _check_peer(self.with_plt, "with_plt", plt_installed(), "napkinXC",
                                                         "napkinxc"))
        object.__setattr__(self, "with_defaults", check_flag(self.with_defaults, "with_defaults"))


def _checked(problem, boosting, race, seed):
    """The race's arguments checked before any data are loaded: (Problem, task, RaceSettings)."""
    problem = data_set_problem(problem, "the race")
    check_kind(boosting, "boosting", BoostingSettings)
    race = check_kind(RaceSettings() if race is None else race, "race", RaceSettings)
    check_seed(seed)
    size = problem.size()
    task = "multilabel" if size["task"] == "multilabel" else "regression"
    boosting.check(task, size["n_outputs"], size["n_features"])
    return problem, task, race


def run_time_to_accuracy(problem="bibtex", boosting=RACE_BOOSTING, race=None, *, seed=0, progress=None,
                         stop=None) -> TimeToAccuracyResult:
    """Test score against fit seconds: the engine (gbrt-relabel-rpo-gaussian), its defaults and the peers.

    ``problem``: a data set, as a :class:`~engine.experiments.problems.Problem`, a name (the page's
    ``RACE_DATASETS``, bibtex and corel5k, or any shipped set) or a :class:`engine.datasets.Dataset`.
    ``boosting``: the engine's racer (:class:`BoostingSettings`: n_steps, learning_rate,
    max_leaf_nodes, q, leaf_estimation "mean" (the papers) or "newton" (second-order leaves); loss
    None: the task's). ``race``: who races beside it (:class:`RaceSettings`; None: its defaults);
    the peers used are ``params["with_xgboost"]`` and ``params["with_plt"]``, and when XGBoost did not
    race a note says why. ``seed`` splits a data set without a standard split and seeds every model.
    ``stop`` (a threading.Event) ends the fit in progress early and skips the racers after it (a note
    says so).
    """
    problem, task, race = _checked(problem, boosting, race, seed)
    check_callbacks(progress, stop)
    X, Y, X_test, Y_test, _, split = _race_data(problem, seed)
    name, leaves = problem.dataset, _leaves(boosting)
    with_plt = race.with_plt and task == "multilabel"          # label trees rank labels: no regression peer
    metric = "LRAP" if task == "multilabel" else "macro-r2"
    label = f"engine: gbrt-relabel-rpo-gaussian, q = {boosting.q}, {boosting.max_leaf_nodes} leaves, {leaves} leaves"
    racers = [(label, lambda: _engine_curve(task, X, Y, X_test, Y_test, boosting, seed, stop))]
    if race.with_defaults:
        racers.append(("engine: its defaults (only the seed set)",
                       lambda: _defaults_curve(task, X, Y, X_test, Y_test, seed, stop)))
    if race.with_xgboost:
        racers.append(("XGBoost: defaults (one tree per output, depth 6, learning rate 0.3)",
                       lambda: _xgboost_curve(task, X, Y, X_test, Y_test, race.xgboost_rounds, seed, stop)))
    if with_plt:
        racers.append((PLT_LABEL, lambda: _plt_curve(X, Y, X_test, Y_test, seed)))
    curves = {}
    notes = [f"{name}: {split}, {X.shape[0]} training / {X_test.shape[0]} test rows, {Y.shape[1]} "
             f"{'labels' if task == 'multilabel' else 'outputs'}; test {metric}; one thread; fit seconds exclude scoring."]
    for k, (who, fit) in enumerate(racers):
        if stop is not None and stop.is_set():
            notes.append(f"Stopped: {', '.join(w for w, _ in racers[k:])} not fitted.")
            break
        if progress is not None:
            progress(k / len(racers), f"{name}: fitting {who.split(':')[0] if k == 0 else who}")
        curves[who] = fit()
    if stop is not None and stop.is_set() and len(curves) == len(racers):
        notes.append("Stopped: the last curve ends where it was stopped.")
    if not race.with_xgboost:
        notes.append("XGBoost was left out of this race (with_xgboost=False): no XGBoost curve."
                     if xgboost_installed() else xgboost_missing_note())
    params = dict(n_steps=boosting.n_steps, xgboost_rounds=race.xgboost_rounds, learning_rate=boosting.learning_rate,
                  max_leaf_nodes=boosting.max_leaf_nodes, q=boosting.q, leaf_estimation=leaves,
                  with_xgboost=race.with_xgboost, with_plt=with_plt, with_defaults=race.with_defaults, seed=seed,
                  metric=metric, task=task)
    params.update({k: v for k, v in (("loss", boosting.loss), ("max_features", boosting.max_features)) if v is not None})
    return TimeToAccuracyResult(dataset=name, params=params, curves=curves, notes=notes)
