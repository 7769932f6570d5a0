"""What every experiment shares: progress, stop, independent cells in parallel, JSON results.

Every experiment of :mod:`engine.experiments` takes ``progress`` (a callable
``progress(fraction_done, message)``) and ``stop`` (anything with ``is_set()``,
e.g. a ``threading.Event``), and returns what it finished when ``stop`` is set
(its result then says it is partial). This module holds that plumbing once:

* :func:`check_callbacks` checks the two arguments before any work;
* :class:`Runner` maps units of work to the overall fraction, checks the stop
  flag, and gives each fit a per-step callback (progress within the fit; a stop
  ends the fit at its next chunk of boosting steps and is remembered as a cut);
* :func:`ordered_map` runs independent cells in this process, on joblib
  workers or on a ``dask.distributed`` cluster, yielding results in order;
* :class:`JsonResult` gives result dataclasses ``to_json`` / ``from_json`` on
  top of their ``to_dict`` / ``from_dict``, with :func:`jsonable` for NaN-safe JSON.
"""
from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np


class Stopped(Exception):
    """A unit of work was cut short by the stop flag (its partial result is dropped)."""


def check_callbacks(progress, stop):
    """ValueError unless progress is None or callable and stop is None or has is_set()."""
    if progress is not None and not callable(progress):
        raise ValueError("progress must be None or a callable progress(fraction_done, message)")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise ValueError("stop must be None or an object with is_set() (e.g. threading.Event)")


class Runner:
    """Progress over ``n_units`` units of work, and the stop flag.

    ``report(done, message)`` calls ``progress(done / n_units, message)`` (never
    going backwards). ``fit_callback(done, message)`` is the ``callback`` of one
    fit (``callback(n_steps_done, estimator)`` of the boosting estimators): it
    reports ``done + width * n_steps_done / planned`` units and returns True (stop
    the fit) once the flag is set; a fit stopped before its last planned step
    sets ``cut``, so the caller can drop what it was part of.
    """

    def __init__(self, progress, stop, n_units):
        self.progress, self.stop = progress, stop
        self.n_units = max(n_units, 1)
        self.fraction = 0.0
        self.cut = False

    def stopped(self):
        return self.stop is not None and self.stop.is_set()

    def report(self, done, message, **extra):
        """Progress after ``done`` units (a float); ``extra`` (e.g. partial=) is passed on."""
        self.fraction = min(1.0, max(self.fraction, done / self.n_units))
        if self.progress is not None:
            self.progress(self.fraction, message, **extra)

    def fit_callback(self, done, message, width=1.0, planned=None, partial=None):
        """Per-step callback of a fit that covers units [done, done + width); None if nothing listens.
        ``partial(estimator)``: what to pass on as ``progress(..., partial=)`` after each chunk (None:
        nothing new; only for a ``progress`` that takes it)."""
        if self.progress is None and self.stop is None:
            return None

        def callback(n_done, estimator):
            total = planned if planned is not None else getattr(estimator, "n_estimators", None)
            within = min(n_done / total, 1.0) if total else 0.0
            extra = {} if partial is None or self.progress is None else {"partial": partial(estimator)}
            self.report(done + width * within, f"{message}: step {n_done}" + (f"/{total}" if total else ""), **extra)
            if not self.stopped():
                return False
            if total is None or n_done < total:     # a stop at the last step cuts nothing
                self.cut = True
            return True
        return callback

    def finish(self, complete):
        """The last call: ``progress(1, "done")``, or where it stopped."""
        if self.progress is not None:
            self.progress(1.0 if complete else self.fraction, "done" if complete else "stopped")


def partial_timer(every):
    """A function that says True at most every ``every`` seconds (and the first time): a partial
    result copies every curve, and after every compiled chunk (~50 ms) that copy would hold the
    GIL in the training loop's way while a page redraws only about once a second."""
    last = [-float("inf")]

    def due():
        now = time.perf_counter()
        if now - last[0] < every:
            return False
        last[0] = now
        return True
    return due


def _ignore_interrupts():
    """A loky worker's initializer: SIGINT is the parent's to handle."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered_map(fn, arglist, *, n_jobs=1, backend="loky", client=None, local_kwargs=None):
    """Yield ``fn(*args)`` for every ``args`` of ``arglist``, in order, computed lazily.

    * In this process when there is no cluster and ``n_jobs == 1`` (or one call):
      call k also gets ``**local_kwargs[k]`` (callbacks, which cannot cross a
      process boundary).
    * On joblib's loky workers (``n_jobs`` processes, -1 = all cores), or on a
      ``dask.distributed`` cluster (``client``, or ``backend="dask"`` with the
      current client): ``fn`` and its arguments must be picklable.

    Closing the generator early (a stop) cancels the calls not started.
    """
    arglist = list(arglist)
    if client is not None or backend == "dask":
        if client is None:
            from distributed import get_client
            client = get_client()
        futures = [client.submit(fn, *args, pure=False) for args in arglist]
        try:
            for future in futures:
                yield future.result()
        finally:
            client.cancel([f for f in futures if not f.done()])
        return
    if n_jobs == 1 or len(arglist) <= 1:
        local_kwargs = local_kwargs or [None] * len(arglist)
        for args, kwargs in zip(arglist, local_kwargs):
            yield fn(*args, **(kwargs or {}))
        return
    from joblib import Parallel, delayed, parallel_config
    # The workers ignore Ctrl-C: a terminal sends it to the whole process group, and a worker interrupted
    # while it unpickled its next call broke the pool (BrokenProcessPool) instead of letting the parent
    # stop after the work in progress (engine/__main__.py); a second Ctrl-C still ends the run at once.
    with parallel_config(backend="loky", initializer=_ignore_interrupts):
        results = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(fn)(*args) for args in arglist)
    try:
        for result in results:      # not "yield from": that would close it outside the filter below
            yield result
    finally:
        with warnings.catch_warnings():
            # Cancelling the calls no longer needed after a stop is the point, not a problem.
            warnings.filterwarnings("ignore", message=".*tasks which were still being processed")
            results.close()


def jsonable(obj):
    """Nested dicts/lists of numpy values -> plain JSON values (NaN and inf -> null)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def to_list(values):
    """An array as a JSON list of floats, NaN -> None."""
    return jsonable([float(v) for v in np.asarray(values, dtype=np.float64).ravel()])


def from_list(values, dtype=np.float64):
    """The inverse of :func:`to_list`: None -> NaN."""
    return np.array([np.nan if v is None else v for v in values], dtype=dtype)


class JsonResult:
    """``to_json`` / ``from_json`` for a result with ``to_dict`` / ``from_dict``."""

    def to_json(self, path=None) -> str:
        """The result as JSON text (NaN -> null); also written to ``path`` when given."""
        text = json.dumps(jsonable(self.to_dict()))
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))
