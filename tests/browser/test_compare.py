"""Real browser: Pin, Clear pin and Reset on the Bias–variance page (pages/_compare.py, issue 32)."""

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser


def names(page, condition):
    """The trace names of the page's first chart, once plotly.js holds what ``condition`` expects."""
    return wait_for_chart(page, "(el, data) => data.map(t => t.name)", condition, index=0, timeout=90_000)


def test_pin_clear_and_reset_on_bias_variance(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_n_sets=3&bv_values=1,10,30&bv_compare_leaves=none&bv_seed=3",
              wait_until="domcontentloaded")
    expect(page.locator("h1", has_text="Bias–variance")).to_be_visible()
    current = names(page, "v => v.length > 0")
    page.get_by_role("button", name="Pin", exact=True).click()
    seed = page.get_by_test_id("stSidebar").get_by_label("Seed", exact=True)
    seed.fill("4")
    seed.press("Enter")
    both = names(page, f"v => v.length === {2 * len(current)}")
    assert both == [f"pinned · {n}" for n in current] + current
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    expect(chart).to_contain_text("pinned: seed = 3")          # the legend group's title, drawn by plotly.js
    assert "bv_seed=4" in page.url
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "compare_pinned.png"), full_page=True)
    page.get_by_role("button", name="Clear pin", exact=True).click()
    assert names(page, f"v => v.length === {len(current)}") == current
    page.get_by_test_id("stSidebar").get_by_role("button", name="Reset", exact=True).click()
    expect(seed).to_have_value("0", timeout=30_000)
    page.wait_for_function("() => !window.location.search.includes('bv_')", timeout=30_000)
    expect(page.get_by_test_id("stSidebar").get_by_label("Values", exact=True)).to_have_value("")
    page.screenshot(path=str(screenshot_dir / "compare_reset.png"), full_page=True)
