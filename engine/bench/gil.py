"""Bench of a page's run beside busy Python threads, under Python's GIL switch intervals.

    python -m engine.bench --gil [--repeats 1]

A Streamlit server runs every session's page script in a thread of one process, beside the
threads that compute runs. A run gives up the GIL at every numpy call or compiled section that
releases it, and a busy page thread then keeps it until the switch interval forces a switch
back: each such call can cost up to the interval. This bench runs the default views of the
Projections and Forests pages (:func:`engine.bench.pages.projections_default` and
``forests_default``, with the pages' own timing) in a thread, alone and beside
one busy pure-Python thread, at Python's default interval (5 ms) and at the server's
(``SWITCH_INTERVAL`` in ``pages/_session.py``, set when its run store starts), and prints the
wall time of each and the slowdown against alone. It also prints what the shorter interval costs
two pure-Python threads sharing the GIL. A measurement, not a test: no target.
"""
from __future__ import annotations

import sys
import threading
import time

from engine.bench.pages import forests_default, projections_default

INTERVALS = (0.005, 0.0001)      # Python's default and the server's (pages/_session.py)
RUNS = {"Projections": projections_default, "Forests": forests_default}


def _busy(stop: threading.Event) -> None:
    x = 0
    while not stop.is_set():
        x += 1


def timed(run, n_busy: int) -> float:
    """Wall seconds of ``run()`` in a thread of its own, beside ``n_busy`` busy Python threads."""
    stop = threading.Event()
    busy = [threading.Thread(target=_busy, args=(stop,), daemon=True) for _ in range(n_busy)]
    for t in busy:
        t.start()
    took = []

    def job():
        t0 = time.perf_counter()
        run()
        took.append(time.perf_counter() - t0)

    worker = threading.Thread(target=job)
    worker.start()
    worker.join()
    stop.set()
    for t in busy:
        t.join()
    return took[0]


def python_cost(interval: float, steps: int = 20_000_000) -> float:
    """Wall seconds of two pure-Python threads of ``steps // 2`` loop steps each, sharing the GIL."""
    def work():
        x = 0
        for i in range(steps // 2):
            x += i * 2 % 7

    old = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        threads = [threading.Thread(target=work) for _ in range(2)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - t0
    finally:
        sys.setswitchinterval(old)


def run(intervals=INTERVALS, repeats: int = 1, runs=tuple(RUNS)) -> list[str]:
    """Print and return one line per page run (of ``runs``) and interval (the best of ``repeats``)."""
    if not intervals or any(not (0 < float(i) <= 0.1) for i in intervals):
        raise ValueError(f"intervals must be seconds in (0, 0.1], got {intervals!r}")
    if int(repeats) < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    lines = []
    old = sys.getswitchinterval()
    try:
        for name in runs:
            page_run = RUNS[name]
            page_run()                                  # warm-up: data loaded and cached
            alone = min(timed(page_run, 0) for _ in range(repeats))
            parts = []
            for interval in intervals:
                sys.setswitchinterval(interval)
                beside = min(timed(page_run, 1) for _ in range(repeats))
                parts.append(f"{interval * 1000:g} ms {beside:.1f} s ({beside / alone:.1f}x)")
            sys.setswitchinterval(old)
            lines.append(f"{name:<12} default run alone {alone:.1f} s; beside one busy Python thread, switch interval "
                         + ", ".join(parts))
            print(lines[-1], flush=True)
        costs = [f"{interval * 1000:g} ms {python_cost(interval):.2f} s" for interval in intervals]
        lines.append("two pure-Python threads sharing the GIL (the same work at each interval): " + ", ".join(costs))
        print(lines[-1], flush=True)
    finally:
        sys.setswitchinterval(old)
    return lines
