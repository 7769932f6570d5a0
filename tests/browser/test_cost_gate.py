"""One link cannot tie up the class server (issue 31), in a real browser on a fresh server:

* ``/forests?fx_q=100000`` on corel5k (374 labels) is clamped to q = 374 with a visible note naming
  the parameter, the value given and the value used; what then runs is the small gated run of q = 374,
  and the server is idle once it has ended (its CPU time measured with psutil);
* a link whose run is over the limit even within the widgets' ranges (9 values of q, 100 trees,
  5 repeats, single trees too: about 20 minutes) is refused with a visible note naming the estimate
  and the limit, and the server stays idle;
* a long forest run stopped with its Stop button, and one whose tab is closed, end within about a
  second: the run's worker process is gone and the server process is idle again; the page says one
  thing about how the run ended.

The server is this module's own (a fresh ``streamlit run app.py``), so that its CPU time is only
what these pages cost.
"""
from __future__ import annotations

import time

import psutil
import pytest
from playwright.sync_api import expect

from browser.live_app import VIEWPORT, streamlit_app

pytestmark = pytest.mark.browser

IDLE = 0.3          # CPU seconds per second: "idle" (a busy run holds about 1)
STOP_BOUND = 1.0    # seconds from Stop (or the tab closing) to the run's end
# corel5k, 9 values of q up to its 374 labels, 50 trees a forest: about 2 minutes estimated, above the
# auto-start limit (it waits for its button)
LONG_RUN = "/forests?fx_exp=size&fx_data=corel5k&fx_q=1,2,5,10,20,50,100,200,374&fx_trees=50"
# the same with 100 trees, 5 repeats and single trees: about 20 minutes, over the limit
OVER_LIMIT = LONG_RUN.replace("fx_trees=50", "fx_trees=100&fx_repeats=5&fx_single=True")


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory):
    """(base URL, psutil.Process) of a server started for this module alone."""
    folder = tmp_path_factory.mktemp("gate-server")
    log = folder / "streamlit.log"
    with streamlit_app(log, {"RPO_WARM": "0", "RPO_RUN_CACHE": str(folder / "runs")}) as (base, proc, _):
        yield base, psutil.Process(proc.pid)
    print(log.read_text()[-3000:])


def cpu(process):
    times = process.cpu_times()
    return times.user + times.system


def cpu_rate(process, seconds):
    """CPU seconds per second of ``process`` over the next ``seconds``."""
    before = cpu(process)
    time.sleep(seconds)
    return (cpu(process) - before) / seconds


def fit_workers(server):
    return [p for p in server.children(recursive=True) if "engine.experiments.worker" in " ".join(p.cmdline())]


def run_worker(server, timeout=120.0):
    """The worker process computing the run, once the spare worker beside it is idle.

    A run takes the spare worker started before it (or a new one) and starts the next spare, which
    spends a few CPU seconds importing the engine: waiting for that keeps its imports out of the
    measurements after the stop. The run's worker is the older of the two."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        workers = sorted(fit_workers(server), key=lambda p: p.create_time())
        if len(workers) == 2 and cpu_rate(workers[1], 0.5) < 0.02:
            return workers[0]
        time.sleep(0.5)
    raise AssertionError(f"no run worker beside an idle spare after {timeout} s: {fit_workers(server)}")


def server_rate(server, seconds):
    """CPU seconds per second of the server and every process it started, over ``seconds``."""
    processes = [server, *server.children(recursive=True)]
    before = {p.pid: cpu(p) for p in processes}
    time.sleep(seconds)
    total = 0.0
    for p in processes:
        try:
            total += cpu(p) - before[p.pid]
        except psutil.NoSuchProcess:
            pass
    return total / seconds


def gone_within(process, seconds):
    """Seconds until ``process`` has ended (asserts it ends within ``seconds``)."""
    t0 = time.perf_counter()
    try:
        process.wait(timeout=seconds)
    except psutil.TimeoutExpired:
        raise AssertionError(f"the run's worker process still runs {seconds} s after the stop") from None
    return time.perf_counter() - t0


def start_long_run(page, base):
    page.goto(base + LONG_RUN, wait_until="domcontentloaded")
    expect(page.get_by_text("This run is estimated at", exact=False)).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Run (≈").click()
    expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=30_000)


def test_a_huge_q_in_a_link_is_clamped_with_a_note_and_runs_small(fresh_server, browser_page, screenshot_dir):
    base, server = fresh_server
    page = browser_page
    page.goto(f"{base}/forests?fx_data=corel5k&fx_q=100000", wait_until="domcontentloaded")
    note = page.get_by_text("100000 → 374", exact=False).first     # "... of q (d = 374 outputs): 100000 → 374"
    expect(note).to_be_visible(timeout=60_000)
    # what runs is q = 374 (about 10 s estimated); once it has ended the server is idle again
    expect(page.get_by_text("Finished in", exact=False)).to_be_visible(timeout=300_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    rate = server_rate(server, 3.0)
    assert rate < IDLE, f"the server spent {rate:.2f} CPU s per s after the clamped run"
    page.screenshot(path=str(screenshot_dir / "gate_clamped.png"), full_page=True)


def test_a_link_over_the_limit_is_refused_and_the_server_stays_idle(fresh_server, browser_page, screenshot_dir):
    base, server = fresh_server
    page = browser_page
    before = {p.pid for p in fit_workers(server)}     # a spare worker an earlier run left ready may be there
    page.goto(base + OVER_LIMIT, wait_until="domcontentloaded")
    note = page.get_by_text("above this app's limit", exact=False)
    expect(note).to_be_visible(timeout=60_000)
    expect(note).to_contain_text("fewer or smaller values of q")
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_disabled()
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=30_000)
    rate = server_rate(server, 5.0)
    assert rate < IDLE, f"the server spent {rate:.2f} CPU s per s after refusing the run"
    assert {p.pid for p in fit_workers(server)} <= before      # nothing was started
    page.screenshot(path=str(screenshot_dir / "gate_refused.png"), full_page=True)


def test_stop_ends_a_long_forest_run_within_a_second(fresh_server, browser_page, screenshot_dir):
    base, server = fresh_server
    page = browser_page
    start_long_run(page, base)
    worker = run_worker(server)
    page.get_by_role("button", name="Stop").click()
    clicked = time.perf_counter()
    waited = gone_within(worker, STOP_BOUND)
    print(f"[timing] the run's worker ended {waited:.2f} s after the Stop click "
          f"({time.perf_counter() - clicked:.2f} s)")
    rate = server_rate(server, 1.0)
    assert rate < IDLE, f"the server spent {rate:.2f} CPU s per s after the stop"
    ending = page.get_by_text("Stopped after", exact=False)
    expect(ending).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Finished in", exact=False)).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "gate_stopped.png"), full_page=True)


def test_closing_the_tab_ends_the_run_within_a_second(fresh_server, browser):
    base, server = fresh_server
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    start_long_run(page, base)
    worker = run_worker(server)
    context.close()                              # the tab (and its session) goes
    waited = gone_within(worker, STOP_BOUND)
    print(f"[timing] the run's worker ended {waited:.2f} s after the tab closed")
    rate = server_rate(server, 1.0)
    assert rate < IDLE, f"the server spent {rate:.2f} CPU s per s after the tab closed"
