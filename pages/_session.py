"""The server's one run store, and this browser session's place in it (left when the session ends).

``shared_store()`` is the :class:`~engine.app.serving.runstore.RunStore` of the whole server (one
``st.cache_resource``): identical runs of every session computed once, at most ``RPO_MAX_JOBS``
at once, the others in a first-in-first-out queue, finished runs cached (see that module's
"Running it for a class"). Its limits are read from the environment at start-up; a bad value
stops the app with a message (:func:`check_settings`, called by ``app.py``).

``session_runs()`` is this session's :class:`SessionRuns` (``st.cache_resource(scope="session")``):
Streamlit drops it when the session disconnects and then calls ``on_release``, which detaches the
session from every run (a run nobody watches any more stops, a queued one leaves the queue) and
gives the freed memory back. A session idle for ``RPO_IDLE_MINUTES`` loses its results too:
its page runs are emptied by a sweeper thread, and the next visit starts afresh.

``shared_uploads()`` is the server's :class:`~engine.app.serving.uploads.UploadStore`: the files
uploaded on the Data page, by content hash, held by the sessions that use them (the session's
``owner`` id), so a reload of the tab finds its upload again; a session that ends or goes idle
lets go of its files, which leave a grace period later (see that module).

When the server's first page view creates the store, the store also starts the start-up fill
(``pages/_warm.py``, processes at nice 19; ``RPO_WARM=0`` turns it off): every page's default view,
then every Home preset, is computed in advance and kept on disk, so a class's first views come from
the cache (:mod:`engine.app.serving.warm_cache` says where, with which key, how to clear it, and how
a run the fill and a student both ask for is computed once).
"""
from __future__ import annotations

import atexit
import itertools
import os
import sys
import threading
import time
import weakref

import streamlit as st
from streamlit import runtime
from streamlit.logger import get_logger
from streamlit.runtime.scriptrunner import get_script_run_ctx

from engine.app.serving.limits import limits_from_env
from engine.app.serving.memory import Debounced, release_memory, set_malloc_thresholds
from engine.app.serving.runstore import LOG_NAME, SESSION_CLOSED, SESSION_OPENED, RunStore
from engine.app.serving.uploads import UploadStore, store_from_env
from engine.app.serving.warm_cache import StartupFill, WarmCache, cache_root, fill_enabled
from pages._predict import predict_default

SWEEP_SECONDS = 30.0
_ids = itertools.count(1)
log = get_logger(LOG_NAME)    # "session-12 opened" (and, from pages/_jobs.py, its finished runs)
_release_memory = Debounced(release_memory, delay=2.0)


class SessionRuns:
    """One browser session: its owner id in the store, its pages' run entries, its last visit."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.owner = f"session-{next(_ids)}"
        self.entries: dict[str, dict] = {}     # page name -> its run entry (also in session_state)
        self.last_seen = time.monotonic()
        log.info(SESSION_OPENED, {"session": self.owner})

    def touch(self) -> None:
        self.last_seen = time.monotonic()

    def expire(self) -> None:
        """Drop this session's results (the tab stays open but idle): runs left, entries emptied,
        its uploaded files let go (they leave the server a grace period later)."""
        self.store.leave(self.owner)
        shared_uploads().leave(self.owner)
        for entry in list(self.entries.values()):
            entry.clear()
            entry["expired"] = True
        self.entries.clear()

    def release(self) -> None:
        """The session disconnected. Streamlit keeps a disconnected session (its session_state) for
        a while in case it reconnects: its results are dropped now all the same (a reconnect gets
        them back from the store's cache)."""
        self.expire()
        log.info(SESSION_CLOSED, {"session": self.owner})


_sessions: "weakref.WeakSet[SessionRuns]" = weakref.WeakSet()


def _sweep(store: RunStore) -> None:
    """Every SWEEP_SECONDS: expire the sessions idle for longer than the store's idle limit, and
    the cached runs nobody asked for that long."""
    while not store.closed.wait(SWEEP_SECONDS):
        now, dropped, uploads = time.monotonic(), False, shared_uploads()
        for session in list(_sessions):
            if session.store is store and now - session.last_seen > store.limits.idle_seconds:
                if session.entries or uploads.held_by(session.owner):
                    session.expire()
                    dropped = True
        dropped |= store.cache.expire(store.limits.idle_seconds) > 0
        dropped |= uploads.expire() > 0
        if dropped:
            _release_memory()


def check_settings() -> str | None:
    """None when the server's settings are valid, else the message saying which is not."""
    try:
        limits_from_env()
        store_from_env()
        fill_enabled()
        predict_default()
    except ValueError as exc:
        return str(exc)
    return None


# Python's GIL switch interval for the server (default 5 ms). A run's thread gives up the GIL at
# every numpy call or compiled section that releases it; a busy page thread (another session's
# rerun) then holds it until the interval forces a switch back, so each such call can cost up to
# the interval. The pages' default runs, alone and beside one busy Python thread, at 5 / 0.5 / 0.2 /
# 0.1 ms (engine/bench/RESULTS.md): Projections 11.3 s alone, beside it 98.6 / 28.0 / 18.5 / 16.9 s;
# Bias-variance 0.22 s alone, 19.1 / 2.25 / 1.25 / 0.92 s; Forests 12.5 s alone, 127 / 17.0 / 10.2 /
# 8.3 s. The cost: two pure-Python threads sharing the GIL did the same work 8 % slower at 0.1 ms.
SWITCH_INTERVAL = 0.0001


FILLING = "RPO_WARM_FILLING"     # set in the start-up fill's own process: its store writes the cache
_fills: list[StartupFill] = []


def _start_fill(root) -> None:
    """The start-up fill's processes (pages/_warm.py): one run at a time each, one thread, nice 19; its
    lines go to the server's log; it ends with the server."""
    only = os.environ.get("RPO_WARM_ONLY", "")     # only the views whose label holds this text (a lesson's)
    fill = StartupFill([sys.executable, "-m", "pages._warm", "--match", only], log.info,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       env={FILLING: "1", "RPO_WARM": "0", "RPO_MAX_JOBS": "1", "RPO_RUN_CACHE": str(root),
                            "RPO_CACHE_ENTRIES": "2", "OMP_NUM_THREADS": "1",   # its results go to disk
                            "RPO_WARM_PARENT": str(os.getpid())})
    _fills.append(fill.start())
    atexit.register(fill.stop)
    log.info("start-up fill: started (process %d, cache %s)", fill.process.pid, root)


def _real_server() -> bool:
    """True in a server started by ``streamlit run`` (an AppTest installs a mock runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


def _drain(store: RunStore) -> None:
    while _fills:
        _fills.pop().stop()
    store.close()


@st.cache_resource(show_spinner=False, on_release=_drain)
def shared_store() -> RunStore:
    set_malloc_thresholds()     # once per server: freed chart messages of every session go back to the system
    sys.setswitchinterval(SWITCH_INTERVAL)
    # The start-up cache is read by a real server and written by its fill; an AppTest (the test
    # suite) neither reads nor fills it, so its runs compute as they always did.
    root, real, filling = cache_root(), _real_server(), os.environ.get(FILLING) == "1"
    store = RunStore(limits_from_env(), warm=WarmCache(root) if real or filling else None, persist=filling)
    threading.Thread(target=_sweep, args=(store,), name="idle-sessions", daemon=True).start()
    if real and fill_enabled():
        _start_fill(root)
        store.fill_running = lambda: any(fill.running for fill in _fills)
    return store


@st.cache_resource(show_spinner=False)
def shared_uploads() -> UploadStore:
    """The server's uploaded files (limits: ``RPO_UPLOAD_ENTRIES``, ``RPO_UPLOAD_MB``)."""
    return store_from_env()


def _release(session: SessionRuns) -> None:
    session.release()      # no waiting: this may run on the server's thread
    _release_memory()


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def session_runs() -> SessionRuns:
    session = SessionRuns(shared_store())
    _sessions.add(session)
    return session


def open_session() -> SessionRuns | None:
    """This browser session's runs, opened on its first page run (the opening is logged).

    None outside a running app: a process that re-imports app.py as its ``__main__`` (a
    multiprocessing or dask worker started by "spawn" from a process that ran the app, as the
    test suite does) has no session, and a session-scoped cache would raise there.
    """
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return session_runs()
