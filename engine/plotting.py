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
