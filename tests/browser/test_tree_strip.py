"""Real browser: the first trees of a Convergence run, drawn side by side and linked to the curve."""

import re

import pytest
from playwright.sync_api import expect

from browser.test_convergence import wait_for_a_run, wait_until_idle

pytestmark = pytest.mark.browser

MARKS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(
    el => (el._fullData || []).filter(t => t.meta && t.meta.kind === 'tree_mark').map(t => t.meta.estimator))"""


def test_tree_strip_marks_a_step_on_the_curve(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?conv_problem=chain&conv_n_steps=20&conv_n_test=200&conv_max_leaf_nodes=4"
              "&conv_variants=st-gbrt&conv_variants=gbrt-rpo-gaussian", wait_until="domcontentloaded")
    wait_for_a_run(page)
    wait_until_idle(page)
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_role("heading", name="The first trees, side by side")).to_be_visible(timeout=30_000)
    expect(main.get_by_role("button", name="step 8", exact=True)).to_be_visible()
    main.get_by_role("button", name="step 3", exact=True).click()
    expect(main.get_by_role("button", name="✓ step 3")).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    page.wait_for_function(f"() => ({MARKS})().length === 1", timeout=30_000)
    assert page.evaluate(MARKS) == ["st-gbrt"]
    page.get_by_role("heading", name="The first trees, side by side").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "convergence_tree_strip.png"), full_page=True)
