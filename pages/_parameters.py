"""A page's widget drawn from its row of the parameter table (engine/app/page_content/parameters).

``parameter_widget("conv_n_steps")`` draws the Convergence page's step slider as its row says (kind,
label, range or options, default, help, bound to the URL) through :func:`pages._url.url_widget`, which
notes a link's value the page cannot use. A page passes only what is truly dynamic as an override:
``where`` (a column), ``options`` and ``default`` that depend on the data (a data set's list, the value
the Data page chose), ``disabled``, a ``help`` or ``label`` naming the data, a ``parse`` for a text.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from engine.app.page_content.parameters import parameter
from engine.app.page_content.parameters.row import NUMBER_KINDS, Parameter
from pages._url import url_widget

SHOWN_KEY = "app_params_shown"     # {key: its row's words for the value} of this script run's table widgets


def parameter_widget(key: str, *, where: Any = st, parse=None, **overrides: Any) -> Any:
    """The value of the widget of parameter ``key``, drawn in ``where`` from its row (``overrides``:
    ``options`` / ``default`` given at run time, or any keyword of the streamlit widget)."""
    row = parameter(key)
    value = url_widget(getattr(where, row.kind), parse=parse, **widget_arguments(row, overrides))
    # How the value is stated when a teacher's link hides the control (pages/_classroom.py says it).
    st.session_state.setdefault(SHOWN_KEY, {})[row.key] = row.shown_hidden(
        overrides["format_func"](value) if "format_func" in overrides else value)
    return value


def widget_arguments(row: Parameter, overrides: dict) -> dict:
    """The keywords of the streamlit widget of ``row`` (its ``default`` as the widget's value, index or
    default), with ``overrides`` applied."""
    over = dict(overrides)
    options, default = over.pop("options", row.options), over.pop("default", row.default)
    args = {"label": row.label, "key": row.key, "help": row.help, "bind": "query-params"}
    if row.persist:
        args["persist_state"] = "page"      # keeps its value while the page is away
    if row.kind in NUMBER_KINDS:
        args.update(min_value=row.low, max_value=row.high, value=default)
        if row.step is not None:
            args["step"] = row.step
    elif row.kind in ("selectbox", "radio"):
        options = list(options)
        args.update(options=options, index=options.index(default) if default in options else 0)
    elif row.kind in ("select_slider", "multiselect"):
        args["options"] = list(options)
        if default is not None:
            args["value" if row.kind == "select_slider" else "default"] = list(default) if row.kind == "multiselect" else default
    else:                                   # toggle, checkbox, text_input
        args["value"] = default if default is not None else (False if row.kind != "text_input" else "")
    for name, value in (("horizontal", row.horizontal or None), ("placeholder", row.placeholder),
                        ("captions", list(row.captions) if row.captions else None),
                        ("format_func", row.labels.get if row.labels else None)):
        if value is not None:
            args[name] = value
    args.update(over)
    return args


def parameter_button(key: str, *, where: Any = st, **kwargs: Any) -> bool:
    """The button of ``key``'s row (a control a teacher's link may hide, not in the URL): its label and help
    (``label`` or ``help`` in ``kwargs``: the page's words for them at run time)."""
    row = parameter(key)
    return where.button(kwargs.pop("label", row.label), key=row.key, help=kwargs.pop("help", row.help), **kwargs)
