"""Bias–variance on a data set that has no generator (an upload, a shipped set): learning sets drawn
from its own rows.

:mod:`engine.experiments.bias_variance` draws each learning set afresh from Friedman1's generator and
knows E[y | x]. A user's CSV has neither, so here (our choice, in the spirit of the thesis' section
4.1 protocol; the papers only decompose on Friedman1):

The settings (:class:`DataBiasVarianceSettings`) are checked when built; what the rows cannot give
(too few for the sets asked) when the data set's size is known, before any fit.

* The rows are shuffled once (``seed``); ``n_test`` of them (default: half, at most 2 000) are the
  test rows, never in any learning set; the others are the pool the learning sets come from.
* ``scheme="disjoint"`` (default): the pool is cut into ``n_learning_sets`` disjoint subsamples of
  ``n_train`` rows (default: as large as the pool allows). The sets are independent draws from the
  data's distribution, as the generator's are, but each is smaller than the data.
  ``scheme="bootstrap"``: each learning set is ``n_train`` rows (default: the pool's size) drawn
  with replacement from the pool: full-size sets, but they overlap, so the learning-set variance
  is that of bootstrap replicates (smaller than between truly independent sets).
* Per learning set, ``n_seeds`` models with different ``random_state`` (the algorithm's own
  randomness: projections, feature sampling, bootstrap of a forest).
* The loss is the squared error: of the predictions in regression, of the predicted label
  probabilities in multi-label classification (the Brier score). With the test rows' observed y
  in place of E[y | x], the noise and the bias² cannot be told apart: the decomposition is
  ``error = (bias² + noise) + learning-set variance + algorithm variance``, exact (population
  variances, as the Friedman1 module uses), averaged over test rows and outputs.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from engine.estimators.registry import ALL_NAMES, make_estimator
from engine.experiments.bias_variance import check_estimator_params
from engine.experiments.problems import data_set_problem
from engine.experiments.runner import JsonResult, Runner, check_callbacks
from engine.experiments.settings import check_kind, check_names, check_seed
from engine.validation import check_choice, check_int

__all__ = ["SCHEMES", "DataBiasVarianceResult", "DataBiasVarianceSettings", "run_bias_variance_on_data"]

SCHEMES = ("disjoint", "bootstrap")
MAX_TEST_ROWS = 2000


@dataclass
class DataBiasVarianceResult(JsonResult):
    dataset: str
    task: str
    estimators: list
    scheme: str
    n_learning_sets: int
    n_train: int
    n_test: int
    n_seeds: int
    seed: int
    params: dict
    error: list = field(default_factory=list)                   # per estimator
    bias2_noise: list = field(default_factory=list)
    learning_set_variance: list = field(default_factory=list)
    algorithm_variance: list = field(default_factory=list)
    n_sets_done: int = 0
    partial: bool = False

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**d)

    @property
    def variance(self) -> list:
        return [a + b for a, b in zip(self.learning_set_variance, self.algorithm_variance)]


@dataclass(frozen=True)
class DataBiasVarianceSettings:
    """How the learning sets are drawn from the rows and how many models each gets, checked when built.

    scheme : "disjoint" or "bootstrap" (see the module's docstring)
    n_learning_sets : learning sets, at least 2
    n_train : rows per learning set (None: as many as the scheme allows)
    n_test : test rows (None: half the rows, at most 2 000)
    n_seeds : models per learning set, with different random states (above 1: the algorithm variance)
    estimator_params : parameters every estimator gets (e.g. ``n_estimators``, ``max_leaf_nodes``; not
        ``random_state``: the seeds come from the run's ``seed``)
    """

    scheme: str = "disjoint"
    n_learning_sets: int = 8
    n_train: int | None = None
    n_test: int | None = None
    n_seeds: int = 1
    estimator_params: dict = field(default_factory=dict)

    def __post_init__(self):
        check_choice(self.scheme, "scheme", SCHEMES)
        check_int(self.n_learning_sets, "n_learning_sets", 2)
        if self.n_train is not None:
            check_int(self.n_train, "n_train", 2)
        if self.n_test is not None:
            check_int(self.n_test, "n_test", 1)
        check_int(self.n_seeds, "n_seeds", 1)
        object.__setattr__(self, "estimator_params", dict(check_estimator_params(self.estimator_params)))

    def sets(self, n_rows, seed=0):
        """``(test rows, [learning set rows, ...], n_train, n_test)`` of a data set of ``n_rows`` rows:
        the row indices each part takes (see the module's docstring); ValueError when the rows cannot
        give them."""
        n_learning_sets, scheme = self.n_learning_sets, self.scheme
        rng = np.random.default_rng(check_seed(seed))
        n_test = min(n_rows // 2, MAX_TEST_ROWS) if self.n_test is None else self.n_test
        pool_size = n_rows - n_test
        if pool_size < 2:
            raise ValueError(f"n_test = {n_test} leaves {pool_size} of the {n_rows} rows for learning: too few")
        default = pool_size // n_learning_sets if scheme == "disjoint" else pool_size
        n_train = default if self.n_train is None else self.n_train
        if n_train < 2:
            raise ValueError(f"{n_learning_sets} disjoint learning sets from {pool_size} rows would have {n_train} "
                             "row(s) each: use fewer learning sets, or the bootstrap")
        if scheme == "disjoint" and n_train * n_learning_sets > pool_size:
            raise ValueError(f"{n_learning_sets} disjoint learning sets of n_train = {n_train} rows need "
                             f"{n_train * n_learning_sets} rows; the pool has {pool_size} (the other {n_test} are "
                             "the test rows): use fewer or smaller sets, or the bootstrap")
        order = rng.permutation(n_rows)
        test, pool = np.sort(order[:n_test]), order[n_test:]
        if scheme == "disjoint":
            sets = [np.sort(pool[k * n_train:(k + 1) * n_train]) for k in range(n_learning_sets)]
        else:
            sets = [np.sort(rng.choice(pool, size=n_train, replace=True)) for _ in range(n_learning_sets)]
        return test, sets, n_train, n_test


def _scores(est, X, task):
    """What the squared error is measured on: predictions, or label probabilities (n, d)."""
    if task == "regression":
        return np.asarray(est.predict(X), dtype=np.float64).reshape(X.shape[0], -1)
    blocks, cols = est.predict_proba(X), []
    for block, classes in zip(blocks, est.classes_):
        classes = list(classes)
        cols.append(block[:, classes.index(1)] if 1 in classes else np.zeros(X.shape[0]))
    return np.column_stack(cols)


def _decompose(F, Y_test):
    """F: (sets, seeds, n_test, d). The four terms, each averaged over test rows and outputs."""
    per_set = F.mean(axis=1)
    mean = per_set.mean(axis=0)
    return dict(error=float(((F - Y_test) ** 2).mean()), bias2_noise=float(((mean - Y_test) ** 2).mean()),
                learning_set_variance=float(((per_set - mean) ** 2).mean()),
                algorithm_variance=float(F.var(axis=1).mean()))


def _checked(problem, settings, estimators, seed):
    """The arguments checked before any fit: (Problem, the loaded data set, task, estimators, learning sets)."""
    problem = data_set_problem(problem, "run_bias_variance_on_data")   # a generator's: run_bias_variance
    check_kind(settings, "settings", DataBiasVarianceSettings)
    estimators = check_names(estimators, "estimators", ALL_NAMES, "estimator")
    check_seed(seed)
    dataset = problem.load(seed)
    task = "multilabel" if dataset.task == "multilabel" else "regression"
    for name in estimators:       # bad parameters fail here, before any work
        make_estimator(name, task=task, **settings.estimator_params)
    return problem, dataset, task, estimators, settings.sets(dataset.n_samples, seed)


def run_bias_variance_on_data(problem, settings, estimators, *, seed=0, progress=None,
                              stop=None) -> DataBiasVarianceResult:
    """The decomposition of each estimator's test error over learning sets drawn from a data set's rows.

    problem : a data set's :class:`~engine.experiments.problems.Problem` (an upload, a shipped set), or
        what :meth:`Problem.of` takes (a :class:`engine.datasets.Dataset`, a shipped set's name)
    settings : :class:`DataBiasVarianceSettings` (the learning sets, the models per set, their parameters)
    estimators : names of :data:`engine.estimators.registry.ALL_NAMES`
    seed : draws the test rows, the learning sets and the models' random states
    A stop keeps the learning sets finished (``partial=True``; at least 2 are needed for a result).
    """
    problem, dataset, task, estimators, (test, sets, n_train, n_test) = _checked(problem, settings, estimators, seed)
    check_callbacks(progress, stop)
    n_seeds, params = settings.n_seeds, settings.estimator_params
    X_test, Y_test = dataset.X[test], np.asarray(dataset.Y[test], dtype=np.float64)
    seeds = np.random.SeedSequence(seed).generate_state(len(sets) * n_seeds).reshape(len(sets), n_seeds)
    runner = Runner(progress, stop, len(estimators) * len(sets))
    F = np.zeros((len(estimators), len(sets), n_seeds, n_test, Y_test.shape[1]))
    done = 0
    for k, rows in enumerate(sets):
        complete = True
        for e, name in enumerate(estimators):
            for s in range(n_seeds):
                if runner.stopped():
                    complete = False
                    break
                est = make_estimator(name, task=task, random_state=int(seeds[k, s]), **params)
                F[e, k, s] = _scores(est.fit(dataset.X[rows], dataset.Y[rows]), X_test, task)
            runner.report(k * len(estimators) + e + 1, f"learning set {k + 1}/{len(sets)}: {name}")
        if not complete:
            break
        done = k + 1
    if done < 2:
        raise ValueError("stopped before 2 learning sets were done: no variance to measure yet")
    terms = [_decompose(F[e, :done], Y_test) for e in range(len(estimators))]
    return DataBiasVarianceResult(
        dataset=problem.dataset, task=task, estimators=list(estimators), scheme=settings.scheme,
        n_learning_sets=len(sets), n_train=n_train, n_test=n_test, n_seeds=n_seeds, seed=int(seed), params=dict(params),
        **{key: [t[key] for t in terms] for key in terms[0]}, n_sets_done=done, partial=done < len(sets))
