"""Widgets bound to the URL, with a visible note for every URL value the page cannot use as given.

Streamlit (1.67) quietly replaces a bound widget's URL value that it cannot use (not one of the
options, not a number, outside the range) by the widget's default and drops it from the URL: a
student who opens ``/convergence?conv_n_steps=-5`` sees 1000 steps and no word about it.
:func:`url_widget` calls the widget as its row of the parameter table describes it (pages/_parameters.py
builds the call) and says what happened, next to it: the parameter, the value the link gave and the
value used.

* A number outside a slider's or number input's range is clamped to the range, and a number that
  is not one of a numeric select slider's values becomes the nearest one.
* A text the page cannot read (its ``parse`` raises ValueError) is replaced by the default.
* Anything else Streamlit refused keeps Streamlit's choice (the default).

The note stays while the widget holds the value used; moving the widget removes it.

A widget reads the URL once per **visit** of a page (:func:`note_visit`, called by app.py on every
run): a link clicked inside the app (Home's plan, a preset) is read as a pasted one is, also by a
widget that lives on every page (the sidebar's "Predict first" and "Projector view", which
Streamlit would otherwise keep at their value of the page before).
"""
from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import streamlit as st
from streamlit.runtime.state.session_state_proxy import get_session_state

NUMBER_WIDGETS = ("slider", "number_input")
OPTION_WIDGETS = ("selectbox", "radio", "select_slider", "multiselect", "segmented_control", "pills")
_UNKNOWN = object()
READ_KEY = "app_params_read"   # = pages._params.READ_KEY
VISIT_KEY = "app_visit"      # (page, number): the page this session shows, and how many page changes so far


def note_visit(page: str) -> None:
    """Call on every run, before any bound widget, with the page's identity: a change of page is a new
    visit, whose widgets read the URL again."""
    last = st.session_state.get(VISIT_KEY, (None, 0))
    if last[0] != page:
        st.session_state[VISIT_KEY] = (page, last[1] + 1)


def visit_number() -> int:
    """This session's page visits so far (a new one at each change of page)."""
    return _visit()


def _visit() -> int:
    return st.session_state.get(VISIT_KEY, (None, 0))[1]


def url_widget(widget: Callable, *args: Any, parse: Callable[[str], Any] | None = None, **kwargs: Any) -> Any:
    """``widget(*args, **kwargs)`` (a bound widget: ``key=`` and ``bind="query-params"`` among the
    keywords), plus a warning beside it when the URL's value for its key was not used as given.
    ``parse`` (text widgets): reads the text as the page will, raising ValueError when it cannot."""
    key = kwargs["key"]
    call = inspect.signature(widget).bind_partial(*args, **kwargs).arguments
    name = getattr(widget, "__name__", "")
    fmt = call.get("format_func") or str
    default = _default(name, call)
    # This widget's URL bookkeeping, under its own key (so it belongs to the widget's page): "seen" once
    # the widget has read the URL (later the URL only echoes the widget), the note, a pending reset.
    st.session_state.setdefault(READ_KEY, set()).add(key)      # this run reads it (pages/_params.py)
    state = st.session_state.setdefault(f"{key}_url", {})
    raw = [] if state.get("seen") == _visit() else st.query_params.get_all(key)
    state["seen"] = _visit()
    changed, reason = None, ""
    if "reset" in state:          # the rerun below: the text the link gave is replaced now
        st.session_state[key] = state.pop("reset")
        _write_url(key, None)
    elif raw:
        changed, reason = _correction(name, call, raw)
        if changed is not None:
            st.session_state[key] = changed      # set before the widget reads it: the value it shows
        elif key in st.session_state and (read := _from_url(name, call, raw, fmt)) is not _UNKNOWN:
            st.session_state[key] = read         # a widget kept from the page before: the link's value
    value = widget(*args, **kwargs)
    if raw and parse is not None and changed is None and default is not _UNKNOWN and _unreadable(parse, raw[-1]):
        # Streamlit took the text as it is; a widget's value can only be set before it is drawn: draw again.
        state["note"] = (f"The link asked for {key} = “{_short(raw[-1])}”, which this page cannot read "
                         f"({_short(_unreadable(parse, raw[-1]), 200)}): this page uses the default, "
                         f"{_show(default, fmt) if default != '' else call.get('placeholder') or 'none'}.", default)
        state["reset"] = default
        st.rerun()
    if raw and (changed is not None or not (st.query_params.get_all(key) == raw or _means(raw, value, fmt))):
        reason = reason or _why_refused(name, call, raw, fmt)
        used = _show(value, fmt)
        said = (f"{used}, the nearest allowed value" if changed is not None else
                f"the default, {used}" if _same(value, default) else used)
        state["note"] = (f"The link asked for {key} = “{_short(', '.join(raw))}”{_short(reason, 300)}: "
                         f"this page uses {_short(said, 300)}.", value)
        _write_url(key, None if _same(value, default) else value, fmt)
    if "note" in state:
        if _same(state["note"][1], value):
            getattr(widget, "__self__", st).warning(state["note"][0], icon="🔗")
        else:
            del state["note"]           # moved since: the link's value is gone
    return value


def _write_url(key, value, fmt=str):
    """The address bar holds ``value`` (None: the default, no parameter) for the bound widget ``key``,
    the value the page uses in place of the link's: a copied link reopens the same view. Streamlit
    drops a URL value it refused and does not write a value set before a widget's first draw, and
    ``st.query_params`` refuses to write a bound parameter; this is Streamlit's own correction of a
    bound parameter (the call its sliders use after a clamp, Streamlit 1.67)."""
    with get_session_state().query_params() as qp:
        if value is None:
            if key in qp:
                qp.remove_param(key)
        elif isinstance(value, (list, tuple)):
            qp.set_corrected_value(key, [fmt(v) for v in value], "string_array_value")
        else:
            qp.set_corrected_value(key, _num(value) if _is_number(value) and fmt is str else fmt(value), "string_value")


def _from_url(name, call, raw, fmt):
    """The widget's value the URL's ``raw`` strings spell (as Streamlit reads a bound widget's URL
    value), or _UNKNOWN when they spell none of its values."""
    text = raw[-1]
    if name in ("checkbox", "toggle"):
        return {"true": True, "false": False}.get(text.lower(), _UNKNOWN)
    options = list(call.get("options") or [])
    if name == "multiselect":
        found = [next((o for o in options if fmt(o) == r), _UNKNOWN) for r in raw]
        return _UNKNOWN if _UNKNOWN in found else found
    if name in OPTION_WIDGETS:
        return next((o for o in options if fmt(o) == text or str(o) == text), _UNKNOWN)
    if name in NUMBER_WIDGETS:
        number = _number(text)
        if number is None:
            return _UNKNOWN
        return int(number) if number.is_integer() and isinstance(call.get("value", call.get("min_value")), int) else number
    if name in ("text_input", "text_area"):
        return text
    return _UNKNOWN


def _short(text: str, limit: int = 80) -> str:
    """``text``, cut to ``limit`` characters (a link's value can be any length: the note stays short)."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _unreadable(parse, text):
    """Why ``parse`` cannot read ``text`` (its ValueError's message), or None."""
    try:
        parse(text)
    except ValueError as exc:
        return str(exc) or "unreadable"
    return None


def _correction(name, call, raw):
    """(value to use instead, why) for a URL number clamped to the widget's range, else (None, "")."""
    text = raw[-1]
    if name in NUMBER_WIDGETS:
        low, high, number = call.get("min_value"), call.get("max_value"), _number(text)
        if number is not None and low is not None and high is not None and not low <= number <= high:
            used = low if number < low else high
            return used, f", outside the range {_num(low)} to {_num(high)}"
    if name == "select_slider":
        options = list(call.get("options") or [])
        number = _number(text)
        if number is not None and options and all(_is_number(o) for o in options) and text not in map(str, options):
            nearest = min(options, key=lambda o: abs(o - number))
            return nearest, f", not one of the values offered ({_num(options[0])} to {_num(options[-1])})"
    return None, ""


def _why_refused(name, call, raw, fmt):
    """Why Streamlit did not take ``raw`` (best effort; empty when unknown)."""
    if call.get("disabled"):
        return ", but this control is switched off by the other settings"
    if name in OPTION_WIDGETS:
        options = [fmt(o) for o in call.get("options") or []]
        unknown = [r for r in raw if r not in options]
        listed = f" ({', '.join(options)})" if len(options) <= 8 else ""
        if unknown and len(raw) > 1:
            return f", where {', '.join(f'“{u}”' for u in unknown)} {'is' if len(unknown) == 1 else 'are'} not among the options{listed}"
        if unknown:
            return f", not one of the options{listed}"
    if name in NUMBER_WIDGETS and _number(raw[-1]) is None:
        return ", not a number"
    if name in ("checkbox", "toggle"):
        return ", not true or false"
    return ""


def _default(name, call):
    """The widget's default value as the page wrote it, or _UNKNOWN."""
    if name in ("selectbox", "radio"):
        options, index = list(call.get("options") or []), call.get("index", 0)
        return options[index] if options and index is not None else _UNKNOWN
    if name == "multiselect":
        return list(call.get("default") or [])
    if name == "select_slider":
        options = list(call.get("options") or [])
        return call["value"] if "value" in call else (options[0] if options else _UNKNOWN)
    if name in ("checkbox", "toggle"):
        return call.get("value", False)
    if name in ("text_input", "text_area"):
        return call.get("value", "")
    if name in NUMBER_WIDGETS:
        return call["value"] if "value" in call else call.get("min_value", _UNKNOWN)
    return _UNKNOWN


def _means(raw, value, fmt):
    """Whether the URL's ``raw`` strings spell ``value`` (Streamlit drops a value equal to the default)."""
    if isinstance(value, (list, tuple)):
        return [fmt(v) for v in value] == raw
    text = raw[-1]
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if _is_number(value) and fmt is str:
        number = _number(text)
        return number is not None and math.isclose(number, value, rel_tol=1e-9, abs_tol=1e-12)
    return text in (fmt(value), str(value))


def _same(a, b):
    return a is not _UNKNOWN and b is not _UNKNOWN and (list(a) == list(b) if isinstance(a, (list, tuple)) else a == b)


def _show(value, fmt):
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value) or "none"
    return _num(value) if _is_number(value) and fmt is str else fmt(value)


def _number(text):
    try:
        number = float(text)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _num(v):
    return f"{v:g}" if isinstance(v, float) else str(v)
