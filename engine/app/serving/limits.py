"""The server's limits, read once at start-up from the environment (see the run store's doc,
:mod:`engine.app.serving.runstore`, for what each means to a class)."""

from __future__ import annotations

import dataclasses
import os
from typing import Mapping

from engine.app.serving.result_cache import DEFAULT_CACHE_MB, DEFAULT_ENTRIES, MB

__all__ = ["Limits", "limits_from_env", "positive_int", "DEFAULT_IDLE_MINUTES"]

DEFAULT_IDLE_MINUTES = 30


@dataclasses.dataclass(frozen=True)
class Limits:
    """The server's limits: runs at once, finished runs kept (count, bytes), session idle time."""

    max_jobs: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    max_entries: int = DEFAULT_ENTRIES
    max_bytes: int = DEFAULT_CACHE_MB * MB
    idle_seconds: float = DEFAULT_IDLE_MINUTES * 60.0


def positive_int(environ: Mapping[str, str], name: str, default: int) -> int:
    """The environment variable ``name`` as a positive integer (``default`` when unset or blank)."""
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value < 1 or str(value) != raw.strip().lstrip("+"):
        raise ValueError(f"{name} must be a positive integer, got {raw!r}")
    return value


def limits_from_env(environ: Mapping[str, str] | None = None) -> Limits:
    """The limits from ``RPO_MAX_JOBS``, ``RPO_CACHE_ENTRIES``, ``RPO_CACHE_MB`` and
    ``RPO_IDLE_MINUTES`` (defaults: the core count, 64, 256, 30). A value that is not a positive
    integer raises a ValueError naming the variable."""
    env = os.environ if environ is None else environ
    return Limits(max_jobs=positive_int(env, "RPO_MAX_JOBS", os.cpu_count() or 1),
                  max_entries=positive_int(env, "RPO_CACHE_ENTRIES", DEFAULT_ENTRIES),
                  max_bytes=positive_int(env, "RPO_CACHE_MB", DEFAULT_CACHE_MB) * MB,
                  idle_seconds=60.0 * positive_int(env, "RPO_IDLE_MINUTES", DEFAULT_IDLE_MINUTES))
