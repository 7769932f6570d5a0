"""How the projection experiments measure: warm-up fit, repeats of short fits (median), what is
scored, the constant-model baseline and the Figure 6 reading.

Oracles: numpy's median of the same arrays, call logs of stand-in estimators, the same
experiment without the timing machinery (scores must not change, only times), scikit-learn's
metrics for the baseline.
"""

import time

import numpy as np
import pytest

from engine.experiments import BoostingSettings, Problem, measuring, run_projection_size
from engine import plotting
from engine.experiments.projection_size import ProjectionSizeResult, constant_model_score
from engine.experiments.timing import Timing, resolve_timing, retime, robust_cumulative, warm_up
from curve_calls import run_curves, run_schemes


class FakeCurve:
    def __init__(self, fit_time):
        self.fit_time = np.asarray(fit_time, dtype=float)
        self.timed_fits = 1


def test_retime_takes_turns_and_uses_the_robust_median_of_each_model():
    curves = {"a": FakeCurve([0.01, 0.03, 0.06]), "b": FakeCurve([0.02, 0.05]), "long": FakeCurve([0.4, 0.9])}
    log = []
    more = {"a": iter([[0.02, 0.03, 0.04], [0.005, 0.01, 0.09], [0.01, 0.02, 0.03], [0.5, 0.6, 0.7]]),
            "b": iter([[0.01, 0.02], [0.03, 0.04], [0.0, 0.01]])}

    def refit(key):
        return lambda: log.append(key) or np.array(next(more[key]))

    fits = retime(curves, {"a": refit("a"), "b": refit("b"), "long": refit("long")},
                  Timing(short_seconds=0.5, max_fits=4, budget_seconds=60))
    assert fits == {"a": 4, "b": 4, "long": 1}           # "long" took 0.9 s: not repeated
    assert log == ["a", "b", "a", "b", "a", "b"]          # one more fit of each, in turns
    np.testing.assert_array_equal(curves["a"].fit_time, robust_cumulative(
        [[0.01, 0.03, 0.06], [0.02, 0.03, 0.04], [0.005, 0.01, 0.09], [0.01, 0.02, 0.03]]))
    np.testing.assert_array_equal(curves["b"].fit_time, robust_cumulative(
        [[0.02, 0.05], [0.01, 0.02], [0.03, 0.04], [0.0, 0.01]]))
    np.testing.assert_array_equal(curves["long"].fit_time, [0.4, 0.9])
    assert curves["a"].timed_fits == 4 and curves["long"].timed_fits == 1


def test_a_pause_in_one_fit_draws_no_staircase():
    """Issue 31: three fits of 100 equal steps (1 ms each), each paused 8 ms once at a different step.
    The step-wise median of their cumulative times jumps (by the pause of the middle one); the robust
    curve has no step longer than 1.5 ms and ends at the median total."""
    base = np.full(100, 1e-3)
    fits = []
    for pause_at in (10, 40, 70):
        steps = base.copy()
        steps[pause_at] += 8e-3
        fits.append(np.cumsum(steps))
    old = np.median(fits, axis=0)
    assert np.diff(old).max() > 5e-3                        # the old picture: a staircase
    new = robust_cumulative(fits)
    assert np.diff(new, prepend=0).max() < 1.5e-3 and np.all(np.diff(new) > 0)
    assert new[-1] == pytest.approx(np.median([f[-1] for f in fits]))
    np.testing.assert_array_equal(robust_cumulative([fits[0]]), fits[0])   # one fit: its own times


def test_median_of_cumulative_times_stays_non_decreasing():
    rng = np.random.default_rng(0)
    runs = iter([np.cumsum(rng.random(50)) / 100 for _ in range(4)])
    curve = FakeCurve(np.cumsum(rng.random(50)) / 100)
    retime({"x": curve}, {"x": lambda: next(runs)}, Timing(max_fits=5, budget_seconds=60))
    assert curve.timed_fits == 5 and np.all(np.diff(curve.fit_time) >= 0)


@pytest.mark.parametrize("timing,refit_given", [
    (Timing(max_fits=1), True),                 # repeats switched off
    (Timing(budget_seconds=0.0), True),         # no time for repeats
    (Timing(), False),                          # a model that cannot be refitted (artificial-gbrt)
])
def test_no_repeat(timing, refit_given):
    calls = []
    curve = FakeCurve([0.01, 0.02])
    retime({"x": curve}, {"x": (lambda: calls.append(1) or np.array([9.0, 9.0])) if refit_given else None}, timing)
    assert calls == [] and curve.timed_fits == 1
    np.testing.assert_array_equal(curve.fit_time, [0.01, 0.02])


def test_a_stop_or_a_cut_fit_ends_the_repeats():
    calls = []

    def refit():
        calls.append(1)
        return np.array([0.03, 0.04]) if len(calls) == 1 else None      # the second one is cut short

    curve = FakeCurve([0.01, 0.02])
    retime({"x": curve}, {"x": refit}, Timing(max_fits=5, budget_seconds=60))
    assert curve.timed_fits == 2 and len(calls) == 2
    np.testing.assert_allclose(curve.fit_time, [0.02, 0.03], rtol=1e-12)
    curve = FakeCurve([0.01, 0.02])
    retime({"x": curve}, {"x": refit}, Timing(max_fits=5, budget_seconds=60), stopped=lambda: True)
    assert curve.timed_fits == 1


def test_budget_per_model():
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.05)
        return np.array([0.01, 0.02])

    curve = FakeCurve([0.01, 0.02])
    retime({"x": curve}, {"x": slow}, Timing(max_fits=50, budget_seconds=0.12))
    assert 2 <= len(calls) <= 4 and curve.timed_fits == len(calls) + 1


class Recorder:
    """A stand-in estimator that records how it is fitted."""

    log = []

    def set_params(self, **kw):
        self.kw = kw
        return self

    def fit(self, X, Y):
        Recorder.log.append((self.kw, X.shape, Y.shape))
        return self


def test_warm_up_fits_a_tiny_model_of_the_first_rows():
    Recorder.log = []
    X, Y = np.zeros((500, 4)), np.zeros((500, 3))
    warm_up(Recorder, X, Y, Timing(warmup_rows=10, warmup_steps=3))
    assert Recorder.log == [({"n_estimators": 3}, (10, 4), (10, 3))]
    warm_up(Recorder, X[:6], Y[:6], Timing(warmup_rows=10))
    assert Recorder.log[-1][1] == (6, 4)
    warm_up(Recorder, X, Y, Timing(warmup_steps=0))
    assert len(Recorder.log) == 2


@pytest.mark.parametrize("kwargs,match", [
    (dict(warmup_rows=1), "warmup_rows"), (dict(warmup_steps=-1), "warmup_steps"),
    (dict(short_seconds=-1.0), "short_seconds"), (dict(max_fits=0), "max_fits"),
    (dict(budget_seconds=float("nan")), "budget_seconds"),
])
def test_timing_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Timing(**kwargs)


def test_resolve_timing():
    assert resolve_timing(True) == Timing()
    assert resolve_timing(False) is None and resolve_timing(None) is None
    assert resolve_timing({"max_fits": 3}) == Timing(max_fits=3)
    with pytest.raises(ValueError, match="unknown key"):
        resolve_timing({"repeats": 3})
    with pytest.raises(ValueError, match="timing must be"):
        resolve_timing("yes")
    with pytest.raises(ValueError, match="timing must be"):
        run_projection_size("friedman1-chain", BoostingSettings(5), q_values=[1], timing="always")


PROBLEM = Problem("friedman1-group", n_outputs=4, n_test=100, n_train=60)
KW = dict(q_values=[1, 4], seed=2)
STEPS30 = BoostingSettings(30)


def test_projection_size_scores_do_not_depend_on_timing():
    plain = run_projection_size(PROBLEM, STEPS30, timing=False, **KW)
    timed = run_projection_size(PROBLEM, STEPS30, timing=dict(max_fits=3, budget_seconds=30), **KW)
    np.testing.assert_array_equal(plain.score, timed.score)
    np.testing.assert_array_equal(plain.best_score, timed.best_score)
    assert plain.gbmort_score == timed.gbmort_score
    assert [c.timed_fits for c in plain.curves.values()] == [1, 1, 1]
    assert [c.timed_fits for c in timed.curves.values()] == [3, 3, 3]   # 30 steps on 60 rows: short fits
    assert timed.params["timing"]["max_fits"] == 3 and plain.params["timing"] is None
    assert any("median" in note for note in timed.notes)
    assert not any("median" in note for note in plain.notes)
    back = ProjectionSizeResult.from_json(timed.to_json())
    assert [c.timed_fits for c in back.curves.values()] == [3, 3, 3]
    np.testing.assert_array_equal(back.fit_time, timed.fit_time)


def test_each_timed_model_is_warmed_up_before_its_timed_fit(monkeypatch):
    events = []
    real_warm_up = measuring.warm_up

    def spy(make, X, Y, timing):
        def recording_make():
            est = make()
            fit = est.fit
            est.fit = lambda X, Y, **kw: events.append(("warm-up", X.shape[0])) or fit(X, Y, **kw)
            return est
        real_warm_up(recording_make, X, Y, timing)

    monkeypatch.setattr(measuring, "warm_up", spy)
    real_fit = measuring._fit

    def fit_spy(est, X, Y, n, *args, **kwargs):
        events.append(("timed fit", X.shape[0]))
        return real_fit(est, X, Y, n, *args, **kwargs)

    monkeypatch.setattr(measuring, "_fit", fit_spy)
    run_projection_size(PROBLEM, STEPS30, timing=dict(max_fits=1, warmup_rows=8), **KW)
    # per model: its warm-up (8 rows) first, then the test-curve and train-curve fits (60 rows)
    assert events == [("warm-up", 8), ("timed fit", 60), ("timed fit", 60)] * 3


def test_repeats_come_after_every_model_is_measured(monkeypatch):
    seen = []
    real = measuring.retime

    def spy(curves, refits, timing, stopped):
        seen.append((list(curves), sorted(k for k, f in refits.items() if f is not None)))
        return real(curves, refits, timing, stopped)

    monkeypatch.setattr(measuring, "retime", spy)
    res = run_projection_size(PROBLEM, STEPS30, timing=dict(max_fits=2, budget_seconds=30), **KW)
    assert seen == [(["q=1", "q=4", "gbmort"], ["gbmort", "q=1", "q=4"])]
    assert all(c.timed_fits == 2 for c in res.curves.values())


def test_schemes_take_timing_too():
    res = run_schemes("friedman1-ind", schemes=["gaussian"], n_steps=20, n_outputs=3, n_train=50,
                                 n_test=50, timing=dict(max_fits=2, budget_seconds=30))
    assert res.curves["gbrt-rpo-gaussian"].timed_fits == 2
    assert res.params["timing"]["max_fits"] == 2


def _result(score, fit_time, gbmort_score, gbmort_time, q=(1, 10, 50), baseline=float("nan")):
    n = len(q)
    return ProjectionSizeResult(
        dataset="x", task="multilabel", metric="LRAP", n_outputs=100, projection="gaussian", n_steps=10,
        q_values=np.array(q), score=np.array(score, dtype=float), best_score=np.array(score, dtype=float),
        fit_time=np.array(fit_time, dtype=float), budget_score=np.full(n, np.nan), gbmort_score=gbmort_score,
        gbmort_best_score=gbmort_score, gbmort_fit_time=gbmort_time, gbmort_budget_score=np.nan,
        time_budget=1.0, curves={}, params={}, baseline_score=baseline)


def test_cheapest_match_is_the_quickest_q_within_tolerance():
    res = _result([0.40, 0.497, 0.51], [1.0, 2.0, 6.0], 0.50, 10.0)
    assert res.cheapest_match() == {"q": 10, "score": 0.497, "fit_time": 2.0, "time_ratio": 0.2}
    assert res.cheapest_match(tolerance=0.001)["q"] == 50
    assert res.cheapest_match(tolerance=0.2)["q"] == 1
    assert _result([0.1, 0.2, 0.3], [1, 2, 3], 0.5, 10.0).cheapest_match() is None
    assert _result([0.5, 0.5, 0.5], [1, 2, 3], np.nan, np.nan).cheapest_match() is None
    assert _result([np.nan, 0.5, 0.5], [np.nan, 3, 2], 0.5, 4.0).cheapest_match()["q"] == 50
    with pytest.raises(ValueError, match="tolerance"):
        res.cheapest_match(tolerance=-1)


# ---------------------------------------------------------------- what is scored (cost at the papers' scale)


def test_auto_eval_points_follow_the_test_set_size():
    assert measuring.auto_eval_points(251, 174) == 60          # cal500's test half
    assert measuring.auto_eval_points(2515, 159) == 30         # bibtex
    assert measuring.auto_eval_points(3185, 983) == 8          # the delicious-shaped set
    sizes = [measuring.auto_eval_points(n, 100) for n in (10, 1000, 5000, 50_000, 10**6)]
    assert sizes == sorted(sizes, reverse=True) and min(sizes) == 8 and max(sizes) == 60


def test_multilabel_without_train_curve_and_with_few_eval_points():
    kw = dict(q_values=[1, 3], timing=False, seed=1)
    full = run_projection_size("flags", BoostingSettings(40), **kw)
    lean = run_projection_size("flags", BoostingSettings(40), train_curve=False, n_eval_points=5, **kw)
    for label, curve in lean.curves.items():
        assert np.isnan(curve.train_score).all()
        evaluated = np.flatnonzero(np.isfinite(curve.test_score)) + 1
        assert evaluated[0] == 1 and evaluated[-1] == 40 and evaluated.size <= 5
        # the steps both scored agree: same model, same seed
        both = np.isfinite(curve.test_score) & np.isfinite(full.curves[label].test_score)
        np.testing.assert_array_equal(curve.test_score[both], full.curves[label].test_score[both])
        assert np.isfinite(full.curves[label].train_score).any()
    np.testing.assert_array_equal(lean.score, full.score)
    assert lean.params["n_eval_points"] == 5 and lean.params["train_curve"] is False
    assert full.params["n_eval_points"] == 60
    assert any(n.startswith("Test (not train) LRAP evaluated") and " 5 log-spaced" in n for n in lean.notes)
    with pytest.raises(ValueError, match="n_eval_points"):
        run_projection_size("flags", BoostingSettings(40), n_eval_points=1, **kw)


def test_regression_without_train_curve_keeps_the_test_curve():
    kw = dict(schemes=["gaussian", "subsample"], n_steps=25, n_outputs=3, n_train=40, n_test=40, timing=False)
    full = run_schemes("friedman1-chain", **kw)
    lean = run_schemes("friedman1-chain", train_curve=False, **kw)
    for name, curve in lean.curves.items():
        np.testing.assert_array_equal(curve.test_score, full.curves[name].test_score)
        assert np.isnan(curve.train_score).all() and np.isfinite(full.curves[name].train_score).all()


def test_constant_model_score_against_scikit_learn():
    from sklearn.metrics import label_ranking_average_precision_score, r2_score

    rng = np.random.default_rng(0)
    Y_tr = (rng.random((200, 12)) < rng.random(12)).astype(float)
    Y_te = (rng.random((80, 12)) < 0.3).astype(float)
    Y_te[0] = 0.0
    Y_te[0, 3] = 1.0
    expected = label_ranking_average_precision_score(Y_te, np.tile(Y_tr.mean(axis=0), (80, 1)))
    assert constant_model_score("multilabel", Y_tr, Y_te) == pytest.approx(expected, abs=1e-12)
    R_tr, R_te = rng.normal(size=(50, 3)), rng.normal(size=(40, 3))
    expected = r2_score(R_te, np.tile(R_tr.mean(axis=0), (40, 1)), multioutput="uniform_average")
    assert constant_model_score("regression", R_tr, R_te) == pytest.approx(expected, abs=1e-12)


def test_projection_size_records_the_baseline_and_draws_it():
    res = run_projection_size("flags", BoostingSettings(20), q_values=[1, 3], timing=False, train_curve=False, seed=0)
    from engine.experiments.problems import Problem

    drawn = Problem("flags").draw(0)
    Y_tr, Y_te = drawn.Y_train, drawn.Y_test
    assert res.baseline_score == constant_model_score("multilabel", Y_tr, Y_te)
    assert ProjectionSizeResult.from_json(res.to_json()).baseline_score == res.baseline_score
    fig = plotting.projection_size_figure(res)
    (line,) = [t for t in fig.data if t.name == "constant model (step 0)"]
    assert list(line.y) == [res.baseline_score, res.baseline_score]


def test_learned_little():
    assert _result([0.045, 0.046, 0.047], [1, 2, 3], 0.046, 10.0, baseline=0.043).learned_little()
    assert not _result([0.045, 0.09, 0.047], [1, 2, 3], 0.046, 10.0, baseline=0.043).learned_little()
    assert not _result([0.045, 0.046, 0.047], [1, 2, 3], 0.2, 10.0, baseline=0.043).learned_little()
    assert not _result([0.045, 0.046, 0.047], [1, 2, 3], 0.046, 10.0).learned_little()      # no baseline known
    assert _result([0.045, 0.09, 0.047], [1, 2, 3], 0.046, 10.0, baseline=0.043).learned_little(margin=0.05)
