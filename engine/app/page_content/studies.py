"""Several bias–variance runs as one background job, and the page's value parsing (no streamlit).

* :func:`run_bias_variance_study`: one or several
  :func:`engine.experiments.bias_variance.run_bias_variance` runs (e.g. stumps and 8-leaf
  trees over the number of steps) in one call, with one ``progress`` / ``stop`` pair, so a
  page can run them as a single background job. A stop keeps every run finished so far
  plus the partial run in progress.
* :func:`parse_values`: "1, 3, 10" -> [1, 3, 10] with clamping and a clear ValueError.
* ``SWEEPABLE`` / ``FOREST_SWEEPABLE``: the parameters the Bias–variance page can sweep.
"""

from __future__ import annotations

import math

from engine.experiments.bias_variance import run_bias_variance

__all__ = ["SWEEPABLE", "FOREST_SWEEPABLE", "clamp_note", "parse_values", "run_bias_variance_study"]

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


def clamp_note(text, low=None, high=None, name="value") -> str | None:
    """The sentence a page shows next to its input when :func:`parse_values` clamped some of ``text``'s
    numbers (e.g. "0, -5, 100000" with low 1, high 2000), else None. Unparsable text: None (parse_values
    raises for it)."""
    items = [t.strip() for t in str(text).replace(";", ",").split(",") if t.strip()]
    changed = []
    for item in items:
        try:
            v = float(item)
        except ValueError:
            return None
        if not math.isfinite(v):
            return None
        if low is not None and v < low:
            changed.append(f"{item} → {low:g}")
        elif high is not None and v > high:
            changed.append(f"{item} → {high:g}")
    if not changed:
        return None
    listed = ", ".join(changed[:NOTE_ITEMS]) + (f" and {len(changed) - NOTE_ITEMS:,} more" if len(changed) > NOTE_ITEMS else "")
    return f"Changed to fit the allowed range [{low:g}, {high:g}] of {name}: {listed}."


NOTE_ITEMS = 4      # clamped values a note lists one by one (a link may hold thousands: the rest are counted)


def run_bias_variance_study(runs, *, seed=0, progress=None, stop=None):
    """Run several bias–variance decompositions one after the other.

    runs : dict label -> ``(problem, settings)`` of :func:`run_bias_variance` (a Problem and its
        :class:`~engine.experiments.bias_variance.BiasVarianceSettings`), each drawn with ``seed``.
    progress(fraction, message) : overall progress; ``stop`` : has ``is_set()``.

    Returns a dict label -> :class:`~engine.experiments.bias_variance.BiasVarianceResult`, in the order
    of ``runs``. After a stop it holds the runs done and the interrupted one (``partial``).
    """
    runs = dict(runs)
    if not runs:
        raise ValueError("runs is empty")
    results = {}
    n = len(runs)
    for r, (label, (problem, settings)) in enumerate(runs.items()):
        if stop is not None and stop.is_set() and results:
            break

        def sub(fraction, message=None, r=r, label=label):
            if progress is not None:
                progress((r + fraction) / n, f"{label}: {message}" if message else label)

        results[label] = run_bias_variance(problem, settings, seed=seed, progress=sub, stop=stop)
        if results[label].partial:
            break
    return results
