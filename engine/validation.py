"""Small argument checks shared by the engine's public functions.

Every public entry point validates its input before doing any work and
raises a ValueError that names the offending argument; these helpers keep
those messages the same everywhere.
"""
import numbers

import numpy as np
from sklearn.utils import check_random_state


def check_int(value, name, minimum):
    """An integer (not a bool) >= minimum, as a Python int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_real(value, name, minimum):
    """A finite real number (not a bool) >= minimum, as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value < minimum:
        raise ValueError(f"{name} must be a finite number >= {minimum}, got {value}")
    return value


def check_choice(value, name, choices):
    """One of a fixed set of strings.

    The type is checked before membership, so an unhashable value (a list)
    gets this message rather than "unhashable type" from a dict look-up.
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_in_interval(value, name, low, high=np.inf, low_open=False):
    """A finite real number (not a bool) in [low, high] ((low, high] with ``low_open``), as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low) or value > high:
        interval = f"{'(' if low_open else '['}{low}, {high}{']' if np.isfinite(high) else ')'}"
        raise ValueError(f"{name} must be in {interval}, got {value}")
    return float(value)


def check_seed(value, name="random_state"):
    """None, an integer or a RandomState: what check_random_state accepts, named when not."""
    try:
        check_random_state(value)     # draws nothing
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be None, an integer or a RandomState, got {value!r}") from None
    return value


def check_n_jobs(value, name="n_jobs", allow_none=True):
    """A number of workers as joblib and OpenMP count them: a non-zero integer (-1 = all cores,
    -2 all but one, ...), or None (one) when ``allow_none``. The one n_jobs check of the engine."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value == 0:
        allowed = "None or a non-zero integer" if allow_none else "a non-zero integer"
        raise ValueError(f"{name} must be {allowed} (-1 = all cores), got {value!r}")
    return int(value)
