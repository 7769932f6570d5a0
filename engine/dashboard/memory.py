"""Give freed memory back to the system after sessions end (no streamlit).

A class leaves behind many freed results (curves, fitted models, charts). Python frees them,
but glibc's allocator keeps freed arenas mapped, so the server's resident memory stays at its
peak. :func:`release_memory` collects reference cycles and asks glibc to return free pages
(``malloc_trim(0)``; a no-op elsewhere). :class:`Debounced` runs it at most every few seconds
however many sessions end at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
import time

__all__ = ["release_memory", "resident_mb", "Debounced"]

try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _malloc_trim = _libc.malloc_trim
    _malloc_trim.argtypes = [ctypes.c_size_t]
except (OSError, AttributeError):   # not glibc
    _malloc_trim = None


def release_memory() -> bool:
    """``gc.collect()``, then glibc's ``malloc_trim(0)``; True if glibc gave memory back."""
    gc.collect()
    return bool(_malloc_trim(0)) if _malloc_trim is not None else False


def resident_mb(pid: int | None = None) -> float:
    """Resident memory of a process in MB (Linux ``/proc``), NaN where unknown."""
    try:
        with open(f"/proc/{pid or os.getpid()}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Debounced:
    """Call ``fn`` in a daemon thread ``delay`` seconds after the last :meth:`__call__` (once per burst)."""

    def __init__(self, fn, delay: float = 2.0) -> None:
        self.fn, self.delay = fn, float(delay)
        self._lock = threading.Lock()
        self._due: float | None = None

    def __call__(self) -> None:
        with self._lock:
            start = self._due is None
            self._due = time.monotonic() + self.delay
        if start:
            threading.Thread(target=self._wait, name="release-memory", daemon=True).start()

    def _wait(self) -> None:
        while True:
            with self._lock:
                left = self._due - time.monotonic()
                if left <= 0:
                    self._due = None
                    break
            time.sleep(left)
        self.fn()
