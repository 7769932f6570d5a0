"""Test LRAP against fit seconds, one line per system (engine.experiments.time_to_accuracy)."""
from __future__ import annotations

import plotly.graph_objects as go

from engine.plotting.common import log_ticks, series_colors


def time_to_accuracy_figure(result, *, title=None) -> go.Figure:
    """One line per curve of a :class:`TimeToAccuracyResult`, seconds on a log axis; a star at each best."""
    fig = go.Figure()
    seconds = []
    metric = result.params.get("metric", "LRAP")
    colors = series_colors(list(result.curves))     # no method's colour: neither curve is one of the app's methods
    for label, curve in result.curves.items():
        color = colors[label]
        seconds += curve["seconds"]
        fig.add_trace(go.Scatter(x=curve["seconds"], y=curve["score"], mode="lines+markers", name=label,
                                 line=dict(color=color), customdata=curve["steps"], meta=dict(curve=label),
                                 hovertemplate=f"%{{x:.2f}} s, step %{{customdata}}: {metric} %{{y:.3f}}<extra></extra>"))
        k = max(range(len(curve["score"])), key=curve["score"].__getitem__)
        fig.add_trace(go.Scatter(x=[curve["seconds"][k]], y=[curve["score"][k]], mode="markers", showlegend=False,
                                 marker=dict(symbol="star", size=13, color=color), meta=dict(best=label),
                                 hovertemplate=f"best: {metric} {curve['score'][k]:.3f} at {curve['seconds'][k]:.2f} s"
                                               "<extra></extra>"))
    fig.update_xaxes(type="log", title="fit seconds, one thread (log scale)", **log_ticks(seconds))
    fig.update_yaxes(title=f"test {metric}")
    fig.update_layout(title=title or f"{result.dataset}: test {metric} against fit seconds",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50))
    return fig
