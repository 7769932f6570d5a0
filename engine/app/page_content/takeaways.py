"""Sentences that state a result, computed from the result object they describe.

A page's fixed prose only says how to read a chart; every sentence that says what a run
*found* (which method ends best, which q is cheapest, which scheme is slowest, whether a
time difference is real) comes from here, so it flips with the numbers and can never
describe a chart that is not on screen. Each function takes a result object (see
``engine.experiments``) and returns markdown.

Noise rule (:func:`time_gap_is_noise`): two measured times differ "beyond the noise" only
when their ratio exceeds ``NOISE_RATIO`` (1.25) *and* their spreads (the range of the repeated
timed fits, when known) do not overlap. Fits of a few hundredths of a second on a shared
machine move by that much from run to run (issue 21: the same forest took 12-37 ms over 4 seeds).
"""

from __future__ import annotations

import math

import numpy as np

from engine.experiments.model_selection import MIN_TEST_REPEATS

from engine.formatting import fmt_number

__all__ = ["NOISE_RATIO", "benchmark_order_sentence", "fit_time_sentence", "benchmark_significance_sentence", "time_gap_is_noise", "convergence_takeaway", "convergence_time_takeaway",
           "projection_size_takeaway", "schemes_takeaway", "schemes_time_takeaway", "forest_size_takeaway",
           "forest_noise_note", "forest_schemes_takeaway"]

NOISE_RATIO = 1.25     # a time ratio below this is treated as noise on a shared machine
REACH_FRACTION = 0.9   # "reaches" = 90 % of the way from the first evaluated score to the best of all


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float, np.floating)) and math.isfinite(float(x))


def time_gap_is_noise(a: float, b: float, spread_a=None, spread_b=None) -> bool:
    """Whether times ``a`` and ``b`` (seconds) are within the noise: ratio under NOISE_RATIO, or
    overlapping spreads ``(low, high)`` of their repeated fits."""
    if not (_finite(a) and _finite(b)) or min(a, b) <= 0:
        return True
    if max(a, b) / min(a, b) < NOISE_RATIO:
        return True
    if spread_a is not None and spread_b is not None:
        (la, ha), (lb, hb) = spread_a, spread_b
        if max(la, lb) <= min(ha, hb):
            return True
    return False


def _fmt_s(t: float) -> str:
    """Seconds for reading: three significant digits, milliseconds under 0.1 s."""
    return f"{fmt_number(t * 1000)} ms" if t < 0.1 else f"{fmt_number(t)} s"


# --- Convergence (Figure 1) ----------------------------------------------------------------------


def _reach_target(curves) -> float | None:
    """A score every method is compared on: REACH_FRACTION of the way from the lowest first score to
    the highest best score of all curves."""
    firsts = [c.test_score[np.isfinite(c.test_score)][0] for c in curves if np.isfinite(c.test_score).any()]
    bests = [c.best_score for c in curves if _finite(c.best_score)]
    if not firsts or not bests:
        return None
    low, high = min(firsts), max(bests)
    return low + REACH_FRACTION * (high - low)


def convergence_takeaway(result, x="trees_per_output") -> str:
    """Which method ends best, which climbs fastest (per tree per output, or per step), and which
    were still rising when the run ended (their plateau not shown)."""
    curves = [c for c in (result.curves or {}).values() if np.isfinite(c.test_score).any()]
    if not curves:
        return "No curve evaluated yet."
    metric = result.metric
    ranked = sorted(curves, key=lambda c: -c.best_score)
    best, worst = ranked[0], ranked[-1]
    parts = []
    if len(ranked) == 1:
        parts.append(f"**{best.name}** reaches a best test {metric} of **{best.best_score:.3f}** (step {best.best_step}).")
    elif f"{best.best_score:.3f}" == f"{ranked[1].best_score:.3f}":     # level at the shown precision
        parts.append(f"On this run **{best.name}** and **{ranked[1].name}** end level (best test {metric} "
                     f"**{best.best_score:.3f}**, {fmt_number(best.best_score - ranked[1].best_score, 2)} apart)"
                     + (f"; **{worst.name}** is lowest ({worst.best_score:.3f})." if len(ranked) > 2 else "."))
    else:
        gap = best.best_score - ranked[1].best_score
        close = " — a close call" if gap < 0.005 else ""
        parts.append(f"On this run **{best.name} ends best** (best test {metric} **{best.best_score:.3f}**, "
                     f"{ranked[1].name} {ranked[1].best_score:.3f}{close})"
                     + (f"; **{worst.name}** is lowest ({worst.best_score:.3f})." if len(ranked) > 2 else "."))
    target = _reach_target(curves)
    unit = "trees per output" if x == "trees_per_output" else "steps"
    if target is not None and len(curves) > 1:
        reach = {c.name: c.steps_to_reach(target, x) for c in curves}
        hit = sorted((v, k) for k, v in reach.items() if v is not None)
        if hit:
            fastest = hit[0]
            others = ", ".join(f"{k} {fmt_number(v, 2)}" for v, k in hit[1:])
            never = [k for k, v in reach.items() if v is None]
            parts.append(f"Fastest to {metric} {target:.3f} ({REACH_FRACTION:.0%} of the way up): **{fastest[1]}** "
                         f"after {fmt_number(fastest[0], 2)} {unit}" + (f" ({others})" if others else "")
                         + (f"; never reached by {', '.join(never)}" if never else "") + ".")
    rising = [c.name for c in curves if c.still_rising]
    if rising:
        parts.append(f"⚠ Still rising at the last step: **{', '.join(rising)}** (best step = last step): the run "
                     "stopped before their plateau, so their final order may change with more steps.")
    return " ".join(parts)


def fit_time_sentence(result) -> str:
    """How the fit-time axis of ``result`` was measured, curve by curve (``Curve.timed_fits``): the
    median of repeated fits per step, or one fit, whose pauses of the machine show as steps."""
    curves = [c for c in (result.curves or {}).values() if c.n_steps]
    if not curves:
        return ""
    repeated = [c for c in curves if c.timed_fits > 1]
    single = [c for c in curves if c.timed_fits <= 1]
    counts = sorted({c.timed_fits for c in repeated}) or [1]
    fits = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    median = f"the median time per step of {fits} repeated fits, scaled to their median total"
    one = "one fit as trained, where a pause of the machine shows as a step"
    if not single:
        return f"{median}, for every curve"
    if not repeated:
        return f"{one}, for every curve"
    return (f"{', '.join(c.name for c in repeated)}: {median}; "
            f"{', '.join(c.name for c in single)}: {one}")


def convergence_time_takeaway(result) -> str:
    """The same comparison against fitting seconds: who reaches the common score first, and whether
    the gap is beyond the noise."""
    curves = [c for c in (result.curves or {}).values() if np.isfinite(c.test_score).any()]
    target = _reach_target(curves)
    if target is None or len(curves) < 2:
        return ""
    secs = {}
    for c in curves:
        hit = np.flatnonzero(np.nan_to_num(c.test_score, nan=-np.inf) >= target)
        if hit.size:
            secs[c.name] = float(c.fit_time[hit[0]])
    if len(secs) < 2:
        return ""
    order = sorted(secs.items(), key=lambda kv: kv[1])
    (first, t1), (_, t2) = order[0], order[1]
    listing = ", ".join(f"{k} {_fmt_s(v)}" for k, v in order)
    if time_gap_is_noise(t1, t2):
        return (f"Seconds to {result.metric} {target:.3f}: {listing}. The first two differ by less than "
                f"{NOISE_RATIO:.2g}×: **within the noise** of a shared machine, no winner.")
    return f"Seconds to {result.metric} {target:.3f}: {listing}: **{first}** gets there first."


# --- Projections (Figures 5-6 and 2-4) -----------------------------------------------------------------


def _range(res, label, seconds=None):
    """(lowest, highest) seconds of the timed fits of curve ``label``; None when unknown or when it does
    not hold ``seconds`` (the time the sentence compares: then the range belongs to other numbers)."""
    curve = (getattr(res, "curves", None) or {}).get(label)
    rng = getattr(curve, "time_range", None)
    if rng is None:
        return None
    low, high = float(rng[0]), float(rng[1])
    if seconds is not None and not (low * 0.999 <= seconds <= high * 1.001):
        return None
    return low, high


def projection_size_takeaway(res, match_tolerance: float) -> str:
    """The q-sweep's takeaway: the cheapest q that matches gbmort, and whether it saves time beyond
    the noise; or a warning when nothing was learned."""
    if res.learned_little():
        return (f"**Careful.** No model ends more than {2 * match_tolerance:g} above the constant model "
                f"(dotted grey, {res.metric} {res.baseline_score:.3f}): with these settings nothing much was "
                "learned, so equal scores say nothing. The fit times still compare the costs.")
    match = res.cheapest_match()
    if match is not None:
        noise = time_gap_is_noise(match["fit_time"], res.gbmort_fit_time,
                                  _range(res, f"q={match['q']}", match["fit_time"]),
                                  _range(res, "gbmort", res.gbmort_fit_time))
        head = (f"**Takeaway.** With q = **{match['q']}** projections, gbrt-relabel-rpo reaches gbmort's "
                f"{res.metric} ({match['score']:.3f} against {res.gbmort_score:.3f})")
        times = f"({_fmt_s(match['fit_time'])} against {_fmt_s(res.gbmort_fit_time)})"
        if noise:
            return (f"{head} in about the same fit time {times}: the difference is within the noise. With "
                    f"{res.n_outputs} outputs gbmort's tree is cheap; the saving needs many outputs.")
        if match["time_ratio"] < 1:
            return f"{head} in **{match['time_ratio']:.0%} of its fit time** {times}."
        return (f"{head} but takes **{match['time_ratio']:.1f} times its fit time** {times}: with "
                f"{res.n_outputs} outputs gbmort's tree is cheap, and the projections save nothing. "
                "Try a wide-output data set.")
    if np.isfinite(res.score).any():
        k = int(np.nanargmax(res.score))
        gap = (f" (gbmort: **{res.gbmort_score:.3f}** in {_fmt_s(res.gbmort_fit_time)})"
               if np.isfinite(res.gbmort_score) else "")
        return (f"**Takeaway.** No q matches gbmort's score here. The best {res.metric} is **{res.score[k]:.3f}** "
                f"with q = {res.q_values[k]}, fitted in {_fmt_s(res.fit_time[k])}{gap}. q = {res.q_values[0]} scores "
                f"{res.score[0]:.3f} in {_fmt_s(res.fit_time[0])}.")
    return ""


def projection_time_trend(res) -> str:
    """Does the fit time grow with q on this run? Said from the numbers (within the noise or not)."""
    t = np.asarray(res.fit_time, dtype=float)
    q = list(res.q_values)
    if t.size < 2 or not np.isfinite(t).all():
        return ""
    lo, hi = t[0], t[-1]
    gm = res.gbmort_fit_time
    vs = ""
    if _finite(gm):
        if time_gap_is_noise(lo, gm, _range(res, f"q={q[0]}", lo), _range(res, "gbmort", gm)):
            vs = f" q = {q[0]} and gbmort ({_fmt_s(gm)}) take about the same time (within the noise)."
        else:
            vs = f" q = {q[0]} takes **{fmt_number(lo / gm, 2)}×** gbmort's time ({_fmt_s(lo)} against {_fmt_s(gm)})."
    if time_gap_is_noise(lo, hi):
        return f"Fit time from q = {q[0]} to q = {q[-1]}: {_fmt_s(lo)} → {_fmt_s(hi)}, within the noise.{vs}"
    word = "grows" if hi > lo else "falls"
    return f"Fit time {word} with q: {_fmt_s(lo)} at q = {q[0]}, {_fmt_s(hi)} at q = {q[-1]}.{vs}"


def schemes_takeaway(res) -> str:
    """Best and lowest scheme by best test score."""
    summary = res.summary_frame()
    if not len(summary):
        return ""
    best = summary.sort_values("best_score", ascending=False).iloc[0]
    worst = summary.sort_values("best_score").iloc[0]
    return (f"**Takeaway.** The best {res.metric} is **{best['best_score']:.3f}** with {best['estimator']}, "
            f"the lowest **{worst['best_score']:.3f}** with {worst['estimator']}; on this problem the "
            "schemes differ by that much.")


def schemes_time_takeaway(res) -> str:
    """Which scheme's trees were cheapest, and whether the gap is beyond the noise."""
    times = {c.name: float(c.fit_time[-1]) for c in res.curves.values() if c.fit_time.size and np.isfinite(c.fit_time[-1])}
    if len(times) < 2:
        return ""
    order = sorted(times.items(), key=lambda kv: kv[1])
    (fast, tf), (slow, ts) = order[0], order[-1]
    listing = ", ".join(f"{k} {_fmt_s(v)}" for k, v in order)
    if time_gap_is_noise(tf, ts):
        return f"Total fit times: {listing}: **within the noise**, no scheme is cheaper here."
    return f"Total fit times: {listing}: **{fast}** is cheapest, {fmt_number(ts / tf, 2)}× faster than {slow}."


# --- Forests (paper 003, Figure 1) ---------------------------------------------------------------------


def forest_size_takeaway(result, shared: str, per_tree: str, reference: str) -> str:
    """Algorithm 1 against 2 at the smallest common q, and the cheapest projected forest's time against
    the unprojected one (beyond the noise or not), from the summary of this run."""
    s = result.summary_frame()
    if s.empty:
        return ""
    parts = []
    a1 = s[s["series"] == shared].set_index("q")
    a2 = s[s["series"] == per_tree].set_index("q")
    common = sorted(set(a1.index) & set(a2.index))
    if common:
        q0 = common[0]
        v1, v2 = float(a1.loc[q0, "score"]), float(a2.loc[q0, "score"])
        who = ("Algorithm 2 (a projection per tree) scores higher" if v2 > v1 + 1e-3 else
               "Algorithm 1 (one shared projection) scores higher" if v1 > v2 + 1e-3 else "the two algorithms tie")
        parts.append(f"At q = {int(q0)}: Algorithm 1 {v1:.3f}, Algorithm 2 {v2:.3f} ({result.metric}): {who} on this run.")
    ref = s[s["series"] == reference]
    if len(ref):
        parts.append(f"The unprojected forest scores **{float(ref['score'].iloc[0]):.3f}**.")
        t_ref = float(ref["fit_time"].iloc[0])
        projected = s[s["series"].isin([shared, per_tree])]
        if len(projected) and _finite(t_ref):
            row = projected.loc[projected["fit_time"].idxmin()]
            t = float(row["fit_time"])
            spread = lambda r: (float(r["time_low"]), float(r["time_high"])) if "time_low" in r and "time_high" in r else None
            if time_gap_is_noise(t, t_ref, spread(row), spread(ref.iloc[0])):
                parts.append(f"Fit times: the cheapest projected forest ({_fmt_s(t)}, q = {int(row['q'])}) and the "
                             f"unprojected one ({_fmt_s(t_ref)}) are **within the noise** of each other.")
            elif t < t_ref:
                parts.append(f"Fit times: the forest on q = {int(row['q'])} projections takes **{t / t_ref:.0%}** of the "
                             f"unprojected forest's time ({_fmt_s(t)} against {_fmt_s(t_ref)}).")
            else:
                parts.append(f"Fit times: even the cheapest projected forest (q = {int(row['q'])}, {_fmt_s(t)}) is slower "
                             f"than the unprojected one ({_fmt_s(t_ref)}): with {result.n_outputs} outputs the "
                             "projection saves nothing.")
    return " ".join(parts)


def _standard_error(row) -> float:
    """Standard error of a point's mean score over its repeats (the summary's std is over n, not n - 1)."""
    n = int(row["n_repeats"])
    return float(row["score_std"]) * math.sqrt(n / (n - 1)) / math.sqrt(n) if n > 1 else float("nan")


def _gap_is_noise(a, b) -> tuple:
    """(whether the gap between the mean scores of points ``a`` and ``b`` is within two standard errors of
    their difference, that bound); (True, nan) when either point has a single repeat."""
    bound = 2.0 * math.hypot(_standard_error(a), _standard_error(b))
    if not math.isfinite(bound):
        return True, float("nan")
    return abs(float(a["score"]) - float(b["score"])) <= bound, bound


def forest_noise_note(result) -> tuple:
    """``(warning, text)`` on the differences a forest sweep shows: with one repeat a warning that the
    points are single forests whose seed noise is not measured; with several, whether the best point's
    lead over the next is beyond two standard errors (a sentence, no warning)."""
    s = result.summary_frame()
    s = s[np.isfinite(s["score"].astype(float))]
    if len(s) < 2:
        return False, ""
    n = int(s["n_repeats"].min())
    lo, hi = float(s["score"].min()), float(s["score"].max())
    if n <= 1:
        return True, (f"**One repeat**: every point is one forest's {result.metric} (from {lo:.3f} to {hi:.3f} "
                      "here), and one repeat cannot tell a difference from the forests' seed noise. Set **Repeats** "
                      "to 3 or more: the chart then draws ± one standard deviation and this note says which "
                      "differences are beyond the noise.")
    ranked = s.sort_values("score", ascending=False)
    best, second = ranked.iloc[0], ranked.iloc[1]
    x = result.x_name

    def name(r):
        return f"{r['series']}" + (f" at {x} = {int(r[x])}" if r[x] == r[x] else "")
    noise, bound = _gap_is_noise(best, second)
    gap = float(best["score"]) - float(second["score"])
    verdict = ("within the noise: no winner on this run" if noise else "beyond the noise")
    return False, (f"The best point ({name(best)}, {float(best['score']):.3f}) leads the next ({name(second)}, "
                   f"{float(second['score']):.3f}) by {gap:.3f}, {verdict} (two standard errors over {n} repeats: "
                   f"{bound:.3f}).")


def forest_schemes_takeaway(result, first="Gaussian", second="Rademacher (s = 3)") -> str:
    """Do the two dense projections behave alike on this run? Their largest gap over the common q, said
    against the noise of the repeats (paper 003, section 4.5, finds them alike)."""
    s = result.summary_frame()
    a = s[s["series"] == first].set_index("q")
    b = s[s["series"] == second].set_index("q")
    common = [q for q in a.index if q in b.index and np.isfinite(a.loc[q, "score"]) and np.isfinite(b.loc[q, "score"])]
    if not common:
        return ""
    q = max(common, key=lambda q: abs(float(a.loc[q, "score"]) - float(b.loc[q, "score"])))
    ra, rb = a.loc[q], b.loc[q]
    gap = abs(float(ra["score"]) - float(rb["score"]))
    head = (f"{first} and {second} differ by up to **{gap:.3f}** {result.metric} here (q = {int(q)}: "
            f"{float(ra['score']):.3f} against {float(rb['score']):.3f}).")
    paper = "The paper finds the dense projections alike (paper 003, section 4.5)"
    if int(min(ra["n_repeats"], rb["n_repeats"])) <= 1:
        return f"{head} With one repeat this run cannot tell that from seed noise. {paper}."
    noise, bound = _gap_is_noise(ra, rb)
    if noise:
        return (f"{head} That is within the noise of the repeats (two standard errors: {bound:.3f}): alike, as the "
                "paper finds (paper 003, section 4.5).")
    return f"{head} That is beyond the noise of the repeats (two standard errors: {bound:.3f}): on this run they differ. {paper}."


# --- Benchmark (Tables 4-6) ------------------------------------------------------------------------------


def benchmark_order_sentence(result, paper) -> str:
    """Our ranking against the paper's: the pairs of methods both rank in the same order."""
    if not paper:
        return ""
    ours = {e: float(m) for e, m in zip(result.estimators, result.mean) if e in paper and np.isfinite(m)}
    names = sorted(ours, key=lambda e: -ours[e])
    if len(names) < 2:
        return ""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    same = sum((paper[a][0] >= paper[b][0]) for a, b in pairs)
    theirs = sorted(names, key=lambda e: -paper[e][0])
    order = " > ".join(names)
    if same == len(pairs):
        return f"Our order ({order}) is the paper's."
    return (f"Our order: {order}; the paper's: {' > '.join(theirs)}. {same} of {len(pairs)} pairs are in the "
            "paper's order (a smaller budget and fewer repeats than the paper's full grid).")


def benchmark_significance_sentence(result, alpha: float = 0.05) -> str:
    """How many pairs the paired t-tests separate after the repeats done."""
    P = np.asarray(result.pvalues, dtype=float)
    n = P.shape[0]
    cells = [(i, j) for i in range(n) for j in range(i + 1, n) if np.isfinite(P[i, j])]
    if not cells:
        return "No p-value yet: the paired t-test needs at least 2 finished repeats."
    k = sum(P[i, j] < alpha for i, j in cells)
    r = result.n_repeats_done
    if r < MIN_TEST_REPEATS:
        return (f"After {r} repeats the paired t-test has {r - 1} degree{'s' if r > 2 else ''} of freedom: too few "
                f"to call any difference significant, so none is marked (from {MIN_TEST_REPEATS} repeats, the "
                "paper's number, they are).")
    if k == 0:
        return f"After {r} repeats **no pair** differs at p < {alpha:g}: none of these differences is beyond chance yet."
    return f"After {r} repeats **{k} of {len(cells)} pairs** differ at p < {alpha:g} (the cells with *)."
