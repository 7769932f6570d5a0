"""Real browser (issue 42): one upload, its targets picked by prefix, a run on it on every compute page
(tiny budgets) whose caption names the file, then a reload that finds the upload still there, and a
link naming a file the server does not hold: the notice, and no run.

Each page is opened by its address with the ``data=`` the address bar carries (a reload of the tab, a
copied link: a new session each time), so every page also shows that the choice survives a reload.
"""
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
expect.set_options(timeout=90_000)      # this test's pages run fits on a shared 2-core machine

FILE = "labels_demo.csv"
NAMED = "labels_demo (uploaded CSV"        # how every page's caption names the file


def many_targets_csv(n=160, labels=8):
    """Four features around eight 0/1 labels tag_00 ... tag_07 (so "last k" would not pick them)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    Y = (X[:, :1] + X[:, 1:2] * np.linspace(-1, 1, labels) + 0.5 * rng.normal(size=(n, labels)) > 0).astype(int)
    head = ["f0", "f1"] + [f"tag_{j:02d}" for j in range(labels)] + ["f2", "f3"]
    rows = [",".join(head)] + [",".join([f"{X[i, 0]:.3f}", f"{X[i, 1]:.3f}", *map(str, Y[i]), f"{X[i, 2]:.3f}",
                                         f"{X[i, 3]:.3f}"]) for i in range(n)]
    return ("\n".join(rows) + "\n").encode()


def idle(page, timeout=90_000):
    """No script run in progress, twice a second apart (a page's first view can rerun once at once)."""
    for _ in range(2):
        page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)
        page.wait_for_timeout(1000)


def no_exception(page):
    expect(page.get_by_test_id("stException")).to_have_count(0)


def charts_drawn(page):
    """Every chart on the page drawn (plotly's SVG attached), the mouse away from any tooltip."""
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for k in range(charts.count()):
        expect(charts.nth(k).locator(".main-svg").first).to_be_attached()
    page.mouse.move(5, 5)
    page.wait_for_timeout(500)


def open_page(page, base, path, token, **params):
    query = "&".join([f"data={token}"] + [f"{k}={v}" for k, v in params.items()])
    page.goto(f"{base}/{path}?{query}", wait_until="domcontentloaded")
    expect(page.get_by_text(NAMED).first).to_be_visible()     # the page says which data it uses
    idle(page)


def test_one_upload_on_every_page_and_after_a_reload(streamlit_server, browser_page, screenshot_dir):
    page, base = browser_page, streamlit_server
    page.set_default_timeout(90_000)
    expect.set_options(timeout=90_000)
    page.goto(f"{base}/data?data_source=upload", wait_until="domcontentloaded")
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(
        {"name": FILE, "mimeType": "text/csv", "buffer": many_targets_csv()})
    expect(page.get_by_text("Targets (1)")).to_be_visible()            # the last column by default...
    idle(page)
    sidebar.get_by_role("radiogroup", name="Targets").get_by_text("prefix", exact=True).click(force=True)
    idle(page)
    page.screenshot(path=str(screenshot_dir / "upload_data_rule.png"), full_page=True)
    box = sidebar.get_by_role("textbox", name="Target names start with")
    box.fill("tag_")
    box.press("Enter")
    expect(page.get_by_text("Targets (8)")).to_be_visible()            # ...then all eight in one move
    expect(page.get_by_text("Features (4)")).to_be_visible()
    idle(page)
    no_exception(page)
    token = parse_qs(urlparse(page.url).query)["data"][0]
    assert token.startswith("upload_") and token.endswith("_comma_prefix-tag_")
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_data.png"), full_page=True)

    # Convergence: a 10-step run of gbmort trains by itself on the upload; LRAP, the labels' score
    open_page(page, base, "convergence", token, conv_problem="data", conv_variants="gbmort", conv_n_steps="10")
    expect(page.get_by_text("Status: done")).to_be_visible()
    expect(page.get_by_text("test LRAP").first).to_be_visible()
    no_exception(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_convergence.png"), full_page=True)

    # One step: its problem is the upload, a step is taken on it
    open_page(page, base, "one_step", token, os_problem="data")
    page.get_by_role("button", name="Step ▶").click()
    idle(page)
    no_exception(page)
    page.screenshot(path=str(screenshot_dir / "upload_one_step.png"), full_page=True)

    # Forests: forests on projected outputs, q = 1 and 2, two trees each, start by themselves
    open_page(page, base, "forests", token, fx_trees="2", fx_q="1,2")
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
    no_exception(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_forests.png"), full_page=True)

    # Bias–variance: two disjoint learning sets from the file's rows
    open_page(page, base, "bias_variance", token, bv_data_methods="gbmort", bv_data_sets="2", bv_data_steps="5")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_timeout(3000)
    page.screenshot(path=str(screenshot_dir / "upload_bias_variance_started.png"), full_page=True)
    expect(page.get_by_text("Lowest expected error")).to_be_visible()
    no_exception(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_bias_variance.png"), full_page=True)

    # Projections: the race on the upload, the engine, its defaults and XGBoost
    # (and the q sweep of the sidebar, on the upload too, 10 steps: it starts by itself)
    open_page(page, base, "projections", token, proj_race_dataset="data", proj_race_steps="10", proj_race_rounds="5",
              proj_n_steps="10")
    page.get_by_role("button", name="Run the race").click()
    page.wait_for_timeout(3000)
    idle(page)
    page.screenshot(path=str(screenshot_dir / "upload_projections_started.png"), full_page=True)
    expect(page.get_by_text("best LRAP").first).to_be_visible()
    expect(page.get_by_text("XGBoost: defaults").first).to_be_visible()
    no_exception(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_projections.png"), full_page=True)

    # Benchmark: gbmort beside the engine's defaults and XGBoost's, quick budget
    open_page(page, base, "benchmark", token, bench_dataset="data-page", bench_estimators="gbmort",
              bench_refs="false")
    page.get_by_role("button", name="Run quick benchmark").click()
    expect(page.get_by_text("2 of 2 repeats")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    for name in ("gbmort", "defaults", "xgboost"):
        expect(table).to_contain_text(name)
    no_exception(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_benchmark.png"), full_page=True)

    # a reload of the Data page: the same file, the same eight targets
    page.goto(f"{base}/data?data_source=upload&data={token}", wait_until="domcontentloaded")
    expect(page.get_by_text(f"{FILE}, kept on this server")).to_be_visible()
    page.reload(wait_until="domcontentloaded")
    expect(page.get_by_text(f"{FILE}, kept on this server")).to_be_visible()
    expect(page.get_by_text("Targets (8)")).to_be_visible()
    idle(page)
    charts_drawn(page)
    page.screenshot(path=str(screenshot_dir / "upload_reloaded.png"), full_page=True)

    # a link naming a file this server does not hold: the notice, and nothing runs
    gone = token.replace(token.split("_")[1], "0123456789abcdef")
    page.goto(f"{base}/convergence?data={gone}&conv_problem=data&conv_variants=gbmort&conv_n_steps=10",
              wait_until="domcontentloaded")
    expect(page.get_by_text("the uploaded file is not on this server any more: upload it again")).to_be_visible()
    idle(page)
    expect(page.get_by_text("Status: idle")).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "upload_gone.png"), full_page=True)
