"""Real browser: a challenge card on Home opens its page at the starting point, and the page checks it."""

import re

import pytest
from playwright.sync_api import expect

from engine.app.page_content.challenges import CHALLENGES

pytestmark = pytest.mark.browser


def test_challenge_card_opens_one_step_and_is_checked(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_role("heading", name="Challenges")).to_be_visible(timeout=30_000)
    keys = [c.key for c in CHALLENGES]                   # cards in CHALLENGES order
    main.get_by_role("link", name="Take the challenge").nth(keys.index("near-tie")).click()
    expect(page.get_by_text(re.compile(r"Challenge: A near tie at the root"))).to_be_visible(timeout=30_000)
    assert "challenge=near-tie" in page.url and "os_problem=friedman1-group" in page.url
    for step in (2, 3, 4):                               # met at step 4 (seed 0)
        main.get_by_role("button", name="Step ▶").click()
        # one click at a time: a click sent while the last rerun is still being drawn can be lost
        expect(page).to_have_url(re.compile(rf"os_step={step}(&|$)"), timeout=30_000)
        page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=30_000)
    expect(page.get_by_text(re.compile(r"Challenge met: A near tie at the root"))).to_be_visible(timeout=30_000)
    assert "challenge=near-tie" in page.url
    page.screenshot(path=str(screenshot_dir / "challenge_met.png"), full_page=True)
