"""Figures of the forest compression experiments (thesis 001, Figures 7.2-7.4), plotly only.

* :func:`compression_path_figure` (Figure 7.2): the compressed model's errors
  (test, cross-validation, training) and its number of test nodes against t,
  the uncompressed forest's test error as a dashed line, t* marked;
* :func:`compression_sweep_figure` (Figures 7.3-7.4): ET and rET error and
  complexity against n_min or M.

Both take a :class:`engine.experiments.compression.CompressionResult`; ``layout.meta``
names the figure.
"""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.experiments.compression import SWEEP_PARAMETERS
from engine.plotting.common import COLORS, label_log_axes

__all__ = ["compression_path_figure", "compression_sweep_figure"]

ET_COLOR, RET_COLOR, LASSO_COLOR = COLORS[0], COLORS[1], COLORS[7]


def _runs_text(result):
    if result.experiment == "sweep":
        n = result.params.get("n_runs", 1)
        return f"{n} run{'s' if n != 1 else ''} per value"
    n = len(result.rows)
    return f"{n} run" + ("s" if n != 1 else "")


def compression_path_figure(result, *, height=560):
    """Errors and test nodes of the compressed forest along t (mean over runs), t* marked."""
    curves = result.mean_curves()
    rows = result.summary_frame()
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=(f"Error: {result.metric}", "Test nodes of the compressed forest"))
    t = curves["t"]
    if len(t):
        for key, name, color, dash in (("test_error", "rET, test set", RET_COLOR, None),
                                       ("cv_error", f"rET, {result.params.get('cv', 10)}-fold CV", COLORS[3], "dot"),
                                       ("train_error", "rET, training set", COLORS[7], "dash")):
            fig.add_trace(go.Scatter(x=t, y=curves[key], mode="lines", name=name, line={"color": color, "dash": dash},
                                     hovertemplate=f"{name}<br>t = %{{x:.2f}}<br>%{{y:.4f}}<extra></extra>"),
                          row=1, col=1)
        fig.add_trace(go.Scatter(x=t, y=curves["n_nodes"], mode="lines", name="rET test nodes",
                                 line={"color": RET_COLOR}, showlegend=False,
                                 hovertemplate="t = %{x:.2f}<br>%{y:.0f} test nodes<extra></extra>"), row=2, col=1)
    if not rows.empty:
        s = rows.iloc[0]
        if len(t):
            fig.add_trace(go.Scatter(x=[t[0], t[-1]], y=[s["et_error"]] * 2, mode="lines", name="ET (uncompressed), test",
                                     line={"color": ET_COLOR, "dash": "dash"},
                                     hovertemplate="ET: %{y:.4f}<extra></extra>"), row=1, col=1)
        t_star = float(s["t_star"])
        label = f"t* = {t_star:.2f}" + (" (mean)" if len(result.rows) > 1 else "") + " by CV"
        for row in (1, 2):
            fig.add_vline(x=t_star, line={"color": "black", "dash": "dot", "width": 1}, row=row, col=1)
        # Written on the side of the line with more room (t* is often near the path's end).
        side = dict(xanchor="left", xshift=4) if not len(t) or t_star <= 0.55 * t[-1] else dict(xanchor="right",
                                                                                               xshift=-4)
        fig.add_annotation(x=t_star, y=1.0, yref="y domain", xref="x", text=label, showarrow=False,
                           yanchor="top", row=1, col=1, **side)
        fig.add_annotation(x=t_star, y=1.0, yref="y2 domain", xref="x2", showarrow=False, yanchor="top", **side,
                           text=f"{s['ret_nodes']:,.0f} test nodes (ET: {s['et_nodes']:,.0f}, "
                                f"{s['compression_factor']:.0f}× fewer)", row=2, col=1)
    if len(t):
        fig.update_xaxes(range=[0.0, float(t[-1])])
    fig.update_xaxes(title_text="t (ℓ1 norm of the weights = steps × ε)", row=2, col=1)
    fig.update_yaxes(title_text="error", row=1, col=1)
    fig.update_yaxes(title_text="test nodes", rangemode="tozero", row=2, col=1)
    fig.update_layout(height=height, template="plotly_white", hovermode="x unified",
                      title=f"ℓ1 path of an extra-trees forest on {result.dataset} ({_runs_text(result)})",
                      legend={"orientation": "h", "y": -0.15}, meta="compression-path",
                      margin={"t": 70, "r": 20, "l": 60, "b": 40})
    return fig


def compression_sweep_figure(result, *, height=460):
    """ET and rET error and test nodes against n_min (Figure 7.3) or M (Figure 7.4), mean ± sd over runs."""
    s = result.summary_frame()
    param = result.x_name or "x"
    x_title = SWEEP_PARAMETERS.get(param, param) + " (log scale)"
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=(f"Error: {result.metric}", "Test nodes (log scale)"))
    if not s.empty:
        x = s["x"].to_numpy(float)
        for prefix, name, color in (("et", "ET (uncompressed)", ET_COLOR), ("ret", "rET (compressed)", RET_COLOR)):
            many = (s["n_runs"] > 1).any()
            err = {"type": "data", "array": s[f"{prefix}_error_std"].to_numpy(float), "visible": True} if many else None
            fig.add_trace(go.Scatter(x=x, y=s[f"{prefix}_error"], mode="lines+markers", name=name, error_y=err,
                                     legendgroup=prefix, line={"color": color},
                                     hovertemplate=f"{name}<br>{param} = %{{x}}<br>%{{y:.4f}}<extra></extra>"),
                          row=1, col=1)
            fig.add_trace(go.Scatter(x=x, y=s[f"{prefix}_nodes"], mode="lines+markers", name=name, showlegend=False,
                                     legendgroup=prefix, line={"color": color},
                                     hovertemplate=f"{name}<br>{param} = %{{x}}<br>%{{y:.0f}} test nodes<extra></extra>"),
                          row=1, col=2)
    fig.update_xaxes(type="log", title_text=x_title)
    fig.update_yaxes(type="log", row=1, col=2)
    figure = "7.3" if param == "n_min" else "7.4"
    fig.update_layout(height=height, template="plotly_white", meta=f"compression-sweep-{param}",
                      title=f"Thesis Figure {figure}: ET and rET against {param} on {result.dataset} "
                            f"({_runs_text(result)})", legend={"orientation": "h", "y": -0.25},
                      margin={"t": 70, "r": 20, "l": 60, "b": 40})
    return label_log_axes(fig)
