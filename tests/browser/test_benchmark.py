"""Benchmark page in a real headless chromium: deep link, quick run, table and heatmap drawn."""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser


def wait_until_idle(page, timeout=30_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def test_deep_link_quick_run(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/benchmark?bench_dataset=friedman1-chain&bench_seed=3", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Benchmark", exact=True)).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    # the deep link set the controls; before any run the paper's Table 4 is shown
    expect(page.get_by_test_id("stSidebar").get_by_text("friedman1-chain (synthetic, 300 train / 4000 test)")).to_be_visible()
    expect(page.get_by_text("The paper's Table 4 on friedman1-chain")).to_be_visible()
    expect(page.get_by_text("Seed 3 ·")).to_be_visible()
    expect(page.get_by_role("button", name="Run quick benchmark")).to_be_enabled()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.wait_for_timeout(500)  # let the data grid paint (a skeleton otherwise)
    page.screenshot(path=str(screenshot_dir / "benchmark_before.png"), full_page=True)

    # the default run: Table 4's five methods, the two scikit-learn reference rows, then XGBoost's and the
    # engine's defaults (the peers, on by default since issue 42)
    expect(page.get_by_role("checkbox", name="scikit-learn reference rows")).to_be_checked()
    expect(page.get_by_role("checkbox", name="XGBoost and the engine's defaults")).to_be_checked()
    page.get_by_role("button", name="Run quick benchmark").click()
    charts = page.locator('[data-testid="stPlotlyChart"] .js-plotly-plot')
    expect(charts).to_have_count(2, timeout=180_000)
    expect(page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)).to_be_disabled(timeout=180_000)  # job over, polling off
    wait_until_idle(page)

    summary = "(el, data) => data.map(t => [t.type, t.name, (t.x || t.z || []).length])"
    scores = wait_for_chart(page, summary, "v => v.length > 0 && v[0][2] === 9", index=0)
    pvalues = wait_for_chart(page, summary, "v => v.length > 0 && v[0][2] === 9", index=1)
    assert scores[0][0] == "scatter" and scores[0][2] == 9  # five Table 4 methods + 2 references + 2 peers
    assert any(name and name.startswith("paper") for _, name, _ in scores)
    assert pvalues[0][0] == "heatmap" and pvalues[0][2] == 9
    ticks = wait_for_chart(page, "(el, data) => Array.from(data[0].x || [])", "v => v.length === 9", index=1)
    assert {"sklearn-gb", "sklearn-rf", "xgboost", "defaults"} <= set(ticks)
    finite = wait_for_chart(page, "(el, data) => Array.from(data[0].z, r => Array.from(r, Number.isFinite))",
                            "v => v.length === 9", index=1)
    assert finite == [[i != j for j in range(9)] for i in range(9)]  # every off-diagonal p-value, no diagonal
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    expect(page.get_by_text("friedman1-chain: test macro-r2")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stDownloadButton")).to_have_count(4)

    query = parse_qs(urlparse(page.url).query)
    assert query.get("bench_dataset") == ["friedman1-chain"] and query.get("bench_seed") == ["3"]
    page.screenshot(path=str(screenshot_dir / "benchmark_after.png"), full_page=True)


def test_home_preset_opens_benchmark(streamlit_server, browser_page, screenshot_dir):
    # A Home preset is one click: it opens the page set up for Table 4 and runs it (go=1).
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    page.get_by_role("link", name="Table 4: all methods on chain (then group / ind)").click()
    expect(page.get_by_role("heading", name="Benchmark", exact=True)).to_be_visible(timeout=30_000)
    slider = page.get_by_role("slider", name="Repeats (random splits)")
    expect(slider).to_have_attribute("aria-valuetext", "5")
    assert "bench_dataset=friedman1-chain" in page.url
    expect(page.get_by_text("friedman1-chain: test macro-r2")).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)).to_be_disabled(timeout=240_000)
    wait_until_idle(page)
    # the finished run is read against the paper's Table 4 (computed sentence, not a fixed one)
    expect(page.get_by_text("the paper's: ", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_table6_preset_run(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    page.get_by_role("link", name="Table 6: 16 noisy outputs on group").click()
    expect(page.get_by_role("heading", name="Benchmark", exact=True)).to_be_visible(timeout=30_000)
    expect(page.get_by_role("slider", name="Extra noisy outputs (Table 6)")).to_have_attribute("aria-valuetext", "16")
    # the preset started its five-repeat run at once; stop it and run a cheaper one
    stop = page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)
    expect(stop).to_be_enabled(timeout=60_000)
    stop.click()
    expect(stop).to_be_disabled(timeout=60_000)
    wait_until_idle(page)
    page.get_by_test_id("stSidebar").get_by_text("scikit-learn reference rows", exact=True).click()   # sklearn-gb on 32 outputs: slow
    expect(page.get_by_role("checkbox", name="scikit-learn reference rows")).not_to_be_checked()
    wait_until_idle(page)
    page.get_by_role("slider", name="Repeats (random splits)").focus()
    page.keyboard.press("Home")            # 2 repeats: a few seconds
    expect(page.get_by_test_id("stSidebar").get_by_text("Seed 0 ·")).to_be_visible()
    wait_until_idle(page)
    # 2 repeats x (5 methods x 5 settings on validation + 2 peers fitted once each) = 54
    expect(page.get_by_text(" fits · estimated", exact=False)).to_contain_text("54 fits")
    page.get_by_role("button", name="Run quick benchmark").click()
    expect(page.get_by_text("friedman1-group: test macro-r2")).to_be_visible(timeout=90_000)
    expect(page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)).to_be_disabled(timeout=90_000)
    wait_until_idle(page)
    names = wait_for_chart(page, condition="v => v.includes('paper (Table 6)')")
    assert "paper (Table 6)" in names
    expect(page.get_by_text("half-macro-r2 scores the real outputs only", exact=False)).to_be_visible()
    page.wait_for_timeout(500)
    page.screenshot(path=str(screenshot_dir / "benchmark_table6.png"), full_page=True)


def test_defaults_beside_the_papers_method_on_a_shipped_set(streamlit_server, browser_page, screenshot_dir):
    # Issue 34: "defaults" (the estimator as a practitioner gets it) is a row of a quick comparison
    # on a shipped data set, beside gbmort with its settings selected on validation.
    page = browser_page
    page.goto(f"{streamlit_server}/benchmark?bench_dataset=enb&bench_estimators=gbmort&bench_estimators=defaults"
              "&bench_refs=false&bench_peers=false", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Benchmark", exact=True)).to_be_visible(timeout=90_000)
    wait_until_idle(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("defaults", exact=True)).to_be_visible()      # a chosen estimator's tag
    page.get_by_role("button", name="Run quick benchmark").click()
    expect(page.get_by_text("enb: test macro-r2")).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("stMain").get_by_role("button", name="Stop", exact=True)).to_be_disabled(timeout=120_000)
    wait_until_idle(page)
    ticks = wait_for_chart(page, "(el, data) => Array.from(data[0].x || [])", "v => v.length === 2", index=1)
    assert set(ticks) == {"gbmort", "defaults"}
    means = wait_for_chart(page, "(el, data) => [Array.from(data[0].y || []), Array.from(data[0].x || [])]",
                           "v => v[0].length === 2", index=0)
    assert set(means[0]) == {"gbmort", "defaults"} and all(0.5 < m <= 1.0 for m in means[1])   # macro-r2 on enb
    page.get_by_text("Chosen hyper-parameters per repeat").click()
    expect(page.get_by_text("defaults has the estimator's own", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.wait_for_timeout(500)  # let the data grids paint
    page.screenshot(path=str(screenshot_dir / "benchmark_defaults.png"), full_page=True)
