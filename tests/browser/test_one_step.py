"""Real browser: the One step page (Step, Back, Play, a shared link) and the drawn tree."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TREE_TEXTS = """(el, data) => data.flatMap(t => t.text || [])"""


def idle(page, timeout=60_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def main(page):
    return page.get_by_test_id("stMainBlockContainer")


def step_shown(page):
    return main(page).get_by_label("Step shown", exact=True)


def tree_texts(page):
    """Texts of the drawn tree (the plotly chart whose traces are named split / leaf)."""
    return page.evaluate("""() => {
        for (const el of document.querySelectorAll('.js-plotly-plot')) {
            const names = (el._fullData || []).map(t => t.name);
            if (names.includes('split') || names.includes('leaf')) return el._fullData.flatMap(t => t.text || []);
        }
        return null;
    }""")


def test_step_back_play_and_a_shared_link(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/one_step", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="One step", exact=True)).to_be_visible(timeout=30_000)
    idle(page)
    expect(page.get_by_text("Step 0: the model is the constant")).to_be_visible()

    main(page).get_by_role("button", name="Step ▶").click()
    expect(page.get_by_text(re.compile(r"Step 1\. The root split is"))).to_be_visible(timeout=30_000)
    idle(page)
    assert "os_step=1" in page.url
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some("
                           "el => (el._fullData || []).some(t => t.name === 'split'))", timeout=30_000)
    first = tree_texts(page)
    assert any("≤" in t and "gain" in t and "rejected:" in t for t in first)
    assert any(re.match(r"<b>leaf \d+</b>: n=\d+", t) for t in first)
    page.screenshot(path=str(screenshot_dir / "one_step_step1.png"), full_page=True)

    main(page).get_by_role("button", name="Step ×10").click()
    expect(page.get_by_text(re.compile(r"Step 11\. "))).to_be_visible(timeout=30_000)
    main(page).get_by_role("button", name="◀ Back").click()
    expect(page.get_by_text(re.compile(r"Step 10\. "))).to_be_visible(timeout=30_000)
    idle(page)
    assert "os_step=10" in page.url
    # Back redraws the tree: read it once plotly holds it again (CI read it before: None).
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some("
                           "el => (el._fullData || []).some(t => t.name === 'split'))", timeout=30_000)
    at_ten = tree_texts(page)
    assert at_ten, "the tree at step 10 was not drawn"

    # A shared link in a new session shows the same step, the same tree.
    other = page.context.browser.new_context(viewport=page.viewport_size).new_page()
    try:
        other.goto(page.url, wait_until="domcontentloaded")
        expect(other.get_by_text(re.compile(r"Step 10\. "))).to_be_visible(timeout=30_000)
        idle(other)
        other.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some("
                                "el => (el._fullData || []).some(t => t.name === 'split'))", timeout=30_000)
        assert tree_texts(other) == at_ten
    finally:
        other.context.close()

    # Play advances about one step a second; Pause stops it.
    main(page).get_by_role("button", name="Play", exact=True).click()
    expect(page.get_by_text(re.compile(r"Step 12\. "))).to_be_visible(timeout=20_000)
    main(page).get_by_role("button", name="Pause", exact=True).click()
    idle(page)
    shown = int(step_shown(page).input_value())
    page.wait_for_timeout(2500)
    assert int(step_shown(page).input_value()) == shown
    page.screenshot(path=str(screenshot_dir / "one_step_played.png"), full_page=True)
