"""Fits in a worker process that a stop ends at once.

A compiled tree grower cannot be interrupted, and one tree on wide data takes seconds (a fully
grown tree on corel5k's 374 labels: about 1.2 s; a forest tree on 2000 projections of them: 2 s).
A stop flag checked between fits, or between trees, would leave such a fit running long after a
Stop or a closed tab. So an experiment whose single fits can be that long sends them to a
:class:`FitWorker`: a process that runs one call at a time while this side waits for the answer
and watches the stop flag; a stop kills the process (its memory goes with it) and raises
:class:`~engine.experiments.runner.Stopped` here, within ``POLL_SECONDS``. The experiment keeps
what it finished before.

One worker serves every call of a run (data shared with :meth:`FitWorker.share` crosses once).
A worker is a fresh interpreter (``python -m engine.experiments.worker``: it inherits none of the
server's threads, locks or OpenMP pools, and never imports the caller's main script); one spare,
started when the previous one is taken, has its imports done by the time the next run needs it.
Without a stop flag (scripts, the command line) calls run in this process, as before.
"""
from __future__ import annotations

import itertools
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path

from engine.experiments.runner import Stopped

__all__ = ["FitWorker", "POLL_SECONDS"]

POLL_SECONDS = 0.05      # how often a waiting call looks at the stop flag
PRELOAD = ("numpy", "scipy.sparse", "sklearn.base", "engine.estimators", "engine.experiments.forests",
           "engine.experiments.study_cells")
_spare_lock = threading.Lock()
_spare = None            # (process, connection) of a started worker nobody uses yet


def _launch():
    """Start a worker interpreter; (process, connection)."""
    here, there = socket.socketpair()
    root = str(Path(__file__).resolve().parents[2])        # the folder holding the engine package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    # its own process group: a stop also ends what the worker started (BOOMER's own process)
    process = subprocess.Popen([sys.executable, "-c", f"from engine.experiments.worker import main; main({there.fileno()})"],
                               pass_fds=[there.fileno()], env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    there.close()
    return process, Connection(here.detach())


def _take():
    """A worker for a run: the spare one when it is still alive, else a new one; then a new spare."""
    global _spare
    with _spare_lock:
        worker, _spare = _spare, None
        if worker is None or worker[0].poll() is not None:
            worker = _launch()
        _spare = _launch()
        return worker


class _Handle:
    """Stands for an object shared with the worker (sent once, then named by its token)."""

    def __init__(self, token):
        self.token = token


class _Callback:
    """Stands for the caller's ``callback``: in the worker, ``callback(n_done, estimator)`` sends
    ``n_done`` back (progress within a fit) and answers False (a stop kills the worker instead)."""


def _serve(conn):
    """The worker's loop: keep shared objects, run calls, answer ("ok", result) or ("error", ...)."""
    shared = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "share":
            shared[message[1]] = message[2]
            continue
        _, fn, args, kwargs = message
        args = [shared[a.token] if isinstance(a, _Handle) else a for a in args]
        kwargs = {k: shared[v.token] if isinstance(v, _Handle) else v for k, v in kwargs.items()}
        if isinstance(kwargs.get("callback"), _Callback):
            kwargs["callback"] = lambda n_done, estimator=None: bool(conn.send(("tick", n_done)))
        try:
            answer = ("ok", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - every error goes back to the caller
            answer = ("error", exc, traceback.format_exc())
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError):   # an answer that does not pickle
            conn.send(("error", None, answer[2] if answer[0] == "error" else traceback.format_exc()))
        except OSError:      # the caller has gone
            return


class FitWorker:
    """Run calls in a worker process that ``stop`` (anything with ``is_set()``) kills at once.

    ``call(fn, *args, **kwargs)``: ``fn`` and the arguments must pickle (``fn`` a module-level
    function); arguments made by :meth:`share` cross once. Raises ``Stopped`` when the flag is
    (or becomes) set; re-raises the call's own exception. ``stop=None``: calls run in this process.
    Use it as a context manager (the process ends on exit) or call :meth:`close`.
    """

    def __init__(self, stop):
        if stop is not None and not callable(getattr(stop, "is_set", None)):
            raise ValueError("stop must be None or an object with is_set()")
        self.stop = stop
        self._process = None
        self._conn = None
        self._tokens = itertools.count()
        self._shared = {}             # token -> object, sent again to a new process

    def share(self, obj):
        """A handle for ``obj`` to pass as an argument: sent to the worker once, not with every call."""
        if self.stop is None:
            return obj
        token = next(self._tokens)
        self._shared[token] = obj
        if self._process is not None:
            self._conn.send(("share", token, obj))
        return _Handle(token)

    def _start(self):
        """Take a worker and wait (watching the stop flag) until it has imported the engine: data
        sent before would fill the socket and block this thread past a stop."""
        self._process, self._conn = _take()
        if self._wait()[0] != "ready":
            raise RuntimeError("the fit's worker process did not start")
        for token, obj in self._shared.items():
            self._conn.send(("share", token, obj))

    def _wait(self, callback=None):
        """Until the worker answers (ticks go to ``callback(n_done, None)``); Stopped (the worker
        killed) when the flag is set first."""
        while True:
            if self._conn.poll(POLL_SECONDS):
                message = self._conn.recv()
                if message[0] != "tick":
                    return message
                if callback is not None:
                    callback(message[1], None)
            if self.stop.is_set():
                self.close()
                raise Stopped
            if self._process.poll() is not None:
                code = self._process.returncode
                self.close()
                raise RuntimeError(f"the fit's worker process ended unexpectedly (exit code {code})")

    def call(self, fn, *args, **kwargs):
        if self.stop is None:
            return fn(*args, **kwargs)
        if self.stop.is_set():
            raise Stopped
        if self._process is None:
            self._start()
        callback = kwargs.pop("callback", None)
        if callback is not None:
            kwargs["callback"] = _Callback()
        self._conn.send(("call", fn, args, kwargs))
        answer = self._wait(callback)
        if answer[0] == "ok":
            return answer[1]
        if answer[1] is not None:
            raise answer[1]
        raise RuntimeError(f"the call failed in the worker process:\n{answer[2]}")

    def close(self):
        """End the worker process now (a fit in progress is lost)."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                process.kill()
        process.wait(timeout=5)
        conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _watch_parent(parent):
    """End this worker within a second of its caller's end (a fit in progress would not see it)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def main(fd):
    """The worker interpreter: import the engine, say so, then serve calls until the caller leaves."""
    import importlib

    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    for name in PRELOAD:
        importlib.import_module(name)
    conn = Connection(fd)
    try:
        conn.send(("ready",))
    except OSError:          # the caller has gone (a spare worker of a server that ended)
        return
    _serve(conn)
