"""Helpers of the browser tests: start a live server, read plotly charts in the page."""

from __future__ import annotations

# One Chromium set-up and one way to start a server, shared with the class load tool (tests/load/classroom.py).
from load.classroom_tools import CHROMIUM, CHROMIUM_ARGS, REPO_ROOT, streamlit_app  # noqa: F401
VIEWPORT = {"width": 1280, "height": 2200}  # tall: Streamlit scrolls inside its own container


# --- reading charts in the browser ----------------------------------------------------------------

_CHART_JS = """([index, summary, condition]) => {
    // index: the chart's position on the page (negative: from the end), or a CSS selector of its
    // container (Streamlit gives a keyed element the class st-key-<key>).
    const els = document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot');
    const el = typeof index === 'string' ? document.querySelector(index + ' .js-plotly-plot')
        : els[index < 0 ? els.length + index : index];
    if (!el || !el._fullData) return null;
    const value = (new Function('el', 'data', 'return (' + summary + ')(el, data);'))(el, el._fullData);
    const ok = (new Function('value', 'return (' + condition + ')(value);'))(value);
    return ok ? {value: value} : null;
}"""


def wait_for_chart(page, summary="(el, data) => data.map(t => t.name)", condition="v => v.length > 0", *,
                   index=0, timeout=30_000):
    """Poll plotly.js until chart ``index`` (a position, or a CSS selector such as ``".st-key-fx_chart"``)
    holds what ``condition`` expects; return ``summary``.

    Streamlit sends a figure before plotly.js has drawn it, so a one-shot read just after the
    page went idle can see an empty or stale chart (a flaky CI failure). ``summary`` maps the
    plot's DOM node and its ``_fullData`` to plain JSON; ``condition`` says when it is ready.
    On timeout the error names the last value seen.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        handle = page.wait_for_function(_CHART_JS, arg=[index, summary, condition], timeout=timeout, polling=200)
    except PlaywrightTimeout:
        last = page.evaluate(_CHART_JS.replace("return ok ? {value: value} : null;", "return {value: value};"),
                             [index, summary, condition])
        raise AssertionError(f"chart {index} never satisfied {condition} within {timeout} ms; last seen: {last}") from None
    return handle.json_value()["value"]
