"""scikit-learn reference rows of the model-selection protocol (engine/estimators/references.py)."""

import numpy as np
import pytest

from selection_calls import estimate as estimate_cost
from selection_calls import select
from engine.names import REFERENCE_NAMES
from engine.estimators.references import ReferenceForest, ReferenceGB, forest_params

TINY = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), n_steps=10)


@pytest.mark.slow
def test_reference_rows_run_under_the_protocol_regression():
    res = select("friedman1-group", ["gbmort", *REFERENCE_NAMES], budget=TINY, n_repeats=2, seed=0)
    assert res.estimators == ["gbmort", "sklearn-gb", "sklearn-rf", "sklearn-st-rf"]
    assert res.scores.shape == (4, 2)
    assert np.all((res.scores > 0.3) & (res.scores < 1))
    assert 1 in res.ranks and set(res.ranks.tolist()) <= {1, 2, 3, 4}
    np.testing.assert_array_equal(np.isnan(res.pvalues), np.eye(4, dtype=bool))
    gb = res.chosen["sklearn-gb"][0]
    assert gb["learning_rate"] == 0.5 and 1 <= gb["n_steps"] <= 10
    rf = res.chosen["sklearn-rf"][0]
    # paper defaults (section 4.1.2): 100 trees, k = p/3 (p = 5 for group), min_samples_split 5
    assert rf == dict(n_trees=100, max_features=1, min_samples_split=5, n_steps=None, validation_score=None)


def test_sklearn_gb_matches_st_gbrt_square_loss():
    # Same grid, same splits, same step selection: per-output sklearn GB and our st-gbrt
    # (both exact best-first trees on all features) choose the same number of steps.
    res = select("enb", ["st-gbrt", "sklearn-gb"], budget=TINY, n_repeats=2, seed=1)
    assert [c["n_steps"] for c in res.chosen["st-gbrt"]] == [c["n_steps"] for c in res.chosen["sklearn-gb"]]
    np.testing.assert_allclose(res.scores[0], res.scores[1], atol=1e-3)


@pytest.mark.slow
def test_reference_rows_multilabel_lrap():
    res = select("flags", list(REFERENCE_NAMES), budget=TINY, n_repeats=2, seed=0)
    assert res.metric == "lrap"
    assert np.all((res.scores > 0.4) & (res.scores <= 1))
    assert res.chosen["sklearn-rf"][0]["max_features"] == int(np.sqrt(19))


def test_constant_label_is_predicted_by_its_constant():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = np.column_stack([(X[:, 0] > 0).astype(float), np.zeros(40)])
    for est in (ReferenceGB("multilabel", loss="logistic", n_estimators=5, max_features=3),
                ReferenceForest("multilabel", per_output=True, n_trees=5),
                ReferenceForest("multilabel", n_trees=5)):
        P = est.fit(X, Y).predict(X)
        assert P.shape == (40, 2)
        np.testing.assert_array_equal(P[:, 1], 0.0)
        assert np.all((P >= 0) & (P <= 1))


def test_forest_params_are_the_papers():
    assert forest_params("regression") == dict(n_estimators=100, max_features=1 / 3, min_samples_split=5)
    assert forest_params("multilabel")["max_features"] == "sqrt"


@pytest.mark.slow
def test_partial_results_are_reported_per_repeat():
    seen = []

    def progress(fraction, message=None, partial=None):
        if partial is not None:
            seen.append((partial.n_repeats_done, partial.partial))

    select("friedman1-group", ["gbmort", "sklearn-rf"], budget=TINY, n_repeats=3, seed=0,
                        progress=progress, report_partial=True)
    assert seen == [(1, True), (2, True), (3, False)]


def test_estimate_cost_counts_fits_and_is_positive():
    est = estimate_cost("friedman1-group", ["gbmort", "sklearn-rf"], budget=TINY, n_repeats=3)
    assert est["n_fits"] == 3 * 2 + 3
    assert est["seconds"] > 0 and set(est["per_estimator"]) == {"gbmort", "sklearn-rf"}
    bigger = estimate_cost("friedman1-group", ["gbmort"], budget="moderate", n_repeats=5)
    assert bigger["n_fits"] == 5 * (bigger["n_configs"] + 1)
    with pytest.raises(ValueError, match="artificial-gbrt"):
        estimate_cost("enb", ["artificial-gbrt"], budget="quick", n_repeats=2)


def test_unknown_reference_name_is_rejected():
    with pytest.raises(ValueError, match="sklearn-rf"):
        select("enb", ["sklearn-xgb"], budget=TINY, n_repeats=2)


@pytest.mark.slow
def test_our_forests_run_under_the_protocol_like_the_reference_forest():
    # mo-rf and sklearn-rf are the same algorithm with the same defaults (different random
    # streams): on the same splits their test scores must be close; the projected forest with
    # a new projection per tree (paper 003, Algorithm 2) stays close to both.
    names = ["mo-rf", "rf-gaussian-per-tree", "sklearn-rf"]
    res = select("friedman1-group", names, budget=TINY, n_repeats=2, seed=0)
    assert res.estimators == names
    assert np.all(np.isfinite(res.scores))
    assert abs(res.mean[0] - res.mean[2]) < 0.03
    assert abs(res.mean[1] - res.mean[0]) < 0.05
    assert res.chosen["mo-rf"][0]["n_steps"] is None       # nothing selected: fixed settings


@pytest.mark.slow
def test_our_multilabel_forests_are_scored_by_probabilities():
    res = select("flags", ["mo-rf", "st-rf", "rf-sparse-shared"], budget=TINY, n_repeats=2, seed=0)
    assert res.metric == "lrap"
    assert np.all((res.scores > 0.6) & (res.scores <= 1))
    cost = estimate_cost("flags", ["mo-rf", "st-gbrt"], budget=TINY, n_repeats=2)
    assert cost["per_estimator"]["mo-rf"] > 0 and cost["n_fits"] == 2 + 2 * 2


def test_estimate_cost_checks_noisy_outputs():
    with pytest.raises(ValueError, match="n_noisy_outputs is only available for the Friedman1"):
        estimate_cost("enb", ["st-gbrt"], budget=TINY, n_noisy_outputs=4)
    assert estimate_cost("friedman1-group", ["st-gbrt"], budget=TINY, n_noisy_outputs=16)["seconds"] > 0


def test_xgboost_reference_is_xgboost_with_its_defaults_on_both_tasks():
    """Issue 42: the benchmark's "xgboost" row is XGBoost as a practitioner fits it first; its
    predictions are those of xgboost's own estimator with only the seed and one thread set."""
    xgboost = pytest.importorskip("xgboost")
    from engine.experiments.peers import ReferenceXGBoost

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    Y = np.column_stack([X[:, 0] + X[:, 1], X[:, 2] ** 2])
    ref = ReferenceXGBoost("regression", random_state=3).fit(X, Y)
    direct = xgboost.XGBRegressor(tree_method="hist", multi_strategy="one_output_per_tree", n_jobs=1,
                                  random_state=3).fit(X, Y)
    np.testing.assert_array_equal(ref.predict(X), direct.predict(X))
    assert ref.predict(X[:7]).shape == (7, 2) and ref.model_.n_estimators is None    # its own 100 rounds
    labels = (X[:, :3] > 0).astype(int)
    proba = ReferenceXGBoost("multilabel", random_state=3, n_estimators=5).fit(X, labels).decision_function(X)
    assert proba.shape == (120, 3) and ((proba > 0.5) == labels).mean() > 0.9
