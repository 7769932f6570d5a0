"""Bias-variance decomposition of multi-output boosting by Monte-Carlo simulation.

Thesis 001, sections 4.1-4.2 (Figures 4.1 / 4.2, eq. 4.28) and paper 003,
section 3.3 / Appendix C. For the square loss at a test point x and output j,
averaging over learning sets L and over the algorithm's randomness theta
(random_state: output projections, feature sampling):

    E_{L,theta,y|x} (y - f_{L,theta}(x))^2
        = Var(y|x)                                   noise
        + (E_L E_theta f(x) - E[y|x])^2              bias^2
        + Var_L(E_theta f(x))                        learning-set variance
        + E_L Var_theta(f(x))                        algorithm variance

(variance = learning-set variance + algorithm variance). Averaging M
randomized models with independent theta divides only the algorithm term by
M (eq. 4.28).

Choices made here (all documented in the result):

* Data: :func:`engine.datasets.make_friedman1_multioutput` (uniform inputs).
  One fixed test set of ``n_test`` points, with its Bayes prediction E[Y|X];
  ``n_learning_sets`` independent learning sets of ``n_train`` points, and
  ``n_seeds`` random_state values per set.
* Noise is known exactly: Var(y_j|x) = noise^2 for "group" and "ind",
  j * noise^2 for output j (1-based) of "chain".
* The expected test error ``error`` is computed as noise + E_{L,theta} mean
  (f - E[y|x])^2, i.e. the expectation over y|x is taken analytically (no
  extra Monte-Carlo noise). The empirical error on the noisy test outputs
  (one noise draw) is reported too as ``error_noisy_test``, for a sanity check.
* Expectations over L and theta are sample means and variances are
  population variances (divide by the number of sets / seeds), so that the
  identity error = noise + bias^2 + variance holds to rounding error, which
  the result checks (``identity_gap``).
* For ``param_name="n_estimators"`` one model is fitted per (set, seed) with
  the largest value and its staged predictions are read at every requested
  value; other parameters refit one model per value.
* Seeds per learning set (``n_seeds=None``): ``DEFAULT_SEEDS`` when random_state
  can change the model (random projections, feature or row sub-sampling,
  bootstrap, random splits), else 1 -- the algorithm variance of a
  deterministic estimator is exactly 0 and more seeds would refit the same model.
* Every argument, including each swept value against the data's shapes (q <= d
  for output sub-sampling, an integer max_features <= p), is checked before
  any work: the same checks the estimator makes in ``fit``.

Stop and progress. With ``n_jobs=1`` (the default) the fits run in this
process: ``progress`` is also called inside a learning set, and a set stop
flag ends the fit in progress at its next chunk of boosting steps (about
every 50 ms; a forest finishes the fit in progress); the interrupted learning
set is dropped and the sets finished so far are returned with
``partial=True``. On worker processes (``n_jobs != 1``, dask) the flag cannot
reach inside a fit: it is checked as each learning set comes back and the sets
not yet started are cancelled.

Repetitions (one task per learning set) run with joblib (``n_jobs``), or on a
dask cluster (``backend="dask"`` or ``client=``). Every random draw comes from
``numpy.random.SeedSequence(seed)`` spawned per learning set, and the results
are accumulated in learning-set order, so the result does not depend on the
backend or the number of workers.
"""
from __future__ import annotations

import inspect
import time
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from engine.datasets import friedman1, make_friedman1_multioutput
from engine.estimators.registry import ALL_NAMES, make_estimator
from engine.experiments.problems import Problem
from engine.experiments.runner import JsonResult, Runner, Stopped, check_callbacks, ordered_map
from engine.names import FRIEDMAN_PROBLEMS, STRUCTURES
from engine.validation import check_int as _check_int
from engine.validation import check_choice, check_n_jobs

__all__ = ["BiasVarianceResult", "BiasVarianceSettings", "run_bias_variance", "check_run", "slice_inputs"]

BACKENDS = ("loky", "dask")
# Random states per learning set for a randomized estimator when n_seeds=None
# (what reproduce_bias_variance uses): enough to see E_L Var_theta(f).
DEFAULT_SEEDS = 5
N_SLICE_POINTS = 101
N_CURVES = 5


# --------------------------------------------------------------------------
# An averaging ensemble of randomized estimators (eq. 4.28)
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------


@dataclass
class BiasVarianceResult(JsonResult):
    """Bias-variance decomposition per value of the swept parameter.

    Arrays indexed ``[k]`` are averaged over test points and outputs for
    ``param_values[k]``; the ``*_per_output`` arrays are ``[k, j]`` (averaged
    over test points only). ``error = noise + bias2 + variance`` and
    ``variance = var_learning_set + var_algorithm``.

    Slice view ("resample the training set"): ``slice_x`` are values of x1 in
    [0, 1] with the other inputs at 0.5; ``slice_curves[k, i]`` is the
    prediction for output 1 of the model fitted on learning set i (seed 0),
    for the first ``slice_curves.shape[1]`` sets; ``slice_mean[k]`` the mean
    prediction over all sets and seeds; ``slice_bayes`` E[y_1 | x].
    """

    estimator: str
    param_name: Optional[str]
    param_values: list
    structure: str
    n_learning_sets: int
    n_sets_done: int
    n_seeds: int
    n_train: int
    n_test: int
    n_outputs: int
    noise_sd: float
    seed: int
    estimator_params: dict
    noise: np.ndarray
    bias2: np.ndarray
    var_learning_set: np.ndarray
    var_algorithm: np.ndarray
    variance: np.ndarray
    error: np.ndarray
    error_noisy_test: np.ndarray
    noise_per_output: np.ndarray
    bias2_per_output: np.ndarray
    var_learning_set_per_output: np.ndarray
    var_algorithm_per_output: np.ndarray
    variance_per_output: np.ndarray
    error_per_output: np.ndarray
    slice_x: np.ndarray
    slice_curves: np.ndarray
    slice_mean: np.ndarray
    slice_bayes: np.ndarray
    partial: bool = False
    elapsed: float = 0.0
    notes: str = field(default=(
        "error = noise + E_{L,theta} mean_x (f - E[y|x])^2 (expectation over y|x taken "
        "analytically); error_noisy_test = mean squared error on one noisy draw of the test "
        "outputs; noise is exact (Var(y|x)); population variances over sets and seeds, so that "
        "the identity is exact; with finite n_seeds var_learning_set also contains "
        "var_algorithm / n_seeds (see var_learning_set_corrected)."))

    @property
    def var_learning_set_corrected(self) -> np.ndarray:
        """Var_L(E_theta f) with the finite-sample biases removed (per value, mean over outputs).

        ``var_learning_set`` is the population variance over the sets of the
        mean over ``n_seeds`` seeds, so its expectation is
        (L-1)/L (Var_L(E_theta f) + E_L Var_theta(f) / n_seeds); and
        ``var_algorithm`` has expectation (S-1)/S E_L Var_theta(f). This
        removes both biases (it is not part of the exact identity).
        """
        L, S = self.n_sets_done, self.n_seeds
        if L < 2:
            return np.full_like(self.var_learning_set, np.nan)
        alg = self.var_algorithm / (S - 1) if S > 1 else 0.0
        return self.var_learning_set * L / (L - 1) - alg

    @property
    def identity_gap(self) -> float:
        """max |error - (noise + bias^2 + variance)| over values and outputs."""
        gap = self.error_per_output - (self.noise_per_output + self.bias2_per_output
                                       + self.var_learning_set_per_output
                                       + self.var_algorithm_per_output)
        return float(np.nanmax(np.abs(gap))) if gap.size else 0.0

    def to_frame(self) -> pd.DataFrame:
        """One row per parameter value: the averaged components."""
        return pd.DataFrame({
            "estimator": self.estimator,
            "param_name": self.param_name or "",
            "param_value": [str(v) for v in self.param_values],
            "error": self.error,
            "noise": self.noise,
            "bias2": self.bias2,
            "variance": self.variance,
            "var_learning_set": self.var_learning_set,
            "var_algorithm": self.var_algorithm,
            "error_noisy_test": self.error_noisy_test,
            "n_sets_done": self.n_sets_done,
            "partial": self.partial,
        })

    def to_dict(self) -> dict:
        out = {}
        for key, value in asdict(self).items():
            if isinstance(value, np.ndarray):
                value = value.tolist()
            out[key] = value
        out["param_values"] = [v if isinstance(v, (int, float, str, type(None))) else str(v)
                               for v in self.param_values]
        out["estimator_params"] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                                   for k, v in self.estimator_params.items()}
        out["identity_gap"] = self.identity_gap
        out["var_learning_set_corrected"] = self.var_learning_set_corrected.tolist()
        return out


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _build(estimator, params):
    """A fresh estimator from a registry name or a factory, with ``params``."""
    if callable(estimator):
        return estimator(**params)
    return make_estimator(estimator, **params)


def _fit(est, X, Y, callback):
    """est.fit(X, Y), with ``callback`` when the estimator's fit takes one."""
    if callback is not None and "callback" in inspect.signature(est.fit).parameters:
        return est.fit(X, Y, callback=callback)
    return est.fit(X, Y)


def _check_against_data(est, n, p, d):
    """The checks ``est.fit`` makes against the data's shape, before any fit (engine estimators)."""
    if hasattr(est, "check_data_shape"):
        est.check_data_shape(n, p, d)
    elif hasattr(est, "check_params"):
        est.check_params()


def _is_randomized(est, n, p):
    """Whether random_state can change the fitted model (else the algorithm variance is 0)."""
    if hasattr(est, "is_randomized"):
        return est.is_randomized(n, p)
    # A factory's estimator: randomized whenever it takes a random_state.
    return hasattr(est, "get_params") and "random_state" in est.get_params()


def _check_estimator(estimator):
    """A registry name or a callable factory."""
    if not (callable(estimator) or (isinstance(estimator, str) and estimator in ALL_NAMES)):
        raise ValueError(f"estimator must be one of {ALL_NAMES} or a callable factory, got {estimator!r}")


def check_estimator_params(estimator_params):
    """A dict of fixed parameters (None: none) that leaves random_state to ``seed``."""
    if estimator_params is None:
        return {}
    if not isinstance(estimator_params, dict):
        raise ValueError(f"estimator_params must be a dict, got {estimator_params!r}")
    if "random_state" in estimator_params:
        raise ValueError("estimator_params must not set random_state: seeds are drawn from `seed`")
    return estimator_params


def _check_workers(n_jobs, backend, client):
    """Where the learning sets run: joblib workers or a dask cluster; returns the client."""
    check_n_jobs(n_jobs, allow_none=False)
    check_choice(backend, "backend", BACKENDS)
    if client is not None and not callable(getattr(client, "submit", None)):
        raise ValueError(f"client must be a distributed.Client (with submit()), got {client!r}")
    if backend != "dask" or client is not None:
        return client
    try:
        from distributed import get_client
        return get_client()
    except (ImportError, ValueError):
        raise ValueError("backend='dask' needs a dask.distributed client: pass client= or "
                         "create a Client first") from None


def _check_sweep(param_name, param_values, estimator_params):
    """The swept values as a list ([None]: no sweep), distinct and not fixed elsewhere."""
    if param_name is None:
        if param_values is not None and len(list(param_values)) != 1:
            raise ValueError("param_values needs param_name (or pass param_values=None)")
        return [None]
    if not isinstance(param_name, str):
        raise ValueError(f"param_name must be a string, got {param_name!r}")
    if param_name == "random_state" or param_name in estimator_params:
        raise ValueError(f"param_name {param_name!r} cannot be swept here "
                         "(it is fixed by seed or by estimator_params)")
    if param_values is None:
        raise ValueError("param_values must be given with param_name")
    param_values = list(param_values)
    if not param_values:
        raise ValueError("param_values is empty")
    if len(set(map(repr, param_values))) != len(param_values):
        raise ValueError(f"param_values has duplicates: {param_values}")
    if param_name == "n_estimators":
        param_values = [_check_int(v, "param_values (n_estimators)", 1) for v in param_values]
    return param_values


def _check_configurations(estimator, param_name, param_values, estimator_params, n_train, n_features,
                          n_outputs):
    """Build every configuration once (cheap), so that unknown or invalid parameters, and values
    the data's shapes rule out, fail before any fit. Returns whether any of them is randomized."""
    randomized = False
    for v in param_values:
        params = dict(estimator_params)
        if param_name is not None:
            params[param_name] = v
        what = f"invalid value {param_name}={v!r}" if param_name is not None else "invalid estimator_params"
        try:
            est = _build(estimator, params)
        except TypeError as exc:
            raise ValueError(f"estimator factory rejected parameters {params}: {exc}") from None
        if hasattr(est, "get_params") and param_name is not None and not callable(estimator):
            if param_name not in est.get_params():
                raise ValueError(f"param_name {param_name!r} is not a parameter of {estimator}")
        try:
            _check_against_data(est, n_train, n_features, n_outputs)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        randomized = randomized or _is_randomized(est, n_train, n_features)
    return randomized


@dataclass(frozen=True)
class BiasVarianceSettings:
    """The models of a decomposition and how many draws, checked when built.

    estimator : a registry name of ``ALL_NAMES`` (boosting or forest) or a callable factory
        ``factory(**params)`` returning an unfitted estimator with ``fit``/``predict``
        (``staged_predict`` is used for an ``n_estimators`` sweep when present); its
        ``random_state`` is set via ``set_params`` when it has one. Picklable for n_jobs != 1/dask.
    estimator_params : dict of fixed estimator parameters (not random_state: seeds come from the seed)
    param_name, param_values : the swept parameter and its values (e.g. ``"n_estimators", [1, 10,
        100]``, ``"n_projections"``, ``"learning_rate"``, ``"max_leaf_nodes"``, ``"projection"``);
        None: a single configuration
    n_learning_sets : int >= 2
    n_seeds : int >= 1 or None, random states per learning set (> 1 to estimate the algorithm
        variance). None: ``DEFAULT_SEEDS`` (5) if random_state can change the model for some swept
        value (random projections, max_features < p, subsample < 1, bootstrap, random splits; a
        factory whose estimator takes a random_state), else 1, where the algorithm variance is
        exactly 0 and extra seeds would refit the same model
    n_jobs : joblib workers (-1 = all cores); 1 (default): in-process, with no worker start-up and
        with a stop flag that reaches inside the fits
    backend : "loky" or "dask" (a ``distributed.Client`` passed to the run implies "dask")
    """

    estimator: object
    estimator_params: dict = field(default_factory=dict)
    param_name: str | None = None
    param_values: tuple | None = None
    n_learning_sets: int = 100
    n_seeds: int | None = None
    n_jobs: int = 1
    backend: str = "loky"

    def __post_init__(self):
        _check_estimator(self.estimator)
        object.__setattr__(self, "estimator_params", dict(check_estimator_params(self.estimator_params)))
        values = _check_sweep(self.param_name, self.param_values, self.estimator_params)
        object.__setattr__(self, "param_values", None if self.param_name is None else tuple(values))
        _check_int(self.n_learning_sets, "n_learning_sets", 2)
        if self.n_seeds is not None:
            _check_int(self.n_seeds, "n_seeds", 1)
        check_n_jobs(self.n_jobs, allow_none=False)
        check_choice(self.backend, "backend", BACKENDS)

    def sweep(self):
        """The swept values as a list ([None]: no sweep)."""
        return [None] if self.param_name is None else list(self.param_values)


@dataclass(frozen=True)
class _Run:
    """A checked decomposition: what every learning set's work needs (plain, picklable)."""

    estimator: object
    param_name: str | None
    param_values: list
    structure: str
    n_train: int
    n_test: int
    n_seeds: int
    n_outputs: int
    noise: float
    estimator_params: dict


def check_run(problem, settings):
    """The decomposition of ``settings`` on ``problem`` checked before any work (every configuration
    built once against the data's shapes, e.g. q <= d for sub-sampled projections): a :class:`_Run`."""
    problem = Problem.of(problem)
    if problem.dataset not in FRIEDMAN_PROBLEMS or problem.data is not None or problem.n_noisy_outputs \
            or problem.input_distribution != "uniform":
        raise ValueError("problem must be a Friedman1 problem with uniform inputs and no noisy outputs (the "
                         f"decomposition needs its Bayes model), got {problem.dataset!r}")
    if not isinstance(settings, BiasVarianceSettings):
        raise ValueError(f"settings must be a BiasVarianceSettings, got {type(settings).__name__}")
    structure = problem.dataset.split("-", 1)[1]
    values = settings.sweep()
    n_features = 5 * problem.n_outputs if structure == "ind" else 5
    randomized = _check_configurations(settings.estimator, settings.param_name, values, settings.estimator_params,
                                       problem.n_train, n_features, problem.n_outputs)
    n_seeds = settings.n_seeds if settings.n_seeds is not None else (DEFAULT_SEEDS if randomized else 1)
    return _Run(settings.estimator, settings.param_name, values, structure, problem.n_train, problem.n_test, n_seeds,
                problem.n_outputs, float(problem.noise), dict(settings.estimator_params))


# --------------------------------------------------------------------------
# The work of one learning set (picklable, module level)
# --------------------------------------------------------------------------


def slice_inputs(structure, n_outputs, n_points=N_SLICE_POINTS):
    """The 1-D slice of the curves view: x1 in [0, 1], every other input 0.5."""
    p = 5 * n_outputs if structure == "ind" else 5
    X = np.full((n_points, p), 0.5)
    X[:, 0] = np.linspace(0.0, 1.0, n_points)
    return X


def _test_set(structure, n_test, n_outputs, noise, test_seq):
    X, Y, B = make_friedman1_multioutput(structure, n_samples=n_test, n_outputs=n_outputs,
                                         noise=noise, random_state=np.random.default_rng(test_seq))
    return X, Y, B


def _staged(est, X_list, param_values):
    """Staged predictions at the steps in ``param_values``: one (P, n, d) array per X.

    A fit that stopped before the largest value keeps its last stage.
    """
    wanted = {v: k for k, v in enumerate(param_values)}
    X_all = np.vstack(X_list)
    preds = [None] * len(param_values)
    last = None
    for m, F in enumerate(est.staged_predict(X_all), start=1):
        last = F
        if m in wanted:
            preds[wanted[m]] = np.asarray(F, dtype=np.float64).reshape(X_all.shape[0], -1)
    preds = [p if p is not None else np.asarray(last, dtype=np.float64).reshape(X_all.shape[0], -1)
             for p in preds]
    P = np.stack(preds)
    splits = np.cumsum([len(X) for X in X_list])[:-1]
    return np.split(P, splits, axis=1)


class _Fits:
    """The fits of one learning set as units of a :class:`Runner` (in-process runs only).

    A stop ends the fit in progress; the set is then dropped (``Stopped``).
    """

    def __init__(self, n_fits, progress, stop):
        self.runner = Runner(progress, stop, n_fits)
        self.done = 0

    def fit(self, estimator, params, random_state, X, Y):
        if self.runner.stopped():
            raise Stopped
        label = f"fit {self.done + 1}/{self.runner.n_units}"
        est = _fitted(estimator, params, random_state, X, Y, self.runner.fit_callback(self.done, label))
        if self.runner.cut:
            raise Stopped
        self.done += 1
        self.runner.report(self.done, f"fit {self.done}/{self.runner.n_units}")
        return est


def _run_set(set_seq, test_seq, run, progress=None, stop=None):
    """Fit the models of one learning set; return its sufficient statistics.

    ``progress(fraction_of_the_set, message)`` and ``stop`` only in-process
    (n_jobs=1): a stop ends the fit in progress and returns None (the set is
    dropped, not half-counted).
    """
    estimator, param_name, param_values, estimator_params = (run.estimator, run.param_name, run.param_values,
                                                             run.estimator_params)
    structure, n_train, n_test, n_seeds, n_outputs, noise = (run.structure, run.n_train, run.n_test, run.n_seeds,
                                                             run.n_outputs, run.noise)
    X_test, Y_test, B_test = _test_set(structure, n_test, n_outputs, noise, test_seq)
    X_slice = slice_inputs(structure, n_outputs)
    data_seq, model_seq = set_seq.spawn(2)
    X, Y, _ = make_friedman1_multioutput(structure, n_samples=n_train, n_outputs=n_outputs,
                                         noise=noise, random_state=np.random.default_rng(data_seq))
    seeds = np.random.default_rng(model_seq).integers(0, 2**31 - 1, size=n_seeds)
    P = len(param_values)
    staged = param_name == "n_estimators" and hasattr(
        _build(estimator, {**estimator_params, "n_estimators": max(param_values)}), "staged_predict")
    test_pred = np.empty((n_seeds, P, n_test, n_outputs))
    slice_pred = np.empty((n_seeds, P, X_slice.shape[0]))
    fits = _Fits(n_seeds * (1 if staged else P), progress, stop)
    try:
        _predict_set(fits, staged, estimator, param_name, param_values, estimator_params, seeds, X, Y,
                     X_test, X_slice, test_pred, slice_pred)
    except Stopped:
        return None
    mean_theta = test_pred.mean(axis=0)                                   # (P, n, d)
    within = ((test_pred - mean_theta) ** 2).mean(axis=(0, 2))            # (P, d)
    to_bayes = ((test_pred - B_test) ** 2).mean(axis=(0, 2))              # (P, d)
    to_noisy = ((test_pred - Y_test) ** 2).mean(axis=(0, 2))              # (P, d)
    return {"mean_theta": mean_theta, "within": within, "to_bayes": to_bayes,
            "to_noisy": to_noisy, "slice_first": slice_pred[0], "slice_mean": slice_pred.mean(axis=0)}


def _predict_set(fits, staged, estimator, param_name, param_values, estimator_params, seeds, X, Y,
                 X_test, X_slice, test_pred, slice_pred):
    """Fill test_pred[s, k] and slice_pred[s, k] for every seed s and value k."""
    n_test = X_test.shape[0]
    for s, rs in enumerate(seeds):
        if staged:
            params = {**estimator_params, "n_estimators": max(param_values)}
            est = fits.fit(estimator, params, int(rs), X, Y)
            pt, ps = _staged(est, [X_test, X_slice], param_values)
            test_pred[s] = pt
            slice_pred[s] = ps[:, :, 0]
            continue
        for k, v in enumerate(param_values):
            params = dict(estimator_params)
            if param_name is not None:
                params[param_name] = v
            est = fits.fit(estimator, params, int(rs), X, Y)
            test_pred[s, k] = np.asarray(est.predict(X_test), dtype=np.float64).reshape(n_test, -1)
            slice_pred[s, k] = np.asarray(est.predict(X_slice), dtype=np.float64).reshape(
                X_slice.shape[0], -1)[:, 0]


def _fitted(estimator, params, random_state, X, Y, callback=None):
    est = _build(estimator, params)
    if hasattr(est, "set_params") and hasattr(est, "get_params") and "random_state" in est.get_params():
        est.set_params(random_state=random_state)
    return _fit(est, X, Y, callback)


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def run_bias_variance(problem, settings, *, seed=0, client=None, progress=None, stop=None) -> BiasVarianceResult:
    """Monte-Carlo bias-variance decomposition over learning sets and seeds.

    problem : a Friedman1 :class:`~engine.experiments.problems.Problem` (chain, group or ind,
        uniform inputs; its ``n_train``, ``n_test``, ``n_outputs`` and ``noise``): the Bayes
        model is known.
    settings : :class:`BiasVarianceSettings` (the estimator, its sweep, the learning sets and
        seeds, the workers).
    seed : int, the root of every random draw.
    client : a ``distributed.Client`` (implies backend="dask"); backend="dask" without a client
        uses the current one (``distributed.get_client()``, e.g. inside ``with Client(cluster):``).
    progress : callable(fraction, message): after each learning set and, with
        n_jobs=1, after each fit and chunk of boosting steps within a set.
    stop : object with ``is_set()``; when set (also before the start), the
        result over the learning sets finished so far is returned with
        ``partial=True``. With n_jobs=1 it ends the fit in progress within a
        chunk of steps (see the module doc).

    Every argument is checked before any work (``ValueError`` naming it), including each swept
    value against d and p (e.g. q <= d for sub-sampled projections).
    """
    run = check_run(problem, settings)
    backend = "dask" if client is not None else settings.backend
    client = _check_workers(settings.n_jobs, backend, client)
    check_callbacks(progress, stop)
    seed = _check_int(seed, "seed", 0)
    started = time.perf_counter()
    n_learning_sets = settings.n_learning_sets
    test_seq, *set_seqs = np.random.SeedSequence(seed).spawn(1 + n_learning_sets)
    _, _, B_test = _test_set(run.structure, run.n_test, run.n_outputs, run.noise, test_seq)
    acc = _Accumulator(len(run.param_values), run.n_test, run.n_outputs, N_SLICE_POINTS)
    partial = False
    stopped = stop is not None and stop.is_set()
    results = iter(()) if stopped else _results(set_seqs, (test_seq, run), settings.n_jobs, backend, client,
                                                progress, stop)
    for i, res in enumerate(results):
        if res is None:             # stopped inside this set (in-process run)
            partial = True
            break
        acc.add(res, keep_curve=i < N_CURVES)
        if progress is not None:
            progress((i + 1) / n_learning_sets, f"learning set {i + 1}/{n_learning_sets}")
        if stop is not None and stop.is_set() and i + 1 < n_learning_sets:
            partial = True
            break
    if hasattr(results, "close"):
        results.close()             # cancel the sets not started (joblib / dask) now, not at exit
    return decomposition(acc, B_test, run, n_learning_sets, seed, partial=partial or acc.n == 0,
                         elapsed=time.perf_counter() - started)


def decomposition(acc, B_test, run, n_learning_sets, seed, *, partial, elapsed):
    """The result from the running sums ``acc`` (an :class:`_Accumulator`) over the sets done so far.

    Shared by :func:`run_bias_variance` and the running decomposition of
    :mod:`engine.app.page_models.draws` (one learning set at a time), so both compute the same numbers.
    """
    estimator, param_name, param_values, structure, n_seeds = (run.estimator, run.param_name, run.param_values,
                                                              run.structure, run.n_seeds)
    n_train, n_test, n_outputs, noise, estimator_params = (run.n_train, run.n_test, run.n_outputs, run.noise,
                                                           run.estimator_params)
    d = n_outputs
    P = len(param_values)
    j = np.arange(1, d + 1)
    noise_out = (j if structure == "chain" else np.ones(d)) * noise ** 2
    noise_pv = np.tile(noise_out, (P, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_f = acc.mean
        bias2 = ((mean_f - B_test) ** 2).mean(axis=1)                     # (P, d)
        var_ls = (acc.m2 / acc.n).mean(axis=1)
        var_alg = acc.within / acc.n
        err = noise_pv + acc.to_bayes / acc.n
        err_noisy = acc.to_noisy / acc.n
    var = var_ls + var_alg
    slice_x = slice_inputs(structure, n_outputs)[:, 0]
    X5 = slice_inputs(structure, 1)[:, :5]
    return BiasVarianceResult(
        estimator=estimator if isinstance(estimator, str) else getattr(estimator, "__name__", repr(estimator)),
        param_name=param_name, param_values=list(param_values), structure=structure,
        n_learning_sets=n_learning_sets, n_sets_done=acc.n, n_seeds=n_seeds, n_train=n_train,
        n_test=n_test, n_outputs=d, noise_sd=noise, seed=seed,
        estimator_params=dict(estimator_params),
        noise=noise_pv.mean(axis=1), bias2=bias2.mean(axis=1), var_learning_set=var_ls.mean(axis=1),
        var_algorithm=var_alg.mean(axis=1), variance=var.mean(axis=1), error=err.mean(axis=1),
        error_noisy_test=err_noisy.mean(axis=1),
        noise_per_output=noise_pv, bias2_per_output=bias2, var_learning_set_per_output=var_ls,
        var_algorithm_per_output=var_alg, variance_per_output=var, error_per_output=err,
        slice_x=slice_x,
        slice_curves=(np.stack(acc.curves, axis=1) if acc.curves
                      else np.empty((P, 0, N_SLICE_POINTS))),
        slice_mean=acc.slice_sum / acc.n if acc.n else np.full((P, N_SLICE_POINTS), np.nan),
        slice_bayes=friedman1(X5),
        partial=partial, elapsed=elapsed)


class _Accumulator:
    """Running sums over learning sets, in set order (Welford for Var_L)."""

    def __init__(self, P, n_test, d, n_slice):
        self.n = 0
        self.mean = np.zeros((P, n_test, d))
        self.m2 = np.zeros((P, n_test, d))
        self.within = np.zeros((P, d))
        self.to_bayes = np.zeros((P, d))
        self.to_noisy = np.zeros((P, d))
        self.slice_sum = np.zeros((P, n_slice))
        self.curves = []

    def add(self, res, keep_curve):
        self.n += 1
        delta = res["mean_theta"] - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (res["mean_theta"] - self.mean)
        self.within += res["within"]
        self.to_bayes += res["to_bayes"]
        self.to_noisy += res["to_noisy"]
        self.slice_sum += res["slice_mean"]
        if keep_curve:
            self.curves.append(res["slice_first"])


def _results(set_seqs, args, n_jobs, backend, client, progress=None, stop=None):
    """The per-set results in set order (None: a set stopped part-way, in-process only)."""
    L = len(set_seqs)

    def within(i):
        def report(fraction, message):
            if progress is not None:
                progress((i + fraction) / L, f"learning set {i + 1}/{L}: {message}")
        return report

    local = [dict(progress=within(i), stop=stop) for i in range(L)]
    return ordered_map(_run_set, [(s, *args) for s in set_seqs], n_jobs=n_jobs, backend=backend,
                       client=client, local_kwargs=local)
