"""Figures of the bias–variance experiments (plotly only): components against a swept parameter."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.plotting.common import label_log_axes

COMPONENTS = (
    ("error", "expected error", "black", "solid"),
    ("bias2", "bias²", "#d62728", "solid"),
    ("variance", "variance", "#1f77b4", "solid"),
    ("var_learning_set", "learning-set variance", "#1f77b4", "dash"),
    ("var_algorithm", "algorithm variance", "#1f77b4", "dot"),
    ("noise", "noise", "grey", "dashdot"),
)


def _x_values(result):
    vals = result.param_values
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
           for v in vals):
        return list(vals), False
    return [str(v) for v in vals], True


def bias_variance_figure(result, title=None, components=None):
    """Error, bias², variance (and its two parts) and noise against the swept parameter."""
    x, categorical = _x_values(result)
    fig = go.Figure()
    wanted = components or [c[0] for c in COMPONENTS]
    for key, label, color, dash in COMPONENTS:
        if key not in wanted:
            continue
        y = getattr(result, key)
        if key == "var_algorithm" and result.n_seeds < 2:
            continue
        fig.add_trace(go.Scatter(x=x, y=y, name=label, mode="lines+markers",
                                 line=dict(color=color, dash=dash)))
    log = result.param_name == "n_estimators" and not categorical
    fig.update_layout(
        title=title or f"Bias-variance decomposition: {result.estimator}, Friedman1-{result.structure}",
        xaxis_title=result.param_name or "configuration", yaxis_title="mean squared error",
        xaxis_type="log" if log else None, template="plotly_white",
        legend=dict(orientation="h", y=-0.2))
    if result.partial:
        fig.add_annotation(text=f"partial: {result.n_sets_done}/{result.n_learning_sets} learning sets",
                           xref="paper", yref="paper", x=1, y=1.05, showarrow=False)
    return label_log_axes(fig)


def bias_variance_comparison_figure(results, title=None, components=("error", "bias2", "variance")):
    """Several runs (dict label -> result) on one chart: one colour per component, one dash per run."""
    dashes = ("solid", "dash", "dot", "dashdot", "longdash")
    colors = {key: color for key, _, color, _ in COMPONENTS}
    labels = {key: label for key, label, _, _ in COMPONENTS}
    fig = go.Figure()
    log = False
    for r, (name, res) in enumerate(results.items()):
        x, categorical = _x_values(res)
        log = log or (res.param_name == "n_estimators" and not categorical)
        for key in components:
            fig.add_trace(go.Scatter(x=x, y=getattr(res, key), mode="lines",
                                     name=f"{labels[key]} ({name})",
                                     line=dict(color=colors[key], dash=dashes[r % len(dashes)])))
    first = next(iter(results.values()))
    fig.update_layout(title=title, xaxis_title=first.param_name or "configuration",
                      yaxis_title="mean squared error", xaxis_type="log" if log else None,
                      template="plotly_white", legend=dict(orientation="h", y=-0.2))
    return label_log_axes(fig)


def slice_curves_figure(result, index=-1, title=None):
    """The "resample the training set" view on the slice x1 in [0, 1] (other inputs 0.5), output 1."""
    k = index % len(result.param_values)
    fig = go.Figure()
    for i in range(result.slice_curves.shape[1]):
        fig.add_trace(go.Scatter(x=result.slice_x, y=result.slice_curves[k, i], mode="lines",
                                 name=f"learning set {i + 1}", opacity=0.5,
                                 line=dict(width=1, color="#1f77b4")))
    fig.add_trace(go.Scatter(x=result.slice_x, y=result.slice_mean[k], mode="lines",
                             name=f"mean over {result.n_sets_done} sets", line=dict(width=3, color="#ff7f0e")))
    fig.add_trace(go.Scatter(x=result.slice_x, y=result.slice_bayes, mode="lines", name="Bayes E[y₁|x]",
                             line=dict(width=3, color="black", dash="dash")))
    label = f"{result.param_name}={result.param_values[k]}" if result.param_name else ""
    fig.update_layout(title=title or f"{result.estimator} {label}: fitted curves on x1 (others 0.5), output 1",
                      xaxis_title="x1", yaxis_title="prediction of y1", template="plotly_white")
    return fig



# =============================================================================================
# Bias–variance page (pages/bias_variance.py): several runs side by side (dict label -> result).
# =============================================================================================

# The four additive parts of the expected error, bottom to top in the stacked view.
STACK = (
    ("noise", "noise σ²", "#9e9e9e"),
    ("bias2", "bias²", "#d62728"),
    ("var_learning_set", "learning-set variance Var_L(E_θ f)", "#1f77b4"),
    ("var_algorithm", "algorithm variance E_L Var_θ(f)", "#9ecae1"),
)


def _is_log(result):
    x, categorical = _x_values(result)
    return (result.param_name in ("n_estimators", "n_projections") and not categorical
            and len(x) > 2 and min(x) > 0 and max(x) / min(x) >= 20)


def _partial_note(results):
    parts = [f"{name}: {r.n_sets_done}/{r.n_learning_sets} sets" for name, r in results.items() if r.partial]
    return "partial result (stopped): " + ", ".join(parts) if parts else ""


def bias_variance_stacked_figure(results, title=None):
    """Stacked areas (bars for a categorical sweep) of noise, bias², learning-set and algorithm
    variance against the swept parameter, one panel per run, with the expected error on top
    as a black line (the parts add up to it exactly)."""
    names = list(results)
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True, subplot_titles=names,
                        horizontal_spacing=0.05)
    for c, name in enumerate(names, start=1):
        res = results[name]
        x, categorical = _x_values(res)
        for key, label, color in STACK:
            y = np.asarray(getattr(res, key), dtype=float)
            hover = f"{res.param_name}=%{{x}}<br>{label}: %{{y:.3f}}<extra>{name}</extra>"
            if categorical:
                trace = go.Bar(x=x, y=y, name=label, marker_color=color, legendgroup=key,
                               showlegend=c == 1, hovertemplate=hover)
            else:
                trace = go.Scatter(x=x, y=y, name=label, mode="lines", stackgroup=f"s{c}",
                                   line=dict(width=0.5, color=color), fillcolor=color, legendgroup=key,
                                   showlegend=c == 1, hovertemplate=hover)
            trace.meta = {"component": key, "run": name}
            fig.add_trace(trace, row=1, col=c)
        err = go.Scatter(x=x, y=np.asarray(res.error, dtype=float), name="expected error", mode="lines+markers",
                         line=dict(color="black", width=2), legendgroup="error", showlegend=c == 1,
                         hovertemplate=f"{res.param_name}=%{{x}}<br>error: %{{y:.3f}}<extra>{name}</extra>")
        err.meta = {"component": "error", "run": name}
        fig.add_trace(err, row=1, col=c)
        fig.update_xaxes(title_text=res.param_name or "configuration", type="log" if _is_log(res) else None,
                         row=1, col=c)
    first = results[names[0]]
    fig.update_yaxes(title_text="mean squared error", rangemode="tozero", row=1, col=1)
    fig.update_layout(
        title=title or f"Decomposition of the expected test error: {first.estimator}, Friedman1-{first.structure}",
        barmode="stack", template="plotly_white", legend=dict(orientation="h", y=-0.22), height=440,
        margin=dict(l=60, r=20, t=80, b=60), meta={"partial": any(r.partial for r in results.values())})
    note = _partial_note(results)
    if note:
        fig.add_annotation(text=note, xref="paper", yref="paper", x=1, y=1.12, showarrow=False,
                           font=dict(color="#d62728"))
    return label_log_axes(fig)


def bias_variance_lines_figure(results, title=None):
    """Error, bias², variance and noise as lines: one colour per component, one dash per run."""
    dashes = ("solid", "dash", "dot", "dashdot")
    parts = (("error", "error", "black"), ("bias2", "bias²", "#d62728"),
             ("variance", "variance", "#1f77b4"), ("noise", "noise", "#9e9e9e"))
    fig = go.Figure()
    log = False
    for r, (name, res) in enumerate(results.items()):
        x, _ = _x_values(res)
        log = log or _is_log(res)
        for key, label, color in parts:
            if key == "noise" and r > 0:
                continue  # the same for every run
            trace = go.Scatter(x=x, y=np.asarray(getattr(res, key), dtype=float), mode="lines+markers",
                               name=label if key == "noise" else f"{label} ({name})",
                               line=dict(color=color, dash=dashes[r % len(dashes)]),
                               hovertemplate=f"{res.param_name}=%{{x}}<br>{label}: %{{y:.3f}}<extra>{name}</extra>")
            trace.meta = {"component": key, "run": name}
            fig.add_trace(trace)
    first = next(iter(results.values()))
    fig.update_layout(title=title or "Error, bias² and variance (lines, log scale)",
                      xaxis_title=first.param_name or "configuration", yaxis_title="mean squared error",
                      xaxis_type="log" if log else None, yaxis_type="log", template="plotly_white",
                      legend=dict(orientation="h", y=-0.22), height=420, margin=dict(l=60, r=20, t=60, b=60))
    return label_log_axes(fig)


def slice_curves_panels_figure(results, index=-1, title=None):
    """The "resample the training set" view: per run, the fits of a few learning sets (thin),
    their mean over all sets (bold) and the Bayes model E[y₁|x] (dashed) on the slice
    x₁ ∈ [0, 1], other inputs 0.5."""
    names = list(results)
    first = results[names[0]]
    k = index % len(first.param_values)
    titles = [f"{n}: {first.param_name}={results[n].param_values[k % len(results[n].param_values)]}"
              if first.param_name else n for n in names]
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True, subplot_titles=titles,
                        horizontal_spacing=0.05)
    for c, name in enumerate(names, start=1):
        res = results[name]
        kk = k % len(res.param_values)
        for i in range(res.slice_curves.shape[1]):
            fig.add_trace(go.Scatter(x=res.slice_x, y=res.slice_curves[kk, i], mode="lines",
                                     name="one learning set each", legendgroup="sets",
                                     showlegend=c == 1 and i == 0, opacity=0.55,
                                     line=dict(width=1, color="#1f77b4"),
                                     hovertemplate=f"set {i + 1}: %{{y:.2f}}<extra>{name}</extra>"), row=1, col=c)
        fig.add_trace(go.Scatter(x=res.slice_x, y=res.slice_mean[kk], mode="lines",
                                 name="mean over all sets", legendgroup="mean", showlegend=c == 1,
                                 line=dict(width=3, color="#ff7f0e"),
                                 hovertemplate=f"mean: %{{y:.2f}}<extra>{name}</extra>"), row=1, col=c)
        fig.add_trace(go.Scatter(x=res.slice_x, y=res.slice_bayes, mode="lines", name="Bayes E[y₁|x]",
                                 legendgroup="bayes", showlegend=c == 1,
                                 line=dict(width=2, color="black", dash="dash"),
                                 hovertemplate="Bayes: %{y:.2f}<extra></extra>"), row=1, col=c)
        fig.update_xaxes(title_text="x₁ (other inputs 0.5)", row=1, col=c)
    fig.update_yaxes(title_text="prediction of output 1", row=1, col=1)
    fig.update_layout(title=title or "Resampling the training set: fitted curves on a 1-D slice",
                      template="plotly_white", legend=dict(orientation="h", y=-0.22), height=400,
                      margin=dict(l=60, r=20, t=80, b=60))
    return fig


def data_bias_variance_figure(result):
    """Bias–variance on a data set's own rows (:mod:`engine.experiments.bias_variance_data`): one stacked
    bar per estimator, bias² + noise (one term: no Bayes model), learning-set and algorithm variance."""
    colors = {key: color for key, _, color, _ in COMPONENTS}
    parts = (("bias2_noise", "bias² + noise (not separable without a generator)", colors["bias2"]),
             ("learning_set_variance", "learning-set variance", colors["var_learning_set"]),
             ("algorithm_variance", "algorithm variance", "#9ecae1"))
    fig = go.Figure()
    for key, label, color in parts:
        fig.add_trace(go.Bar(x=list(result.estimators), y=getattr(result, key), name=label, marker_color=color,
                             meta=dict(component=key),
                             hovertemplate="%{x}: " + label + " %{y:.4g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=list(result.estimators), y=result.error, mode="markers", name="expected test error",
                             marker=dict(symbol="diamond", size=11, color="black"), meta=dict(component="error"),
                             hovertemplate="%{x}: error %{y:.4g}<extra></extra>"))
    loss = "squared error" if result.task == "regression" else "squared error of the label probabilities (Brier)"
    fig.update_layout(barmode="stack", template="plotly_white", legend=dict(orientation="h", y=-0.2),
                      title=f"{result.dataset}: {loss}, {result.n_sets_done} {result.scheme} learning sets of "
                            f"{result.n_train} rows", yaxis_title=loss, margin=dict(t=50))
    return fig
