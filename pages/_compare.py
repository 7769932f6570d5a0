"""Compare anywhere: Pin a run to overlay it on the next, and Reset a page to its defaults (issue 32).

* :func:`pin_controls` keeps one pinned result per page (``<prefix>_pinned`` in the session) with the
  settings it was made with; the page draws its chart for the pinned result too and overlays it
  (``engine.plotting.overlay_pinned``). Its label names the settings in which the pinned run differs
  from the run on display, so the legend reads "pinned: seed = 3" after a change of seed.
* :func:`reset_button` puts every URL-bound widget of a page back to its default: it sets each
  widget's value to its default (read from the widget Streamlit drew), drops its URL note and takes
  its parameter out of the URL; the button's rerun draws the page with its own defaults.
"""
from __future__ import annotations

import json
from typing import Any

import streamlit as st
from streamlit.runtime.state import get_session_state


def flat_settings(settings: Any, prefix: str = "") -> dict:
    """``settings`` (a dict, possibly nested, or its JSON text) as {"a.b": "value"} with readable values."""
    if isinstance(settings, str):
        try:
            settings = json.loads(settings)
        except ValueError:
            return {prefix or "settings": settings}
    if not isinstance(settings, dict):
        return {prefix or "settings": settings if isinstance(settings, str) else json.dumps(settings, default=str)}
    out = {}
    for key, value in settings.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        out.update(flat_settings(value, name) if isinstance(value, dict) else
                   {name: value if isinstance(value, str) else json.dumps(value, default=str)})
    return out


def settings_label(pinned: dict, current: dict | None = None, limit: int = 4) -> str:
    """The pinned run's settings that differ from ``current`` ("seed = 3, n_steps = 50"), at most
    ``limit`` of them (then "…"); "same settings" when none differs; all of them without ``current``."""
    items = [(k, v) for k, v in pinned.items() if current is None or current.get(k) != v]
    items += [(k, "—") for k in (current or {}) if k not in pinned]
    if not items:
        return "same settings"
    last = [k.split(".")[-1] for k, _ in items]
    # a setting's last name, or its whole name when two settings share it (a.seed and b.seed)
    names = [k if last.count(n) > 1 else n for (k, _), n in zip(items, last)]
    text = ", ".join(f"{n} = {v}" for n, (_, v) in zip(names[:limit], items[:limit]))
    return text + (", …" if len(items) > limit else "")


def _pin(key: str, result: Any, settings: dict) -> None:
    st.session_state[key] = {"result": result, "settings": settings}


def pin_controls(prefix: str, result: Any, settings: Any, container: Any = None) -> tuple[Any, str] | tuple[None, None]:
    """A Pin and a Clear pin button (keys ``<prefix>_pin``, ``<prefix>_clear``) for ``result``, the
    run on display, made with ``settings`` (a dict or its JSON text). Returns the pinned result and
    its label (the settings in which it differs from ``result``'s), or (None, None)."""
    where = container if container is not None else st
    key = f"{prefix}_pinned"
    flat = flat_settings(settings)
    a, b, _ = where.columns([1, 1, 3])
    a.button("Pin", key=f"{prefix}_pin", on_click=_pin, args=(key, result, flat), disabled=result is None,
             use_container_width=True,
             help="Keep this run on the chart (dashed, faded) to compare it with the next one.")
    b.button("Clear pin", key=f"{prefix}_clear", on_click=st.session_state.pop, args=(key, None),
             disabled=key not in st.session_state, use_container_width=True, help="Remove the pinned run.")
    kept = st.session_state.get(key)
    if kept is None:
        return None, None
    return kept["result"], settings_label(kept["settings"], flat)


def page_widget_keys(prefix: str) -> list[str]:
    """The page's URL-bound widgets: the keys Streamlit has bound to the URL, those
    :func:`pages._url.url_widget` drew (each keeps ``<key>_url`` in the session) and any ``<prefix>_``
    parameter in the URL."""
    start = f"{prefix}_"
    with get_session_state().query_params() as params:
        bound = [k for k in getattr(params, "_bindings_by_param", {}) if k.startswith(start)]
    drawn = [k[:-4] for k in st.session_state if k.startswith(start) and k.endswith("_url")]
    return sorted(set(bound) | set(drawn) | {k for k in st.query_params if k.startswith(start)})


_MISSING = object()


def _default_of(key: str) -> Any:
    """The default of the widget drawn with ``key`` (what its deserializer gives for "no value from the
    browser", as Streamlit computes a new widget's value), or _MISSING when no such widget was drawn."""
    state = get_session_state()._state
    widget_id = state.get_widget_id_from_key(key)
    meta = state.get_widget_metadata(widget_id) if widget_id else None
    return _MISSING if meta is None else meta.deserializer(None)


def _reset(prefix: str, extra: tuple[str, ...]) -> None:
    for key in page_widget_keys(prefix) + list(extra):
        st.session_state.pop(f"{key}_url", None)
        # A widget's key deleted from the session would take the browser's value back on the rerun:
        # its default is set instead (and Streamlit drops a default from the URL).
        default = _default_of(key)
        if default is _MISSING:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = default
        # st.query_params refuses to delete a parameter bound to a widget; the binding's own remover
        # (the one Streamlit uses to drop a URL value it cannot use) takes it out of the URL.
        with get_session_state().query_params() as params:
            params.remove_param(key)


def reset_button(prefix: str, extra: tuple[str, ...] = (), container: Any = None, label: str = "Reset",
                 **kwargs: Any) -> bool:
    """A Reset button (key ``<prefix>_reset_all``): every widget of the page back to its default,
    and the URL without the page's parameters. ``extra``: other session keys the page keeps for its
    controls (also cleared). The button's own rerun draws the page with its defaults."""
    where = container if container is not None else st
    return where.button(label, key=f"{prefix}_reset_all", on_click=_reset, args=(prefix, tuple(extra)),
                        help="Every setting of this page back to its default (and out of the URL).", **kwargs)


def with_pinned(fig: Any, build: Any, pinned: Any, label: str | None, same_kind: bool = True) -> Any:
    """``fig`` with ``build(pinned)`` overlaid (dashed, faded) when a run is pinned and is of the
    same kind as the one on display (``same_kind``: the page's check), else ``fig`` unchanged; a
    caption says which case it is."""
    from engine.plotting import overlay_pinned

    if pinned is None:
        return fig
    if not same_kind:
        st.caption("The pinned run is another kind of experiment: it is not drawn on this chart "
                   "(pick its experiment again to see it, or Clear pin).")
        return fig
    st.caption(f"Dashed and faded: the pinned run ({label}).")
    return overlay_pinned(fig, build(pinned), label)
