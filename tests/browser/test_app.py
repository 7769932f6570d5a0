"""Real browser: the live app in headless Debian chromium (see conftest.py).

Run `sh tests/install_browser.sh` first; these tests fail when chromium is missing.
"""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser
# expect()'s default is 5 s; a cold first run on 2 busy cores (imports, plotly) can take longer.
expect.set_options(timeout=15_000)

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
    shapes = wait_for_chart(page, "(el, data) => data.map(t => [t.name, t.z.length, t.z[0].length])", "v => v.length === 3")
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


# --- Data page --------------------------------------------------------------------------------

MALFORMED_CSV = b"a,b,t\n1,2,3\n4,5\n6,7,8\n"


def test_data_page_deep_link_and_bad_upload(fresh_server, browser_page, request_log, screenshot_dir):
    # A server of its own (conftest's fresh_server): the deep link below must be the *first* request it
    # ever serves. A fresh Streamlit server stays in its legacy pages/ mode until some run calls
    # st.navigation, so a first request for /data would run pages/data.py without app.py.
    page = browser_page
    page.goto(f"{fresh_server}/data?data_problem=group&data_seed=7&data_n_outputs=5&data_noisy_outputs=2", wait_until="domcontentloaded")
    # first run of a fresh server: imports and the rerun out of the legacy mode take ~5-9 s
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=30_000)
    wait_until_idle(page)

    # app.py ran (sidebar frame, our navigation), not Streamlit's legacy pages/ mode
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("rpo-explorer")).to_be_visible()
    expect(sidebar.get_by_role("link", name="Home")).to_be_visible()

    # the controls took the URL's values
    expect(sidebar.get_by_role("radiogroup", name="Output structure").get_by_role("radio", name="group")).to_be_checked()
    expect(sidebar.get_by_role("slider", name="Outputs (d)")).to_have_attribute("aria-valuetext", "5")
    expect(sidebar.get_by_role("slider", name="Extra noisy outputs")).to_have_attribute("aria-valuetext", "2")
    expect(sidebar.get_by_role("spinbutton", name="Seed")).to_have_value("7")

    # both charts drawn with the data of those settings
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(charts).to_have_count(2)
    expect(charts.first.locator(".heatmaplayer image").first).to_be_attached()
    z = wait_for_chart(page, "(el, data) => data[0].z.length", "v => v === 7")
    assert z == 7  # 5 outputs + 2 noisy
    names = wait_for_chart(page, "(el, data) => data.filter(t => t.mode === 'markers').map(t => t.name)",
                           "v => v.length === 4", index=1)
    assert names == ["y1", "y3", "y5", "noise1"]
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "data_deep_link.png"), full_page=True)

    # switch to an upload: the URL follows, a malformed CSV gives a readable error, no crash
    sidebar.get_by_text("upload", exact=True).click()
    uploader = sidebar.get_by_test_id("stFileUploader")
    expect(uploader).to_be_visible()
    wait_until_idle(page)
    assert "data_source=upload" in page.url and "data_problem=group" in page.url
    uploader.locator('input[type="file"]').set_input_files(
        {"name": "bad.csv", "mimeType": "text/csv", "buffer": MALFORMED_CSV}
    )
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("malformed CSV: line 3 has 2 fields")
    expect(error).to_contain_text("bad.csv")
    wait_until_idle(page)
    expect(page.get_by_text("The other pages keep using: friedman1-group")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "data_bad_upload.png"), full_page=True)

    # the app keeps working: back to Home
    sidebar.get_by_role("link", name="Home").click()
    expect(page.get_by_role("heading", name=HOME_TITLE)).to_be_visible()
    assert external(request_log) == []
