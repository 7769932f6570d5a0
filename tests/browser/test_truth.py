"""Real browser: the page never lies (issue 21) — buttons are never stuck after a short run, a chart
is never explained by settings it was not made with, input the page changed is said on screen."""

import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart

pytestmark = pytest.mark.browser


def wait_until_idle(page, timeout=90_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def main_button(page, name):
    return page.get_by_test_id("stMainBlockContainer").get_by_role("button", name=name, exact=True)


def test_step_three_times_never_leaves_the_buttons_disabled(streamlit_server, browser_page, screenshot_dir):
    """Item 1: a Step of 10 steps ends in milliseconds, often between the page's read of "running"
    (buttons drawn disabled) and the polling fragment's; the buttons must come back every time."""
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?conv_problem=group&conv_n_steps=10&conv_x_axis=steps", wait_until="domcontentloaded")
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=90_000)
    wait_until_idle(page)
    for i in range(5):
        expect(main_button(page, "Step +10")).to_be_enabled(timeout=60_000)
        main_button(page, "Step +10").click()
        expect(page.get_by_text(re.compile(rf"longest curve {20 + 10 * i} steps"))).to_be_visible(timeout=30_000)
        # Never stuck: within a few seconds every button is enabled again (the bug kept them disabled > 1 min).
        for name in ("Start", "Step +10", "Pin"):
            expect(main_button(page, name)).to_be_enabled(timeout=30_000)
    page.screenshot(path=str(screenshot_dir / "truth_step_five_times.png"), full_page=True)


CURRENT = ("(el, data) => [...new Set(data.filter(t => t.meta && t.meta.run === 'current' && t.meta.kind === 'curve')"
           ".map(t => t.meta.estimator))]")   # the methods drawn solid (the current run), once each


def choose_radio(container, label):
    container.locator("label").filter(has_text=re.compile(rf"^{re.escape(label)}$")).first.click()


def test_a_chart_is_never_explained_by_other_settings(streamlit_server, browser_page, screenshot_dir):
    """Item 2: switching the problem hides the old curves (their explanation would be the new problem's);
    after Start the takeaway is the one computed from the curves on screen. The Data page's bibtex, too
    costly here, shows no friedman1 chart under its "too costly"."""
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?conv_problem=group&conv_n_steps=10&conv_x_axis=steps", wait_until="domcontentloaded")
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=90_000)
    wait_until_idle(page)
    assert sorted(wait_for_chart(page, CURRENT, "v => v.length === 3")) == ["gbmort", "gbrt-rpo-subsampled", "st-gbrt"]
    sidebar = page.get_by_test_id("stSidebar")

    choose_radio(sidebar, "ind")
    expect(page.get_by_text(re.compile(r"the last run trained on friedman1-group"))).to_be_visible(timeout=30_000)
    wait_until_idle(page)
    assert wait_for_chart(page, CURRENT, "v => v.length === 0") == []          # no group curve left
    expect(page.get_by_text("Each output depends on its own five inputs", exact=False)).to_be_visible()
    expect(page.get_by_text("ends best", exact=False)).to_have_count(0)         # no result stated without one
    page.screenshot(path=str(screenshot_dir / "truth_switched_to_ind.png"), full_page=True)

    main_button(page, "Start").click()
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=90_000)
    wait_until_idle(page)
    assert len(wait_for_chart(page, CURRENT, "v => v.length === 3")) == 3
    takeaway = page.get_by_text(re.compile(r"On this run .* ends best")).inner_text()
    winner = re.search(r"On this run (\S+) ends best", takeaway).group(1)
    # the winner named is the method whose star (best test score) is highest on the chart
    stars = wait_for_chart(page, "(el, data) => data.filter(t => t.meta && t.meta.run === 'current' && "
                           "t.meta.kind === 'best' && t.xaxis === 'x').map(t => [t.meta.estimator, t.y[0]])",
                           "v => v.length === 3")
    assert winner == max(stars, key=lambda s: s[1])[0]
    page.screenshot(path=str(screenshot_dir / "truth_ind_trained.png"), full_page=True)

    # The Data page's bibtex: the Convergence page refuses it as too costly and draws no ind curves under it.
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data").click()
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=30_000)
    choose_radio(page.get_by_test_id("stSidebar"), "shipped")
    wait_until_idle(page)
    box = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(has_text="Data set").first
    box.click()
    page.keyboard.type("bibtex")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="bibtex")).to_be_visible(timeout=60_000)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Convergence").click()
    expect(page.get_by_role("heading", name="Convergence", exact=True)).to_be_visible(timeout=30_000)
    wait_until_idle(page, timeout=120_000)
    choose_radio(page.get_by_test_id("stSidebar"), "data")
    expect(page.get_by_test_id("stSidebar").get_by_role("radio", name="data")).to_be_checked(timeout=30_000)
    expect(page.get_by_text(re.compile(r"the last run trained on friedman1-ind"))).to_be_visible(timeout=240_000)
    wait_until_idle(page, timeout=120_000)
    assert wait_for_chart(page, CURRENT, "v => v.length === 0") == []
    page.screenshot(path=str(screenshot_dir / "truth_data_page_bibtex.png"), full_page=True)


def test_clamped_and_unknown_inputs_are_said_next_to_the_widget(streamlit_server, browser_page, screenshot_dir):
    """Item 9: values the page changed or refused are said on screen, next to their widget."""
    page = browser_page
    page.goto(f"{streamlit_server}/bias_variance?bv_estimator=no-such-method&bv_values=0,-5,100000&bv_sweep=n_estimators",
              wait_until="domcontentloaded")
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("bv_estimator = “no-such-method”", exact=False)).to_be_visible(timeout=60_000)
    expect(sidebar.get_by_text("0 → 1, -5 → 1, 100000 → 2000", exact=False)).to_be_visible()
    wait_until_idle(page)
    page.screenshot(path=str(screenshot_dir / "truth_clamped_notes.png"), full_page=True)

    page.goto(f"{streamlit_server}/projections?proj_experiment=size&proj_dataset=friedman1-chain&proj_projection=subsample"
              "&proj_q_values=0,17&proj_n_steps=10", wait_until="domcontentloaded")
    expect(page.get_by_test_id("stSidebar").get_by_text("0 → 1, 17 → 16", exact=False)).to_be_visible(timeout=60_000)
    wait_until_idle(page)
    page.screenshot(path=str(screenshot_dir / "truth_q_clamped.png"), full_page=True)


@pytest.mark.parametrize("preset, ready", [
    ("Figure 6 on bibtex (real data)", r"Takeaway"),
    # its result, when an earlier session ran the same preset (the server's cache of finished runs)
    ("Table 4: all methods on chain (then group / ind)",
     r"Running the first repeat|Partial results|friedman1-chain: test macro-r2"),
])
def test_a_preset_runs_on_one_click(streamlit_server, browser_page, screenshot_dir, preset, ready):
    """Item 10: a Home preset runs what it promises on its one click (no second click on Run)."""
    page = browser_page
    page.goto(streamlit_server, wait_until="domcontentloaded")
    link = page.get_by_role("link", name=preset)
    expect(link).to_be_visible(timeout=30_000)
    link.click()
    # a run starts by itself: a progress bar or its result, never a page waiting on a Run button
    expect(page.get_by_test_id("stProgress").or_(page.get_by_text(re.compile(ready))).first).to_be_visible(timeout=60_000)
    # consumed: a reload or a copied link starts nothing by itself
    page.wait_for_url(lambda url: "go=1" not in url, timeout=30_000)
    page.screenshot(path=str(screenshot_dir / f"truth_preset_{preset.split(':')[0].replace(' ', '_')}.png"), full_page=True)
