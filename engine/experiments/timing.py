"""Honest fit times for time-against-q pictures: a warm-up fit first, repeats where a fit is short.

Two things made the Projections page draw q = 1 as the slowest model on friedman1-chain
(0.12 s against 0.016 s for q = 2): the first fit of a run paid one-off costs (first calls
into the compiled core, fresh memory, a page still being drawn next to it), and fits of a few
hundredths of a second are mostly timer noise on a shared machine. So, when an experiment
asks for it (:class:`Timing`):

* before each timed model, one tiny untimed fit of the same configuration (the first
  ``warmup_rows`` rows, ``warmup_steps`` steps) pays the one-off costs;
* a model whose timed fit took less than ``short_seconds`` is fitted again, identically
  (same seed, same model), until ``max_fits`` timed fits or ``budget_seconds`` of extra
  fitting; its time after every step is the **median** over those fits (the median of
  cumulative times, step by step, which stays non-decreasing).

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

__all__ = ["Timing", "resolve_timing", "warm_up", "repeated_fit_times"]


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
        repeat = (f"a model whose fit took under {self.short_seconds:g} s was fitted again, up to "
                  f"{self.max_fits} times in all (at most {self.budget_seconds:g} s more), and its time after "
                  "each step is the median over those fits" if self.max_fits > 1 else "each model is fitted once")
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


def repeated_fit_times(first, refit, timing: Timing, stopped=lambda: False):
    """``(times, n_fits)``: the step-wise median of ``first`` and repeated fits' cumulative times.

    ``first`` : cumulative seconds after each step of the timed fit already done.
    ``refit()`` : fits the same model again and returns its cumulative times (or None when
    it was cut short by a stop, in which case it is not counted).
    Repeats happen only when ``first`` ended under ``timing.short_seconds``; they stop at
    ``timing.max_fits`` fits, once ``timing.budget_seconds`` have been spent on them, or
    when ``stopped()`` is true.
    """
    first = np.asarray(first, dtype=np.float64)
    runs = [first]
    if first.size == 0 or not np.isfinite(first[-1]) or first[-1] >= timing.short_seconds:
        return first, 1
    started = time.perf_counter()
    while len(runs) < timing.max_fits and not stopped():
        if time.perf_counter() - started >= timing.budget_seconds:
            break
        times = refit()
        if times is None or len(times) != first.size:
            break
        runs.append(np.asarray(times, dtype=np.float64))
    if len(runs) == 1:
        return first, 1
    return np.median(np.vstack(runs), axis=0), len(runs)


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
