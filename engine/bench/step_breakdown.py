"""Where a boosting step's time goes on delicious: ``python -m engine.bench --step-breakdown``.

Paper 002's Figure 6 (delicious: n = 12 920 training rows, d = 983 labels, stumps, mu = 0.1,
100 steps, the logistic loss with the line search) claims "about the same performance as
gbmort with q >= 20 projections, computing times reduced by a factor 7 at q = 20". A step of
gbrt-relabel-rpo only saves in the split search (q columns of split targets instead of d); it
still pays the gradient and the loss over the n x d scores, the line search of every output,
and the projection itself. This benchmark measures each part with the compiled core's phase
timers (``engine._core.algorithms.time_phases``, the thread's CPU time): the split targets
(the projection G Phi_m^T), the tree, the leaves, rho (the line searches) and the update (F,
the next gradient, the training loss). The first step's gradient (once per fit) counts under
the update.

Rows: gbmort; gbrt-relabel-rpo with q = 1 (Gaussian) and q = 20 for the four schemes; each with
the paper's mean leaves and line search, and with Newton leaves (no line search). One thread;
each time the best of ``repeats`` fits after a warm-up fit. Then Figure 6's time claim itself:
gbmort against gbrt-relabel-rpo-gaussian q = 20, 100 steps, fit seconds (CPU and wall) and
test LRAP on the standard split.
"""
import datetime
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from engine._core import algorithms as _steps
from engine.datasets import load_dataset
from engine.estimators.registry import make_estimator
from engine.metrics import lrap
from engine.names import LEAF_ESTIMATIONS, MULTI_OUTPUT, PROJECTED_RELABEL, boosting_name

# (strategy, scheme, q) of each row.
SETTINGS = ((MULTI_OUTPUT, None, 1), (PROJECTED_RELABEL, "gaussian", 1),
            (PROJECTED_RELABEL, "gaussian", 20), (PROJECTED_RELABEL, "achlioptas", 20),
            (PROJECTED_RELABEL, "subsample", 20), (PROJECTED_RELABEL, "sparse", 20))
LEAVES = LEAF_ESTIMATIONS
PHASES = _steps.PHASE_NAMES
FIGURE6_Q = 20


def _estimator(strategy, scheme, q, leaves, steps):
    name = boosting_name(strategy) if scheme is None else boosting_name(strategy, scheme)
    params = dict(n_estimators=steps, max_leaf_nodes=2, learning_rate=0.1, n_jobs=1,
                  random_state=0, leaf_estimation=leaves, early_stopping=False)
    if scheme is not None:
        params["n_projections"] = q
    return name, make_estimator(name, task="multilabel", **params)


def time_step(X, Y, strategy, scheme, q, leaves, steps=10, repeats=2):
    """(CPU ms per step, {phase: CPU ms per step}, wall ms per step) of one setting: the fit of
    ``steps`` steps with the least CPU time of ``repeats``, after a warm-up fit of one step.

    CPU time (the thread's, one thread) is the sum of the phases: on a shared machine whose
    other processes hold the cores it stays what the step costs, where wall time grows."""
    _, warm = _estimator(strategy, scheme, q, leaves, 1)
    warm.fit(X, Y)
    best, phases, wall = np.inf, None, None
    for _ in range(repeats):
        _, model = _estimator(strategy, scheme, q, leaves, steps)
        _steps.time_phases(True)
        try:
            model.fit(X, Y)
            seconds = _steps.phase_seconds()
        finally:
            _steps.time_phases(False)
        if sum(seconds.values()) < best:
            best, phases, wall = sum(seconds.values()), seconds, float(model.fit_times_[-1])
    return (1000.0 * best / steps, {k: 1000.0 * v / steps for k, v in phases.items()},
            1000.0 * wall / steps)


def breakdown(X, Y, steps=10, repeats=2, settings=SETTINGS, leaves=LEAVES):
    """[(name, q, leaves, CPU ms per step, {phase: CPU ms per step}, wall ms per step)] for
    every setting x leaves."""
    rows = []
    for strategy, scheme, q in settings:
        for leaf_estimation in leaves:
            name, _ = _estimator(strategy, scheme, q, leaf_estimation, 1)
            ms, phases, wall = time_step(X, Y, strategy, scheme, q, leaf_estimation, steps,
                                         repeats)
            rows.append((name, q, leaf_estimation, ms, phases, wall))
    return rows


def figure6_time(X, Y, X_test, Y_test, steps=100, leaves="mean", q=FIGURE6_Q):
    """{name: (fit CPU seconds, test LRAP, fit wall seconds)} of gbmort and
    gbrt-relabel-rpo-gaussian with q at ``steps`` steps (stumps, mu = 0.1, one thread), and the
    CPU time ratio gbmort / relabel (the process's CPU time: the whole fit, binning included)."""
    out = {}
    for strategy, scheme in ((MULTI_OUTPUT, None), (PROJECTED_RELABEL, "gaussian")):
        name, model = _estimator(strategy, scheme, q, leaves, steps)
        started, cpu = time.perf_counter(), time.process_time()
        model.fit(X, Y)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        out[name] = (cpu, lrap(Y_test, model.decision_function(X_test)), wall)
    (t_mort, _, _), (t_rpo, _, _) = out.values()
    return out, t_mort / t_rpo


def _print_rows(rows):
    print(f"{'method':<30}{'q':>3} {'leaves':<7}{'CPU ms':>8}{'wall ms':>9} "
          + "".join(f"{p:>21}" for p in PHASES))
    for name, q, leaves, ms, phases, wall in rows:
        print(f"{name:<30}{q:>3} {leaves:<7}{ms:>8.1f}{wall:>9.1f} "
              + "".join(f"{phases[p]:>21.1f}" for p in PHASES))


def as_dict(rows, figure6, n, d, steps, repeats, loads):
    """The breakdown as engine.app.page_content.step_costs reads it (with machine, date and load)."""
    return {"dataset": "delicious", "n": int(n), "d": int(d), "steps": steps, "repeats": repeats,
            "date": datetime.date.today().isoformat(), "machine": platform.machine() + ", "
            + f"{os.cpu_count()} cores", "load_1min": [round(x, 2) for x in loads],
            "rows": [{"method": name, "q": q, "leaves": leaves, "ms": round(ms, 2),
                      "wall_ms": round(wall, 2),
                      "phases": {k: round(v, 2) for k, v in phases.items()}}
                     for name, q, leaves, ms, phases, wall in rows],
            "figure6": figure6}


def run(steps=10, repeats=2, figure6_steps=100, quick=False, out_dir=None):
    """Print the breakdown on delicious's training split, then Figure 6's time claim; with
    ``out_dir``, also write it to out_dir/step_breakdown_delicious.json (the page's format)."""
    data = load_dataset("delicious")
    train, test = data.train_indices, data.test_indices
    X, Y = data.X[train], data.Y[train] > 0
    X_test, Y_test = data.X[test], data.Y[test] > 0
    if quick:
        X, Y, X_test, Y_test = X[:1000], Y[:1000, :100], X_test[:500], Y_test[:500, :100]
        steps, repeats, figure6_steps = 3, 1, 10
    print(f"delicious: n = {X.shape[0]} training rows, d = {Y.shape[1]} labels, stumps, mu = 0.1, "
          f"one thread; CPU ms per step (best of {repeats} fits of {steps} steps), by phase, "
          "and the same fit's wall ms")
    loads = [os.getloadavg()[0]]
    rows = breakdown(X, Y, steps, repeats)
    _print_rows(rows)
    loads.append(os.getloadavg()[0])
    figure6 = {}
    for leaves in LEAVES:
        result, ratio = figure6_time(X, Y, X_test, Y_test, figure6_steps, leaves)
        figure6[leaves] = {"steps": figure6_steps, "cpu_ratio": round(ratio, 3),
                           "fits": {k: {"cpu_seconds": round(s, 2), "wall_seconds": round(w, 2),
                                        "test_lrap": round(score, 4)}
                                    for k, (s, score, w) in result.items()}}
        print(f"Figure 6 at {figure6_steps} steps, {leaves} leaves: "
              + "; ".join(f"{name} {s:.1f} s CPU ({w:.1f} s wall), test LRAP {score:.3f}"
                          for name, (s, score, w) in result.items())
              + f"; CPU time ratio gbmort / q = {FIGURE6_Q}: {ratio:.2f} (paper: about 7)")
    loads.append(os.getloadavg()[0])
    print("load (1 min) before, between, after: " + ", ".join(f"{x:.1f}" for x in loads))
    result = as_dict(rows, figure6, X.shape[0], Y.shape[1], steps, repeats, loads)
    if out_dir is not None:
        path = Path(out_dir) / "step_breakdown_delicious.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {path}")
    return result
