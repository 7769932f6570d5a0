"""Real browser: Predict first on Convergence. The question hides the chart; an answer given before a
run is shown next to that run's result after it."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

QUERY = ("/convergence?predict=true&conv_problem=chain&conv_variants=st-gbrt&conv_variants=gbmort"
         "&conv_n_steps=50&conv_n_test=200")


def test_a_prediction_made_before_a_run_is_shown_next_to_its_result(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(streamlit_server + QUERY, wait_until="domcontentloaded")
    main = page.get_by_test_id("stMainBlockContainer")
    ask = main.locator(".st-key-conv_ask_first")
    expect(ask.get_by_text("Which method will first reach")).to_be_visible(timeout=30_000)
    expect(ask.get_by_role("button", name="Reveal")).to_be_visible(timeout=30_000)   # the first run ran, hidden
    expect(main.locator(".stPlotlyChart")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "predict_hidden.png"), full_page=True)

    ask.get_by_text("gbmort", exact=True).click()       # the prediction, kept for the next run
    expect(ask.get_by_text(re.compile("You predicted"))).to_be_visible(timeout=30_000)
    page.get_by_test_id("stSidebar").get_by_role("button", name="New seed").click()   # new settings: no result
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=30_000)
    expect(ask.get_by_text(re.compile("You predicted"))).to_have_count(0)
    main.get_by_role("button", name="Start").click()    # a new run, after the prediction
    verdict = ask.get_by_text(re.compile(r"You predicted gbmort — the result: .* \((right|wrong)\)"))
    expect(verdict).to_be_visible(timeout=60_000)
    text = verdict.inner_text()
    right = re.search(r"the result: (.*) \((right|wrong)\)", text)
    assert (right.group(2) == "right") == (right.group(1).strip() == "gbmort"), text
    expect(main.locator(".stPlotlyChart").first).to_be_visible(timeout=30_000)   # the chart beside it
    page.screenshot(path=str(screenshot_dir / "predict_verdict.png"), full_page=True)
