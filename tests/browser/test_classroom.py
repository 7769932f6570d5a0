"""Real browser: the Cost against d chart and its sentence, the projector view's font sizes measured
in the DOM, and teacher's links hiding what they name (and only that)."""
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart
from engine.app.page_content.presets import TEACHER_LINKS
from pages._classroom import link_url

pytestmark = pytest.mark.browser

TRACES = "(el, data) => data.map(t => ({name: t.name, x: Array.from(t.x), y: Array.from(t.y)}))"


def idle(page, timeout=60_000):
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)


def font_px(page, selector):
    """The computed font size (px) of the first element matching ``selector`` (None: no such element)."""
    return page.evaluate("""(sel) => { const el = document.querySelector(sel);
        return el ? parseFloat(getComputedStyle(el).fontSize) : null; }""", selector)


def slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def test_cost_chart_has_every_method_at_several_d_and_its_sentence_matches(streamlit_server, browser_page,
                                                                          screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/cost", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Cost against d", level=1)).to_be_visible()
    traces = wait_for_chart(page, TRACES, "v => v.length >= 4")
    idle(page)
    by_name = {t["name"]: t for t in traces}
    assert len(by_name["gbmort"]["x"]) >= 3 and len(by_name["gbrt-rpo, q = 1"]["x"]) >= 3
    sentence = page.locator('[data-testid="stMarkdownContainer"] p', has_text="Fitted log–log slopes").inner_text()
    for name, t in by_name.items():                 # every slope quoted is the one of the drawn points
        assert f"{name} {slope(t['x'], t['y']):.2f}" in sentence
    at = int(re.search(r"At d = (\d+)", sentence).group(1))
    assert at == max(by_name["gbmort"]["x"])
    g = by_name["gbmort"]["y"][by_name["gbmort"]["x"].index(at)]
    for name in ("gbrt-rpo, q = 1", "gbrt-relabel-rpo, q = 16"):
        p = by_name[name]["y"][by_name[name]["x"].index(at)]
        assert f"{p / g:.2g}×" in sentence
    expect(page.get_by_text("one thread", exact=False).first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "cost_vs_d.png"), full_page=True)


def test_projector_switch_enlarges_chart_tree_and_table_text(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    sizes = {}
    for on in (False, True):
        suffix = "&projector=true" if on else ""
        page.goto(f"{streamlit_server}/one_step?os_step=1{suffix}", wait_until="domcontentloaded")
        page.wait_for_selector('.st-key-os_tree .annotation-text', timeout=60_000)
        idle(page)
        sizes[on] = {"tree": font_px(page, ".st-key-os_tree .annotation-text"),
                     "tick": font_px(page, ".st-key-os_gradient .xtick text"),
                     "text": font_px(page, '[data-testid="stMain"] [data-testid="stMarkdownContainer"] p')}
        page.screenshot(path=str(screenshot_dir / f"one_step_projector_{on}.png"), full_page=True)
        page.goto(f"{streamlit_server}/benchmark?bench_dataset=friedman1-chain{suffix}", wait_until="domcontentloaded")
        expect(page.get_by_text("The paper's Table 4 on", exact=False)).to_be_visible()
        idle(page)
        table = page.locator('[data-testid="stTable"]')
        if on:
            expect(table.first).to_be_visible()
            sizes[on]["table"] = font_px(page, '[data-testid="stTable"] td')
            wraps = page.evaluate("""() => getComputedStyle(document.querySelector('[data-testid="stTable"] td')).whiteSpace""")
            assert wraps == "normal"
        else:
            expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
            sizes[on]["table"] = None
        page.screenshot(path=str(screenshot_dir / f"benchmark_projector_{on}.png"), full_page=True)
    off, on = sizes[False], sizes[True]
    assert on["tree"] == pytest.approx(1.5 * off["tree"], rel=0.02), sizes
    assert on["tick"] >= 1.4 * off["tick"], sizes
    assert on["text"] >= 1.2 * off["text"], sizes
    assert on["table"] >= 1.2 * off["text"], sizes    # the table's text, against the page's plain text
    # the switch itself: flipping it writes the URL
    page.goto(f"{streamlit_server}/cost", wait_until="domcontentloaded")
    wait_for_chart(page)
    idle(page)
    page.get_by_text("Projector view").click()
    page.wait_for_url(re.compile(r"projector=true"))
    expect(page.locator(".st-key-cost_chart .xtick text").first).to_have_css("font-size", "18px")
    page.screenshot(path=str(screenshot_dir / "cost_projector.png"), full_page=True)


def visible_keys(page, container='section[data-testid="stSidebar"]'):
    """{widget key: visible} of every keyed element in ``container``."""
    return page.evaluate("""(sel) => {
        const out = {};
        for (const el of document.querySelectorAll(sel + ' [class*="st-key-"]')) {
            const key = [...el.classList].find(c => c.startsWith('st-key-')).slice(7);
            out[key] = el.offsetParent !== null && el.getBoundingClientRect().height > 0;
        }
        return out; }""", container)


def test_a_teachers_link_hides_what_it_names_and_only_that(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?hide=conv_seed,conv_learning_rate", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Convergence", level=1)).to_be_visible()
    page.wait_for_selector(".st-key-conv_problem")
    idle(page)
    for key in ("conv_seed", "conv_learning_rate"):
        expect(page.locator(f".st-key-{key}")).to_be_hidden()      # waits for the link's style to apply
    expect(page.locator(".st-key-conv_problem")).to_be_visible()
    keys = visible_keys(page)
    assert keys["conv_seed"] is False and keys["conv_learning_rate"] is False
    shown = [k for k, v in keys.items() if v]
    assert {"conv_problem", "conv_variants", "conv_n_steps", "conv_max_leaf_nodes", "projector"} <= set(shown)
    # and Reset, which would change the hidden settings (issue 43: a link that hides controls hides Reset)
    assert sorted(k for k, v in keys.items() if not v) == ["conv_learning_rate", "conv_reset_all", "conv_seed"]
    expect(page.get_by_text("Teacher's link: 2 controls of this page hidden")).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "teacher_hide_two.png"), full_page=True)

    page.goto(streamlit_server, wait_until="domcontentloaded")
    heading = page.get_by_role("heading", name="For teachers")
    expect(heading).to_be_visible()
    expect(page.get_by_text(TEACHER_LINKS[-1]["label"], exact=False).first).to_be_visible()
    idle(page)
    texts = page.locator('[data-testid="stPageLink"]').all_inner_texts()
    acts = [t.replace("🎓", "").strip() for t in texts if "🎓" in t]
    assert acts == [f"{t['label']} ({t['minutes']} min)" for t in TEACHER_LINKS], texts
    page.set_viewport_size({"width": 1280, "height": 4200})     # Streamlit scrolls inside its own container
    heading.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "home_for_teachers.png"))
    page.set_viewport_size({"width": 1280, "height": 2200})
    for link in TEACHER_LINKS:
        page.goto(streamlit_server + link_url(link), wait_until="domcontentloaded")
        page.wait_for_selector('[data-testid="stMain"] h1')
        if "sidebar" not in link["hide"]:
            page.wait_for_selector(f".st-key-{link['hide'][0]}", state="attached")
        idle(page, timeout=120_000)
        expect(page.get_by_test_id("stSkeleton")).to_have_count(0)
        sidebar = page.locator('section[data-testid="stSidebar"]')
        if "sidebar" in link["hide"]:
            expect(sidebar).to_be_hidden()
            # predict=true: the question comes first, its chart after the answer (or Reveal)
            expect(page.get_by_role("button", name="Reveal")).to_be_visible()
            page.get_by_role("button", name="Reveal").click()
            expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible(timeout=60_000)
        else:
            expect(sidebar).to_be_visible()
            for key in link["hide"]:
                expect(page.locator(f".st-key-{key}")).to_be_hidden()
            keys = visible_keys(page)
            hidden = sorted(k for k, v in keys.items() if not v)
            assert [k for k in hidden if not k.endswith("_reset_all")] == sorted(link["hide"]), link["label"]
            assert not any(v for k, v in keys.items() if k.endswith("_reset_all")), link["label"]   # Reset hidden too
            assert [k for k, v in keys.items() if v], link["label"]
        page.screenshot(path=str(screenshot_dir / f"teacher_act{link['act']}.png"), full_page=True)
