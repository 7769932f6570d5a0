"""Real browser: the Bias–variance and Projections pages opened by deep links (see conftest.py)."""

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser


def wait_for_charts(page, n, timeout=60_000):
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(charts).to_have_count(n, timeout=timeout)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)
    return charts


def trace_lengths(page, index, condition):
    """Points per trace of chart ``index``, once plotly.js holds what ``condition`` expects."""
    return wait_for_chart(page, "(el, data) => data.map(t => (t.y || []).length)", condition, index=index,
                          timeout=60_000)


def test_bias_variance_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_problem=group&bv_sweep=n_estimators&bv_max_leaf_nodes=2"
              "&bv_compare_leaves=8&bv_seed=0", wait_until="domcontentloaded")
    expect(page.locator("h1", has_text="Bias–variance")).to_be_visible()
    wait_for_charts(page, 3)
    stacked = trace_lengths(page, 0, "v => v.length > 0 && v.every(n => n === 6)")
    assert stacked and all(n == 6 for n in stacked)  # stacked: every trace has one point per value of M
    curves = trace_lengths(page, 2, "v => v.length > 0 && v.every(n => n === 101)")
    assert curves and all(n == 101 for n in curves)  # curves on the slice
    expect(page.get_by_text("Takeaway.")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "bias_variance.png"), full_page=True)


def test_projections_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/projections?proj_seed=0", wait_until="domcontentloaded")
    expect(page.locator("h1", has_text="Projections")).to_be_visible()
    wait_for_charts(page, 2)
    # the page opens on bibtex (d = 159: engine.app.page_content.page_defaults) with q = 1 and 10 / 20 / 50 % of d
    q = wait_for_chart(page, "(el, data) => Array.from(data[0].x)", "v => v.length === 4")
    assert list(q) == [1, 16, 32, 80]
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "projections.png"), full_page=True)
    # the schemes experiment, switched in the sidebar; the URL follows
    page.get_by_test_id("stSidebar").get_by_text("schemes", exact=True).click()
    wait_for_charts(page, 2)
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_contain_text("projection scheme")
    assert "proj_experiment=schemes" in page.url
    page.screenshot(path=str(screenshot_dir / "projections_schemes.png"), full_page=True)


def test_bias_variance_of_a_forest_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_estimator=rf-gaussian-per-tree&bv_sweep=n_estimators"
              "&bv_values=1,4,16&bv_n_sets=4&bv_n_seeds=2&bv_n_projections=2&bv_seed=0", wait_until="domcontentloaded")
    expect(page.locator("h1", has_text="Bias–variance")).to_be_visible()
    wait_for_charts(page, 3)
    stacked = trace_lengths(page, 0, "v => v.length > 0 && v.every(n => n === 3)")
    assert stacked and all(n == 3 for n in stacked)
    expect(page.get_by_text("rf-gaussian-per-tree", exact=False).first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "bias_variance_forest.png"), full_page=True)
