"""The papers' claims about delicious held against what we measured: one row per claim.

Each function takes a finished result (learning curves, a q sweep, a forest sweep) and returns
rows ``{figure, claim, paper, ours, holds, test}``: the paper's sentence
(:data:`engine.experiments.published.DELICIOUS_CLAIMS`), its number where it prints one, our
numbers read from the result, whether the claim holds on them (None when the result lacks what
the claim needs) and the test used, so a reader can disagree with the threshold, not with the
arithmetic. :func:`claims_frame` and :func:`claims_markdown` lay the rows out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.experiments.published import DELICIOUS_CLAIMS, THESIS_DELICIOUS_FORESTS
from engine.methods import SCHEMES
from engine.names import PROJECTED, boosting_name

__all__ = ["claims_for", "claims_frame", "claims_markdown", "figure3_claims", "figure5_claims", "figure6_claims",
           "forest_q_claims", "forest_k_claims", "forest_schemes_claims"]

# "About the same score": within this much LRAP (the paper's standard deviations on delicious are
# 0.002-0.004; twice the largest).
SAME_SCORE = 0.008
# Figure 3's curves: gbrt-rpo with every scheme of the method table, by its name.
SCHEME_ESTIMATORS = {scheme: boosting_name(PROJECTED, scheme) for scheme in SCHEMES}


def _row(figure, key, paper, ours, holds, test):
    return {"figure": figure, "claim": DELICIOUS_CLAIMS[key], "paper": paper, "ours": ours,
            "holds": None if holds is None else bool(holds), "test": test}


def _at(curve, fraction):
    """The test score at the evaluated step closest to ``fraction`` of the run (and that step)."""
    done = np.flatnonzero(np.isfinite(curve.test_score))
    if done.size == 0:
        return float("nan"), 0
    i = done[np.argmin(np.abs(curve.step[done] - fraction * curve.step[-1]))]
    return float(curve.test_score[i]), int(curve.step[i])


def figure3_claims(result):
    """Figure 3: gbrt-rpo per scheme; sub-sampling ahead of every other scheme at half and at the end."""
    curves = {scheme: result.curves.get(name) for scheme, name in SCHEME_ESTIMATORS.items()}
    if curves["subsample"] is None or not any(c is not None for s, c in curves.items() if s != "subsample"):
        return [_row("Figure 3", "figure3", "", "sub-sampling or every other scheme missing", None, "")]
    parts, holds = [], True
    for fraction in (0.5, 1.0):
        scores = {s: _at(c, fraction)[0] for s, c in curves.items() if c is not None}
        step = _at(curves["subsample"], fraction)[1]
        parts.append(f"step {step}: " + ", ".join(f"{s} {v:.3f}" for s, v in scores.items()))
        holds &= all(scores["subsample"] >= v for s, v in scores.items() if s != "subsample")
    return [_row("Figure 3", "figure3", "no number (curves)", "; ".join(parts), holds,
                 "sub-sampling's test LRAP >= every other scheme's at half the steps and at the last step")]


def figure5_claims(result):
    """Figure 5: at the time budget (the shortest total fit time), q = 1 scores highest."""
    qs = [int(q) for q in result.q_values]
    scores = dict(zip(qs, result.budget_score))
    if 1 not in scores or not np.isfinite(scores[1]):
        return [_row(f"Figure 5 ({result.projection})", "figure5", "", "q = 1 not run", None, "")]
    others = {f"q={q}": v for q, v in scores.items() if q != 1}
    if np.isfinite(result.gbmort_budget_score):
        others["gbmort"] = result.gbmort_budget_score
    ours = (f"best LRAP so far at {result.time_budget:.3g} s: q=1 {scores[1]:.3f}, "
            + ", ".join(f"{k} {v:.3f}" for k, v in others.items()))
    finite = [v for v in others.values() if np.isfinite(v)]
    return [_row(f"Figure 5 ({result.projection})", "figure5", "no number (curves)", ours,
                 all(scores[1] >= v for v in finite) if finite else None,
                 "q = 1's best test LRAP so far at the budget (interpolated between scored steps) >= every other "
                 "model's")]


def figure6_claims(result):
    """Figure 6: q >= 20 within SAME_SCORE of gbmort; gbmort's fit time / q = 20's about 7."""
    qs = [int(q) for q in result.q_values]
    g, gt = result.gbmort_score, result.gbmort_fit_time
    big = [(q, s) for q, s in zip(qs, result.score) if q >= 20 and np.isfinite(s)]
    rows = []
    if np.isfinite(g) and big:
        gaps = ", ".join(f"q={q} {s - g:+.3f}" for q, s in big)
        rows.append(_row("Figure 6a", "figure6-score", "about equal (curves)",
                         f"gbmort {g:.3f}; q >= 20 minus gbmort: {gaps}",
                         all(abs(s - g) <= SAME_SCORE for _, s in big),
                         f"every q >= 20 within {SAME_SCORE} LRAP of gbmort after {result.n_steps} steps"))
    else:
        rows.append(_row("Figure 6a", "figure6-score", "about equal (curves)", "gbmort or q >= 20 missing", None, ""))
    if 20 in qs and np.isfinite(gt) and np.isfinite(result.fit_time[qs.index(20)]):
        t20 = float(result.fit_time[qs.index(20)])
        ratio = gt / t20
        rows.append(_row("Figure 6b", "figure6-time", "7x", f"gbmort {gt:.3g} s, q=20 {t20:.3g} s: {ratio:.2f}x",
                         ratio >= 3.5, "gbmort's fit time / q = 20's >= 3.5 (half the paper's 7)"))
    else:
        rows.append(_row("Figure 6b", "figure6-time", "7x", "q = 20 or gbmort not timed", None, ""))
    return rows


def _curve(summary, series, x_name):
    s = summary[summary["series"] == series]
    return dict(zip(s[x_name].to_numpy(float), s["score"].to_numpy(float)))


def _ref(summary, series):
    s = summary[summary["series"] == series]["score"]
    return float(s.mean()) if len(s) else float("nan")


def _first_within(curve, target, tol=SAME_SCORE):
    hit = [q for q in sorted(curve) if curve[q] >= target - tol]
    return None if not hit else int(hit[0])


def forest_q_claims(result):
    """Figure 5.1: single trees and forests (Algorithms 1 and 2) against q, Table 5.1's row beside."""
    from engine.experiments.forests import FOREST_REF, PER_TREE, SHARED, SINGLE_TREE, TREE_REF
    s = result.summary_frame()
    tree, alg1, alg2 = _curve(s, SINGLE_TREE, "q"), _curve(s, SHARED, "q"), _curve(s, PER_TREE, "q")
    tree_ref, rf = _ref(s, TREE_REF), _ref(s, FOREST_REF)
    rows = []
    if tree and np.isfinite(tree_ref):
        q = _first_within(tree, tree_ref)
        rows.append(_row("Figure 5.1 (top)", "figure5.1-trees", "q ≈ 200",
                         f"tree on original outputs {tree_ref:.3f}; " + ", ".join(f"q={k:g} {v:.3f}" for k, v in
                                                                                   tree.items())
                         + f"; first q within {SAME_SCORE}: {q}", q is not None and 100 <= q <= 400,
                         f"the first q whose tree is within {SAME_SCORE} of the unprojected tree lies in [100, 400]"))
    if np.isfinite(tree_ref) and np.isfinite(rf):
        rows.append(_row("Figure 5.1", "figure5.1-forest-vs-tree", "≈ 2x", f"forest {rf:.3f} / tree {tree_ref:.3f} "
                         f"= {rf / tree_ref:.2f}x", rf / tree_ref >= 1.6, "forest / tree LRAP >= 1.6"))
    if alg1 and alg2:
        common = [q for q in alg2 if q in alg1]
        rows.append(_row("Figure 5.1 (bottom)", "figure5.1-alg2-vs-alg1", "Alg. 2 ≥ Alg. 1",
                         ", ".join(f"q={q:g} {alg2[q]:.3f} vs {alg1[q]:.3f}" for q in common),
                         all(alg2[q] >= alg1[q] - 0.002 for q in common), "Alg. 2 >= Alg. 1 - 0.002 at every q"))
    if alg2 and np.isfinite(rf):
        q2, q1 = _first_within(alg2, rf, 0.0), _first_within(alg1, rf, 0.0) if alg1 else None
        paper = THESIS_DELICIOUS_FORESTS
        rows.append(_row("Figure 5.1 (bottom)", "figure5.1-alg2-vs-rf",
                         f"q ≈ 25 (Alg. 1: 75); Table 5.1: RF {paper['mo-rf'][0]:.3f}, q=1 {paper['q=1'][0]:.3f}, "
                         f"q=d {paper['q=d'][0]:.3f}",
                         f"RF {rf:.3f}, best Alg. 2 {max(alg2.values()):.3f}; first q at or above RF: "
                         f"Alg. 2 {q2}, Alg. 1 {q1}", max(alg2.values()) >= rf,
                         "the best Alg. 2 score >= the forest on the original outputs"))
    return rows


def forest_k_claims(result):
    """Figure 5.3 / Appendix F: k against q; the best (k, q) does not beat the forest's best k."""
    from engine.experiments.forests import FOREST_REF
    s = result.summary_frame()
    rf = _curve(s, FOREST_REF, "max_features")
    projected = {name: _curve(s, name, "max_features") for name in result.series if name != FOREST_REF}
    if not rf or not projected:
        return [_row("Figure 5.3", "figure5.3", "", "reference or projected series missing", None, "")]
    best_rf = max(rf.values())
    best = max((v, name, k) for name, c in projected.items() for k, v in c.items())
    drop = {name: max(c.values()) - c[max(c)] for name, c in projected.items()}
    ours = (f"best forest (original outputs) {best_rf:.3f} at k={max(rf, key=rf.get):g}; best projected {best[0]:.3f} "
            f"({best[1]}, k={best[2]:g}); forest's drop from its best to the largest k {best_rf - rf[max(rf)]:.3f}, "
            + ", ".join(f"{n} {v:.3f}" for n, v in drop.items()))
    return [_row("Figure 5.3", "figure5.3", "no number (curves)", ours, best[0] <= best_rf + 0.002,
                 "no (k, q) beats the forest's best k by more than 0.002")]


def forest_schemes_claims(result):
    """Figure 5.4: the schemes against q, the forest on the original outputs as reference."""
    from engine.experiments.forests import FOREST_REF, SCHEME_LABELS
    s = result.summary_frame()
    rf = _ref(s, FOREST_REF)
    curves = {scheme: _curve(s, label, "q") for scheme, label in SCHEME_LABELS.items()}
    curves = {k: v for k, v in curves.items() if v}
    if not curves or not np.isfinite(rf):
        return [_row("Figure 5.4", "figure5.4", "", "reference or schemes missing", None, "")]
    parts = [f"RF {rf:.3f}"]
    for scheme, c in curves.items():
        best_q = max(c, key=c.get)
        parts.append(f"{scheme}: q=1 {c[min(c)]:.3f}, largest q {c[max(c)]:.3f}, best {c[best_q]:.3f} at q={best_q:g}")
    converge = all(abs(c[max(c)] - rf) <= SAME_SCORE for c in curves.values())
    sparse = curves.get("sparse")
    sparse_ok = sparse is None or (max(sparse, key=sparse.get) == min(sparse) and sparse[min(sparse)] > rf)
    sub = curves.get("subsample")
    sub_ok = sub is None or sub[max(sub)] > rf
    return [_row("Figure 5.4", "figure5.4", "no number (curves)", "; ".join(parts), converge and sparse_ok and sub_ok,
                 f"every scheme's largest q within {SAME_SCORE} of RF, sparse best at q = 1 and above RF, "
                 "sub-sampling's largest q above RF")]


def claims_frame(rows) -> pd.DataFrame:
    """The rows as a table (holds: "yes", "no" or "n/a")."""
    df = pd.DataFrame(rows, columns=["figure", "claim", "paper", "ours", "holds", "test"])
    df["holds"] = df["holds"].map({True: "yes", False: "no"}).fillna("n/a")
    return df


def claims_markdown(rows) -> str:
    """The rows as a Markdown table, as in engine/experiments/RESULTS.md."""
    df = claims_frame(rows)
    lines = ["| figure | the paper says | paper | we measured | holds |", "|---|---|---|---|---|"]
    for _, r in df.iterrows():
        lines.append(f"| {r['figure']} | {r['claim']} | {r['paper']} | {r['ours']} | {r['holds']} |")
    return "\n".join(lines) + "\n"


def claims_for(result):
    """Every claim a result can be held to (the pages' "claims beside this run"): a q sweep of
    boosting (Figures 5 and 6), gbrt-rpo per scheme (Figure 3) or a forest sweep (5.1, 5.3, 5.4)."""
    experiment = getattr(result, "experiment", None)
    if hasattr(result, "q_values") and hasattr(result, "gbmort_score"):
        return figure6_claims(result) + figure5_claims(result)
    if experiment == "schemes" and hasattr(result, "curves"):
        return figure3_claims(result)
    forest = {"projection-size": forest_q_claims, "randomization": forest_k_claims, "schemes": forest_schemes_claims}
    if experiment in forest and hasattr(result, "records"):
        return forest[experiment](result)
    return []
