"""The hyper-parameter grid of the model selection (paper 002, section 4.1.2): the budgets ("quick",
"moderate", the paper's "full" grid) and a budget resolved for a task and read as grid points.
(:mod:`engine.experiments.model_selection` searches it.)"""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from engine.names import LOSSES
from engine.validation import check_int as _check_int

__all__ = ["BUDGETS", "resolve_budget", "grid_configurations"]

_PAPER_GRID = dict(learning_rate=(1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01),
                   max_leaf_nodes=tuple(range(2, 9)),
                   max_features=("sqrt", 0.1, 0.2, 0.5, 1.0),
                   loss="all", n_steps=10000)
BUDGETS = {
    # seconds: for tests
    "quick": dict(learning_rate=(0.5, 0.1), max_leaf_nodes=(2, 4), max_features=(1.0,),
                  loss="primary", n_steps=100),
    # minutes: for the app
    "moderate": dict(learning_rate=(0.5, 0.2, 0.1, 0.05), max_leaf_nodes=(2, 4, 8),
                     max_features=("sqrt", 1.0), loss="primary", n_steps=1000),
    # the paper's grid (hours to days on one machine)
    "full": _PAPER_GRID,
}


def resolve_budget(budget, task, losses=True):
    if isinstance(budget, str):
        if budget not in BUDGETS:
            raise ValueError(f"budget must be one of {tuple(BUDGETS)} or a dict, got {budget!r}")
        grid = dict(BUDGETS[budget])
    elif isinstance(budget, dict):
        unknown = set(budget) - set(_PAPER_GRID)
        if unknown:
            raise ValueError(f"budget has unknown key(s) {sorted(unknown)}; valid keys are {sorted(_PAPER_GRID)}")
        grid = {**BUDGETS["quick"], **budget}
    else:
        raise ValueError(f"budget must be one of {tuple(BUDGETS)} or a dict, got {budget!r}")
    grid["n_steps"] = _check_int(grid["n_steps"], "budget n_steps", 1)
    loss = grid["loss"]
    if not losses:
        loss = "primary"
    if loss == "all":
        loss = LOSSES[task]
    elif loss == "primary":
        loss = LOSSES[task][:1] if task == "multilabel" else ("squared_error",)
    elif isinstance(loss, str):
        loss = (loss,)
    loss = tuple(loss)
    bad = [l for l in loss if l not in LOSSES[task]]
    if bad or not loss:
        raise ValueError(f"budget loss must be 'all', 'primary' or among {LOSSES[task]} for {task}, got {grid['loss']!r}")
    grid["loss"] = loss
    for key in ("learning_rate", "max_leaf_nodes", "max_features"):
        values = grid[key]
        values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
        if not values:
            raise ValueError(f"budget {key} is empty")
        grid[key] = values
    for lr in grid["learning_rate"]:
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not 0 < lr <= 1:
            raise ValueError(f"budget learning_rate values must be in (0, 1], got {lr!r}")
    for m in grid["max_leaf_nodes"]:
        _check_int(m, "budget max_leaf_nodes", 2)
    for mf in grid["max_features"]:
        if not (mf == "sqrt" or (isinstance(mf, numbers.Real) and not isinstance(mf, bool) and 0 < mf <= 1)):
            raise ValueError(f"budget max_features values must be 'sqrt' or a fraction in (0, 1], got {mf!r}")
    return grid


def _n_features(mf, p):
    """k for a grid value: 'sqrt' -> sqrt(p), a fraction f -> f p (at least 1)."""
    if mf == "sqrt":
        return max(1, int(np.sqrt(p)))
    return max(1, min(p, int(mf * p)))


def grid_configurations(grid, p):
    """Grid points (dicts), max_features resolved to an integer and deduplicated."""
    ks = list(dict.fromkeys(_n_features(mf, p) for mf in grid["max_features"]))
    return [dict(learning_rate=float(lr), max_leaf_nodes=int(m), max_features=int(k), loss=loss)
            for loss, lr, m, k in itertools.product(grid["loss"], grid["learning_rate"],
                                                    grid["max_leaf_nodes"], ks)]
