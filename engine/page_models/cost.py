"""What a run will cost, said before it starts (the pages' "this will take about ..." line).

* :func:`estimate_model_selection_cost`: the benchmark protocol
  (:func:`engine.experiments.model_selection.run_model_selection`), from a short probe
  fit of every estimator on this machine;
* :func:`estimate_bias_variance_seconds` / :func:`estimate_projection_seconds`: rough
  unit-cost models (seconds on one core of a 2-core CI machine) of a bias–variance run
  and of a projection-size or schemes run.

The unit costs are order-of-magnitude figures calibrated on this project's CI machine
(gbmort, 300 samples, 16 outputs: about 0.05 s for 300 stumps including staged predictions).
"""

from __future__ import annotations

import math
import time

from engine.experiments.model_selection import (
    NO_GRID,
    check_estimators,
    check_noisy_outputs,
    evaluate_configuration,
    grid_configurations,
    make_method,
    make_splits,
    resolve_budget,
    resolve_dataset,
)
from engine.names import FOREST_NAMES
from engine.validation import check_int as _check_int

__all__ = ["estimate_model_selection_cost", "estimate_bias_variance_seconds", "estimate_projection_seconds",
           "estimate_forest_sweep_seconds"]

# Forests, seconds per tree: fit = unit x n log2 n x (features + 5), predict = unit x points;
# measured on friedman1 (300 samples, d = 16): ~0.3 ms per tree with p = 5, ~1.8 ms with p = 80.
_FOREST_FIT_UNIT = 1e-8
_FOREST_PREDICT_UNIT = 9e-8

# Seconds per (boosting step x training sample x (outputs + 10) x (leaves + 2)); see module doc.
_FIT_UNIT = 6e-9
_PREDICT_UNIT = 2e-9



def estimate_model_selection_cost(dataset, estimators, *, budget="quick", n_repeats=5, seed=0, n_noisy_outputs=0,
                  probe_steps=10):
    """Predict the work and the running time of ``run_model_selection`` before starting it.

    The time comes from a short probe on this machine, measured as CPU time of this thread
    (``time.thread_time``: a probe on a busy server is not slower, so an estimate made while a
    class trains does not refuse the run for everyone after it): every estimator is fitted
    once with ``probe_steps`` boosting steps (forests: ``probe_steps`` trees) on
    the first repeat's data with the largest trees of the grid, and the measured
    time per step is multiplied by the steps the real call will grow (every grid
    point to ``n_steps``, plus the refit). An upper-side estimate: the refit
    usually stops earlier, and smaller trees are faster. It costs about
    ``len(estimators) * probe_steps`` steps (well under a second for the
    defaults). Arguments as in :func:`~engine.experiments.model_selection.run_model_selection`
    (same checks).

    Returns a dict: ``n_fits`` (model fits in total), ``n_configs`` (grid points),
    ``n_steps``, ``seconds`` (estimated total), ``per_estimator`` (estimator ->
    estimated seconds) and ``probe_seconds`` (time spent on the probe).
    """
    started = time.perf_counter()
    name, structure, data = resolve_dataset(dataset)
    task = "regression" if data is None else data.task
    estimators = check_estimators(estimators, structure)
    grid = resolve_budget(budget, task)
    n_repeats = _check_int(n_repeats, "n_repeats", 2)
    probe_steps = _check_int(probe_steps, "probe_steps", 1)
    n_noisy_outputs = check_noisy_outputs(n_noisy_outputs, structure)
    reps, _, _, _, _, p, d_all = make_splits(name, structure, data, 1, n_noisy_outputs, _check_int(seed, "seed", 0))
    rep = reps[0]
    n_real = d_all - n_noisy_outputs
    configs = grid_configurations(grid, p)
    n_steps = grid["n_steps"]
    heavy = max(configs, key=lambda c: (c["max_leaf_nodes"], c["max_features"]))
    X_fit, Y_fit = rep["X_train"][rep["fit"]], rep["Y_train"][rep["fit"]]
    X_val, Y_val = rep["X_train"][rep["val"]], rep["Y_train"][rep["val"]]
    per_estimator, n_fits = {}, 0
    for e in estimators:
        t0 = time.thread_time()
        if e in NO_GRID:
            make_method(e, task, structure, n_real, dict(random_state=0, n_estimators=probe_steps)).fit(
                rep["X_train"], rep["Y_train"])
            per_estimator[e] = n_repeats * (time.thread_time() - t0) * (100 / probe_steps)
            n_fits += n_repeats
            continue
        steps = min(probe_steps, n_steps)
        evaluate_configuration(e, task, structure, n_real, heavy, steps, 0, X_fit, Y_fit, X_val, Y_val)
        per_step = (time.thread_time() - t0) / steps
        per_estimator[e] = n_repeats * per_step * n_steps * (len(configs) + 1)
        n_fits += n_repeats * (len(configs) + 1)
    return dict(n_fits=n_fits, n_configs=len(configs), n_steps=n_steps,
                seconds=float(sum(per_estimator.values())), per_estimator=per_estimator,
                probe_seconds=time.perf_counter() - started)


def _fit_seconds(n_steps, n_train, n_outputs, leaves, strategy_outputs):
    return _FIT_UNIT * n_steps * n_train * (strategy_outputs + 10) * (leaves + 2)


def _forest_seconds(estimator, params, n_train, n_test, n_outputs, n_features):
    trees = int(params.get("n_estimators", 100))
    if estimator == "st-rf":       # one forest per output
        trees *= n_outputs
    fit = _FOREST_FIT_UNIT * n_train * math.log2(max(n_train, 2)) * (n_features + 5)
    return trees * (fit + _FOREST_PREDICT_UNIT * (n_test + 101))


def estimate_bias_variance_seconds(estimator, *, param_name, param_values, n_learning_sets, n_train,
                                   n_test, n_seeds, n_outputs, estimator_params, n_features=5):
    """Rough seconds for :func:`run_bias_variance` with these arguments (single core)."""
    values = list(param_values) if param_name else [None]
    if estimator in FOREST_NAMES:  # refitted at every value
        total = sum(_forest_seconds(estimator, {**estimator_params, **({param_name: v} if param_name else {})},
                                    n_train, n_test, n_outputs, n_features) for v in values)
        return float(total * n_learning_sets * n_seeds)
    if param_name == "n_estimators":  # one staged fit to the largest value serves every value
        values = [max(values)]
    total = 0.0
    for v in values:
        params = dict(estimator_params)
        if param_name:
            params[param_name] = v
        steps = int(params.get("n_estimators", 100))
        leaves = int(params.get("max_leaf_nodes", 2) or 2)
        q = int(params.get("n_projections", 1) or 1)
        if estimator.startswith("st-"):
            steps, outs = steps * n_outputs, 1
        elif estimator.startswith("gbrt-rpo"):
            outs = 1 + n_outputs / 4
        elif estimator.startswith("gbrt-relabel"):
            outs = q + n_outputs / 2
        else:
            outs = n_outputs
        total += _fit_seconds(steps, n_train, n_outputs, leaves, outs)
        total += _PREDICT_UNIT * steps * (n_test + 101) * n_outputs
    return float(total * n_learning_sets * n_seeds)


# The projection experiments at the papers' scale: seconds per unit of work of one boosting step,
# measured on this project's 2-core machine (order of magnitude; the machine is shared, so +- a
# factor of 2). The split-search unit fits the histogram search on sparse counts
# (synthetic-delicious-shape: gbmort 0.45 s per stump); the exact search on dense features and
# the histograms of binary features (bibtex) cost less per stored value, so estimates err high.
# logistic: the real delicious (12 920 x 983 cells) pays 0.17-0.25 s per step for the gradient and the line
# searches (issue 33: gbmort 324 ms per step logistic against 73 ms square; 172-242 ms CPU per step in all,
# engine/experiments/RESULTS.md), about 1.5e-8 per cell: 2e-8 errs high (the old 2.5e-7 put the delicious
# Figure 6 preset at 17 minutes, over the pages' limit; it runs in under 2 minutes of CPU).
_LOSS_UNIT = {"squared_error": 3e-9, "logistic": 2e-8, "absolute_error": 3.5e-7}   # per n x d cell (line searches)
_SPLIT_UNIT = 7e-10        # per (stored input value) x (column the split search sees)
_PROJECTION_UNIT = {"gaussian": 4e-10, "achlioptas": 1.5e-10, "sparse": 4e-11, "subsample": 0.0}  # per n x d x q
_LRAP_UNIT = 1.5e-7         # per n x d cell and evaluation (LRAP sorts every row's scores)
_STAGED_UNIT = 2e-9         # per n x d cell and step (staged decision function)
MODEL_KINDS = ("projected", "projected_relabel", "multi_output")


def estimate_projection_seconds(*, task, n_steps, n_train, n_test, n_outputs, models, n_features,
                                nnz_per_row=None, loss=None, projection="gaussian", max_leaf_nodes=2,
                                n_eval_points=60, train_curve=True, timing=None):
    """Rough seconds for a projection-size or schemes run, from the size of every part of it.

    models : list of ``(kind, q)``, kind in "projected" (gbrt-rpo), "projected_relabel"
        (gbrt-relabel-rpo with q projections) or "multi_output" (gbmort).
    One boosting step costs the loss's gradient and line searches (n x d), the projection
    (n x d x q, by scheme) and the split search: stored input values (n x p, or the
    non-zeros of a sparse X: ``nnz_per_row``) times the columns it sees (1, q or d) times
    log2(leaves) levels. Scoring: regression evaluates inside the fit (a train curve is a second
    fit); multi-label scores LRAP at ``n_eval_points`` steps on the test (and train) set.
    ``timing`` (:class:`engine.experiments.timing.Timing`) adds the repeats of short fits.
    """
    loss = loss or ("logistic" if task == "multilabel" else "squared_error")
    n, m, d = int(n_train), int(n_test), int(n_outputs)
    stored = n * float(nnz_per_row if nnz_per_row is not None else n_features)
    levels = max(1.0, math.log2(max(int(max_leaf_nodes), 2)))
    total = 0.0
    for kind, q in models:
        if kind not in MODEL_KINDS:
            raise ValueError(f"models: kind must be one of {MODEL_KINDS}, got {kind!r}")
        q = int(q or 1)
        seen = {"projected": 1, "projected_relabel": q, "multi_output": d}[kind]
        projected = 0.0 if kind == "multi_output" else _PROJECTION_UNIT.get(projection, 4e-10) * n * d * q
        step = _LOSS_UNIT.get(loss, 3e-7) * n * d + projected + _SPLIT_UNIT * stored * seen * levels
        fit = n_steps * step
        if task == "multilabel":
            scoring = n_steps * _STAGED_UNIT * (m + (n if train_curve else 0)) * d
            scoring += n_eval_points * _LRAP_UNIT * (m + (n if train_curve else 0)) * d
        else:
            scoring = n_steps * _STAGED_UNIT * m * d + (fit if train_curve else 0.0)
        total += fit + scoring
        if timing is not None and fit < timing.short_seconds:
            total += min(fit * (timing.max_fits - 1), timing.budget_seconds)
    return float(total)


# Forest sweeps (the Forests page's delicious views), seconds per tree (one core): the leaves'
# values on the original outputs (n x d), the split criterion on the q outputs it sees (n log2 n x k x q,
# q = d without a projection) and the split search over the stored inputs (n log2 n x stored per row x
# k / p). Calibrated on CPU seconds (10-tree forests, k = sqrt(p)): delicious 0.63 / 1.7 s per tree at
# q = 25 / its 983 labels (estimated 0.67 / 1.7), one unpruned tree on all 500 features 1.3 s at q = 1
# and 9.7 s on the labels (0.67 / 25: errs high); bibtex 0.05 / 0.11 (0.04 / 0.15), corel5k 0.044 /
# 0.14 (0.09 / 0.21), emotions 2 ms (5 ms).
_LEAF_UNIT = 5e-8
_CRITERION_UNIT = 2.8e-10
_SEARCH_UNIT = 2e-7


def _tree_seconds(n, d, p, stored_per_row, k, q):
    nlogn = n * math.log2(max(n, 2))
    return _LEAF_UNIT * n * d + _CRITERION_UNIT * nlogn * k * q + _SEARCH_UNIT * nlogn * stored_per_row * k / p


FOREST_EXPERIMENTS = ("projection-size", "randomization", "schemes")


def estimate_forest_sweep_seconds(experiment, *, n_train, n_test, n_features, n_outputs, nnz_per_row=None,
                                  n_estimators, n_repeats=1, q_values, max_features_values=None, n_schemes=4,
                                  include_single_tree=False, include_shared=True, task="multilabel"):
    """Rough seconds for a forest sweep of :mod:`engine.experiments.forests` (one core).

    experiment : "projection-size" (single trees on all features if ``include_single_tree``,
        Algorithms 1 and 2 with k = sqrt(p), references on the original outputs), "randomization"
        (every k of ``max_features_values`` for every q and the reference) or "schemes"
        (``n_schemes`` schemes at every q, the reference). Scoring adds an LRAP per fit.
    """
    if experiment not in FOREST_EXPERIMENTS:
        raise ValueError(f"experiment must be one of {FOREST_EXPERIMENTS}, got {experiment!r}")
    n, p, d = int(n_train), int(n_features), int(n_outputs)
    stored = float(nnz_per_row if nnz_per_row is not None else p)
    sqrt_k = max(1, int(round(math.sqrt(p)))) if task == "multilabel" else p
    qs = [int(q) for q in q_values]
    fits = []                                   # (trees, k, q) per fit
    if experiment == "projection-size":
        fits.append((n_estimators, sqrt_k, d))
        if include_single_tree:
            fits += [(1, p, d)] + [(1, p, q) for q in qs]
        fits += [(n_estimators, sqrt_k, q) for q in qs] * (2 if include_shared else 1)
    elif experiment == "randomization":
        m = min(p, 6)     # the experiment's default grid: about 6 log-spaced k from 1 to p
        ks = [int(k) for k in max_features_values] if max_features_values else sorted(
            {max(1, round(p ** (i / max(m - 1, 1)))) for i in range(m)})
        fits += [(n_estimators, k, q) for k in ks for q in qs + [d]]
    else:
        fits += [(n_estimators, sqrt_k, d)] + [(n_estimators, sqrt_k, q) for q in qs] * int(n_schemes)
    score = (_LRAP_UNIT if task == "multilabel" else _STAGED_UNIT) * int(n_test) * d
    one = sum(trees * _tree_seconds(n, d, p, stored, k, q) + score for trees, k, q in fits)
    return float(one * int(n_repeats))
