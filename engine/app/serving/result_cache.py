"""The cache of finished runs: bounded in entries and in (approximate) bytes, least recently used out.

Shared by every session of the server (:mod:`engine.app.serving.runstore` puts a run here when it
ends); :meth:`ResultCache.expire` drops what nobody asked for in a while, so the server's memory
goes back to about its idle level when the class has gone home.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

__all__ = ["ResultCache", "approx_bytes", "MB", "DEFAULT_ENTRIES", "DEFAULT_CACHE_MB"]

MB = 1 << 20
DEFAULT_ENTRIES = 64
DEFAULT_CACHE_MB = 256


def approx_bytes(obj: Any) -> int:
    """Approximate memory of a result: its pickle's length (arrays dominate; close enough)."""
    try:
        return len(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - something unpicklable: count it as 1 MB
        return MB


class ResultCache:
    """Finished runs by key, bounded in entry count and approximate bytes; least recently used out.
    :meth:`expire` drops the runs nobody asked for in a while (the class has gone home)."""

    def __init__(self, max_entries: int = DEFAULT_ENTRIES, max_bytes: int = DEFAULT_CACHE_MB * MB, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if int(max_entries) < 1 or int(max_bytes) < 1:
            raise ValueError("max_entries and max_bytes must be positive")
        self.max_entries, self.max_bytes = int(max_entries), int(max_bytes)
        self._items: OrderedDict[str, tuple[Any, int, float]] = OrderedDict()   # value, bytes, last use
        self._bytes = 0
        self._lock = threading.Lock()
        self._clock = clock

    def get(self, key: str) -> Any | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items[key] = (item[0], item[1], self._clock())
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: str, value: Any, nbytes: int) -> bool:
        """Keep ``value`` (``nbytes`` large); False when it alone is larger than the cache."""
        nbytes = int(nbytes)
        with self._lock:
            if key in self._items:
                self._bytes -= self._items.pop(key)[1]
            if nbytes > self.max_bytes:
                return False
            self._items[key] = (value, nbytes, self._clock())
            self._bytes += nbytes
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                self._bytes -= self._items.popitem(last=False)[1][1]
            return True

    def peek(self, key: str) -> Any | None:
        """The value of ``key`` without counting it as a use (None when absent)."""
        with self._lock:
            item = self._items.get(key)
            return None if item is None else item[0]

    def replace(self, key: str, old: Any, new: Any, nbytes: int) -> bool:
        """Put ``new`` (``nbytes`` large) in place of ``key``'s value when that is still ``old``,
        keeping its place in the least-recently-used order; False when it was not."""
        nbytes = int(nbytes)
        with self._lock:
            item = self._items.get(key)
            if item is None or item[0] is not old:
                return False
            self._items[key] = (new, nbytes, item[2])
            self._bytes += nbytes - item[1]
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                self._bytes -= self._items.popitem(last=False)[1][1]
            return True

    def discard(self, key: str, old: Any) -> None:
        """Drop ``key`` when its value is still ``old``."""
        with self._lock:
            item = self._items.get(key)
            if item is not None and item[0] is old:
                self._bytes -= self._items.pop(key)[1]

    def expire(self, idle_seconds: float) -> int:
        """Drop the runs not asked for in the last ``idle_seconds``; how many were dropped."""
        if not idle_seconds > 0:
            raise ValueError(f"idle_seconds must be positive, got {idle_seconds!r}")
        with self._lock:
            cutoff, dropped = self._clock() - idle_seconds, 0
            while self._items and next(iter(self._items.values()))[2] < cutoff:   # least recently used first
                self._bytes -= self._items.popitem(last=False)[1][1]
                dropped += 1
            return dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._bytes
