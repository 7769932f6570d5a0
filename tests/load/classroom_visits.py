"""The other rows of issue 23's table, rerun with real browsers on the class's server.

:mod:`load.classroom` measures a class watching one run. These scenarios are the rest of
what a class does to one server (issue 23 measured each before the run store existed):

* ``tour``: every student opens the Convergence, Bias-variance, Projections and Forests pages
  in turn, each with its default settings (so each page's run is the same for the whole class),
  first one student alone (the reference), then ``n`` students within ``spread`` seconds. Per
  page: how the runs were served, time to result server-side (from the server's log) and in the
  browser (until the page's result text shows). The issue's run: Projections never finished in
  any of 10 sessions within 120 s.
* ``close``: ``n`` students open the class preset with a seed each and press Start together
  (``n`` distinct long runs, so most wait in the queue); ``close_after`` seconds later half of
  them close their tab. From the server's log (:func:`run_events`, :func:`closed_runs`), what
  became of each closed tab's run: stopped, taken out of the queue, or ended before the tab's
  close reached the server; none may go on computing for nobody. And the time to result of the
  others, against the queue's share of the work.
* ``reloads``: one student trains the class preset while another reloads the Convergence page
  ``n`` times in a row, twice, 10 s apart. Per reload, the time until the page shows its
  status; exceptions in the server's log; memory.

Every scenario runs under :class:`load.classroom_tools.Monitor` (health probes, peak memory)
and is followed by 60 s of quiet before the memory is read again: the targets shared with the
class scenarios (no probe fails, memory within 100 MB of the first idle level) hold for each.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import types

from load.classroom_tools import (DONE_TEXT, RESULT_TIMEOUT, RUN_ENDED, RUN_LEFT_QUEUE, RUN_STOPPED, SERVER_ASKED,
                                  SERVER_DONE, SESSION_CLOSED, Monitor, Ready, cpu_seconds, load_missed, load_text,
                                  log_time, note_failure, print_failures, result_text, server_times, spread_text,
                                  student)
from engine.app.serving.memory import resident_mb

__all__ = ["SCENARIOS", "TOUR", "tour", "close_tabs", "reloads", "run_events", "closed_runs"]

SCENARIOS = ("tour", "close", "reloads")
# (run name in the server's log, page link with the tour's seed, text the page shows with its result)
TOUR = (("conv", "/convergence?conv_seed={seed}", DONE_TEXT),
        ("bv", "/bias_variance?bv_seed={seed}", "Takeaway."),
        ("proj", "/projections?proj_seed={seed}", "Takeaway."),
        ("fx", "/forests?fx_seed={seed}", "Finished in"))
STATUS_TEXT = "Status:"          # the Convergence page's status line, drawn on every page run
QUIET_SECONDS = 60.0             # after a scenario, before memory is read again


async def _context(browser):
    return await browser.new_context(viewport={"width": 1280, "height": 1600})


async def _measure(server, work, lower_when: threading.Event | None = None):
    """Run the coroutine ``work`` under a Monitor (which keeps the browsers' autogroups at the
    server's ``group_nice``, once ``lower_when`` is set); return its result and the load figures."""
    idle, cpu0, wall0 = resident_mb(server.pid), cpu_seconds(server.pid), time.time()
    with Monitor(server.base, server.pid, server.group_nice, lower_when) as mon:
        out = await work
    cpu = cpu_seconds(server.pid) - cpu0
    server.log.flush()
    await asyncio.sleep(QUIET_SECONDS)
    load = types.SimpleNamespace(idle=idle, mon=mon, cpu=cpu, after=resident_mb(server.pid), wall0=wall0)
    return out, load


def run_events(log_path: str, since: float) -> dict:
    """The run store's story after ``since`` (time.time()) from the server's log: ``asked``
    {session: run key (its first ask)}, ``closed`` {session: time}, ``stopped`` and ``left`` {run key:
    time} (nobody watched it / waited for it), ``ended`` {run key: (time, status, sessions watching)},
    ``drawn`` {sessions that drew a finished run}."""
    events = {"asked": {}, "closed": {}, "stopped": {}, "left": {}, "ended": {}, "drawn": set()}
    with open(log_path, errors="replace") as f:
        for line in f:
            if (m := SERVER_ASKED.match(line)) and log_time(m["stamp"]) >= since:
                events["asked"].setdefault(m["session"], m["key"])
            elif (m := SESSION_CLOSED.match(line)) and log_time(m["stamp"]) >= since:
                events["closed"][m["session"]] = log_time(m["stamp"])
            elif (m := RUN_STOPPED.match(line)) and log_time(m["stamp"]) >= since:
                events["stopped"][m["key"]] = log_time(m["stamp"])
            elif (m := RUN_LEFT_QUEUE.match(line)) and log_time(m["stamp"]) >= since:
                events["left"][m["key"]] = log_time(m["stamp"])
            elif (m := RUN_ENDED.match(line)) and log_time(m["stamp"]) >= since:
                events["ended"][m["key"]] = (log_time(m["stamp"]), m["status"], int(m["watchers"]))
            elif (m := SERVER_DONE.match(line)) and log_time(m["stamp"]) >= since:
                events["drawn"].add(m["session"])
    return events


def closed_runs(events: dict) -> dict[str, int]:
    """What became of the runs of the sessions that closed before drawing a result: stopped, taken out of the queue, ended
    before the tab closed (nothing left to stop), shared with a session still open, or still
    computing after the close (``kept computing``: the failure); and ``for nobody``: runs that
    ran to the end with no session watching."""
    count = {"stopped": 0, "taken out of the queue": 0, "ended before the tab closed": 0,
             "still watched by others": 0, "kept computing": 0}
    def watched_after(key, session, t):        # another session that asked for the run was still open
        return any(k == key and o != session and events["closed"].get(o, float("inf")) > t
                   for o, k in events["asked"].items())

    for session, closed in events["closed"].items():
        key = events["asked"].get(session)
        if key is None or session in events["drawn"]:
            continue                             # closed before it asked for a run, or after its result
        if key in events["stopped"]:
            count["stopped"] += 1
        elif key in events["left"]:
            count["taken out of the queue"] += 1
        elif key in events["ended"] and events["ended"][key][0] <= closed:
            count["ended before the tab closed"] += 1
        elif watched_after(key, session, closed):
            count["still watched by others"] += 1
        else:
            count["kept computing"] += 1
    count["for nobody"] = sum(1 for _, status, watching in events["ended"].values()
                              if status == "done" and watching == 0)
    return count


def _errors(server, since: float) -> list[str]:
    """The exceptions the server logged after ``since``: each traceback's last line."""
    errors, inside, recent = [], False, False
    with open(server.log_path, errors="replace") as f:
        for line in f:
            try:
                recent = log_time(line[:23]) >= since
            except ValueError:
                pass
            if recent and line.startswith("Traceback"):
                inside = True
            elif inside and line.strip() and not line.startswith((" ", "\t", "Traceback", "During handling",
                                                                    "The above exception")):
                errors.append(line.rstrip())
                inside = False
    return errors


# --- the tour of four pages ---------------------------------------------------------------------

async def _tourist(browser, base: str, seed: int, delay: float, times: dict) -> None:
    await asyncio.sleep(delay)
    context = await _context(browser)
    try:
        page = await context.new_page()
        for run, link, marker in TOUR:
            t0 = time.perf_counter()
            try:
                await page.goto(base + link.format(seed=seed), wait_until="domcontentloaded", timeout=120_000)
                await page.get_by_text(marker).first.wait_for(timeout=RESULT_TIMEOUT * 1000)
                times[run].append(time.perf_counter() - t0)
            except Exception as exc:  # noqa: BLE001 - a page without its result counts as missing
                note_failure(exc)
                times[run].append(None)
    finally:
        await context.close()


async def tour(browser, server, n: int, seed: int, spread: float) -> list[str]:
    """One student alone, then ``n`` within ``spread`` s, through the four pages; returns missed targets."""
    missed = []
    reference: dict[str, tuple[float | None, float | None]] = {}
    for name, k, seed_k in (("tour-alone", 1, seed), (f"tour-{n}", n, seed + 1)):
        times = {run: [] for run, _, _ in TOUR}
        _, load = await _measure(server, asyncio.gather(
            *(_tourist(browser, server.base, seed_k, spread * i / max(k - 1, 1), times) for i in range(k))))
        print(f"{name:>12}: four pages, each with its default settings" + load_text(
            load.mon, load.idle, load.after, server.first_idle, load.cpu), flush=True)
        for run, link, _ in TOUR:
            got = [t for t in times[run] if t is not None]
            side, run_seconds, served = server_times(server.log_path, load.wall0, run)
            alone = reference.get(run, (None, None))
            print(f"{'':>14}{link.split('?')[0]}: " + result_text(got, k, served, run_seconds, side, alone), flush=True)
            if k == 1:
                reference[run] = (side[0] if side else None, got[0] if got else None)
            elif len(got) < k:
                missed.append(f"{k - len(got)} of {name} without a result on {link.split('?')[0]}")
        print_failures()
        missed += load_missed(name, load.mon, load.after, server.first_idle)
    return missed


# --- tabs closed while their runs compute or wait ------------------------------------------------

async def close_tabs(browser, server, preset: str, n: int, seed: int, close_after: float = 10.0) -> list[str]:
    """``n`` distinct long runs started together; the odd students close their tab ``close_after`` s
    after pressing Start.

    ``browser`` should run at the server's priority (not nice 19) until the tabs have closed: once
    two runs take both cores, a nice-19 browser gets about 1 % of them and takes a minute to deliver
    a click or a tab's close (measured: every closed tab reached the server after its run had
    ended), which a student's own machine would not. Once the last tab has closed, its autogroups
    go to the server's ``group_nice`` (at the server's priority throughout, the 10 tabs made the
    runs 3.5x slower). Every page is loaded before anyone presses Start, so the queue fills."""
    name = f"close-{n}"
    closing = [i % 2 == 1 for i in range(n)]
    urls = [f"{server.base}{preset}&conv_seed={seed + i}" for i in range(n)]
    ready, all_closed, left = Ready(n), threading.Event(), [sum(closing)]

    async def one(url, closes):
        t = await student(browser, url, time.perf_counter(), 0.0, ready, close_after if closes else None)
        if closes:
            left[0] -= 1
            if not left[0]:
                all_closed.set()
        return t

    times, load = await _measure(server, asyncio.gather(*(one(u, c) for u, c in zip(urls, closing))),
                                 lower_when=all_closed)
    kept = [t for t, c in zip(times, closing) if not c]
    got = [t for t in kept if t is not None]
    n_closed = sum(closing)
    fate = closed_runs(run_events(server.log_path, load.wall0))     # the tabs closed before their result
    side, _, _ = server_times(server.log_path, load.wall0)
    slots = server.max_jobs
    fates = ", ".join(f"{k} {v}" for k, v in fate.items() if k != "for nobody")
    line = (f"{name:>12}: {n} runs of their own, started together (the browsers at the server's priority "
            f"until the closes); {n_closed} tabs closed {close_after:.0f} s after Start; their runs: {fates}; "
            f"runs computed to the end for nobody: {fate['for nobody']}; "
            f"the open tabs: {len(got)}/{len(kept)} got their result")
    if side:
        line += f", server-side {spread_text(side, None)}"
    if got:
        line += f", in the browser {spread_text(got, None)}"
    if server.alone:
        share = math.ceil(len(kept) / slots) * server.alone
        line += (f" (the queue's share of the work: {len(kept)} runs of {server.alone:.1f} s on {slots} slots, "
                 f"about {share:.0f} s)")
    print(line + load_text(load.mon, load.idle, load.after, server.first_idle, load.cpu), flush=True)
    print_failures()
    missed = load_missed(name, load.mon, load.after, server.first_idle)
    if fate["kept computing"] or fate["for nobody"]:
        missed.append(f"{name}: {fate['kept computing']} closed tabs' runs kept computing, "
                      f"{fate['for nobody']} runs computed to the end for nobody")
    if len(got) < len(kept):
        missed.append(f"{len(kept) - len(got)} of {name}'s open tabs without a result")
    return missed


# --- a reload storm beside a training session -----------------------------------------------------

async def _reloader(browser, base: str, seed: int, n: int, storms: int, pause: float) -> list[float | None]:
    context = await _context(browser)
    times: list[float | None] = []
    try:
        page = await context.new_page()
        await page.goto(f"{base}/convergence?conv_seed={seed}", wait_until="domcontentloaded", timeout=120_000)
        await page.get_by_text(STATUS_TEXT).first.wait_for(timeout=RESULT_TIMEOUT * 1000)
        for storm in range(storms):
            if storm:
                await asyncio.sleep(pause)
            for _ in range(n):
                t0 = time.perf_counter()
                try:
                    await page.reload(wait_until="domcontentloaded", timeout=120_000)
                    await page.get_by_text(STATUS_TEXT).first.wait_for(timeout=60_000)
                    times.append(time.perf_counter() - t0)
                except Exception as exc:  # noqa: BLE001
                    note_failure(exc)
                    times.append(None)
    finally:
        await context.close()
    return times


async def reloads(browser, server, preset: str, n: int, seed: int, storms: int = 2, pause: float = 10.0) -> list[str]:
    """One student trains the preset; another reloads the Convergence page ``n`` times, ``storms`` times."""
    name = f"reloads-{n}"
    trainer = student(browser, f"{server.base}{preset}&conv_seed={seed}&go=1", time.perf_counter(), 0.0)
    (trained, times), load = await _measure(server, asyncio.gather(
        trainer, _reloader(browser, server.base, seed + 1, n, storms, pause)))
    got = [t for t in times if t is not None]
    errors = _errors(server, load.wall0)
    _, run_seconds, _ = server_times(server.log_path, load.wall0)      # the longest: the trainer's run
    line = f"{name:>12}: {storms} x {n} reloads of /convergence, {len(got)}/{len(times)} drew their status"
    if got:
        line += f" ({spread_text(got, None)} per reload)"
    line += f"; {len(errors)} exceptions in the server's log; the training session beside them: "
    line += "no result" if trained is None else f"its result after {trained:.1f} s in the browser"
    if run_seconds is not None:
        line += f", the run computed in {run_seconds:.1f} s"
        if server.alone:
            line += f" ({run_seconds / server.alone:.1f}x alone)"
    print(line + load_text(load.mon, load.idle, load.after, server.first_idle, load.cpu), flush=True)
    for e in errors[:5]:
        print(f"{'':>14}{e[:200]}", flush=True)
    print_failures("failed")
    missed = load_missed(name, load.mon, load.after, server.first_idle)
    if errors:
        missed.append(f"{len(errors)} exceptions in the server's log during {name}")
    if len(got) < len(times) or trained is None:
        missed.append(f"{name}: {len(times) - len(got)} reloads failed" + ("; the training session got no result"
                                                                         if trained is None else ""))
    return missed
