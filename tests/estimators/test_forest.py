"""Random forests on randomly projected outputs (engine/estimators/forest.py, paper 003)."""
import pickle
import threading

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from engine._core.grower import TreeGrower, grow_tree
from engine._core.tree_store import TreeStore
from engine.datasets import make_friedman1_multioutput
from engine.estimators.forest import (
    ProjectedForestClassifier,
    ProjectedForestRegressor,
    project_outputs,
)
from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from engine.estimators.registry import ALL_NAMES, ESTIMATOR_NAMES, FOREST_NAMES, make_estimator


def _friedman(structure="group", n=200, d=8, seed=0):
    X, Y, _ = make_friedman1_multioutput(structure, n_samples=n, n_outputs=d, random_state=seed)
    return X, Y


def _labels(n=200, d=8, seed=0):
    X, Y = _friedman(n=n, d=d, seed=seed)
    return X, (Y > np.median(Y, axis=0)).astype(int)


def _structure(forest):
    """Split features and thresholds of every tree (the tree structures)."""
    return [(s.nodes["feature"].copy(), s.nodes["threshold"].copy()) for s in forest.estimators_]


def _same_structure(a, b):
    return len(a) == len(b) and all(
        np.array_equal(fa, fb) and np.array_equal(ta, tb) for (fa, ta), (fb, tb) in zip(a, b))


# ---------------------------------------------------------------- invariances

@pytest.mark.parametrize("seed", [0, 1, 3, 7])
@pytest.mark.parametrize("per_tree", [True, False])
def test_identity_projection_grows_the_same_trees(seed, per_tree):
    # Sub-sampling q = d outputs keeps every output; the projected columns are
    # taken in output order, so the trees see exactly Y. Fully grown trees
    # (min_samples_leaf=1) have many near-tied splits in small nodes, which a
    # different summation order would break differently: the predictions must
    # be bit-identical, not merely close.
    X, Y = _friedman()
    common = dict(n_estimators=8, max_features=3, random_state=seed)
    plain = ProjectedForestRegressor(projection=None, **common).fit(X, Y)
    ident = ProjectedForestRegressor(projection="subsample", n_components=Y.shape[1],
                                     projection_per_tree=per_tree, **common).fit(X, Y)
    # The drawn rows of phi really are permutations (not the identity in order).
    assert any(not np.array_equal(phi.argmax(axis=1), np.arange(Y.shape[1]))
               for phi in ident.projections_)
    assert _same_structure(_structure(plain), _structure(ident))
    np.testing.assert_array_equal(ident.predict(X), plain.predict(X))


def test_subsample_projection_ignores_the_order_of_the_drawn_outputs():
    # The same subset of outputs in another order grows the same tree.
    Y = _friedman(d=8)[1]
    rows = np.eye(8)[[5, 1, 6]]
    np.testing.assert_array_equal(project_outputs(Y, rows, "subsample"), Y[:, [1, 5, 6]])
    np.testing.assert_array_equal(project_outputs(Y, rows[::-1], "subsample"), Y[:, [1, 5, 6]])


def test_large_gaussian_projection_approaches_the_unprojected_forest():
    X, Y = _friedman(n=300, d=16)
    Xt, Yt = _friedman(n=1000, d=16, seed=1)
    common = dict(n_estimators=30, max_features=1.0, random_state=0)
    base = ProjectedForestRegressor(**common).fit(X, Y).score(Xt, Yt)
    scores = {q: ProjectedForestRegressor(projection="gaussian", n_components=q, **common)
              .fit(X, Y).score(Xt, Yt) for q in (1, 64)}
    assert abs(scores[64] - base) < 0.02
    assert abs(scores[64] - base) <= abs(scores[1] - base) + 0.005


@pytest.mark.parametrize("projection", [None, "gaussian", "sparse"])
def test_leaf_values_are_means_of_the_original_outputs(projection):
    X, Y = _friedman(n=150, d=6)
    f = ProjectedForestRegressor(n_estimators=3, projection=projection, n_components=2,
                                 min_samples_leaf=5, random_state=1).fit(X, Y)
    for k, store in enumerate(f.estimators_):
        seed = f._tree_seeds[k]
        counts = np.bincount(np.random.default_rng(seed).integers(0, len(X), len(X)),
                             minlength=len(X))
        leaves = store.apply(X.astype(np.float32))[:, 0]
        values = store.value
        for leaf in np.unique(leaves[counts > 0]):
            in_leaf = (leaves == leaf) & (counts > 0)
            expected = np.average(Y[in_leaf], axis=0, weights=counts[in_leaf])
            np.testing.assert_allclose(values[leaf], expected, rtol=1e-12, atol=1e-12)
        assert values.shape[1] == Y.shape[1]   # original space, not q


@pytest.mark.parametrize("cls, params", [
    (ProjectedForestRegressor, dict(projection="gaussian", n_components=3)),
    (ProjectedForestRegressor, dict(splitter="random", bootstrap=False)),
    (ProjectedForestRegressor, dict(projection="achlioptas", n_components=3,
                                    projection_per_tree=False)),
    (ProjectedForestRegressor, dict(projection="subsample", n_components=3, splitter="random")),
    (ProjectedForestClassifier, dict(projection="sparse", n_components=2)),
    (ProjectedForestClassifier, dict(splitter="random")),
], ids=["gaussian-per-tree", "extra-trees", "shared", "subsample-random", "classifier",
        "classifier-et"])
def test_n_jobs_does_not_change_the_forest(cls, params):
    X, Y = _labels() if cls is ProjectedForestClassifier else _friedman()
    fits = [cls(n_estimators=7, max_features=2, random_state=5, n_jobs=n_jobs, **params).fit(X, Y)
            for n_jobs in (1, 2, -1)]
    one = fits[0]
    predict = one.decision_function if cls is ProjectedForestClassifier else one.predict
    reference = predict(X)
    for other in fits[1:]:
        assert _same_structure(_structure(one), _structure(other))
        for a, b in zip(one.estimators_, other.estimators_):
            np.testing.assert_array_equal(a.value, b.value)
        other_predict = other.decision_function if cls is ProjectedForestClassifier else other.predict
        np.testing.assert_array_equal(other_predict(X), reference)
        if one.projections_ is None:
            assert other.projections_ is None
        else:
            np.testing.assert_array_equal(one.projections_, other.projections_)
    # Different seeds give different forests, so the equalities above are not vacuous.
    seven = cls(n_estimators=7, max_features=2, random_state=6, **params).fit(X, Y)
    assert not _same_structure(_structure(one), _structure(seven))


def test_fit_works_from_a_worker_thread():
    X, Y = _friedman()
    params = dict(n_estimators=4, projection="achlioptas", n_components=2, n_jobs=2, random_state=2)
    expected = ProjectedForestRegressor(**params).fit(X, Y).predict(X)
    results, errors = {}, []

    def work(key):
        try:
            results[key] = ProjectedForestRegressor(**params).fit(X, Y).predict(X)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for key in range(2):
        np.testing.assert_array_equal(results[key], expected)


# ---------------------------------------------------------------- against scikit-learn

@pytest.mark.parametrize("p, tree_params", [
    (1, {}),                                          # fully grown, no ties between features
    (5, dict(max_depth=6, min_samples_leaf=5)),       # several features, no near-leaf ties
    (1, dict(min_samples_split=10)),
    (1, dict(min_samples_split=0.123)),               # ceil(0.123 * 300) = 37 samples
    (5, dict(max_depth=6, min_samples_leaf=5, min_samples_split=25)),
    (5, dict(max_depth=6, min_samples_leaf=3, min_samples_split=0.1)),
])
def test_single_unbootstrapped_tree_equals_decision_tree_regressor(p, tree_params):
    rng = np.random.default_rng(0)
    X = rng.random((300, p))
    Y = np.column_stack([np.sin(6 * X[:, 0]) + X[:, -1], X[:, 0] * X[:, -1]]) + 0.1 * rng.normal(size=(300, 2))
    X_new = rng.random((500, p))
    ours = ProjectedForestRegressor(n_estimators=1, bootstrap=False, max_features=None,
                                    random_state=0, **tree_params).fit(X, Y)
    theirs = DecisionTreeRegressor(random_state=0, **tree_params).fit(X, Y)
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), rtol=0, atol=1e-12)
    assert ours.estimators_[0].node_count == theirs.tree_.node_count


def test_bootstrap_forest_matches_random_forest_accuracy():
    X, Y = _friedman(n=300, d=8)
    Xt, Yt = _friedman(n=2000, d=8, seed=1)
    ours, theirs = [], []
    for seed in range(3):
        ours.append(ProjectedForestRegressor(n_estimators=30, max_features=0.6, random_state=seed)
                    .fit(X, Y).score(Xt, Yt))
        theirs.append(RandomForestRegressor(n_estimators=30, max_features=0.6, random_state=seed)
                      .fit(X, Y).score(Xt, Yt))
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.015


def test_extra_trees_match_scikit_learn_extra_trees_accuracy():
    # Same data, same protocol (no bootstrap, all features at every node).
    # Without random thresholds these trees would all be the same tree
    # (score about 0.62 here); a forest predicting the mean scores about 0.
    X, Y = _friedman(n=300, d=8)
    Xt, Yt = _friedman(n=2000, d=8, seed=1)
    ours, theirs = [], []
    for seed in range(3):
        ours.append(ProjectedForestRegressor(n_estimators=30, splitter="random", bootstrap=False,
                                             max_features=1.0, random_state=seed)
                    .fit(X, Y).score(Xt, Yt))
        theirs.append(ExtraTreesRegressor(n_estimators=30, max_features=1.0, random_state=seed)
                      .fit(X, Y).score(Xt, Yt))
    assert np.mean(theirs) > 0.8
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.015


def _split_nodes(store, X32):
    """(threshold, values of the split feature at the node) for every split node."""
    nodes = store.nodes
    out, stack = [], [(0, np.arange(len(X32)))]
    while stack:
        node, rows = stack.pop()
        f = nodes["feature"][node]
        if f < 0:
            continue
        t = nodes["threshold"][node]
        x = X32[rows, f]
        out.append((t, x))
        stack += [(nodes["left_child"][node], rows[x <= t]), (nodes["right_child"][node], rows[x > t])]
    return out


def _is_midpoint(t, x):
    """Is t halfway between two adjacent distinct values of x (the best splitter's thresholds)?"""
    v = np.unique(x).astype(np.float64)
    mids = v[:-1] / 2.0 + v[1:] / 2.0
    return bool(np.isin(t, mids).any() or np.isin(t, v[:-1][mids == v[1:]]).any())


def test_random_splitter_draws_thresholds_the_best_splitter_would_not():
    X, Y = _friedman(n=200, d=4)
    X32 = X.astype(np.float32)
    common = dict(n_estimators=5, bootstrap=False, max_features=3, random_state=0)
    best = ProjectedForestRegressor(splitter="best", **common).fit(X, Y)
    rand = ProjectedForestRegressor(splitter="random", **common).fit(X, Y)
    best_nodes = [n for s in best.estimators_ for n in _split_nodes(s, X32)]
    rand_nodes = [n for s in rand.estimators_ for n in _split_nodes(s, X32)]
    assert len(rand_nodes) > 100
    # Best splits sit halfway between two neighbouring sample values ...
    assert all(_is_midpoint(t, x) for t, x in best_nodes)
    # ... random ones anywhere in [min, max) of the node's values.
    assert all(x.min() <= t < x.max() for t, x in rand_nodes)
    assert np.mean([_is_midpoint(t, x) for t, x in rand_nodes]) < 0.02
    # The roots (all samples) differ in threshold for every tree.
    for b, r in zip(best.estimators_, rand.estimators_):
        assert b.nodes["threshold"][0] != r.nodes["threshold"][0]


# ---------------------------------------------------------------- projections

def test_per_tree_and_shared_projections():
    X, Y = _friedman(d=8)
    # (leaves of >= 5 samples: no exact ties that rounding could break differently)
    per_tree = ProjectedForestRegressor(n_estimators=4, projection="gaussian", n_components=3,
                                        min_samples_leaf=5, random_state=0).fit(X, Y)
    shared = ProjectedForestRegressor(n_estimators=4, projection="gaussian", n_components=3,
                                      min_samples_leaf=5, projection_per_tree=False,
                                      random_state=0).fit(X, Y)
    P = per_tree.projections_
    assert P.shape == (4, 3, 8)
    assert all(not np.allclose(P[0], P[k]) for k in range(1, 4))
    assert shared.projections_.shape == (1, 3, 8)
    # Tree k is grown on Y @ Phi_k.T (Phi_k = P[k], or the shared one) and
    # relabelled with Y: regrow it by hand from its seed.
    X32 = X.astype(np.float32)
    for forest, phis in ((per_tree, P), (shared, np.repeat(shared.projections_, 4, axis=0))):
        for k in (0, 3):
            rng = np.random.default_rng(forest._tree_seeds[k])
            counts = np.bincount(rng.integers(0, len(X), len(X)), minlength=len(X))
            store = TreeStore(Y.shape[1])
            grow_tree(TreeGrower(X32, max_targets=3, max_features=X.shape[1], min_samples_leaf=5), store,
                      Y @ phis[k].T, labels=Y, sample_weight=counts.astype(float),
                      seed=int(rng.integers(0, 2**63 - 1)))
            assert _same_structure([(store.nodes["feature"], store.nodes["threshold"])],
                                   _structure(forest)[k:k + 1])
            np.testing.assert_allclose(store.value, forest.estimators_[k].value, atol=1e-12)
    assert ProjectedForestRegressor(projection=None).fit(X, Y).projections_ is None


def test_subsample_projection_rows_are_distinct_outputs():
    X, Y = _friedman(d=8)
    f = ProjectedForestRegressor(n_estimators=3, projection="subsample", n_components=5,
                                 random_state=0).fit(X, Y)
    for phi in f.projections_:
        assert set(np.unique(phi)) == {0.0, 1.0}
        assert (phi.sum(axis=1) == 1).all() and len(set(phi.argmax(axis=1))) == 5


def test_log_n_components():
    X, Y = _friedman(d=16)
    f = ProjectedForestRegressor(n_estimators=2, projection="gaussian", n_components="log").fit(X, Y)
    assert f.n_components_ == round(np.log(16)) == 3
    assert f.projections_.shape == (2, 3, 16)


# ---------------------------------------------------------------- classifier

def test_multilabel_probabilities():
    X, Y = _labels()
    for cls, extra in ((ProjectedForestClassifier, dict(projection="gaussian", n_components=2)),
                       (ProjectedForestClassifier, {}),
                       (PerOutputForestClassifier, {})):
        clf = cls(n_estimators=10, random_state=0, **extra).fit(X, Y)
        blocks = clf.predict_proba(X[:50])
        assert isinstance(blocks, list) and len(blocks) == Y.shape[1]
        P = np.column_stack([B[:, 1] for B in blocks])
        assert all(B.shape == (50, 2) for B in blocks)
        assert (P >= 0).all() and (P <= 1).all()
        np.testing.assert_allclose(clf.decision_function(X[:50]), 2 * P - 1, rtol=0, atol=1e-15)
        # scikit-learn's argmax over [P(class 0), P(class 1)]: a tie goes to class 0
        expected = np.column_stack([np.argmax(B, axis=1) for B in blocks])
        np.testing.assert_array_equal(clf.predict(X[:50]), expected)
        np.testing.assert_array_equal(clf.predict(X[:50]), (P > 0.5).astype(int))
    one = ProjectedForestClassifier(n_estimators=5, random_state=0).fit(X, Y[:, 0])
    assert one.predict_proba(X).shape == (len(X), 2)
    assert one.predict(X).shape == (len(X),)
    with pytest.raises(ValueError, match="Y output 0 has 3 distinct values"):
        ProjectedForestClassifier().fit(X, np.where(np.arange(len(X))[:, None] == 0, 2, Y))


def test_classifier_probability_is_mean_leaf_frequency():
    X, Y = _labels(n=120, d=4)
    clf = ProjectedForestClassifier(n_estimators=3, projection="achlioptas", n_components=2,
                                    random_state=0).fit(X, Y)
    X32 = X.astype(np.float32)
    manual = np.mean([s.value[s.apply(X32)[:, 0]] for s in clf.estimators_], axis=0)
    np.testing.assert_allclose(np.column_stack([B[:, 1] for B in clf.predict_proba(X)]), manual,
                               atol=1e-12)


def test_per_output_forest_is_one_forest_per_output():
    X, Y = _friedman(d=3)
    st = PerOutputForestRegressor(n_estimators=4, random_state=0).fit(X, Y)
    assert len(st.forests_) == 3 and all(f.n_outputs_ == 1 for f in st.forests_)
    pred = st.predict(X[:10])
    for j, f in enumerate(st.forests_):
        np.testing.assert_array_equal(pred[:, j], f.predict(X[:10]))


# ---------------------------------------------------------------- validation, pickling, registry

@pytest.mark.parametrize("params, name", [
    (dict(projection="gaussian", n_components=0), "n_components"),
    (dict(projection="gaussian", n_components=2.5), "n_components"),
    (dict(projection="gaussian"), "n_components"),
    (dict(projection="subsample", n_components=9), "n_components"),
    (dict(projection="hadamard", n_components=2), "projection"),
    (dict(splitter="greedy"), "splitter"),
    (dict(n_estimators=0), "n_estimators"),
    (dict(max_features="all"), "max_features"),
    (dict(max_features=6), "max_features"),
    (dict(min_samples_split=1), "min_samples_split"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(max_depth=0), "max_depth"),
    (dict(bootstrap="yes"), "bootstrap"),
    (dict(projection_per_tree=None), "projection_per_tree"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(random_state="a"), "random_state"),
    (dict(n_components=["log"]), "n_components"),
])
def test_bad_parameters_name_themselves(params, name):
    X, Y = _friedman(n=40, d=8)
    with pytest.raises(ValueError, match=name):
        ProjectedForestRegressor(n_estimators=params.pop("n_estimators", 2), **params).fit(X, Y)


def test_bad_data():
    X, Y = _friedman(n=40, d=3)
    with pytest.raises(ValueError, match="same number of samples"):
        ProjectedForestRegressor(n_estimators=2).fit(X, Y[:-1])
    with pytest.raises(ValueError, match="NaN"):
        ProjectedForestRegressor(n_estimators=2).fit(np.where(X > 0.9, np.nan, X), Y)
    f = ProjectedForestRegressor(n_estimators=2).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        f.predict(X[:, :3])


def test_pickle_round_trip():
    X, Y = _friedman()
    f = ProjectedForestRegressor(n_estimators=4, projection="sparse", n_components=3,
                                 random_state=0).fit(X, Y)
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(f.predict(X), g.predict(X))
    np.testing.assert_array_equal(f.projections_, g.projections_)
    np.testing.assert_array_equal(f.feature_importances_, g.feature_importances_)


def test_feature_importances_find_the_relevant_inputs():
    X, Y = _friedman("ind", n=300, d=2)
    f = ProjectedForestRegressor(n_estimators=10, random_state=0).fit(X, Y)
    imp = f.feature_importances_
    assert imp.shape == (X.shape[1],) and abs(imp.sum() - 1) < 1e-12
    assert imp[:10].sum() > 0.9           # outputs 1 and 2 use inputs 1-10 only


def test_registry_names():
    assert set(ESTIMATOR_NAMES).isdisjoint(FOREST_NAMES)
    assert ALL_NAMES == ESTIMATOR_NAMES + FOREST_NAMES
    for name in ("mo-rf", "st-rf", "mo-et", "rf-gaussian-shared", "rf-gaussian-per-tree",
                 "rf-subsampled-per-tree", "rf-achlioptas-shared", "rf-sparse-per-tree"):
        assert name in FOREST_NAMES
    est = make_estimator("rf-gaussian-shared", n_components=4)
    assert isinstance(est, ProjectedForestRegressor)
    assert est.projection_per_tree is False and est.n_components == 4
    assert make_estimator("rf-subsample-per-tree").projection == "subsample"
    assert make_estimator("mo-et").splitter == "random"
    assert isinstance(make_estimator("st-rf", task="multilabel"), PerOutputForestClassifier)
    with pytest.raises(ValueError, match="bogus"):
        make_estimator("mo-rf", bogus=1)


@pytest.mark.parametrize("task", ["regression", "multilabel"])
def test_every_forest_name_fits(task):
    X, Y = _friedman(n=60, d=4) if task == "regression" else _labels(n=60, d=4)
    for name in FOREST_NAMES:
        est = make_estimator(name, task=task, n_estimators=3, random_state=0).fit(X, Y)
        pred = est.predict(X[:7])
        assert pred.shape == (7, 4) and np.isfinite(pred).all()


# ---------------------------------------------------------------- scikit-learn API checks

_BOOTSTRAP = ("bootstrap draws depend on the number of rows, so weight 2 is not a duplicated "
              "row (scikit-learn's RandomForestRegressor and RandomForestClassifier fail this check too)")


def _expected_failed(estimator):
    if estimator.bootstrap:
        return {"check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP,
                "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP}
    return {}


@parametrize_with_checks(
    [ProjectedForestRegressor(n_estimators=5, projection="gaussian", n_components=2),
     ProjectedForestRegressor(n_estimators=3, bootstrap=False),
     PerOutputForestRegressor(n_estimators=3, bootstrap=False),
     ProjectedForestClassifier(n_estimators=5, projection="sparse", n_components=2, bootstrap=False),
     ProjectedForestClassifier(n_estimators=3),
     PerOutputForestClassifier(n_estimators=3, bootstrap=False)],
    expected_failed_checks=_expected_failed,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
