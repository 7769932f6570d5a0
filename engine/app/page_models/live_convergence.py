"""Figure 1 trained live: learning curves that grow while the estimators fit (no streamlit).

The Convergence page runs :func:`train_curves` in a background :class:`engine.app.serving.jobs.Job` and
redraws the ``partial`` result it reports. :func:`train_curves` is
:func:`engine.experiments.convergence.run_convergence` on the page's drawn problem, live
(``live=True``): a regression estimator is fitted once, with the test set as ``eval_set``, and
its test macro-r2 and fit times are reported after every compiled chunk of steps (about every
50 ms), so a curve can be drawn while it grows. The train score is therefore not measured
(NaN). artificial-gbrt and multi-label data sets are measured in full by the experiment and
appear when they are complete.

* :func:`problem_from_spec`: train / test split of a Data-page spec (engine/app/page_models/dataspec.py).
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

import numpy as np

from engine.app.page_models.dataspec import dataset_from_spec
from engine.app.page_models.one_step import FirstTrees
from engine.estimators.early_stopping import stopping_step
from engine.estimators.registry import BOOSTING_CONFIGS
from engine.experiments import convergence as ex
from engine.experiments.problems import get_problem
from engine.experiments.runner import check_callbacks, partial_timer
from engine.names import ALIASES, ARTIFICIAL, FRIEDMAN_PROBLEMS, METRICS, SINGLE_TARGET
from engine.validation import check_int

__all__ = ["problem_from_spec", "check_settings", "estimate_seconds", "train_curves", "continue_curves",
           "can_continue", "compact_extra", "early_stop_steps", "results_table", "VARIANTS", "EARLY_STOPPING_TOL"]

# Every estimator the page offers (the br-gbrt alias is the same model as st-gbrt).
VARIANTS = tuple(n for n in ex.EXPERIMENT_ESTIMATORS if n not in ALIASES)
PROBE_STEPS = 8
PARTIAL_SECONDS = ex.PARTIAL_SECONDS   # a partial result (copies of the curves) at most this often
EARLY_STOPPING_TOL = 1e-4      # scikit-learn's default tol


def problem_from_spec(spec: dict, upload: dict | None = None, *, n_test: int = 1000, seed: int = 0):
    """``(X_train, Y_train, X_test, Y_test, task, info)`` for a Data-page spec.

    Friedman1 specs: ``spec["n_samples"]`` training rows and ``n_test`` test rows, drawn as in
    :func:`engine.experiments.problems.get_problem` with ``seed`` (the spec's own seed is not used: the
    page's seed draws the data and seeds the models). Shipped data sets: their standard split
    or a random 50/50 one. Uploads: a random 50/50 split seeded by ``seed``.
    """
    source = spec.get("source")
    if source == "friedman":
        return get_problem(
            f"friedman1-{spec['structure']}", n_train=int(spec["n_samples"]), n_test=int(n_test),
            n_outputs=int(spec["n_outputs"]), noise=float(spec["noise"]),
            input_distribution=spec["input_distribution"], n_noisy_outputs=int(spec["n_noisy_outputs"]),
            seed=int(seed))  # fmt: skip
    if source == "shipped":
        return get_problem(spec["name"], seed=int(seed))
    ds = dataset_from_spec(spec, upload)
    if ds.n_samples < 4:
        raise ValueError(f"the uploaded data set has {ds.n_samples} rows: at least 4 are needed for a train/test split")
    perm = np.random.default_rng(int(seed)).permutation(ds.n_samples)
    half = ds.n_samples // 2
    tr, te = np.sort(perm[:half]), np.sort(perm[half:])
    X, Y = ds.X, ds.Y       # float64 already; a sparse X stays sparse
    info = {"name": ds.name, "n_original_outputs": ds.n_outputs, "bayes_test": None,
            "split": f"random 50/50 train/test split (seed {seed})", "description": ds.description,
            "n_features": int(X.shape[1]), "n_outputs": int(Y.shape[1]), "n_train": int(tr.size), "n_test": int(te.size)}
    task = "multilabel" if ds.task == "multilabel" else "regression"
    return X[tr], Y[tr], X[te], Y[te], task, info


def _model_kwargs(learning_rate, max_leaf_nodes, max_features, loss, n_projections):
    kw = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_features=max_features,
              n_projections=n_projections)
    if loss is not None:
        kw["loss"] = loss
    return kw


def check_settings(problem, estimators, *, n_steps, learning_rate=0.1, max_leaf_nodes=2, max_features=None,
                   loss=None, n_projections=1) -> list:
    """Validate everything before any work (the experiment's own checks); return the estimator
    list. Raises ValueError."""
    X_tr, Y_tr, _, _, task, info = problem
    # artificial-gbrt knows the Friedman1 structures only: check against the problem's name.
    dataset = info["name"] if info["name"] in FRIEDMAN_PROBLEMS else f"data set {info['name']}"
    return ex.check_convergence_args(task, Y_tr.shape[1], dataset, estimators, n_steps=n_steps,
                                     learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                                     max_features=max_features, loss=loss, n_projections=n_projections,
                                     n_features=X_tr.shape[1])


def _live(name, problem):
    """True when the estimator's test curve can be read while it fits."""
    return problem[4] == "regression" and name != ARTIFICIAL


def _make(name, task, kw, seed, n_steps, warm_start=False):
    return ex.model_for(name, task, seed, kw, n_estimators=n_steps, warm_start=warm_start)


def _curve_of(name, est, d, single):
    return ex.fitted_curve(name, name, est, d, d if single else 1)


def estimate_seconds(problem, estimators, *, n_steps, seed=0, probe_steps=PROBE_STEPS, **model) -> dict:
    """Seconds each estimator should take for ``n_steps`` steps, from two tiny probe fits.

    The probes are real fits with the test set as ``eval_set`` (what the live run does), of
    ``probe_steps`` and ``4 * probe_steps`` steps: their difference gives the cost of a step
    (trees of a fixed size cost the same at every step), the rest is the fixed set-up cost.
    Estimators measured by the experiment code (artificial-gbrt, multi-label) fit twice or
    score staged predictions: they are counted 2.5 times.
    """
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    kw = _model_kwargs(**model)
    eval_set = (X_te, Y_te) if task == "regression" else None
    out = {}
    for name in estimators:
        est_name = "st-gbrt" if name == ARTIFICIAL else name
        k1 = max(1, int(probe_steps))
        k2 = 4 * k1
        seconds = []
        for k in (k1, k2):
            est = _make(est_name, task, kw, seed, k)
            t0 = time.thread_time()       # CPU time: a probe on a busy server is not slower
            est.fit(X_tr, Y_tr, eval_set=eval_set)
            seconds.append(time.thread_time() - t0)
        per_step = max((seconds[1] - seconds[0]) / (k2 - k1), seconds[1] / k2 / 10)
        setup = max(seconds[0] - k1 * per_step, 0.0)
        factor = 1.0 if _live(name, problem) else 2.5
        out[name] = (setup + per_step * n_steps) * factor
    return out


def train_curves(problem, estimators, *, n_steps, learning_rate=0.1, max_leaf_nodes=2, max_features=None,
                 loss=None, n_projections=1, seed=0, timing=None, progress=None, stop=None,
                 models=None) -> ex.ConvergenceResult:
    """Learning curves of ``estimators`` on ``problem`` (a :func:`problem_from_spec` tuple), live:
    :func:`engine.experiments.convergence.run_convergence` with ``live=True``.

    ``progress(fraction, message, partial=result_so_far)`` is called after every compiled
    chunk (about every 50 ms); ``partial`` is a :class:`ConvergenceResult` holding the
    finished curves and the one growing (at most every 0.5 s). ``stop.is_set()`` ends the run
    early with what is done (``complete=False``). ``models``: a dict that receives each
    live-fitted estimator (fitted with ``warm_start=True``), for :func:`continue_curves`.
    ``timing`` (None: the live fit's own times; True, a :class:`~engine.experiments.timing.Timing`
    or a dict): once every curve is drawn, the short fits are repeated in turns and the fit-time
    axis is their median time per step scaled to their median total
    (:func:`engine.experiments.timing.retime`, as every timed chart of the app), so a pause of the
    machine during one fit draws no step in the time panel.
    """
    return ex.run_convergence(problem, estimators, n_steps=n_steps, learning_rate=learning_rate,
                              max_leaf_nodes=max_leaf_nodes, max_features=max_features, loss=loss,
                              n_projections=n_projections, seed=seed, timing=timing, live=True, models=models,
                              progress=progress, stop=stop)


def can_continue(problem, estimators, models) -> bool:
    """True when :func:`continue_curves` can extend every one of ``estimators`` warm."""
    return (isinstance(models, dict) and problem[4] == "regression"
            and all(name != ARTIFICIAL for name in estimators))


def continue_curves(problem, estimators, models, *, n_more, params=None, progress=None,
                    stop=None) -> ex.ConvergenceResult:
    """``n_more`` further steps for each of ``estimators``, continuing the kept ``models``.

    The estimators in ``models`` (from ``train_curves(..., models=models)``) are warm-started,
    so the result equals a longer :func:`train_curves` run (same seed, same steps) at the cost
    of ``n_more`` steps each. A method missing from ``models`` (a stopped run never reached
    it) needs its settings in ``params`` (the previous result's ``params``) and starts from 0.
    """
    if not can_continue(problem, estimators, models):
        raise ValueError("models: only live regression runs (no artificial-gbrt) keep models to continue")
    n_more = check_int(n_more, "n_more", 1)
    check_callbacks(progress, stop)
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    d = Y_tr.shape[1]
    params = dict(params or {})
    params.pop("timing", None)   # a warm continuation's times are the live fit's own, not medians
    names = list(estimators)
    curves: dict = {}
    stopped = (lambda: stop is not None and stop.is_set())
    partial_due = partial_timer(PARTIAL_SECONDS)

    def result(extra=None, complete=False):
        cs = dict(curves)
        if extra is not None and extra.n_steps:
            cs[extra.name] = extra
        ps = {**params, "estimators": names,
              "n_steps": max((c.n_steps for c in cs.values()), default=0)}
        return ex.ConvergenceResult("convergence", info["name"], task, METRICS[task], int(d), cs, ps,
                                    complete, [f"Continued by warm start ({n_more} more steps per method).",
                                               info["split"]])

    for i, name in enumerate(names):
        if stopped():
            break
        est = models.get(name)
        if est is None:
            kw = _model_kwargs(**{k: params.get(k, v) for k, v in
                                  dict(learning_rate=0.1, max_leaf_nodes=2, max_features=None, loss=None,
                                       n_projections=1).items()})
            est = models[name] = _make(name, task, kw, int(params.get("seed", 0)), 1, warm_start=True)
        target = int(getattr(est, "n_steps_", 0)) + n_more
        est.set_params(n_estimators=target)
        single = BOOSTING_CONFIGS[ALIASES.get(name, name)]["strategy"] == SINGLE_TARGET

        def cb(n_done, e, i=i, name=name, single=single, target=target):
            if progress is not None:
                progress((i + 1 - (target - n_done) / n_more) / len(names), f"{name}: step {n_done}/{target}",
                         partial=result(_curve_of(name, e, d, single)) if partial_due() else None)
            return stopped()

        est.fit(X_tr, Y_tr, eval_set=(X_te, Y_te), callback=cb)
        curves[name] = _curve_of(name, est, d, single)
    final = result(complete=not stopped() and len(curves) == len(names))
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
