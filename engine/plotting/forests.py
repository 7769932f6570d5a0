"""Figures of the forest experiments (paper 003), plotly only, no streamlit.

Every builder takes a :class:`engine.experiments.forests.ForestSweepResult` (or the
bias-variance result) and returns a ``go.Figure`` whose ``layout.meta`` names the
experiment. Series that depend on the swept x are lines with markers (± one std over
repeats when there are several); references that do not depend on x (the
unprojected tree / forest) are dashed horizontal lines across the x range.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.experiments.forests import FOREST_REF, PER_TREE, SHARED, SINGLE_TREE, TREE_REF
from engine.plotting.common import COLORS, label_log_axes

__all__ = ["forest_projection_size_figure", "forest_randomization_figure", "forest_schemes_figure",
           "forest_bias_variance_figure"]

# The app's one palette (engine.plotting.common.COLORS): grey for the single trees.
_COLORS = {SINGLE_TREE: COLORS[7], SHARED: COLORS[0], PER_TREE: COLORS[4], TREE_REF: COLORS[7],
           FOREST_REF: COLORS[2]}
_PALETTE = [COLORS[i] for i in (1, 0, 3, 4, 5, 6, 9)]
_X_TITLES = {"q": "projected dimension q (log scale)",
             "max_features": "features drawn per node k (log scale)"}


def _color(name, i):
    return _COLORS.get(name, _PALETTE[i % len(_PALETTE)])


def _add_series(fig, result, value, *, row=None, col=None, showlegend=True):
    """One line per series; value is "score" or "fit_time"."""
    s = result.summary_frame()
    xname = result.x_name
    xs = s[xname].dropna()
    x_lo, x_hi = (float(xs.min()), float(xs.max())) if len(xs) else (1.0, 1.0)
    unit = result.metric if value == "score" else "s"
    for i, name in enumerate(result.series):
        part = s[s["series"] == name]
        if part.empty:
            continue
        y = part[value].to_numpy(float).tolist()
        color = _color(name, i)
        kw = dict(row=row, col=col) if row else {}
        if part[xname].isna().all():  # reference: horizontal line (its timed range shaded)
            if value == "fit_time" and "time_low" in part and float(part["time_high"].iloc[0]) > float(part["time_low"].iloc[0]):
                lo_t, hi_t = float(part["time_low"].iloc[0]), float(part["time_high"].iloc[0])
                fig.add_trace(go.Scatter(
                    x=[x_lo, x_hi, x_hi, x_lo], y=[lo_t, lo_t, hi_t, hi_t], fill="toself", mode="none",
                    fillcolor=color, opacity=0.15, name=f"{name} range", legendgroup=name, showlegend=False,
                    hoverinfo="skip"), **kw)
            fig.add_trace(go.Scatter(
                x=[x_lo, x_hi], y=[y[0], y[0]], mode="lines", name=name, legendgroup=name,
                showlegend=showlegend, line={"color": color, "dash": "dash"},
                hovertemplate=f"{name}: %{{y:.4g}} {unit}<extra></extra>"), **kw)
            continue
        err = None
        if value == "score" and (part["n_repeats"] > 1).any():
            err = {"type": "data", "array": part["score_std"].to_numpy(float).tolist(), "visible": True}
        elif value == "fit_time" and "time_low" in part and (part["time_high"] > part["time_low"]).any():
            # the range of the repeated timed fits: a difference inside it is noise
            mid = part["fit_time"].to_numpy(float)
            err = {"type": "data", "symmetric": False, "visible": True,
                   "array": (part["time_high"].to_numpy(float) - mid).clip(0).tolist(),
                   "arrayminus": (mid - part["time_low"].to_numpy(float)).clip(0).tolist()}
        fig.add_trace(go.Scatter(
            x=part[xname].to_numpy(float).tolist(), y=y, mode="lines+markers", name=name, legendgroup=name,
            showlegend=showlegend, error_y=err, line={"color": color},
            hovertemplate=f"{name}<br>{xname} = %{{x}}<br>%{{y:.4g}} {unit}<extra></extra>"), **kw)


def _layout(fig, result, title, height=460):
    fig.update_layout(title={"text": title}, legend={"orientation": "h", "y": -0.22}, hovermode="closest",
                      margin={"l": 60, "r": 20, "t": 80, "b": 70}, height=height,
                      meta={"experiment": result.experiment, "complete": result.complete,
                            "dataset": result.dataset, "metric": result.metric})
    return label_log_axes(fig)


def forest_projection_size_figure(result, *, title=None) -> go.Figure:
    """Figure 1 of paper 003: test score (left) and fit time (right) against q."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=[
        f"test {result.metric} against q", "fit time against q"])
    _add_series(fig, result, "score", row=1, col=1)
    _add_series(fig, result, "fit_time", row=1, col=2, showlegend=False)
    fig.update_xaxes(type="log", title_text=_X_TITLES["q"])
    fig.update_yaxes(title_text=f"test {result.metric}", row=1, col=1)
    fig.update_yaxes(title_text="fit time in seconds", rangemode="tozero", row=1, col=2)
    scheme = result.params.get("projection", "gaussian")
    return _layout(fig, result, title or f"{result.dataset}: trees and forests on {scheme} projections of size q")


def forest_randomization_figure(result, *, title=None) -> go.Figure:
    """Figure 2 of paper 003: test score against k (input randomization), one line per q."""
    fig = go.Figure()
    _add_series(fig, result, "score")
    fig.update_xaxes(type="log", title_text=_X_TITLES["max_features"])
    fig.update_yaxes(title_text=f"test {result.metric}")
    return _layout(fig, result, title or (
        f"{result.dataset}: input randomization (k) vs output randomization (q), Algorithm 2"))


def forest_schemes_figure(result, *, title=None) -> go.Figure:
    """Figure 3 of paper 003: test score against q, one line per projection scheme."""
    fig = go.Figure()
    _add_series(fig, result, "score")
    fig.update_xaxes(type="log", title_text=_X_TITLES["q"])
    fig.update_yaxes(title_text=f"test {result.metric}")
    return _layout(fig, result, title or f"{result.dataset}: Algorithm 2 with each projection scheme")


def forest_bias_variance_figure(result, *, title=None) -> go.Figure:
    """Algorithm variance of a single projected tree split into its projection and tree terms,
    next to the measured algorithm variances of forests with Algorithms 1 and 2, per q;
    diamonds mark Appendix C.2's prediction for the forests from the single-tree terms.

    The single-tree terms are the ``*_corrected`` estimates: the plain nested-grid terms leak
    var_tree / n_tree_seeds into the projection term, which would hide how small it is."""
    q = [f"q = {v}" for v in result.q_values]
    t = {k: np.asarray(v, dtype=float).tolist() for k, v in result.terms.items()}
    fig = go.Figure()
    fig.add_trace(go.Bar(x=q, y=t["var_projection_corrected"], name="single tree: projection term",
                         marker_color="#9467bd", offsetgroup="projection"))
    fig.add_trace(go.Bar(x=q, y=t["var_tree_corrected"], name="single tree: tree-randomization term",
                         marker_color="#8c564b", offsetgroup="tree"))
    # Bars on a linear axis (their lengths compare). The unbiased projection term of a projection
    # that changes nothing (sub-sampling with q = d) is 0 up to Monte-Carlo noise, either sign:
    # say so where the bar would be.
    plotted = np.concatenate([np.asarray(t[k], dtype=float) for k in (
        "var_projection_corrected", "var_tree_corrected", "alg1_var_algorithm", "alg2_var_algorithm")])
    positive = plotted[np.isfinite(plotted) & (plotted > 0)]
    for key, group in (("var_projection_corrected", "projection"), ("var_tree_corrected", "tree")):
        vals = np.asarray(t[key], dtype=float)
        low = [i for i, v in enumerate(vals) if np.isfinite(v) and v <= 0]
        if low and positive.size:
            fig.add_trace(go.Scatter(
                x=[q[i] for i in low], y=[0.0] * len(low), mode="text", text=["≈ 0"] * len(low),
                textposition="top center", offsetgroup=group, showlegend=False,
                customdata=[vals[i] for i in low],
                hovertemplate="estimate %{customdata:.3g}: 0 up to Monte-Carlo noise<extra></extra>"))
    if np.isfinite(np.asarray(t["alg1_var_algorithm"], dtype=float)).any():
        for alg, series in (("alg1", SHARED), ("alg2", PER_TREE)):
            fig.add_trace(go.Bar(x=q, y=t[f"{alg}_var_algorithm"], name=f"{series}, M = {result.n_estimators}",
                                 marker_color=_COLORS[series], offsetgroup=alg))
            fig.add_trace(go.Scatter(x=q, y=t[f"{alg}_var_algorithm_predicted"], mode="markers",
                                     name="predicted from the single tree (Appendix C.2)", legendgroup="predicted",
                                     showlegend=alg == "alg1", offsetgroup=alg,
                                     marker=dict(symbol="diamond", size=11, color="black")))
    fig.update_yaxes(title_text="algorithm variance", rangemode="tozero")
    fig.update_layout(barmode="group", scattermode="group", title={"text": title or (
        f"friedman1-{result.structure}: where the algorithm variance comes from")},
        legend={"orientation": "h", "y": -0.12, "traceorder": "normal"}, margin={"l": 60, "r": 20, "t": 80, "b": 70}, height=460,
        meta={"experiment": "forest-bias-variance", "complete": result.complete})
    return fig
