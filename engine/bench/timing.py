"""The benchmarks' one timing helper: best wall-clock time of repeated fits.

Machines are shared and noisy, so every benchmark time is the best of a few
runs (the least disturbed one), never a mean. :func:`per_step_ms` adds the
research-size rule: warm-up fits first, then fewer steps for a slow estimator
so one fit stays under ``FIT_BUDGET_SECONDS``.

(The experiments' fit times, drawn against q on the pages, follow their own
rule, a median of repeated fits after a warm-up: :mod:`engine.experiments.timing`.)
"""
import time

import numpy as np

# Longest a timed fit should take; slower estimators get fewer steps (printed).
FIT_BUDGET_SECONDS = 20.0
MIN_STEPS = 5


def best_time(fit, repeats):
    """Best wall-clock seconds of ``repeats`` calls of fit()."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        best = min(best, time.perf_counter() - start)
    return best


def per_step_ms(make_fit, steps, repeats):
    """(ms per step, steps timed) of ``make_fit(k)()``, a fit of k steps.

    Fits of 1 and 3 steps first warm up (first-touch memory, lazy imports)
    and estimate a step's cost without the setup; the timed fits then get
    ``steps`` steps, or fewer (at least MIN_STEPS) when that would exceed
    FIT_BUDGET_SECONDS.
    """
    one = best_time(make_fit(1), 1)
    three = best_time(make_fit(3), 1)
    per_step = max((three - one) / 2, 1e-9)         # without the setup (binning, Dataset ...)
    k = int(np.clip((FIT_BUDGET_SECONDS - one) / per_step, min(MIN_STEPS, steps), steps))
    return 1000.0 * best_time(make_fit(k), repeats) / k, k
