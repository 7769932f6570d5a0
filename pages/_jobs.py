"""One background run per page: start, stop, harvest and status, the same way on every page.

A compute page makes one ``PageRun`` and keeps only its widgets, its call and its drawing::

    run = PageRun("proj")                       # state in st.session_state["proj_page_run"]
    run.harvest()                               # a finished job's result moves into the run
    if wanted:
        run.start(run_projection_size, problem, boosting, settings=config, q_values=q_values)

    @st.fragment(run_every=run.poll_every(0.5))
    def live():
        view = run.view()                       # status, fraction, message, result, ...
        ...draw...
        run.rerun_when_finished()               # one full rerun once the job has ended

Runs go through the server's run store (``pages/_session.py``,
:mod:`engine.app.serving.runstore`): a run that another session already asked for (same page,
function and arguments) is computed once and shared, a finished one comes from the cache, and
at most ``RPO_MAX_JOBS`` compute at once while the others wait in line (the progress message
says where). One slot per page: starting a run leaves the page's previous one (it stops when no
other session watches it), and a session leaves all its runs when it ends. The last finished
run (result, status, settings) is kept while a new one runs, so a page can go on showing it.

:func:`gate` is the pages' "estimate, then start by itself if cheap" rule, in one place, and
:func:`estimate_text` says an estimate as a range under the server's current load.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st
from streamlit.logger import get_logger

from engine.app.serving.runstore import ASKED_HOW, LOG_NAME, RUN_ASKED, RUN_DRAWN, short_key
from pages._session import session_runs, shared_store

# One line in the server's log per session, per run asked for (a new run, attached to the same run
# in flight, or from the cache) and per finished run (when the session's page first draws it): who
# got which result when, in the run store's formats (engine/app/serving/runstore.py). Parsed by the class
# load tool (``python tests/load/classroom.py``) for the server-side time to result and for how many
# sessions watched the run live.
log = get_logger(LOG_NAME)

STOP_TIMEOUT = 5.0      # seconds a Stop waits for the run to end (a fit ends at its next chunk)
MIN_POLL_SECONDS = 1.0  # a live page redraws at most about once a second (the server's Python is shared)
# Live redraws a second the server affords, every session together: a page's period grows with the
# sessions watching runs in flight (30 watchers: every 3 s). Measured with the classroom bench (one
# 24 s run, browsers at nice 19, every page redrawing each second): 20 sessions, the run took 1.3x
# its time alone and every health probe answered; 30 sessions, 3.3x and 11 of 73 probes timed out
# (the server's Python threads, one per session, starve its event loop and the training thread).
REDRAWS_PER_SECOND = 10
SHARED_FIGURES = 32     # figures of shared results kept for every session (dropped with their result)


@dataclass
class RunView:
    """What a page draws of its run at one instant."""

    status: str                 # "idle", "running", "done", "stopped" or "failed"
    fraction: float = 0.0       # progress, 0..1
    message: str = ""
    elapsed: float = 0.0        # seconds
    result: Any = None          # the final result, else the latest partial one, else None
    error: str | None = None    # traceback text of a failed run
    settings: Any = None        # what the page started the run with
    extra: dict = field(default_factory=dict)   # what the page stored beside it
    cpu: float = 0.0            # CPU seconds of the run's own thread
    busy: int = 1               # most runs computing at once on the server while it ran
    queued: int = 0             # place in the server's queue (0: computing or ended)
    shared: int = 1             # sessions watching this run
    cached: bool = False        # served from the server's cache of finished runs
    version: int = 0            # grows with every change worth a redraw

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def timing_note(self) -> str:
        """What a page says beside a measured time: "" for a run alone on an idle server, else
        that it came from the cache or was measured while other runs shared the server."""
        note = ""
        if self.busy > 1:
            note = (f" (measured while {self.busy} runs shared the server: {self.cpu:.1f} s of CPU; "
                    "an idle server is faster)")
        if self.cached:
            note += " · computed earlier, served from the server's cache"
        return note


def _view(snap: dict, **kw) -> RunView:
    return RunView(status=kw.pop("status", snap["status"]), fraction=snap["fraction"], message=snap["message"],
                   elapsed=snap["elapsed"], error=snap.get("error"), cpu=snap.get("cpu_seconds", 0.0),
                   busy=snap.get("busy", 1), queued=snap.get("queued", 0), shared=snap.get("shared", 1),
                   cached=snap.get("cached", False), version=snap.get("version", 0), **kw)


class PageRun:
    """The background run of one page, kept in ``st.session_state[f"{name}_page_run"]``.

    The entry holds ``job`` (the Job of the current run, running or ended), ``settings``
    and ``extra`` of the current run, and ``finished``: the last harvested run as a
    :class:`RunView` (kept while a new run runs).
    """

    def __init__(self, name: str):
        self.name = name
        self.key = f"{name}_page_run"

    @property
    def entry(self) -> dict | None:
        entry = st.session_state.get(self.key)
        if entry is not None and entry.get("expired"):    # dropped after the session's idle time
            del st.session_state[self.key]
            return None
        return entry

    @property
    def running(self) -> bool:
        entry = self.entry
        return entry is not None and entry["job"] is not None and entry["job"].running

    @property
    def started(self) -> bool:
        """Whether this page has started a run in this session."""
        return self.entry is not None

    def start(self, target: Callable[..., Any], /, *args: Any, settings: Any = None, extra: dict | None = None,
              share: bool = True, estimate: float | None = None, compact: Callable[[dict], dict] | None = None,
              **kwargs: Any) -> None:
        """Run ``target(*args, progress=..., stop=..., **kwargs)`` in the background, through the
        server's run store: shared with every session asking for the same, cached, queued.

        ``settings`` identify the run (pages compare them with the sidebar's); ``extra`` is
        page data kept beside it (e.g. the fitted models the Convergence page continues; a run
        attached to another session's has that session's ``extra``). ``share=False``: a run of
        this session's own (it continues models only this session holds). ``estimate``: its
        expected seconds, for the wait estimates of the runs queued behind it. ``compact(extra)``:
        what the server's cache keeps of ``extra`` once no session holds the finished run (e.g.
        without the fitted models); None keeps all of it.
        """
        previous = self.entry or {}
        if previous.get("job") is not None:
            previous["job"].stop()                 # leave this page's previous run
        session = session_runs()
        ticket = session.store.request(session.owner, self.name, target, *args, share=share, extra=extra,
                                       estimate=estimate, compact=compact, **kwargs)
        word = "fill" if ticket.awaited else ticket.how     # started, but waiting for the fill's run
        how = ASKED_HOW[word].format(shared=ticket.snapshot()["shared"] if ticket.how == "attached" else 1)
        log.info(RUN_ASKED, {"page": self.name, "session": session.owner, "how": how, "key": short_key(ticket.key)})
        entry = {"job": ticket, "settings": settings, "extra": ticket.extra,
                 "finished": previous.get("finished"), "harvested": False}
        st.session_state[self.key] = entry
        session.entries[self.name] = entry
        if ticket.done:         # served from the cache: finished now, so Pin, Step and the charts see it at once
            self.harvest()

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Ask the run to stop, wait a little for it, and keep what it finished."""
        entry = self.entry
        if entry is not None and entry["job"] is not None:
            entry["job"].stop(timeout=timeout)
            self.harvest()

    def harvest(self) -> RunView | None:
        """Move a finished job into ``finished`` (once); return the last finished run."""
        session_runs().touch()       # a visit: the session is not idle
        entry = self.entry
        if entry is None:
            return None
        job = entry["job"]
        if job is not None and job.done and not entry["harvested"]:
            snap = job.snapshot()
            entry["finished"] = done = _view(snap, result=snap["result"] if snap["result"] is not None else snap["partial"],
                                             settings=entry["settings"], extra=entry["extra"])
            entry["harvested"] = True
            how = "from the cache" if done.cached else f"shared by {done.shared} sessions" if done.shared > 1 else "alone"
            log.info(RUN_DRAWN, {"page": self.name, "session": session_runs().owner, "status": done.status,
                                 "seconds": done.elapsed, "how": how, "cpu": snap["cpu_seconds"]})
        return entry["finished"]

    @property
    def finished(self) -> RunView | None:
        """The last finished run (None before any)."""
        entry = self.entry
        return None if entry is None else entry["finished"]

    def view(self) -> RunView:
        """The run now: the running job's snapshot (its partial result), else the last finished run."""
        entry = self.entry
        if entry is None:
            return RunView(status="idle")
        job = entry["job"]
        if job is None or job.done:
            return self.harvest() or RunView(status="idle", settings=entry["settings"], extra=entry["extra"])
        snap = job.snapshot()
        message = snap["message"]
        if snap.get("shared", 1) > 1 and not snap.get("queued"):
            message += f" · shared with {snap['shared'] - 1} other session{'s' if snap['shared'] > 2 else ''}"
        return _view({**snap, "message": message}, status="running", result=snap["partial"],
                     settings=entry["settings"], extra=entry["extra"])

    def period(self, seconds: float) -> float:
        """Seconds between two redraws of a live page asking for ``seconds``: at least
        MIN_POLL_SECONDS, and longer when many sessions watch runs in flight, so that the server
        redraws about REDRAWS_PER_SECOND pages a second in all."""
        return max(float(seconds), MIN_POLL_SECONDS, shared_store().watching() / REDRAWS_PER_SECOND)

    def _polling(self, polling: bool, seconds: float) -> float | None:
        entry = self.entry
        period = self.period(seconds) if polling else None
        if entry is not None:
            entry.update(polling=polling, period=period, poll_seconds=float(seconds))
        return period

    def poll_every(self, seconds: float) -> float | None:
        """``run_every`` for the page's polling fragment: ``seconds`` (at least MIN_POLL_SECONDS, longer
        on a busy server: :meth:`period`) while the run runs, else off.

        Call it once per full run of the page (it remembers whether the fragment polls).
        """
        return self._polling(self.running, seconds)

    def pace(self) -> None:
        """Call in the polling fragment: when so many more sessions watch live runs that this page's
        redraw period should be half again as long, one full rerun sets the new period (a fragment's
        ``run_every`` is fixed when the page draws it)."""
        entry = self.entry
        if entry is None or not entry.get("polling") or not entry.get("period") or not self.running:
            return
        if self.period(entry["poll_seconds"]) > 1.5 * entry["period"]:
            st.rerun()

    def changed(self, view: RunView) -> bool:
        """Whether ``view`` differs from the one this page drew last (a fragment may skip building a
        new chart when nothing changed, e.g. while queued)."""
        entry = self.entry
        if entry is None:
            return True
        mark = (view.status, view.version, view.queued, round(view.elapsed))
        if entry.get("drawn") == mark:
            return False
        entry["drawn"] = mark
        return True

    def poll_while(self, drawn_running: bool, seconds: float) -> float | None:
        """``run_every`` for the polling fragment of a page that drew its buttons with
        ``drawn_running``, its own earlier read of :attr:`running` in this script run.

        A short run (a Step of 10 boosting steps: milliseconds) can end between that read and
        the fragment's creation. :meth:`poll_every` would then see it ended and turn polling off,
        while the buttons stay drawn disabled and nothing reruns the page: they stay stuck. Here
        the fragment polls whenever either read saw the run running, so it sees the end and
        :meth:`rerun_when_finished` redraws the page once, buttons enabled.
        """
        return self._polling(bool(drawn_running) or self.running, seconds)

    def rerun_when_finished(self) -> None:
        """Call in the polling fragment: once the run it polls has ended, one full rerun redraws
        the page around the result (buttons enabled again, polling off); while it runs, :meth:`pace`."""
        entry = self.entry
        if entry is not None and not self.running and entry.pop("polling", False):
            st.rerun()
        self.pace()


# --- estimates and the start gate -----------------------------------------------------------------

def fmt_seconds(s: float) -> str:
    if s < 1:
        return "under a second"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def estimate_text(seconds: float, page: str | None = None) -> str:
    """The estimate of a run of ``page`` (a PageRun's name) its cost model puts at ``seconds`` of one
    core, as this server's measurements make it (:meth:`RunStore.estimate_range`: the page's runs
    measured against their estimates, the slowdown of recent runs, the queue): "≈ 12 s" (or "under a
    second"); on a busy server "≈ 12 s, up to 30 s now (3 runs computing now on 2 slots)"."""
    low, high, why = shared_store().estimate_range(seconds, page)
    text = fmt_seconds(low) if low < 1 else f"≈ {fmt_seconds(low)}"
    if high > 1.25 * low and high - low >= 1:
        text += f", up to {fmt_seconds(high)} now ({why})" if why else f", up to {fmt_seconds(high)} now"
    return text


def gate(run: PageRun, settings: Any, cost: float, start: Callable[[], None], *, auto_seconds: float,
         max_seconds: float, too_costly: str, detail: str, button_key: str, force_key: str,
         force: bool = False) -> bool:
    """The pages' rule: a new run (first visit, or settings changed) starts by itself when it is
    estimated at most ``auto_seconds``; up to ``max_seconds`` it waits for a Run button that
    shows the estimate; above, it is refused with ``too_costly`` (what to change). Returns True
    when it started the run. ``detail`` says what the run is made of; ``force_key`` is the
    session_state key the Run button sets; ``force`` starts it as that button would (a preset's one click)."""
    run.harvest()
    forced = st.session_state.pop(force_key, False) or bool(force)
    wanted = not run.started or run.entry["settings"] != settings or forced
    if not wanted:
        return False
    if cost > max_seconds:
        st.error(f"This run is estimated at {estimate_text(cost, run.name)}, above this app's limit of "
                 f"{fmt_seconds(max_seconds)}: {too_costly}", icon="⛔")
        return False
    if cost <= auto_seconds or forced:
        start()
        return True
    st.warning(f"This run is estimated at **{estimate_text(cost, run.name)}** ({detail}). It runs in the background: "
               "you can stop it and keep what is done.", icon="⏱️")
    st.button(f"Run (≈ {fmt_seconds(cost)})", type="primary", key=button_key,
              on_click=st.session_state.__setitem__, args=(force_key, True),
              help="Start this bigger run in the background.")
    return False


# --- one figure per shared result -----------------------------------------------------------------
_figures: "OrderedDict[tuple, Any]" = OrderedDict()
_figures_lock = threading.Lock()


def shared_figure(build: Callable[..., Any], result: Any, *args: Any, **kwargs: Any) -> Any:
    """``build(result, *args, **kwargs)``, built once for every session watching the same result.

    Sessions attached to one run poll the same result object (the run store shares it): with
    30 of them, building its Plotly figure (about 50 ms of Python each) once a second per session
    would take more than a core away from the training. The figure is kept while its result
    lives (at most SHARED_FIGURES of them). ``args``/``kwargs`` must be small (their repr is the key).
    Anything else drawn from a shared result can be kept the same way (e.g. the early-stopping
    marks: 35 ms per redraw and session); never mutate what it returns.
    """
    if result is None:
        return build(result, *args, **kwargs)
    key = (id(result), getattr(build, "__qualname__", repr(build)), repr(args), repr(sorted(kwargs.items())))
    with _figures_lock:
        hit = _figures.get(key)
        if hit is not None and hit[0]() is result:
            _figures.move_to_end(key)
            return hit[1]
    figure = build(result, *args, **kwargs)

    def forget(_ref, key=key):
        with _figures_lock:
            _figures.pop(key, None)

    with _figures_lock:
        _figures[key] = (weakref.ref(result, forget), figure)
        while len(_figures) > SHARED_FIGURES:
            _figures.popitem(last=False)
    return figure
