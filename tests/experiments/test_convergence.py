"""engine.experiments: the paper's experiments as function calls (reduced budgets)."""

import json
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import label_ranking_average_precision_score

from engine import experiments as ex
from engine.experiments import measuring
from engine import make_estimator, plotting
from curve_calls import run_curves, run_schemes

FAST = dict(n_test=1000, learning_rate=0.3)


@pytest.fixture(scope="module")
def group():
    return run_curves("friedman1-group", ["st-gbrt", "gbmort", "gbrt-rpo-subsampled", "artificial-gbrt"],
                              n_steps=150, **FAST)


@pytest.fixture(scope="module")
def ind():
    """Converged curves on friedman1-ind: st-gbrt peaks within ~100 steps (16 trees each) and
    then overfits, the shared-tree methods need ~2000 steps; each gets enough to converge."""
    single = run_curves("friedman1-ind", ["st-gbrt"], n_steps=300, **FAST)
    shared = run_curves("friedman1-ind", ["gbmort", "gbrt-rpo-subsampled"], n_steps=3000, **FAST)
    return {**single.curves, **shared.curves}


def test_group_shared_trees_converge_far_faster_than_single_target(group):
    # Figure 1b: gbmort and gbrt-rpo-subsampled reach a macro-r2 of 0.75 with about d = 16
    # times fewer trees per output than st-gbrt (the paper plots against time: ~100 times).
    reach = {name: c.steps_to_reach(0.75) for name, c in group.curves.items()}
    assert all(v is not None for v in reach.values()), reach
    for name in ("gbmort", "gbrt-rpo-subsampled", "artificial-gbrt"):
        assert reach[name] * 8 <= reach["st-gbrt"], reach
    # ... and all of them end near the same optimum (0.83-0.86 on this problem).
    for c in group.curves.values():
        assert 0.8 < c.best_score < 0.9


@pytest.mark.slow
def test_ind_single_target_ends_best_and_gbmort_worst(ind):
    # Figure 1c: with independent outputs st-gbrt converges to the best optimum, gbmort to the worst.
    # Converged first: the last half of every curve gains (almost) nothing over the first half.
    for name, c in ind.items():
        half = c.n_steps // 2
        assert np.nanmax(c.test_score[half:]) - np.nanmax(c.test_score[:half]) < 0.005, name
    final = {name: c.test_score[-1] for name, c in ind.items()}
    best = {name: c.best_score for name, c in ind.items()}
    for scores in (final, best):
        assert scores["st-gbrt"] > scores["gbrt-rpo-subsampled"] > scores["gbmort"], scores
    assert best["st-gbrt"] > 0.78 and best["gbmort"] < 0.7
    # and the gaps are wide (converged: ~0.82 > ~0.72 > ~0.68), not rounding noise
    assert best["st-gbrt"] - best["gbrt-rpo-subsampled"] > 0.05
    assert best["gbrt-rpo-subsampled"] - best["gbmort"] > 0.02


def test_curves_are_complete_and_consistent(group):
    assert group.complete and group.metric == "macro-r2" and group.n_outputs == 16
    for name, c in group.curves.items():
        assert c.n_steps == 150
        for k in ex.Curve.ARRAYS:
            assert getattr(c, k).shape == (150,), (name, k)
        assert np.isfinite(c.test_score).all() and np.isfinite(c.train_score).all()
        assert np.all(np.diff(c.fit_time) >= 0) and c.fit_time[0] > 0
        assert np.all(np.diff(c.train_loss) <= 1e-9)  # Appendix A: the training loss never increases
    st = group.curves["st-gbrt"]
    np.testing.assert_array_equal(st.n_trees, 16 * st.step)
    np.testing.assert_allclose(st.trees_per_output, st.step)
    np.testing.assert_allclose(group.curves["gbmort"].trees_per_output, np.arange(1, 151) / 16)


def test_test_curve_matches_staged_predictions():
    drawn = ex.Problem("friedman1-chain", n_test=500).draw(3)
    X, Y, Xt, Yt = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test
    r = run_curves("friedman1-chain", ["gbrt-rpo-gaussian"], n_steps=20, n_test=500, seed=3)
    est = make_estimator("gbrt-rpo-gaussian", n_estimators=20, random_state=3).fit(X, Y)
    from engine.metrics import macro_r2
    staged = [macro_r2(Yt, P) for P in est.staged_predict(Xt)]
    np.testing.assert_allclose(r.curves["gbrt-rpo-gaussian"].test_score, staged, atol=1e-9)
    train = [macro_r2(Y, P) for P in est.staged_predict(X)]
    np.testing.assert_allclose(r.curves["gbrt-rpo-gaussian"].train_score, train, atol=1e-9)


def test_artificial_gbrt_on_group_is_one_model_of_the_mean_output(group):
    drawn = ex.Problem("friedman1-group", n_test=1000).draw(0)
    X, Y, Xt, Yt = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test
    est = make_estimator("st-gbrt", n_estimators=150, learning_rate=0.3, random_state=0).fit(X, Y.mean(axis=1))
    from engine.metrics import macro_r2
    copied = [macro_r2(Yt, np.repeat(f[:, None], 16, axis=1)) for f in est.staged_predict(Xt)]
    np.testing.assert_allclose(group.curves["artificial-gbrt"].test_score, copied, atol=1e-9)
    np.testing.assert_array_equal(group.curves["artificial-gbrt"].n_trees, np.arange(1, 151))


def test_artificial_gbrt_on_chain_models_output_one():
    r = run_curves("friedman1-chain", ["artificial-gbrt"], n_steps=10, n_test=300)
    drawn = ex.Problem("friedman1-chain", n_test=300).draw(0)
    X, Y, Xt, Yt = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test
    f = make_estimator("st-gbrt", n_estimators=10, random_state=0).fit(X, Y[:, 0]).predict(Xt)
    from engine.metrics import macro_r2
    assert r.curves["artificial-gbrt"].test_score[-1] == pytest.approx(macro_r2(Yt, np.repeat(f[:, None], 16, 1)))


def _convergence(dataset, **kw):
    names = ["gbrt-rpo-gaussian", "artificial-gbrt"] if dataset.startswith("friedman1") else ["st-gbrt", "gbmort"]
    return run_curves(dataset, names, **kw)


def _projection_size(dataset, *, n_steps, n_test=4000, n_outputs=16, **kw):
    return ex.run_projection_size(ex.Problem(dataset, n_test=n_test, n_outputs=n_outputs), ex.BoostingSettings(n_steps),
                                  q_values=[1, 3], projection="gaussian", **kw)


def _schemes(dataset, **kw):
    return run_schemes(dataset, schemes=("gaussian", "sparse"), **kw)


EXPERIMENTS = {"convergence": _convergence, "projection-size": _projection_size, "schemes": _schemes}
# Everything an experiment measures except wall-clock times (and what is read off them).
DETERMINISTIC = ("step", "n_trees", "train_score", "test_score", "train_loss")


@pytest.mark.parametrize("experiment", list(EXPERIMENTS))
def test_same_seed_same_numbers_other_seed_other_numbers(experiment):
    run = EXPERIMENTS[experiment]
    kw = dict(n_steps=30, n_test=200, n_outputs=4)
    a, b, c = (run("friedman1-ind", seed=s, **kw) for s in (5, 5, 6))
    assert a.complete and list(a.curves) == list(b.curves) == list(c.curves) and len(a.curves) >= 2
    for name in a.curves:
        for k in DETERMINISTIC:
            np.testing.assert_array_equal(getattr(a.curves[name], k), getattr(b.curves[name], k))
        assert not np.array_equal(a.curves[name].test_score, c.curves[name].test_score)
    if experiment == "projection-size":
        for k in ("score", "best_score"):
            np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
        assert a.gbmort_score == b.gbmort_score


def test_progress_reaches_one_and_never_goes_back():
    seen = []
    run_curves("friedman1-group", ["st-gbrt", "gbmort"], n_steps=50, n_test=200,
                       progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions[-1] == 1.0 and all(0 <= f <= 1 for f in fractions)
    assert np.all(np.diff(fractions) >= 0)
    assert all(isinstance(m, str) and m for _, m in seen)


@pytest.mark.parametrize("experiment", list(EXPERIMENTS))
@pytest.mark.parametrize("dataset", ["friedman1-ind", "emotions"])
def test_stop_after_first_report_returns_promptly_with_a_consistent_partial_result(dataset, experiment):
    stop = threading.Event()
    seen = []

    def progress(f, m):
        seen.append(f)
        stop.set()

    r = EXPERIMENTS[experiment](dataset, n_steps=20_000, n_test=500, progress=progress, stop=stop)
    # Promptly: the fit ends at the first chunk boundary after the stop (counted
    # in steps, not seconds, so a loaded machine cannot make this flaky).
    assert not r.complete and seen[-1] < 1.0
    assert len(r.curves) <= 1          # only the first estimator / q / scheme started
    for c in r.curves.values():
        assert 1 <= c.n_steps <= 16
        assert {getattr(c, k).shape for k in ex.Curve.ARRAYS} == {(c.n_steps,)}
        np.testing.assert_array_equal(c.step, np.arange(1, c.n_steps + 1))
    df = r.to_frame()
    if experiment == "projection-size":
        assert len(df) == 2 and np.isnan(df["score"]).all()   # no q reached n_steps
    else:
        assert len(df) == sum(c.n_steps for c in r.curves.values())


def test_all_five_experiments_are_in_engine_experiments():
    from engine.experiments import bias_variance, model_selection
    from engine.experiments import run_bias_variance, run_model_selection

    assert run_bias_variance is bias_variance.run_bias_variance
    assert run_model_selection is model_selection.run_model_selection
    assert {"run_convergence", "run_bias_variance", "run_projection_size", "run_projection_schemes",
            "run_model_selection"} <= set(ex.__all__) <= set(dir(ex))
    with pytest.raises(AttributeError, match="run_nothing"):
        ex.run_nothing


def test_to_frame_and_json_round_trip(group):
    df = group.to_frame()
    assert list(df.columns[:3]) == ["dataset", "estimator", "label"]
    assert len(df) == 4 * 150 and set(df.estimator) == set(group.curves)
    back = ex.ConvergenceResult.from_json(group.to_json())
    assert back.params == json.loads(json.dumps(group.params)) and back.notes == group.notes
    for name, c in group.curves.items():
        for k in ex.Curve.ARRAYS:
            np.testing.assert_array_equal(getattr(back.curves[name], k), getattr(c, k))
    pd.testing.assert_frame_equal(back.to_frame(), df)


def test_multilabel_lrap_at_log_spaced_steps():
    r = run_curves("emotions", ["br-gbrt", "gbrt-relabel-rpo-gaussian"], n_steps=100,
                           q=3, learning_rate=0.3)
    assert r.metric == "LRAP" and r.task == "multilabel" and "log-spaced" in r.notes[0]
    c = r.curves["gbrt-relabel-rpo-gaussian"]
    evaluated = np.flatnonzero(np.isfinite(c.test_score)) + 1
    assert evaluated[0] == 1 and evaluated[-1] == 100 and 10 < evaluated.size <= measuring.N_EVAL_POINTS
    assert np.isfinite(c.fit_time).all() and 0.6 < c.best_score <= 1.0
    drawn = ex.Problem("emotions").draw(0)
    X, Y, Xt, Yt = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test
    est = make_estimator("gbrt-relabel-rpo-gaussian", task="multilabel", n_projections=3, learning_rate=0.3,
                         n_estimators=100, random_state=0).fit(X, Y)
    assert c.test_score[-1] == pytest.approx(label_ranking_average_precision_score(Yt.astype(int),
                                                                                  est.decision_function(Xt)))


def test_problem_draws_friedman_and_shipped_splits():
    d = ex.Problem("friedman1-ind", n_train=50, n_test=70, n_outputs=3, n_noisy_outputs=2).draw(1)
    assert d.X_train.shape == (50, 15) and d.Y_train.shape == (50, 5) and d.X_test.shape == (70, 15)
    assert d.task == "regression" and d.info["bayes_test"].shape == (70, 5) and d.n_original_outputs == 3
    d = ex.Problem("yeast").draw(0)
    assert d.task == "multilabel" and (d.X_train.shape[0], d.X_test.shape[0]) == (1500, 917) and "standard" in d.split
    d = ex.Problem("atp1d").draw(2)
    n_train, n_test = d.X_train.shape[0], d.X_test.shape[0]
    assert n_train + n_test == 337 and abs(n_train - n_test) <= 1 and "50/50" in d.split
    np.testing.assert_array_equal(d.X_train, ex.Problem("atp1d").draw(2).X_train)


@pytest.mark.parametrize("call, argument", [
    (lambda: run_curves("friedman1-nope", ["gbmort"], n_steps=5), "dataset"),
    (lambda: run_curves("friedman1-group", ["xgboost"], n_steps=5), "estimators"),
    (lambda: run_curves("friedman1-group", [], n_steps=5), "estimators"),
    (lambda: run_curves("yeast", ["artificial-gbrt"], n_steps=5), "estimators"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=0), "n_steps"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=5, n_train=1), "n_train"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=5, n_outputs=0), "n_outputs"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=5, learning_rate=0), "learning_rate"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=5, loss="logistic"), "loss"),
    (lambda: run_curves("friedman1-group", ["gbrt-relabel-rpo-subsampled"], n_steps=5, q=17), "q"),
    (lambda: ex.run_convergence("friedman1-group", dict(n_steps=5), ["gbmort"]), "boosting"),
    (lambda: ex.run_convergence(("friedman1-group",), ex.BoostingSettings(5), ["gbmort"]), "problem"),
    (lambda: run_curves("friedman1-group", ["gbmort"], n_steps=5, stop=object()), "stop"),
    (lambda: ex.run_projection_size("friedman1-group", ex.BoostingSettings(5), q_values=[]), "q_values"),
    (lambda: ex.run_projection_size("friedman1-group", ex.BoostingSettings(5), q_values=[1, 17],
                                    projection="subsample"), "q_values"),
    (lambda: ex.run_projection_size("friedman1-group", ex.BoostingSettings(5), q_values=[2], projection="pca"),
     "projection"),
    (lambda: ex.run_projection_size(ex.Problem("friedman1-group", n_train=1), ex.BoostingSettings(5), q_values=[1]),
     "n_train"),
    (lambda: ex.run_projection_size("friedman1-group", ex.BoostingSettings(0), q_values=[1]), "n_steps"),
    (lambda: ex.run_projection_size("friedman1-group", ex.BoostingSettings(5, leaf_estimation="exact"),
                                    q_values=[1]), "leaf_estimation"),
    (lambda: ex.run_projection_size("friedman1-group", dict(n_steps=5), q_values=[1]), "boosting"),
    (lambda: ex.run_projection_size(("friedman1-group",), ex.BoostingSettings(5), q_values=[1]), "problem"),
    (lambda: run_schemes("friedman1-group", schemes=(), n_steps=5), "schemes"),
    (lambda: run_schemes("friedman1-group", schemes=("dct",), n_steps=5), "schemes"),
    (lambda: run_schemes("friedman1-group", q=2, n_steps=5), "q must be 1"),
    (lambda: run_schemes("friedman1-group", strategy="multi_output", n_steps=5), "strategy"),
])
def test_bad_input_raises_before_any_work(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_validation_happens_before_work(monkeypatch):
    monkeypatch.setattr(ex.Problem, "draw", lambda *a, **k: pytest.fail("data drawn before validation"))
    with pytest.raises(ValueError, match="n_steps"):
        ex.BoostingSettings(-1)
    with pytest.raises(ValueError, match="max_features"):
        ex.run_convergence("friedman1-group", ex.BoostingSettings(5, max_features=6), ["gbmort"])
    with pytest.raises(ValueError, match="seed"):
        ex.run_convergence("friedman1-group", ex.BoostingSettings(5), ["gbmort"], seed=-1)
    with pytest.raises(ValueError, match="q_values"):
        ex.run_projection_size("friedman1-group", ex.BoostingSettings(3), q_values=[0])


@pytest.fixture(scope="module")
def projection_size():
    return ex.run_projection_size(ex.Problem("friedman1-group", n_test=FAST["n_test"]),
                                  ex.BoostingSettings(100, learning_rate=FAST["learning_rate"]),
                                  q_values=[1, 4, 64], projection="gaussian")


def test_projection_size_large_q_approaches_gbmort(projection_size):
    r = projection_size
    assert r.complete and list(r.q_values) == [1, 4, 64] and set(r.curves) == {"q=1", "q=4", "q=64", "gbmort"}
    assert np.isfinite(r.score).all() and np.isfinite(r.gbmort_score)
    assert abs(r.score[-1] - r.gbmort_score) < 0.01
    assert abs(r.score[-1] - r.gbmort_score) <= abs(r.score[0] - r.gbmort_score) + 0.005
    assert (r.fit_time > 0).all() and r.gbmort_fit_time > 0
    assert r.time_budget == pytest.approx(min(min(r.fit_time), r.gbmort_fit_time))
    assert np.isfinite(r.budget_score).all()


def test_projection_size_round_trip_and_figures(projection_size):
    back = ex.ProjectionSizeResult.from_json(projection_size.to_json())
    pd.testing.assert_frame_equal(back.to_frame(), projection_size.to_frame())
    assert len(back.to_frame()) == 4
    fig = plotting.projection_size_figure(projection_size)
    names = [t.name for t in fig.data]
    assert "gbmort (q → ∞)" in names and fig.layout.xaxis.type == "log"
    assert "number of projections q" in fig.layout.xaxis.title.text
    fig = plotting.projection_size_curves_figure(projection_size)
    assert fig.layout.xaxis.title.text.startswith("fit time")


def test_schemes_all_four_produce_curves():
    r = run_schemes("friedman1-ind", n_steps=60, n_outputs=4, n_test=300)
    assert r.experiment == "schemes" and r.complete
    assert [c.label for c in r.curves.values()] == ["subsample", "gaussian", "achlioptas", "sparse"]
    for c in r.curves.values():
        assert c.n_steps == 60 and np.isfinite(c.test_score).all() and c.best_score > 0.2
    fig = plotting.schemes_figure(r)
    assert len([t for t in fig.data if t.mode == "lines"]) == 4
    r2 = run_schemes("friedman1-group", schemes=("gaussian",), strategy="projected_relabel", q=3, n_steps=10,
                     n_test=100)
    assert list(r2.curves) == ["gbrt-relabel-rpo-gaussian"]


def test_convergence_figures(group):
    fig = plotting.convergence_figure(group, x="fit_time", show_train=True)
    assert fig.layout.xaxis.type == "log" and "fit time" in fig.layout.xaxis.title.text
    stars = [t for t in fig.data if t.mode == "markers"]
    assert len(stars) == 4
    st = group.curves["st-gbrt"]
    star = next(t for t in stars if t.name == "st-gbrt best")
    assert star.y[0] == st.best_score and star.x[0] == st.fit_time[st.best_index]
    fig = plotting.convergence_panels(group)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    with pytest.raises(ValueError, match="x must be"):
        plotting.convergence_figure(group, x="bogus")


@pytest.mark.parametrize("loss", [None, "absolute_error"])
def test_an_explicit_loss_reaches_the_models_and_the_result(loss):
    # run_convergence and run_projection_schemes put the loss once in their result's settings
    # (it was passed twice to dict() when given: the Projections page's schemes view failed on it).
    conv = run_curves("friedman1-group", estimators=["gbmort"], n_steps=3, n_train=60, n_test=40,
                                       loss=loss, seed=0)
    schemes = run_schemes("friedman1-group", schemes=["gaussian"], n_steps=3, n_train=60,
                                                 n_test=40, loss=loss, seed=0, timing=False)
    for result in (conv, schemes):
        assert result.params["loss"] == loss
    other = run_curves("friedman1-group", estimators=["gbmort"], n_steps=3, n_train=60, n_test=40,
                                        loss="absolute_error" if loss is None else None, seed=0)
    assert not np.allclose(conv.curves["gbmort"].test_score, other.curves["gbmort"].test_score)
