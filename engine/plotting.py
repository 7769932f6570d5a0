"""Figure builders for the dashboard: plotly only, never streamlit.

Every function returns a ``plotly.graph_objects.Figure``; pages draw it with
``st.plotly_chart`` and tests inspect it directly.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

STRUCTURES = ("chain", "group", "ind")


def friedman1_variance(n_grid: int = 1000) -> float:
    """Variance of the noise-free Friedman1 function for inputs uniform on [0, 1].

    f(x) = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 (paper eq. 27). The terms use
    disjoint, independent inputs, so their variances add: 400/180 + 100/12 + 25/12 in
    closed form, plus the sine term by a midpoint rule on an ``n_grid`` x ``n_grid`` grid.
    The result is about 23.83.
    """
    g = (np.arange(n_grid) + 0.5) / n_grid
    sine = 10.0 * np.sin(np.pi * np.outer(g, g))
    return float(sine.var() + 400.0 / 180.0 + 100.0 / 12.0 + 25.0 / 12.0)


def friedman1_output_correlation(structure: str, n_outputs: int = 16, var_f: float | None = None) -> np.ndarray:
    """Population correlation matrix corr(y_i, y_j) of a Friedman1 multi-output problem.

    Derived from the generators of section 4.2.1 with unit noise variance:
    - chain: y_1 = f + e_1, y_j = y_(j-1) + e_j, so cov(y_i, y_j) = V + min(i, j);
    - group: y_j = f + e_j, so cov(y_i, y_j) = V + [i == j];
    - ind:   y_j = f(own 5 inputs) + e_j, so the outputs are independent.
    ``var_f`` is V = Var f(x); by default the value for uniform inputs.
    """
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
    if n_outputs < 1:
        raise ValueError(f"n_outputs must be >= 1, got {n_outputs}")
    v = friedman1_variance() if var_f is None else float(var_f)
    j = np.arange(1, n_outputs + 1)
    if structure == "chain":
        cov = v + np.minimum.outer(j, j).astype(float)
    elif structure == "group":
        cov = v + np.eye(n_outputs)
    else:
        cov = (v + 1.0) * np.eye(n_outputs)
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    np.fill_diagonal(corr, 1.0)  # exactly, not 1 + rounding error
    return np.clip(corr, -1.0, 1.0)


def output_correlation_figure(n_outputs: int = 16, var_f: float | None = None) -> go.Figure:
    """Three heatmaps side by side: the output correlation of friedman1-chain, -group and -ind.

    A picture of the three output structures the methods must adapt to: a fading band
    (chain), one block (group) and the identity (ind). One shared colour scale on [0, 1].
    """
    v = friedman1_variance() if var_f is None else float(var_f)
    corrs = {s: friedman1_output_correlation(s, n_outputs, v) for s in STRUCTURES}
    titles = {
        "chain": f"<b>chain</b><br><span style='font-size:12px'>corr with y1 falls to {corrs['chain'][0, -1]:.2f}</span>",
        "group": f"<b>group</b><br><span style='font-size:12px'>every pair at {corrs['group'][0, -1]:.2f}</span>",
        "ind": "<b>ind</b><br><span style='font-size:12px'>uncorrelated</span>",
    }
    fig = make_subplots(rows=1, cols=3, subplot_titles=[titles[s] for s in STRUCTURES], horizontal_spacing=0.07)
    labels = [f"y{j}" for j in range(1, n_outputs + 1)]
    for col, structure in enumerate(STRUCTURES, start=1):
        corr = corrs[structure]
        fig.add_trace(
            go.Heatmap(
                z=corr,
                x=labels,
                y=labels,
                coloraxis="coloraxis",
                name=structure,
                hovertemplate=f"{structure}<br>corr(%{{y}}, %{{x}}) = %{{z:.2f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        axis = "" if col == 1 else str(col)
        # Square cells; "domain" shrinks the panel rather than padding the axis range, and
        # "top" keeps it right under its title. Matrix orientation: y1 at the top left.
        fig.update_xaxes(showticklabels=False, ticks="", constrain="domain", row=1, col=col)
        fig.update_yaxes(
            autorange="reversed", showticklabels=False, ticks="", scaleanchor=f"x{axis}",
            constrain="domain", constraintoward="top", row=1, col=col,
        )  # fmt: skip
    fig.update_layout(
        coloraxis={"colorscale": "Blues", "cmin": 0.0, "cmax": 1.0, "colorbar": {"title": {"text": "corr"}, "len": 0.9, "y": 1.0, "yanchor": "top", "thickness": 14}},
        margin={"l": 10, "r": 10, "t": 56, "b": 0},
        height=320,
        meta={"n_outputs": n_outputs, "var_f": v},
    )
    fig.update_annotations(font_size=13)
    return fig


# --------------------------------------------------------------------------
# Experiment results (engine.experiments): convergence, projection size, schemes
# --------------------------------------------------------------------------

_X_AXES = {
    "trees_per_output": "trees per output (log scale)",
    "step": "boosting steps (log scale)",
    "n_trees": "trees fitted (log scale)",
    "fit_time": "fit time in seconds (log scale)",
}
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


def _finite_xy(x, y):
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    return x[keep], y[keep]


def _add_curves(fig, result, x, *, row=None, col=None, show_train=False, showlegend=True):
    """One test-score line per curve with its best point marked; optionally the train score dotted."""
    kw = {} if row is None else {"row": row, "col": col}
    for i, curve in enumerate(result.curves.values()):
        color = _COLORS[i % len(_COLORS)]
        xs, ys = _finite_xy(np.asarray(getattr(curve, x), dtype=float), curve.test_score)
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name=curve.label, legendgroup=curve.label, showlegend=showlegend,
            line={"color": color, "width": 2},
            hovertemplate=f"{curve.label}<br>{_X_AXES[x].split(' (')[0]} %{{x:.4g}}<br>test {result.metric} %{{y:.4f}}<extra></extra>",
        ), **kw)
        if show_train:
            xt, yt = _finite_xy(np.asarray(getattr(curve, x), dtype=float), curve.train_score)
            fig.add_trace(go.Scatter(
                x=xt, y=yt, mode="lines", name=f"{curve.label} (train)", legendgroup=curve.label,
                showlegend=False, line={"color": color, "width": 1, "dash": "dot"},
                hovertemplate=f"{curve.label} train<br>%{{x:.4g}}<br>{result.metric} %{{y:.4f}}<extra></extra>",
            ), **kw)
        b = curve.best_index
        if b is not None and np.isfinite(getattr(curve, x)[b]) and getattr(curve, x)[b] > 0:
            fig.add_trace(go.Scatter(
                x=[float(getattr(curve, x)[b])], y=[curve.best_score], mode="markers",
                name=f"{curve.label} best", legendgroup=curve.label, showlegend=False,
                marker={"color": color, "size": 10, "symbol": "star", "line": {"color": "white", "width": 1}},
                hovertemplate=(f"{curve.label}: best test {result.metric} {curve.best_score:.4f}"
                               f"<br>at step {curve.best_step}<extra></extra>"),
            ), **kw)


def _y_range(result, show_train=False):
    """Zoom on the interesting part: from a bit under the best scores' spread, never below -0.05."""
    best = [c.best_score for c in result.curves.values() if np.isfinite(c.best_score)]
    if not best:
        return None
    hi = max(best)
    if show_train:
        hi = max([hi] + [float(np.nanmax(c.train_score)) for c in result.curves.values()
                         if np.isfinite(c.train_score).any()])
    lo = max(min(best) - 0.25 * max(hi - min(best), 0.05) - 0.2, -0.05)
    return [lo, min(1.0, hi + 0.03)]


def convergence_figure(result, x="trees_per_output", *, show_train=False, title=None) -> go.Figure:
    """Test score against ``x`` (log axis) for every curve of a ConvergenceResult (Figure 1).

    x : "trees_per_output" (st-gbrt fits one tree per output and step, so this puts the
        methods on the same footing), "step", "n_trees" or "fit_time".
    A star marks each curve's best test score; ``show_train`` adds the train score dotted.
    """
    if x not in _X_AXES:
        raise ValueError(f"x must be one of {tuple(_X_AXES)}, got {x!r}")
    fig = go.Figure()
    _add_curves(fig, result, x, show_train=show_train)
    against = {"trees_per_output": "trees per output", "step": "boosting steps",
               "n_trees": "trees", "fit_time": "fit time"}[x]
    fig.update_layout(
        title={"text": title or f"{result.dataset}: test {result.metric} against {against}"},
        xaxis={"type": "log", "title": {"text": _X_AXES[x]}},
        yaxis={"title": {"text": f"test {result.metric}"}, "range": _y_range(result, show_train)},
        legend={"title": {"text": "estimator"}},
        hovermode="closest", margin={"l": 60, "r": 20, "t": 60, "b": 50}, height=420,
        meta={"experiment": result.experiment, "x": x, "complete": result.complete},
    )
    return fig


def convergence_panels(result, *, show_train=False, title=None) -> go.Figure:
    """Two panels: test score against trees per output (left) and against fit time (right)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=["against trees per output", "against fit time"],
                        horizontal_spacing=0.08)
    _add_curves(fig, result, "trees_per_output", row=1, col=1, show_train=show_train)
    _add_curves(fig, result, "fit_time", row=1, col=2, show_train=show_train, showlegend=False)
    fig.update_xaxes(type="log", title_text=_X_AXES["trees_per_output"], row=1, col=1)
    fig.update_xaxes(type="log", title_text=_X_AXES["fit_time"], row=1, col=2)
    yr = _y_range(result, show_train)
    fig.update_yaxes(title_text=f"test {result.metric}", range=yr, row=1, col=1)
    fig.update_yaxes(range=yr, row=1, col=2)
    fig.update_layout(
        title={"text": title or f"{result.dataset}: convergence of test {result.metric}"},
        legend={"title": {"text": "estimator"}}, hovermode="closest",
        margin={"l": 60, "r": 20, "t": 80, "b": 50}, height=440,
        meta={"experiment": result.experiment, "complete": result.complete},
    )
    return fig


def projection_size_figure(result, *, title=None) -> go.Figure:
    """Figure 6: test score (left) and fit time (right) against the number of projections q.

    gbrt-relabel-rpo with q projections as markers and lines; gbmort, the q -> infinity
    limit, as a dashed horizontal reference. The left panel also shows the score reached
    within the time budget.
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=[
        f"test {result.metric} against q", f"fit time of {result.n_steps} steps against q"])
    q = result.q_values.astype(float)
    scheme = {"subsample": "output sub-sampling"}.get(result.projection, f"{result.projection} projections")
    fig.add_trace(go.Scatter(x=q, y=result.score, mode="lines+markers", name=f"relabel-rpo, after {result.n_steps} steps",
                             line={"color": _COLORS[0]},
                             hovertemplate=f"q = %{{x}}<br>test {result.metric} %{{y:.4f}}<extra></extra>"), row=1, col=1)
    if np.isfinite(result.budget_score).any():
        fig.add_trace(go.Scatter(x=q, y=result.budget_score, mode="lines+markers",
                                 name=f"relabel-rpo, within {result.time_budget:.3g} s",
                                 line={"color": _COLORS[2], "dash": "dot"},
                                 hovertemplate=f"q = %{{x}}<br>{result.metric} within budget %{{y:.4f}}<extra></extra>"),
                      row=1, col=1)
    fig.add_trace(go.Scatter(x=q, y=result.fit_time, mode="lines+markers", name="relabel-rpo fit time",
                             line={"color": _COLORS[0]}, showlegend=False,
                             hovertemplate="q = %{x}<br>%{y:.3g} s<extra></extra>"), row=1, col=2)
    if np.isfinite(result.gbmort_score):
        for col, value, text in ((1, result.gbmort_score, f"gbmort {result.gbmort_score:.3f}"),
                                 (2, result.gbmort_fit_time, f"gbmort {result.gbmort_fit_time:.3g} s")):
            fig.add_trace(go.Scatter(x=[q.min(), q.max()], y=[value, value], mode="lines", name="gbmort (q → ∞)",
                                     showlegend=col == 1, line={"color": _COLORS[1], "dash": "dash"},
                                     hovertemplate=f"{text}<extra></extra>"), row=1, col=col)
    fig.update_xaxes(type="log", title_text="number of projections q (log scale)")
    fig.update_yaxes(title_text=f"test {result.metric}", row=1, col=1)
    fig.update_yaxes(title_text="fit time in seconds", rangemode="tozero", row=1, col=2)
    fig.update_layout(
        title={"text": title or f"{result.dataset}: gbrt-relabel-rpo with {scheme}, effect of q"},
        legend={"orientation": "h", "y": -0.2}, hovermode="closest",
        margin={"l": 60, "r": 20, "t": 80, "b": 60}, height=440,
        meta={"experiment": "projection-size", "complete": result.complete},
    )
    return fig


def projection_size_curves_figure(result, *, title=None) -> go.Figure:
    """Figure 5: test score against fit time for every q and gbmort."""
    scheme = {"subsample": "output sub-sampling"}.get(result.projection, f"{result.projection} projections")
    return convergence_figure(result.convergence(), x="fit_time", title=title or (
        f"{result.dataset}: gbrt-relabel-rpo with {scheme}, test {result.metric} against fit time"))


def schemes_figure(result, x="trees_per_output", *, title=None) -> go.Figure:
    """Figures 2-4: one convergence curve per random projection scheme."""
    algo = "gbrt-rpo" if result.params.get("strategy", "projected") == "projected" else "gbrt-relabel-rpo"
    return convergence_figure(result, x=x, title=title or (
        f"{result.dataset}: {algo}, test {result.metric} per projection scheme"))
