"""What the cost-against-d view says: its sentence (computed from the measurement), how it was
measured, what each legend entry means and the paper's argument it tests."""
from __future__ import annotations

import numpy as np

# Paper 002's words the view tests (sections 3.2, 3.3 and 4.1.2); see engine/experiments/cost_vs_outputs.py.
ARGUMENT = (
    "**The claim (paper 002, section 3).** gbrt-rpo fits each tree on a projection of the residuals, "
    "“reducing dimensionality from d outputs to a single output” (section 3.2); random projections "
    "“strongly reduce the size of the output space” (section 3.3); and “the computing time of one boosting "
    "iteration is different between the approaches” (section 4.1.2). Counted for a step on n samples and "
    "p inputs: st-gbrt grows d single-output trees; gbmort grows one tree whose split search sums all d "
    "residual columns at every candidate threshold (O(n p d)); the projected methods grow one tree on q "
    "columns (O(n p q)) and pay per output only the O(n d) of the gradient, the projection, the leaf values, "
    "the line search and the update. So a gbmort or st-gbrt step should cost about in proportion to d "
    "(slope 1 on log–log axes), a projected step much less."
)

# What every legend entry of the chart is (keyed by the method's estimator name; {q} and {s}: its q).
LEGEND = {
    "st-gbrt": "one single-output tree per output, so one step grows d trees (the time of all d)",
    "gbmort": "one multi-output tree per step, its splits chosen on all d residual columns at once",
    "gbrt-rpo-gaussian": "one tree per step on one Gaussian projection of the residuals, then one weight ρ per output",
    "gbrt-relabel-rpo-gaussian": "one tree per step on {q} Gaussian projection{s} of the residuals, its leaves then "
                                 "refilled with the mean of the d unprojected residuals",
}


def _ms(seconds):
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def legend_text(result) -> str:
    """One caption line per legend entry of the chart, plus what the bars are."""
    lines = [f"- **{m.label}**: " + LEGEND.get(m.estimator, m.estimator).format(q=m.q, s="s" if m.q > 1 else "") + "."
             for m in result.methods]
    lines.append("- Bars: the fastest and the slowest timed fit at that d; the marker is their median. Dashed: "
                 "the methods whose step works on every output; solid: the projected ones.")
    return "\n".join(lines)


def measurement_text(result) -> str:
    """How the numbers were measured and on what (the settings and machine stored in the result)."""
    s, m = result.settings, result.machine
    load = m.get("load_average")
    after = m.get("load_average_after")
    load_text = (f"load average {load}" + (f" → {after}" if after is not None else "")) if load is not None else "load unknown"
    return (f"Measured on Friedman1-style data (x uniform on [0, 1]^{s['n_features']}, every output "
            f"f(x₁..x₅) + N(0, 1)), n = {s['n_samples']} samples, {s['max_leaf_nodes']}-leaf trees, d = "
            f"{', '.join(str(d) for d in result.d_values)}; one thread; per method and d one untimed warm-up fit "
            f"of {s['min_steps']} steps, then {s['repeats']} timed fits of at least {s['min_steps']} steps (about "
            f"{s['target_seconds']:g} s each); a fit's time is the CPU time of the fitting thread (a busy machine "
            f"inflates it much less than wall-clock time) and the time per step the median over the fits of that "
            f"time divided by the fit's steps. Machine: "
            f"{m.get('cpu', 'unknown CPU')}, {m.get('cores', '?')} cores, {load_text}, engine {m.get('engine', '?')}, "
            f"{m.get('date', 'date unknown')}. A shared machine is noisy: differences under about 20 % are not "
            "worth reading.")


def cost_takeaway(result) -> str:
    """The sentence under the chart: every method's fitted log–log slope and, at the largest d
    both have, each method's time per step relative to gbmort's (all computed from ``result``)."""
    slopes = result.slopes()
    measured = [m for m in result.methods if np.isfinite(slopes[m.label])]
    if not measured:
        return "Fewer than two values of d were measured: no slope to read yet."
    d = result.d_values
    parts = [f"**Fitted log–log slopes** over d = {min(d)} to {max(result.measured(measured[0].label))} "
             "(a time growing as d^a has slope a): "
             + "; ".join(f"{m.label} **{slopes[m.label]:.2f}**" for m in measured) + "."]
    upper = result.slopes(result.upper_half)
    if sum(np.isfinite(v) for v in upper.values()) and len(result.d_values) >= 5:
        parts.append(f"Over the upper half alone, d ≥ {result.upper_half}: " + "; ".join(
            f"{m.label} {upper[m.label]:.2f}" for m in measured if np.isfinite(upper[m.label])) + ".")
    ref = next((m.label for m in result.methods if m.estimator == "gbmort"), None)
    if ref is not None:
        others = [m for m in measured if m.label != ref and result.largest_common_d(m.label, ref) is not None]
        if others:
            at = result.largest_common_d(others[0].label, ref)
            i = list(d).index(at)
            parts.append(f"**At d = {at}**, against gbmort's {_ms(result.seconds[ref][i])} per step: " + "; ".join(
                f"{m.label} {_ms(result.seconds[m.label][i])} (**{result.ratio(m.label, ref, at):.2g}×**)"
                for m in others if np.isfinite(result.seconds[m.label][i])) + ".")
    projected = [m.label for m in measured if "rpo" in m.estimator]
    if ref in slopes and projected and np.isfinite(slopes[ref]):
        flatter = [label for label in projected if slopes[label] < slopes[ref]]
        parts.append(f"{len(flatter)} of the {len(projected)} projected curves rise more slowly than gbmort's."
                     if len(flatter) < len(projected) else "Every projected curve rises more slowly than gbmort's.")
    if not result.complete:
        parts.append("(Stopped: the largest values of d are missing.)")
    return " ".join(parts)
