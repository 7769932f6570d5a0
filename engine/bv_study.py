"""Plain-Python helpers behind the Bias–variance and Projections pages (no streamlit).

* :func:`run_bias_variance_study`: one or several :func:`engine.bias_variance.run_bias_variance`
  runs (e.g. stumps and 8-leaf trees over the number of steps) in one call, with one
  ``progress`` / ``stop`` pair, so a page can run them as a single background job. A stop
  keeps every run finished so far plus the partial run in progress.
* :func:`estimate_bias_variance_seconds` / :func:`estimate_projection_seconds`: a rough cost
  estimate (seconds on one core of a 2-core CI machine) shown before a big run starts.
* :func:`parse_values`: "1, 3, 10" -> [1, 3, 10] with clamping and a clear ValueError.

The estimates are order-of-magnitude figures calibrated on this project's CI machine
(gbmort, 300 samples, 16 outputs: about 0.05 s for 300 stumps including staged predictions).
"""

from __future__ import annotations

import math

from engine.bias_variance import run_bias_variance
from engine.registry import FOREST_NAMES

__all__ = [
    "SWEEPABLE",
    "FOREST_SWEEPABLE",
    "parse_values",
    "run_bias_variance_study",
    "estimate_bias_variance_seconds",
    "estimate_projection_seconds",
]

# Parameters the Bias–variance page can sweep: name -> (type, low, high).
SWEEPABLE = {
    "n_estimators": (int, 1, 2000),
    "learning_rate": (float, 0.001, 1.0),
    "max_leaf_nodes": (int, 2, 64),
    "n_projections": (int, 1, 64),
}

# Forest parameters the page can sweep (the forest is refitted at each value).
FOREST_SWEEPABLE = {
    "n_estimators": (int, 1, 500),
    "max_features": (float, 0.05, 1.0),
    "n_components": (int, 1, 64),
    "max_leaf_nodes": (int, 2, 256),
}

# Forests, seconds per tree: fit = unit x n log2 n x (features + 5), predict = unit x points;
# measured on friedman1 (300 samples, d = 16): ~0.3 ms per tree with p = 5, ~1.8 ms with p = 80.
_FOREST_FIT_UNIT = 1e-8
_FOREST_PREDICT_UNIT = 9e-8

# Seconds per (boosting step x training sample x (outputs + 10) x (leaves + 2)); see module doc.
_FIT_UNIT = 6e-9
_PREDICT_UNIT = 2e-9
_SCORE_UNIT = {"regression": 1.5e-8, "multilabel": 5e-7}


def parse_values(text, kind=int, low=None, high=None, max_count=12):
    """Parse a comma-separated list of numbers; sort, deduplicate and clamp to [low, high]."""
    if isinstance(text, (list, tuple)):
        items = list(text)
    else:
        items = [t for t in str(text).replace(";", ",").split(",") if t.strip()]
    values = []
    for item in items:
        try:
            v = float(item)
        except (TypeError, ValueError):
            raise ValueError(f"{str(item).strip()!r} is not a number") from None
        if not math.isfinite(v):
            raise ValueError(f"{str(item).strip()!r} is not a finite number")
        if low is not None:
            v = max(low, v)
        if high is not None:
            v = min(high, v)
        values.append(int(round(v)) if kind is int else float(v))
    values = sorted(set(values))
    if not values:
        raise ValueError("give at least one value")
    if len(values) > max_count:
        raise ValueError(f"at most {max_count} values, got {len(values)}")
    return values


def run_bias_variance_study(runs, *, progress=None, stop=None):
    """Run several bias–variance decompositions one after the other.

    runs : dict label -> keyword arguments of :func:`run_bias_variance`
        (``estimator`` included).
    progress(fraction, message) : overall progress; ``stop`` : has ``is_set()``.

    Returns a dict label -> :class:`~engine.bias_variance.BiasVarianceResult`, in the order
    of ``runs``. After a stop it holds the runs done and the interrupted one (``partial``).
    """
    runs = dict(runs)
    if not runs:
        raise ValueError("runs is empty")
    results = {}
    n = len(runs)
    for r, (label, kwargs) in enumerate(runs.items()):
        if stop is not None and stop.is_set() and results:
            break

        def sub(fraction, message=None, r=r, label=label):
            if progress is not None:
                progress((r + fraction) / n, f"{label}: {message}" if message else label)

        results[label] = run_bias_variance(progress=sub, stop=stop, **kwargs)
        if results[label].partial:
            break
    return results


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


def estimate_projection_seconds(*, task, n_runs, n_steps, n_train, n_test, n_outputs):
    """Rough seconds for a projection-size or schemes run (fits + staged scoring)."""
    return float(_SCORE_UNIT.get(task, 1e-7) * n_runs * n_steps * (n_train + n_test) * n_outputs)
