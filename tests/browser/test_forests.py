"""Forests page in a real headless Chromium: deep link, default run, chart data, screenshot."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def wait_until_idle(page, timeout=30_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def test_forests_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/forests?fx_exp=schemes&fx_data=emotions&fx_q=1,2,4&fx_trees=5&fx_seed=2",
              wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Forests")).to_be_visible(timeout=30_000)
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(chart).to_have_count(1, timeout=120_000)
    wait_until_idle(page)
    names = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => [t.name, t.x.length])")
    assert ["Gaussian", 3] in names and ["output sub-sampling", 3] in names
    expect(page.get_by_text("Seed 2", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "forests_schemes.png"), full_page=True)


def test_forests_default_view(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/forests", wait_until="domcontentloaded")
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    # the default is corel5k (374 labels, where the projection saves time): ~10 s alone, longer under load
    expect(chart).to_have_count(1, timeout=240_000)
    wait_until_idle(page, timeout=240_000)
    names = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => t.name)")
    # Algorithm 1, Algorithm 2, mo-rf (and its timed range), no single trees: off by default on wide data
    assert {"Algorithm 1 (shared projection)", "Algorithm 2 (projection per tree)", "mo-rf (original outputs)"} <= set(names)
    assert not any("single" in (n or "") for n in names)
    expect(page.get_by_text("Finished in", exact=False)).to_contain_text("Fit times:")
    expect(page.get_by_role("button", name="Run")).to_be_enabled()
    page.screenshot(path=str(screenshot_dir / "forests_default.png"), full_page=True)


def test_forests_variance_split_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/forests?fx_exp=variance&fx_structure=ind&fx_sets=4&fx_q=1,4&fx_trees=10",
              wait_until="domcontentloaded")
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(chart).to_have_count(1, timeout=180_000)
    wait_until_idle(page, timeout=60_000)
    bars = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => [t.name, t.y.length])")
    assert ["single tree: projection term", 2] in bars and len(bars) == 6  # 4 bar series, 2 predictions
    expect(page.get_by_text("never larger", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "forests_variance.png"), full_page=True)


def test_forests_variance_split_projection_term_near_zero(streamlit_server, browser_page, screenshot_dir):
    # Sub-sampling all 16 outputs changes nothing: the projection term is 0, and its unbiased
    # estimate for this seed comes out slightly negative; the log-scale chart marks it "≈ 0".
    page = browser_page
    page.goto(f"{streamlit_server}/forests?fx_exp=variance&fx_structure=ind&fx_proj=subsample&fx_sets=3"
              "&fx_q=16&fx_trees=10&fx_seed=0", wait_until="domcontentloaded")
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(chart).to_have_count(1, timeout=180_000)
    wait_until_idle(page, timeout=60_000)
    texts = page.evaluate("() => document.querySelector('.js-plotly-plot').data"
                          ".filter(t => t.mode === 'text').map(t => t.text)")
    assert texts == [["≈ 0"]]
    expect(page.get_by_text("q = 16: projection ≈ 0 + tree", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "forests_variance_zero.png"), full_page=True)


def test_forests_compression_preset(streamlit_server, browser_page, screenshot_dir):
    # Thesis Table 7.1's setting (friedman1, 100 extra trees, n_min = 1, 10-fold CV) from the Home preset's link.
    page = browser_page
    page.goto(f"{streamlit_server}/forests?fx_exp=compression&fx_cdata=friedman1&fx_trees=100&fx_nmin=1"
              "&fx_cv=10&fx_seed=0", wait_until="domcontentloaded")
    chart = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(chart).to_have_count(1, timeout=180_000)
    wait_until_idle(page, timeout=90_000)
    traces = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => t.name)")
    assert "rET, test set" in traces and "ET (uncompressed), test" in traces
    notes = page.evaluate("() => document.querySelector('.js-plotly-plot').layout.annotations.map(a => a.text)")
    assert any(n.startswith("t* = ") for n in notes)
    factor = page.get_by_test_id("stMetricValue")
    expect(factor).to_have_count(1)
    assert float(factor.inner_text().rstrip("×")) >= 10
    expect(page.get_by_text("indicator function", exact=False).first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "forests_compression.png"), full_page=True)


def test_forests_delicious_preset_runs_on_its_click_and_stops(streamlit_server, browser_page, screenshot_dir):
    """Thesis Figure 5.1 on the real delicious (issue 33): minutes of forests. The preset's link (go=1)
    starts them on its click, as the server's start-up fill does; Stop keeps what is done."""
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    link = page.get_by_role("link", name="Forests on delicious: thesis Figure 5.1")
    expect(link).to_be_visible(timeout=120_000)          # the Home page under a loaded machine
    link.click()
    expect(page.get_by_role("heading", name="Forests")).to_be_visible(timeout=30_000)
    stop = page.locator(".st-key-fx_stop button").first                   # the page's Stop (not the header's)
    expect(stop).to_be_enabled(timeout=60_000)                       # the run is on, no second click
    page.screenshot(path=str(screenshot_dir / "forests_delicious_running.png"), full_page=True)
    stop.click()
    expect(page.get_by_text("Stopped after", exact=False)).to_be_visible(timeout=600_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "forests_delicious_stopped.png"), full_page=True)
