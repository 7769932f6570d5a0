"""The links' contract, generated from every page's parameters (the parameter table,
engine/app/page_content/parameters, through pages/_params.page_parameters) and the widgets the page
draws from their rows (issue 43): for every page and every parameter, a link with a valid value, an
out-of-range one, an unreadable one and an unknown name. Each link is opened as a fresh link is
(app.py's frame, then the page); the page must show the value it uses, say so in a note naming the
parameter when that is not the link's, and the address bar after the run must hold exactly the values
used (a value equal to the default is written as an absent parameter, as Streamlit writes it).

One page run per page and kind (every parameter in one link); a parameter whose control the combined
link hid (another mode of the page) is checked again alone.
"""
from __future__ import annotations

import math

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from apptest_runs import app_test
from pages._deeplink import REGISTERED_PAGES_KEY
from pages._params import FLAGS, page_parameters, prefix_of

PAGES = ["pages/data.py", "pages/convergence.py", "pages/one_step.py", "pages/forests.py", "pages/bias_variance.py",
         "pages/projections.py", "pages/cost.py", "pages/benchmark.py"]
KINDS = ("slider", "select_slider", "selectbox", "radio", "multiselect", "number_input", "text_input", "toggle",
         "checkbox")
UNREADABLE = "zz~not-a-value"

pytestmark = pytest.mark.slow


def open_link(page: str, query: dict) -> AppTest:
    """The page opened by a link with ``query``, as a fresh tab opens it: app.py's frame around the page."""
    at = app_test(timeout=240).run()
    at.switch_page(page)
    for k, v in query.items():
        at.query_params[k] = v
    del at.session_state[REGISTERED_PAGES_KEY]      # the page then routes through app.py (pages/_deeplink.py)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(autouse=True)
def _fresh_store():
    yield
    st.cache_resource.clear()       # stops the runs the links started (the store's on_release)


def widgets(at: AppTest, page: str) -> dict:
    """``{parameter: widget element}`` of the page's parameters drawn in this run."""
    params = set(page_parameters(page)) - set(FLAGS)
    found = {}
    for kind in KINDS:
        for w in at.get(kind):
            if w.key in params:
                found[w.key] = w
    return found


def notes(at: AppTest) -> list[str]:
    return [e.value for e in list(at.warning) + list(at.error) + list(at.info)]


def spellings(w) -> set:
    """Every way the URL may spell the widget's value (an option's text or its value)."""
    out = {str(shown(w))}
    index = getattr(w, "index", None)
    if w.type in ("selectbox", "radio") and index is not None:
        out.add(w.options[index])
    return out


def shown(w):
    """The widget's value as the URL spells it."""
    v = w.value
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v]
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def numeric(w) -> bool:
    return w.type in ("slider", "number_input") and not isinstance(w.value, (list, tuple))


def numeric_options(w) -> bool:
    if w.type != "select_slider":
        return False
    try:
        [float(o) for o in w.options]
    except ValueError:
        return False
    return True


def valid_value(w):
    """A value the widget takes that is not its current one (None: nothing else to choose)."""
    if w.type in ("toggle", "checkbox"):
        return str(not w.value).lower()
    if w.type == "slider" and numeric(w):
        return f"{w.max:g}" if w.value != w.max else f"{w.min:g}"
    if w.type == "number_input" and w.max is not None and w.min is not None:
        return f"{w.max:g}" if w.value != w.max else f"{w.min:g}"
    if w.type in ("select_slider", "selectbox", "radio"):
        other = [o for o in w.options if o != shown(w)]
        return other[-1] if other else None
    if w.type == "multiselect":
        return [w.options[0]] if w.options and shown(w) != [w.options[0]] else None
    return None


def out_of_range(w):
    """A number outside the widget's range, and the bound the page must use (None: no range)."""
    if numeric(w) and w.max is not None:
        return f"{w.max * 10 + 1000:g}", w.max
    if numeric_options(w):
        return f"{float(w.options[-1]) * 10 + 1000:g}", w.options[-1]
    return None


def url_holds(at: AppTest, key: str, w, default_view: dict) -> bool:
    """The address bar holds the widget's value (absent when it is the default view's)."""
    url = at.query_params.get_all(key) if hasattr(at.query_params, "get_all") else at.query_params.get(key)
    url = list(url) if isinstance(url, (list, tuple)) else ([url] if url is not None else [])
    value = shown(w)
    if not url:
        return default_view.get(key) == value
    if isinstance(value, list):
        return url == value
    try:
        return math.isclose(float(url[-1]), float(value), rel_tol=1e-9)
    except ValueError:
        return url[-1] in spellings(w)


def named(at: AppTest, key: str) -> bool:
    return any(key in n for n in notes(at))


@pytest.fixture(scope="module")
def defaults():
    """Each page's default view: its parameters' widgets as drawn, by their URL spelling."""
    out = {}
    for page in PAGES:
        at = open_link(page, {})
        out[page] = {k: shown(w) for k, w in widgets(at, page).items()}
        assert out[page], f"{page}: no parameter drawn"
    st.cache_resource.clear()
    return out


@pytest.mark.parametrize("page", PAGES)
def test_out_of_range_values_are_clamped_said_and_in_the_url(page, defaults):
    base = widgets(open_link(page, {}), page)
    cases = {k: r for k, w in base.items() if (r := out_of_range(w)) is not None}
    if not cases:
        pytest.skip(f"{page} has no ranged parameter")        # data-dependent: the page's other tests
    at = open_link(page, {k: v for k, (v, _) in cases.items()})
    drawn = widgets(at, page)
    for key, (given, bound) in cases.items():
        if key not in drawn:
            continue            # another mode's control, then: the note below names it
        w = drawn[key]
        assert named(at, key), f"{page}: no note names {key} = {given}"
        assert _same_number(shown(w), bound), (key, shown(w), bound)
        assert url_holds(at, key, w, defaults[page]), (key, dict(at.query_params))
    for key in set(cases) - set(drawn):
        assert named(at, key), f"{page}: {key}'s control is not shown and no note says so"
        assert key not in at.query_params


@pytest.mark.parametrize("page", PAGES)
def test_unreadable_values_fall_back_to_the_default_with_a_note(page, defaults):
    base = widgets(open_link(page, {}), page)
    keys = [k for k, w in base.items() if w.type not in ("text_input",)]
    at = open_link(page, {k: UNREADABLE for k in keys})
    drawn = widgets(at, page)
    for key in keys:
        assert named(at, key), f"{page}: no note names {key} = {UNREADABLE}"
        if key in drawn:
            assert UNREADABLE not in str(drawn[key].value)
            assert url_holds(at, key, drawn[key], {**defaults[page], key: shown(drawn[key])}), (key, dict(at.query_params))
        assert at.query_params.get(key) != UNREADABLE


@pytest.mark.parametrize("page", PAGES)
def test_an_old_or_unknown_name_is_named_with_a_did_you_mean_and_leaves_the_url(page, defaults):
    prefix = prefix_of(page)
    params = [k for k in page_parameters(page) if k not in FLAGS]
    old = {k.removeprefix(prefix + "_"): k for k in params}
    old = {name: k for name, k in old.items() if name not in FLAGS and name not in page_parameters(page)}
    at = open_link(page, {**{name: "1" for name in old}, f"{prefix}_no_such_thing": "1", "challenge": "nope"})
    said = notes(at)
    for name, meant in old.items():
        assert any(f"does not know the link's {name} " in n and f"did you mean {meant}?" in n for n in said), (name, said)
        assert name not in at.query_params
    assert any(f"{prefix}_no_such_thing" in n for n in said) and f"{prefix}_no_such_thing" not in at.query_params
    assert any("no challenge “nope”" in n for n in said) and "challenge" not in at.query_params


@pytest.mark.parametrize("page", PAGES)
def test_valid_values_are_used_and_the_url_holds_them(page, defaults):
    base = widgets(open_link(page, {}), page)
    cases = {k: v for k, w in base.items() if (v := valid_value(w)) is not None}
    at = open_link(page, cases)
    drawn = widgets(at, page)
    takes = (lambda w, want: shown(w) == want or (isinstance(want, str) and want in spellings(w))
             or _same_number(shown(w), want))
    # a parameter hidden or narrowed by another of the link (a mode, an estimator's own options): alone
    alone = [k for k in cases if k not in drawn or not takes(drawn[k], cases[k])]
    for key in set(cases) - set(alone):
        assert url_holds(at, key, drawn[key], defaults[page]), (key, dict(at.query_params))
        assert not any(f"asked for {key} " in n for n in notes(at)), (key, notes(at))
    for key in alone:
        one = open_link(page, {key: cases[key]})
        w = widgets(one, page)[key]
        assert takes(w, cases[key]), (key, shown(w), cases[key])
        assert url_holds(one, key, w, defaults[page]), (key, dict(one.query_params))


def _same_number(a, b) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return False
