"""A fitted tree drawn as a node-link diagram (plotly shapes and text, no streamlit).

The drawing is made from a :class:`engine.app.page_models.one_step.TreeDrawing`, the nodes as the
model's ``TreeStore`` holds them. Leaves are spread evenly from left to right in the order a
depth-first walk meets them (left child first), every split sits above the middle of its two
children, one row per depth: the layout of a textbook tree, without crossing edges.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.formatting import fmt_number

SPLIT_COLOR, LEAF_COLOR, EDGE_COLOR = "#1f77b4", "#2ca02c", "#9a9a9a"


def tree_layout(left, right):
    """``(x, depth)`` of every node: leaves at 0, 1, 2... in depth-first order, splits centred above."""
    left, right = np.asarray(left), np.asarray(right)
    n = len(left)
    x, depth = np.zeros(n), np.zeros(n, dtype=int)
    next_leaf = 0

    def place(node, level):
        nonlocal next_leaf
        depth[node] = level
        if left[node] < 0:
            x[node] = next_leaf
            next_leaf += 1
            return
        place(left[node], level + 1)
        place(right[node], level + 1)
        x[node] = (x[left[node]] + x[right[node]]) / 2.0

    if n:
        place(0, 0)
    return x, depth


def _fmt(v):
    return fmt_number(v, 3)


def _value_text(value):
    """A leaf's stored value: the number, or the mean and range of a vector."""
    value = np.asarray(value, dtype=float)
    if value.size == 1:
        return f"value {_fmt(value[0])}"
    return f"mean {_fmt(value.mean())}<br>[{_fmt(value.min())}, {_fmt(value.max())}]"


def feature_label(f, feature_names=None):
    """A feature's name; by default x1, x2, ... (numbered from 1, as the papers do)."""
    return feature_names[f] if feature_names is not None and 0 <= f < len(feature_names) else f"x{f + 1}"


def tree_figure(tree, *, feature_names=None, compact=False, title=None, height=None) -> go.Figure:
    """The tree: splits (feature ≤ threshold, SSE decrease, n) and leaves (n, value).

    Not compact: every split also shows the best rejected split (another feature) and its SSE
    decrease, so the chosen gain reads next to the runner-up. Compact (the small multiples of
    the Convergence page): feature and threshold only, and the leaf's n.
    """
    x, depth = tree_layout(tree.left, tree.right)
    fig = go.Figure()
    for node in range(len(x)):
        for child in (tree.left[node], tree.right[node]):
            if child >= 0:
                fig.add_shape(type="line", x0=x[node], y0=-depth[node], x1=x[child], y1=-depth[child],
                              line=dict(color=EDGE_COLOR, width=1.5), layer="below")
    is_leaf = tree.feature < 0
    leaf_number = {int(leaf): i + 1 for i, leaf in enumerate(tree.leaves)}
    texts, hovers = [], []
    for node in range(len(x)):
        n = int(tree.n_samples[node])
        if is_leaf[node]:
            name = f"leaf {leaf_number[node]}"
            texts.append(f"n={n}" if compact else f"<b>{name}</b>: n={n}<br>{_value_text(tree.value[node])}")
            hovers.append(f"{name}, {n} samples<br>stored value: "
                          + ", ".join(_fmt(v) for v in np.asarray(tree.value[node]).ravel()[:20]))
            continue
        split = f"{feature_label(tree.feature[node], feature_names)} ≤ {_fmt(tree.threshold[node])}"
        if compact:
            texts.append(split)
        else:
            rejected = ("no other split" if tree.rejected_feature[node] < 0 else
                        f"{feature_label(tree.rejected_feature[node], feature_names)} ≤ "
                        f"{_fmt(tree.rejected_threshold[node])}: gain {_fmt(tree.rejected_improvement[node])}")
            texts.append(f"<b>{split}</b><br>gain {_fmt(tree.improvement[node])}, n={n}"
                         f"<br><span style='color:#777'>rejected: {rejected}</span>")
        hovers.append(f"{split}<br>SSE decrease {_fmt(tree.improvement[node])}<br>{n} samples")
    # Hover targets (the boxes below are annotations, which plotly does not hover).
    fig.add_trace(go.Scatter(x=x, y=-depth, mode="markers", hovertext=hovers, hoverinfo="text", showlegend=False,
                             name="nodes", marker=dict(size=1, color="rgba(0,0,0,0)")))
    for mask, color, name in ((~is_leaf, SPLIT_COLOR, "split"), (is_leaf, LEAF_COLOR, "leaf")):
        idx = np.flatnonzero(mask)
        # The node texts, one trace per kind (tests and the page read them back by name) ...
        fig.add_trace(go.Scatter(x=x[idx], y=-depth[idx], mode="markers", name=name, showlegend=False,
                                 text=[texts[i] for i in idx], hoverinfo="skip",
                                 marker=dict(size=1, color="rgba(0,0,0,0)")))
        # ... drawn as boxes over the edges.
        for i in idx:
            fig.add_annotation(x=x[i], y=-depth[i], text=texts[i], showarrow=False, align="center",
                               font=dict(size=10 if compact else 12, color="#222"), bgcolor="white",
                               bordercolor=color, borderwidth=1.5, borderpad=3 if compact else 5)
    span = max(x.max() if len(x) else 0, 1)
    max_depth = depth.max() if len(depth) else 0
    fig.update_xaxes(visible=False, range=[-0.6, span + 0.6])
    fig.update_yaxes(visible=False, range=[-max_depth - 0.45, 0.45])
    fig.update_layout(
        height=height or (70 + 80 * max_depth if compact else 140 + 130 * max_depth), margin=dict(l=5, r=5, t=30 if title else 5, b=5),
        title=dict(text=title, font=dict(size=12 if compact else 14)) if title else None,
        plot_bgcolor="white", dragmode=False)
    return fig


def mark_step(fig, curve, step, x="trees_per_output"):
    """Mark step ``step`` of ``curve`` (a Curve of a ConvergenceResult) on the left panel of a
    live convergence figure: a dotted vertical line and a ring on the curve's test score there."""
    at = np.flatnonzero(np.asarray(curve.step) == step)
    if not at.size:
        return fig
    x0, y0 = float(np.asarray(getattr(curve, x), dtype=float)[at[0]]), float(curve.test_score[at[0]])
    fig.add_vline(x=x0, line=dict(color="#555", dash="dot", width=1), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=[x0], y=[y0], mode="markers", name=f"tree of step {step}", showlegend=False,
        marker=dict(size=14, color="rgba(0,0,0,0)", line=dict(color="#111", width=2)),
        hovertext=f"{curve.label}: tree of step {step}, test score {y0:.4f}", hoverinfo="text",
        meta={"run": "current", "estimator": curve.name, "kind": "tree_mark"}), row=1, col=1)
    return fig
