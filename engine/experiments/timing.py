"""Honest fit times for time-against-q pictures: a warm-up fit first, repeats where a fit is short.

Two things made the Projections page draw q = 1 as the slowest model on friedman1-chain
(0.12 s against 0.016 s for q = 2): the first fit of a run paid one-off costs (first calls
into the compiled core, fresh memory, a page still being drawn next to it), and fits of a few
hundredths of a second are mostly timer noise on a shared machine. So, when an experiment
asks for it (:class:`Timing`):

* before each timed model, one tiny untimed fit of the same configuration (the first
  ``warmup_rows`` rows, ``warmup_steps`` steps) pays the one-off costs;
* once every model is measured, each model whose timed fit took less than ``short_seconds``
  is fitted again, identically (same seed, same model), one model after the other in turns,
  until ``max_fits`` timed fits or ``budget_seconds`` of extra fitting. Its total is the
  **median** of those fits' totals, spread over the steps as their **median time per step**
  (:func:`robust_cumulative`). Taking turns spreads a passing disturbance over several models
  instead of loading it on one (the app draws its page while the first model fits).

Why per step: on a loaded machine a fit is paused every few milliseconds (another process's
turn on the core, a Python thread waiting for the GIL), and every pause adds a jump to that fit's
cumulative times. The step-wise median of cumulative times keeps a jump as soon as two fits paused
anywhere before that step, so the fit-time panel drew staircases (issue 31; measured at load 12 on
2 cores: 44-57 jumps of 8 ms in each of three 2000-step st-gbrt fits, 60 in their step-wise median,
5 in the median per step). The median per step drops a pause unless most fits paused at that very
step; rescaled to the median of the totals, the curve ends where the fits' median total does.

What is timed is the estimator's own ``fit_times_``: the boosting steps (tree growing,
relabelling, line searches), not the input checks and the one-off preparation of X that every
model of a sweep shares, nor held-out scoring. The scores come from the first fit only;
repeats change nothing but the times.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engine.validation import check_in_interval, check_int

__all__ = ["Timing", "repeat_in_turns", "resolve_timing", "retime", "robust_cumulative", "spread", "warm_up"]


@dataclass(frozen=True)
class Timing:
    """How a timed experiment measures fit times (see the module docstring)."""

    warmup_rows: int = 64
    warmup_steps: int = 2
    short_seconds: float = 0.5
    max_fits: int = 5
    budget_seconds: float = 2.0

    def __post_init__(self):
        check_int(self.warmup_rows, "warmup_rows", 2)
        check_int(self.warmup_steps, "warmup_steps", 0)
        check_in_interval(self.short_seconds, "short_seconds", 0.0)
        check_int(self.max_fits, "max_fits", 1)
        check_in_interval(self.budget_seconds, "budget_seconds", 0.0)

    def describe(self) -> str:
        """One sentence for a result's notes and a page's caption."""
        warm = (f"after one untimed warm-up fit ({self.warmup_steps} steps on {self.warmup_rows} rows)"
                if self.warmup_steps else "without a warm-up fit")
        repeat = (f"once all models were fitted, each whose fit took under {self.short_seconds:g} s was fitted "
                  f"again, taking turns, up to {self.max_fits} times in all (at most {self.budget_seconds:g} s more): "
                  "its total is the median of those fits' totals, spread over the steps as their median time per "
                  "step (a pause of the machine during one fit leaves no step in the curve)" if self.max_fits > 1
                  else "each model is fitted once")
        return (f"Fit times count the boosting steps only (not input preparation or scoring), measured {warm}; "
                f"{repeat}.")


def warm_up(make, X, Y, timing: Timing):
    """Fit ``make()`` (a fresh estimator) on the first rows for a few steps, untimed; return nothing."""
    if not timing.warmup_steps:
        return
    rows = min(X.shape[0], timing.warmup_rows)
    est = make()
    est.set_params(n_estimators=timing.warmup_steps)
    est.fit(X[:rows], Y[:rows])


def repeat_in_turns(first, refits, timing: Timing, stopped=lambda: False) -> dict:
    """The one round-robin every timed chart uses: fit the short models again, one after the other.

    ``first`` : dict key -> the first timed fit (seconds: a float, or an array of cumulative times
    whose last entry is the total). ``refits`` : dict key -> callable that fits that model again,
    identically, and returns the same kind of value (None: cut short by a stop), or None for a model
    that cannot be refitted. A model is repeated only when its first fit took under
    ``timing.short_seconds``; it stops at ``timing.max_fits`` fits or after ``timing.budget_seconds``
    of repeats. A stop ends the repeats and keeps what was measured. Returns ``{key: [fits]}`` (the
    first fit included, for every key of ``first``)."""
    def total(t):
        t = np.asarray(t, dtype=np.float64)
        return float(t.reshape(-1)[-1]) if t.size else float("nan")

    runs = {key: [t] for key, t in first.items()}
    spent = {key: 0.0 for key in first}
    active = [key for key, t in first.items()
              if refits.get(key) is not None and np.isfinite(total(t)) and total(t) < timing.short_seconds
              and timing.max_fits > 1 and timing.budget_seconds > 0]
    while active and not stopped():
        for key in list(active):
            if stopped():
                break
            started = time.perf_counter()
            times = refits[key]()
            spent[key] += time.perf_counter() - started
            if times is not None and np.shape(times) == np.shape(runs[key][0]):
                runs[key].append(times)
            elif stopped():
                break
            if times is None or len(runs[key]) >= timing.max_fits or spent[key] >= timing.budget_seconds:
                active.remove(key)
    return runs


def spread(fits) -> tuple[float, float, float]:
    """(median, lowest, highest) total seconds of a model's timed fits (floats or cumulative arrays)."""
    totals = np.array([float(np.asarray(t, dtype=np.float64).reshape(-1)[-1]) for t in fits])
    return float(np.median(totals)), float(totals.min()), float(totals.max())


def robust_cumulative(fits) -> np.ndarray:
    """Cumulative seconds after each step from several fits' cumulative times (rows of equal length):
    the median time of each step, accumulated and rescaled so that the last entry is the median of the
    fits' totals. Non-decreasing; a pause during one fit (a jump in its times) leaves no jump here unless
    most fits paused at the same step. One fit: its own times."""
    fits = np.atleast_2d(np.asarray(fits, dtype=np.float64))
    if fits.shape[0] == 1 or not fits.size:
        return fits[0].copy()
    per_step = np.median(np.diff(fits, axis=1, prepend=0.0), axis=0)
    shape = np.cumsum(np.clip(per_step, 0.0, None))
    total = float(np.median(fits[:, -1]))
    if not shape[-1] > 0 or not np.isfinite(total):
        return np.median(fits, axis=0)
    return shape * (total / shape[-1])


def retime(curves, refits, timing: Timing, stopped=lambda: False):
    """Fit the short models again, round-robin, and give each the robust cumulative times of its fits
    (:func:`robust_cumulative`: the median total, spread over the steps as their median time per step).

    ``curves`` : dict key -> :class:`~engine.experiments.convergence.Curve` (its ``fit_time``
    and ``timed_fits`` are replaced in place). ``refits`` : dict key -> callable fitting that
    model again and returning its cumulative times (None: cut short by a stop), or None for a
    model that cannot be refitted. Only models whose timed fit took under
    ``timing.short_seconds`` are repeated: one more fit of each in turn, so a disturbance of a
    moment (the page being drawn as the run starts, another process) falls on one fit of
    several models rather than on every fit of one; a model stops at ``timing.max_fits`` fits
    or after ``timing.budget_seconds`` spent on its repeats. A stop ends the repeats and keeps
    what was measured. Returns ``{key: number of timed fits}``.
    """
    first = {key: np.asarray(curve.fit_time, dtype=np.float64) for key, curve in curves.items()
             if np.asarray(curve.fit_time).size}
    runs = repeat_in_turns(first, {k: v for k, v in refits.items() if k in first}, timing, stopped)
    runs = {key: [np.asarray(f, dtype=np.float64) for f in fits] for key, fits in runs.items()}
    for key, fits in runs.items():
        if len(fits) > 1:
            curves[key].fit_time = robust_cumulative(np.vstack(fits))
            curves[key].timed_fits = len(fits)
            curves[key].time_range = spread(fits)[1:]
    return {key: curves[key].timed_fits for key in curves}


def resolve_timing(timing):
    """The ``timing`` argument of an experiment: True -> :class:`Timing` (), False / None -> None
    (one fit per model, no warm-up), a Timing or a dict of its fields -> that Timing."""
    if timing is True:
        return Timing()
    if timing is None or timing is False:
        return None
    if isinstance(timing, Timing):
        return timing
    if isinstance(timing, dict):
        unknown = set(timing) - set(Timing.__dataclass_fields__)
        if unknown:
            raise ValueError(f"timing has unknown key(s) {sorted(unknown)}; valid keys are "
                             f"{sorted(Timing.__dataclass_fields__)}")
        return Timing(**timing)
    raise ValueError(f"timing must be True, False, None, a Timing or a dict, got {timing!r}")
