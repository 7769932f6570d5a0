"""Figures of the learning-curve experiments: convergence, projection size, schemes, live runs."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.formatting import fmt_number
from engine.methods import BOOSTING
from engine.names import PROJECTED
from engine.plotting.common import METHOD_COLORS, OTHER_COLORS, label_log_axes, series_colors


_X_AXES = {
    "trees_per_output": "trees per output (log scale)",
    "step": "boosting steps (log scale)",
    "n_trees": "trees fitted (log scale)",
    "fit_time": "fit time in seconds (log scale)",
}


def _finite_xy(x, y):
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0)
    return x[keep], y[keep]


def _add_curves(fig, result, x, *, row=None, col=None, show_train=False, showlegend=True):
    """One test-score line per curve with its best point marked; optionally the train score dotted."""
    kw = {} if row is None else {"row": row, "col": col}
    # a method's own colour; curves of one method (a q sweep's, a scheme's) apart by their labels
    key = {id(c): c.name if c.name in METHOD_COLORS else c.label for c in result.curves.values()}
    colors = series_colors(list(key.values()))
    for curve in result.curves.values():
        color = colors[key[id(curve)]]
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
    """Zoom on the interesting part: from a bit under the best scores' spread, never below -0.05
    (never below 0 for LRAP, which lives in [0, 1])."""
    best = [c.best_score for c in result.curves.values() if np.isfinite(c.best_score)]
    if not best:
        return None
    hi = max(best)
    if show_train:
        hi = max([hi] + [float(np.nanmax(c.train_score)) for c in result.curves.values()
                         if np.isfinite(c.train_score).any()])
    lo = max(min(best) - 0.25 * max(hi - min(best), 0.05) - 0.2, 0.0 if result.metric == "LRAP" else -0.05)
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


def time_range(result, label):
    """(lowest, highest) total fit seconds of the curve ``label`` of a result, when it was timed
    several times; else None."""
    curve = (getattr(result, "curves", None) or {}).get(label)
    rng = getattr(curve, "time_range", None)
    return None if rng is None else (float(rng[0]), float(rng[1]))


def projection_size_figure(result, *, title=None) -> go.Figure:
    """Figure 6: test score (left) and fit time (right) against the number of projections q.

    gbrt-relabel-rpo with q projections as markers and lines; gbmort, the q -> infinity
    limit, as a dashed horizontal reference. The left panel also shows the score reached
    within the time budget and, dotted grey, the constant model every method starts from
    (how much was learned at all).
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=[
        f"test {result.metric} against q", f"fit time of {result.n_steps} steps against q"])
    q = result.q_values.astype(float)
    scheme = {"subsample": "output sub-sampling"}.get(result.projection, f"{result.projection} projections")
    fig.add_trace(go.Scatter(x=q, y=result.score, mode="lines+markers", name=f"relabel-rpo, after {result.n_steps} steps",
                             line={"color": OTHER_COLORS[0]},
                             hovertemplate=f"q = %{{x}}<br>test {result.metric} %{{y:.4f}}<extra></extra>"), row=1, col=1)
    if np.isfinite(result.budget_score).any():
        fig.add_trace(go.Scatter(x=q, y=result.budget_score, mode="lines+markers",
                                 name=f"relabel-rpo, within {fmt_number(result.time_budget)} s",
                                 line={"color": OTHER_COLORS[1], "dash": "dot"},
                                 hovertemplate=f"q = %{{x}}<br>{result.metric} within budget %{{y:.4f}}<extra></extra>"),
                      row=1, col=1)
    baseline = getattr(result, "baseline_score", float("nan"))
    if np.isfinite(baseline):
        fig.add_trace(go.Scatter(x=[q.min(), q.max()], y=[baseline, baseline], mode="lines",
                                 name="constant model (step 0)", line={"color": "#888888", "dash": "dot"},
                                 hovertemplate=f"predicting the training means: {baseline:.3f}<extra></extra>"),
                      row=1, col=1)
    # Time ranges of the repeated timed fits (engine.experiments.timing): a gap inside them is noise.
    ranges = [time_range(result, f"q={int(v)}") for v in result.q_values]
    err = None
    if any(r is not None for r in ranges):
        mid = np.asarray(result.fit_time, dtype=float)
        hi = np.array([r[1] if r else m for r, m in zip(ranges, mid)]) - mid
        lo = mid - np.array([r[0] if r else m for r, m in zip(ranges, mid)])
        err = {"type": "data", "symmetric": False, "array": np.clip(hi, 0, None).tolist(),
               "arrayminus": np.clip(lo, 0, None).tolist(), "visible": True}
    fig.add_trace(go.Scatter(x=q, y=result.fit_time, mode="lines+markers", name="relabel-rpo fit time",
                             line={"color": OTHER_COLORS[0]}, showlegend=False, error_y=err,
                             hovertemplate="q = %{x}<br>%{y:.3g} s<extra></extra>"), row=1, col=2)
    if np.isfinite(result.gbmort_score):
        g_range = time_range(result, "gbmort")
        if g_range is not None and g_range[1] > g_range[0]:
            fig.add_trace(go.Scatter(x=[q.min(), q.max(), q.max(), q.min()], y=[g_range[0], g_range[0], g_range[1], g_range[1]],
                                     fill="toself", mode="none", fillcolor=METHOD_COLORS["gbmort"], opacity=0.15, showlegend=False,
                                     name="gbmort fit time range",
                                     hoverinfo="skip"), row=1, col=2)
        for col, value, text in ((1, result.gbmort_score, f"gbmort {result.gbmort_score:.3f}"),
                                 (2, result.gbmort_fit_time, f"gbmort {fmt_number(result.gbmort_fit_time)} s")):
            fig.add_trace(go.Scatter(x=[q.min(), q.max()], y=[value, value], mode="lines", name="gbmort (q → ∞)",
                                     showlegend=col == 1, line={"color": METHOD_COLORS["gbmort"], "dash": "dash"},
                                     hovertemplate=f"{text}<extra></extra>"), row=1, col=col)
    fig.update_xaxes(type="log", title_text="number of projections q (log scale)")
    # LRAP lives in [0, 1]: never an axis below 0 (a flat near-baseline run drew -0.04..0.06)
    fig.update_yaxes(title_text=f"test {result.metric}", row=1, col=1,
                     rangemode="nonnegative" if result.metric == "LRAP" else "normal")
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
    algo = BOOSTING[result.params.get("strategy", PROJECTED)].name
    return convergence_figure(result, x=x, title=title or (
        f"{result.dataset}: {algo}, test {result.metric} per projection scheme"))


# =============================================================================================
# Data page figures (pages/data.py): empirical output correlation, outputs vs the Bayes
# target, target distributions. Input: plain arrays of a Dataset (X, Y, bayes, names).
# =============================================================================================


_PIN_DASHES = ("dash", "dot", "dashdot", "longdash")
# Most points per curve trace on the live chart. Its axes are logarithmic: a 10 000-step curve puts 9 000
# points in its last decade, some ten per pixel. Every session watching a live run is sent the whole
# figure about once a second: five such curves on two panels made 2.5 MB of JSON per redraw and session
# (21 ms of the server's Python to write, 129 ms to build), which thirty students watching one run
# could not afford. Downloads (CSV, JSON) keep every step.
LIVE_POINTS = 2000


def log_spaced(n, keep=(), max_points=LIVE_POINTS):
    """Indices into ``n`` steps: all of them when ``n <= max_points``, else about ``max_points``
    evenly spaced on a log axis (the first and the last included), plus the indices in ``keep``."""
    if n <= max_points:
        return np.arange(n)
    idx = np.unique(np.round(np.geomspace(1, n, max_points)).astype(np.int64) - 1)
    extra = np.asarray([k for k in keep if k is not None and 0 <= k < n], dtype=np.int64)
    return np.union1d(idx, extra)


_LIVE_X = {"trees_per_output": "trees per output (log scale)", "step": "boosting steps (log scale)"}
RISING_NOTE_SHIFT = 24   # pixels between the subplot titles and the "still rising" line above them


def live_convergence_figure(result, pinned=(), x="trees_per_output", *, title=None,
                            early_stops=None) -> go.Figure:
    """Test score against ``x`` (left) and against fit time (right), both on log axes.

    result : the current ConvergenceResult (may be partial, or None); solid lines, a star at
        each curve's best test score.
    pinned : sequence of ``(name, ConvergenceResult)``; drawn dashed in the same colour per
        estimator, legend entries "name · estimator", so a what-if run overlays its baseline.
    x : "trees_per_output" or "step".
    early_stops : optional ``{run: {estimator: step or None}}`` (live_convergence.early_stop_steps
        per run): a diamond where early stopping would have stopped.
    A curve longer than LIVE_POINTS steps is drawn through about LIVE_POINTS of them, log-spaced,
    its best and early-stop steps included (:func:`log_spaced`).
    Every trace's ``meta`` is ``{"run": "current" | pin name, "estimator": name,
    "kind": "curve" | "best" | "early_stop"}``, and a curve's also has ``"steps"``, the steps of the
    curve (more than its points when thinned): tests and the page read the figure back through it.
    """
    if x not in _LIVE_X:
        raise ValueError(f"x must be one of {tuple(_LIVE_X)}, got {x!r}")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.08,
                        subplot_titles=[f"against {_LIVE_X[x].split(' (')[0]}", "against fit time"])
    runs = [(name, res, _PIN_DASHES[i % len(_PIN_DASHES)], 1.5) for i, (name, res) in enumerate(pinned)]
    if result is not None:
        runs.append(("current", result, "solid", 2.5))
    colours = series_colors([c.name for _, res, _, _ in runs for c in res.curves.values()])
    metric = "macro-r2"
    lows, highs = [], []
    for run, res, dash, width in runs:
        metric = res.metric
        for curve in res.curves.values():
            _add_live_curve(fig, run, res.metric, curve, x, colour=colours[curve.name], dash=dash, width=width,
                            stop=(early_stops or {}).get(run, {}).get(curve.name))
            if np.isfinite(curve.best_score):
                highs.append(curve.best_score)
                finite = curve.test_score[np.isfinite(curve.test_score)]
                lows.append(float(finite.min()))
    y_range = _fit_live_axes(fig, highs, lows, metric)
    rising = [c.label for c in (result.curves.values() if result is not None else []) if c.still_rising]
    if rising:   # said on the chart: the run ended before these curves' plateau (issue 21, item 5)
        # In a line of its own above the two subplot titles (which sit on the panels' top edge): inside
        # the left panel it covered the curves' tops and stars, and a long list ran into the titles.
        fig.add_annotation(text=f"still rising at the last step: {', '.join(rising)} (stopped before the plateau)",
                           x=0.0, y=1.0, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
                           yshift=RISING_NOTE_SHIFT, showarrow=False, font={"size": 11, "color": "#b45309"},
                           name="still-rising")
    if not fig.data:   # nothing to draw: say so instead of empty axes with made-up ranges
        fig.add_annotation(text="No curves yet for these settings: press Start.", x=0.5, y=0.5, xref="paper",
                           yref="paper", showarrow=False, font={"size": 15, "color": "#666666"})
        fig.update_xaxes(visible=False)
        fig.update_yaxes(visible=False)
    fig.update_xaxes(type="log", title_text=_LIVE_X[x], row=1, col=1)
    fig.update_xaxes(type="log", title_text="fit time in seconds (log scale)", row=1, col=2)
    fig.update_yaxes(title_text=f"test {metric}", range=y_range, row=1, col=1)
    fig.update_yaxes(range=y_range, row=1, col=2)
    fig.update_layout(
        title={"text": title or ""}, legend={"orientation": "h", "y": -0.22, "x": 0},
        hovermode="closest", margin={"l": 60, "r": 20, "t": (50 if title else 30) + (RISING_NOTE_SHIFT if rising else 0),
                                     "b": 40}, height=460,
        uirevision="convergence",
    )
    return label_log_axes(fig)


# A marker on a live curve: (symbol, size on the current run, size on a pinned one, outline on the
# current run); a pinned run's marker is the open symbol in the curve's colour.
_LIVE_MARKERS = {"best": ("star", 11, 8, "white"), "early_stop": ("diamond", 10, 7, "black")}


def _add_live_curve(fig, run, metric, curve, x, *, colour, dash, width, stop):
    """One estimator's curve of one run on both panels: its line (log-thinned), a star at its best
    test score, a diamond at ``stop`` (the step early stopping would have stopped at, or None)."""
    label = curve.label if run == "current" else f"{run} · {curve.label}"
    shown = log_spaced(len(curve.test_score), keep=(curve.best_index, None if stop is None else stop - 1))
    for col, xname in ((1, x), (2, "fit_time")):
        xs, ys = _finite_xy(np.asarray(getattr(curve, xname), dtype=float)[shown],
                            np.asarray(curve.test_score, dtype=float)[shown])
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", name=label, legendgroup=label, showlegend=col == 1,
            line={"color": colour, "width": width, "dash": dash},
            meta={"run": run, "estimator": curve.name, "kind": "curve", "steps": int(curve.n_steps)},
            hovertemplate=f"{label}<br>%{{x:.4g}}<br>test {metric} %{{y:.4f}}<extra></extra>",
        ), row=1, col=col)
        b = curve.best_index
        if b is not None and xs.size:
            bx = float(getattr(curve, xname)[b])
            if np.isfinite(bx) and bx > 0:
                fig.add_trace(_live_marker(run, curve, label, colour, "best", bx, curve.best_score,
                                           f"{label}: best test {metric} {curve.best_score:.4f}"
                                           f"<br>at step {curve.best_step}<extra></extra>"), row=1, col=col)
        if stop is not None and 1 <= stop <= curve.n_steps:
            sx = float(getattr(curve, xname)[stop - 1])
            if np.isfinite(sx) and sx > 0:
                sy = float(curve.test_score[stop - 1])
                fig.add_trace(_live_marker(run, curve, label, colour, "early_stop", sx, sy,
                                           f"{label}: early stopping would stop at step {stop}"
                                           f"<br>test {metric} {sy:.4f}<extra></extra>"), row=1, col=col)


def _live_marker(run, curve, label, colour, kind, x, y, hovertemplate):
    """A one-point trace marking a curve's best step or early-stop step (``kind``)."""
    symbol, size, pinned_size, outline = _LIVE_MARKERS[kind]
    current = run == "current"
    return go.Scatter(
        x=[x], y=[y], mode="markers", name=f"{label} {kind.replace('_', ' ')}",
        legendgroup=label, showlegend=False,
        marker={"color": colour, "size": size if current else pinned_size,
                "symbol": symbol if current else f"{symbol}-open",
                "line": {"color": outline if current else colour, "width": 1}},
        meta={"run": run, "estimator": curve.name, "kind": kind},
        hovertemplate=hovertemplate,
    )


def _fit_live_axes(fig, highs, lows, metric):
    """Every drawn point inside the axes: y from the lowest score drawn (the constant-model start,
    which can be a little below 0) to above the best (returned: the y range, or None with no
    curve), and x from the first to the last point drawn (no empty decades on the log axes)."""
    y_range = None
    if highs:
        hi, lo = max(highs), min(lows)
        pad = 0.04 * max(hi - lo, 0.05)
        y_range = [max(lo - pad, 0.0) if metric == "LRAP" else lo - pad, hi + pad]
    for col in (1, 2):
        xs = np.concatenate([np.asarray(t.x, dtype=float) for t in fig.data
                             if t.xaxis == ("x" if col == 1 else "x2") and t.x is not None] or [np.empty(0)])
        xs = xs[np.isfinite(xs) & (xs > 0)]
        if xs.size:
            lo_x, hi_x = np.log10(xs.min()), np.log10(xs.max())
            margin = 0.04 * max(hi_x - lo_x, 0.5)
            fig.update_xaxes(range=[lo_x - margin, hi_x + margin], row=1, col=col)
    return y_range
