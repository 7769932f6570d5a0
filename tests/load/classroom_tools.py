"""The class load tool's instruments (:mod:`load.classroom`, :mod:`load.classroom_visits`).

* the browsers' CPU priority: a Chromium launcher at low nice (:func:`low_priority_browser`) and
  their kernel autogroups kept low too (:func:`lower_browser_groups`);
* the server's log: when each session asked for a page's run and first drew it (:func:`server_times`),
  read with regular expressions built from the run store's own line formats (:func:`line_pattern`);
* :class:`Monitor`: the server's peak memory and health probes while a scenario runs;
* :func:`student`: one browser session that opens a page, presses Start and waits for the result;
* the report's pieces: result and load lines, the targets every scenario shares (:func:`load_missed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

from pathlib import Path

from engine.app.serving import runstore as rs
from engine.app.serving.memory import resident_mb

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# Debian chromium's flags for headless runs in a container, shared with tests/browser: no sandbox
# (tests run as root), no GPU, no /dev/shm (small in containers), and nothing that phones home
# (component updates, sync, background networking, QUIC).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]

DONE_TEXT = "Status: done"
IDLE_TEXT = "Press Start to train."       # the page's status while it waits for Start
RESULT_TIMEOUT = 300.0
BROWSER_NICE = 19        # the browsers take only the CPU the server leaves (a class's are elsewhere)
# The server's log: Streamlit's time stamp, then a message written from one of the run store's line
# formats (engine/app/serving/runstore.py: the store, pages/_session.py and pages/_jobs.py write them).
STAMP = r"(?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.,]\d{3}) "
_FIELD = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?([sdf])")
_FIELD_PATTERNS = {"s": r".+?", "d": r"\d+", "f": r"[\d.]+"}


def line_pattern(fmt: str, **fields: str) -> re.Pattern:
    """The regular expression of a server log line written from ``fmt`` (a %-format with named
    fields, one of the run store's constants) after Streamlit's time stamp: each field a named
    group, its pattern from its conversion (``s``: any text, ``d``: digits, ``f``: a decimal) or
    from ``fields`` (e.g. ``status="done"``)."""
    parts, at = [], 0
    for m in _FIELD.finditer(fmt):
        parts += [re.escape(fmt[at:m.start()]), f"(?P<{m[1]}>{fields.get(m[1], _FIELD_PATTERNS[m[2]])})"]
        at = m.end()
    return re.compile("^" + STAMP + "".join(parts) + re.escape(fmt[at:]) + r"\s*$")


_SESSION, _KEY, _PAGE = r"session-\d+", r"\w+", r"\w+"
# a session first draws a page's finished run (page run name: conv, bv, proj, fx, ...)
SERVER_DONE = line_pattern(rs.RUN_DRAWN, page=_PAGE, session=_SESSION, status="done")
# a session asks a page for a run; how_served(m["how"]) says how it was served
SERVER_ASKED = line_pattern(rs.RUN_ASKED, page=_PAGE, session=_SESSION, key=_KEY)
SESSION_CLOSED = line_pattern(rs.SESSION_CLOSED, session=_SESSION)
RUN_STOPPED = line_pattern(rs.RUN_STOPPED, key=_KEY)
RUN_LEFT_QUEUE = line_pattern(rs.RUN_LEFT_QUEUE, key=_KEY)
RUN_ENDED = line_pattern(rs.RUN_ENDED, key=_KEY, status=r"\w+")
HOW = {"new": "computed", "attached": "attached live", "cached": "from the cache", "private": "private",
       "fill": "from the start-up fill"}


def how_served(text: str) -> str:
    """The run store's word (a key of ``runstore.ASKED_HOW``: new, attached, cached, private) for
    the ``how`` of an ``asked`` line."""
    for word, phrase in rs.ASKED_HOW.items():
        if text.startswith(phrase.split("{")[0]):
            return word
    raise ValueError(f"not one of the run store's ways to serve a run: {text!r}")

def low_priority_browser(folder: str, nice: int = BROWSER_NICE) -> str:
    """A launcher for Chromium at CPU priority ``nice`` (every process it starts inherits it).

    Run as root, Chromium raises its own priority (its GPU and browser processes to nice -8,
    the others back to 0, seen here); without the CAP_SYS_NICE capability (dropped by util-linux's
    ``setpriv`` when the bench runs as root) it cannot."""
    path = os.path.join(folder, f"chromium-nice{int(nice)}")
    drop = ""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        drop = "setpriv --bounding-set -sys_nice --inh-caps -sys_nice "
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec {drop}nice -n {int(nice)} "{CHROMIUM}" "$@"\n')
    os.chmod(path, 0o755)
    return path


def _descendants(pid: int, name: str = "chrom") -> list[int]:
    """The processes among ``pid``'s descendants whose command name starts with ``name`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            with open(f"/proc/{p}/comm") as f:
                if f.read().startswith(name):
                    found.append(p)
        except OSError:
            continue
    return found


def browser_niceness(pid: int) -> list[int]:
    """The distinct nice values of every thread of the Chromium processes among ``pid``'s
    descendants (Linux /proc)."""
    found = set()
    for p in _descendants(pid):
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/stat") as f:
                    found.add(int(f.read().rsplit(")", 1)[1].split()[16]))
        except (OSError, IndexError, ValueError):
            continue
    return sorted(found)


def lower_browser_groups(pid: int, nice: int = BROWSER_NICE, name: str = "chrom") -> list[int]:
    """Put the autogroups of the Chromium processes (command ``name``) among ``pid``'s descendants at ``nice``; return
    the distinct autogroup nice values found afterwards (empty without autogroups).

    Why: with the kernel's autogroups (``/proc/sys/kernel/sched_autogroup_enabled``, on by default
    on desktop and many server kernels) CPU time is shared fairly between *sessions* first, and a
    thread's nice value only counts inside its own session's group. Playwright starts Chromium in a
    session of its own and Chromium's zygote starts more, so a nice 19 browser still took an equal
    share of the 2 cores against the whole server (measured: the run took 2.3x longer beside 30
    pages). Lowering the groups' own nice value gives the server the cores first, as a class whose
    browsers run on the students' own machines does. New renderers start new groups: the
    monitor calls this every 0.5 s."""
    seen = set()
    for p in _descendants(pid, name):
        path = f"/proc/{p}/autogroup"
        try:
            with open(path) as f:
                text = f.read()
            if not text.rstrip().endswith(f"nice {nice}"):
                with open(path, "w") as f:
                    f.write(str(int(nice)))
                with open(path) as f:
                    text = f.read()
            seen.add(int(text.rsplit("nice", 1)[1]))
        except (OSError, IndexError, ValueError):
            continue
    return sorted(seen)


def log_time(stamp: str) -> float:
    return datetime.datetime.strptime(stamp.replace(",", "."), "%Y-%m-%d %H:%M:%S.%f").timestamp()


def server_times(log_path: str, since: float, run: str = "conv") -> tuple[list[float], float | None, dict[str, int]]:
    """From the server's log, for the sessions that asked for the page run ``run`` after ``since``
    (time.time()): seconds from each session's first ask to its first finished run (sorted), the
    longest run time they report (the computation itself, None without any), and how their first
    asks were served (``{"computed": 1, "attached live": 29, ...}``)."""
    asked: dict[str, tuple[float, str]] = {}
    done: dict[str, float] = {}
    run_seconds = None
    with open(log_path, errors="replace") as f:
        for line in f:
            m = SERVER_ASKED.match(line)
            if m is not None and m["page"] == run and (when := log_time(m["stamp"])) >= since:
                asked.setdefault(m["session"], (when, HOW[how_served(m["how"])]))
                continue
            m = SERVER_DONE.match(line)
            if m is not None and m["page"] == run and (when := log_time(m["stamp"])) >= since:
                done.setdefault(m["session"], when)
                run_seconds = max(run_seconds or 0.0, float(m["seconds"]))
    served: dict[str, int] = {}
    for _, how in asked.values():
        served[how] = served.get(how, 0) + 1
    return sorted(done[s] - asked[s][0] for s in done if s in asked), run_seconds, served


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_app(log, env: dict | None = None, timeout: float = 60.0):
    """Run ``streamlit run app.py`` headless on a free port of 127.0.0.1 until the block ends.

    ``log``: a path or an open file for the server's output (None: discarded); ``env``: variables
    added to the environment (the tests turn the start-up fill off and give the server a run cache
    of its own). Yields (base URL, process, seconds until healthy); the server is stopped after the
    block, killed if it does not stop within 10 s."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    with contextlib.ExitStack() as stack:
        out = (subprocess.DEVNULL if log is None else log if hasattr(log, "write")
               else stack.enter_context(open(log, "w")))
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        try:
            base = f"http://127.0.0.1:{port}"
            seconds = wait_healthy(base + "/_stcore/health", proc, timeout=timeout)
            yield base, proc, seconds
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Wait until the server's health endpoint answers "ok"; return the seconds it took."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200 and r.read().strip() == b"ok":
                    return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not healthy after {timeout}s")


class Monitor:
    """Samples the server's memory every 0.5 s and probes its health every 2 s, in a thread."""

    def __init__(self, base: str, pid: int, group_nice: int | None = None,
                 lower_when: threading.Event | None = None) -> None:
        """``group_nice``: the nice value the browsers' autogroups are kept at (None: left alone),
        once ``lower_when`` is set (None: from the start)."""
        self.base, self.pid, self.group_nice, self.lower_when = base, pid, group_nice, lower_when
        self.peak = 0.0
        self.browser_nice: set[int] = set()    # nice values seen among the browsers' threads
        self.group_nice_seen: set[int] = set()  # and among their autogroups
        self.probes = self.failures = 0
        self.worst_probe = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _loop(self):
        next_probe = 0.0
        while not self._stop.wait(0.5):
            self.peak = max(self.peak, resident_mb(self.pid))
            if self.group_nice is not None and (self.lower_when is None or self.lower_when.is_set()):
                self.group_nice_seen.update(lower_browser_groups(os.getpid(), self.group_nice))
            if time.perf_counter() >= next_probe:
                next_probe = time.perf_counter() + 2.0
                self.browser_nice.update(browser_niceness(os.getpid()))
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(self.base + "/_stcore/health", timeout=5) as r:
                        ok = r.status == 200
                except OSError:
                    ok = False
                self.worst_probe = max(self.worst_probe, time.perf_counter() - t0)
                self.probes += 1
                self.failures += not ok


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


FAILURES: dict[str, int] = {}


class Ready:
    """Counts the students whose page is loaded; ``wait()`` returns once all of them are (a student
    whose page failed to load counts as ready, so the others do not wait for it)."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.event = asyncio.Event()

    def arrive(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.event.set()

    async def wait(self) -> None:
        await self.event.wait()


async def student(browser, url: str, started: float, delay: float, ready: Ready | None = None,
                  close_after: float | None = None) -> float | None:
    """One student: with ``ready`` (start by click), open ``url``, wait until every student's page is
    loaded, then press Start after ``delay`` seconds; without, open ``url`` (a link that starts the
    run) after ``delay`` seconds. Seconds from the click (or ``started``) to the result, or None;
    with ``close_after``, the tab closes that many seconds after the start instead (None)."""
    if ready is None:
        await asyncio.sleep(delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 1600})
    arrived = False
    try:
        page = await context.new_page()
        await page.goto(url, wait_until="domcontentloaded", timeout=120_000)
        if ready is not None:
            await page.get_by_text(IDLE_TEXT).first.wait_for(timeout=RESULT_TIMEOUT * 1000)
            start = page.get_by_role("button", name="Start", exact=True)
            await start.wait_for(timeout=RESULT_TIMEOUT * 1000)
            ready.arrive()
            arrived = True
            await ready.wait()
            await asyncio.sleep(delay)
            started = time.perf_counter()
            await start.click(timeout=RESULT_TIMEOUT * 1000)
        if close_after is not None:
            await asyncio.sleep(close_after)
            return None
        await page.get_by_text(DONE_TEXT).first.wait_for(timeout=RESULT_TIMEOUT * 1000)
        return time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - a session that did not get its result counts as missing
        note_failure(exc)
        return None
    finally:
        if ready is not None and not arrived:
            ready.arrive()
        await context.close()


def spread_text(times: list[float], reference: float | None) -> str:
    text = f"min {min(times):.1f} s, median {statistics.median(times):.1f} s, max {max(times):.1f} s"
    return text + (f" ({max(times) / reference:.1f}x alone)" if reference else "")


def result_text(got: list[float], n: int, served: dict[str, int] | None, run_seconds: float | None,
                server: list[float], reference: tuple[float | None, float | None]) -> str:
    """How many of ``n`` sessions got their result, how they were served, and their times
    server-side and in the browser (against ``reference``, the times alone)."""
    line = f"{len(got)}/{n} got their result"
    if served:
        line += "; served: " + ", ".join(f"{k} {v}" for k, v in sorted(served.items()))
    if run_seconds is not None:
        line += f"; the run computed in {run_seconds:.1f} s"
    if server:
        line += f"; time to result server-side {spread_text(server, reference[0])}"
    if got:
        line += f"; in the browser {spread_text(got, reference[1])}"
    return line


def load_text(mon: Monitor, idle: float, after: float, first_idle: float, cpu: float) -> str:
    """What a scenario cost the server: health probes, memory, CPU, and the browsers' priority."""
    return (f"; health probes {mon.failures} of {mon.probes} failed (slowest {mon.worst_probe:.2f} s)"
            f"; memory idle {idle:.0f} MB, peak {mon.peak:.0f} MB, 60 s after {after:.0f} MB"
            f" ({after - first_idle:+.0f} MB on the first idle level); server CPU {cpu:.0f} s"
            f"; browsers' nice {'/'.join(map(str, sorted(mon.browser_nice))) or '?'}"
            f", their autogroups' {'/'.join(map(str, sorted(mon.group_nice_seen))) or '-'}")


def load_missed(name: str, mon: Monitor, after: float, first_idle: float) -> list[str]:
    """The targets every scenario shares: no health probe fails; memory 60 s after the scenario
    within 100 MB of the server's first idle level."""
    missed = [f"{mon.failures} health probes failed in {name}"] if mon.failures else []
    if after - first_idle > 100:
        missed.append(f"memory 60 s after {name} {after - first_idle:+.0f} MB on the first idle level")
    return missed


def note_failure(exc: BaseException) -> None:
    """Count a student's failure by its reason (printed under the scenario's line)."""
    reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
    FAILURES[reason] = FAILURES.get(reason, 0) + 1


def print_failures(what: str = "without a result") -> None:
    for reason, count in FAILURES.items():
        print(f"{'':>14}{count} {what}: {reason}", flush=True)
    FAILURES.clear()
