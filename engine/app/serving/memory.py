"""Give freed memory back to the system after sessions end (no streamlit).

A class leaves behind many freed results (curves, fitted models, charts). Python frees them,
but glibc's allocator keeps freed memory mapped, so the server's resident memory stays at its
peak. Two causes, two remedies (glibc only; no-ops elsewhere):

* Free pages inside the heaps: :func:`release_memory` collects reference cycles and asks glibc
  to return them (``malloc_trim(0)``). :class:`Debounced` runs it at most every few seconds
  however many sessions end at once.
* Free memory at the top of a thread's heap, which ``malloc_trim`` never returns (it trims
  only the main heap's top). Every browser session's script thread allocates from its own
  heap (its page and live chart, redrawn every second); glibc returns such a top
  only when it exceeds the trim threshold, and its default thresholds are dynamic: the first
  large buffer freed (a 10 MB array) raises the mmap threshold to its size (up to 32 MB) and
  the trim threshold to twice that, so a thread heap's freed top is kept for good.
  :func:`set_malloc_thresholds` fixes both thresholds (buffers of 256 KB and more mapped on
  their own and unmapped when freed; a heap top above 128 KB trimmed), once per server.
  Measured with 8 browser sessions of the Convergence preset, twice (the server's resident
  memory 20 s after the sessions closed, above idle): +177 MB with the dynamic thresholds
  (132 MB of it free in glibc's heaps, which ``malloc_trim`` did not return), +62 MB with the
  fixed ones set by the server (13 MB free; the rest is mostly the two runs the server's cache
  keeps by design, 11 MB each as pickles, and Python's own arenas, +11 MB). Fits of
  real-data size (4880 x 300 inputs, 159 outputs) took the same CPU time with either setting
  (ratios 0.98-1.02, interleaved in one process).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
import time

__all__ = ["release_memory", "resident_mb", "set_malloc_thresholds", "Debounced"]

MMAP_THRESHOLD = 256 << 10      # bytes: blocks this large are mapped on their own, unmapped when freed
TRIM_THRESHOLD = 128 << 10      # bytes: free memory above this at a heap's top goes back (glibc's default)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3      # mallopt parameters (glibc's malloc.h)

try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _malloc_trim = _libc.malloc_trim
    _malloc_trim.argtypes = [ctypes.c_size_t]
    _mallopt = _libc.mallopt
    _mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
except (OSError, AttributeError):   # not glibc
    _malloc_trim = _mallopt = None


def release_memory() -> bool:
    """``gc.collect()``, then glibc's ``malloc_trim(0)``; True if glibc gave memory back."""
    gc.collect()
    return bool(_malloc_trim(0)) if _malloc_trim is not None else False


def set_malloc_thresholds(mmap_bytes: int = MMAP_THRESHOLD, trim_bytes: int = TRIM_THRESHOLD) -> bool:
    """Fix glibc's mmap and trim thresholds (they stop following the largest block freed), so
    memory freed in any thread's heap goes back to the system. True when glibc took both."""
    for name, value in (("mmap_bytes", mmap_bytes), ("trim_bytes", trim_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 2**31 - 1:
            raise ValueError(f"{name} must be a positive int below 2**31, got {value!r}")
    if _mallopt is None:
        return False
    return bool(_mallopt(_M_MMAP_THRESHOLD, mmap_bytes)) & bool(_mallopt(_M_TRIM_THRESHOLD, trim_bytes))


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
