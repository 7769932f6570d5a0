"""A class on one server: many real browser sessions against one ``streamlit run app.py``.

Reruns the scenarios of issue 23 and prints the figures (a measurement, not a test)::

    python -m engine.bench --classroom                       # 20 and 30 sessions
    python -m engine.bench --classroom --sessions 8 --max-jobs 2

Needs the test extras (Playwright) and Debian's chromium (``sh tests/install_browser.sh``).

Each student is a headless Chromium browser context (Debian's chromium, as tests/browser).
Scenarios, each on a fresh seed so nothing is cached from the one before:

* ``alone``: one session opens the Convergence preset; its time to result is the reference;
* ``same-N``: N sessions open the same preset within a few seconds (the class follows the
  teacher's link);
* ``distinct``: N sessions each open the preset with their own seed (N different runs: the
  queue's wait).

Printed per scenario: time to result per session (min / median / max), how many got their
result, health probe failures (a GET of /_stcore/health every 2 s, 5 s timeout, while the
scenario runs), and the server's resident memory (idle before, peak, and 60 s after the last
session closed). Targets (issue 23): in ``same-30`` every session gets its result within 2 x
``alone``; no probe fails; memory within 100 MB of idle 60 s after the sessions close.
"""

from __future__ import annotations

import asyncio
import os
import types
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from engine.dashboard.memory import resident_mb

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]      # as tests/browser (nothing phones home)

PRESET = "/convergence?problem=ind&n_steps=2000"
DONE_TEXT = "Status: done"
RESULT_TIMEOUT = 300.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not healthy after {timeout}s")


class Monitor:
    """Samples the server's memory every 0.5 s and probes its health every 2 s, in a thread."""

    def __init__(self, base: str, pid: int) -> None:
        self.base, self.pid = base, pid
        self.peak = 0.0
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
            if time.perf_counter() >= next_probe:
                next_probe = time.perf_counter() + 2.0
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


async def student(browser, url: str, started: float, delay: float) -> float | None:
    """Open ``url`` after ``delay`` seconds; seconds from the scenario's start to the result, or None."""
    await asyncio.sleep(delay)
    context = await browser.new_context(viewport={"width": 1280, "height": 1600})
    try:
        page = await context.new_page()
        await page.goto(url, wait_until="domcontentloaded", timeout=120_000)
        await page.get_by_text(DONE_TEXT).first.wait_for(timeout=RESULT_TIMEOUT * 1000)
        return time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - a session that did not get its result counts as missing
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        FAILURES[reason] = FAILURES.get(reason, 0) + 1
        return None
    finally:
        await context.close()


async def scenario(browser, base: str, urls: list[str], spread: float) -> list[float | None]:
    started = time.perf_counter()
    n = len(urls)
    return await asyncio.gather(*(student(browser, base + u, started, spread * i / max(n - 1, 1))
                                  for i, u in enumerate(urls)))


def report(name: str, times: list[float | None], mon: Monitor, idle: float, after: float, reference: float | None,
           cpu: float = float("nan")):
    got = [t for t in times if t is not None]
    line = f"{name:>12}: {len(got)}/{len(times)} got their result"
    if got:
        line += f"; time to result min {min(got):.1f} s, median {statistics.median(got):.1f} s, max {max(got):.1f} s"
    if reference and got:
        line += f" ({max(got) / reference:.1f}x alone)"
    line += (f"; health probes {mon.failures} of {mon.probes} failed (slowest {mon.worst_probe:.2f} s)"
             f"; memory idle {idle:.0f} MB, peak {mon.peak:.0f} MB, 60 s after {after:.0f} MB"
             f"; server CPU {cpu:.0f} s")
    print(line, flush=True)
    for reason, count in FAILURES.items():
        print(f"{'':>14}{count} without a result: {reason}", flush=True)
    FAILURES.clear()
    return got


async def main_async(args) -> int:
    from playwright.async_api import async_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if args.max_jobs:
        env["RPO_MAX_JOBS"] = str(args.max_jobs)
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    log = open(args.log, "w")
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    missed = 0
    try:
        wait_healthy(base + "/_stcore/health", proc)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # warm-up: one visit loads the modules (not measured), then the server is idle
            await scenario(browser, base, [PRESET + "&seed=999"], 0)
            await asyncio.sleep(10)
            seed = 1000
            reference = None
            plan = [("alone", 1, False)] + [(f"same-{n}", n, False) for n in args.sessions] + \
                   ([(f"distinct-{args.sessions[0]}", args.sessions[0], True)] if args.distinct else [])
            for name, n, distinct in plan:
                seed += 100
                idle = resident_mb(proc.pid)
                cpu0 = cpu_seconds(proc.pid)
                urls = [f"{PRESET}&seed={seed + (i if distinct else 0)}" for i in range(n)]
                with Monitor(base, proc.pid) as mon:
                    times = await scenario(browser, base, urls, spread=0 if n == 1 else args.spread)
                cpu = cpu_seconds(proc.pid) - cpu0
                await asyncio.sleep(60)
                after = resident_mb(proc.pid)
                got = report(name, times, mon, idle, after, reference, cpu)
                if name == "alone" and got:
                    reference = got[0]
                if name.startswith("same-") and reference and n == max(args.sessions):
                    missed += (len(got) < n or max(got) > 2 * reference + args.spread)
                    missed += mon.failures > 0
                    missed += after - idle > 100
            await browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    print(f"targets missed: {missed}" if missed else "targets met", flush=True)
    return 1 if missed else 0


def run(sessions=(20, 30), max_jobs=0, spread=5.0, distinct=False, log="/tmp/classroom-streamlit.log") -> int:
    """Run the scenarios and print their figures; 1 when a target of the largest class is missed."""
    if not sessions or any(int(n) < 1 for n in sessions):
        raise ValueError(f"sessions must be positive class sizes, got {sessions!r}")
    if int(max_jobs) < 0 or float(spread) < 0:
        raise ValueError("max_jobs and spread must be >= 0")
    args = types.SimpleNamespace(sessions=[int(n) for n in sessions], max_jobs=int(max_jobs), spread=float(spread),
                                 distinct=bool(distinct), log=log)
    return asyncio.run(main_async(args))
