"""What every figure shares: full labels on log axes, a palette and a colour per method, standalone HTML export."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# One palette for the series of every figure (plotly's default, in this order).
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf")
# One colour per method on every chart of the app (issue 31: gbmort was red beside the q sweep and purple
# beside its learning curves): Figure 1's methods and the oracle keep theirs; every other series (a value
# of q, a projection scheme, another variant) takes the colours no method owns, in order.
METHOD_COLORS = {"st-gbrt": COLORS[0], "gbmort": COLORS[1], "gbrt-rpo-subsampled": COLORS[2],
                 "artificial-gbrt": COLORS[7]}
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
