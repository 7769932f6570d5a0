"""Figures of "one draw, many draws" (engine/app/page_models/draws.py): the fits so far and the running terms."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.plotting.common import COLORS

TERM_STYLE = {"error": ("expected error", "#111111"), "bias2": ("bias²", COLORS[1]),
              "variance": ("variance", COLORS[0]), "var_algorithm": ("algorithm variance", COLORS[3]),
              "noise": ("noise", "#7f7f7f")}
# The split of a forest's algorithm variance (paper 003, Appendix C.2), in its own panel.
SPLIT_STYLE = {"var_algorithm": ("algorithm variance (measured)", COLORS[3], "solid"),
               "projection_part": ("projection term Φ", COLORS[4], "dash"),
               "tree_part": ("tree term θ", COLORS[2], "dot")}
MAX_THIN_CURVES = 60
FOREST_KINDS = {"alg1": "Algorithm 1, one projection shared by the trees",
                "alg2": "Algorithm 2, a projection per tree"}


def _slice_panel(fig, x, curves, mean, bayes):
    """Each draw's model on the x1 slice (thin), their mean and the Bayes model, in (1, 1)."""
    for i, curve in enumerate(curves[-MAX_THIN_CURVES:]):
        fig.add_trace(go.Scatter(x=x, y=curve, mode="lines", line=dict(color="rgba(31,119,180,0.35)", width=1),
                                 name="one draw", showlegend=i == 0, legendgroup="draw",
                                 hoverinfo="skip"), row=1, col=1)
    fig.add_trace(go.Scatter(x=x, y=mean, mode="lines", name="mean of the draws",
                             line=dict(color=COLORS[4], width=3)), row=1, col=1)
    fig.add_trace(go.Scatter(x=x, y=bayes, mode="lines", name="Bayes model E[y₁|x]",
                             line=dict(color="#111", width=2, dash="dash")), row=1, col=1)


def _term_trace(k, values, label, color, term, dash="solid"):
    draws = np.arange(1, k + 1)
    return go.Scatter(x=draws, y=values, mode="lines+markers" if k < 30 else "lines", name=label,
                      line=dict(color=color, width=2, dash=dash), marker=dict(size=5), meta={"term": term})


def _layout(fig, n_cols):
    fig.update_xaxes(title_text="x₁ (other inputs at 0.5)", row=1, col=1)
    fig.update_yaxes(title_text="prediction of output 1", row=1, col=1)
    for col in range(2, n_cols + 1):
        fig.update_xaxes(title_text="learning sets drawn", rangemode="tozero", row=1, col=col)
    fig.update_yaxes(title_text="mean over test points and outputs", rangemode="tozero", row=1, col=2)
    fig.update_layout(height=420, margin=dict(l=60, r=10, t=40, b=50),
                      legend=dict(orientation="h", y=-0.2, x=0))


def draws_figure(running) -> go.Figure:
    """Left: each draw's model on the x1 slice (thin), their mean and the Bayes model.
    Right: every term of the decomposition after 1, 2, ... draws."""
    result = running.result()
    k = running.n_draws
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
        f"{k} fitted model{'s' if k != 1 else ''} (output 1 along x₁)", "decomposition after each draw"))
    if result is not None:
        _slice_panel(fig, result.slice_x, result.slice_curves[0], result.slice_mean[0], result.slice_bayes)
        for term, (label, color) in TERM_STYLE.items():
            if term == "var_algorithm" and result.n_seeds < 2:
                continue            # one seed per set: not measured (shown as part of the variance)
            fig.add_trace(_term_trace(k, running.history[term], label, color, term), row=1, col=2)
    _layout(fig, 2)
    return fig


def forest_draws_figure(running, kind) -> go.Figure:
    """A projected forest drawn one learning set at a time (a RunningForestBiasVariance; ``kind``
    "alg1" or "alg2"). Left: each draw's forest on the x1 slice. Middle: the forest's
    decomposition after each draw. Right, on its own scale: the forest's measured algorithm
    variance and its projection and tree terms (Appendix C.2, from the single projected trees)."""
    if kind not in FOREST_KINDS:
        raise ValueError(f"kind must be one of {list(FOREST_KINDS)}, got {kind!r}")
    k = running.n_draws
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.07, column_widths=[0.36, 0.32, 0.32], subplot_titles=(
        f"{k} fitted forest{'s' if k != 1 else ''} (output 1 along x₁)", "decomposition after each draw",
        "algorithm variance, split"))
    if k:
        if kind not in running.slice_curves:
            raise ValueError(f"kind: {kind!r} was not drawn (include_forests=False)")
        _slice_panel(fig, running.slice_x, running.slice_curves[kind], running.slice_mean(kind),
                     running.slice_bayes)
        h = running.history
        for term, (label, color) in TERM_STYLE.items():
            key = term if term == "noise" else f"{kind}_{term}"
            if term == "var_algorithm":
                continue            # in the right-hand panel, with its split
            fig.add_trace(_term_trace(k, h[key], label, color, key), row=1, col=2)
        for term, (label, color, dash) in SPLIT_STYLE.items():
            key = f"{kind}_{term}"
            fig.add_trace(_term_trace(k, h[key], label, color, key, dash), row=1, col=3)
    _layout(fig, 3)
    fig.update_yaxes(rangemode="tozero", row=1, col=3)
    return fig
