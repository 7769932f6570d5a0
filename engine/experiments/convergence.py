"""Learning curves of several estimators on one problem: Figure 1 (convergence) and Figures 2-4
(projection schemes) of paper 002.

Both experiments take a problem (:class:`~engine.experiments.problems.Problem`) and the boosting
settings of every model (:class:`~engine.experiments.settings.BoostingSettings`), check everything
before any work (a ``ValueError`` naming the argument), and return a
:class:`~engine.experiments.curves.ConvergenceResult` that holds everything needed to draw it, with
``to_frame()`` (a long pandas DataFrame, one row per estimator and step, for CSV) and ``to_json()``
(and ``from_json``). Same arguments and seed, same numbers (fit times aside). How one curve is
measured: :mod:`engine.experiments.measuring`.

* :func:`run_convergence`: Figure 1, test (and train) score after every boosting step, against
  steps, trees per output and fit time.
* :func:`run_projection_schemes`: Figures 2-4, gbrt-rpo (or relabel) with each random projection
  scheme.

Long runs: ``progress(fraction_done, message)`` is called between chunks of boosting steps (about
every 50 ms) and ``stop`` (a ``threading.Event`` or any object with ``is_set()``) is checked there;
once it is set the experiment returns promptly with what is done (``complete=False``).
"""

from __future__ import annotations

from dataclasses import asdict

from engine.estimators.registry import ESTIMATOR_NAMES
from engine.experiments.curves import ConvergenceResult, Curve  # noqa: F401  (Curve: the results' curves)
from engine.experiments.measuring import N_EVAL_POINTS, auto_eval_points, check_eval_points, measure_all, measuring_notes
from engine.experiments.problems import Problem
from engine.experiments.runner import Runner, check_callbacks
from engine.experiments.settings import BoostingSettings, check_names, check_seed
from engine.experiments.timing import resolve_timing
from engine.methods import BOOSTING
from engine.names import (
    ALIASES,
    ARTIFICIAL,
    FRIEDMAN_PROBLEMS,
    METRICS,
    PROJECTED_STRATEGIES,
    PROJECTIONS,
    boosting_name,
)
from engine.validation import check_choice

__all__ = ["EXPERIMENT_ESTIMATORS", "Curve", "ConvergenceResult", "BoostingSettings", "run_convergence",
           "run_projection_schemes", "check_estimators", "check_curves_request"]

EXPERIMENT_ESTIMATORS = ESTIMATOR_NAMES + tuple(ALIASES) + (ARTIFICIAL,)


# --------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------


def check_estimators(estimators, dataset, known=EXPERIMENT_ESTIMATORS):
    """The estimators argument as a list of distinct names of ``known``; artificial-gbrt (the oracle
    that knows the output structure) on the Friedman1 problems only. The one estimators check of the
    experiments (the model selection passes its own ``known``)."""
    estimators = check_names(estimators, "estimators", known, "estimator name")
    if ARTIFICIAL in estimators and dataset not in FRIEDMAN_PROBLEMS:
        raise ValueError(f"estimators: {ARTIFICIAL} knows the output structure of the Friedman1 "
                         f"problems only ({', '.join(FRIEDMAN_PROBLEMS)}), not of {dataset!r}")
    return estimators


def check_curves_request(problem, boosting, estimators):
    """Every argument of :func:`run_convergence` checked against the problem's size, before anything
    is drawn (a ``ValueError`` naming it): ``(Problem, task, outputs, estimators as a list)``."""
    problem = Problem.of(problem)
    if not isinstance(boosting, BoostingSettings):
        raise ValueError(f"boosting must be a BoostingSettings, got {type(boosting).__name__}")
    size = problem.size()
    task, d = size["task"], size["n_outputs"]
    # artificial-gbrt knows the Friedman1 structures only: an uploaded set named like one is not one
    estimators = check_estimators(estimators, problem.dataset if problem.data is None else f"data set {problem.dataset}")
    boosting.check(task, d, size["n_features"])
    for name in estimators:
        if name != ARTIFICIAL:
            boosting.check_q(name, d)
    return problem, task, d, estimators


# --------------------------------------------------------------------------
# Measuring several estimators
# --------------------------------------------------------------------------


def _run_curves(experiment, runs, problem, data, boosting, seed, params, progress, stop, timing=None,
                train_curve=True, n_eval_points=N_EVAL_POINTS):
    """Measure each ``(estimator, label, q)`` on the drawn ``data``: a :class:`ConvergenceResult`
    (``complete=False`` after a stop), its curves keyed by estimator."""
    runner = Runner(progress, stop, len(runs))
    curves, complete = measure_all(runs, data, boosting, seed, runner, timing=timing, train_curve=train_curve,
                                   n_eval_points=n_eval_points)
    if timing is not None and complete:
        params.setdefault("timing", asdict(timing))
    runner.finish(complete)
    notes = measuring_notes(data.task, boosting.n_steps, timing, train_curve=train_curve,
                            n_eval_points=n_eval_points) + [data.split]
    return ConvergenceResult(experiment=experiment, dataset=problem.dataset, task=data.task, metric=METRICS[data.task],
                             n_outputs=data.n_outputs, curves=curves, params=params, complete=complete, notes=notes)


# --------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------


def run_convergence(problem, boosting, estimators, *, seed=0, timing=None, progress=None,
                    stop=None) -> ConvergenceResult:
    """Learning curves of several estimators on one problem (paper Figure 1).

    problem : a :class:`~engine.experiments.problems.Problem` (a Friedman1 problem, a shipped data
        set or a loaded one such as an upload) or a data set's name, drawn with ``seed``.
    boosting : the :class:`~engine.experiments.settings.BoostingSettings` of every model (n_steps,
        learning rate, tree size, max_features, loss; q for gbrt-relabel-rpo). For st-gbrt (and
        artificial-gbrt on ind) a step fits one tree per output, so it gets d times more trees:
        compare on ``trees_per_output`` or ``fit_time``.
    estimators : names from ``ESTIMATOR_NAMES`` (or "br-gbrt") plus "artificial-gbrt" (Friedman1
        problems only): chain -> one single-target model of output 1, copied to all outputs; group
        -> one model of the mean output, copied; ind -> st-gbrt. Every estimator is seeded with ``seed``.
    timing : None (one fit per model, as the paper's figure) or how fit times are measured
        (:mod:`engine.experiments.timing`: True, a Timing or a dict): once every curve is drawn,
        the short fits are repeated in turns and the fit-time axis is their step-wise median.

    The app's live view of the same curves, growing while they fit, is
    :func:`engine.app.page_models.live_convergence.train_curves`. Returns a :class:`ConvergenceResult`.
    """
    problem, task, d, estimators = check_curves_request(problem, boosting, estimators)
    seed = check_seed(seed)
    timing = resolve_timing(timing)
    check_callbacks(progress, stop)
    params = dict(estimators=estimators, seed=seed, **problem.data_kwargs(), **boosting.params())
    data = problem.draw(seed)
    return _run_curves("convergence", [(e, e, None) for e in estimators], problem, data, boosting, seed, params, progress,
                       stop, timing)


def run_projection_schemes(problem, boosting, *, schemes=PROJECTIONS,
                           strategy="projected", seed=0, timing=True, train_curve=True, n_eval_points=None,
                           progress=None, stop=None) -> ConvergenceResult:
    """Learning curves of gbrt-rpo (``strategy="projected"``, Algorithm 3) or gbrt-relabel-rpo
    (``"projected_relabel"``, Algorithm 4, with ``boosting.q`` projections) for each random
    projection scheme (paper Figures 2-4), on ``problem`` (drawn with ``seed``) with ``boosting``.

    ``timing``: how fit times are measured (:mod:`engine.experiments.timing`): True (default) warms
    up before each model and repeats short fits (median); False fits each model once, as
    :func:`run_convergence` does. ``train_curve=False`` skips the train score (NaN);
    ``n_eval_points`` (multi-label): steps scored with LRAP, by default
    :func:`~engine.experiments.measuring.auto_eval_points` of the test set's size.

    Returns a :class:`ConvergenceResult` with ``experiment="schemes"``; its curves are keyed by
    estimator name (e.g. "gbrt-rpo-gaussian") and labelled by scheme.
    """
    problem = Problem.of(problem)
    if not isinstance(boosting, BoostingSettings):
        raise ValueError(f"boosting must be a BoostingSettings, got {type(boosting).__name__}")
    task, d = problem.shape()
    schemes = check_names(schemes, "schemes", PROJECTIONS, "projection scheme")
    check_choice(strategy, "strategy", PROJECTED_STRATEGIES)
    boosting.check(task, d)
    if not BOOSTING[strategy].takes_q and boosting.q != 1:
        raise ValueError(f"q must be 1 for strategy={strategy!r} ({BOOSTING[strategy].paper}); use "
                         "strategy='projected_relabel' for q > 1")
    runs = [(boosting_name(strategy, s), s, None) for s in schemes]
    for name, _, _ in runs:
        boosting.check_q(name, d)
    seed = check_seed(seed)
    timing = resolve_timing(timing)
    n_eval_points = check_eval_points(n_eval_points)
    check_callbacks(progress, stop)
    params = dict(schemes=schemes, strategy=strategy, seed=seed, timing=None if timing is None else asdict(timing),
                  train_curve=bool(train_curve), **problem.data_kwargs(), **boosting.params())
    data = problem.draw(seed)
    if n_eval_points is None:
        n_eval_points = auto_eval_points(data.Y_test.shape[0], d)
    params["n_eval_points"] = n_eval_points
    return _run_curves("schemes", runs, problem, data, boosting, seed, params, progress, stop, timing,
                       bool(train_curve), n_eval_points)
