"""A small background job runner for long experiments (plain threading, never streamlit).

A page starts the work in a daemon thread and polls it from its own script thread
(``@st.fragment(run_every=...)``: Streamlit's API is only safe from the script's thread, so the job
never calls it; the fragment reruns on a timer and reads the job's snapshot)::

    job = Job(run_experiment, dataset_spec, n_estimators=500)   # starts at once
    ...
    snap = job.snapshot()          # consistent dict: status, fraction, message, ...
    job.stop()                     # ask the target to finish early

The target is called as ``target(*args, progress=cb, stop=event, **kwargs)``:

* ``progress(fraction, message=None, partial=None)`` reports progress. ``fraction`` is
  clamped to [0, 1] (``None`` keeps the last value); ``partial`` is an optional partial
  result (e.g. the learning curve so far) that the page may draw while the job runs. It
  returns ``True`` once a stop was requested, so a loop can write
  ``if progress(i / n): break``. ``partial`` may also be a function of no argument that
  builds it: it is then called at most every ``PARTIAL_SECONDS`` (a page redraws about once a
  second, so building a copy of the curves after every compiled chunk would only hold the GIL
  in the training loop's way).
* ``stop`` is a ``threading.Event``; check ``stop.is_set()`` between iterations.

Whatever the target returns is kept in ``result``, also when it returns early after a stop
(then ``status == "stopped"``: a partial result). An exception is never raised into the
caller: ``status == "failed"`` and ``error`` holds the traceback text.

Every attribute is read under a lock, so polling from another thread is safe. ``cpu_seconds``
is the CPU time of the job's own thread (``time.thread_time`` there; the compiled loops run in
it): unlike ``elapsed`` it does not grow while other runs share the cores. ``version`` grows
with every change a page would draw, so a page can skip a redraw when nothing changed.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

__all__ = ["Job", "STATUSES", "PARTIAL_SECONDS"]

STATUSES = ("running", "done", "stopped", "failed")
PARTIAL_SECONDS = 0.5     # a lazily built partial result is rebuilt at most this often


class Job:
    """Run ``target(*args, progress=cb, stop=event, **kwargs)`` in a daemon thread.

    The thread starts in the constructor. Attributes (all thread-safe properties):
    ``status`` ("running", "done", "stopped" or "failed"), ``fraction`` (0..1),
    ``message`` (str), ``partial`` (last partial result reported), ``result`` (return
    value, ``None`` until the target returns), ``error`` (traceback text or ``None``),
    ``elapsed`` (seconds since start, frozen when the job ends), ``done`` (not running),
    ``stop_requested``.
    """

    def __init__(self, target: Callable[..., Any], *args: Any, on_done: Callable[["Job"], None] | None = None,
                 **kwargs: Any) -> None:
        """``on_done(job)`` is called in the job's thread once it has ended (the run store
        uses it to cache the result and start the next run in its queue)."""
        if not callable(target):
            raise TypeError(f"target must be callable, got {type(target).__name__}")
        self.name = getattr(target, "__name__", type(target).__name__)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._finished = threading.Event()
        self._status = "running"
        self._fraction = 0.0
        self._message = "starting"
        self._partial: Any = None
        self._result: Any = None
        self._error: str | None = None
        self._started = time.perf_counter()
        self._ended: float | None = None
        self._cpu_clock: int | None = None      # the thread's CPU clock, once it runs
        self._cpu = 0.0                         # frozen CPU seconds once the job ended
        self._version = 0
        self._partial_built = -1e300
        self._on_done = on_done
        self._thread = threading.Thread(
            target=self._run, args=(target, args, kwargs), name=f"job-{self.name}", daemon=True
        )
        self._thread.start()

    # --- worker side --------------------------------------------------------------------

    def _progress(self, fraction: float | None = None, message: str | None = None, partial: Any = None) -> bool:
        if callable(partial):      # built here, at most every PARTIAL_SECONDS
            now = time.perf_counter()
            if now - self._partial_built < PARTIAL_SECONDS:
                partial = None
            else:
                self._partial_built = now
                partial = partial()
        with self._lock:
            self._version += 1
            if fraction is not None:
                f = float(fraction)
                if f == f:  # not NaN
                    self._fraction = min(1.0, max(0.0, f))
            if message is not None:
                self._message = str(message)
            if partial is not None:
                self._partial = partial
        return self._stop_event.is_set()

    def _run(self, target, args, kwargs) -> None:
        cpu0 = time.thread_time()
        try:
            self._cpu_clock = time.pthread_getcpuclockid(threading.get_ident())
        except (AttributeError, OSError):   # not on every platform: then cpu_seconds is known at the end
            self._cpu_clock = None
        try:
            result = target(*args, progress=self._progress, stop=self._stop_event, **kwargs)
        except BaseException:  # noqa: BLE001 - everything goes to the page, nothing is raised
            with self._lock:
                self._error = traceback.format_exc()
                self._status = "failed"
                self._message = "failed"
                self._ended = time.perf_counter()
        else:
            with self._lock:
                self._result = result
                if self._stop_event.is_set():
                    self._status = "stopped"
                    self._message = "stopped"
                else:
                    self._status = "done"
                    self._fraction = 1.0
                    self._message = "done"
                self._ended = time.perf_counter()
        finally:
            with self._lock:
                self._cpu = time.thread_time() - cpu0
                self._cpu_clock = None
                self._version += 1
            self._finished.set()
            if self._on_done is not None:
                self._on_done(self)

    # --- caller side --------------------------------------------------------------------

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the target to stop; with ``timeout``, wait that long for it. True if ended."""
        self._stop_event.set()
        if timeout is not None:
            return self.wait(timeout)
        return self.done

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (or ``timeout`` seconds pass). True if it has ended."""
        return self._finished.wait(timeout)

    def _get(self, name: str) -> Any:
        with self._lock:
            return getattr(self, name)

    @property
    def status(self) -> str:
        return self._get("_status")

    @property
    def fraction(self) -> float:
        return self._get("_fraction")

    @property
    def message(self) -> str:
        return self._get("_message")

    @property
    def partial(self) -> Any:
        return self._get("_partial")

    @property
    def result(self) -> Any:
        return self._get("_result")

    @property
    def error(self) -> str | None:
        return self._get("_error")

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    @property
    def stop_requested(self) -> bool:
        return self._stop_event.is_set()

    @property
    def elapsed(self) -> float:
        with self._lock:
            end = time.perf_counter() if self._ended is None else self._ended
            return end - self._started

    def _cpu_now(self) -> float:
        clock = self._cpu_clock
        if clock is None:
            return self._cpu
        try:
            return time.clock_gettime(clock)
        except OSError:       # the thread has just ended
            return self._cpu

    @property
    def cpu_seconds(self) -> float:
        with self._lock:
            return self._cpu_now()

    @property
    def version(self) -> int:
        return self._get("_version")

    def snapshot(self) -> dict:
        """All fields at one instant (one lock acquisition): a consistent view for a page."""
        with self._lock:
            end = time.perf_counter() if self._ended is None else self._ended
            return {
                "cpu_seconds": self._cpu_now(),
                "version": self._version,
                "name": self.name,
                "status": self._status,
                "fraction": self._fraction,
                "message": self._message,
                "partial": self._partial,
                "result": self._result,
                "error": self._error,
                "elapsed": end - self._started,
                "stop_requested": self._stop_event.is_set(),
            }

    def __repr__(self) -> str:
        s = self.snapshot()
        return f"<Job {s['name']} {s['status']} {s['fraction']:.0%} {s['elapsed']:.1f}s>"

