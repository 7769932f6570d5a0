"""Every page's first view on a fresh server after the start-up fill: drawn, and from the cache.

A server of its own (the session's server runs without the fill): a fresh, empty run cache, the
fill on and limited to the pages' default views (``RPO_WARM_ONLY``, so the test fills in about a
minute on an idle machine; ``python -m engine.bench --pages`` times the presets too). Its first
page view starts the fill; once the log says it is done, each page is opened in a new browser
session and must draw its chart with its run served from the cache (the server's log line "run
<page>: session-N asked: from the cache"), not computed. The seconds each view took are printed
(no assertion on them: the bench's table holds the numbers).
"""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from browser.live_app import VIEWPORT, streamlit_app, wait_for_chart
from engine.bench.first_views import registered_pages, url_path

pytestmark = pytest.mark.browser
FILL_TIMEOUT = 1200.0


@pytest.fixture(scope="module")
def filled_server(tmp_path_factory):
    """(base URL, log path) of a fresh server whose start-up fill has finished."""
    folder = tmp_path_factory.mktemp("first-views")
    log = folder / "streamlit.log"
    env = {"RPO_WARM": "1", "RPO_WARM_ONLY": "default view", "RPO_RUN_CACHE": str(folder / "runs"),
           "RPO_REAL_DATA_CACHE": str(folder / "cells")}
    with streamlit_app(log, env) as (base, _, _):
        yield base, log


def wait_for_log(log, pattern, timeout, start=0):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        match = re.search(pattern, log.read_text()[start:])
        if match:
            return match
        time.sleep(0.5)
    raise AssertionError(f"no log line /{pattern}/ after {timeout} s:\n{log.read_text()[-3000:]}")


def test_each_page_s_first_view_after_the_fill_comes_from_the_cache(filled_server, browser, screenshot_dir):
    url, log = filled_server
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(url)                                           # the server's first view starts the fill
    expect(page.get_by_role("heading", name="rpo-explorer").first).to_be_visible(timeout=120_000)
    context.close()
    wait_for_log(log, r"start-up fill: started \(process \d+", 60)
    done = wait_for_log(log, r"start-up fill: done: (\d+) views, (\d+) runs computed", FILL_TIMEOUT)
    assert int(done.group(1)) == len(registered_pages()) and int(done.group(2)) >= 4, done.group(0)
    print(f"\n[first views after the fill] {done.group(0)}")
    served = 0
    for path in registered_pages():
        start = len(log.read_text())
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.set_default_timeout(60_000)
        t0 = time.perf_counter()
        page.goto(f"{url}/{url_path(path)}")
        session = wait_for_log(log, r"(session-\d+) opened", 60, start).group(1)
        if path.endswith("benchmark.py"):       # its default view shows the estimate and a Run button, no chart
            expect(page.get_by_role("button", name=re.compile(r"^Run")).first).to_be_visible(timeout=60_000)
        else:
            wait_for_chart(page, timeout=60_000)
        seconds = time.perf_counter() - t0
        page.wait_for_timeout(500)
        asked = re.findall(rf"run \w+: {session} asked: (.*?) \[", log.read_text()[start:])
        assert all(a == "from the cache" for a in asked), (path, asked)
        served += bool(asked)
        print(f"[first view] {path}: chart drawn after {seconds:.1f} s; runs: {asked or 'none asked'}")
        page.screenshot(path=str(screenshot_dir / f"first_view_{url_path(path) or 'home'}.png"))
        context.close()
    assert served == int(done.group(2))          # every run the fill computed was a page's first view
    # no view computed anything after the fill
    assert "asked: new run" not in log.read_text()[done.end():]
