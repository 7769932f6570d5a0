"""Real browser: the live app in headless Debian chromium (see conftest.py).

Run `sh tests/install_browser.sh` first; these tests fail when chromium is missing.
"""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

HOME_TITLE = "Multi-output gradient boosting with random output projections"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def wait_until_idle(page, timeout=30_000):
    """The status widget ("Running...") is attached while a script run is in progress."""
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def external(urls):
    """URLs that leave the machine (data: and blob: URLs never do)."""
    return [u for u in urls if urlparse(u).scheme in {"http", "https", "ws", "wss"} and urlparse(u).hostname not in LOCAL_HOSTS]


def test_home_renders_offline(streamlit_server, browser_page, request_log, screenshot_dir):
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")

    expect(page.get_by_role("heading", name=HOME_TITLE)).to_be_visible()
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(chart).to_have_count(1)
    expect(chart.locator(".heatmaplayer image").first).to_be_attached()  # heatmaps actually drawn
    wait_until_idle(page)

    # plotly.js holds the three heatmaps we sent, 16 x 16 each
    shapes = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullData.map(t => [t.name, t.z.length, t.z[0].length])")
    assert shapes == [["chain", 16, 16], ["group", 16, 16], ["ind", 16, 16]]

    # the frame: the paper link in the sidebar (Streamlit shows the page navigation only once
    # two or more pages are registered), the presets section on the page
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("link", name="Gradient tree boosting with random output projections")).to_have_attribute(
        "href", "https://arxiv.org/abs/1905.07558"
    )
    expect(page.get_by_role("heading", name="Presets")).to_be_visible()

    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "home.png"), full_page=True)

    assert request_log, "no request was recorded"
    assert external(request_log) == []
