"""The papers' delicious studies on the real delicious, with their claims beside our numbers.

Paper 002's Figures 3 (projection schemes with gbrt-rpo), 5 (LRAP against fit time for
q in {1, 98, 196, 491}) and 6 (q at 100 steps), all with k = p, stumps, mu = 0.1 and the
logistic loss (mean leaves, the paper's line search); the thesis's forest study (chapter 5,
paper 003 section 4 and Appendix F): single unpruned trees and forests against q
(Figure 5.1), k against q (Figure 5.3) and the projection schemes (Figure 5.4), with t = 100,
k = sqrt(p), n_min = 1.

Three sizes (``SIZES``): "quick" runs every path on ``delicious-slice`` (1000 + 500 rows,
100 labels) in seconds; "moderate" runs the real delicious with fewer steps, trees, q values
and repeats (about an hour on a loaded 2-core machine; what engine/experiments/RESULTS.md reports,
said as such); the test score only (no train curve: the figures draw test LRAP);
"full" uses the papers' settings (hours on one core; the step counts of Figures 3 and 5 are not
printed in the paper and are ours). Every run writes ``<target>_claims.csv`` and
``<target>_claims.md``: :mod:`engine.experiments.claims`.
"""

from __future__ import annotations

import pandas as pd

from engine import plotting
from engine.experiments.claims import (
    claims_frame,
    claims_markdown,
    figure3_claims,
    figure5_claims,
    figure6_claims,
    forest_k_claims,
    forest_q_claims,
    forest_schemes_claims,
)
from engine.experiments.convergence import run_projection_schemes
from engine.experiments.forests import run_forest_projection_size, run_forest_randomization, run_forest_schemes
from engine.experiments.problems import Problem
from engine.experiments.settings import BoostingSettings, ForestSettings
from engine.experiments.projection_size import run_projection_size
from engine.experiments.published import FIGURE5_Q, FIGURE6_STEPS
from engine.reports.writer import Report

__all__ = ["SIZES", "BOOSTING_SIZES", "FOREST_SIZES", "delicious_schemes", "delicious_projection_size",
           "reproduce_forest_projection_size", "reproduce_forest_randomization", "reproduce_forest_schemes"]

SIZES = ("quick", "moderate", "full")
# Paper 002's figures: the data set, steps and q values of each size. Figure 5 is read at a time
# budget, so its curves are scored at more steps than the default 8 of a delicious-sized test set
# (0.6 s per LRAP): the budget reading interpolates between scored steps (Curve.score_at).
BOOSTING_SIZES = {
    "quick": dict(dataset="delicious-slice", figure3_steps=40, figure5_steps=40, figure5_q=(1, 20, 50),
                  figure5_schemes=("gaussian", "subsample"), figure5_eval_points=12, figure6_steps=20,
                  figure6_q=(1, 5, 20, 50)),
    # moderate: Figure 5b (sub-sampled) only: 5a's Gaussian q = 491 costs 12 920 x 983 x 491 multiply-adds
    # per step (seconds each until the projection is a BLAS product)
    "moderate": dict(dataset="delicious", figure3_steps=100, figure5_steps=60, figure5_q=FIGURE5_Q,
                     figure5_schemes=("subsample",), figure5_eval_points=20, figure6_steps=FIGURE6_STEPS,
                     figure6_q=(1, 20, 50)),
    "full": dict(dataset="delicious", figure3_steps=1000, figure5_steps=500, figure5_q=FIGURE5_Q,
                 figure5_schemes=("gaussian", "subsample"), figure5_eval_points=40, figure6_steps=FIGURE6_STEPS,
                 figure6_q=(1, 2, 5, 10, 20, 50, 100, 200, 491)),
}
# The thesis's forest study: trees per forest, repeats (the thesis: 10 over one split), q and k grids.
FOREST_SIZES = {
    "quick": dict(dataset="delicious-slice", n_estimators=5, sweep_trees=5, n_repeats=1, q_values=(1, 5, 25, 100),
                  k_values=(2, 10, 50), k_q_values=(1, "log"), scheme_q_values=(1, 5, 25)),
    # moderate: 20 trees against q (Figure 5.1), 10 for the k and scheme sweeps
    "moderate": dict(dataset="delicious", n_estimators=20, sweep_trees=10, n_repeats=1,
                     q_values=(1, 5, 25, 75, 200, 983),
                     k_values=(2, 22, 100), k_q_values=(1, 7), scheme_q_values=(1, 25, 100)),
    "full": dict(dataset="delicious", n_estimators=100, sweep_trees=100, n_repeats=10,
                 q_values=(1, 2, 5, 10, 25, 50, 75, 100, 200, 500, 983), k_values=(1, 5, 22, 50, 100, 250, 500),
                 k_q_values=(1, 7, 14), scheme_q_values=(1, 2, 5, 10, 25, 50, 100, 250, 500, 983)),
}
PAPER_SETTINGS = "k = p, stumps, μ = 0.1, logistic loss (mean leaves, line search)"


def size_of(quick, budget):
    """The size a target runs at: ``budget`` ("paper" = "full") or quick / full."""
    size = budget or ("quick" if quick else "full")
    size = "full" if size == "paper" else size
    if size not in SIZES:
        raise ValueError(f"budget must be one of {SIZES} (or 'paper'), got {budget!r}")
    return size


def _claims_files(rows):
    return {"claims": claims_frame(rows)}, {"_claims.md": claims_markdown(rows)}


def _note(size):
    return (f"size {size!r}" + {"quick": ": a 1000 + 500-row, 100-label slice of delicious, not the paper's scale",
                                "moderate": ": the real delicious, fewer steps / trees / q than the paper (reduced)",
                                "full": ": the real delicious at the papers' settings"}[size])


# --------------------------------------------------------------------------
# Paper 002: Figures 3, 5 and 6 (sections of the schemes and projection-size targets)
# --------------------------------------------------------------------------


def delicious_schemes(report, size, seed, progress):
    """Figure 3 into ``report``: gbrt-rpo with each scheme on delicious; returns its claim rows."""
    s = BOOSTING_SIZES[size]
    boosting = BoostingSettings(s["figure3_steps"], learning_rate=0.1, max_leaf_nodes=2, loss="logistic")
    result = run_projection_schemes(Problem(s["dataset"]), boosting, seed=seed, train_curve=False, progress=progress)
    summary = result.summary_frame().assign(dataset=s["dataset"])
    rows = figure3_claims(result)
    report.add("delicious", result, f"Figure 3: {s['dataset']}, gbrt-rpo per projection scheme ({PAPER_SETTINGS})",
               [plotting.schemes_figure(result), plotting.schemes_figure(result, x="fit_time")],
               [summary, claims_frame(rows)], notes=list(result.notes) + [_note(size)])
    return summary, rows


def delicious_projection_size(report, size, seed, progress):
    """Figures 5a, 5b and 6 into ``report``; returns (summaries, claim rows)."""
    s = BOOSTING_SIZES[size]
    runs = [("figure6", "gaussian", s["figure6_q"], s["figure6_steps"], None, "Figure 6")] + [
        (f"figure5_{scheme}", scheme, s["figure5_q"], s["figure5_steps"], s["figure5_eval_points"],
         "Figure 5" + "ab"[scheme == "subsample"])
        for scheme in s["figure5_schemes"]]
    summaries, rows = [], []
    for i, (run, projection, q_values, n_steps, n_eval_points, figure) in enumerate(runs):
        boosting = BoostingSettings(n_steps, learning_rate=0.1, max_leaf_nodes=2, loss="logistic",
                                    leaf_estimation="mean")
        result = run_projection_size(Problem(s["dataset"]), boosting, q_values=q_values, projection=projection,
                                     seed=seed, train_curve=False, n_eval_points=n_eval_points,
                                     progress=_part(progress, i, len(runs)))
        these = figure6_claims(result) if figure == "Figure 6" else figure5_claims(result)
        rows += these
        summaries.append(result.to_frame().assign(projection=projection, run=run))
        report.add(run, result, f"{figure}: {s['dataset']}, {projection} projections ({PAPER_SETTINGS})",
                   [plotting.projection_size_figure(result), plotting.projection_size_curves_figure(result)],
                   [result.to_frame(), claims_frame(these)], notes=list(result.notes) + [_note(size)])
    return summaries, rows


def _part(progress, i, n):
    def report(fraction, message=""):
        if progress is not None:
            progress((i + fraction) / n, message)
    return report


# --------------------------------------------------------------------------
# Thesis chapter 5 / paper 003: the forests' delicious study (three targets)
# --------------------------------------------------------------------------


def _forest_target(target, title, run, claims, figure, out_dir, quick, seed, progress, budget):
    size = size_of(quick, budget)
    f = FOREST_SIZES[size]
    result = run(f, seed, progress)
    rows = claims(result)
    trees = result.params["n_estimators"]
    report = Report(target, f"{title} ({f['dataset']}, {trees} trees, {f['n_repeats']} repeat(s))")
    summary = result.summary_frame()
    report.add("delicious", result, title, [figure(result)], [summary, claims_frame(rows)],
               notes=list(result.notes) + [_note(size)])
    extra_csv, extra_text = _claims_files(rows)
    return report.write(out_dir, summary, extra_csv=extra_csv, extra_text=extra_text,
                        settings=dict(f, size=size, seed=seed))


def reproduce_forest_projection_size(out_dir, *, quick=False, seed=0, progress=None, budget=None):
    """Thesis Figure 5.1: single unpruned trees (n_min = 1) and forests (Algorithms 1 and 2, k = sqrt(p))
    on q Gaussian projections of delicious' labels, the unprojected tree and forest as references."""
    def run(f, seed, progress):
        forest = ForestSettings(n_estimators=f["n_estimators"], max_features="sqrt", projection="gaussian",
                                q_values=tuple(f["q_values"]), n_repeats=f["n_repeats"])
        return run_forest_projection_size(Problem(f["dataset"]), forest, seed=seed, timing=False, progress=progress)
    return _forest_target("forest-projection-size", "Thesis Figure 5.1: trees and forests against q", run,
                          forest_q_claims, plotting.forest_projection_size_figure, out_dir, quick, seed, progress,
                          budget)


def reproduce_forest_randomization(out_dir, *, quick=False, seed=0, progress=None, budget=None):
    """Thesis Figure 5.3 (paper 003 Appendix F): input randomization k against output randomization
    q in {1, ln d, 2 ln d} (Algorithm 2, Gaussian), the forest on the original outputs at each k."""
    def run(f, seed, progress):
        forest = ForestSettings(n_estimators=f["sweep_trees"], projection="gaussian", q_values=tuple(f["k_q_values"]),
                                n_repeats=f["n_repeats"])
        return run_forest_randomization(Problem(f["dataset"]), forest, max_features_values=f["k_values"], seed=seed,
                                        progress=progress)
    return _forest_target("forest-randomization", "Thesis Figure 5.3: k against q", run, forest_k_claims,
                          plotting.forest_randomization_figure, out_dir, quick, seed, progress, budget)


def reproduce_forest_schemes(out_dir, *, quick=False, seed=0, progress=None, budget=None):
    """Thesis Figure 5.4: Algorithm 2 with Gaussian, Rademacher (s = 3), sparse Rademacher (s = sqrt(d))
    and sub-sampled projections against q, the forest on the original outputs as reference."""
    def run(f, seed, progress):
        forest = ForestSettings(n_estimators=f["sweep_trees"], max_features="sqrt", q_values=tuple(f["scheme_q_values"]),
                                n_repeats=f["n_repeats"])
        return run_forest_schemes(Problem(f["dataset"]), forest, seed=seed, progress=progress)
    return _forest_target("forest-schemes", "Thesis Figure 5.4: projection schemes for forests", run,
                          forest_schemes_claims, plotting.forest_schemes_figure, out_dir, quick, seed, progress,
                          budget)


def with_claims(report, out_dir, summary, rows, settings):
    """Write a target's files and its claims (``<target>_claims.csv`` / ``.md``)."""
    extra_csv, extra_text = _claims_files(rows)
    return report.write(out_dir, summary, extra_csv=extra_csv, extra_text=extra_text, settings=settings)


def concat(frames):
    return pd.concat(frames, ignore_index=True)
