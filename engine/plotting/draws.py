"""Figures of "one draw, many draws" (engine/dashboard/draws.py): the fits so far and the running terms."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.plotting.common import COLORS

TERM_STYLE = {"error": ("expected error", "#111111"), "bias2": ("bias²", COLORS[1]),
              "variance": ("variance", COLORS[0]), "var_algorithm": ("algorithm variance", COLORS[3]),
              "noise": ("noise", "#7f7f7f")}
MAX_THIN_CURVES = 60


def draws_figure(running) -> go.Figure:
    """Left: each draw's model on the x1 slice (thin), their mean and the Bayes model.
    Right: every term of the decomposition after 1, 2, ... draws."""
    result = running.result()
    k = running.n_draws
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
        f"{k} fitted model{'s' if k != 1 else ''} (output 1 along x₁)", "decomposition after each draw"))
    if result is not None:
        x = result.slice_x
        curves = result.slice_curves[0][-MAX_THIN_CURVES:]
        for i, curve in enumerate(curves):
            fig.add_trace(go.Scatter(x=x, y=curve, mode="lines", line=dict(color="rgba(31,119,180,0.35)", width=1),
                                     name="one draw", showlegend=i == 0, legendgroup="draw",
                                     hoverinfo="skip"), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=result.slice_mean[0], mode="lines", name="mean of the draws",
                                 line=dict(color=COLORS[4], width=3)), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=result.slice_bayes, mode="lines", name="Bayes model E[y₁|x]",
                                 line=dict(color="#111", width=2, dash="dash")), row=1, col=1)
        draws = np.arange(1, k + 1)
        for term, (label, color) in TERM_STYLE.items():
            if term == "var_algorithm" and result.n_seeds < 2:
                continue            # one seed per set: not measured (shown as part of the variance)
            fig.add_trace(go.Scatter(x=draws, y=running.history[term], mode="lines+markers" if k < 30 else "lines",
                                     name=label, line=dict(color=color, width=2), marker=dict(size=5),
                                     meta={"term": term}), row=1, col=2)
    fig.update_xaxes(title_text="x₁ (other inputs at 0.5)", row=1, col=1)
    fig.update_yaxes(title_text="prediction of output 1", row=1, col=1)
    fig.update_xaxes(title_text="learning sets drawn", rangemode="tozero", row=1, col=2)
    fig.update_yaxes(title_text="mean over test points and outputs", rangemode="tozero", row=1, col=2)
    fig.update_layout(height=420, margin=dict(l=60, r=10, t=40, b=50),
                      legend=dict(orientation="h", y=-0.2, x=0))
    return fig
