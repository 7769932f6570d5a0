"""Figures of the One step page: one boosting step, from the residuals to the update (no streamlit).

Each builder takes a :class:`engine.app.page_models.one_step.StepView`; samples are drawn in the
view's ``sample_order`` (sorted by the first tree's root split feature), so the residual matrix,
the projected target and the update line up row for row.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from engine.formatting import fmt_number
from engine.methods import method_of
from engine.plotting.common import COLORS

DIVERGING = "RdBu_r"
# Outputs whose train score moved by less than this in a step "gained nothing" (drawn grey).
NO_GAIN = 1e-9


def _symmetric(values):
    m = float(np.nanmax(np.abs(values))) if np.size(values) else 1.0
    return m if m > 0 else 1.0


def _heatmap(Z, x_labels, title, colorbar_title, height=260, y_title="training samples (sorted)"):
    m = _symmetric(Z)
    fig = go.Figure(go.Heatmap(z=Z, x=x_labels, colorscale=DIVERGING, zmin=-m, zmax=m,
                               colorbar=dict(title=colorbar_title, thickness=12)))
    fig.update_layout(title=dict(text=title, font=dict(size=14)), height=height,
                      margin=dict(l=50, r=10, t=40, b=40))
    fig.update_yaxes(title=y_title, showticklabels=False)
    return fig


def output_labels(d):
    return [f"y{j + 1}" for j in range(d)]


def gradient_figure(view) -> go.Figure:
    """G, n x d: each training sample's negative gradient (residual, for the square loss)."""
    G = view.gradient[view.sample_order]
    return _heatmap(G, output_labels(G.shape[1]), "Residuals G (negative gradient), n × d", "g")


def projection_figure(view) -> go.Figure:
    """φ or Φ (q x d) as a heat strip: how each projected target weighs the outputs."""
    phi = view.projection
    fig = _heatmap(phi, output_labels(phi.shape[1]), f"Projection Φ drawn for this step, q × d = {phi.shape[0]} × {phi.shape[1]}",
                   "φ", height=110 + 28 * phi.shape[0], y_title="row")
    fig.update_yaxes(showticklabels=True, tickvals=list(range(phi.shape[0])),
                     ticktext=[f"φ{r + 1}" for r in range(phi.shape[0])], autorange="reversed")
    # The weights written in the cells (a colour bar would be squeezed into the strip's height).
    fig.update_traces(showscale=False, text=np.vectorize(lambda v: fmt_number(v, 2))(phi), texttemplate="%{text}")
    return fig


def targets_figure(view, tree_index=0) -> go.Figure:
    """The split targets the tree was grown on (G Φᵀ, G, or one column of G), samples in order."""
    row, _ = method_of(view.settings.method)
    T = view.targets[view.sample_order]
    if row.trees_per_step == "d":       # st-gbrt: one tree per output
        T = T[:, [tree_index]]
        labels, title = [f"g{tree_index + 1}"], f"Target of output y{tree_index + 1}'s tree: column {tree_index + 1} of G"
    elif view.projection is not None:
        labels, title = [f"Gφ{r + 1}ᵀ" for r in range(T.shape[1])], "Projected target G Φᵀ (n × q): the tree's target"
    else:
        labels, title = output_labels(T.shape[1]), "gbmort grows its tree on G itself, n × d"
    return _heatmap(T, labels, title, "target")


def leaf_values_figure(view, tree_index=0) -> go.Figure:
    """Leaf values before relabelling (mean split targets) and after (the stored leaf values)."""
    tree = view.trees[tree_index]
    leaves = tree.leaves
    names = [f"leaf {i + 1} (n={tree.n_samples[leaf]})" for i, leaf in enumerate(leaves)]
    before = view.leaf_before[tree_index]
    after = np.asarray(tree.value[leaves])
    relabel = method_of(view.settings.method)[0].relabels is not None
    from plotly.subplots import make_subplots
    newton = view.settings.leaf_estimation == "newton"
    after_title = "Newton step per leaf (d values)" if newton else "mean G per leaf (d values)"
    titles = (("before relabelling: mean G Φᵀ per leaf (q values)", f"after relabelling: {after_title}")
              if relabel else ("mean split target per leaf", "stored leaf value" + (" (Newton step)" if newton else "")))
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, column_widths=[0.3, 0.7] if relabel else [0.5, 0.5],
                        horizontal_spacing=0.12, shared_yaxes=True)   # the same leaves: their names once, on the left
    m = _symmetric(np.concatenate([before.ravel(), after.ravel()]))
    x_before = ([f"Gφ{r + 1}ᵀ" for r in range(before.shape[1])] if view.projection is not None
                else output_labels(before.shape[1]) if before.shape[1] > 1 else ["target"])
    x_after = output_labels(after.shape[1]) if after.shape[1] > 1 else ["value"]
    for col, (Z, xl) in enumerate(((before, x_before), (after, x_after)), start=1):
        fig.add_trace(go.Heatmap(z=Z, x=xl, y=names, colorscale=DIVERGING, zmin=-m, zmax=m, showscale=col == 2,
                                 text=np.vectorize(lambda v: fmt_number(v, 2))(Z), texttemplate="%{text}",
                                 colorbar=dict(thickness=12)), row=1, col=col)
    fig.update_layout(height=90 + 34 * len(leaves), margin=dict(l=10, r=10, t=40, b=30))
    fig.update_yaxes(autorange="reversed")
    return fig


def rho_figure(view) -> go.Figure:
    """ρ per output, outputs whose train score did not move this step in grey."""
    d = len(view.rho)
    gained = np.abs(view.train_after - view.train_before) > NO_GAIN
    colors = [COLORS[0] if g else "#c8c8c8" for g in gained]
    fig = go.Figure(go.Bar(x=output_labels(d), y=view.rho, marker_color=colors,
                           hovertext=[f"ρ = {fmt_number(r, 4)}" + ("" if g else " (score unchanged)") for r, g in zip(view.rho, gained)],
                           hoverinfo="text"))
    fig.update_layout(title=dict(text="ρ per output (line search; grey: score unchanged this step)", font=dict(size=14)),
                      height=240, margin=dict(l=50, r=10, t=40, b=30), yaxis_title="ρ")
    return fig


def score_change_figure(view) -> go.Figure:
    """Change of the train and test score of every output in this step."""
    d = len(view.train_before)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=output_labels(d), y=view.train_after - view.train_before, name="train", marker_color=COLORS[0]))
    fig.add_trace(go.Bar(x=output_labels(d), y=view.test_after - view.test_before, name="test", marker_color=COLORS[1]))
    fig.update_layout(title=dict(text=f"Change of the {view.score_name} of each output in this step", font=dict(size=14)),
                      barmode="group", height=260, margin=dict(l=50, r=10, t=40, b=30),
                      yaxis_title=f"Δ {view.score_name}", legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"))
    return fig


def update_figure(view) -> go.Figure:
    """The update learning_rate · ρ ⊙ tree(x) added to F, samples in order."""
    U = view.update[view.sample_order]
    return _heatmap(U, output_labels(U.shape[1]), "Update of F: learning rate × ρ_j × tree(x), n × d", "ΔF")
