"""The Benchmark page's real-data mode in a real headless chromium: deep link, quick study, diagrams drawn."""
import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser


def wait_until_idle(page, timeout=30_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def test_real_data_mode_quick_study(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/benchmark?bench_mode=real-data+study&bench_rd_seed=0&bench_rd_datasets=edm"
              "&bench_rd_datasets=atp7d&bench_rd_datasets=emotions&bench_rd_datasets=birds",
              wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Benchmark", exact=True)).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    # Before a run: the paper's two diagrams, redrawn from its tables (two data sets of each kind below,
    # so that both diagrams of ours are drawn too).
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(charts).to_have_count(2, timeout=30_000)
    expect(page.get_by_text("The paper's critical-difference diagrams")).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "benchmark_real_data_before.png"), full_page=True)

    page.get_by_role("button", name="Run the study (quick,").click()
    stop = page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)
    expect(page.get_by_role("button", name="Run the study (quick,")).to_be_disabled(timeout=30_000)   # started
    expect(stop).to_be_disabled(timeout=240_000)               # the run is over, polling off
    expect(page.get_by_text("Partial results")).to_have_count(0)
    wait_until_idle(page)
    expect(page.get_by_text("Multi-label data sets (LRAP", exact=False).first).to_be_visible()
    expect(page.get_by_text("Multi-output regression data sets", exact=False).first).to_be_visible()
    # Diagrams: regression (8 methods), multi-label (8 methods), multi-label with BOOMER's two rows (10).
    labels = "(el, data) => data.filter(t => (t.hovertemplate || '').includes('average rank')).map(t => t.name)"
    names = [wait_for_chart(page, labels, "v => v.length > 0", index=i) for i in range(3)]
    assert sorted(len(n) for n in names) == [8, 8, 10]
    # one name per method, the tables' (issue 31: the diagram said br-gbrt where its table said st-gbrt)
    assert {"boomer", "boomer-non-decomposable", "st-gbrt", "st-rf"} <= set(sum(names, []))
    assert not {"br-gbrt", "br-rf"} & set(sum(names, []))
    expect(page.get_by_test_id("stDownloadButton")).to_have_count(3)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.wait_for_timeout(500)      # let the data grids paint
    page.screenshot(path=str(screenshot_dir / "benchmark_real_data_after.png"), full_page=True)
