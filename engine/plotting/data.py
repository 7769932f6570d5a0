"""Figures of the Data and Home pages: output correlations, outputs against the Bayes target."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.names import STRUCTURES


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


CORR_SCALE = [[0.0, "#f7fbff"], [0.5, "#deebf7"], [0.7, "#c6dbef"], [0.8, "#9ecae1"], [0.85, "#6baed6"],
              [0.9, "#4292c6"], [0.95, "#2171b5"], [1.0, "#08306b"]]


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
        # One [0, 1] scale for the three panels, with most of its colours above 0.7: chain's band
        # (0.79 to 1 at d = 16) would be one flat dark blue on a linear Blues scale.
        coloraxis={"colorscale": CORR_SCALE, "cmin": 0.0, "cmax": 1.0, "colorbar": {"title": {"text": "corr"}, "len": 0.9, "y": 1.0, "yanchor": "top", "thickness": 14}},
        margin={"l": 10, "r": 10, "t": 56, "b": 0},
        height=320,
        meta={"n_outputs": n_outputs, "var_f": v},
    )
    fig.update_annotations(font_size=13)
    return fig


DATA_MAX_POINTS = 2000  # scatter points drawn per panel (a seeded subsample beyond this)


SPARSE_CORRELATION_MIN_OUTPUTS = 200


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
    n, d = Y.shape
    if d > SPARSE_CORRELATION_MIN_OUTPUTS and np.count_nonzero(Y) < 0.1 * Y.size:
        # Mostly-zero outputs (delicious: 983 labels, 2 % positive): Y'Y as a sparse product,
        # then centred, about 10 x faster than the dense product of the centred matrix.
        from scipy import sparse
        S = sparse.csr_matrix(Y)
        mean = Y.mean(axis=0)
        safe = np.where(constant, 1.0, sd)
        corr = ((S.T @ S).toarray() / n - np.outer(mean, mean)) / np.outer(safe, safe)
    else:
        Z = np.zeros_like(Y)
        Z[:, ~constant] = (Y[:, ~constant] - Y[:, ~constant].mean(axis=0)) / sd[~constant]
        corr = Z.T @ Z / n
    corr = np.clip(corr, -1.0, 1.0)
    np.fill_diagonal(corr, 1.0)
    corr[constant, :] = np.nan
    corr[:, constant] = np.nan
    return corr, constant


def correlation_frame(Y, target_names):
    """The empirical output correlation matrix as a DataFrame (outputs as index and columns), for a CSV."""
    import pandas as pd

    corr, _ = empirical_output_correlation(Y)
    names = [str(n) for n in target_names]
    if len(names) != corr.shape[0]:
        raise ValueError(f"target_names has {len(names)} names for {corr.shape[0]} outputs")
    return pd.DataFrame(corr, index=pd.Index(names, name="output"), columns=names)


MAX_HEATMAP_OUTPUTS = 400  # beyond this many outputs the heatmap shows the most variable ones


def data_correlation_figure(Y, target_names, title: str | None = None,
                            max_outputs: int = MAX_HEATMAP_OUTPUTS) -> go.Figure:
    """Heatmap of the empirical correlation between outputs (diverging scale on [-1, 1]).

    Cells of constant outputs are left blank (NaN). Tick labels are shown up to 40 outputs.
    Above ``max_outputs`` outputs (delicious: 983 labels, a million cells, 13 MB of figure) the
    heatmap shows the ``max_outputs`` outputs of largest variance (for labels: frequency closest
    to one half), in column order, and says so; the mean |corr| stays over all outputs.
    """
    corr, constant = empirical_output_correlation(Y)
    d = corr.shape[0]
    names = [str(n) for n in target_names]
    if len(names) != d:
        raise ValueError(f"target_names has {len(names)} names for {d} outputs")
    off = corr[~np.eye(d, dtype=bool)]
    off = off[np.isfinite(off)]
    mean_abs = float(np.abs(off).mean()) if off.size else float("nan")
    shown = np.arange(d)
    if d > max_outputs:
        variance = np.asarray(Y, dtype=np.float64).var(axis=0)
        shown = np.sort(np.argsort(-variance, kind="stable")[:max_outputs])
        corr, constant = corr[np.ix_(shown, shown)], constant[shown]
        names = [names[j] for j in shown]
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
    show = len(shown) <= 40
    # type="category": names such as "25400" must not become a numeric axis
    fig.update_xaxes(type="category", showgrid=False, zeroline=False, showticklabels=show, ticks="", constrain="domain", tickangle=-90 if d > 8 else 0, tickfont_size=10)
    fig.update_yaxes(type="category", showgrid=False, zeroline=False, showticklabels=show, ticks="", autorange="reversed", scaleanchor="x", constrain="domain", tickfont_size=10)
    subtitle = f"mean |corr| between different outputs: {mean_abs:.2f}" if off.size else "a single output"
    if len(shown) < d:
        subtitle += f" (all {d}); shown: the {len(shown)} most variable outputs"
    if constant.any():
        subtitle += f"; {int(constant.sum())} constant output(s) left blank"
    fig.update_layout(
        title={"text": f"{title or 'Output correlation'}<br><span style='font-size:12px'>{subtitle}</span>", "x": 0.0, "xanchor": "left"},
        height=460,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        meta={"mean_abs_corr": mean_abs, "n_constant": int(constant.sum()), "n_outputs": d, "diverging": diverging,
              "n_shown": int(len(shown))},
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
