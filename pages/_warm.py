"""The server's start-up fill: open every first view as a student would, keep its finished runs.

Started by the server (``pages/_session.py``) as ``python -m pages._warm`` at nice 19, or by hand
before class (``nice -n 19 python -m pages._warm``: no browser, no server; the next server reads
what it wrote at once). Its run store writes every run it finishes to the start-up cache
(:mod:`engine.app.serving.warm_cache`; ``RPO_WARM_FILLING=1``, one run slot per process, one
thread, set here unless given). Each view of :func:`engine.app.page_content.first_views.first_views`
(every page's default view first, then the presets) is opened headless (Streamlit's AppTest: the
page's own code, so the run it asks for has the key a student's page will ask for), its runs
awaited, and one line printed per view (the server logs them). ``--workers N`` (default: the
cores, at most 2) splits the list between N processes, taking the views in turn, so the default
views come first in each. A view already in the cache costs only the page's script run; a run a
student's page is computing on the server is left to it (the server writes it for the fill).
"""
from __future__ import annotations

import os

for _name, _value in (("RPO_WARM_FILLING", "1"), ("RPO_MAX_JOBS", "1"), ("RPO_WARM", "0"),
                      ("RPO_CACHE_ENTRIES", "2"), ("OMP_NUM_THREADS", "1")):
    os.environ.setdefault(_name, _value)     # before the engine (OpenMP) and the store read them

import argparse
import logging
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.app.page_content.first_views import first_views
from engine.bench.first_views import registered_pages
from engine.app.serving.runstore import LOG_NAME
from engine.app.serving.warm_cache import FILL_LOG, WarmCache, cache_root

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SCRIPT_TIMEOUT = 300.0      # one script run of a page (its estimates included), on a loaded machine
RUN_TIMEOUT = 1800.0        # one view's runs
REPORT_SECONDS = 0.5
PARENT = os.environ.get("RPO_WARM_PARENT")   # the server's process id: the fill ends once it is gone


def orphaned() -> bool:
    """True once the server that started the fill is gone (killed without stopping it)."""
    return PARENT is not None and str(os.getppid()) != PARENT


def say(text: str) -> None:
    print(FILL_LOG % text, flush=True)


def page_tickets(at) -> list:
    """The tickets of the page runs this session asked for (``*_page_run`` entries)."""
    state = at.session_state
    names = [k for k in state if str(k).endswith("_page_run")]
    return [state[k]["job"] for k in names if state[k].get("job") is not None]


def await_runs(at) -> tuple[int, int, int, float]:
    """Wait for the view's runs, reporting their progress to the cache's markers; (computed, from the
    cache, taken over by another process, seconds). A page that starts a run only on its next script
    run (a follow-up) gets one."""
    seen, computed, cached, taken, t0 = set(), 0, 0, 0, time.perf_counter()
    for _ in range(3):
        new = [t for t in page_tickets(at) if id(t) not in seen]
        if not new:
            break
        for ticket in new:
            seen.add(id(ticket))
            if ticket.how == "cached":
                cached += 1
                continue
            if ticket.awaited:          # a student's page computes it on the server: left to it
                ticket.stop()
                taken += 1
                continue
            while not ticket.wait(REPORT_SECONDS) and time.perf_counter() - t0 < RUN_TIMEOUT and not orphaned():
                snap = ticket.snapshot()
                if ticket.key is not None:
                    ticket.store.warm.report(ticket.key, snap["fraction"], snap["message"])
            done = ticket.snapshot()["status"] == "done"
            if ticket.key is not None:
                deadline = time.perf_counter() + 60    # the store writes the file just after the run ends
                while done and ticket.key not in ticket.store.warm and time.perf_counter() < deadline:
                    time.sleep(0.05)
            computed += done
            if done and ticket.key is not None:
                say(f"computed run {ticket.key[:8]}")     # the key as the server's log names runs: never twice
        at.run()
    return computed, cached, taken, time.perf_counter() - t0


def fill(views: list[dict], part: str) -> tuple[int, int, int]:
    """Open each of ``views`` in turn (``part``: this worker's name in the log, "" alone); the totals
    (computed, already cached, taken over)."""
    totals = [0, 0, 0]
    for i, view in enumerate(views, 1):
        if orphaned():
            say(f"{part}stopped: the server has ended")
            break
        at = AppTest.from_file(APP, default_timeout=SCRIPT_TIMEOUT).run()
        at.switch_page(view["page"])
        for k, v in view["query_params"].items():
            at.query_params[k] = v
        try:
            at.run()
            computed, cached, taken, seconds = await_runs(at)
        except Exception as exc:  # noqa: BLE001 - one view failing leaves the others to fill
            say(f"{part}{i}/{len(views)} {view['label']}: failed ({type(exc).__name__}: {exc})")
            continue
        finally:
            for ticket in page_tickets(at):
                ticket.stop()
        errors = [e.value for e in at.exception]
        for j, n in enumerate((computed, cached, taken)):
            totals[j] += n
        what = "; ".join(t for t in (f"{computed} run(s) computed in {seconds:.1f} s" if computed else "",
                                     f"{cached} run(s) already cached" if cached else "",
                                     f"{taken} run(s) left to a student's page computing it" if taken else "") if t)
        say(f"{part}{i}/{len(views)} {view['label']}: {what or 'no run to keep'}"
            + (f"; page error: {errors[0][:200]}" if errors else ""))
    return tuple(totals)


DONE_RE = re.compile(r"done: (\d+) views, (\d+) runs computed, (\d+) already cached, (\d+) left")


def spawn_workers(n: int, match: str) -> tuple[int, list[int]]:
    """``n`` worker processes, each filling every n-th view; their lines passed on. (status: 0 when all
    ended well, [views, computed, cached, left to students] summed over the workers)."""
    env = {**os.environ, "RPO_WARM_PARENT": str(os.getpid())}
    workers = [subprocess.Popen([sys.executable, "-m", "pages._warm", "--match", match, "--part", f"{i}/{n}"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
               for i in range(n)]
    totals, lock = [0, 0, 0, 0], threading.Lock()

    def relay(worker):
        for line in worker.stdout:
            print(line, end="", flush=True)
            if (found := DONE_RE.search(line)) is not None:
                with lock:
                    for j, x in enumerate(found.groups()):
                        totals[j] += int(x)

    readers = [threading.Thread(target=relay, args=(w,), daemon=True) for w in workers]
    for r in readers:
        r.start()
    code = max(w.wait() for w in workers)
    for r in readers:
        r.join(5)
    return code, totals


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pages._warm", description=__doc__.splitlines()[0])
    parser.add_argument("--match", default="", help="only the views whose label contains this text")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="processes sharing the views (default: the cores, at most 2)")
    parser.add_argument("--part", default="", help=argparse.SUPPRESS)     # i/n: one worker's share
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be a positive integer, got {args.workers}")
    logging.getLogger(LOG_NAME).setLevel(logging.WARNING)    # the server logs the fill's own lines only
    t0 = time.perf_counter()
    views = [v for v in first_views(registered_pages()) if args.match in v["label"]]
    part, workers = "", min(args.workers, len(views)) or 1
    if args.part:
        i, n = (int(x) for x in args.part.split("/"))
        views, part = views[i::n], f"[{i + 1}/{n}] "
    else:
        for name in WarmCache(cache_root()).prune():
            say(f"removed the cache of engine {name} (unused for a week)")
        if workers > 1:
            say(f"{len(views)} first views to check in {workers} processes at nice {os.nice(0)}, one run at a time each")
            code, (n, computed, cached, taken) = spawn_workers(workers, args.match)
            say(f"done: {n} views, {computed} runs computed, {cached} already cached, {taken} left to "
                f"students' pages, in {time.perf_counter() - t0:.0f} s ({workers} processes)")
            return code
    say(f"{part}{len(views)} first views to check, one at a time at nice {os.nice(0)}")
    computed, cached, taken = fill(views, part)
    say(f"{part}done: {len(views)} views, {computed} runs computed, {cached} already cached, {taken} left to "
        f"students' pages, in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
