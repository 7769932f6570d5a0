"""What every figure shares: full labels on log axes, a palette and a colour per method, standalone HTML export."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.methods import method_colours
from engine.names import ARTIFICIAL

# One palette for the series of every figure (plotly's default, in this order).
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf")
# One colour per method on every chart of the app (issue 31: gbmort was red beside the q sweep and purple
# beside its learning curves): Figure 1's methods and the oracle keep theirs; every other series (a value
# of q, a projection scheme, another variant) takes the colours no method owns, in order.
# The methods' own colours are their rows' in the method table (engine/methods.py); the oracle's is here.
METHOD_COLORS = {**method_colours(), ARTIFICIAL: COLORS[7]}
OTHER_COLORS = tuple(c for c in COLORS if c not in METHOD_COLORS.values())


def series_colors(names) -> dict:
    """{name: colour} for the series ``names`` of one chart: a method's own colour (METHOD_COLORS),
    else the next of OTHER_COLORS in the order of ``names``."""
    out, i = {}, 0
    for name in names:
        if name in out:
            continue
        if name in METHOD_COLORS:
            out[name] = METHOD_COLORS[name]
        else:
            out[name] = OTHER_COLORS[i % len(OTHER_COLORS)]
            i += 1
    return out


def log_ticks(values) -> dict:
    """Tick values and full labels for a log axis spanning ``values`` (the positive ones).

    Plotly's default log ticks label 20 and 50 as "2" and "5" after 10, which students
    misread; these label every tick in full: 1-2-5 per decade for up to three decades,
    one tick per decade beyond, from the tick at or below the smallest value to the one at
    or above the largest. Empty dict when there is nothing positive to span.
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return {}
    lo, hi = int(np.floor(np.log10(v.min()))), int(np.ceil(np.log10(v.max())))
    hi = max(hi, lo + 1)
    steps = (1, 2, 5) if hi - lo <= 3 else (1,)
    ticks = [m * 10.0 ** k for k in range(lo, hi + 1) for m in steps]
    first = max(t for t in ticks if t <= v.min())    # from the tick at or below the smallest value
    last = min(t for t in ticks if t >= v.max())      # to the one at or above the largest
    ticks = [t for t in ticks if first <= t <= last]
    return {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def _swept_ticks(values) -> dict:
    """A few whole numbers (a sweep of q or of the number of trees): one tick at each."""
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v) & (v > 0)]
    if 0 < v.size <= 12 and np.all(v == np.round(v)):
        return {"tickvals": v.tolist(), "ticktext": [f"{t:g}" for t in v]}
    return {}


def label_log_axes(fig: go.Figure) -> go.Figure:
    """Give every log axis of ``fig`` that has no explicit ticks full labels: an x axis that
    holds a few whole numbers (a swept parameter) a tick at each, any other log_ticks."""
    for axis_name in [k for k in fig.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
        axis = fig.layout[axis_name]
        if axis.type != "log" or axis.tickvals is not None:
            continue
        letter, suffix = axis_name[0], axis_name[5:]
        ref = letter + suffix                       # "xaxis2" is referenced as "x2"
        values = [getattr(t, letter) for t in fig.data
                  if (getattr(t, f"{letter}axis", None) or letter) == ref and getattr(t, letter, None) is not None]
        if values:
            values = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values])
            axis.update(**((letter == "x" and _swept_ticks(values)) or log_ticks(values)))
    return fig


def standalone_html(fig: go.Figure) -> str:
    """The figure as one interactive HTML file with plotly.js embedded: opens offline, no CDN."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


# The projector view (a sidebar switch of the app): every font of a figure this many times larger.
PROJECTOR_SCALE = 1.5
# Sizes plotly (and the Streamlit theme's template) use where a figure sets none.
_DEFAULT_FONT = {"font": 12, "tickfont": 12, "title": 16, "axis_title": 14, "legend": 12, "annotation": 12}


def _scaled(size, default, scale):
    if isinstance(size, (list, tuple)):
        return [float(s or default) * scale for s in size]
    return float(size or default) * scale


def _scale_fonts(node, scale, default):
    """Scale, in place, ``size`` of every font dict below ``node`` (a figure's JSON): ``*font`` keys
    (font, tickfont, textfont, insidetextfont, ...), fonts of table headers and cells included."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict):
                value["size"] = _scaled(value.get("size"), default, scale)
            else:
                _scale_fonts(value, scale, default)
    elif isinstance(node, list):
        for item in node:
            _scale_fonts(item, scale, default)


def projector_figure(fig, scale: float = PROJECTOR_SCALE) -> go.Figure:
    """A copy of ``fig`` (a Figure or its dict) with every text ``scale`` times larger: the global
    font, titles, axis ticks and titles, the legend, annotations (a tree's node boxes, subplot
    titles), trace texts and table cells; axes get automatic margins so larger tick labels fit.
    Sizes the figure leaves unset get plotly's defaults first, and explicit sizes are scaled
    (the Streamlit theme would otherwise set small ones). ``fig`` itself is never changed."""
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    spec = (fig.to_plotly_json() if isinstance(fig, go.Figure) else go.Figure(fig).to_plotly_json())
    spec = go.Figure(spec).to_dict()          # a deep copy as plain dicts
    layout = spec.setdefault("layout", {})
    for trace in spec.get("data", []):          # fonts the trace leaves unset, then every font it has
        if trace.get("type") == "table":
            for part in ("header", "cells"):
                trace.setdefault(part, {}).setdefault("font", {})
        elif "text" in trace or "texttemplate" in trace:
            trace.setdefault("textfont", {})
    _scale_fonts(spec.get("data", []), scale, _DEFAULT_FONT["font"])
    axes = {"xaxis", "yaxis"} | {name[0] + "axis" + name[1:] for trace in spec.get("data", [])
                                 for name in (trace.get("xaxis"), trace.get("yaxis")) if name}
    for axis in axes:                           # an axis the figure leaves to defaults gets the sizes too
        layout.setdefault(axis, {})
    for key in [k for k in layout if k != "template"]:
        if key.startswith(("xaxis", "yaxis")):
            axis = layout[key]
            axis["tickfont"] = {**axis.get("tickfont", {}), "size": _scaled(axis.get("tickfont", {}).get("size"),
                                                                            _DEFAULT_FONT["tickfont"], scale)}
            title = axis["title"] = axis.get("title", {}) if isinstance(axis.get("title", {}), dict) else {"text": axis["title"]}
            title["font"] = {**title.get("font", {}), "size": _scaled(title.get("font", {}).get("size"),
                                                                      _DEFAULT_FONT["axis_title"], scale)}
            axis.setdefault("automargin", True)
        elif key == "annotations":
            for note in layout[key]:
                note["font"] = {**note.get("font", {}), "size": _scaled(note.get("font", {}).get("size"),
                                                                        _DEFAULT_FONT["annotation"], scale)}
        elif key not in ("font", "title", "legend"):
            _scale_fonts(layout[key], scale, _DEFAULT_FONT["font"])
    layout["font"] = {**layout.get("font", {}), "size": _scaled(layout.get("font", {}).get("size"),
                                                                _DEFAULT_FONT["font"], scale)}
    title = layout.get("title", {})
    if title.get("text"):
        # less than the rest: plotly never wraps a title, and a long one would be cut at the chart's edge
        title["font"] = {**title.get("font", {}), "size": _scaled(title.get("font", {}).get("size"),
                                                                  _DEFAULT_FONT["title"], 1 + (scale - 1) / 2)}
    legend = layout["legend"] = layout.get("legend", {})
    legend["font"] = {**legend.get("font", {}), "size": _scaled(legend.get("font", {}).get("size"),
                                                                _DEFAULT_FONT["legend"], scale)}
    if layout.get("height"):
        layout["height"] = int(round(layout["height"] * (1 + (scale - 1) / 2)))   # room for the larger text
    return go.Figure(spec)


def overlay_pinned(fig: go.Figure, pinned: go.Figure, label: str) -> go.Figure:
    """A copy of ``fig`` with every trace of ``pinned`` (the same chart drawn from a kept run) added
    behind it, dashed and faded, grouped in the legend under "pinned: ``label``" so a student
    compares two runs on one chart. A trace keeps its subplot (its axes), its colour and its place
    in or out of the legend; a stacked area gets a stack of its own (and no fill), so the pinned run
    never stacks onto the current one."""
    if not isinstance(fig, go.Figure) or not isinstance(pinned, go.Figure):
        raise ValueError(f"fig and pinned must be plotly Figures, got {type(fig).__name__} and {type(pinned).__name__}")
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"label must be a non-empty text, got {label!r}")
    out = go.Figure(fig)
    title = f"pinned: {label}"
    kept = []
    for trace in pinned.data:
        t = trace.to_plotly_json()
        # An unnamed helper trace (a band, a fill) stays out of the legend, as in the current run.
        named = bool(t.get("name"))
        t["name"] = f"pinned · {t['name']}" if named else "pinned"
        t.update(legendgroup="pinned", legendgrouptitle={"text": title}, opacity=0.45,
                 showlegend=named and t.get("showlegend", True) is not False,
                 hoverlabel={"namelength": -1})
        if t.get("type", "scatter") in ("scatter", "scattergl"):
            t["line"] = {**(t.get("line") or {}), "dash": "dash"}
            if t.get("stackgroup"):
                t.update(stackgroup=f"pinned {t['stackgroup']}", fill="none")
        kept.append(t)
    out.add_traces(kept)
    # behind the current run's traces: the pinned ones first
    out.data = out.data[len(fig.data):] + out.data[:len(fig.data)]
    _room_for_pinned_legend(out, sum(bool(t["showlegend"]) for t in kept))
    return out


_LEGEND_ROW_PX = 20


def _room_for_pinned_legend(fig: go.Figure, n_rows: int) -> None:
    """A legend under the plot (horizontal, y < 0) is anchored by its bottom, so the pinned group
    (its title and a row per entry) would grow it upwards over the axis titles: anchor it by its
    top instead and make the figure taller by the rows it gains."""
    legend = fig.layout.legend
    if legend.orientation != "h" or legend.y is None or legend.y >= 0:
        return
    extra = _LEGEND_ROW_PX * (n_rows + 1)
    height = fig.layout.height or 450               # plotly's default height
    bottom = fig.layout.margin.b if fig.layout.margin.b is not None else 80
    fig.update_layout(legend_yanchor="top", height=height + extra, margin_b=bottom + extra)
