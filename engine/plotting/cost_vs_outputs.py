"""Seconds per boosting step against the number of outputs d, log–log (engine.experiments.cost_vs_outputs).

On log–log axes a cost that grows as d^a is a straight line of slope a: st-gbrt and gbmort climb
at about 1 (twice the outputs, twice the time), the projected methods far more gently, which is
paper 002's cost argument read off one picture.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.methods import BOOSTING
from engine.plotting.common import COLORS, log_ticks

# Dashed for the methods whose step works on every output (st-gbrt, gbmort), solid for the projected ones.
DASH = {row.name: "dash" for row in BOOSTING.values() if not row.projected}


def cost_vs_outputs_figure(result, *, title=None) -> go.Figure:
    """One line per method of a :class:`CostVsOutputsResult`: median seconds per step at each d
    (markers), bars from the fastest to the slowest timed fit. Each trace's ``meta`` holds the
    method's estimator, q and fitted log–log slope (what the page's sentence quotes)."""
    fig = go.Figure()
    d = np.asarray(result.d_values, dtype=float)
    values = []
    for i, method in enumerate(result.methods):
        s = np.asarray(result.seconds[method.label], dtype=float)
        ok = np.isfinite(s)
        if not ok.any():
            continue
        lo, hi = np.asarray(result.low[method.label])[ok], np.asarray(result.high[method.label])[ok]
        values += s[ok].tolist() + lo.tolist() + hi.tolist()
        steps = np.asarray(result.steps[method.label])[ok]
        fig.add_trace(go.Scatter(
            x=d[ok].tolist(), y=s[ok].tolist(), mode="lines+markers", name=method.label,
            line=dict(color=COLORS[i % len(COLORS)], dash=DASH.get(method.estimator, "solid")),
            error_y=dict(type="data", symmetric=False, array=np.clip(hi - s[ok], 0, None).tolist(),
                         arrayminus=np.clip(s[ok] - lo, 0, None).tolist(), visible=True, thickness=1),
            customdata=steps.tolist(),
            meta=dict(label=method.label, estimator=method.estimator, q=method.q, slope=result.slope(method.label)),
            hovertemplate=f"{method.label}<br>d = %{{x}}: %{{y:.3g}} s per step<br>"
                          "(median of timed fits of %{customdata} steps)<extra></extra>"))
    ticks = [float(t) for t in d[::-1][::max(1, -(-len(d) // 6))][::-1]]   # the measured d: at most 6, the largest kept
    fig.update_xaxes(type="log", title="number of outputs d (log scale)", tickvals=ticks,
                     ticktext=[f"{t:g}" for t in ticks])
    fig.update_yaxes(type="log", title="seconds per boosting step, one thread (log scale)", **log_ticks(values))
    n = result.settings
    fig.update_layout(
        title=title or f"Seconds per step against d (n = {n['n_samples']}, p = {n['n_features']}, {n['max_leaf_nodes']} leaves)",
        legend=dict(orientation="h", y=-0.2, x=0), hovermode="closest", height=520,
        margin=dict(l=70, r=20, t=60, b=40), meta=dict(complete=result.complete, legend_explained=True))   # the page lists every entry
    return fig
