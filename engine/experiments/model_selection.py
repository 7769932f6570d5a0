"""Hyper-parameter selection and paired comparison of estimators (paper 002, 4.1.2).

Protocol (section 4.1.2), repeated ``n_repeats`` times on random splits:

1. split the data into a training and a test set (sizes below);
2. hold out 20% of the training set as a validation set;
3. for every point of the grid (learning rate, max_leaf_nodes, max_features,
   loss) fit ``n_steps`` boosting steps on the remaining 80% and read the
   validation score after every step (``eval_score_`` of the engine, or the
   staged predictions for LRAP): the grid point and the number of steps with
   the best validation score are chosen (ties: the first grid point, the
   fewest steps). The test set is never seen during selection;
4. ``refit=True`` (the default): refit the chosen configuration on the whole
   training set (training + validation) with the chosen number of steps and
   score it on the test set; ``refit=False``: score the model fitted on the
   80% alone (the same configuration and number of steps, fitted again on the
   same rows with the same seed, so it is the model that was validated).

Refit or not is a choice the paper leaves open ("the best hyper-parameter set
is selected using 20% of the training samples as a validation set"). Our
measurements of both on Table 4 are in engine/experiments/RESULTS.md; the default stays
``refit=True`` (see there for why). Methods with nothing to select (the
forests) are always fitted on the whole training set.

Scores: macro-r2 (eq. 26) in regression, LRAP (eq. 25) in multi-label
classification; with noisy outputs (Table 6) also half-macro-r2 on the
original outputs. The result gives the mean ± standard deviation (ddof=1)
over repeats, the ranks of the means (1 = best) and the matrix of p-values of
Student's paired t-test (``scipy.stats.ttest_rel``) with the sign of Table 5
('>' when the row estimator has the better mean score). The p-values exist from 2
repeats, but a difference is called significant only from ``MIN_TEST_REPEATS`` (5, the
paper's number): with 2 repeats the test has one degree of freedom and its p-value rests
wholly on the two differences being normal, which nothing can check.

Data and splits:

* Friedman1 problems (``"friedman1-chain"``, ``"-group"``, ``"-ind"``, or just
  ``"chain"``...): one data set of 300 + 4000 samples (section 4.2.1, uniform
  inputs) drawn from ``seed``; each repeat is a random 300 / 4000 split of it.
* shipped data sets (:func:`engine.datasets.load_dataset`) or a ``Dataset``:
  if it has a standard train/test split, its sizes fix the ratio and every
  repeat is a random split with those sizes ("preserving the training-testing
  set size ratio", section 4.1.2); otherwise (section 4.1.3) 40% of the rows
  train, 10% validate and 50% test: ``TEST_FRACTION`` = 50% of the rows in the
  test set, and the validation set is the usual 20% of the other half.

Stop and progress: with ``n_jobs=1`` (the app's setting) ``progress`` is also
called inside each fit and a set ``stop`` ends the fit in progress at its next
chunk of boosting steps (about every 50 ms; the scikit-learn references and
the forests finish the fit in progress); the repeat in progress is then
dropped and the repeats finished so far are returned, flagged ``partial``.
With ``n_jobs != 1`` the fits run in worker processes, which cannot see the
flag: it is checked as each fit comes back.

``artificial-gbrt`` (Friedman1 only) is the oracle that knows the output
structure (section 4.2.1): chain -> a model of output 1 copied to every
output; group -> a model of the mean output copied; ind -> st-gbrt. Appended
noisy outputs are predicted by their training mean. It is implemented here by
:class:`engine.estimators.artificial.ArtificialGBRT`.

scikit-learn reference rows (:mod:`engine.estimators.references`), evaluated under the
same protocol, same splits and same validation sets:

* ``"sklearn-gb"``: scikit-learn gradient boosting per output
  (``GradientBoostingRegressor``; per-label ``GradientBoostingClassifier``
  probabilities in multi-label), same grid as ours, number of steps chosen on
  the validation set from its staged predictions;
* ``"sklearn-rf"`` (multi-output trees) and ``"sklearn-st-rf"`` (one forest
  per output): scikit-learn random forests with the paper's default settings
  (100 trees; regression k = p/3 and min_samples_split 5; classification
  k = sqrt(p), fully grown). They have nothing to select: each repeat fits them
  on the whole training set and scores them on the test set.

Our own forests (``engine.FOREST_NAMES``: mo-rf, st-rf, mo-et and the random
forests on projected outputs of paper 003) run exactly like those reference
forests: the same default settings, no grid, fitted on the whole training set.
So does ``"defaults"`` (``engine.names.DEFAULTS``): the boosting estimator as a
practitioner gets it, ``MultiOutputBoostingRegressor`` / ``MultiLabelBoostingClassifier``
with only ``random_state`` set (its defaults, early stopping "auto" included), the
quick what-if row beside the papers' methods with their selected settings. And so does
``"xgboost"`` (``engine.names.XGBOOST``, :class:`engine.experiments.peers.ReferenceXGBoost`):
XGBoost with its defaults, the peer beside that row.

The app's cost estimate (``estimate_model_selection_cost`` in ``engine/app/page_models/cost.py``, a
layer above) predicts the number of fits and the running time of a call before it starts
(its "this will take about ..." message) from the helpers here.
"""
from __future__ import annotations

import inspect
import time
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np
import pandas as pd
from scipy import stats

from engine.datasets import THESIS_PROBLEMS, Dataset, make_friedman1_multioutput
from engine.estimators.artificial import ArtificialGBRT
from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.references import ReferenceForest, ReferenceGB, forest_params
from engine.estimators.registry import ESTIMATOR_NAMES, FOREST_NAMES, make_estimator
from engine.experiments.convergence import check_estimators
from engine.experiments.peers import ReferenceXGBoost
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, check_callbacks, ordered_map
from engine.experiments.selection_grid import BUDGETS, grid_configurations, resolve_budget
from engine.experiments.settings import check_flag
from engine.metrics import half_macro_r2, lrap, macro_r2
from engine.names import (
    ARTIFICIAL,
    DEFAULTS,
    FRIEDMAN_PROBLEMS,
    REFERENCE_FOREST_NAMES,
    REFERENCE_NAMES,
    STRUCTURES,
    XGBOOST,
)
from engine.validation import check_int as _check_int
from engine.validation import check_n_jobs

__all__ = [
    "BUDGETS",
    "ModelSelectionResult",
    "SelectionSettings",
    "selection_problem",
    "KNOWN_NAMES",
    "run_model_selection",
]

# Names with nothing to select (fixed default settings): fitted once per repeat.
NO_GRID = REFERENCE_FOREST_NAMES + FOREST_NAMES + (DEFAULTS, XGBOOST)
KNOWN_NAMES = (ARTIFICIAL,) + ESTIMATOR_NAMES + (DEFAULTS,) + FOREST_NAMES + REFERENCE_NAMES + (XGBOOST,)
# Paper 002, section 4.1.2: "20% of the training samples as a validation set".
VALIDATION_FRACTION = 0.2
# Paper 002, section 4.1.3: without a standard test set, "40% of the samples as
# training, 10% of the samples as validation set and 50% of the samples as
# testing set" -- half the rows for testing; the other half is the training set,
# of which VALIDATION_FRACTION (20%, i.e. 10% of all rows) validates.
TEST_FRACTION = 0.5
FRIEDMAN_N_TRAIN, FRIEDMAN_N_TEST = 300, 4000
# Multi-label validation: LRAP is read at (at most) this many log-spaced steps.
N_CHECKPOINTS = 100

# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------


@dataclass
class ModelSelectionResult(JsonResult):
    """Test scores of the selected models, over repeats.

    ``scores[i, r]`` is estimator i's test score on repeat r (``metric``);
    ``mean``, ``std`` (ddof=1), ``ranks`` (1 = best mean); ``pvalues[i, k]``
    the paired t-test p-value (NaN on the diagonal and with < 2 repeats);
    ``signs[i][k]`` '>' if estimator i has the better mean, '<' if worse.
    ``half_*`` (with noisy outputs): half-macro-r2 on the original outputs.
    ``chosen[estimator]`` lists per repeat the selected hyper-parameters,
    ``n_steps`` and the validation score.
    """

    dataset: str
    task: str
    metric: str
    estimators: list
    scores: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    ranks: np.ndarray
    pvalues: np.ndarray
    signs: list
    chosen: dict
    budget: dict
    n_repeats: int
    n_repeats_done: int
    n_train: int
    n_test: int
    n_validation: int
    n_noisy_outputs: int
    seed: int
    total_time: float
    split: str
    half_scores: Optional[np.ndarray] = None
    half_mean: Optional[np.ndarray] = None
    half_std: Optional[np.ndarray] = None
    half_ranks: Optional[np.ndarray] = None
    partial: bool = False
    refit: bool = True

    def to_frame(self) -> pd.DataFrame:
        """One row per estimator: mean, std, rank (and half-macro-r2 columns), per-repeat scores."""
        df = pd.DataFrame({"dataset": self.dataset, "estimator": self.estimators,
                           "metric": self.metric, "mean": self.mean, "std": self.std,
                           "rank": self.ranks})
        if self.half_scores is not None:
            df["half_mean"], df["half_std"], df["half_rank"] = self.half_mean, self.half_std, self.half_ranks
        df["scores"] = [" ".join(f"{s:.4f}" for s in row) for row in self.scores]
        return df

    def pvalue_frame(self) -> pd.DataFrame:
        """The p-value matrix as text, Table 5 style: '0.003(>)' = row better than column."""
        cells = [["" if i == k else (("nan" if not np.isfinite(self.pvalues[i, k])
                                      else f"{self.pvalues[i, k]:.2g}")
                                     + (f"({self.signs[i][k]})" if self.signs[i][k] else ""))
                  for k in range(len(self.estimators))] for i in range(len(self.estimators))]
        return pd.DataFrame(cells, index=self.estimators, columns=self.estimators)

    def to_dict(self) -> dict:
        out = {}
        for key, value in asdict(self).items():
            out[key] = value.tolist() if isinstance(value, np.ndarray) else value
        return out

    @classmethod
    def from_dict(cls, d):
        """The inverse of :meth:`to_dict` (also of its JSON, where NaN became None): a finished
        table's data set read back from the reproduction's cache."""
        arrays = {"scores", "mean", "std", "pvalues", "half_scores", "half_mean", "half_std"}
        ranks = {"ranks", "half_ranks"}
        values = {}
        for key, value in d.items():
            if value is not None and key in arrays:
                value = np.array(value, dtype=np.float64)     # None (NaN in JSON) -> nan
            elif value is not None and key in ranks:
                value = np.array(value, dtype=int)
            values[key] = value
        return cls(**values)


# --------------------------------------------------------------------------
# Validation of the arguments
# --------------------------------------------------------------------------


def selection_problem(dataset, n_noisy_outputs=0):
    """A :class:`~engine.experiments.problems.Problem` for the protocol: a Problem as it is; a
    Friedman1 name ("friedman1-chain" or just "chain"; 300 + 4000 samples, ``n_noisy_outputs``
    appended); a data set's name or a :class:`~engine.datasets.Dataset`."""
    if isinstance(dataset, Problem):
        return dataset
    if isinstance(dataset, str):
        short = dataset[len("friedman1-"):] if dataset.startswith("friedman1-") else dataset
        if short in STRUCTURES:
            return Problem(f"friedman1-{short}", n_train=FRIEDMAN_N_TRAIN, n_test=FRIEDMAN_N_TEST,
                           n_noisy_outputs=n_noisy_outputs)
        return Problem(dataset, n_noisy_outputs=n_noisy_outputs)
    if isinstance(dataset, Dataset):
        return Problem(dataset.name, data=dataset, n_noisy_outputs=n_noisy_outputs)
    raise ValueError(f"dataset must be a name, a Dataset or a Problem, got {dataset!r}")


@dataclass(frozen=True)
class SelectionSettings:
    """How the protocol runs, checked when built.

    budget : "quick" (seconds), "moderate" (minutes), "full" (the paper's grid, n_steps 10000) or a
        dict with any of learning_rate, max_leaf_nodes, max_features, loss ("all", "primary" or
        names), n_steps (missing keys from "quick")
    n_repeats : random splits, at least 2 (a paired test needs two)
    refit : True: the chosen setting is fitted again on the whole training set (training +
        validation) before the test; False: on the 80% it was validated on (see the module doc)
    n_jobs : joblib workers for the grid points
    """

    budget: object = "quick"
    n_repeats: int = 5
    refit: bool = True
    n_jobs: int = 1

    def __post_init__(self):
        resolve_budget(self.budget, "regression", losses=False)     # its form; the losses need the task
        _check_int(self.n_repeats, "n_repeats", 2)
        check_flag(self.refit, "refit")
        check_n_jobs(self.n_jobs, allow_none=False)

    def grid(self, task):
        """The grid for a ``task`` problem (ValueError naming a loss the task refuses)."""
        return resolve_budget(self.budget, task)


# --------------------------------------------------------------------------
# Work units (module level, picklable)
# --------------------------------------------------------------------------


def make_method(name, task, structure, n_real, params):
    if name == ARTIFICIAL:
        return ArtificialGBRT(structure, n_real, **params)
    if name == DEFAULTS:        # only the seed (and a probe's steps: engine.app.page_models.cost)
        est = _defaults_class(task)(random_state=params["random_state"])
        return est.set_params(n_estimators=params["n_estimators"]) if params.get("n_estimators") else est
    if name == "sklearn-gb":
        return ReferenceGB(task, **params)
    if name == XGBOOST:         # its defaults: 100 rounds (fewer only for a probe)
        return ReferenceXGBoost(task, random_state=params["random_state"], n_estimators=params.get("n_estimators"))
    n_trees = params.get("n_estimators") or 100      # forests: the paper's 100 unless probing
    if name in REFERENCE_FOREST_NAMES:
        return ReferenceForest(task, per_output=name == "sklearn-st-rf", random_state=params["random_state"],
                               n_trees=n_trees)
    if name in FOREST_NAMES:
        settings = forest_params(task, n_trees)
        return make_estimator(name, task=task, random_state=params["random_state"], **settings)
    return make_estimator(name, task=task, **params)


def _defaults_class(task):
    return MultiLabelBoostingClassifier if task == "multilabel" else MultiOutputBoostingRegressor


def no_grid_steps(name, task):
    """Steps (trees) a fixed-setting estimator fits at most: the defaults' n_estimators, a forest's or
    XGBoost's 100."""
    return _defaults_class(task)().n_estimators if name == DEFAULTS else 100


def _defaults_choice(task):
    """What "defaults" 'chose': the estimator's defaults, for ``chosen``."""
    model = _defaults_class(task)()
    params = {**model.get_params(), "leaf_estimation": model._leaf_estimation()}   # "auto" resolved
    return dict({k: params[k] for k in ("strategy", "projection", "n_projections", "learning_rate",
                                        "max_leaf_nodes", "leaf_estimation", "n_estimators", "early_stopping")},
                n_steps=None, validation_score=None)


def _forest_choice(task, p):
    """What a forest 'chose' (fixed settings, section 4.1.2), for ``chosen``."""
    k = max(1, int(p / 3)) if task == "regression" else max(1, int(np.sqrt(p)))
    return dict(n_trees=100, max_features=k, min_samples_split=5 if task == "regression" else 2,
                n_steps=None, validation_score=None)


def _checkpoints(n_steps):
    return np.unique(np.round(np.logspace(0, np.log10(n_steps), N_CHECKPOINTS)).astype(int))


def _fit(est, X, Y, callback, **kwargs):
    """est.fit(X, Y, **kwargs), with ``callback`` when the estimator's fit takes one."""
    if callback is not None and "callback" in inspect.signature(est.fit).parameters:
        kwargs["callback"] = callback
    return est.fit(X, Y, **kwargs)


def _validation_curve(name, task, structure, n_real, params, X_fit, Y_fit, X_val, Y_val, callback=None):
    """Fit on (X_fit, Y_fit); return (steps, validation scores). Sees no test data."""
    est = make_method(name, task, structure, n_real, params)
    if name == "sklearn-gb":
        _fit(est, X_fit, Y_fit, callback)
        return est.validation_curve(X_val, Y_val, None if task == "regression" else _checkpoints(est.n_steps_))
    if task == "regression":
        _fit(est, X_fit, Y_fit, callback, eval_set=(X_val, Y_val))
        scores = np.asarray(est.eval_score_)
        return np.arange(1, len(scores) + 1), scores
    _fit(est, X_fit, Y_fit, callback)
    wanted = set(_checkpoints(est.n_steps_).tolist())
    steps, scores = [], []
    for m, F in enumerate(est.staged_decision_function(X_val), start=1):
        if m in wanted:
            steps.append(m)
            scores.append(lrap(Y_val, F))
    return np.asarray(steps), np.asarray(scores)


def evaluate_configuration(name, task, structure, n_real, config, n_steps, random_state, X_fit, Y_fit, X_val, Y_val,
              callback=None):
    params = dict(config, n_estimators=n_steps, random_state=random_state)
    steps, scores = _validation_curve(name, task, structure, n_real, params, X_fit, Y_fit, X_val, Y_val,
                                      callback)
    scores = np.where(np.isfinite(scores), scores, -np.inf)
    best = int(np.argmax(scores))                      # first maximum: fewest steps
    return float(scores[best]), int(steps[best])


def refit_and_score(name, task, structure, n_real, config, n_steps, random_state,
                     X_train, Y_train, X_test, Y_test, n_noisy, callback=None):
    est = make_method(name, task, structure, n_real, dict(config, n_estimators=n_steps, random_state=random_state))
    _fit(est, X_train, Y_train, callback)
    if task == "multilabel":
        # Label scores for LRAP: the (n, d) decision function (boosting's raw scores, a
        # forest's 2 P(label) - 1, which ranks labels as its probabilities do).
        scores = est.decision_function(X_test)
        return lrap(Y_test, scores), None
    pred = est.predict(X_test)
    half = half_macro_r2(Y_test, pred, n_real) if n_noisy else None
    return macro_r2(Y_test, pred), half


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def make_splits(problem, n_repeats, seed):
    """The protocol's splits of ``problem``: (per repeat a dict X_train, Y_train, X_test, Y_test, fit
    and val (indices into the training rows), random_state; the split in words, n_train, n_test,
    n_validation, p, d)."""
    root = np.random.SeedSequence(seed)
    data_seq, *rep_seqs = root.spawn(1 + n_repeats)
    if problem.synthetic:
        n_train, n_test = problem.n_train, problem.n_test
        X, Y, _ = make_friedman1_multioutput(problem.dataset.split("-", 1)[1], n_samples=n_train + n_test,
                                             n_outputs=problem.n_outputs, noise=problem.noise,
                                             input_distribution=problem.input_distribution,
                                             n_noisy_outputs=problem.n_noisy_outputs,
                                             random_state=np.random.default_rng(data_seq))
        split = (f"Friedman1 data set of {len(X)} samples drawn once; each repeat a random "
                 f"{n_train}/{n_test} train/test split")
    else:
        data = problem.load(seed)
        X, Y = data.X, data.Y
        if data.test_indices is not None:
            n_train = data.n_samples - len(data.test_indices)
            split = (f"random splits with the standard split's sizes ({n_train} train / "
                     f"{len(data.test_indices)} test)")
        else:
            n_train = data.n_samples - int(round(TEST_FRACTION * data.n_samples))
            split = f"random splits, {1 - TEST_FRACTION:.0%} train / {TEST_FRACTION:.0%} test (no standard split)"
    n = X.shape[0]      # not len(X): a sparse X (bibtex, corel5k) has no len
    n_val = int(round(VALIDATION_FRACTION * n_train))
    reps = []
    for seq in rep_seqs:
        rng = np.random.default_rng(seq)
        perm = rng.permutation(n)
        train, test = perm[:n_train], perm[n_train:]
        inner = rng.permutation(n_train)
        model_seed = int(rng.integers(0, 2**31 - 1))
        reps.append(dict(X_train=X[train], Y_train=Y[train], X_test=X[test], Y_test=Y[test],
                         val=inner[:n_val], fit=inner[n_val:], random_state=model_seed))
    return reps, split, n_train, n - n_train, n_val, X.shape[1], Y.shape[1]


def check_request(problem, settings, estimators):
    """Every argument of :func:`run_model_selection` checked before anything is drawn: (Problem,
    task, the grid, the estimators as a list). Also the cost estimate's check."""
    if not isinstance(problem, Problem):
        problem = selection_problem(problem)
    if not isinstance(settings, SelectionSettings):
        raise ValueError(f"settings must be a SelectionSettings, got {type(settings).__name__}")
    if problem.dataset in THESIS_PROBLEMS or (problem.synthetic and problem.dataset not in FRIEDMAN_PROBLEMS):
        raise ValueError(f"dataset: the protocol runs on the Friedman1 multi-output problems and data sets, "
                         f"not {problem.dataset!r}")
    task = problem.shape()[0]
    # artificial-gbrt knows the Friedman1 structures only: a loaded data set is never one
    estimators = check_estimators(estimators, problem.dataset if problem.synthetic else f"data set {problem.dataset}",
                                  known=KNOWN_NAMES)
    return problem, task, settings.grid(task), estimators


def run_model_selection(problem, settings, estimators, *, seed=0, progress=None, stop=None,
                        report_partial=False) -> ModelSelectionResult:
    """Select hyper-parameters on validation data and compare estimators (paper 002, 4.1.2).

    Parameters
    ----------
    problem : a :class:`~engine.experiments.problems.Problem`, or what :func:`selection_problem`
        takes: "friedman1-chain" | "friedman1-group" | "friedman1-ind" (or "chain"...; 300 + 4000
        samples drawn once, its ``n_noisy_outputs`` appended: Table 6, half-macro-r2 is then
        reported on the original outputs), a shipped data set's name or a
        :class:`engine.datasets.Dataset`.
    settings : :class:`SelectionSettings` (the budget's grid, repeats, refit, workers).
    estimators : list of names from ``ESTIMATOR_NAMES``, ``FOREST_NAMES``,
        "artificial-gbrt" (Friedman1 only) and the scikit-learn references
        ``REFERENCE_NAMES`` ("sklearn-gb", "sklearn-rf", "sklearn-st-rf"; see the
        module doc); ``KNOWN_NAMES`` lists them all.
    seed : int, draws the data (Friedman1) and the splits.
    progress : callable(fraction, message); stop : ``is_set()``-able: returns
        the repeats finished so far, flagged ``partial`` (checked before the
        first fit; with n_jobs=1 also inside every fit, see the module doc).
    report_partial : if True, after every finished repeat ``progress`` is also
        called as ``progress(fraction, message, partial=result_so_far)`` (the
        signature of :class:`engine.app.serving.jobs.Job`'s callback), the result flagged
        ``partial`` until the last repeat.
    """
    started = time.perf_counter()
    problem, task, grid, estimators = check_request(problem, settings, estimators)
    seed = _check_int(seed, "seed", 0)
    check_callbacks(progress, stop)
    if report_partial not in (True, False):
        raise ValueError(f"report_partial must be True or False, got {report_partial!r}")
    reps, split, n_train, n_test, n_val, p, d_all = make_splits(problem, settings.n_repeats, seed)
    run = _Protocol(problem, task, settings, grid, estimators, p, d_all, progress, stop)

    def result(n_done, partial):
        return run.result(dict(n_train=n_train, n_test=n_test, n_val=n_val, seed=seed, started=started,
                               split=split), n_done, partial)

    n_done, partial = 0, run.runner.stopped()
    for r, rep in enumerate([] if partial else reps):
        best = run.select(r, rep)
        partial = best is None or not run.final(r, rep, best)
        if partial:
            break
        n_done = r + 1
        extra = {"partial": result(n_done, n_done < settings.n_repeats)} if report_partial else {}
        run.runner.report(run.done_units, f"repeat {r + 1}/{settings.n_repeats} done", **extra)
        if run.runner.stopped() and n_done < settings.n_repeats:
            partial = True
            break
    return result(n_done, partial)


class _Protocol:
    """One run of the protocol: per repeat the grid search on the validation rows (:meth:`select`)
    and the final fits scored on the test rows (:meth:`final`), the scores kept as they come."""

    def __init__(self, problem, task, settings, grid, estimators, p, d_all, progress, stop):
        self.problem, self.task, self.settings, self.grid, self.estimators = problem, task, settings, grid, estimators
        self.p, self.n_noisy = p, problem.n_noisy_outputs
        self.n_real = d_all - self.n_noisy
        self.structure = problem.dataset.split("-", 1)[1] if problem.synthetic else None
        self.configs = grid_configurations(grid, p)
        self.grid_of = {e: ([] if e in NO_GRID else list(range(len(self.configs)))) for e in estimators}
        n = settings.n_repeats
        self.runner = Runner(progress, stop, n * sum(len(g) + 1 for g in self.grid_of.values()))
        self.done_units = 0
        self.scores = np.full((len(estimators), n), np.nan)
        self.half = np.full((len(estimators), n), np.nan) if self.n_noisy else None
        self.chosen = {e: [] for e in estimators}

    def _map(self, fn, arglist, labels):
        return _parallel(self.settings.n_jobs, fn, arglist,
                         [self.runner.fit_callback(self.done_units + k, label) for k, label in enumerate(labels)])

    def select(self, r, rep):
        """The best (validation score, steps, grid point) per estimator on repeat ``r``; None when a
        stop cut the repeat."""
        X_fit, Y_fit = rep["X_train"][rep["fit"]], rep["Y_train"][rep["fit"]]
        X_val, Y_val = rep["X_train"][rep["val"]], rep["Y_train"][rep["val"]]
        jobs = [(e, c) for e in self.estimators for c in self.grid_of[e]]
        best = {e: (np.nan, None, None) for e in self.estimators if not self.grid_of[e]}
        n = self.settings.n_repeats
        labels = [f"repeat {r + 1}/{n}: {e}, grid point {c + 1}/{len(self.configs)}" for e, c in jobs]
        args = [(e, self.task, self.structure, self.n_real, self.configs[c], self.grid["n_steps"],
                 rep["random_state"], X_fit, Y_fit, X_val, Y_val) for e, c in jobs]
        for (e, c), label, (score, n_best) in zip(jobs, labels, self._map(evaluate_configuration, args, labels)):
            if self.runner.stopped():       # this repeat cannot be finished: drop it
                return None
            self.done_units += 1
            if e not in best or score > best[e][0]:
                best[e] = (score, n_best, c)
            self.runner.report(self.done_units, label)
        return best

    def final(self, r, rep, best):
        """Fit each estimator's chosen setting and score it on the test rows; False when a stop cut
        the repeat (its scores are then not kept)."""
        refit, n = self.settings.refit, self.settings.n_repeats
        what = "refit on the whole training set" if refit else "final fit on the 80% it was validated on"
        labels = [f"repeat {r + 1}/{n}: {e}, {what}" for e in self.estimators]
        fit_rows = (rep["X_train"][rep["fit"]], rep["Y_train"][rep["fit"]])
        args = [(e, self.task, self.structure, self.n_real, self.configs[best[e][2]] if self.grid_of[e] else {},
                 best[e][1], rep["random_state"],
                 *((rep["X_train"], rep["Y_train"]) if refit or not self.grid_of[e] else fit_rows),
                 rep["X_test"], rep["Y_test"], self.n_noisy) for e in self.estimators]
        for i, (e, (test_score, half_score)) in enumerate(zip(self.estimators, self._map(refit_and_score, args,
                                                                                           labels))):
            if self.runner.cut or (self.runner.stopped() and i < len(self.estimators) - 1):
                return False    # a refit was cut short, or some were not made: drop the repeat
            self.scores[i, r] = test_score
            if self.half is not None:
                self.half[i, r] = half_score
            if self.grid_of[e]:
                self.chosen[e].append(dict(self.configs[best[e][2]], n_steps=best[e][1], validation_score=best[e][0]))
            else:
                self.chosen[e].append(_defaults_choice(self.task) if e == DEFAULTS else dict(ReferenceXGBoost.DEFAULTS)
                                      if e == XGBOOST else _forest_choice(self.task, self.p))
            self.done_units += 1
        return True

    def result(self, sizes, n_done, partial):
        """The :class:`ModelSelectionResult` of the first ``n_done`` repeats."""
        scores = self.scores[:, :n_done].copy()
        mean, std, ranks = _summary(scores)
        pvalues, signs = _paired_tests(scores, mean)
        result = ModelSelectionResult(
            dataset=self.problem.dataset, task=self.task, metric="lrap" if self.task == "multilabel" else "macro-r2",
            estimators=list(self.estimators), scores=scores, mean=mean, std=std, ranks=ranks, pvalues=pvalues,
            signs=signs, chosen={e: [dict(c) for c in v[:n_done]] for e, v in self.chosen.items()},
            budget={k: (list(v) if isinstance(v, tuple) else v) for k, v in self.grid.items()},
            n_repeats=self.settings.n_repeats, n_repeats_done=n_done, n_train=sizes["n_train"],
            n_test=sizes["n_test"], n_validation=sizes["n_val"], n_noisy_outputs=self.n_noisy, seed=sizes["seed"],
            total_time=time.perf_counter() - sizes["started"], split=sizes["split"], partial=partial,
            refit=self.settings.refit)
        if self.half is not None:
            result.half_scores = self.half[:, :n_done].copy()
            result.half_mean, result.half_std, result.half_ranks = _summary(result.half_scores)
        return result


def _parallel(n_jobs, fn, arglist, callbacks):
    """Lazy results of fn(*args) in order; in-process call k gets ``callback=callbacks[k]``."""
    return ordered_map(fn, arglist, n_jobs=n_jobs, local_kwargs=[dict(callback=cb) for cb in callbacks])


def _summary(scores):
    n = scores.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = scores.mean(axis=1) if n else np.full(scores.shape[0], np.nan)
        std = scores.std(axis=1, ddof=1) if n >= 2 else np.full(scores.shape[0], np.nan)
    ranks = (stats.rankdata(-mean, method="min").astype(int) if n
             else np.zeros(scores.shape[0], dtype=int))
    return mean, std, ranks


MIN_TEST_REPEATS = 5


def _paired_tests(scores, mean):
    E, n = scores.shape
    pvalues = np.full((E, E), np.nan)
    signs = [["" for _ in range(E)] for _ in range(E)]
    for i in range(E):
        for k in range(E):
            if i == k:
                continue
            if n >= 2:
                with np.errstate(invalid="ignore", divide="ignore"):
                    pvalues[i, k] = stats.ttest_rel(scores[i], scores[k]).pvalue
            if n and mean[i] != mean[k]:
                signs[i][k] = ">" if mean[i] > mean[k] else "<"
    return pvalues, signs
