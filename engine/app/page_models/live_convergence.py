"""Figure 1 trained live: learning curves that grow while the estimators fit (no streamlit).

The Convergence page runs :func:`train_curves` in a background :class:`engine.app.serving.jobs.Job` and
redraws the ``partial`` result it reports. :func:`train_curves` measures each curve as
:func:`engine.experiments.convergence.run_convergence` does (:func:`engine.experiments.measuring.measure`),
but live: a regression estimator is fitted once, with the test set as ``eval_set``, and its test
macro-r2 and fit times are reported after every compiled chunk of steps (about every 50 ms), so a
curve can be drawn while it grows. The train score is therefore not measured (NaN).
artificial-gbrt and multi-label data sets are measured in full and appear when they are complete.

Every function takes the problem (a :class:`~engine.experiments.problems.Problem`) and the boosting
settings (:class:`~engine.experiments.settings.BoostingSettings`) of the run:

* :func:`problem_from_spec`: the Problem of a Data-page spec (engine/app/page_models/dataspec.py).
* :func:`check_settings`: every argument checked up front, a ``ValueError`` naming it.
* :func:`estimate_seconds`: a tiny probe fit per estimator, extrapolated to ``n_steps``.
* :func:`train_curves`: the run itself (``progress(fraction, message, partial=...)``, ``stop``);
  with ``models={}`` it keeps the fitted estimators (warm-startable) in that dict.
* :func:`continue_curves`: more steps on those kept estimators (the page's Step button), so a
  step costs a few boosting steps, not a refit of everything done so far.
* :func:`early_stop_steps`: where early stopping watching each test curve would have stopped
  (the page marks it; :func:`results_table` lists it).
* :func:`compact_extra`: what the server's cache keeps of a finished run's page data once no
  session holds it (the models' first trees, not the models).
"""

from __future__ import annotations

import time
from dataclasses import asdict

import numpy as np

from engine.app.page_models.dataspec import dataset_from_spec
from engine.app.page_models.one_step import FirstTrees
from engine.estimators.early_stopping import stopping_step
from engine.experiments import convergence as ex
from engine.experiments.curves import ConvergenceResult
from engine.experiments.measuring import (
    N_EVAL_POINTS,
    fitted_curve,
    measure,
    measuring_notes,
    model_for,
    refit_function,
    single_target,
)
from engine.experiments.problems import Problem
from engine.experiments.runner import Runner, check_callbacks, partial_timer
from engine.experiments.settings import check_seed
from engine.experiments.timing import resolve_timing, retime
from engine.names import ALIASES, ARTIFICIAL, METRICS
from engine.validation import check_int

__all__ = ["problem_from_spec", "draw", "check_settings", "estimate_seconds", "train_curves", "continue_curves",
           "can_continue", "compact_extra", "early_stop_steps", "results_table", "VARIANTS", "EARLY_STOPPING_TOL"]

# Every estimator the page offers (the br-gbrt alias is the same model as st-gbrt).
VARIANTS = tuple(n for n in ex.EXPERIMENT_ESTIMATORS if n not in ALIASES)
PROBE_STEPS = 8
PARTIAL_SECONDS = 0.5          # a partial result (copies of the curves) at most this often
EARLY_STOPPING_TOL = 1e-4      # scikit-learn's default tol


def problem_from_spec(spec: dict, upload: dict | None = None, *, n_test: int = 1000) -> Problem:
    """The :class:`~engine.experiments.problems.Problem` of a Data-page spec.

    Friedman1 specs: ``spec["n_samples"]`` training rows and ``n_test`` test rows (drawn with the
    page's seed: the spec's own seed is not used, the page's seed draws the data and seeds the
    models). Shipped data sets: their standard split or a random 50/50 one. Uploads: the data set
    itself, split 50/50 at random by the draw's seed.
    """
    source = spec.get("source")
    if source == "friedman":
        return Problem(
            f"friedman1-{spec['structure']}", n_train=int(spec["n_samples"]), n_test=int(n_test),
            n_outputs=int(spec["n_outputs"]), noise=float(spec["noise"]),
            input_distribution=spec["input_distribution"], n_noisy_outputs=int(spec["n_noisy_outputs"]))  # fmt: skip
    if source == "shipped":
        return Problem(spec["name"])
    return Problem.of(dataset_from_spec(spec, upload))


def draw(problem: Problem, seed: int = 0):
    """The problem drawn with ``seed`` (a :class:`~engine.experiments.problems.ProblemData`; for the
    page's caption and its cache)."""
    return problem.draw(seed)


def check_settings(problem, boosting, estimators) -> list:
    """Validate everything before any work (the experiment's own check); return the estimator
    list. Raises ValueError."""
    return ex.check_curves_request(problem, boosting, estimators)[3]


def _live(name, task):
    """True when the estimator's test curve can be read while it fits."""
    return task == "regression" and name != ARTIFICIAL


def _curve_of(name, est, d):
    return fitted_curve(name, name, est, d, d if single_target(name) else 1)


def estimate_seconds(problem, boosting, estimators, *, seed=0, probe_steps=PROBE_STEPS) -> dict:
    """Seconds each estimator should take for ``boosting.n_steps`` steps, from two tiny probe fits.

    The probes are real fits with the test set as ``eval_set`` (what the live run does), of
    ``probe_steps`` and ``4 * probe_steps`` steps: their difference gives the cost of a step
    (trees of a fixed size cost the same at every step), the rest is the fixed set-up cost.
    Estimators measured by the experiment code (artificial-gbrt, multi-label) fit twice or
    score staged predictions: they are counted 2.5 times.
    """
    data = Problem.of(problem).draw(seed)
    eval_set = (data.X_test, data.Y_test) if data.task == "regression" else None
    out = {}
    for name in estimators:
        est_name = "st-gbrt" if name == ARTIFICIAL else name
        k1 = max(1, int(probe_steps))
        k2 = 4 * k1
        seconds = []
        for k in (k1, k2):
            est = model_for(est_name, data.task, seed, boosting, n_estimators=k)
            t0 = time.thread_time()       # CPU time: a probe on a busy server is not slower
            est.fit(data.X_train, data.Y_train, eval_set=eval_set)
            seconds.append(time.thread_time() - t0)
        per_step = max((seconds[1] - seconds[0]) / (k2 - k1), seconds[1] / k2 / 10)
        setup = max(seconds[0] - k1 * per_step, 0.0)
        factor = 1.0 if _live(name, data.task) else 2.5
        out[name] = (setup + per_step * boosting.n_steps) * factor
    return out


class _LiveRun:
    """The curves of a live run so far, as the partial results the page draws."""

    def __init__(self, problem, data, params, notes):
        self.problem, self.data, self.params, self.notes = problem, data, params, notes
        self.curves = {}
        self.partial_due = partial_timer(PARTIAL_SECONDS)

    def result(self, growing=None, complete=False):
        cs = dict(self.curves)
        if growing is not None and growing.n_steps:
            cs[growing.name] = growing
        task = self.data.task
        return ConvergenceResult(experiment="convergence", dataset=self.problem.dataset, task=task,
                                 metric=METRICS[task], n_outputs=self.data.n_outputs, curves=cs, params=self.params,
                                 complete=complete, notes=list(self.notes))

    def growing(self, curve):
        """The partial result with a growing curve, at most every PARTIAL_SECONDS (else None)."""
        return self.result(curve) if self.partial_due() else None


def train_curves(problem, boosting, estimators, *, seed=0, timing=None, models=None, progress=None,
                 stop=None) -> ConvergenceResult:
    """Learning curves of ``estimators`` on ``problem`` (drawn with ``seed``) with ``boosting``, live.

    ``progress(fraction, message, partial=result_so_far)`` is called after every compiled
    chunk (about every 50 ms); ``partial`` is a :class:`ConvergenceResult` holding the
    finished curves and the one growing (at most every 0.5 s), and after every estimator the
    finished ones. ``stop.is_set()`` ends the run early with what is done (``complete=False``).
    ``models``: a dict that receives each live-fitted estimator (fitted with ``warm_start=True``),
    for :func:`continue_curves`. ``timing`` (None: the live fit's own times; True, a
    :class:`~engine.experiments.timing.Timing` or a dict): once every curve is drawn, the short fits
    are repeated in turns and the fit-time axis is their median time per step scaled to their
    median total (:func:`engine.experiments.timing.retime`, as every timed chart of the app), so a
    pause of the machine during one fit draws no step in the time panel.
    """
    problem, task, d, estimators = ex.check_curves_request(problem, boosting, estimators)
    if models is not None and not isinstance(models, dict):
        raise ValueError(f"models must be a dict or None, got {type(models).__name__}")
    seed = check_seed(seed)
    timing = resolve_timing(timing)
    check_callbacks(progress, stop)
    data = problem.draw(seed)
    params = dict(estimators=estimators, seed=seed, n_train=data.info["n_train"], n_test=data.info["n_test"],
                  n_outputs=d, **boosting.params())
    live = _LiveRun(problem, data, params, measuring_notes(task, boosting.n_steps, timing, live=True) + [data.split])
    runner = Runner(progress, stop, len(estimators))
    complete = True
    for i, name in enumerate(estimators):
        if runner.stopped():
            complete = False
            break
        live_fit = _live(name, task)
        curve = measure(name, name, data, boosting, seed, runner, i, timing=timing, train_curve=not live_fit,
                        n_eval_points=N_EVAL_POINTS, growing=live.growing if live_fit else None,
                        models=models if live_fit else None)
        if curve.n_steps:
            live.curves[name] = curve
        if runner.stopped():
            complete = False
            break
        runner.report(i + 1, f"{name}: done", partial=live.result())
    if timing is not None and complete:
        retime(live.curves, {name: refit_function(name, data, boosting, seed, runner, name) for name in live.curves},
               timing, runner.stopped)
        complete = not runner.stopped()     # a stop during the repeats: the page says the run stopped
        params["timing"] = asdict(timing)
    final = live.result(complete=complete)
    if progress is not None:
        progress(1.0 if complete else None, "done" if complete else "stopped", partial=final)
    return final


def can_continue(problem, estimators, models) -> bool:
    """True when :func:`continue_curves` can extend every one of ``estimators`` warm."""
    return (isinstance(models, dict) and Problem.of(problem).shape()[0] == "regression"
            and all(name != ARTIFICIAL for name in estimators))


def continue_curves(problem, boosting, estimators, models, *, n_more, seed=0, progress=None,
                    stop=None) -> ConvergenceResult:
    """``n_more`` further steps for each of ``estimators``, continuing the kept ``models``.

    The estimators in ``models`` (from ``train_curves(..., models=models)``) are warm-started,
    so the result equals a longer :func:`train_curves` run (same seed, same steps) at the cost
    of ``n_more`` steps each. A method missing from ``models`` (a stopped run never reached
    it) starts from 0 with ``boosting``.
    """
    if not can_continue(problem, estimators, models):
        raise ValueError("models: only live regression runs (no artificial-gbrt) keep models to continue")
    n_more = check_int(n_more, "n_more", 1)
    seed = check_seed(seed)
    check_callbacks(progress, stop)
    data = Problem.of(problem).draw(seed)
    d = data.n_outputs
    names = list(estimators)
    # a warm continuation's times are the live fit's own, not medians (no "timing")
    live = _LiveRun(Problem.of(problem), data, {}, [f"Continued by warm start ({n_more} more steps per method).",
                                                    data.split])
    stopped = (lambda: stop is not None and stop.is_set())

    def result(extra=None, complete=False):
        r = live.result(extra, complete)
        r.params = dict(estimators=names, seed=seed, n_train=data.info["n_train"], n_test=data.info["n_test"],
                        n_outputs=d, **boosting.params())
        r.params["n_steps"] = max((c.n_steps for c in r.curves.values()), default=0)
        return r

    for i, name in enumerate(names):
        if stopped():
            break
        est = models.get(name)
        if est is None:
            est = models[name] = model_for(name, data.task, seed, boosting, n_estimators=1, warm_start=True)
        target = int(getattr(est, "n_steps_", 0)) + n_more
        est.set_params(n_estimators=target)

        def cb(n_done, e, i=i, name=name, target=target):
            if progress is not None:
                progress((i + 1 - (target - n_done) / n_more) / len(names), f"{name}: step {n_done}/{target}",
                         partial=result(_curve_of(name, e, d)) if live.partial_due() else None)
            return stopped()

        est.fit(data.X_train, data.Y_train, eval_set=(data.X_test, data.Y_test), callback=cb)
        live.curves[name] = _curve_of(name, est, d)
    final = result(complete=not stopped() and len(live.curves) == len(names))
    if progress is not None:
        progress(1.0 if final.complete else None, "done" if final.complete else "stopped", partial=final)
    return final


def compact_extra(extra: dict) -> dict:
    """What the server's cache keeps of a finished run's page data ``{"models": ..., "kind": ...}``
    once no session holds the run (engine.app.serving.runstore): everything but the fitted models,
    and each model's first trees as a :class:`~engine.app.page_models.one_step.FirstTrees` under
    ``"first_trees"``.

    The choice (issue 23): the fitted models of a 10 000-step run of five methods took about 70 MB
    (st-gbrt alone 32 MB pickled: 160 000 stumps), its curves 2 MB; three such runs cached kept
    a server 138 MB above idle after the class had gone. The next visitor still gets the curves
    and the tree strip at once from the cache; only the page's Step, which continues the models,
    refits from step 0 for them (:func:`can_continue` is False without models, and the page says so).
    """
    if not isinstance(extra, dict):
        raise ValueError(f"extra must be a dict, got {type(extra).__name__}")
    small = {k: v for k, v in extra.items() if k != "models"}
    models = extra.get("models") or {}
    small["first_trees"] = {name: FirstTrees(m) for name, m in models.items()
                            if getattr(m, "trees_", None) is not None}
    return small


def early_stop_steps(result, n_iter_no_change, tol=EARLY_STOPPING_TOL) -> dict:
    """``{estimator: step}``: where early stopping would have stopped on each test curve.

    The rule is the estimators' (scikit-learn's; engine.estimators.early_stopping): stop
    after the first step whose held-out score does not beat one of the ``n_iter_no_change``
    before it by more than ``tol``. Fitting the method with ``early_stopping=True``,
    ``n_iter_no_change`` and ``eval_set=(X_test, Y_test)`` stops exactly there (``n_steps_run_``)
    and keeps its best step. None for a curve the rule does not stop
    within its steps, and for curves not scored at every step by the score early stopping
    watches (the multi-label LRAP curves: the classifier stops on its held-out loss).
    ``n_iter_no_change`` None: no marks ({}).
    """
    if result is None or n_iter_no_change is None:
        return {}
    n_iter_no_change = check_int(n_iter_no_change, "n_iter_no_change", 1)
    out = {}
    for name, c in result.curves.items():
        scores = np.asarray(c.test_score, dtype=float)
        every_step = c.n_steps > 0 and np.array_equal(np.asarray(c.step), np.arange(1, c.n_steps + 1))
        if result.metric != "macro-r2" or not every_step or not np.isfinite(scores).all():
            out[name] = None
            continue
        # One more step scoring -inf makes "never stops" visible as a stop after the last step.
        m = stopping_step(np.append(scores, -np.inf), n_iter_no_change, tol)
        out[name] = m if m <= c.n_steps else None
    return out


def results_table(runs, early_stops=None):
    """One row per (run, estimator): best test score, its step, fit seconds to reach it, final score.

    runs : sequence of ``(run_name, ConvergenceResult)``; early_stops : optional
    ``{run_name: early_stop_steps(...)}``. Returns a pandas DataFrame with columns run,
    estimator, best_score, best_step, best_trees_per_output, time_to_best, final_score, steps,
    fit_time, early_stop_step and early_stop_score (the test score there; empty without a stop).
    """
    import pandas as pd

    rows = []
    for run, res in runs:
        if res is None:
            continue
        stops = (early_stops or {}).get(run, {})
        for name, c in res.curves.items():
            i = c.best_index
            m = stops.get(name)
            rows.append({
                "run": run, "estimator": c.label, "best_score": c.best_score, "best_step": c.best_step,
                "best_trees_per_output": None if i is None else float(c.trees_per_output[i]),
                "time_to_best": None if i is None else float(c.fit_time[i]),
                "final_score": float(c.test_score[-1]) if c.n_steps else float("nan"),
                "steps": c.n_steps, "fit_time": float(c.fit_time[-1]) if c.n_steps else float("nan"),
                "early_stop_step": m, "early_stop_score": None if m is None else float(c.test_score[m - 1]),
            })
    columns = ["run", "estimator", "best_score", "best_step", "best_trees_per_output", "time_to_best",
               "final_score", "steps", "fit_time", "early_stop_step", "early_stop_score"]
    return pd.DataFrame(rows, columns=columns)
