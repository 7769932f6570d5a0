"""Figure builders for the dashboard: plotly only, never streamlit.

Every function returns a ``plotly.graph_objects.Figure``; pages draw it with
``st.plotly_chart`` and tests inspect it directly.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

STRUCTURES = ("chain", "group", "ind")


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
    return label_log_axes(fig)


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
    return label_log_axes(fig)


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
    return label_log_axes(fig)


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


# =============================================================================================
# Data page figures (pages/data.py): empirical output correlation, outputs vs the Bayes
# target, target distributions. Input: plain arrays of a Dataset (X, Y, bayes, names).
# =============================================================================================

DATA_MAX_POINTS = 2000  # scatter points drawn per panel (a seeded subsample beyond this)


def empirical_output_correlation(Y) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation of the columns of ``Y`` (n x d) and a mask of constant columns.

    A constant column (e.g. a label that is never positive) has no correlation: its row and
    column are NaN, except a 1 on the diagonal is not claimed either (NaN too).
    """
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[0] < 2:
        raise ValueError(f"Y must be 2-D with at least 2 rows, got shape {Y.shape}")
    sd = Y.std(axis=0)
    constant = ~(sd > 0)
    Z = np.zeros_like(Y)
    Z[:, ~constant] = (Y[:, ~constant] - Y[:, ~constant].mean(axis=0)) / sd[~constant]
    corr = Z.T @ Z / Y.shape[0]
    corr = np.clip(corr, -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    corr[constant, :] = np.nan
    corr[:, constant] = np.nan
    return corr, constant


def standalone_html(fig: go.Figure) -> str:
    """The figure as one interactive HTML file with plotly.js embedded: opens offline, no CDN."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


def correlation_frame(Y, target_names):
    """The empirical output correlation matrix as a DataFrame (outputs as index and columns), for a CSV."""
    import pandas as pd

    corr, _ = empirical_output_correlation(Y)
    names = [str(n) for n in target_names]
    if len(names) != corr.shape[0]:
        raise ValueError(f"target_names has {len(names)} names for {corr.shape[0]} outputs")
    return pd.DataFrame(corr, index=pd.Index(names, name="output"), columns=names)


def data_correlation_figure(Y, target_names, title: str | None = None) -> go.Figure:
    """Heatmap of the empirical correlation between outputs (diverging scale on [-1, 1]).

    Cells of constant outputs are left blank (NaN). Tick labels are shown up to 40 outputs.
    """
    corr, constant = empirical_output_correlation(Y)
    d = corr.shape[0]
    names = [str(n) for n in target_names]
    if len(names) != d:
        raise ValueError(f"target_names has {len(names)} names for {d} outputs")
    off = corr[~np.eye(d, dtype=bool)]
    off = off[np.isfinite(off)]
    mean_abs = float(np.abs(off).mean()) if off.size else float("nan")
    # Sequential [0, 1] (as on Home) when nothing is clearly negative, which keeps the contrast
    # between 0.8 and 1 readable; a diverging [-1, 1] scale otherwise.
    diverging = bool(off.size and off.min() < -0.1)
    scale = (
        [[0.0, "#b2182b"], [0.25, "#ef8a62"], [0.5, "#f7f7f7"], [0.75, "#67a9cf"], [1.0, "#2166ac"]]
        if diverging
        else "Blues"
    )
    fig = go.Figure(
        go.Heatmap(
            z=corr,
            x=names,
            y=names,
            zmin=-1.0 if diverging else 0.0,
            zmax=1.0,
            colorscale=scale,
            colorbar={"title": {"text": "corr"}, "thickness": 14, "len": 0.9},
            hovertemplate="corr(%{y}, %{x}) = %{z:.2f}<extra></extra>",
            hoverongaps=False,
            name="correlation",
        )
    )
    show = d <= 40
    # type="category": names such as "25400" must not become a numeric axis
    fig.update_xaxes(type="category", showgrid=False, zeroline=False, showticklabels=show, ticks="", constrain="domain", tickangle=-90 if d > 8 else 0, tickfont_size=10)
    fig.update_yaxes(type="category", showgrid=False, zeroline=False, showticklabels=show, ticks="", autorange="reversed", scaleanchor="x", constrain="domain", tickfont_size=10)
    subtitle = f"mean |corr| between different outputs: {mean_abs:.2f}" if off.size else "a single output"
    if constant.any():
        subtitle += f"; {int(constant.sum())} constant output(s) left blank"
    fig.update_layout(
        title={"text": f"{title or 'Output correlation'}<br><span style='font-size:12px'>{subtitle}</span>", "x": 0.0, "xanchor": "left"},
        height=460,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        meta={"mean_abs_corr": mean_abs, "n_constant": int(constant.sum()), "n_outputs": d, "diverging": diverging},
    )
    return fig


def default_bayes_outputs(n_outputs: int, n_noisy_outputs: int = 0) -> list[int]:
    """Outputs worth a panel: the first, middle and last real output, and the first noisy one."""
    idx = [0, (n_outputs - 1) // 2, n_outputs - 1]
    if n_noisy_outputs:
        idx.append(n_outputs)
    return sorted(set(idx))


def outputs_vs_bayes_figure(Y, bayes, target_names, outputs=None, max_points: int = DATA_MAX_POINTS, seed: int = 0) -> go.Figure:
    """Scatter of each chosen output y_j against its Bayes prediction E[y_j | x], one panel each.

    Points on the dashed diagonal would be noise-free; the vertical spread around it is the
    noise no model can remove. Panel titles give the residual standard deviation. A purely
    noisy output has a constant Bayes prediction: its points form a vertical stripe.
    """
    Y = np.asarray(Y, dtype=np.float64)
    bayes = np.asarray(bayes, dtype=np.float64)
    if Y.shape != bayes.shape or Y.ndim != 2:
        raise ValueError(f"Y and bayes must be 2-D of the same shape, got {Y.shape} and {bayes.shape}")
    names = [str(n) for n in target_names]
    outputs = default_bayes_outputs(Y.shape[1]) if outputs is None else [int(j) for j in outputs]
    if not outputs or min(outputs) < 0 or max(outputs) >= Y.shape[1]:
        raise ValueError(f"outputs must be indices in [0, {Y.shape[1]}), got {outputs}")
    n = Y.shape[0]
    rows = np.arange(n)
    if n > max_points:
        rows = np.sort(np.random.default_rng(seed).choice(n, size=max_points, replace=False))
    lo = float(min(Y[:, outputs].min(), bayes[:, outputs].min()))
    hi = float(max(Y[:, outputs].max(), bayes[:, outputs].max()))
    pad = 0.03 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad
    sds = [float(np.std(Y[:, j] - bayes[:, j])) for j in outputs]
    titles = [f"<b>{names[j]}</b><br><span style='font-size:11px'>noise sd {sd:.2f}</span>" for j, sd in zip(outputs, sds)]
    fig = make_subplots(rows=1, cols=len(outputs), subplot_titles=titles, shared_yaxes=True, horizontal_spacing=0.04)
    for col, j in enumerate(outputs, start=1):
        fig.add_trace(
            go.Scatter(
                x=bayes[rows, j], y=Y[rows, j], mode="markers", name=names[j], showlegend=False,
                marker={"size": 4, "opacity": 0.55, "color": "#1f77b4"},
                hovertemplate=f"E[{names[j]} | x] = %{{x:.2f}}<br>{names[j]} = %{{y:.2f}}<extra></extra>",
            ),
            row=1, col=col,
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=[lo, hi], y=[lo, hi], mode="lines", name="y = E[y | x]", showlegend=col == 1,
                line={"color": "#d62728", "dash": "dash", "width": 1.5}, hoverinfo="skip",
            ),
            row=1, col=col,
        )  # fmt: skip
        fig.update_xaxes(range=[lo, hi], title_text="Bayes E[y | x]", row=1, col=col)
    fig.update_yaxes(range=[lo, hi], title_text="output y", row=1, col=1)
    fig.update_layout(
        height=360,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend={"orientation": "h", "x": 1.0, "xanchor": "right", "y": -0.22},
        meta={"outputs": outputs, "noise_sd": sds, "n_points": int(rows.size)},
    )
    fig.update_annotations(font_size=13)
    return fig


def target_distribution_figure(Y, target_names, task: str = "regression", max_panels: int = 12) -> go.Figure:
    """How the targets are distributed.

    Regression: one histogram per target (the first ``max_panels`` targets), 4 per row.
    Multi-label: one bar per label with the fraction of samples where it is positive (a
    histogram of 0/1 values says less), sorted in column order.
    """
    Y = np.asarray(Y, dtype=np.float64)
    names = [str(n) for n in target_names]
    if Y.ndim != 2 or len(names) != Y.shape[1]:
        raise ValueError(f"Y must be 2-D with one name per column, got {Y.shape} and {len(names)} names")
    d = Y.shape[1]
    if task == "multilabel":
        freq = Y.mean(axis=0)
        fig = go.Figure(
            go.Bar(
                x=names, y=freq, name="label frequency", marker_color="#1f77b4",
                hovertemplate="%{x}: positive in %{y:.1%} of samples<extra></extra>",
            )
        )  # fmt: skip
        fig.update_yaxes(title_text="fraction positive", tickformat=".0%", rangemode="tozero")
        fig.update_xaxes(type="category", title_text="label", showticklabels=d <= 60, tickangle=-90 if d > 10 else 0)
        fig.update_layout(
            title={"text": f"Label frequencies ({d} labels, on average {Y.sum(axis=1).mean():.1f} positive per sample)", "x": 0.0},
            height=380,
            margin={"l": 10, "r": 10, "t": 50, "b": 10},
            meta={"task": task, "n_panels": 1},
        )
        return fig
    if task != "regression":
        raise ValueError(f"task must be 'regression' or 'multilabel', got {task!r}")
    k = min(d, int(max_panels))
    ncols = min(4, k)
    nrows = -(-k // ncols)
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=names[:k], horizontal_spacing=0.05, vertical_spacing=0.12 if nrows > 1 else 0.0)
    for i in range(k):
        fig.add_trace(
            go.Histogram(x=Y[:, i], name=names[i], showlegend=False, marker_color="#1f77b4", nbinsx=30,
                         hovertemplate=f"{names[i]} in %{{x}}: %{{y}} samples<extra></extra>"),
            row=i // ncols + 1, col=i % ncols + 1,
        )  # fmt: skip
    title = "Target distributions" + (f" (the first {k} of {d} targets)" if k < d else "")
    fig.update_layout(
        title={"text": title, "x": 0.0},
        height=80 + 200 * nrows,
        bargap=0.05,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        meta={"task": task, "n_panels": k},
    )
    fig.update_annotations(font_size=12)
    return fig


# --------------------------------------------------------------------------
# Convergence page: the live run overlaid on pinned runs (pages/convergence.py)
# --------------------------------------------------------------------------

_PIN_DASHES = ("dash", "dot", "dashdot", "longdash")
_LIVE_X = {"trees_per_output": "trees per output (log scale)", "step": "boosting steps (log scale)"}


def live_convergence_figure(result, pinned=(), x="trees_per_output", *, title=None) -> go.Figure:
    """Test score against ``x`` (left) and against fit time (right), both on log axes.

    result : the current ConvergenceResult (may be partial, or None); solid lines, a star at
        each curve's best test score.
    pinned : sequence of ``(name, ConvergenceResult)``; drawn dashed in the same colour per
        estimator, legend entries "name · estimator", so a what-if run overlays its baseline.
    x : "trees_per_output" or "step".
    Every trace's ``meta`` is ``{"run": "current" | pin name, "estimator": name,
    "kind": "curve" | "best"}`` (tests and the page read the figure back through it).
    """
    if x not in _LIVE_X:
        raise ValueError(f"x must be one of {tuple(_LIVE_X)}, got {x!r}")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.08,
                        subplot_titles=[f"against {_LIVE_X[x].split(' (')[0]}", "against fit time"])
    colours: dict = {}
    runs = [(name, res, _PIN_DASHES[i % len(_PIN_DASHES)], 1.5) for i, (name, res) in enumerate(pinned)]
    if result is not None:
        runs.append(("current", result, "solid", 2.5))
    metric = "macro-r2"
    lows, highs = [], []
    for run, res, dash, width in runs:
        metric = res.metric
        for curve in res.curves.values():
            colour = colours.setdefault(curve.name, _COLORS[len(colours) % len(_COLORS)])
            label = curve.label if run == "current" else f"{run} · {curve.label}"
            for col, xname in ((1, x), (2, "fit_time")):
                xs, ys = _finite_xy(np.asarray(getattr(curve, xname), dtype=float), curve.test_score)
                fig.add_trace(go.Scatter(
                    x=xs, y=ys, mode="lines", name=label, legendgroup=label, showlegend=col == 1,
                    line={"color": colour, "width": width, "dash": dash},
                    meta={"run": run, "estimator": curve.name, "kind": "curve"},
                    hovertemplate=f"{label}<br>%{{x:.4g}}<br>test {res.metric} %{{y:.4f}}<extra></extra>",
                ), row=1, col=col)
                b = curve.best_index
                if b is not None and xs.size:
                    bx = float(getattr(curve, xname)[b])
                    if np.isfinite(bx) and bx > 0:
                        fig.add_trace(go.Scatter(
                            x=[bx], y=[curve.best_score], mode="markers", name=f"{label} best",
                            legendgroup=label, showlegend=False,
                            marker={"color": colour, "size": 11 if run == "current" else 8,
                                    "symbol": "star" if run == "current" else "star-open",
                                    "line": {"color": "white" if run == "current" else colour, "width": 1}},
                            meta={"run": run, "estimator": curve.name, "kind": "best"},
                            hovertemplate=(f"{label}: best test {res.metric} {curve.best_score:.4f}"
                                           f"<br>at step {curve.best_step}<extra></extra>"),
                        ), row=1, col=col)
            if np.isfinite(curve.best_score):
                highs.append(curve.best_score)
                lows.append(curve.best_score)
    y_range = None
    if highs:
        hi, lo = max(highs), min(lows)
        y_range = [max(lo - 0.25 * max(hi - lo, 0.05) - 0.2, -0.05), min(1.0, hi + 0.03)]
    fig.update_xaxes(type="log", title_text=_LIVE_X[x], row=1, col=1)
    fig.update_xaxes(type="log", title_text="fit time in seconds (log scale)", row=1, col=2)
    fig.update_yaxes(title_text=f"test {metric}", range=y_range, row=1, col=1)
    fig.update_yaxes(range=y_range, row=1, col=2)
    fig.update_layout(
        title={"text": title or ""}, legend={"orientation": "h", "y": -0.22, "x": 0},
        hovermode="closest", margin={"l": 60, "r": 20, "t": 50 if title else 30, "b": 40}, height=460,
        uirevision="convergence",
    )
    return label_log_axes(fig)
