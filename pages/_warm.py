"""The server's start-up fill: open every first view as a student would, keep its finished runs.

Started by the server (``pages/_session.py``) as ``python -m pages._warm`` at nice 19, with one
run slot (``RPO_MAX_JOBS=1``) and ``RPO_WARM_FILLING=1``: its run store writes every run it
finishes to the start-up cache (:mod:`engine.app.serving.warm_cache`). Each view of
:func:`engine.app.page_content.first_views.first_views` is opened headless (Streamlit's AppTest: the
page's own code, so the run it asks for has the key a student's page will ask for), its runs
awaited, and one line printed per view (the server logs them). A view already in the cache
costs only the page's script run. Run by hand, it fills the cache for the next server:
``RPO_WARM_FILLING=1 RPO_MAX_JOBS=1 python -m pages._warm``.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.app.page_content.first_views import first_views
from engine.app.serving.runstore import LOG_NAME
from engine.app.serving.warm_cache import FILL_LOG, WarmCache, cache_root
from pages._deeplink import REGISTERED_PAGES_KEY

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


def await_runs(at) -> tuple[int, int, float]:
    """Wait for the view's runs, reporting their progress to the cache's markers; (computed, from the
    cache, seconds). A page that starts a run only on its next script run (a follow-up) gets one."""
    seen, computed, cached, t0 = set(), 0, 0, time.perf_counter()
    for _ in range(3):
        new = [t for t in page_tickets(at) if id(t) not in seen]
        if not new:
            break
        for ticket in new:
            seen.add(id(ticket))
            if ticket.how == "cached":
                cached += 1
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
                ticket.store.warm.end(ticket.key)
            computed += done
        at.run()
    return computed, cached, time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pages._warm", description=__doc__.splitlines()[0])
    parser.add_argument("--match", default="", help="only the views whose label contains this text")
    args = parser.parse_args(argv)
    logging.getLogger(LOG_NAME).setLevel(logging.WARNING)    # the server logs the fill's own lines only
    t0 = time.perf_counter()
    at = AppTest.from_file(APP, default_timeout=SCRIPT_TIMEOUT).run()
    views = [v for v in first_views(at.session_state[REGISTERED_PAGES_KEY]) if args.match in v["label"]]
    say(f"{len(views)} first views to check, one at a time at nice {os.nice(0)}")
    for name in WarmCache(cache_root()).prune():
        say(f"removed the cache of engine {name} (unused for a week)")
    totals = [0, 0]
    for i, view in enumerate(views, 1):
        if orphaned():
            say("stopped: the server has ended")
            return 1
        at = AppTest.from_file(APP, default_timeout=SCRIPT_TIMEOUT).run()
        at.switch_page(view["page"])
        for k, v in view["query_params"].items():
            at.query_params[k] = v
        try:
            at.run()
            computed, cached, seconds = await_runs(at)
        except Exception as exc:  # noqa: BLE001 - one view failing leaves the others to fill
            say(f"{i}/{len(views)} {view['label']}: failed ({type(exc).__name__}: {exc})")
            continue
        finally:
            for ticket in page_tickets(at):
                ticket.stop()
        errors = [e.value for e in at.exception]
        totals[0] += computed
        totals[1] += cached
        what = (f"{computed} run(s) computed in {seconds:.1f} s" if computed else
                f"{cached} run(s) already cached" if cached else "no run to keep")
        say(f"{i}/{len(views)} {view['label']}: {what}" + (f"; page error: {errors[0][:200]}" if errors else ""))
    say(f"done: {len(views)} views, {totals[0]} runs computed, {totals[1]} already cached, "
        f"in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
