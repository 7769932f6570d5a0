"""Every result-stating sentence of the pages is computed from the result object (issue 21).

Each test feeds two results with opposite outcomes and checks that the sentence flips: a
sentence written as fixed prose could not pass both."""

import numpy as np

from engine import plotting
import pandas as pd
import pytest

from engine.app.page_content import takeaways
from engine.app.page_content.studies import clamp_note
from engine.app.page_models.dataspec import separator_hint
from engine.experiments.convergence import ConvergenceResult, Curve
from engine.experiments.forests import FOREST_REF, PER_TREE, SHARED, ForestSweepResult
from engine.experiments.projection_size import MATCH_TOLERANCE, ProjectionSizeResult


def curve(name, scores, seconds_per_step=0.01, d=16, trees_per_step=1):
    scores = np.asarray(scores, dtype=float)
    n = scores.size
    step = np.arange(1, n + 1)
    return Curve(name, name, step, step * trees_per_step, step * trees_per_step / d,
                 np.cumsum(np.full(n, seconds_per_step)), scores, scores, scores)


def conv(curves):
    return ConvergenceResult("convergence", "friedman1-ind", "regression", "macro-r2", 16,
                             {c.name: c for c in curves}, {})


RISE_FAST = np.r_[np.linspace(0, 0.8, 20), np.full(80, 0.8)]
RISE_SLOW = np.r_[np.linspace(0, 0.7, 80), np.full(20, 0.7)]


def test_convergence_takeaway_names_the_winner_of_this_run():
    a_wins = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_FAST), curve("gbmort", RISE_SLOW)]))
    b_wins = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_SLOW), curve("gbmort", RISE_FAST)]))
    assert "**st-gbrt ends best**" in a_wins and "gbmort 0.700" in a_wins
    assert "**gbmort ends best**" in b_wins and "st-gbrt 0.700" in b_wins
    assert "is lowest" not in a_wins            # two methods: the runner-up is already named
    three = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_FAST), curve("gbmort", RISE_SLOW),
                                                 curve("gbrt-rpo-gaussian", 0.5 * RISE_SLOW)]))
    assert "**st-gbrt ends best**" in three and "**gbrt-rpo-gaussian** is lowest (0.350)" in three
    assert "Fastest to" in a_wins and "**st-gbrt**" in a_wins.split("Fastest to")[1]
    assert "**gbmort**" in b_wins.split("Fastest to")[1]


def test_convergence_takeaway_calls_a_tie_at_the_shown_precision_level():
    text = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_FAST), curve("gbmort", RISE_FAST - 1e-4)]))
    assert "**st-gbrt** and **gbmort** end level" in text and "1 × 10⁻⁴ apart" in text
    assert "ends best" not in text


def test_convergence_takeaway_says_when_a_curve_stopped_before_its_plateau():
    still_rising = np.linspace(0, 0.9, 100)          # best step = last step
    text = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_FAST), curve("gbmort", still_rising)]))
    assert "Still rising at the last step: **gbmort**" in text
    plateau = takeaways.convergence_takeaway(conv([curve("st-gbrt", RISE_FAST), curve("gbmort", RISE_SLOW)]))
    assert "Still rising" not in plateau


def test_convergence_time_takeaway_says_noise_or_a_winner():
    slow = takeaways.convergence_time_takeaway(conv([curve("st-gbrt", RISE_FAST, 0.01), curve("gbmort", RISE_FAST, 0.05)]))
    assert "**st-gbrt** gets there first" in slow
    same = takeaways.convergence_time_takeaway(conv([curve("st-gbrt", RISE_FAST, 0.010), curve("gbmort", RISE_FAST, 0.011)]))
    assert "within the noise" in same and "gets there first" not in same


def size_result(q1_time, gbmort_time, q1_range=None, g_range=None, scores=(0.40, 0.41), gbmort_score=0.405,
                baseline=0.14, d=159):
    curves = {"q=1": curve("q=1", [0.3, scores[0]]), "q=16": curve("q=16", [0.3, scores[1]]),
              "gbmort": curve("gbmort", [0.3, gbmort_score])}
    curves["q=1"].time_range, curves["gbmort"].time_range = q1_range, g_range
    return ProjectionSizeResult(
        dataset="bibtex", task="multilabel", metric="LRAP", n_outputs=d, projection="gaussian", n_steps=2,
        q_values=np.array([1, 16]), score=np.array(scores), best_score=np.array(scores),
        fit_time=np.array([q1_time, 2 * q1_time]), budget_score=np.array(scores), gbmort_score=gbmort_score,
        gbmort_best_score=gbmort_score, gbmort_fit_time=gbmort_time, gbmort_budget_score=gbmort_score,
        time_budget=q1_time, curves=curves, params={}, complete=True, notes=[], baseline_score=baseline)


def test_projection_size_takeaway_flips_with_the_times():
    cheap = takeaways.projection_size_takeaway(size_result(0.4, 2.7), MATCH_TOLERANCE)
    dear = takeaways.projection_size_takeaway(size_result(2.7, 0.4), MATCH_TOLERANCE)
    assert "**15% of its fit time**" in cheap
    assert "times its fit time" in dear and "save nothing" in dear
    # within the noise: ratio under 1.25, or overlapping ranges of the repeated fits
    close = takeaways.projection_size_takeaway(size_result(0.40, 0.45), MATCH_TOLERANCE)
    assert "within the noise" in close
    overlap = takeaways.projection_size_takeaway(size_result(0.2, 0.5, (0.1, 0.6), (0.3, 0.7)), MATCH_TOLERANCE)
    assert "within the noise" in overlap


def test_projection_time_trend_says_grows_or_noise():
    grows = takeaways.projection_time_trend(size_result(0.4, 2.7))
    assert "Fit time grows with q" in grows and "q = 1 takes **0.15×** gbmort's time" in grows
    flat = size_result(0.4, 0.42)
    flat.fit_time = np.array([0.40, 0.41])
    assert "within the noise" in takeaways.projection_time_trend(flat)


def test_projection_takeaway_warns_when_nothing_was_learned():
    text = takeaways.projection_size_takeaway(size_result(0.4, 2.7, scores=(0.141, 0.141), gbmort_score=0.141),
                                              MATCH_TOLERANCE)
    assert text.startswith("**Careful.**")


def run_schemes(times):
    return conv([curve(name, RISE_FAST, t) for name, t in times.items()])


def test_schemes_time_takeaway_names_the_cheapest_or_says_noise():
    a = takeaways.schemes_time_takeaway(run_schemes({"sparse": 0.001, "gaussian": 0.01}))
    b = takeaways.schemes_time_takeaway(run_schemes({"sparse": 0.01, "gaussian": 0.001}))
    assert "**sparse** is cheapest" in a and "**gaussian** is cheapest" in b
    assert "within the noise" in takeaways.schemes_time_takeaway(run_schemes({"sparse": 0.0100, "gaussian": 0.0101}))


def forest_result(a1, a2, t_q1, t_ref, rng=None):
    recs = [{"series": SHARED, "x": 1.0, "repeat": 0, "score": a1, "fit_time": t_q1},
            {"series": PER_TREE, "x": 1.0, "repeat": 0, "score": a2, "fit_time": t_q1},
            {"series": FOREST_REF, "x": float("nan"), "repeat": 0, "score": 0.2, "fit_time": t_ref}]
    if rng is not None:
        for r in recs:
            r.update(fit_time_low=r["fit_time"] * rng[0], fit_time_high=r["fit_time"] * rng[1])
    return ForestSweepResult("projection-size", "corel5k", "multilabel", "LRAP", 374, 499, "q",
                             [SHARED, PER_TREE, FOREST_REF], recs, {})


def test_forest_size_takeaway_flips_with_the_scores_and_times():
    two = takeaways.forest_size_takeaway(forest_result(0.18, 0.21, 1.4, 5.0), SHARED, PER_TREE, FOREST_REF)
    one = takeaways.forest_size_takeaway(forest_result(0.21, 0.18, 5.0, 1.4), SHARED, PER_TREE, FOREST_REF)
    assert "Algorithm 2 (a projection per tree) scores higher" in two and "**28%**" in two
    assert "Algorithm 1 (one shared projection) scores higher" in one and "slower" in one
    noisy = takeaways.forest_size_takeaway(forest_result(0.2, 0.2, 1.0, 1.5, rng=(0.5, 2.0)), SHARED, PER_TREE, FOREST_REF)
    assert "within the noise" in noisy and "tie" in noisy


@pytest.mark.parametrize("a, b, ranges, noise", [
    (1.0, 1.2, None, True), (1.0, 2.0, None, False), (1.0, 2.0, ((0.5, 2.5), (1.5, 3.0)), True),
    (1.0, 2.0, ((0.9, 1.1), (1.9, 2.1)), False), (float("nan"), 1.0, None, True)])
def test_time_gap_is_noise(a, b, ranges, noise):
    assert takeaways.time_gap_is_noise(a, b, *(ranges or (None, None))) is noise


def test_clamp_note_names_each_changed_value():
    assert clamp_note("0, -5, 100000", 1, 2000, "n_estimators") == (
        "Changed to fit the allowed range [1, 2000] of n_estimators: 0 → 1, -5 → 1, 100000 → 2000.")
    assert clamp_note("1, 10, 100", 1, 2000) is None
    # a link's thousands of values: four named, the rest counted (issue 43 saw a 19 000-character note)
    note = clamp_note(",".join(str(i) for i in range(1, 2001)), 1, 374, "q")
    assert note.endswith("375 → 374, 376 → 374, 377 → 374, 378 → 374 and 1,622 more.") and len(note) < 150


def test_separator_hint_for_a_semicolon_file_read_with_commas():
    raw = b"x1;x2;y\n1;2;3\n"
    hint = separator_hint(raw, ",", {"comma": ",", "semicolon": ";", "tab": "\t"})
    assert hint is not None and "**semicolon**" in hint
    assert separator_hint(raw, ";", {"comma": ",", "semicolon": ";"}) is None
    assert separator_hint(b"x1,x2,y\n1,2,3\n", ",", {"comma": ",", "semicolon": ";"}) is None


class FakeBench:
    def __init__(self, means, pvalues, repeats=5):
        self.estimators = list(means)
        self.mean = np.array(list(means.values()))
        self.pvalues = np.array(pvalues, dtype=float)
        self.n_repeats_done = repeats


def test_benchmark_order_sentence_compares_with_the_paper():
    paper = {"st-gbrt": (0.8, 0, 1), "gbmort": (0.7, 0, 2)}
    same = takeaways.benchmark_order_sentence(FakeBench({"st-gbrt": 0.6, "gbmort": 0.5}, np.eye(2)), paper)
    other = takeaways.benchmark_order_sentence(FakeBench({"st-gbrt": 0.5, "gbmort": 0.6}, np.eye(2)), paper)
    assert same == "Our order (st-gbrt > gbmort) is the paper's."
    assert "0 of 1 pairs are in the paper's order" in other and "the paper's: st-gbrt > gbmort" in other


def test_benchmark_significance_sentence_counts_the_significant_pairs():
    nan = float("nan")
    some = FakeBench({"a": 1, "b": 2, "c": 3}, [[nan, 0.01, 0.5], [0.01, nan, 0.02], [0.5, 0.02, nan]], repeats=5)
    none = FakeBench({"a": 1, "b": 2}, [[nan, 0.4], [0.4, nan]], repeats=5)
    assert "After 5 repeats **2 of 3 pairs** differ" in takeaways.benchmark_significance_sentence(some)
    assert "After 5 repeats **no pair** differs" in takeaways.benchmark_significance_sentence(none)


def test_no_significance_is_claimed_from_too_few_repeats():
    """Issue 42: with 2 repeats the page claimed "7 of 14 pairs differ at p < 0.05" from a t-test with one
    degree of freedom; below the paper's 5 repeats it calls no difference significant."""
    nan = float("nan")
    two = FakeBench({"a": 1, "b": 2}, [[nan, 0.001], [0.001, nan]], repeats=2)
    sentence = takeaways.benchmark_significance_sentence(two)
    assert "1 degree of freedom" in sentence and "differ at" not in sentence and "none is marked" in sentence
    fig = plotting.benchmark_pvalue_figure(["a", "b"], two.pvalues, [["", ">"], ["<", ""]], alpha=None)
    assert "*" not in str(fig.data[0].text) and "too few repeats" in fig.layout.title.text
    marked = plotting.benchmark_pvalue_figure(["a", "b"], two.pvalues, [["", ">"], ["<", ""]])
    assert "*" in str(marked.data[0].text)


def test_the_fit_time_sentence_says_how_each_curve_was_timed():
    """Issue 31: the Convergence page said "median of repeated fits" whenever timing was asked for, also
    for curves fitted once (fits over 2 s are not repeated) and after a Step (raw times). The sentence is
    now read from each curve's number of timed fits."""
    from engine.app.page_models.live_convergence import train_curves
    from engine.experiments import BoostingSettings, Problem
    from engine.experiments.timing import Timing

    def run_curves(name, estimators, timing):        # the Convergence page's live run
        return train_curves(Problem(name, n_test=200), BoostingSettings(30), estimators, timing=timing)
    timed = run_curves("friedman1-chain", ["st-gbrt", "gbmort"], timing=Timing(max_fits=3, budget_seconds=5))
    assert all(c.timed_fits == 3 for c in timed.curves.values())
    assert takeaways.fit_time_sentence(timed) == ("the median time per step of 3 repeated fits, scaled to their "
                                                  "median total, for every curve")
    once = run_curves("friedman1-chain", ["st-gbrt", "gbmort"], timing=None)
    assert "one fit as trained" in takeaways.fit_time_sentence(once) and "median" not in takeaways.fit_time_sentence(once)
    # one repeated and one not (its first fit was over short_seconds): each named with how it was timed
    timed.curves["st-gbrt"].timed_fits = 1
    mixed = takeaways.fit_time_sentence(timed)
    assert mixed.startswith("gbmort: the median time per step of 3") and "st-gbrt: one fit as trained" in mixed


def forest_sweep(scores, x_name="q", experiment="schemes"):
    """A ForestSweepResult from {series: {x: [score per repeat]}}."""
    from engine.experiments.forests import ForestSweepResult

    records = [dict(series=s, x=float(x), repeat=r, score=v, fit_time=0.1)
               for s, xs in scores.items() for x, vs in xs.items() for r, v in enumerate(vs)]
    return ForestSweepResult(experiment, "corel5k", "multilabel", "LRAP", 374, 499, x_name, list(scores), records, {})


def test_the_dense_schemes_are_said_alike_only_within_the_noise():
    """Issue 31: "Gaussian and Rademacher behave alike" stood beside 0.193 against 0.255 of one repeat."""
    one = forest_sweep({"Gaussian": {1: [0.193], 4: [0.210]}, "Rademacher (s = 3)": {1: [0.255], 4: [0.215]}})
    text = takeaways.forest_schemes_takeaway(one)
    assert "differ by up to **0.062** LRAP here (q = 1: 0.193 against 0.255)" in text
    assert "cannot tell that from seed noise" in text and "alike, as" not in text
    # three repeats each: a gap of 0.005 inside spreads of 0.02 is noise; 0.06 with spreads of 0.002 is not
    alike = forest_sweep({"Gaussian": {1: [0.20, 0.22, 0.18]}, "Rademacher (s = 3)": {1: [0.205, 0.225, 0.185]}})
    assert "within the noise of the repeats" in takeaways.forest_schemes_takeaway(alike)
    apart = forest_sweep({"Gaussian": {1: [0.193, 0.195, 0.191]}, "Rademacher (s = 3)": {1: [0.255, 0.257, 0.253]}})
    text = takeaways.forest_schemes_takeaway(apart)
    assert "beyond the noise of the repeats" in text and "on this run they differ" in text
    # two standard errors of the difference: 2 * hypot(s1, s2) / sqrt(3), s the sample std (0.002 here)
    assert f"{2 * np.hypot(0.002, 0.002) / np.sqrt(3):.3f}" in text


def test_one_repeat_of_a_forest_sweep_is_a_warning_and_repeats_are_judged():
    one = forest_sweep({"q = 1": {1: [0.189], 3: [0.214]}, "q = 4": {1: [0.190], 3: [0.180]}}, "max_features",
                       "randomization")
    warn, text = takeaways.forest_noise_note(one)
    assert warn and "**One repeat**" in text and "from 0.180 to 0.214" in text
    noisy = forest_sweep({"q = 1": {1: [0.20, 0.24, 0.16]}, "q = 4": {1: [0.19, 0.23, 0.15]}}, "max_features",
                         "randomization")
    warn, text = takeaways.forest_noise_note(noisy)
    assert not warn and "leads the next (q = 4 at max_features = 1, 0.190) by 0.010, within the noise" in text
    clear = forest_sweep({"q = 1": {1: [0.30, 0.301, 0.299]}, "q = 4": {1: [0.20, 0.201, 0.199]}}, "max_features",
                         "randomization")
    warn, text = takeaways.forest_noise_note(clear)
    assert not warn and "by 0.100, beyond the noise" in text
