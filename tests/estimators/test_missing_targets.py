"""Missing targets (missing_targets="ignore") and per-output weights (sample_weight of shape (n, d)).

Oracles: tests/oracles/reference_boosting.py (the paper's algorithms on scikit-learn
trees, with the per-entry semantics written out literally, and brute-force
masked leaf means), brute-force numpy means over observed entries for the
forests, and the invariances the issue asks for: a NaN with "ignore" is a zero
weight on that entry; with no NaN "ignore" is today's model; an all-ones (n, d)
weight is no weight; an (n, d) weight constant per row is the 1-D weight.
"""

import pickle

import numpy as np
import pytest

from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from paper_settings import PaperClassifier, PaperRegressor
from oracles.reference_boosting import (
    line_search,
    masked_leaf_table,
    masked_training_loss,
    negative_gradient,
    reference_boosting,
)

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
LOSSES = {"regressor": ("squared_error", "absolute_error"), "classifier": ("logistic", "squared_error")}
FORESTS = [
    (ProjectedForestRegressor, dict(n_estimators=4, max_features=2)),
    (ProjectedForestRegressor, dict(n_estimators=4, projection="gaussian", n_components=2)),
    (ProjectedForestRegressor, dict(n_estimators=4, projection="subsample", n_components=2,
                                    projection_per_tree=False)),
    (PerOutputForestRegressor, dict(n_estimators=3)),
    (ProjectedForestClassifier, dict(n_estimators=4, projection="sparse", n_components=2)),
    (PerOutputForestClassifier, dict(n_estimators=3, splitter="random", bootstrap=False)),
]


def _data(seed=0, n=90, p=4, d=3, kind="regressor", missing=0.2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p))
    Y = np.column_stack([np.sin(3 * X[:, 0]) + X[:, 1], X[:, 2] - X[:, 0], X[:, 1] * X[:, 3],
                         X[:, 3]][:d]) + 0.3 * rng.normal(size=(n, d))
    if kind == "classifier":
        Y = (Y > np.median(Y, axis=0)).astype(float)
    holes = rng.random((n, d)) < missing
    holes[0] = False                        # every column keeps observed values
    W = rng.uniform(0.3, 2.0, size=(n, d))  # continuous: minimisers are unique
    return X, Y, holes, W


def _boosting(kind, **params):
    cls = PaperRegressor if kind == "regressor" else PaperClassifier
    return cls(**params)


def _scores(model, X):
    return model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)


def _params(strategy, loss, **extra):
    return dict(strategy=strategy, loss=loss, projection="gaussian",
                n_projections=2 if strategy == "projected_relabel" else 1, learning_rate=0.4,
                n_estimators=6, max_leaf_nodes=4, random_state=3, **extra)


# ---------------------------------------------------------------- invariances (exact)

@pytest.mark.parametrize("kind", ["regressor", "classifier"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_nan_with_ignore_equals_a_zero_weight_on_that_entry(kind, strategy):
    for loss in LOSSES[kind]:
        X, Y, holes, W = _data(1, kind=kind)
        W[holes] = 0.0
        Y_nan = np.where(holes, np.nan, Y)
        weighted = _boosting(kind, **_params(strategy, loss)).fit(X, Y, sample_weight=W)
        ignored = _boosting(kind, missing_targets="ignore", **_params(strategy, loss)).fit(
            X, Y_nan, sample_weight=np.where(holes, 1.0, W))
        np.testing.assert_array_equal(_scores(ignored, X), _scores(weighted, X))
        np.testing.assert_array_equal(ignored.train_score_, weighted.train_score_)
        np.testing.assert_array_equal(ignored.rho_, weighted.rho_)
        # The placeholder under a zero weight does not matter either.
        other = _boosting(kind, **_params(strategy, loss)).fit(
            X, np.where(holes, 1.0 - Y if kind == "classifier" else 1e3, Y), sample_weight=W)
        np.testing.assert_array_equal(_scores(other, X), _scores(weighted, X))


@pytest.mark.parametrize("cls, params", FORESTS)
def test_forest_nan_with_ignore_equals_a_zero_weight(cls, params):
    kind = "classifier" if "Classifier" in cls.__name__ else "regressor"
    X, Y, holes, W = _data(2, kind=kind)
    W[holes] = 0.0
    weighted = cls(random_state=0, **params).fit(X, Y, sample_weight=W)
    ignored = cls(random_state=0, missing_targets="ignore", **params).fit(
        X, np.where(holes, np.nan, Y), sample_weight=np.where(holes, 1.0, W))
    np.testing.assert_array_equal(_scores(ignored, X), _scores(weighted, X))


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_without_missing_values_ignore_and_trivial_weight_matrices_change_nothing(kind, strategy):
    X, Y, _, W = _data(3, kind=kind)
    w = W[:, 0]
    for loss in LOSSES[kind]:
        params = _params(strategy, loss, subsample=0.7)
        plain = _boosting(kind, **params).fit(X, Y)
        weighted = _boosting(kind, **params).fit(X, Y, sample_weight=w)
        for model, reference in (
                (_boosting(kind, missing_targets="ignore", **params).fit(X, Y), plain),
                (_boosting(kind, **params).fit(X, Y, sample_weight=np.ones(Y.shape)), plain),
                (_boosting(kind, **params).fit(X, Y, sample_weight=np.repeat(w[:, None], 3, 1)),
                 weighted)):
            np.testing.assert_array_equal(_scores(model, X), _scores(reference, X))
            np.testing.assert_array_equal(model.train_score_, reference.train_score_)


@pytest.mark.parametrize("cls, params", FORESTS)
def test_forest_trivial_weight_matrices_change_nothing(cls, params):
    kind = "classifier" if "Classifier" in cls.__name__ else "regressor"
    X, Y, _, W = _data(4, kind=kind)
    w = W[:, 0]
    plain = cls(random_state=0, **params).fit(X, Y)
    weighted = cls(random_state=0, **params).fit(X, Y, sample_weight=w)
    np.testing.assert_array_equal(_scores(cls(random_state=0, missing_targets="ignore", **params)
                                          .fit(X, Y), X), _scores(plain, X))
    np.testing.assert_array_equal(_scores(cls(random_state=0, **params)
                                          .fit(X, Y, sample_weight=np.ones(Y.shape)), X), _scores(plain, X))
    np.testing.assert_array_equal(_scores(cls(random_state=0, **params)
                                          .fit(X, Y, sample_weight=np.repeat(w[:, None], 3, 1)), X),
                                  _scores(weighted, X))


# ---------------------------------------------------------------- against the oracle

@pytest.mark.parametrize("kind", ["regressor", "classifier"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_per_entry_weights_follow_the_reference(kind, strategy):
    """Every strategy and loss against reference_boosting with the per-entry semantics."""
    for loss in LOSSES[kind]:
        X, Y, holes, W = _data(5, kind=kind)
        W[holes] = 0.0
        W[7] = 0.0                          # a row without any observed target
        est = _boosting(kind, **_params(strategy, loss)).fit(X, Y, sample_weight=W)
        targets = 2 * Y - 1 if kind == "classifier" else Y
        ref = reference_boosting(X, targets, strategy=strategy, loss=loss, learning_rate=0.4, n_steps=6,
                                 max_leaf_nodes=4, projections=est.projections_, sample_weight=W)
        np.testing.assert_allclose(est.init_, ref["init"], rtol=0, atol=1e-12)
        staged = [np.asarray(F).reshape(len(X), -1) for F in
                  (est.staged_decision_function(X) if kind == "classifier" else est.staged_predict(X))]
        for a, b in zip(staged, ref["staged_raw"]):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-8)
        np.testing.assert_allclose(est.rho_, ref["rho"], rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(est.train_score_, ref["train_loss"], rtol=1e-10, atol=1e-10)


def test_masked_leaf_values_rho_and_line_search_by_brute_force():
    """One gbmort step and one gbrt-rpo step, every number recomputed in numpy from the leaves."""
    X, Y, holes, W = _data(6, n=40, d=3)
    W[holes] = 0.0
    gbmort = PaperRegressor(strategy="multi_output", loss="absolute_error", n_estimators=1,
                            max_leaf_nodes=3, learning_rate=1.0).fit(X, Y, sample_weight=W)
    F0 = np.tile(gbmort.init_, (len(X), 1))
    G = negative_gradient("absolute_error", Y, F0)
    leaves = gbmort.trees_.apply(X.astype(np.float32))[:, 0]
    table = masked_leaf_table(leaves, gbmort.trees_.node_count, G, W)
    is_leaf = gbmort.trees_.nodes["left_child"] < 0
    np.testing.assert_allclose(gbmort.trees_.value[is_leaf], table[is_leaf], rtol=0, atol=1e-13)
    A = table[leaves]
    rho = [line_search("absolute_error", Y[:, j], F0[:, j], A[:, j], W[:, j]) for j in range(3)]
    np.testing.assert_allclose(gbmort.rho_[0], rho, rtol=1e-12)
    F1 = F0 + np.asarray(rho) * A
    np.testing.assert_allclose(gbmort.predict(X), F1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(gbmort.train_score_[0], masked_training_loss("absolute_error", Y, F1, W),
                               rtol=1e-12)
    # gbrt-rpo with the square loss: eq. 23 over observed entries, per-output denominators.
    rpo = PaperRegressor(strategy="projected", projection="gaussian", n_estimators=1,
                         max_leaf_nodes=3, learning_rate=1.0, random_state=0).fit(
        X, Y, sample_weight=W)
    G = Y - np.tile(rpo.init_, (len(X), 1))
    a = rpo.trees_.value[rpo.trees_.apply(X.astype(np.float32))[:, 0], 0]
    expected = [(W[:, j] * G[:, j] * a).sum() / (W[:, j] * a * a).sum() for j in range(3)]
    np.testing.assert_allclose(rpo.rho_[0], expected, rtol=1e-12)
    # The tree's leaf value is the mean of the projected masked residuals with row weights.
    r = W.max(axis=1)
    assert (r == 0).any()                   # a row with every target missing: out of the tree
    ratio = np.divide(W, r[:, None], out=np.zeros_like(W), where=r[:, None] > 0)
    z = (ratio * G) @ rpo.projections_[0, 0]
    leaves = rpo.trees_.apply(X.astype(np.float32))[:, 0]
    for leaf in np.unique(leaves):
        inside = (leaves == leaf) & (r > 0)
        np.testing.assert_allclose(rpo.trees_.value[leaf, 0], (r[inside] @ z[inside]) / r[inside].sum(),
                                   rtol=1e-12)


def test_single_target_trees_leave_the_missing_samples_out():
    X, Y, holes, _ = _data(7, n=60, d=2)
    est = PaperRegressor(strategy="single_target", n_estimators=1, max_leaf_nodes=3,
                         missing_targets="ignore").fit(X, np.where(holes, np.nan, Y))
    for j in range(2):
        observed = ~holes[:, j]
        np.testing.assert_allclose(est.init_[j], Y[observed, j].mean(), rtol=1e-12)
        nodes = est.trees_.tree_nodes(j)[0]
        assert nodes["n_node_samples"][0] == observed.sum()


# ---------------------------------------------------------------- forests

def test_forest_leaves_average_observed_entries_and_fall_back_to_the_parent():
    X, Y, holes, W = _data(8, n=80, d=3, missing=0.4)
    W[holes] = 0.0
    forest = ProjectedForestRegressor(n_estimators=3, bootstrap=False, max_features=2, min_samples_leaf=3,
                                      random_state=0).fit(X, Y, sample_weight=W)
    X32 = X.astype(np.float32)
    for store in forest.estimators_:
        nodes, values = store.nodes, store.value
        leaves = store.apply(X32)[:, 0]
        # node membership: walk every sample from the root
        parent = np.full(len(nodes), -1)
        for k in np.flatnonzero(nodes["left_child"] >= 0):
            parent[nodes["left_child"][k]] = parent[nodes["right_child"][k]] = k
        fallbacks = 0
        for node in range(len(nodes)):
            members = np.zeros(len(X), bool)
            for i, leaf in enumerate(leaves):
                k = leaf
                while k >= 0 and k != node:
                    k = parent[k]
                members[i] = k == node
            for j in range(3):
                den = W[members, j].sum()
                if den > 0:
                    expected = (W[members, j] @ Y[members, j]) / den
                else:
                    expected = values[parent[node], j]
                    fallbacks += 1
                np.testing.assert_allclose(values[node, j], expected, rtol=1e-12, atol=1e-12)
    assert fallbacks > 0                    # the fallback was exercised


def test_forest_classifier_probabilities_ignore_missing_labels():
    X, Y, holes, _ = _data(9, kind="classifier", missing=0.3)
    Y_nan = np.where(holes, np.nan, Y)
    forest = ProjectedForestClassifier(n_estimators=5, random_state=0, missing_targets="ignore").fit(X, Y_nan)
    blocks = forest.predict_proba(X)
    for B in blocks:
        np.testing.assert_allclose(B.sum(axis=1), 1.0)
    pred = forest.predict(X)
    assert set(np.unique(pred)) <= {0.0, 1.0}
    assert (pred[~holes] == Y[~holes]).mean() > 0.8


# ---------------------------------------------------------------- the target, in small

def test_a_third_of_the_targets_missing_costs_little():
    """friedman1-group, 30 % of Y missing at random: test macro-r2 close to the full-Y fit.

    (The benchmark line in engine/bench/teaching.py measures this on the paper's size.)"""
    from engine.datasets import make_friedman1_multioutput
    X, Y, _ = make_friedman1_multioutput("group", n_samples=300, random_state=0)
    X_test, Y_test, _ = make_friedman1_multioutput("group", n_samples=500, random_state=1)
    holes = np.random.default_rng(0).random(Y.shape) < 0.3
    params = dict(strategy="multi_output", n_estimators=150, learning_rate=0.1, max_leaf_nodes=4,
                  random_state=0)
    full = PaperRegressor(**params).fit(X, Y).score(X_test, Y_test)
    holed = PaperRegressor(missing_targets="ignore", **params).fit(
        X, np.where(holes, np.nan, Y)).score(X_test, Y_test)
    complete_rows = (~holes).all(axis=1).sum()
    assert complete_rows < 5               # dropping incomplete rows would leave almost nothing
    assert holed > 0.95 * full


# ---------------------------------------------------------------- errors and persistence

@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_missing_target_errors_name_their_argument(kind):
    X, Y, holes, _ = _data(10, kind=kind)
    Y_nan = np.where(holes, np.nan, Y)
    with pytest.raises(ValueError, match=r"^Y contains NaN or infinity; a NaN is a missing target: "
                                         r"missing_targets='ignore'"):
        _boosting(kind, n_estimators=2).fit(X, Y_nan)
    Y_nan[:, 1] = np.nan
    with pytest.raises(ValueError, match=r"^Y output\(s\) \[1\] have no observed value"):
        _boosting(kind, n_estimators=2, missing_targets="ignore").fit(X, Y_nan)
    with pytest.raises(ValueError, match="^missing_targets must be one of"):
        _boosting(kind, n_estimators=2, missing_targets="drop").fit(X, Y)
    Y_inf = Y.copy()
    Y_inf[2, 0] = np.inf
    with pytest.raises(ValueError, match="^Y contains NaN or infinity"):
        _boosting(kind, n_estimators=2, missing_targets="ignore").fit(X, Y_inf)
    W = np.ones(Y.shape)
    W[~holes[:, 2], 2] = 0.0                 # output 2's observed entries all weigh 0
    with pytest.raises(ValueError, match=r"^sample_weight gives output\(s\) \[2\] no positive weight"):
        _boosting(kind, n_estimators=2, missing_targets="ignore").fit(
            X, np.where(holes, np.nan, Y), sample_weight=W)
    for cls, params in FORESTS:
        if ("Classifier" in cls.__name__) != (kind == "classifier"):
            continue
        with pytest.raises(ValueError, match="^missing_targets must be one of"):
            cls(missing_targets=None, **params).fit(X, Y)
        with pytest.raises(ValueError, match=r"^Y contains NaN or infinity; a NaN is a missing target"):
            cls(**params).fit(X, np.where(holes, np.nan, Y))
        with pytest.raises(ValueError, match=r"^sample_weight must have shape"):
            cls(**params).fit(X, Y, sample_weight=np.ones((len(X), 2)))
        with pytest.raises(ValueError, match=r"^sample_weight gives output\(s\) \[2\] no positive weight"):
            cls(missing_targets="ignore", **params).fit(X, np.where(holes, np.nan, Y), sample_weight=W)


def test_eval_set_with_missing_targets_is_scored_over_observed_entries():
    X, Y, holes, _ = _data(11)
    Y_nan = np.where(holes, np.nan, Y)
    est = PaperRegressor(n_estimators=5, missing_targets="ignore").fit(
        X, Y_nan, eval_set=(X, Y_nan))
    from sklearn.metrics import r2_score
    P = est.predict(X)
    per_output = [r2_score(Y[~holes[:, j], j], P[~holes[:, j], j]) for j in range(3)]
    np.testing.assert_allclose(est.eval_score_per_output_[-1], per_output, rtol=1e-10)
    with pytest.raises(ValueError, match="^eval_set Y contains NaN or infinity; a NaN is a missing target"):
        PaperRegressor(n_estimators=2).fit(X, Y, eval_set=(X, Y_nan))


def test_models_fitted_with_missing_targets_pickle():
    X, Y, holes, _ = _data(12, kind="classifier")
    for model in (PaperClassifier(n_estimators=3, missing_targets="ignore"),
                  ProjectedForestClassifier(n_estimators=3, missing_targets="ignore")):
        model.fit(X, np.where(holes, np.nan, Y))
        copy = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(copy.decision_function(X), model.decision_function(X))
        np.testing.assert_array_equal(copy.predict(X), model.predict(X))
