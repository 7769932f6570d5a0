"""One server, many browser sessions: identical runs computed once, a fair queue, bounded results.

The dashboard is used in class: a teacher opens a preset and 30 students open the same link.
Every one of them asks for the same computation (the engine is deterministic: same problem,
settings and seed, same result), so the server keeps one :class:`RunStore` for all sessions:

* **A run key** (:func:`run_key`) hashes everything that determines a result: the page, the
  function, every argument (arrays and sparse matrices by their content, dicts in any order) and
  the engine's version. A fresh seed is another key.
* **Identical runs computed once.** A session asking for a run that is queued or running
  attaches to it and sees its progress; a finished run is served from a cache bounded in entries
  and in (approximate) bytes, least recently used out. A failed or stopped run is not cached:
  every attached session sees the error, and the next request computes again.
* **A fair queue.** At most ``max_jobs`` runs compute at once (default: the number of cores);
  the others wait first in, first out, and a waiting session is told its place and a wait
  estimate ("3rd in line, about 20 s"). A session never holds more than one running job: its
  second run waits until the first has ended. A session that stops or leaves (Stop, a new run
  on the same page, a closed tab) is detached; the run itself stops (or leaves the queue) only
  when no session is attached any more.

Why a store of our own and not ``st.cache_data``: a Streamlit cache computes in the script
thread of the first caller and holds every other caller of the same key until it returns, with no
progress, no Stop, no queue and no way to share a run that is already in flight; and it caches
failures' absence only by luck of exceptions. Here a run is a :class:`~engine.app.serving.jobs.Job`
in the background, as before, and the store only decides when it starts and who sees it. It
never imports streamlit (``pages/_session.py`` keeps the one store of the server).

Running it for a class
----------------------
Start one server for the room, e.g. ``RPO_MAX_JOBS=2 RPO_CACHE_ENTRIES=64 RPO_CACHE_MB=256
streamlit run app.py --server.address 0.0.0.0``. The settings (environment variables, read at
start-up; a value that is not a positive integer stops the app with a message naming it):

* ``RPO_MAX_JOBS``: training runs computed at once (default: the server's cores). More than
  the cores only makes every run slower.
* ``RPO_CACHE_ENTRIES`` / ``RPO_CACHE_MB``: finished runs kept for every session (default 64
  runs, 256 MB), least recently used out. When the whole class opens the same preset, it is
  computed once and every later visitor gets it at once.
* ``RPO_WARM`` / ``RPO_RUN_CACHE``: the start-up fill of every page's first view (default on) and
  its folder on disk (:mod:`engine.app.serving.warm_cache`): a request missing this cache is served
  from there, and one the fill is computing waits for it.
* ``RPO_IDLE_MINUTES``: a session's results are dropped after this long without a visit
  (default 30), and always when its tab closes; a cached run nobody asked for this long is
  dropped too (the class has gone home: the server's memory goes back to about its idle level).

What a student sees when the server is busy: the page's progress bar says "waiting: 3rd in line,
about 20 s" until a slot frees, then the usual progress; a run that someone else already
started shows its progress at once ("shared with 12 other sessions"), and one already finished
appears at once ("served from the server's cache"); estimates are shown as a range ("≈ 6 s, up
to 20 s now (2 runs computing now on 2 slots)") and a time measured while other runs shared the
server says so. Stop detaches only this student; the run stops when the last student watching it
leaves.

The parts it is made of, each in its own module: the run key (:mod:`~engine.app.serving.run_key`),
the cache of finished runs (:mod:`~engine.app.serving.result_cache`), the server's limits
(:mod:`~engine.app.serving.limits`), the background job (:mod:`~engine.app.serving.jobs`) and the
start-up fill's files (:mod:`~engine.app.serving.warm_cache`); this module holds the store, its
tickets and the server's log formats.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from typing import Any, Callable

from engine.app.serving.jobs import Job
from engine.app.serving.limits import Limits, limits_from_env
from engine.app.serving.measures import Measures
from engine.app.serving.result_cache import MB, ResultCache, approx_bytes
from engine.app.serving.run_key import run_key
from engine.app.serving.warm_cache import WarmCache, await_warm

__all__ = ["RunStore", "Ticket", "ordinal", "short_key", "LOG_NAME", "SESSION_OPENED", "SESSION_CLOSED", "RUN_ASKED", "ASKED_HOW",
           "RUN_DRAWN", "RUN_ENDED", "RUN_LEFT_QUEUE", "RUN_STOPPED", "RUN_CLAIMED", "RUN_AWAITED"]

# --- the server's log ----------------------------------------------------------------------------
# Who asked for which run, how it was served, when each session drew it, and what became of runs
# nobody watches: one line each in the server's log, written from these formats (%-formats with
# named fields, logged with a dict: ``log.info(RUN_STOPPED, {"key": ...})``) by the store and by
# the pages (pages/_session.py, pages/_jobs.py, which add Streamlit's time stamp). The class load
# tool (tests/load/classroom_tools.py) builds its regular expressions from these same constants,
# so a line and its parser cannot drift apart.
LOG_NAME = "rpo.runs"
SESSION_OPENED = "%(session)s opened"
SESSION_CLOSED = "%(session)s closed"
# a session asks a page (``page``: conv, bv, proj, fx, ...) for a run; ``how`` is one of ASKED_HOW's
# phrases (the attached one with the number of sessions sharing the run)
RUN_ASKED = "run %(page)s: %(session)s asked: %(how)s [run %(key)s]"
ASKED_HOW = {"new": "new run", "private": "private run", "cached": "from the cache",
             "attached": "attached to the run in flight, shared by {shared} sessions",
             "fill": "waits for the start-up fill's computation of it"}   # a new run the fill had begun
# the session's page first draws the finished run (``status``: done, stopped or failed; ``how``:
# "from the cache", "shared by N sessions" or "alone")
RUN_DRAWN = "run %(page)s: %(session)s %(status)s after %(seconds).1f s (%(how)s; the run's thread had %(cpu).1f s of CPU)"
RUN_ENDED = "run %(key)s ended (%(status)s) after %(seconds).1f s, watched by %(watchers)d sessions"
RUN_LEFT_QUEUE = "run %(key)s left the queue: nobody waits for it"
RUN_STOPPED = "run %(key)s stopped: nobody watches it"
# with the start-up cache (engine/app/serving/warm_cache.py): a run starts computing here, or waits for
# another process's computation of it (the fill's, or for the fill a server's): never both for one run
RUN_CLAIMED = "run %(key)s computed here"
RUN_AWAITED = "run %(key)s waits for another process computing it"

log = logging.getLogger(LOG_NAME)   # the server's log (pages/_session.py); plain logging: no streamlit here
UNKNOWN_RUN_SECONDS = 10.0      # a queued run with no estimate counts this long in a wait estimate


def short_key(key) -> str:
    """A run's name in the log: its key's first 8 characters (a private run has no key)."""
    return "private" if key is None else key[:8]


# --- runs, tickets and the store --------------------------------------------------------------------

def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _wait_text(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.0f} min"


class _Run:
    """One computation, shared by every session attached to it."""

    def __init__(self, key, target, args, kwargs, extra, estimate, enqueued):
        self.key, self.target, self.args, self.kwargs = key, target, args, kwargs
        self.extra = extra
        self.compact: Callable[[dict], dict] | None = None   # what the cache keeps once nobody holds it
        self.estimate = estimate
        self.enqueued = enqueued
        self.owners: set = set()
        self.job: Job | None = None
        self.state = "queued"        # "queued", "running", "ended" or "cancelled"
        self.busy = 1                # most runs computing at once while it ran (1: alone)
        self.page = ""
        self.claimed = False         # marked in the start-up cache as computed by this process
        self.awaited = False         # waits for another process's computation of it
        self.process_cpu: float | None = None   # the process's CPU clock when it started


class Ticket:
    """One session's view of a run (what a page holds instead of a Job; same duck type).

    ``snapshot()`` has the Job's fields plus ``queued`` (place in line, 0 when computing),
    ``shared`` (sessions attached), ``cached`` (served from the cache) and ``busy`` (most runs
    computing at once while it ran). A queued run reports status "running" with fraction 0 and
    a message saying its place and wait. ``how`` says how the request was served: "new" (this
    request started the run), "attached" (to the same run in flight), "cached" or "private".
    """

    def __init__(self, store: "RunStore", owner: Any, run: _Run | None, frozen: dict | None = None,
                 extra: dict | None = None, key: str | None = None, how: str = "new") -> None:
        self._store, self.owner, self._run = store, owner, run
        self._frozen = frozen          # the snapshot once this session has left the run (or a cache hit)
        self.extra = extra if run is None else run.extra
        self.key = key if run is None else run.key
        self.how = how

    @property
    def store(self) -> "RunStore":
        return self._store

    def snapshot(self) -> dict:
        if self._frozen is not None:
            return dict(self._frozen)
        return self._store._snapshot(self._run)

    @property
    def cached(self) -> bool:
        return self._run is None

    @property
    def awaited(self) -> bool:
        """Whether the run waits for another process's computation of it (the start-up cache's
        marker: the fill's, or a server's for the fill)."""
        return self._run is not None and self._run.awaited

    @property
    def done(self) -> bool:
        if self._frozen is not None:
            return True
        run = self._run
        return run.state == "cancelled" or (run.job is not None and run.job.done)

    @property
    def running(self) -> bool:
        return not self.done

    def __getattr__(self, name: str) -> Any:
        """The Job's read-only fields (status, fraction, message, partial, result, error, elapsed,
        cpu_seconds) from a snapshot, so a ticket reads like a Job."""
        if name in ("status", "fraction", "message", "partial", "result", "error", "elapsed", "cpu_seconds",
                    "stop_requested"):
            return self.snapshot()[name]
        raise AttributeError(name)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run ends (or ``timeout`` passes); True if it has ended."""
        deadline = None if timeout is None else time.perf_counter() + float(timeout)
        while not self.done:
            job = self._run.job
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            if job is not None:
                job.wait(left)
            elif left == 0.0:
                break
            else:
                time.sleep(0.02 if left is None else min(0.02, left))
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return self.done

    def stop(self, timeout: float | None = None) -> bool:
        """Leave the run (this session no longer watches it); the run stops when nobody watches.

        With ``timeout``, wait that long for a run this session was the last to watch. True once
        this ticket is done (it then shows the run as stopped, with what was computed so far)."""
        job = self._store._detach(self)
        if job is not None and timeout is not None:
            job.wait(timeout)
        return self.done


class RunStore:
    """The runs of every session of one server: shared, queued, cached (see the module doc).

    ``request(owner, page, target, *args, **kwargs)`` returns a :class:`Ticket`; ``owner`` is any
    hashable standing for a browser session. ``target`` is called as a Job target
    (``progress=``, ``stop=``). ``share=False`` makes a private run (e.g. one that continues
    models kept by this session): it queues like the others but is neither shared nor cached.
    A session holds a run from its request until it leaves it (:meth:`Ticket.stop`, :meth:`leave`).
    """

    def __init__(self, limits: Limits | None = None, *, clock: Callable[[], float] = time.monotonic,
                 warm: WarmCache | None = None, persist: bool = False) -> None:
        self.limits = limits or Limits()
        self.warm = warm            # finished first views on disk (engine.app.serving.warm_cache), or None
        self.persist = bool(persist) and warm is not None   # the start-up fill's store: write them there
        # True while this server's start-up fill runs (set by its starter): the fill may still come
        # to any run this server computes, so each finished one is written for it (see _write_claimed)
        self.fill_running: Callable[[], bool] = lambda: False
        if int(self.limits.max_jobs) < 1:
            raise ValueError(f"max_jobs must be a positive integer, got {self.limits.max_jobs!r}")
        self.cache = ResultCache(self.limits.max_entries, self.limits.max_bytes, clock=clock)
        self._clock = clock
        self._lock = threading.RLock()
        self._queue: list[_Run] = []
        self._running: list[_Run] = []
        self._inflight: dict[str, _Run] = {}
        self._tickets: dict[Any, set[Ticket]] = {}
        self.started = 0            # runs computed (started) so far: the engine calls
        # what this server measured of its runs (and the fill of its own): the estimates' ground
        self.measures = Measures(warm.folder if warm is not None else None)
        self._compactors: dict[str, Callable[[dict], dict]] = {}   # cached runs to compact once nobody holds them
        self._compacted: set[str] = set()   # cached runs kept compact (their full form may be on disk)
        self.closed = threading.Event()     # set by close(): the server is done with this store

    # --- asking for a run ----------------------------------------------------------------------
    def request(self, owner: Any, page: str, target: Callable[..., Any], /, *args: Any, share: bool = True,
                extra: dict | None = None, estimate: float | None = None,
                compact: Callable[[dict], dict] | None = None, **kwargs: Any) -> Ticket:
        """A ticket for ``target(*args, **kwargs)``: from the cache, attached to the same run in
        flight, or a new run in the queue. ``extra`` is page data kept with the run (the first
        requester's is the one every session sees); ``estimate`` its expected seconds (for the
        queue's wait estimates); ``compact(extra)`` what the cache keeps of ``extra`` once no
        session holds the finished run (None: all of it; see the module doc)."""
        if compact is not None and not callable(compact):
            raise ValueError(f"compact must be callable or None, got {type(compact).__name__}")
        key = run_key(page, target, *args, **kwargs) if share else None
        with self._lock:
            if key is not None:
                hit = self._warm_hit(key, compact) if key not in self.cache or key in self._compacted else None
                hit = hit or self.cache.get(key)
                if hit is not None:
                    snap, hit_extra = hit
                    ticket = Ticket(self, owner, None, frozen={**snap, "cached": True, "shared": 1,
                                                               "queued": 0}, extra=hit_extra, key=key, how="cached")
                    self._tickets.setdefault(owner, set()).add(ticket)
                    return ticket
                run = self._inflight.get(key)
                if run is not None and run.state in ("queued", "running"):
                    run.owners.add(owner)
                    ticket = Ticket(self, owner, run, how="attached")
                    self._tickets.setdefault(owner, set()).add(ticket)
                    return ticket
            est = None if estimate is None or not math.isfinite(float(estimate)) else max(0.0, float(estimate))
            run = _Run(key, target, args, kwargs, dict(extra or {}), est, self._clock())
            run.page = page
            run.compact = compact
            run.owners.add(owner)
            if key is not None:
                self._inflight[key] = run
            self._queue.append(run)
            ticket = Ticket(self, owner, run, how="new" if key is not None else "private")
            self._tickets.setdefault(owner, set()).add(ticket)
            self._pump()
            return ticket

    def leave(self, owner: Any) -> None:
        """The session ``owner`` has ended: detach it from every run (no waiting)."""
        with self._lock:
            tickets = list(self._tickets.pop(owner, ()))
        for ticket in tickets:
            ticket.stop()

    def _warm_hit(self, key: str, compact: Callable[[dict], dict] | None):
        """The run ``key`` from the start-up fill's files, put in the cache in full (models too)
        with its compact form for later; None when it is not there."""
        hit, nbytes = self.warm.load(key) if self.warm is not None else (None, 0)
        if hit is None:
            return None
        self._compacted.discard(key)
        if self.cache.put(key, hit, nbytes) and compact is not None:
            self._compactors[key] = compact
        return hit

    # --- what the cache keeps once nobody holds a run ------------------------------------------
    def _held(self, key: str) -> bool:
        """Whether a session holds the run ``key`` (a ticket of it not yet left)."""
        return any(t.key == key for tickets in self._tickets.values() for t in tickets)

    def _compact_if_free(self, key: str | None) -> None:
        """Once no session holds the cached run ``key``, keep only ``compact(extra)`` of it in the
        cache (its result stays). A compact function that raises drops the entry (never the
        session that left)."""
        with self._lock:
            if key is None or key not in self._compactors or self._held(key):
                return
            compact = self._compactors.pop(key)
            hit = self.cache.peek(key)
        if hit is None:
            return
        snap, extra = hit
        try:
            small = compact(extra)
            if not isinstance(small, dict):
                raise TypeError(f"compact returned a {type(small).__name__}, not a dict")
            nbytes = approx_bytes((snap["result"], small))
        except Exception:  # noqa: BLE001 - the entry goes, the session that left never sees it
            self.cache.discard(key, hit)
            log.warning("cache: the compact form of run %s failed; the run is dropped", key[:8])
            return
        before = self.cache.nbytes
        if self.cache.replace(key, hit, (snap, small), nbytes):
            self._compacted.add(key)
            log.info("cache: run %s kept compact, nobody holds it (cache %.1f -> %.1f MB)", key[:8],
                     before / MB, self.cache.nbytes / MB)

    # --- the queue -----------------------------------------------------------------------------
    def _owner_running(self, owner) -> bool:
        return any(owner in r.owners for r in self._running)

    def _pump(self) -> None:
        """Start queued runs, first in first out, while fewer than max_jobs compute. A run whose
        every session already has a run computing waits (one running job per session)."""
        with self._lock:
            while len(self._running) < self.limits.max_jobs:
                run = next((r for r in self._queue
                            if any(not self._owner_running(o) for o in r.owners)), None)
                if run is None:
                    return
                self._queue.remove(run)
                self._claim(run)
                run.state = "running"
                run.process_cpu = time.process_time()     # the fill's one run at a time: the process's CPU is the run's
                self._running.append(run)
                self.started += 1
                busy = len(self._running)
                for r in self._running:
                    r.busy = max(r.busy, busy)
                run.job = Job(run.target, *run.args, on_done=lambda job, run=run: self._ended(run, job),
                              **run.kwargs)

    def _claim(self, run: _Run) -> None:
        """A keyed run about to start, with the start-up cache on disk: mark it as computed here, or,
        when another process (the fill, or the server the fill serves) computes it already, wait for
        that one's file instead (:func:`await_warm`); so neither computes a run the other has begun,
        whichever asked first. The fill waiting for the server's run asks it to write the file."""
        if run.key is None or self.warm is None:
            return
        try:
            mine = self.warm.claim(run.key)
        except OSError as exc:      # an unwritable cache folder: compute here, as without it
            log.warning("start-up cache: run %s not marked (%s)", run.key[:8], exc)
            return
        if mine:
            run.claimed = True
            log.info(RUN_CLAIMED, {"key": short_key(run.key)})
            return
        run.awaited = True
        log.info(RUN_AWAITED, {"key": short_key(run.key)})
        who = "computed by another process" if self.persist else "computed by the server's start-up fill"
        if self.persist:
            self.warm.want(run.key)
        run.target, run.args = await_warm, (self.warm, run.key, run.extra, run.target, *run.args)
        run.kwargs = {**run.kwargs, "waiting_for": who}

    def _ended(self, run: _Run, job: Job) -> None:
        snap = job.snapshot()
        nbytes = None
        if run.key is not None and snap["status"] == "done":
            nbytes = approx_bytes((snap["result"], run.extra))     # outside the lock: may take a moment
        with self._lock:
            run.state = "ended"
            if run in self._running:
                self._running.remove(run)
            if run.key is not None and self._inflight.get(run.key) is run:
                del self._inflight[run.key]
            if nbytes is not None:
                kept = {k: snap[k] for k in ("name", "status", "fraction", "message", "result", "error",
                                             "elapsed", "cpu_seconds")}
                kept.update(partial=None, stop_requested=False, version=snap["version"], busy=run.busy)
                if self.cache.put(run.key, (kept, run.extra), nbytes) and run.compact is not None:
                    self._compactors[run.key] = run.compact
            if not run.awaited and snap["status"] == "done":
                # a run awaited from another process spent its time waiting, not computing: not a measure
                self.measures.add(run.page, run.estimate, snap["elapsed"], self._run_cpu(run, snap), self._clock())
            self._pump()
            log.info(RUN_ENDED, {"key": short_key(run.key), "status": snap["status"], "seconds": snap["elapsed"],
                                 "watchers": len(run.owners)})
        if run.claimed:
            self._write_claimed(run, kept if nbytes is not None else None)
        self._compact_if_free(run.key)       # every session left while it finished

    def _run_cpu(self, run: _Run, snap: dict) -> float:
        """The CPU seconds of a run: its thread's, or, in a store computing one run at a time (the fill),
        the process's during the run (a forest grows its trees in threads of its own: its run's thread
        then measures almost nothing)."""
        if self.limits.max_jobs == 1 and run.process_cpu is not None:
            return max(snap["cpu_seconds"], time.process_time() - run.process_cpu)
        return snap["cpu_seconds"]

    def _write_claimed(self, run: _Run, kept: dict | None) -> None:
        """A run this process marked as its own has ended: the fill's store writes it to disk, and so
        does the server's while its fill runs (the fill may not have reached that run yet: without the
        file it would find no marker and compute it again) or when the fill waits for it; then the
        marker goes (a waiting process then reads the file, or computes the run itself when this one
        stopped or failed)."""
        try:
            if kept is not None and (self.persist or self.fill_running() or self.warm.wanted(run.key)):
                self.warm.put(run.key, (kept, run.extra))      # in full: Convergence's models too
                if self.persist and run.estimate:
                    self.warm.record(run.page, run.estimate, kept["elapsed"], self._run_cpu(run, kept))
        except Exception as exc:  # noqa: BLE001 - not kept on disk; the run itself is fine
            log.warning("start-up cache: run %s not written (%s: %s)", run.key[:8], type(exc).__name__, exc)
        finally:
            self.warm.want(run.key, False)
            self.warm.end(run.key)

    def _detach(self, ticket: Ticket) -> Job | None:
        """Detach a ticket (the store forgets it); return the run's job when this session was the
        last watching it. A cached run nobody holds any more is compacted."""
        job = self._detach_locked(ticket)
        self._compact_if_free(ticket.key)
        return job

    def _detach_locked(self, ticket: Ticket) -> Job | None:
        with self._lock:
            self._tickets.get(ticket.owner, set()).discard(ticket)
            run = ticket._run
            if ticket._frozen is not None or run is None:
                return None
            # still watched by this owner through another ticket of the same run (two pages)?
            others = any(t._run is run for t in self._tickets.get(ticket.owner, ()))
            if not others:
                run.owners.discard(ticket.owner)
            last = not run.owners
            if run.state == "queued":
                if last:
                    self._queue.remove(run)
                    run.state = "cancelled"
                    log.info(RUN_LEFT_QUEUE, {"key": short_key(run.key)})
                    if run.key is not None and self._inflight.get(run.key) is run:
                        del self._inflight[run.key]
                snap = self._snapshot(run)
                ticket._frozen = {**snap, "status": "stopped", "message": "left the queue", "partial": None}
                self._pump()
                return None
            job = run.job
            if run.state == "running" and last:
                job.stop()                      # nobody watches: stop computing
                log.info(RUN_STOPPED, {"key": short_key(run.key)})
                return job                      # the ticket follows the job to its end
            if job is not None and not job.done:
                snap = job.snapshot()           # others still watch: this session keeps what it saw
                ticket._frozen = {**snap, "status": "stopped", "message": "stopped",
                                  "result": snap["partial"], "queued": 0, "shared": len(run.owners),
                                  "cached": False, "busy": run.busy}
            return None

    # --- what a session sees -------------------------------------------------------------------
    def _wait_estimate(self, run: _Run) -> float:
        """Seconds until ``run`` starts: the remaining work ahead of it, shared by max_jobs slots."""
        typical = self.measures.typical(UNKNOWN_RUN_SECONDS)
        ahead = 0.0
        for r in self._running:
            elapsed = r.job.elapsed if r.job is not None else 0.0
            ahead += max((r.estimate if r.estimate is not None else typical) - elapsed, 0.0)
        for r in self._queue:
            if r is run:
                break
            ahead += r.estimate if r.estimate is not None else typical
        return ahead / self.limits.max_jobs

    def _snapshot(self, run: _Run) -> dict:
        with self._lock:
            if run.job is None:
                place = self._queue.index(run) + 1 if run in self._queue else 0
                waited = self._clock() - run.enqueued
                message = (f"waiting: {ordinal(place)} in line, {_wait_text(self._wait_estimate(run))}"
                           if place else "left the queue")
                return {"name": getattr(run.target, "__name__", "run"), "status": "running" if place else "stopped",
                        "fraction": 0.0, "message": message, "partial": None, "result": None, "error": None,
                        "elapsed": waited, "cpu_seconds": 0.0, "stop_requested": False, "version": -place,
                        "queued": place, "shared": len(run.owners), "cached": False, "busy": run.busy}
            snap = run.job.snapshot()
            snap.update(queued=0, shared=len(run.owners), cached=False, busy=run.busy)
            return snap

    def slowdown(self) -> float:
        """Wall time per CPU second of the runs that ended here lately (1 when none): how much slower
        than its CPU time a run is now (:class:`~engine.app.serving.measures.Measures`); while
        more runs compute than there are cores, at least that share."""
        with self._lock:
            slow = self.measures.slowdown(self._clock())
            cores = max(1, min(self.limits.max_jobs, os.cpu_count() or 1))
            return max(slow, len(self._running) / cores)

    def estimate_range(self, seconds: float, page: str | None = None) -> tuple[float, float, str]:
        """``(low, high, why)``: the wall time of a run of ``page`` its cost model puts at ``seconds``
        of one core.

        low is that estimate times the page's calibration (what its runs measured here against their
        estimates); high adds the current slowdown of runs (:meth:`slowdown`) and the wait in the
        queue when every slot is taken; ``why`` says what made it higher ("" on an idle server)."""
        seconds = max(0.0, float(seconds)) * self.measures.calibration(page)
        with self._lock:
            slow = self.slowdown()
            full = len(self._running) >= self.limits.max_jobs
            wait = 0.0
            if full:
                typical = self.measures.typical(UNKNOWN_RUN_SECONDS)
                left = [max((r.estimate if r.estimate is not None else typical) - (r.job.elapsed if r.job else 0), 0)
                        for r in self._running]
                queued = sum(r.estimate if r.estimate is not None else typical for r in self._queue)
                wait = (min(left, default=0.0) * self.limits.max_jobs + queued) / self.limits.max_jobs
            busy = len(self._running)
        why = []
        if busy:
            why.append(f"{busy} run{'s' if busy > 1 else ''} computing now on {self.limits.max_jobs} slot"
                       f"{'s' if self.limits.max_jobs > 1 else ''}")
        if slow > 1.05:
            why.append(f"runs here took {slow:.1f}× their CPU time in the last minutes")
        return seconds, seconds * slow + wait, "; ".join(why)

    def watching(self) -> int:
        """Sessions watching a run in flight (running or queued), counted once per run they watch:
        the live pages redrawing now."""
        with self._lock:
            return sum(len(r.owners) for r in self._running + self._queue)

    def status(self) -> dict:
        """The server now: runs computing, waiting, cached, and the limits."""
        with self._lock:
            return {"running": len(self._running), "queued": len(self._queue), "max_jobs": self.limits.max_jobs,
                    "cached": len(self.cache), "cache_bytes": self.cache.nbytes, "sessions": len(self._tickets),
                    "started": self.started}

    def close(self) -> None:
        """The server drops this store: stop its runs (no waiting), forget its results."""
        self.closed.set()
        self.drain(timeout=0)
        self.cache.clear()

    def drain(self, timeout: float = 10.0) -> bool:
        """Stop every run and wait for them (tests, shutdown). True when none is left."""
        with self._lock:
            for r in self._queue:
                r.state = "cancelled"
            self._queue.clear()
            jobs = [r.job for r in self._running if r.job is not None]
        for job in jobs:
            job.stop()
        deadline = time.perf_counter() + timeout
        return all(job.wait(max(0.0, deadline - time.perf_counter())) for job in jobs)
