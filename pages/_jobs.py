"""One background run per page: start, stop, harvest and status, the same way on every page.

A compute page makes one ``PageRun`` and keeps only its widgets, its call and its drawing::

    run = PageRun("proj")                       # state in st.session_state["proj_page_run"]
    run.harvest()                               # a finished job's result moves into the run
    if wanted:
        run.start(run_projection_size, dataset, settings=config, **kwargs)

    @st.fragment(run_every=run.poll_every(0.5))
    def live():
        view = run.view()                       # status, fraction, message, result, ...
        ...draw...
        run.rerun_when_finished()               # one full rerun once the job has ended

Jobs run in the browser session's :class:`~engine.dashboard.jobs.JobGroup` (``pages/_session.py``),
one slot per page: starting a run stops the page's previous one, and every run of a session
stops when the session ends. The last finished run (result, status, settings) is kept while a
new one runs, so a page can go on showing it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st

from pages._session import session_jobs

STOP_TIMEOUT = 5.0      # seconds a Stop waits for the run to end (a fit ends at its next chunk)


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

    @property
    def running(self) -> bool:
        return self.status == "running"


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
        return st.session_state.get(self.key)

    @property
    def running(self) -> bool:
        entry = self.entry
        return entry is not None and entry["job"] is not None and entry["job"].running

    @property
    def started(self) -> bool:
        """Whether this page has started a run in this session."""
        return self.entry is not None

    def start(self, target: Callable[..., Any], /, *args: Any, settings: Any = None, extra: dict | None = None,
              **kwargs: Any) -> None:
        """Run ``target(*args, progress=..., stop=..., **kwargs)`` in the background.

        ``settings`` identify the run (pages compare them with the sidebar's); ``extra`` is
        page data kept beside it (e.g. the fitted models the Convergence page continues).
        """
        job = session_jobs().start(self.name, target, *args, **kwargs)   # stops this page's previous run
        previous = self.entry or {}
        st.session_state[self.key] = {"job": job, "settings": settings, "extra": dict(extra or {}),
                                      "finished": previous.get("finished"), "harvested": False}

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Ask the run to stop, wait a little for it, and keep what it finished."""
        entry = self.entry
        if entry is not None and entry["job"] is not None:
            entry["job"].stop(timeout=timeout)
            self.harvest()

    def harvest(self) -> RunView | None:
        """Move a finished job into ``finished`` (once); return the last finished run."""
        entry = self.entry
        if entry is None:
            return None
        job = entry["job"]
        if job is not None and job.done and not entry["harvested"]:
            snap = job.snapshot()
            entry["finished"] = RunView(
                status=snap["status"], fraction=snap["fraction"], message=snap["message"],
                elapsed=snap["elapsed"], result=snap["result"] if snap["result"] is not None else snap["partial"],
                error=snap["error"], settings=entry["settings"], extra=entry["extra"])
            entry["harvested"] = True
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
        return RunView(status="running", fraction=snap["fraction"], message=snap["message"],
                       elapsed=snap["elapsed"], result=snap["partial"], settings=entry["settings"],
                       extra=entry["extra"])

    def poll_every(self, seconds: float) -> float | None:
        """``run_every`` for the page's polling fragment: ``seconds`` while the run runs, else off.

        Call it once per full run of the page (it remembers whether the fragment polls).
        """
        entry = self.entry
        running = self.running
        if entry is not None:
            entry["polling"] = running
        return seconds if running else None

    def poll_while(self, drawn_running: bool, seconds: float) -> float | None:
        """``run_every`` for the polling fragment of a page that drew its buttons with
        ``drawn_running``, its own earlier read of :attr:`running` in this script run.

        A short run (a Step of 10 boosting steps: milliseconds) can end between that read and
        the fragment's creation. :meth:`poll_every` would then see it ended and turn polling off,
        while the buttons stay drawn disabled and nothing reruns the page: they stay stuck. Here
        the fragment polls whenever either read saw the run running, so it sees the end and
        :meth:`rerun_when_finished` redraws the page once, buttons enabled.
        """
        entry = self.entry
        polling = bool(drawn_running) or self.running
        if entry is not None:
            entry["polling"] = polling
        return seconds if polling else None

    def rerun_when_finished(self) -> None:
        """Call in the polling fragment: once the run it polls has ended, one full rerun redraws
        the page around the result (buttons enabled again, polling off)."""
        entry = self.entry
        if entry is not None and not self.running and entry.pop("polling", False):
            st.rerun()
