"""Page state that cannot leak, in a real browser on a fresh server (issue 31).

A teacher's tour before class: Home, then every page by its sidebar link, changing settings on the
way. Each page's sidebar must show what a fresh browser context shows on the same page (before
the page prefixes, Projections opened at Convergence's 1000 steps). And a bad value in a link is
said on the page: the parameter, the value given and the value used.

The pages start their small default runs by themselves; the fresh context visits each page right
after the tour does, so it joins the tour's run (the server computes identical runs once).
"""

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# (sidebar link, heading, key prefix), in sidebar order after Home
PAGES = [("Data", "Data", "data_"), ("Convergence", "Convergence", "conv_"), ("One step", "One step", "os_"),
         ("Forests", "Forests", "fx_"), ("Bias–variance", "Bias–variance", "bv_"),
         ("Projections", "Projections", "proj_"), ("Benchmark", "Benchmark", "bench_")]
PATHS = {"Data": "data", "Convergence": "convergence", "One step": "one_step", "Forests": "forests",
         "Bias–variance": "bias_variance", "Projections": "projections", "Benchmark": "benchmark"}

# Every keyed input of the sidebar: its key -> what it shows (slider positions, inputs' values, radio and
# checkbox states, and its text: the selected option of a select box, the chips of a multiselect).
SETTINGS_JS = """() => {
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    if (!sidebar || sidebar.querySelector('[data-testid="stSkeleton"]')) return null;    // still drawing
    const out = {};
    for (const el of sidebar.querySelectorAll('[class*="st-key-"]')) {
        if (el.querySelector('[data-testid="stButton"], [data-testid="stPageLink"]')) continue;   // not settings
        const inputs = el.querySelectorAll('input, textarea');
        const key = Array.from(el.classList).find(c => c.startsWith('st-key-')).slice(7);
        const parts = Array.from(inputs).map(i => i.type === 'range' ? 'at ' + i.getAttribute('aria-valuetext')
            : (i.type === 'radio' || i.type === 'checkbox') ? (i.checked ? 'on' : 'off') : 'value ' + i.value);
        out[key] = parts.join(' | ') + ' | ' + el.innerText.replace(/\\s+/g, ' ').trim();
    }
    return out;
}"""


# app.py's frame switches, on every page by design (a projector view stays on from page to page)
APP_FRAME = {"projector", "predict"}


def page_settings(page):
    out = page.evaluate(SETTINGS_JS)
    return out if out is None else {k: v for k, v in out.items() if k not in APP_FRAME}


def settled_settings(page, prefix, timeout=60.0):
    """The sidebar's settings once three reads half a second apart agree (the page has drawn them)."""
    reads = []
    for _ in range(int(timeout / 0.5)):
        reads = [*reads[-2:], page_settings(page)]
        last = reads[-1]
        if len(reads) == 3 and last and reads[0] == reads[1] == last and any(k.startswith(prefix) for k in last):
            return last
        page.wait_for_timeout(500)
    raise AssertionError(f"the sidebar never settled: {last}")


def open_page(page, heading):
    expect(page.get_by_role("heading", name=heading, exact=True).first).to_be_visible(timeout=60_000)


def set_number(page, key, value):
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    expect(box).to_have_value(str(value))


def choose_radio(page, key, option):
    page.locator(f".st-key-{key}").get_by_text(option, exact=True).click()
    expect(page.locator(f".st-key-{key} input[type=radio]:checked")).to_have_count(1)


def nudge_slider(page, key, keypress):
    thumb = page.locator(f".st-key-{key} input[type=range]")
    before = thumb.get_attribute("aria-valuetext")
    thumb.focus()
    thumb.press(keypress)
    expect(thumb).not_to_have_attribute("aria-valuetext", before)


# The tour's moves on each page (none on Projections: any change there refits bibtex for seconds).
def change_data(page):
    choose_radio(page, "data_problem", "ind")
    set_number(page, "data_seed", 3)


def change_convergence(page):
    choose_radio(page, "conv_problem", "chain")
    nudge_slider(page, "conv_n_steps", "ArrowLeft")          # 1000 -> 500 steps
    nudge_slider(page, "conv_learning_rate", "ArrowRight")
    set_number(page, "conv_seed", 7)


def change_one_step(page):
    set_number(page, "os_seed", 2)


def change_forests(page):
    set_number(page, "fx_seed", 4)


def change_bias_variance(page):
    choose_radio(page, "bv_problem", "chain")
    set_number(page, "bv_seed", 9)


CHANGES = {"Data": change_data, "Convergence": change_convergence, "One step": change_one_step,
           "Forests": change_forests, "Bias–variance": change_bias_variance}


def test_a_tour_by_the_sidebar_leaves_each_page_as_a_fresh_context_opens_it(fresh_server, browser, screenshot_dir):
    tour_context, fresh_context = browser.new_context(viewport={"width": 1280, "height": 1600}), None
    try:
        tour = tour_context.new_page()
        tour.goto(fresh_server, wait_until="domcontentloaded")
        open_page(tour, "Multi-output gradient boosting with random output projections")
        fresh_context = browser.new_context(viewport={"width": 1280, "height": 1600})
        fresh = fresh_context.new_page()
        seen = {}
        for link, heading, prefix in PAGES:
            tour.get_by_test_id("stSidebarNav").get_by_role("link", name=link, exact=True).click()
            open_page(tour, heading)
            toured = settled_settings(tour, prefix)
            fresh.goto(f"{fresh_server}/{PATHS[link]}", wait_until="domcontentloaded")
            open_page(fresh, heading)
            alone = settled_settings(fresh, prefix)
            assert toured == alone, {k: (toured.get(k), alone.get(k)) for k in set(toured) | set(alone)
                                     if toured.get(k) != alone.get(k)}
            assert all(k.startswith(prefix) for k in toured), sorted(toured)
            assert not set(toured) & set(seen)
            # no value of another page came along in the URL either; only the Data page's choice travels
            # (data=, issue 42: every page trains on it), and a fresh tab has none
            assert set(parse_qs(urlparse(tour.url).query)) <= {"data"}, tour.url
            assert urlparse(fresh.url).query == "", fresh.url
            seen.update(toured)
            if link in CHANGES:
                CHANGES[link](tour)
                changed = settled_settings(tour, prefix)
                assert changed != toured, link                       # the moves did change settings
        tour.screenshot(path=str(screenshot_dir / "page_state_tour_benchmark.png"), full_page=True)
        assert len(seen) > 40
    finally:
        tour_context.close()
        if fresh_context is not None:
            fresh_context.close()


@pytest.mark.parametrize("link, key, note", [
    ("/convergence?conv_n_steps=-5", "conv_n_steps", "The link asked for conv_n_steps = “-5”, not one of the values "
     "offered (10 to 10000): this page uses 10, the nearest allowed value."),
    ("/one_step?os_step=-5", "os_step", "The link asked for os_step = “-5”, outside the range 0 to 500: this page "
     "uses 0, the nearest allowed value."),
])
def test_a_bad_value_in_a_link_is_said_on_the_page(streamlit_server, browser_page, screenshot_dir, link, key, note):
    page = browser_page
    page.goto(f"{streamlit_server}{link}", wait_until="domcontentloaded")
    expect(page.get_by_text(note, exact=True)).to_be_visible(timeout=60_000)
    shown = page.locator(f".st-key-{key} input")
    value = shown.get_attribute("aria-valuetext") if key == "conv_n_steps" else shown.input_value()
    assert value == ("10" if key == "conv_n_steps" else "0")
    page.screenshot(path=str(screenshot_dir / f"bad_link_{key}.png"), full_page=True)
