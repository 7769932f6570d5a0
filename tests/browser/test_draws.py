"""Real browser: Draw 1 / Draw 25 on the Bias–variance page."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

THIN = """() => [...document.querySelectorAll('.js-plotly-plot')].map(
    el => (el._fullData || []).filter(t => t.name === 'one draw').length).reduce((a, b) => Math.max(a, b), 0)"""


def test_draw_one_and_draw_25(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_n_sets=3&bv_n_train=100&bv_n_test=100&bv_values=1,10,30&bv_compare_leaves=none",
              wait_until="domcontentloaded")
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_role("heading", name="One draw, many draws")).to_be_visible(timeout=60_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    page.screenshot(path=str(screenshot_dir / "bias_variance_before_draws.png"), full_page=True)
    main.get_by_role("button", name="Draw 1", exact=True).click()
    expect(page.get_by_text(re.compile(r"After 1 draw: bias²"))).to_be_visible(timeout=30_000)
    page.wait_for_function(f"() => ({THIN})() === 1", timeout=30_000)
    main.get_by_role("button", name="Draw 25", exact=True).click()
    expect(page.get_by_text(re.compile(r"After 26 draws: bias²"))).to_be_visible(timeout=60_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    page.wait_for_function(f"() => ({THIN})() === 26", timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').last
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(screenshot_dir / "bias_variance_draws.png"))


TERM_POINTS = """(name) => [...document.querySelectorAll('.js-plotly-plot')].map(
    el => (el._fullData || []).filter(t => t.name === name).map(t => t.y.length)).flat()
    .reduce((a, b) => Math.max(a, b), 0)"""


def test_draws_on_a_projected_forest_show_the_projection_and_tree_terms(streamlit_server, browser_page,
                                                                        screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_estimator=rf-gaussian-shared&bv_n_sets=3&bv_n_train=100&bv_n_test=100"
              "&bv_values=1,20&bv_n_projections=2", wait_until="domcontentloaded")
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_role("heading", name="One draw, many draws")).to_be_visible(timeout=60_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    expect(main.get_by_text(re.compile(r"rf-gaussian-shared = Algorithm 1, one projection shared"))).to_be_visible()
    main.get_by_role("button", name="Draw 1", exact=True).click()
    expect(page.get_by_text(re.compile(r"After 1 draw of rf-gaussian-shared: bias²"))).to_be_visible(timeout=30_000)
    main.get_by_role("button", name="Draw 25", exact=True).click()
    expect(page.get_by_text(re.compile(r"After 26 draws of rf-gaussian-shared: bias²"))).to_be_visible(timeout=90_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60_000)
    expect(page.get_by_text(re.compile(r"projection term [0-9.e-]+ \+ tree term [0-9.e-]+"))).to_be_visible()
    for name in ("projection term Φ", "tree term θ", "algorithm variance (measured)", "bias²"):
        page.wait_for_function(f"() => ({TERM_POINTS})({name!r}) === 26", timeout=30_000)
    page.wait_for_function(f"() => ({THIN})() === 26", timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').last
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(screenshot_dir / "bias_variance_forest_draws.png"))
    text = main.get_by_text(re.compile(r"The algorithm variance, split"))
    text.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "bias_variance_forest_draws_text.png"))
