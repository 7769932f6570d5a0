"""Real browser: the Projections page's race against XGBoost on bibtex, from the expander to its chart."""
import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart
from engine.experiments.time_to_accuracy import plt_installed, xgboost_installed

pytestmark = pytest.mark.browser

TRACES = "(el, data) => data.map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || [])}))"


def test_the_race_on_bibtex(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/projections", wait_until="domcontentloaded")
    expect(page.locator("h1", has_text="Projections")).to_be_visible(timeout=30_000)
    page.get_by_text("Against XGBoost: test score against fit seconds", exact=False).click()
    page.get_by_role("button", name="Run the race").click()
    # The race's chart: the engine's curve first, XGBoost's and napkinXC's PLT where installed.
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot').first
    expect(chart).to_be_visible(timeout=300_000)
    traces = wait_for_chart(page, TRACES, "v => v.some(t => (t.name || '').startsWith('engine') && t.y.length > 2)",
                            timeout=300_000)
    names = [t["name"] for t in traces if t["name"]]
    assert names[0].startswith("engine") and any(n.startswith("XGBoost") for n in names) == xgboost_installed()
    assert any(n.startswith("napkinXC PLT") for n in names) == plt_installed()      # issue 46: one point
    engine = next(t for t in traces if (t["name"] or "").startswith("engine"))
    assert all(0.0 < y <= 1.0 for y in engine["y"]) and engine["x"] == sorted(engine["x"])
    expect(page.get_by_text(re.compile("best LRAP"))).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "projections_race_bibtex.png"), full_page=True)
