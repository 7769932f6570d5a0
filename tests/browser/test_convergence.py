"""Real browser: the Convergence page (live training, Stop, presets, deep links)."""

import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart
from engine.plotting.convergence import LIVE_POINTS

pytestmark = pytest.mark.browser


def wait_until_idle(page, timeout=90_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


# [name, steps, points] per trace: a curve's steps (its meta; a curve longer than LIVE_POINTS steps is
# drawn through fewer, log-spaced points), else its points (a best or early-stop mark: 1)
POINTS = "(el, data) => data.map(t => [t.name, t.meta && t.meta.steps !== undefined ? t.meta.steps : (t.x ? t.x.length : 0), t.x ? t.x.length : 0])"


def plotted_points(page, condition, timeout=60_000):
    """Steps per trace of the convergence chart, once plotly.js holds what ``condition`` expects."""
    return wait_for_chart(page, POINTS, condition, timeout=timeout)


def traces_with(n, names):
    """JS condition: every one of ``names`` is drawn with ``n`` steps."""
    return f"v => {list(names)!r}.every(name => v.some(([m, k]) => m === name && k === {n}))"


def wait_for_a_run(page, timeout=120_000):
    """The default view starts training by itself when its probe-based estimate is small; on a busy
    machine the estimate can pass the auto-start limit: then press Start, as a user would."""
    status = page.get_by_text(re.compile(r"Status: (done|running|idle)"))
    expect(status).to_be_visible(timeout=timeout)
    wait_until_idle(page)
    if page.get_by_text(re.compile(r"Status: idle")).is_visible():
        page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Start", exact=True).click()
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=timeout)


def test_preset_live_training_stop_and_deep_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    link = page.get_by_role("link", name="Figure 1c: convergence on ind")
    expect(link).to_be_visible(timeout=30_000)
    link.click()

    # The preset configured the page, and the default view trained by itself.
    expect(page.get_by_role("heading", name="Convergence", exact=True)).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("radio", name="ind")).to_be_checked()
    expect(sidebar.get_by_role("slider", name="Boosting steps")).to_have_attribute("aria-valuetext", "10000")
    assert "conv_problem=ind" in page.url
    wait_for_a_run(page, timeout=240_000)   # 10 000 steps: every method to its plateau (issue 21)
    expect(page.get_by_text("st-gbrt ends best", exact=False)).to_be_visible()
    expect(page.get_by_text("Still rising at the last step", exact=False)).to_have_count(0)
    wait_until_idle(page)
    points = plotted_points(page, traces_with(10000, ["st-gbrt", "gbmort", "gbrt-rpo-subsampled"]))
    assert {name for name, n, _ in points if n == 10000} >= {"st-gbrt", "gbmort", "gbrt-rpo-subsampled"}
    # 10 000 steps drawn through at most LIVE_POINTS (+ the best and early-stop steps) log-spaced points
    assert all(1000 < drawn <= LIVE_POINTS + 2 for _, n, drawn in points if n == 10000)
    page.screenshot(path=str(screenshot_dir / "convergence_preset_ind.png"), full_page=True)

    # A longer run: most steps, largest test set; Start, watch it grow, Stop.
    for label in ("Boosting steps", "Test samples"):
        slider = sidebar.get_by_role("slider", name=label)
        slider.focus()
        page.keyboard.press("End")
        wait_until_idle(page)
    expect(sidebar.get_by_role("slider", name="Boosting steps")).to_have_attribute("aria-valuetext", "10000")
    # The server has rerun with both new values (the Start button carries the settings it was drawn with).
    expect(page.get_by_text("4000 test samples", exact=False)).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Start", exact=True).click()
    expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=15_000)
    expect(page.get_by_text(re.compile(r"Status: running"))).to_be_visible()
    page.wait_for_timeout(1500)
    page.screenshot(path=str(screenshot_dir / "convergence_running.png"), full_page=True)
    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop", exact=True).click()
    expect(page.get_by_text(re.compile(r"Status: stopped"))).to_be_visible(timeout=15_000)
    wait_until_idle(page)
    # The chart must catch up with the kept models: the last live frame (redrawn at most once a
    # second) can be hundreds of steps behind the step where the training thread saw the Stop.
    status = page.get_by_text(re.compile(r"Status: stopped")).inner_text()
    longest = int(re.search(r"longest (\d+) steps", status).group(1))
    assert 1 < longest < 10000
    points = plotted_points(page, f"v => v.some(([m, k]) => !(m || '').endsWith('best') && k === {longest})")
    kept = [n for name, n, _ in points if not name.endswith("best")]
    assert max(kept) == longest
    page.screenshot(path=str(screenshot_dir / "convergence_stopped.png"), full_page=True)

    # Step continues the stopped run's kept models (10 more steps, in the background): the longest
    # curve grows by exactly 10, the methods the stop never reached start with 10 steps.
    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Step +10", exact=True).click()
    expect(page.get_by_text(re.compile(r"Status: stepped"))).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    stepped = plotted_points(page, f"v => v.some(([m, k]) => k === {longest + 10})")
    assert max(n for name, n, _ in stepped if not (name or "").endswith("best")) == longest + 10
    page.screenshot(path=str(screenshot_dir / "convergence_stepped.png"), full_page=True)

    # A deep link sets every control.
    page.goto(f"{streamlit_server}/convergence?conv_problem=chain&conv_learning_rate=0.3&conv_max_leaf_nodes=4&conv_seed=5"
              "&conv_n_steps=500&conv_variants=gbmort&conv_variants=gbrt-rpo-gaussian", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Convergence", exact=True)).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("radio", name="chain")).to_be_checked()
    expect(sidebar.get_by_role("slider", name="Learning rate μ")).to_have_attribute("aria-valuetext", "0.30")
    expect(sidebar.get_by_role("slider", name="Leaves per tree")).to_have_attribute("aria-valuetext", "4")
    expect(sidebar.get_by_role("spinbutton", name="Seed")).to_have_value("5")
    expect(sidebar.get_by_role("slider", name="Boosting steps")).to_have_attribute("aria-valuetext", "500")
    wait_for_a_run(page)
    wait_until_idle(page)
    exact = "v => [...new Set(v.filter(([m, k]) => k === 500).map(([m]) => m))].sort().join() === 'gbmort,gbrt-rpo-gaussian'"
    names = {name for name, n, _ in plotted_points(page, exact) if n == 500}
    assert names == {"gbmort", "gbrt-rpo-gaussian"}
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "convergence_deep_link.png"), full_page=True)
