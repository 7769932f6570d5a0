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

import numpy as np

from engine.experiments.bias_variance import check_run
from engine.experiments.model_selection import (
    NO_GRID,
    check_request,
    evaluate_configuration,
    grid_configurations,
    make_method,
    make_splits,
    no_grid_steps,
)
from engine.estimators.growers import AUTO_HIST_MIN_SAMPLES
from engine.estimators.registry import FOREST_CONFIGS
from engine.methods import BOOSTING, FORESTS, SCHEMES, columns, method_of
from engine.names import ALIASES, FOREST_NAMES, MULTI_OUTPUT
from engine.validation import check_int as _check_int

__all__ = ["estimate_model_selection_cost", "estimate_bias_variance_seconds", "estimate_projection_seconds",
           "estimate_forest_seconds", "estimate_forest_sweep_seconds", "estimate_forest_variance_seconds",
           "estimate_compression_seconds"]

# Seconds per (boosting step x training sample x (outputs + 10) x (leaves + 2)); see module doc.
_FIT_UNIT = 6e-9
_PREDICT_UNIT = 2e-9



def estimate_model_selection_cost(problem, settings, estimators, *, seed=0, probe_steps=10):
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
    problem, task, grid, estimators = check_request(problem, settings, estimators)
    probe_steps = _check_int(probe_steps, "probe_steps", 1)
    reps, _, _, _, _, p, d_all = make_splits(problem, 1, _check_int(seed, "seed", 0))
    rep = reps[0]
    n_real, n_repeats = d_all - problem.n_noisy_outputs, settings.n_repeats
    structure = problem.dataset.split("-", 1)[1] if problem.synthetic else None
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
            per_estimator[e] = n_repeats * (time.thread_time() - t0) * (no_grid_steps(e, task) / probe_steps)
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


def _boosting_row(estimator):
    """The method table's row of a boosting name (gbmort's for a name no row makes)."""
    found = method_of(ALIASES.get(estimator, estimator))
    return found[0] if found is not None and found[0].family == "boosting" else BOOSTING[MULTI_OUTPUT]


def _per_output_forest(name):
    """A forest of one single-output forest per output (st-rf): its kind's trees per tree are d."""
    row = FORESTS.get(ALIASES.get(name, name))
    return row is not None and row.trees_per_tree == "d"


def _fit_seconds(n_steps, n_train, n_outputs, leaves, strategy_outputs):
    return _FIT_UNIT * n_steps * n_train * (strategy_outputs + 10) * (leaves + 2)


def _forest_seconds(estimator, params, n_train, n_test, n_outputs, n_features):
    """A bias-variance forest (registry name, its parameters): fit and prediction of the test set and
    the slice (:func:`estimate_forest_seconds`, the registry's settings under ``params``)."""
    config = {**FOREST_CONFIGS.get(estimator, {}), **params}
    trees, q = int(config.get("n_estimators", 100)), config.get("n_components")
    if q == "log":
        q = max(1, int(round(math.log(n_outputs))))
    outputs = n_outputs
    if _per_output_forest(estimator):       # st-rf: one single-output forest per output
        trees, outputs = trees * n_outputs, 1
    return estimate_forest_seconds(n_train=n_train, n_features=n_features, n_outputs=outputs, n_trees=trees,
                                   q=q, projection=config.get("projection"),
                                   max_features=config.get("max_features", 1.0), n_test=n_test + 101)


def estimate_bias_variance_seconds(problem, settings):
    """Rough seconds for :func:`run_bias_variance` on ``problem`` with ``settings`` (single core)."""
    estimator, param_name, estimator_params = settings.estimator, settings.param_name, settings.estimator_params
    values, n_learning_sets = settings.sweep(), settings.n_learning_sets
    size = problem.size()
    n_train, n_test, n_outputs, n_features = problem.n_train, problem.n_test, size["n_outputs"], size["n_features"]
    n_seeds = check_run(problem, settings).n_seeds       # the run's own (5 for a randomized model by default)
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
        row = _boosting_row(estimator)
        a, b, c = row.cost_columns          # the outputs a step's work is proportional to: a + b q + c d
        steps *= columns(row.trees_per_step, q, n_outputs)
        outs = a + b * q + c * n_outputs
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
# the projection's seconds per n x d x q: each scheme's row's step_cost (engine/methods.py)
_LRAP_UNIT = 1.5e-7         # per n x d cell and evaluation (LRAP sorts every row's scores)
_STAGED_UNIT = 2e-9         # per n x d cell and step (staged decision function)
MODEL_KINDS = tuple(BOOSTING)     # a model of a run: a boosting strategy (a row of the method table) and its q


def estimate_projection_seconds(*, task, n_steps, n_train, n_test, n_outputs, models, n_features,
                                nnz_per_row=None, loss=None, projection="gaussian", max_leaf_nodes=2,
                                n_eval_points=60, train_curve=True, timing=None):
    """Rough seconds for a projection-size or schemes run, from the size of every part of it.

    models : list of ``(kind, q)``, kind a boosting strategy (``MODEL_KINDS``: "projected" for
        gbrt-rpo, "projected_relabel" for gbrt-relabel-rpo with q projections, "multi_output" for
        gbmort, ...); its row in the method table says the columns its split search sees.
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
        q, row = int(q or 1), BOOSTING[kind]
        seen = columns(row.split_columns, q, d) * columns(row.trees_per_step, q, d)
        unit = SCHEMES[projection].step_cost if projection in SCHEMES else 4e-10
        projected = unit * n * d * q if row.projected else 0.0
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


# --- forests ------------------------------------------------------------------------------------------
# One tree of a forest (engine.estimators.forest), seconds on one core of this project's 2-core machine,
# from the size of every part of it (constants fitted to the CPU time of 3-tree forests with a prediction of
# the test set on friedman1, rf1, scm20d, scene, yeast, cal500, bibtex and corel5k, 0.03-3.4 s: within
# 0.3-4.4x, the sparse wide sets within 0.8-1.2x; tests/engine_app/test_forest_cost.py holds them to it):
# * the split search: at each of log2(n) levels, the n samples' sums plus the stored input values of
#   the k features drawn (n per dense feature, its non-zeros for a sparse one), each times the targets
#   the criterion sums (q projections, or the d outputs) plus a fixed part;
# * the projection Y @ Phi.T (n x d x q; sub-sampling copies q columns), the relabelling of the leaves
#   with the original outputs (n x d per level) and the prediction of the test set (n_test x d).
_TREE_SPLIT_UNIT = 4.0e-9
_TREE_TARGET_BASE = 88.0
_TREE_PROJECTION_UNIT = 3.9e-10
_TREE_RELABEL_UNIT = 1.3e-9
_TREE_PREDICT_UNIT = 1e-10
# a dense feature's value, against a sparse one's stored value: in the histogram search (from
# AUTO_HIST_MIN_SAMPLES training samples) and in the exact presorted search below
_TREE_DENSE_WEIGHT = 0.18
_TREE_EXACT_WEIGHT = 0.016
# Known limit: on small dense sets the exact search's cost grows faster with the features than this
# says (measured: 300 samples, 16 outputs, 100 trees on all features, 80 features 6.2 times 5 features'
# 0.028 s; estimated 2.1 times). A weight that fits it overestimates Friedman1-ind and yeast beyond the
# factor 4 the tests hold every estimate to, so it stays as calibrated over the eight data sets.


def _features_drawn(max_features, p):
    if max_features is None:
        return p
    if isinstance(max_features, str):
        return max(1, int(math.sqrt(p) if max_features == "sqrt" else math.log2(max(p, 2))))
    if isinstance(max_features, float):
        return max(1, int(round(max_features * p)))
    return max(1, min(int(max_features), p))


def estimate_forest_seconds(*, n_train, n_features, n_outputs, n_trees, nnz_per_row=None, q=None,
                            projection=None, max_features=1.0, n_test=0):
    """Rough seconds of one forest fit (and the prediction of ``n_test`` samples), one core.

    ``q`` (the forest's ``n_components``) with a ``projection``; None grows the trees on the d outputs. Fully grown
    trees (the papers' setting). For a sparse X, ``nnz_per_row`` stored values per row.
    """
    n, p, d = max(int(n_train), 2), max(int(n_features), 1), max(int(n_outputs), 1)
    levels = math.log2(n)
    k = _features_drawn(max_features, p)
    dense_weight = _TREE_DENSE_WEIGHT if n >= AUTO_HIST_MIN_SAMPLES else _TREE_EXACT_WEIGHT
    per_feature = n * dense_weight if nnz_per_row is None else n * float(nnz_per_row) / p
    targets = d if projection is None or q is None else int(q)
    split = _TREE_SPLIT_UNIT * levels * (n + k * per_feature) * (targets + _TREE_TARGET_BASE)
    projected = 0.0
    if projection is not None and q is not None:
        reads = columns(SCHEMES[projection].tree_reads, targets, d) if projection in SCHEMES else d
        projected = _TREE_PROJECTION_UNIT * n * targets * reads
    relabel = _TREE_RELABEL_UNIT * n * d * levels
    predict = _TREE_PREDICT_UNIT * int(n_test) * (d + levels)
    return float(int(n_trees) * (split + projected + relabel + predict))


# A compression run (engine.experiments.compression), per fold (cv + 1 forests and l1 paths): the path
# over the forest's node indicators dominates, about n x (nodes: n / n_min a tree) x trees x sqrt(d)
# (measured: friedman1 100 trees 2.1 s, emotions 30 trees 3.4 s, yeast 10 trees and 4 folds 7.9 s)
_COMPRESSION_UNIT = 2.8e-8


def estimate_forest_sweep_seconds(plan, *, timing=False):
    """Rough seconds (one core) of a forest sweep (:func:`engine.experiments.forests.run_sweep`) from its
    plan (:func:`~engine.experiments.forests.plan_sweep`: the fits themselves, nothing drawn): every
    forest costs :func:`estimate_forest_seconds`; with ``timing`` (as ``run_sweep`` takes it) the short
    fits are also repeated for steady times (engine.experiments.timing)."""
    from engine.experiments.timing import resolve_timing

    size = plan.problem.size()
    shape = dict(n_train=size["n_train"], n_features=size["n_features"], n_outputs=size["n_outputs"],
                 nnz_per_row=size["nnz_per_row"], n_test=size["n_test"])
    timing = resolve_timing(timing)
    total = 0.0
    for _series, _x, _repeat, params in plan.fits:
        fit = estimate_forest_seconds(n_trees=params["n_estimators"], q=params.get("n_components"),
                                      projection=params.get("projection"),
                                      max_features=params.get("max_features", 1.0), **shape)
        total += fit
        if timing is not None and fit < timing.short_seconds:     # repeated for steady times (no scoring)
            total += min(fit * (timing.max_fits - 1), timing.budget_seconds)
    return float(total)


def estimate_forest_variance_seconds(settings, n_learning_sets):
    """Rough seconds (one core) of :func:`engine.experiments.forest_variance.run_forest_bias_variance`,
    from its checked settings (:func:`~engine.experiments.forest_variance.check_settings`)."""
    s = settings
    d = s["n_outputs"]
    shape = dict(n_train=s["n_train"], n_test=s["n_test"], n_outputs=d,
                 n_features=5 * d if s["structure"] == "ind" else 5)
    per_set = 0.0
    for q in s["q_values"]:
        trees = s["n_projections"] * s["n_tree_seeds"] + 2 * s["n_forest_seeds"] * s["n_estimators"] * s["include_forests"]
        per_set += estimate_forest_seconds(n_trees=trees, q=q, projection=s["projection"],
                                           max_features=s["max_features"], **shape)
    return float(per_set * int(n_learning_sets))


def estimate_compression_seconds(problem, settings, values=None, parameter="n_min"):
    """Rough seconds (one core) of :func:`engine.experiments.compression.run_compression` (or, with
    ``values``, of its sweep over ``parameter``) on a Problem with its CompressionSettings."""
    size = problem.size()
    n, d = size["n_train"], size["n_outputs"]
    total = 0.0
    for v in values if values is not None else [None]:
        kw = settings.forest_params() if v is None else {**settings.forest_params(), parameter: v}
        nodes = n / max(int(kw["n_min"]), 1)
        per_fold = _COMPRESSION_UNIT * n * nodes * int(kw["n_estimators"]) * math.sqrt(d)
        total += per_fold * (settings.cv + 1) * settings.n_runs
    return float(total)


# --- the real-data study -------------------------------------------------------------------------------
_PROBE_STEPS = 30            # a timing probe fits about this many steps (engine.experiments.study_cells)
_BOOMER_FIT_SECONDS = 5.0    # one BOOMER fit of the quick budget's rules on a small set (rough)
_CELL_SECONDS = 0.01         # what every fit adds (its data, scoring, the cell's bookkeeping)
# T (one gbmort stump step, square loss) measured by the study against estimate_projection_seconds's:
# bibtex 0.010 / 0.032 s, corel5k 0.0051 / 0.0118, scm20d 0.0021 / 0.0044, yeast 0.0002 / 0.0010,
# delicious 0.059 / 0.161: the step estimate errs high on these sets by this factor
_STUDY_STEP_FACTOR = 0.4
# (measured CPU, quick budget, the eight methods: edm + emotions 3.7 s for 1.1 + 2.5 estimated, yeast 6.8 s for 10.9)


def estimate_real_data_seconds(work):
    """Rough seconds (one core) of :func:`engine.experiments.real_data.run_real_data`, from its
    ``study_work`` (what it will fit). Every boosting fit trains for ``time_factor`` T, T being one
    gbmort stump step (the study's own time budget, section 4.1.2), estimated here by
    :func:`estimate_projection_seconds`; the forests by :func:`estimate_forest_seconds`; BOOMER fits
    count ``_BOOMER_FIT_SECONDS`` each."""
    from engine.datasets import list_datasets

    meta = {d["name"]: d for d in list_datasets()}
    total = 0.0
    for w in work:
        m = meta.get(w["name"], {})
        nnz = m["nnz"] / m["n_samples"] if m.get("sparse") and m.get("nnz") else None
        n_fit, d, p = int(0.8 * w["n_train"]), w["n_outputs"], w["n_features"]
        step = estimate_projection_seconds(task=w["task"], n_steps=1, n_train=n_fit, n_test=0, n_outputs=d,
                                           models=[("multi_output", None)], n_features=p, nnz_per_row=nnz,
                                           loss="squared_error", n_eval_points=0, train_curve=False)
        step *= _STUDY_STEP_FACTOR
        total += w["boosting_fits"] * w["time_factor"] * step + w["probes"] * _PROBE_STEPS * step
        for method, fits in w["forest_fits"].items():
            per_output = _per_output_forest(method)
            total += fits * estimate_forest_seconds(
                n_train=w["n_train"], n_features=p, n_outputs=1 if per_output else d, nnz_per_row=nnz,
                n_trees=w["forest_trees"] * (d if per_output else 1), n_test=w["n_test"],
                max_features="sqrt" if w["task"] == "multilabel" else 1.0)
        total += w["boomer_fits"] * _BOOMER_FIT_SECONDS
        total += _CELL_SECONDS * (w["boosting_fits"] + w["probes"] + sum(w["forest_fits"].values()))
    return float(total)
