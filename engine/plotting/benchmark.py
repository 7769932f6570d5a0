"""Figures of the benchmark protocol (paper 002, Tables 4-7): scores, ranks, paired tests."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.formatting import fmt_number


def _fmt_p(p):
    if p is None or not np.isfinite(p):
        return "–"
    return fmt_number(p, 1 if p < 1e-3 else 2)      # two digits: "0.041 > *" fits a cell of seven


def pvalue_heatmap(names, pvalues, signs=None, title=None, alpha=0.05):
    """Paired t-test p-values (Table 5 style): cell text 'p (>)' = row better than column."""
    P = np.asarray(pvalues, dtype=float)
    text = []
    for i in range(len(names)):
        row = []
        for j in range(len(names)):
            if i == j:
                row.append("")
                continue
            s = f"{_fmt_p(P[i, j])}"
            if signs is not None and signs[i][j] and np.isfinite(P[i, j]) and P[i, j] < alpha:
                s += f" ({signs[i][j]})"
            row.append(s)
        text.append(row)
    z = np.where(np.isfinite(P), np.log10(np.clip(P, 1e-12, 1)), np.nan)
    fig = go.Figure(go.Heatmap(z=z, x=list(names), y=list(names), text=text, texttemplate="%{text}",
                               textfont={"size": 13}, colorscale="RdBu", zmin=-4, zmax=0, reversescale=False,
                               colorbar=dict(title="log10 p")))
    # cells tall enough for 13 px text (plotly shrinks cell text to fit: ~7 px in a 300 px figure)
    fig.update_layout(title=title or "Paired t-test p-values ('>': row better than column)",
                      yaxis_autorange="reversed", height=max(320, 70 * len(names) + 140))
    return fig


def score_table_figure(frame, title=None):
    """A plotly table of a score DataFrame (e.g. ours next to the paper's Table 4)."""
    fig = go.Figure(go.Table(
        header=dict(values=[str(c) for c in frame.columns], align="left"),
        cells=dict(values=[[("" if (isinstance(v, float) and not np.isfinite(v)) else
                             (f"{v:.3f}" if isinstance(v, float) else str(v))) for v in frame[c]]
                           for c in frame.columns], align="left")))
    fig.update_layout(title=title)
    return fig


def model_selection_report(results, paper=None, title=None):
    """One page: the score table then one p-value heatmap per data set.

    ``results`` maps data set name -> ModelSelectionResult; ``paper`` is an
    optional DataFrame shown as given (e.g. the paper's numbers).
    """
    n = len(results)
    specs = [[{"type": "table"}]] + [[{"type": "heatmap"}] for _ in range(n)]
    titles = ["scores (mean ± std over repeats, rank)"] + [f"p-values: {k}" for k in results]
    fig = make_subplots(rows=n + 1, cols=1, specs=specs, subplot_titles=titles,
                        vertical_spacing=0.06, row_heights=[1.2] + [1.0] * n)
    rows = []
    for name, res in results.items():
        df = res.to_frame()
        for _, r in df.iterrows():
            rows.append([name, r["estimator"], f"{r['mean']:.3f} ± {r['std']:.3f}", int(r["rank"])])
    cols = list(zip(*rows)) if rows else [[], [], [], []]
    header = ["data set", "estimator", f"ours ({next(iter(results.values())).metric})", "rank"]
    values = [list(c) for c in cols]
    if paper is not None:
        lookup = {(r["dataset"], r["estimator"]): r["paper"] for _, r in paper.iterrows()}
        header.append("paper")
        values.append([lookup.get((d, e), "") for d, e in zip(values[0], values[1])])
    fig.add_trace(go.Table(header=dict(values=header, align="left"),
                           cells=dict(values=values, align="left")), row=1, col=1)
    for r, (name, res) in enumerate(results.items(), start=2):
        hm = pvalue_heatmap(res.estimators, res.pvalues, res.signs)
        trace = hm.data[0]
        trace.showscale = r == 2
        fig.add_trace(trace, row=r, col=1)
        fig.update_yaxes(autorange="reversed", row=r, col=1)
    fig.update_layout(title=title, height=420 + 380 * n, template="plotly_white")
    return fig


# --------------------------------------------------------------------------
# Benchmark page (model-selection protocol, paper 002 Tables 4-5)
# --------------------------------------------------------------------------


def benchmark_scores_figure(result, paper=None, title=None, paper_label="paper (Table 4)"):
    """Test score of every estimator: one dot per repeat, the mean ± std as a bar,
    and (optional ``paper``: estimator -> (mean, ...)) the paper's mean as a diamond
    named ``paper_label``. Estimators top to bottom by rank."""
    order = sorted(range(len(result.estimators)), key=lambda i: (result.ranks[i], result.estimators[i]))
    names = [result.estimators[i] for i in order]
    mean = np.asarray(result.mean, dtype=float)[order]
    std = np.nan_to_num(np.asarray(result.std, dtype=float)[order])
    scores = np.asarray(result.scores, dtype=float)[order]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=mean, y=names, mode="markers", name="ours: mean ± std",
        marker=dict(size=12, color="#1f77b4", symbol="line-ns-open", line=dict(width=3)),
        error_x=dict(type="data", array=std, thickness=2, width=6, color="#1f77b4"),
        hovertemplate="%{y}: %{x:.4f}<extra>mean</extra>"))
    if scores.size:
        xs = scores.ravel()
        ys = np.repeat(names, scores.shape[1])
        rep = np.tile(np.arange(1, scores.shape[1] + 1), len(names))
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name="ours: one repeat",
                                 marker=dict(size=7, color="rgba(31,119,180,0.45)"),
                                 customdata=rep, hovertemplate="%{y}, repeat %{customdata}: %{x:.4f}<extra></extra>"))
    if paper:
        px = [paper[n][0] if n in paper else None for n in names]
        if any(v is not None for v in px):
            fig.add_trace(go.Scatter(x=px, y=names, mode="markers", name=paper_label,
                                     marker=dict(size=11, symbol="diamond", color="#d62728"),
                                     hovertemplate="%{y}: %{x:.3f}<extra>paper</extra>"))
    fig.update_layout(
        title=title or f"Test {result.metric} per estimator (best rank on top)",
        xaxis_title=f"test {result.metric} (higher is better)", yaxis=dict(autorange="reversed", type="category"),
        template="plotly_white", height=140 + 45 * len(names), legend=dict(orientation="h", y=-0.25),
        margin=dict(l=10, r=10, t=50, b=10))
    return fig


SIGNIFICANT_COLORS = ("#08306b", "#08519c")    # navy: every cell with p < alpha, whatever its p
NOT_SIGNIFICANT_COLORS = ("#c6dbef", "#f7fbff")  # pale blue to white: the others
P_FLOOR = 1e-4                                   # the colour scale's darkest p


def pvalue_colorscale(alpha=0.05):
    """A two-part scale on log10 p from log10 P_FLOOR to 0: dark blue below log10 alpha, pale above,
    so that "dark cells" and "cells with *" are the same cells (issue 31: the key said dark where a
    continuous scale drew p = 0.03 mid-blue)."""
    cut = (np.log10(alpha) - np.log10(P_FLOOR)) / -np.log10(P_FLOOR)
    return [[0.0, SIGNIFICANT_COLORS[0]], [cut, SIGNIFICANT_COLORS[1]],
            [cut, NOT_SIGNIFICANT_COLORS[0]], [1.0, NOT_SIGNIFICANT_COLORS[1]]]


def benchmark_pvalue_figure(names, pvalues, signs, alpha=0.05, title=None):
    """Table 5 style: cell (row, column) = paired t-test p-value and the sign of the
    difference of means ('>' row better, '<' row worse); '*' marks p < alpha.
    Colour: dark blue exactly where p < alpha (:func:`pvalue_colorscale`), pale otherwise; the
    diagonal is empty. ``alpha=None``: too few repeats to call anything significant, so no
    cell is marked or dark."""
    P = np.asarray(pvalues, dtype=float)
    n = len(names)
    marks = alpha is not None
    alpha = 0.05 if alpha is None else alpha
    text = [["" if i == j else (_fmt_p(P[i, j]) + (f" {signs[i][j]}" if signs[i][j] else "")
                                + (" *" if marks and np.isfinite(P[i, j]) and P[i, j] < alpha else ""))
             for j in range(n)] for i in range(n)]
    z = np.where(np.isfinite(P), np.log10(np.clip(P, P_FLOOR, 1)), np.nan)
    fig = go.Figure(go.Heatmap(
        z=z, x=list(names), y=list(names), text=text, texttemplate="%{text}", customdata=P,
        textfont={"size": 12}, zmin=np.log10(P_FLOOR), zmax=0,
        colorscale=pvalue_colorscale(alpha) if marks else [[0.0, NOT_SIGNIFICANT_COLORS[0]], [1.0, NOT_SIGNIFICANT_COLORS[1]]],
        colorbar=dict(title="p", tickvals=[-4, -3, -2, np.log10(alpha), 0],
                      ticktext=["0.0001", "0.001", "0.01", f"{alpha:g}", "1"]),
        hovertemplate="%{y} vs %{x}: p = %{customdata:.3g}<extra></extra>", xgap=2, ygap=2))
    fig.update_layout(title=title or (f"Paired t-test p-values ('>': row better; * p < {alpha:g})" if marks else
                                      "Paired t-test p-values ('>': row better; too few repeats to mark any)"),
                      yaxis=dict(autorange="reversed", type="category"), xaxis=dict(type="category", side="bottom"),
                      template="plotly_white", height=160 + 70 * n, margin=dict(l=10, r=10, t=50, b=10))
    return fig
