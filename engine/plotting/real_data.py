"""Figures of the real-data study (paper 002, section 4.4): critical-difference diagrams (Figures 7-8)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.plotting.common import series_colors


def nemenyi_groups(average_ranks, critical_difference):
    """Maximal runs of methods (indices into the rank-sorted order) whose average ranks differ
    by less than the critical difference: the thick bars of Demšar's diagram."""
    r = np.sort(np.asarray(average_ranks, dtype=float))
    groups = []
    if not np.isfinite(critical_difference):
        return groups
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < critical_difference:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in groups):
            groups.append((i, j))
    return groups


def critical_difference_figure(methods, average_ranks, critical_difference, title=None, subtitle=None):
    """Demšar's critical-difference diagram: methods on an axis of average rank (1 = best, left),
    the CD above it, and a thick bar joining methods not significantly different (Nemenyi)."""
    methods, ranks = list(methods), np.asarray(average_ranks, dtype=float)
    k = len(methods)
    order = np.argsort(ranks, kind="stable")
    fig = go.Figure()
    axis_y = 0.0
    fig.add_trace(go.Scatter(x=[1, k], y=[axis_y, axis_y], mode="lines", line=dict(color="black", width=1.5),
                             hoverinfo="skip", showlegend=False))
    for t in range(1, k + 1):
        fig.add_annotation(x=t, y=axis_y, text=str(t), showarrow=False, yshift=12, font=dict(size=12))
    half = (k + 1) // 2
    colors = series_colors(list(methods))     # each method in its colour of every other chart
    for pos, i in enumerate(order):
        left = pos < half
        level = -(pos + 1) if left else -(k - pos)
        x_label = 0.6 if left else k + 0.4
        color = colors[methods[i]]
        fig.add_trace(go.Scatter(
            x=[ranks[i], ranks[i], x_label], y=[axis_y, level * 0.5, level * 0.5], mode="lines+markers",
            line=dict(color=color, width=1.5), marker=dict(size=[7, 0, 0], color=color), name=methods[i],
            hovertemplate=f"{methods[i]}: average rank {ranks[i]:.2f}<extra></extra>", showlegend=False))
        fig.add_annotation(x=x_label, y=level * 0.5, text=f"{methods[i]} ({ranks[i]:.2f})", showarrow=False,
                           xanchor="right" if left else "left", font=dict(size=12, color=color))
    if np.isfinite(critical_difference):
        fig.add_trace(go.Scatter(x=[1, 1 + critical_difference], y=[0.9, 0.9], mode="lines+markers",
                                 line=dict(color="black", width=2), marker=dict(symbol="line-ns-open", size=10),
                                 name="critical difference", hoverinfo="skip", showlegend=False))
        fig.add_annotation(x=1 + critical_difference / 2, y=0.9, text=f"CD = {critical_difference:.2f}",
                           showarrow=False, yshift=12)
    sorted_ranks = ranks[order]
    for g, (a, b) in enumerate(nemenyi_groups(ranks, critical_difference)):
        y = -0.25 - 0.12 * g
        fig.add_trace(go.Scatter(x=[sorted_ranks[a] - 0.05, sorted_ranks[b] + 0.05], y=[y, y], mode="lines",
                                 line=dict(color="black", width=5), hoverinfo="skip", showlegend=False))
    depth = max(half, k - half)
    fig.update_layout(
        title=dict(text=(title or "Critical difference diagram") + (f"<br><sup>{subtitle}</sup>" if subtitle else "")),
        template="plotly_white", height=170 + 42 * depth, margin=dict(l=230, r=230, t=80, b=20),
        xaxis=dict(range=[0.5, k + 0.5], visible=False), yaxis=dict(range=[-0.5 * depth - 0.5, 1.4], visible=False))
    return fig
