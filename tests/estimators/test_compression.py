"""ℓ1-based compression of forests (thesis ch. 7): engine.estimators.indicators and .compression.

Oracles: the forest's own predictions (eq. 7.1), the training error of the forest
(t -> infinity), the mean (t = 0), a brute-force walk up the parents (pruning), the
dense linear model on the kept indicators (the compact model), and the bad input of
the issue.
"""
import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor

from engine import (
    CompressedForestClassifier,
    CompressedForestRegressor,
    PerOutputForestClassifier,
    PerOutputForestRegressor,
    ProjectedForestClassifier,
    ProjectedForestRegressor,
)
from engine.datasets import make_friedman1, make_two_norm
from engine.estimators.compression import FitStopped
from engine.estimators.indicators import (
    compact_predict,
    count_test_nodes,
    forest_node_weights,
    forest_stores,
    kept_nodes,
    node_indicators,
    node_parents,
    prune_forest,
)
from oracles.stagewise import brute_force_paths


def _friedman(n=120, seed=0):
    X, y, _ = make_friedman1(n, random_state=seed)
    return X, y


def _et(n_estimators=10, **kw):
    return ProjectedForestRegressor(n_estimators=n_estimators, splitter="random", bootstrap=False, **kw)


def _multi(n=100, d=3, seed=0):
    X, y = _friedman(n, seed)
    rng = np.random.default_rng(seed)
    return X, np.column_stack([y + rng.normal(size=n) for _ in range(d)])


# ---------------------------------------------------------------- eq. 7.1

FORESTS = {
    "extra-trees": lambda: _et(7, random_state=0),
    "rf-bootstrap-projected": lambda: ProjectedForestRegressor(n_estimators=6, projection="gaussian",
                                                               n_components=2, min_samples_leaf=3,
                                                               random_state=1),
    "st-rf": lambda: PerOutputForestRegressor(n_estimators=4, max_depth=4, random_state=2),
}


@pytest.mark.parametrize("name", FORESTS)
def test_indicator_matrix_reproduces_the_forest_exactly(name):
    """Eq. 7.1: prediction = sum over nodes of w_{m,l} / M * 1_{m,l}(x), before any selection."""
    X, Y = _multi()
    forest = FORESTS[name]().fit(X, Y)
    X_new, _ = _multi(50, seed=9)
    Z = node_indicators(forest_stores(forest), X_new)
    W = forest_node_weights(forest)
    assert Z.shape == (50, sum(s.node_count for s in forest.estimators_)) == (50, W.shape[0])
    assert set(np.unique(Z.data)) == {1.0}
    np.testing.assert_allclose(Z @ W, forest.predict(X_new), rtol=1e-12, atol=1e-12)
    # the columns are the nodes on each sample's path (brute force), tree after tree
    offsets = np.cumsum([0] + [s.node_count for s in forest.estimators_])
    for i in (0, 17, 49):
        ref = [offsets[t] + k for t, s in enumerate(forest.estimators_) for k in brute_force_paths(s, X_new[i:i + 1])[0]]
        assert sorted(Z[i].indices.tolist()) == sorted(ref)


def test_indicator_matrix_reproduces_a_classifier_forest():
    X, y, _ = make_two_norm(100, random_state=0)
    forest = ProjectedForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    Z = node_indicators(forest_stores(forest), X[:30])
    np.testing.assert_allclose((Z @ forest_node_weights(forest))[:, 0], forest.predict_proba(X[:30])[:, 1],
                               rtol=1e-12)


# ---------------------------------------------------------------- the ends of the path

def test_unconstrained_path_fits_the_training_set_at_least_as_well_as_the_forest():
    """t -> infinity: least squares on all the indicators can reproduce the forest (eq. 7.1), and more."""
    X, y = _friedman(150)
    forest = _et(10, min_samples_leaf=5)                 # does not interpolate the training set
    model = CompressedForestRegressor(forest, cv=3, step=0.01, random_state=0).fit(X, y)
    forest_error = np.mean((model.forest_.predict(X)[:, 0] - y) ** 2) / y.var()
    assert model.path_model_.converged
    assert model.path_["train_error"][-1] <= forest_error
    # and the path's last model is what path_predict gives at its end
    last = model.path_predict(X, [model.path_model_.n_steps])[0, :, 0]
    np.testing.assert_allclose(np.mean((last - y) ** 2) / y.var(), model.path_["train_error"][-1], rtol=1e-9)
    # the training error only decreases along the path (every step lowers it)
    assert (np.diff(model.path_["train_error"]) <= 1e-12).all()


def test_zero_steps_predict_the_mean():
    X, y = _friedman()
    model = CompressedForestRegressor(_et(5), cv=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.path_predict(X[:20], [0])[0, :, 0], y.mean(), rtol=1e-12)
    intercept, W = model.linear_model(0)
    assert W.nnz == 0
    np.testing.assert_allclose(intercept, [y.mean()])
    assert model.path_["n_nodes"][0] == 0 and model.path_["n_weighted"][0] == 0
    np.testing.assert_allclose(model.path_["t"], model.path_["n_steps"] * 0.01)


def test_no_surviving_node_gives_the_mean_with_a_warning():
    X, _ = _friedman()
    y = np.full(len(X), 3.5)                  # nothing to explain: the path is empty
    with pytest.warns(UserWarning, match="no node survives"):
        model = CompressedForestRegressor(_et(5), cv=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.predict(X[:7]), 3.5)
    assert model.n_nodes_ == 0 and model.n_weighted_ == 0 and model.compression_factor_ == np.inf
    assert model.n_steps_ == 0 and model.t_ == 0.0


# ---------------------------------------------------------------- pruning

def _ancestors_by_walking(parents, nodes):
    out = set()
    for k in nodes:
        a = parents[k]
        while a >= 0:
            out.add(int(a))
            a = parents[a]
    return out


def test_pruning_keeps_exactly_the_ancestors_of_weighted_nodes():
    X, y = _friedman()
    model = CompressedForestRegressor(_et(10), cv=3, random_state=0).fit(X, y)
    stores = forest_stores(model.forest_)
    # parents from each tree's own node table (local ids), independent of node_parents
    parents, offset = [], 0
    for s in stores:
        nodes, _ = s.tree_nodes(0)
        p = np.full(len(nodes), -1)
        for k, (l, r) in enumerate(zip(nodes["left_child"], nodes["right_child"])):
            if l >= 0:
                p[l], p[r] = k + offset, k + offset
        parents.append(p)
        offset += len(nodes)
    parents = np.concatenate(parents)
    np.testing.assert_array_equal(parents, node_parents(stores))
    weighted = set(np.flatnonzero(np.diff(model.coef_.indptr)).tolist())
    ancestors = _ancestors_by_walking(parents, weighted)
    assert weighted and set(np.flatnonzero(model.kept_nodes_).tolist()) == weighted | ancestors
    assert model.n_nodes_ == len(ancestors) == count_test_nodes([model.compact_])
    assert model.n_weighted_ == len(weighted)
    assert model.n_nodes_forest_ == count_test_nodes(stores) == sum(len(X) - 1 for _ in stores)
    assert model.compression_factor_ == model.n_nodes_forest_ / model.n_nodes_
    assert model.path_["n_nodes"][model.n_steps_] == model.n_nodes_


def test_pruned_model_predicts_the_linear_model_on_the_kept_indicators():
    X, y = _friedman()
    model = CompressedForestRegressor(_et(10), cv=3, random_state=0).fit(X, y)
    X_new, _ = _friedman(80, seed=5)
    Z = node_indicators(forest_stores(model.forest_), X_new).toarray()
    intercept, W = model.linear_model()
    kept = model.kept_nodes_
    dense = intercept + Z[:, kept] @ W.toarray()[kept]
    np.testing.assert_allclose(model.predict(X_new), dense[:, 0], rtol=1e-10, atol=1e-10)
    staged = list(model.staged_predict(X_new))
    assert len(staged) == model.n_steps_ + 1
    np.testing.assert_allclose(staged[-1], model.predict(X_new), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.path_predict(X_new, [0, model.n_steps_])[1, :, 0], model.predict(X_new),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_prune_forest_on_arbitrary_weights(seed):
    """Any sparse weights, on leaves and test nodes alike: compact store = Z @ W, ancestors kept."""
    X, Y = _multi(80, d=2, seed=seed)
    forest = _et(4, random_state=seed).fit(X, Y)
    stores = forest_stores(forest)
    q = sum(s.node_count for s in stores)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(q, size=12, replace=False)
    W = np.zeros((q, 2))
    W[chosen] = rng.normal(size=(12, 2))
    compact, kept = prune_forest(stores, sparse.csr_matrix(W))
    parents = node_parents(stores)
    ref_kept = set(chosen.tolist()) | _ancestors_by_walking(parents, chosen)
    assert set(np.flatnonzero(kept).tolist()) == ref_kept
    _, ancestors = kept_nodes(parents, np.isin(np.arange(q), chosen))
    assert count_test_nodes([compact]) == ancestors.sum() == len(_ancestors_by_walking(parents, chosen))
    X_new, _ = _multi(40, d=2, seed=seed + 20)
    Z = node_indicators(stores, X_new)
    np.testing.assert_allclose(compact_predict(compact, X_new), Z @ W, rtol=1e-12, atol=1e-12)
    # a compact test node has both children; everything else is a leaf
    nodes = compact.nodes
    assert ((nodes["left_child"] >= 0) == (nodes["right_child"] >= 0)).all()


# ---------------------------------------------------------------- the thesis's setting

@pytest.mark.slow
def test_friedman1_extra_trees_compress_tenfold_without_losing_accuracy():
    """Table 7.1's setting, one run (the CLI averages 50): M = 100, K = p, n_min = 1, 300 samples."""
    X, y, _ = make_friedman1(300, random_state=0)
    X_test, y_test, _ = make_friedman1(2000, random_state=1)
    model = CompressedForestRegressor(_et(100, max_features=1.0), random_state=0).fit(X, y)
    assert model.n_nodes_forest_ == 100 * 299                   # 29 900, as in Table 7.1
    assert model.compression_factor_ >= 10
    et = np.mean((model.forest_.predict(X_test)[:, 0] - y_test) ** 2)
    ret = np.mean((model.predict(X_test) - y_test) ** 2)
    assert ret <= 1.10 * et
    assert 1.0 <= model.t_ <= 6.0                             # Figure 7.2: t* about 3


# ---------------------------------------------------------------- several outputs, classifier

@pytest.mark.parametrize("forest", [_et(5, random_state=0), PerOutputForestRegressor(n_estimators=3, splitter="random",
                                                                                     bootstrap=False)])
def test_multi_output_shares_one_selection(forest):
    X, Y = _multi(90, d=3)
    model = CompressedForestRegressor(forest, cv=3, random_state=0).fit(X, Y)
    assert model.predict(X[:5]).shape == (5, 3)
    steps = model.path_model_.deltas
    np.testing.assert_allclose(np.linalg.norm(steps, axis=1), 0.01, rtol=1e-12)   # group steps
    intercept, W = model.linear_model()
    Z = node_indicators(forest_stores(model.forest_), X[:20])
    np.testing.assert_allclose(model.predict(X[:20]), intercept + (Z @ W).toarray(), rtol=1e-10, atol=1e-10)


def test_one_output_as_a_column_is_the_same_model():
    X, y = _friedman(90)
    a = CompressedForestRegressor(_et(5), cv=3, random_state=4).fit(X, y)
    b = CompressedForestRegressor(_et(5), cv=3, random_state=4).fit(X, y[:, None])
    assert a.predict(X).shape == (90,) and b.predict(X).shape == (90, 1)
    np.testing.assert_allclose(a.predict(X), b.predict(X)[:, 0])


def test_same_seed_same_model_and_threads_do_not_matter():
    X, y = _friedman(90)
    a = CompressedForestRegressor(_et(5), cv=4, random_state=3).fit(X, y)
    b = CompressedForestRegressor(_et(5), cv=4, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.path_["cv_error"], b.path_["cv_error"])
    c = clone(a).set_params(random_state=5).fit(X, y)
    assert not np.array_equal(a.predict(X), c.predict(X))


@pytest.mark.slow
def test_classifier_on_two_norm_and_multilabel():
    X, y, _ = make_two_norm(150, random_state=0)
    model = CompressedForestClassifier(ProjectedForestClassifier(n_estimators=10, splitter="random", bootstrap=False,
                                                                 max_features=1.0), cv=3, random_state=0).fit(X, y)
    P = model.predict_proba(X[:10])
    assert P.shape == (10, 2) and np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert set(np.unique(model.predict(X))) <= {0, 1}
    # the CV loss is the 0-1 loss: fractions of misclassified samples
    cv = model.path_["cv_error"]
    assert ((cv >= 0) & (cv <= 1)).all()
    assert model.score(X, y) == np.mean(model.predict(X) == y)
    Y = np.column_stack([y, 1 - y, (X[:, 0] > 0).astype(int)])
    multi = CompressedForestClassifier(PerOutputForestClassifier(n_estimators=3), cv=3, random_state=0).fit(X, Y)
    assert multi.predict(X[:4]).shape == (4, 3) and multi.decision_function(X[:4]).shape == (4, 3)
    blocks = multi.predict_proba(X[:4])
    assert [b.shape for b in blocks] == [(4, 2)] * 3
    np.testing.assert_allclose(np.column_stack([b[:, 1] for b in blocks]),
                               (multi.decision_function(X[:4]) + 1) / 2, atol=1e-15)
    np.testing.assert_array_equal(multi.predict(X[:4]), (multi.decision_function(X[:4]) > 0).astype(int))
    labels = np.where(Y == 1, "yes", "no")           # any two labels per output, as the other classifiers
    named = CompressedForestClassifier(PerOutputForestClassifier(n_estimators=3), cv=3, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(named.decision_function(X), multi.decision_function(X))
    np.testing.assert_array_equal(named.predict(X), np.where(multi.predict(X) == 1, "yes", "no"))
    assert named.score(X, labels) == multi.score(X, Y)
    assert 0.5 < multi.score(X, Y) <= 1.0                       # LRAP


def test_callback_reports_every_fold_and_can_stop():
    X, y = _friedman(60)
    seen = []
    CompressedForestRegressor(_et(3), cv=3, random_state=0).fit(X, y, callback=lambda k, est: seen.append(k))
    assert seen == [1, 2, 3, 4]
    model = CompressedForestRegressor(_et(3), cv=3, random_state=0)
    with pytest.raises(FitStopped):
        model.fit(X, y, callback=lambda k, est: k >= 2)
    assert not hasattr(model, "compact_")


def test_max_steps_cuts_every_path():
    X, y = _friedman(80)
    model = CompressedForestRegressor(_et(5), cv=3, max_steps=7, random_state=0).fit(X, y)
    assert model.path_model_.n_steps == 7 and len(model.path_["t"]) == 8 and model.n_steps_ <= 7


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("forest", [RandomForestRegressor(), ProjectedForestClassifier(), "extra-trees", None])
def test_foreign_forest_is_a_type_error_naming_forest(forest):
    X, y = _friedman(30)
    with pytest.raises(TypeError, match="forest"):
        CompressedForestRegressor(forest).fit(X, y)


def test_classifier_needs_a_classifier_forest_and_labels():
    X, y = _friedman(30)
    with pytest.raises(TypeError, match="forest"):
        CompressedForestClassifier(_et()).fit(X, y > 14)
    with pytest.raises(ValueError, match="^Y output 0 has 30 distinct values .* Unknown label type"):
        CompressedForestClassifier(ProjectedForestClassifier(), cv=2).fit(X, y)


@pytest.mark.parametrize("params, match", [
    (dict(cv=1), "cv"), (dict(cv=31), "cv"), (dict(cv=2.5), "cv"), (dict(cv=True), "cv"),
    (dict(step=0.0), "step"), (dict(step=-0.01), "step"), (dict(step=np.nan), "step"),
    (dict(step=np.inf), "step"), (dict(step="0.01"), "step"),
    (dict(max_steps=0), "max_steps"), (dict(max_steps=1.5), "max_steps"),
    (dict(n_jobs=0), "n_jobs"), (dict(random_state="a"), "random_state"),
])
def test_bad_parameters_are_value_errors_naming_them(params, match):
    X, y = _friedman(30)
    with pytest.raises(ValueError, match=match):
        CompressedForestRegressor(_et(3), **params).fit(X, y)


@pytest.mark.parametrize("where, value, match", [("X", np.nan, "X"), ("X", np.inf, "X"), ("y", np.nan, "Y"),
                                                 ("y", -np.inf, "Y")])
def test_nan_and_inf_are_value_errors_naming_the_array(where, value, match):
    X, y = _friedman(30)
    if where == "X":
        X[3, 2] = value
    else:
        y[4] = value
    with pytest.raises(ValueError, match=match):
        CompressedForestRegressor(_et(3), cv=3).fit(X, y)
    model = CompressedForestRegressor(_et(3), cv=3, random_state=0).fit(*_friedman(30))
    X_bad = _friedman(5)[0]
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        model.predict(X_bad)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((2, 3)))
