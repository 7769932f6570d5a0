"""Real browser, issue 31: sentences against the chart they sit beside, as a student sees them."""

import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser

# The bounding boxes of the chart's annotations, by text: plotly draws each as <g class="annotation">.
BOXES = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] g.annotation')].map(g => {
    const r = g.getBoundingClientRect();
    return {text: g.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
})"""


def overlaps(a, b):
    return not (a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"])


def test_the_chain_challenge_on_arrival_and_the_still_rising_note(streamlit_server, browser_page, screenshot_dir):
    """On arrival (100 steps) both curves still climb: the banner says so instead of "met", the page
    names chain's panel of the paper as Figure 1a, and the "still rising" note clears the subplot titles."""
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?conv_problem=chain&conv_variants=st-gbrt&conv_variants=gbmort"
              "&conv_variants=gbrt-rpo-subsampled&conv_n_steps=100&challenge=chain-gbmort", wait_until="domcontentloaded")
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=120_000)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=90_000)
    wait_for_chart(page)
    expect(page.get_by_text("still rising at the last step (100 steps): train longer", exact=False)).to_be_visible()
    expect(page.get_by_text("Challenge met", exact=False)).to_have_count(0)
    expect(page.get_by_text("The paper (Figure 1a) finds gbmort", exact=False)).to_be_visible()
    boxes = page.evaluate(BOXES)
    note = [b for b in boxes if b["text"].startswith("still rising")]
    titles = [b for b in boxes if b["text"] in ("against trees per output", "against fit time")]
    assert len(note) == 1 and len(titles) == 2, boxes
    assert not any(overlaps(note[0], t) for t in titles), (note, titles)
    assert note[0]["bottom"] <= min(t["top"] for t in titles) + 1          # a line of its own, above them
    page.screenshot(path=str(screenshot_dir / "sentences_chain_challenge.png"), full_page=True)
