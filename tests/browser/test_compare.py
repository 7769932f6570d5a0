"""Real browser: Pin, Clear pin and Reset (pages/_compare.py and Convergence's pins, issue 32).

Pin is on every page that draws a run to compare (Convergence, Forests, Bias–variance,
Projections); Reset on every page. Each test opens a page by a link with small settings and seed 3,
pins the run, changes the seed in the sidebar, and checks in plotly.js that the chart holds both
runs (the pinned one labelled with the setting that differs); then Clear pin leaves the current run
alone, and Reset puts the sidebar back to the page's defaults and takes the page's parameters out
of the URL.
"""

import re

import pytest
from playwright.sync_api import expect

from browser.live_app import wait_for_chart
from engine.experiments.cost_vs_outputs import LIVE_SETTINGS

pytestmark = pytest.mark.browser

NAMES = "(el, data) => data.map(t => t.name)"


def unnamed(names):
    """Trace names with plotly.js's "trace 12" for an unnamed trace read as "trace"."""
    return [re.sub(r"^trace \d+$", "trace", n) for n in names]


def no_error(page):
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)


def settled(page, chart, condition):
    """The chart's trace names once ``condition`` holds and the run has ended: a page redraws its
    chart while a run streams in (the Projections legend names a time budget that moves as models
    finish), so read again after the page went idle until two reads agree."""
    names = wait_for_chart(page, NAMES, condition, index=chart, timeout=120_000)
    for _ in range(5):
        page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)
        page.wait_for_timeout(1000)
        again = wait_for_chart(page, NAMES, condition, index=chart, timeout=120_000)
        if again == names:
            return names
        names = again
    raise AssertionError(f"the chart kept changing: {names}")


def set_seed(page, value):
    seed = page.get_by_test_id("stSidebar").get_by_label("Seed", exact=True)
    seed.fill(str(value))
    seed.press("Enter")
    return seed


def reset(page, prefix, label="Reset"):
    """Press the page's Reset; wait until no parameter of the page is left in the URL."""
    page.get_by_test_id("stSidebar").get_by_role("button", name=label, exact=True).click()
    page.wait_for_function(f"() => !window.location.search.includes('{prefix}_')", timeout=30_000)


def keyed(key):
    """The element Streamlit drew with ``key``, not the stale copy it keeps on screen during a rerun."""
    return f'.st-key-{key}:not([data-stale="true"])'


# (page, link parameters with seed 3, the chart's container, its heading)
PINNED_PAGES = [
    ("bias_variance", "bv_n_sets=3&bv_values=1,10,30&bv_compare_leaves=none&bv_seed=3", 0, "Bias–variance"),
    ("forests", "fx_exp=size&fx_data=emotions&fx_q=1,3&fx_trees=3&fx_seed=3", keyed("fx_chart"), "Forests"),
    ("projections", "proj_experiment=size&proj_dataset=friedman1-group&proj_n_steps=20&proj_q_values=1,2"
                    "&proj_n_test=500&proj_seed=3", keyed("proj_size"), "Projections"),
]


@pytest.mark.parametrize("name, query, chart, heading", PINNED_PAGES, ids=[p[0] for p in PINNED_PAGES])
def test_pin_clear_and_reset(name, query, chart, heading, streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    prefix = query.split("_", 1)[0]
    page.goto(f"{streamlit_server}/{name}?{query}", wait_until="domcontentloaded")
    expect(page.locator("h1", has_text=heading)).to_be_visible()
    current = settled(page, chart, "v => v.length > 0")
    assert not any(n.startswith("pinned") for n in current)

    page.get_by_role("button", name="Pin", exact=True).click()
    # Pin redraws the run twice, titled "pinned: same settings" (the legend group's title, drawn by
    # plotly.js), as a student sees it before changing a knob.
    locator = page.locator(chart) if isinstance(chart, str) else page.get_by_test_id("stPlotlyChart").first
    expect(locator).to_contain_text("pinned: same settings", timeout=60_000)
    seed = set_seed(page, 4)
    expect(locator).to_contain_text("pinned: seed = 3", timeout=120_000)
    both = settled(page, chart, f"v => v.length === {2 * len(current)}")
    # plotly.js names an unnamed trace (a band) "trace <its index>"; its pinned copy is "pinned"
    assert unnamed(both[:len(current)]) == [("pinned" if n == "trace" else f"pinned · {n}") for n in unnamed(current)]
    expect(locator).to_contain_text("pinned: seed = 3")
    assert f"{prefix}_seed=4" in page.url
    no_error(page)
    page.screenshot(path=str(screenshot_dir / f"compare_pinned_{name}.png"), full_page=True)

    page.get_by_role("button", name="Clear pin", exact=True).click()
    alone = wait_for_chart(page, NAMES, f"v => v.length === {len(current)}", index=chart)
    assert unnamed(alone) == unnamed(both[len(current):])        # the seed-4 run alone

    reset(page, prefix)
    expect(seed).to_have_value("0", timeout=30_000)
    no_error(page)
    page.screenshot(path=str(screenshot_dir / f"compare_reset_{name}.png"), full_page=True)


# Convergence keeps up to three lettered pins (its own, older helper): every trace's meta names its run.
RUNS = "(el, data) => [...new Set(data.map(t => t.meta && t.meta.run))]"


def wait_for_done(page, timeout=120_000):
    """The run of the sidebar's settings: started by the page when its estimate is small, else by Start."""
    status = page.get_by_text(re.compile(r"Status: (done|running|idle)"))
    expect(status).to_be_visible(timeout=timeout)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)
    if page.get_by_text(re.compile(r"Status: idle")).is_visible():
        page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Start", exact=True).click()
    expect(page.get_by_text(re.compile(r"Status: done"))).to_be_visible(timeout=timeout)


def test_pin_clear_and_reset_on_convergence(streamlit_server, browser_page, screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/convergence?conv_problem=group&conv_n_steps=20&conv_n_test=200&conv_seed=3",
              wait_until="domcontentloaded")
    wait_for_done(page)
    assert wait_for_chart(page, RUNS, "v => v.includes('current')") == ["current"]
    main = page.get_by_test_id("stMainBlockContainer")
    main.get_by_role("button", name="Pin", exact=True).click()
    seed = set_seed(page, 4)
    # Convergence trains on Start only; until then the chart says its curves have other settings.
    other = page.get_by_text("The solid curves were trained with other settings")
    expect(other).to_be_visible(timeout=30_000)
    main.get_by_role("button", name="Start", exact=True).click()
    expect(other).to_have_count(0, timeout=120_000)
    wait_for_done(page)
    runs = wait_for_chart(page, RUNS, "v => v.length === 2")
    assert sorted(runs) == ["A", "current"]
    assert "conv_seed=4" in page.url
    expect(page.get_by_text("Pinned A (dashed)", exact=False)).to_contain_text("seed 3")
    expect(main.get_by_text(re.compile(r"seed 4\.?$"))).to_have_count(1)   # the data caption of the current run
    no_error(page)
    page.screenshot(path=str(screenshot_dir / "compare_pinned_convergence.png"), full_page=True)

    main.get_by_role("button", name="Clear pins", exact=True).click()
    assert wait_for_chart(page, RUNS, "v => v.length === 1") == ["current"]
    reset(page, "conv")
    expect(seed).to_have_value("0", timeout=30_000)
    expect(page.get_by_test_id("stSidebar").get_by_role("slider", name="Boosting steps")).to_have_attribute(
        "aria-valuetext", "1000")
    no_error(page)


# (page, a non-default link value, the control it sets, its value from the link, its default, Reset's label)
RESET_PAGES = [
    ("one_step", "os_seed=5", ("spinbutton", "Seed"), "5", "0", "Default settings"),
    ("data", "data_seed=5", ("spinbutton", "Seed"), "5", "0", "Reset"),
    ("benchmark", "bench_seed=5", ("spinbutton", "Seed"), "5", "0", "Reset"),
    ("cost", "cost_n=500", ("slider", "Samples n (measure here)"), "500", str(LIVE_SETTINGS.n_samples), "Reset"),
]


@pytest.mark.parametrize("name, query, control, linked, default, label", RESET_PAGES, ids=[p[0] for p in RESET_PAGES])
def test_reset_on_the_other_pages(name, query, control, linked, default, label, streamlit_server, browser_page,
                                  screenshot_dir):
    page = browser_page
    page.goto(f"{streamlit_server}/{name}?{query}", wait_until="domcontentloaded")
    role, text = control
    widget = page.get_by_test_id("stSidebar").get_by_role(role, name=text, exact=role != "slider")
    value = (lambda v: expect(widget).to_have_value(v, timeout=60_000)) if role == "spinbutton" else (
        lambda v: expect(widget).to_have_attribute("aria-valuetext", v, timeout=60_000))
    value(linked)
    reset(page, query.split("_", 1)[0], label)
    value(default)
    no_error(page)
    page.screenshot(path=str(screenshot_dir / f"compare_reset_{name}.png"), full_page=True)
