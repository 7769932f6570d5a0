"""The one place every chart and data frame of the app is rendered: projector sizes, legend captions.

Pages draw a chart with :func:`show_chart` and a data frame with :func:`show_table` (never with
Streamlit's ``plotly_chart`` / ``dataframe`` directly; tests/app/test_render.py holds that), so:

* **a caption under every chart with a legend** says what each entry means
  (:func:`engine.plotting.legend.legend_caption`; a figure whose page explains its legend itself
  sets ``layout.meta["legend_explained"]``);
* with *this session's* projector switch on (``st.session_state["projector"]``, pages/_classroom.py),
  every font of the figure is 1.5 times larger (:func:`engine.plotting.common.projector_figure`:
  axes, legends, annotations such as the One step page's tree labels, table cells), and a data
  frame is drawn as a plain table whose cells wrap (:func:`table_frame`) instead of a grid that
  scrolls and cuts at the right edge (a data frame that selects rows stays a grid).

With the switch off, Streamlit's own function is called with the same arguments.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine.plotting.common import projector_figure
from engine.plotting.legend import legend_caption

PROJECTOR_KEY = "projector"


def projector_on() -> bool:
    """Whether this session's projector switch is on."""
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def table_frame(data, column_order=None, column_config=None) -> pd.DataFrame | None:
    """A data frame's data as a frame of display strings for a plain table (None: not a table we
    can draw the same, e.g. a Styler): ``column_order`` kept, ``column_config`` labels and printf
    formats applied (a column set to None is hidden, as st.dataframe does), other floats to 4
    significant digits."""
    try:
        frame = data.copy() if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    except (ValueError, TypeError):
        return None
    if column_order is not None:
        frame = frame[[c for c in column_order if c in frame.columns]]
    config = dict(column_config or {})
    labels = {}
    for column in list(frame.columns):
        spec = config.get(column, "")
        if column in config and spec is None:
            frame = frame.drop(columns=column)
            continue
        spec = {"label": spec} if isinstance(spec, str) else dict(spec)
        fmt = (spec.get("type_config") or {}).get("format")
        values = frame[column]
        if fmt and "%" in str(fmt) and pd.api.types.is_numeric_dtype(values):
            frame[column] = [("" if pd.isna(v) else str(fmt) % v) for v in values]
        elif pd.api.types.is_float_dtype(values):
            frame[column] = ["" if pd.isna(v) else f"{v:.4g}" for v in values]
        if spec.get("label"):
            labels[column] = spec["label"]
    return frame.rename(columns=labels)


def show_chart(where, figure_or_data, *args, **kwargs):
    """``where.plotly_chart(figure_or_data, ...)`` (``where``: ``st`` or a container) with the legend's
    caption under it and, with the projector switch on, larger fonts."""
    caption = legend_caption(figure_or_data) if isinstance(figure_or_data, go.Figure) else ""
    if projector_on():
        figure_or_data = projector_figure(figure_or_data)
    if not caption:
        return where.plotly_chart(figure_or_data, *args, **kwargs)
    box = where.container()        # chart and caption together (also in an st.empty placeholder)
    shown = box.plotly_chart(figure_or_data, *args, **kwargs)
    box.caption(caption)
    return shown


def show_table(where, data=None, *args, **kwargs):
    """``where.dataframe(data, ...)``; with the projector switch on, a plain table whose cells wrap
    (unless the frame selects rows, or is not a table :func:`table_frame` can draw the same)."""
    if projector_on() and not args and kwargs.get("on_select", "ignore") == "ignore":
        frame = table_frame(data, kwargs.get("column_order"), kwargs.get("column_config"))
        if frame is not None:
            return where.table(frame, hide_index=kwargs.get("hide_index"))
    return where.dataframe(data, *args, **kwargs)
