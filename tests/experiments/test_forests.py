"""Forest experiments of paper 003 (engine.experiments.forests, forest_variance, forest_table1)."""

import threading

import numpy as np
import pytest
from sklearn.metrics import label_ranking_average_precision_score

from engine.experiments.forest_table1 import Table1Result, run_forest_table1
from engine.experiments.forest_variance import ForestBiasVarianceResult, VarianceSplitSettings, run_forest_bias_variance
from engine.experiments.forests import (
    FOREST_REF,
    PER_TREE,
    SHARED,
    SINGLE_TREE,
    TREE_REF,
    ForestSweepResult,
    run_forest_projection_size,
    run_forest_randomization,
    run_forest_schemes,
    plan_sweep,
    score_predictions,
)
from engine.experiments.problems import Problem
from engine.experiments.settings import ForestSettings as Forest
from engine.reports.reproduce import reproduce_forest_table1

FRIEDMAN = dict(n_train=120, n_test=200, n_outputs=8)


def friedman(structure, **kw):
    return Problem(f"friedman1-{structure}", **{**FRIEDMAN, **kw})


# --- scores -----------------------------------------------------------------------------


def test_lrap_drops_samples_without_labels_like_the_paper():
    rng = np.random.default_rng(0)
    Y = (rng.random((60, 7)) < 0.3).astype(int)
    Y[:5] = 0
    P = rng.random((60, 7))
    keep = Y.sum(axis=1) > 0
    expected = label_ranking_average_precision_score(Y[keep], P[keep])
    assert score_predictions("multilabel", Y, P) == pytest.approx(expected, abs=1e-12)


def test_macro_r2_score():
    from sklearn.metrics import r2_score
    rng = np.random.default_rng(1)
    Y, P = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    assert score_predictions("regression", Y, P) == pytest.approx(r2_score(Y, P), abs=1e-12)


# --- projection size (Figure 1) -----------------------------------------------------------


@pytest.mark.slow
def test_projection_size_series_and_determinism():
    forest = Forest(q_values=(1, 2, "log"), n_estimators=4)
    a = run_forest_projection_size("emotions", forest, seed=3)
    b = run_forest_projection_size(Problem("emotions"), forest, seed=3)
    assert a.complete and a.task == "multilabel" and a.metric == "LRAP" and a.n_outputs == 6
    assert a.series == [SINGLE_TREE, SHARED, PER_TREE, TREE_REF, FOREST_REF]
    assert a.params["q_values"] == [1, 2]  # "log" = round(ln 6) = 2, deduplicated
    s = a.summary_frame()
    assert set(s["series"]) == set(a.series)
    for name in (SINGLE_TREE, SHARED, PER_TREE):
        x, y, _, t = a.curve(name)
        assert list(x) == [1.0, 2.0] and np.all((y > 0.3) & (y <= 1)) and np.all(t > 0)
    assert np.isnan(a.curve(FOREST_REF)[0]).all()
    assert [r["score"] for r in a.records] == [r["score"] for r in b.records]
    # forests beat single trees on average
    assert a.curve(PER_TREE)[1].mean() > a.curve(SINGLE_TREE)[1].mean()


def test_projection_size_json_and_frame_round_trip():
    res = run_forest_projection_size(friedman("group"), Forest(q_values=(1, 4), n_estimators=3, n_repeats=2),
                                     include_single_tree=False)
    assert res.task == "regression" and res.metric == "macro-r2"
    assert SINGLE_TREE not in res.series and TREE_REF not in res.series
    df = res.to_frame()
    assert list(df.columns) == ["dataset", "experiment", "series", "q", "repeat", "score", "fit_time"]
    assert len(df) == 2 * (1 + 2 * 2)
    assert res.summary_frame()["n_repeats"].eq(2).all()
    back = ForestSweepResult.from_json(res.to_json())
    assert back.series == res.series
    np.testing.assert_allclose(back.to_frame()["score"], df["score"])


# --- validation before work ----------------------------------------------------------------


@pytest.mark.parametrize("kwargs, word", [
    (dict(q_values=[]), "q_values"),
    (dict(q_values=[0]), "q_values"),
    (dict(q_values=[1, 1]), "q_values"),
    (dict(q_values=["half"]), "q_values"),
    (dict(projection="pca"), "projection"),
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_repeats=0), "n_repeats"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(max_features="half"), "max_features"),
])
def test_forest_settings_are_checked_when_built(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Forest(**kwargs)


@pytest.mark.parametrize("dataset, forest, kwargs, word", [
    ("nope", Forest(), {}, "dataset"),
    ("emotions", Forest(projection="subsample", q_values=[7]), {}, "q_values"),
    ("emotions", Forest(), dict(progress=3), "progress"),
    ("emotions", Forest(), dict(stop=object()), "stop"),
    ("emotions", Forest(), dict(seed=-1), "seed"),
    ("emotions", Forest(), dict(include_shared="yes"), "include_shared"),
    ("emotions", dict(n_estimators=3), {}, "forest"),
])
def test_projection_size_rejects_bad_arguments_before_drawing(dataset, forest, kwargs, word, monkeypatch):
    def no_work(*a, **k):
        raise AssertionError("data drawn before validation")
    monkeypatch.setattr(Problem, "draw", no_work)
    with pytest.raises(ValueError, match=word):
        run_forest_projection_size(dataset, forest, **kwargs)


def test_a_plan_lists_every_fit_without_drawing(monkeypatch):
    monkeypatch.setattr(Problem, "draw", lambda *a, **k: (_ for _ in ()).throw(AssertionError("drawn")))
    plan = plan_sweep("schemes", "emotions", Forest(q_values=(1, 8), n_repeats=2), schemes=["gaussian", "subsample"])
    # per repeat: mo-rf, gaussian at q = 1 and 8, sub-sampling at q = 1 only (d = 6)
    assert [(f[0], f[1]) for f in plan.fits[:4]] == [(FOREST_REF, None), ("Gaussian", 1), ("Gaussian", 8),
                                                      ("output sub-sampling", 1)]
    assert len(plan.fits) == 8 == plan.params["n_fits"]
    assert {f[3]["random_state"] for f in plan.fits[:4]} != {f[3]["random_state"] for f in plan.fits[4:]}
    with pytest.raises(ValueError, match="experiment"):
        plan_sweep("sizes", "emotions", Forest())


def test_other_experiments_reject_bad_arguments():
    with pytest.raises(ValueError, match="max_features_values"):
        run_forest_randomization("emotions", Forest(), max_features_values=[0])
    with pytest.raises(ValueError, match="max_features_values"):
        run_forest_randomization("emotions", Forest(), max_features_values=[1.5])
    with pytest.raises(ValueError, match="max_features_values"):
        run_forest_randomization("emotions", Forest(), max_features_values=[73])
    with pytest.raises(ValueError, match="schemes"):
        run_forest_schemes("emotions", Forest(), schemes=["pca"])
    with pytest.raises(ValueError, match="schemes"):
        run_forest_schemes("emotions", Forest(), schemes=[])
    with pytest.raises(ValueError, match="problem"):
        run_forest_bias_variance("emotions", Forest())
    with pytest.raises(ValueError, match="n_tree_seeds"):
        VarianceSplitSettings(n_tree_seeds=1)
    with pytest.raises(ValueError, match="bootstrap"):
        VarianceSplitSettings(bootstrap="yes")
    with pytest.raises(ValueError, match="split"):
        run_forest_bias_variance(friedman("ind"), Forest(), dict(n_tree_seeds=2))
    with pytest.raises(ValueError, match="problems"):
        run_forest_table1(["enb"], Forest())


# --- progress and stop -----------------------------------------------------------------------


@pytest.mark.slow
def test_progress_is_monotone_and_ends_at_one():
    seen = []
    run_forest_projection_size("emotions", Forest(q_values=[1, 2], n_estimators=2),
                               progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0 and all(b >= a for a, b in zip(seen, seen[1:]))


@pytest.mark.slow
def test_stop_returns_partial_result():
    stop = threading.Event()

    def progress(fraction, message):
        if fraction >= 0.3:
            stop.set()
    res = run_forest_projection_size("emotions", Forest(q_values=[1, 2, 3], n_estimators=2), progress=progress,
                                     stop=stop)
    assert not res.complete
    assert 0 < len(res.records) < 11
    assert not res.summary_frame().empty

    stop = threading.Event()
    stop.set()
    res = run_forest_schemes("emotions", Forest(q_values=[1], n_estimators=2), stop=stop)
    assert not res.complete and res.records == [] and res.summary_frame().empty
    bv = run_forest_bias_variance(friedman("group", n_test=50), Forest(q_values=[1], n_estimators=2), stop=stop)
    assert not bv.complete and bv.n_learning_sets_done == 0


# --- input vs output randomization (Figure 2), schemes (Figure 3) ------------------------------


def test_randomization_grid():
    res = run_forest_randomization("emotions", Forest(q_values=[1, 2], n_estimators=2),
                                   max_features_values=[1, 0.5, 72])
    assert res.x_name == "max_features" and res.params["max_features_values"] == [1, 36, 72]
    assert res.series == ["q = 1", "q = 2", FOREST_REF]
    s = res.summary_frame()
    assert len(s) == 9 and s["max_features"].notna().all()
    default = run_forest_randomization(friedman("group"), Forest(q_values=[1], n_estimators=2))
    assert default.params["max_features_values"][0] == 1 and default.params["max_features_values"][-1] == 5


def test_schemes_leave_out_subsampling_beyond_d():
    res = run_forest_schemes("emotions", Forest(q_values=[1, 4, 8], n_estimators=2))
    x, y, _, _ = res.curve("output sub-sampling")
    assert list(x) == [1.0, 4.0]
    assert list(res.curve("Gaussian")[0]) == [1.0, 4.0, 8.0]
    assert any("q = 8" in n for n in res.notes)


# --- bias-variance (Appendix C) -------------------------------------------------------------------


def test_bias_variance_total_variance_identity():
    res = run_forest_bias_variance(friedman("group", n_train=100, n_test=100, n_outputs=6),
                                   Forest(q_values=[1, 3], n_estimators=2, max_features=1.0),
                                   VarianceSplitSettings(n_learning_sets=3, n_projections=3, n_tree_seeds=3,
                                                         include_forests=False))
    # Var_{Phi,theta} f = E_Phi Var_theta f + Var_Phi E_theta f, exactly on the nested grid
    assert res.identity_gap < 1e-10
    t = res.terms
    assert np.all(t["var_projection"] > 0) and np.all(t["var_tree"] > 0)
    np.testing.assert_allclose(t["error"], t["noise"] + t["bias2"] + t["var_learning_set"] + t["var_algorithm"])
    assert np.isnan(t["alg1_var_algorithm"]).all()
    back = ForestBiasVarianceResult.from_json(res.to_json())
    np.testing.assert_allclose(back.var_tree, res.var_tree)
    assert list(res.to_frame()["q"]) == [1, 3]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_algorithm2_variance_never_above_algorithm1(seed):
    # ind: each output has its own inputs, so the projection decides which inputs a tree
    # uses: a large projection term, which Algorithm 1 keeps and Algorithm 2 divides by M.
    M = 8
    res = run_forest_bias_variance(friedman("ind", n_train=100, n_test=100, n_outputs=4),
                                   Forest(q_values=[1], n_estimators=M, max_features=0.5),
                                   VarianceSplitSettings(n_learning_sets=3, n_projections=3, n_tree_seeds=3,
                                                         n_forest_seeds=3), seed=seed)
    t = res.terms
    a1, a2 = t["alg1_var_algorithm"][0], t["alg2_var_algorithm"][0]
    assert a2 < a1
    # and both match Appendix C's predictions from the single-tree terms (Monte-Carlo tolerance)
    assert a1 == pytest.approx(t["alg1_var_algorithm_predicted"][0], rel=0.35)
    assert a2 == pytest.approx(t["alg2_var_algorithm_predicted"][0], rel=0.35)
    # same bias for both algorithms (same average model), up to Monte-Carlo noise
    assert t["alg1_bias2"][0] == pytest.approx(t["alg2_bias2"][0], rel=0.2)


# --- Table 1 ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_table1_quick(tmp_path):
    res = run_forest_table1(["emotions"], Forest(q_values=[1, "log", "d"], n_estimators=3, max_features="sqrt"))
    df = res.to_frame()
    assert list(df["method"]) == ["mo-rf"] + ["rf-gaussian-per-tree"] * 3
    assert list(df["q"][1:]) == [1, 2, 6]
    assert df["lrap"].between(0.3, 1).all()
    md = res.to_markdown()
    assert "| emotions | 6 |" in md and "q = ln d" in md
    assert list(res.summary_frame().columns) == ["dataset", "d", "mo-rf", "q=1", "q=ln d", "q=d"]
    assert Table1Result.from_json(res.to_json()).to_frame()["lrap"].tolist() == df["lrap"].tolist()
    paths = reproduce_forest_table1(tmp_path, quick=True)
    assert all((tmp_path / p).exists() for p in paths)


@pytest.mark.parametrize("seed", [0, 1])
def test_learning_set_variance_corrected_for_the_finite_number_of_models(seed):
    # Appendix C.2: a tree, Algorithm 1 and Algorithm 2 share one average model, so one
    # Var_L E f. Each learning set's mean over 3 x 3 single trees still carries about
    # var_algorithm / 9 (3 forests: far less), so the plain single-tree term is much the
    # largest; the corrected terms remove that and agree up to Monte-Carlo noise.
    res = run_forest_bias_variance(friedman("ind", n_train=100, n_test=100, n_outputs=4),
                                   Forest(q_values=[1], n_estimators=8, max_features=0.5),
                                   VarianceSplitSettings(n_learning_sets=12, n_projections=3, n_tree_seeds=3,
                                                         n_forest_seeds=3), seed=seed)
    t = {k: v[0] for k, v in res.terms.items()}
    plain_gap = t["var_learning_set"] - t["alg2_var_learning_set"]
    assert plain_gap > 0.5 * t["alg2_var_learning_set"]
    corrected = [t["var_learning_set_corrected"], t["alg1_var_learning_set_corrected"],
                 t["alg2_var_learning_set_corrected"]]
    assert max(corrected) - min(corrected) < 0.5 * plain_gap
    assert all(c < t["alg2_var_learning_set"] for c in corrected)
    assert "var_learning_set_corrected" in res.to_frame().columns


def test_variance_figure_marks_a_projection_term_estimated_at_or_below_zero():
    # Sub-sampling with q = d keeps every output in output order: the projection changes
    # nothing, so its variance term is 0 and its unbiased estimate is noise of either sign,
    # which the figure says with "≈ 0" where the bar would be (on a linear axis, issue 21).
    from engine.plotting.forests import forest_bias_variance_figure

    res = run_forest_bias_variance(friedman("group", n_train=60, n_test=40, n_outputs=4),
                                   Forest(q_values=[1, 4], projection="subsample", n_estimators=2, max_features=1.0),
                                   VarianceSplitSettings(n_learning_sets=2, n_projections=3, n_tree_seeds=2,
                                                         n_forest_seeds=2), seed=0)
    t = res.terms
    assert t["var_projection"][1] > 0            # the plain term holds var_tree / n_tree_seeds
    assert abs(t["var_projection_corrected"][1]) < 0.2 * t["var_tree_corrected"][1]
    t["var_projection_corrected"][1] = -abs(t["var_projection_corrected"][1]) - 1e-3
    fig = forest_bias_variance_figure(res)
    marks = [tr for tr in fig.data if getattr(tr, "mode", None) == "text"]
    assert len(marks) == 1 and list(marks[0].x) == ["q = 4"] and list(marks[0].text) == ["≈ 0"]
    assert marks[0].offsetgroup == "projection" and marks[0].y[0] == 0.0   # linear bars: the mark sits at 0
    assert fig.layout.yaxis.type != "log"
    bars = {tr.name: tr for tr in fig.data if tr.type == "bar"}
    assert list(bars["single tree: projection term"].y) == list(t["var_projection_corrected"])
    t["var_projection_corrected"][1] = 0.5
    assert not [tr for tr in forest_bias_variance_figure(res).data if getattr(tr, "mode", None) == "text"]
