"""Real browser: the two "Figure 6" presets, from the Home page to their charts.

"Figure 6 on delicious" opens the Projections page on the real delicious (12 920 x 500 sparse
inputs, 983 labels): minutes of work, so the page shows its estimate and a Run button; Run starts
it, Stop keeps what finished. "Figure 6 on bibtex" starts on the link's click and draws the score
and fit time against q next to gbmort and the constant model. The screenshots are the evidence a
reviewer looks at.
"""

import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart
from engine.app.page_content.presets import PRESETS

pytestmark = pytest.mark.browser

TRACES = "(el, data) => data.map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || [])}))"


def run_preset(page, server, label, dataset):
    (preset,) = [p for p in PRESETS if p["label"] == label]
    q_values = [int(q) for q in preset["query_params"]["proj_q_values"].split(",")]
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_role("link", name=label).click()
    page.wait_for_url(re.compile("projections"), timeout=30_000)   # values equal to the defaults leave the URL
    expect(page.locator("h1", has_text="Projections")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stSidebar")).to_contain_text(dataset)
    # go=1: the preset's click starts the run (issue 21), no Run button to press
    page.wait_for_url(lambda url: "go=1" not in url, timeout=60_000)
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(charts).to_have_count(2, timeout=180_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    traces = wait_for_chart(page, TRACES, "v => v.some(t => t.name.startsWith('relabel-rpo, after') && "
                            "t.y.length > 0 && t.y.every(y => Number.isFinite(y)))", timeout=60_000)
    by_name = {t["name"]: t for t in traces}
    score = next(t for name, t in by_name.items() if name.startswith("relabel-rpo, after"))
    assert score["x"] == q_values
    assert all(0.0 < y <= 1.0 for y in score["y"])                     # LRAP
    assert "gbmort (q → ∞)" in by_name and "constant model (step 0)" in by_name
    expect(page.get_by_text("Timed fits per model", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return by_name


def test_figure6_preset_on_delicious_runs_on_its_click_and_stops(streamlit_server, browser_page, screenshot_dir):
    """Figure 6 on the real delicious (issue 33): minutes cold. The preset's link (go=1) starts it on its
    click, as the server's start-up fill does; Stop keeps the models finished."""
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    link = page.get_by_role("link", name="Figure 6 on delicious")
    expect(link).to_be_visible(timeout=120_000)          # the Home page under a loaded machine
    link.click()
    page.wait_for_url(re.compile("projections"), timeout=30_000)
    expect(page.get_by_test_id("stSidebar")).to_contain_text("delicious", timeout=30_000)
    stop = page.get_by_role("button", name="Stop")
    expect(stop).to_be_visible(timeout=60_000)
    page.screenshot(path=str(screenshot_dir / "projections_figure6_delicious_running.png"), full_page=True)
    page.wait_for_timeout(15_000)                       # some steps of q = 1
    stop.click()
    expect(page.get_by_text("partial result", exact=False)).to_be_visible(timeout=180_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "projections_figure6_delicious_stopped.png"), full_page=True)


def test_figure6_preset_on_bibtex(streamlit_server, browser_page, screenshot_dir):
    by_name = run_preset(browser_page, streamlit_server, "Figure 6 on bibtex (real data)", "bibtex")
    constant = by_name["constant model (step 0)"]["y"][0]
    score = next(t for name, t in by_name.items() if name.startswith("relabel-rpo, after"))
    assert min(score["y"]) > constant + 0.1                           # the models learned (0.14 -> about 0.4)
    expect(browser_page.get_by_text("Takeaway.", exact=False)).to_be_visible()
    browser_page.screenshot(path=str(screenshot_dir / "projections_figure6_bibtex.png"), full_page=True)
