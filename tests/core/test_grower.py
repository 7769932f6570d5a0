"""The compiled tree grower (engine._core.grower) against independent oracles.

* stumps against the brute-force split search of oracles.split_search;
* best-first trees against scikit-learn's DecisionTreeRegressor;
* feature sub-sampling (max_features), determinism, TreeStore pickling.
"""

import pickle

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from engine._core.grower import TreeGrower, grow_tree
from engine._core.tree_store import TreeStore
from oracles.split_search import brute_force_best_split

LEAF = -1  # TreeStore marks leaves with left_child == right_child == -1


def _grow(X, T, *, labels=None, sample_weight=None, seed=0, **params):
    T2 = T.reshape(len(T), -1)
    n_values = T2.shape[1] if labels is None else labels.reshape(len(T), -1).shape[1]
    grower = TreeGrower(np.asarray(X, dtype=np.float32), max_targets=T2.shape[1], **params)
    store = TreeStore(n_values)
    leaves = grow_tree(grower, store, T2, labels, sample_weight, seed=seed)
    return store, leaves


def _data(seed, n, p, d, weighted):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).astype(np.float32)
    T = rng.normal(size=(n, d)) + 0.8 * X[:, [seed % p]] - 0.5 * X[:, [(seed + 1) % p]] ** 2
    w = rng.uniform(0.1, 3.0, size=n) if weighted else None
    return X, T, w


# ---------------------------------------------------------------- stumps vs brute force

@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_samples_leaf", [1, 7])
def test_stump_matches_brute_force(seed, d, weighted, min_samples_leaf):
    X, T, w = _data(seed, 50 + 10 * seed, 4, d, weighted)
    if seed == 4:   # duplicated feature values and an offset in the targets
        X = np.round(X * 2) / 2
        T = T + 1e3
    ref = brute_force_best_split(X, T, w, min_samples_leaf=min_samples_leaf)
    store, leaves = _grow(X, T, sample_weight=w, max_leaf_nodes=2,
                          min_samples_leaf=min_samples_leaf)
    nodes, value = store.tree_nodes(0)
    W = np.ones(len(X)) if w is None else w
    # node impurity and improvement do not depend on which tied split is chosen
    np.testing.assert_allclose(nodes["impurity"][0], ref["impurity"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(nodes["weighted_n_node_samples"][0], W.sum(), rtol=1e-14)
    np.testing.assert_allclose(nodes["improvement"][0], ref["improvement"],
                               rtol=1e-9, atol=1e-9 * ref["impurity"] * W.sum())
    np.testing.assert_allclose(value[0], np.average(T, axis=0, weights=W), rtol=1e-12, atol=1e-12)
    assert len(nodes) == 3
    if ref["n_ties"] > 1:
        return  # several equally good splits: the exact choice is a convention
    left, right = nodes["left_child"][0], nodes["right_child"][0]
    assert (left, right) == (1, 2)
    assert nodes["feature"][0] == ref["feature"]
    assert nodes["threshold"][0] == ref["threshold"]
    assert nodes["n_node_samples"][left] == ref["n_left"]
    assert nodes["n_node_samples"][right] == ref["n_right"]
    np.testing.assert_allclose(nodes["impurity"][left], ref["impurity_left"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(nodes["impurity"][right], ref["impurity_right"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(value[left], ref["value_left"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(value[right], ref["value_right"], rtol=1e-12, atol=1e-12)
    for k in (left, right):
        assert nodes["left_child"][k] == LEAF and nodes["right_child"][k] == LEAF
    # the returned sample -> leaf map agrees with the threshold
    go_left = X[:, ref["feature"]] <= ref["threshold"]
    np.testing.assert_array_equal(leaves, np.where(go_left, left, right))
    np.testing.assert_array_equal(store.apply(X)[:, 0], leaves)


def test_stump_on_tied_data_is_an_optimal_split():
    """With exact ties the engine may pick any best split, but it must be a best one."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    T = np.array([0.0, 5.0, 5.0, 0.0])
    ref = brute_force_best_split(X, T)
    assert ref["n_ties"] == 2
    store, _ = _grow(X, T, max_leaf_nodes=2)
    nodes, _ = store.tree_nodes(0)
    np.testing.assert_allclose(nodes["improvement"][0], ref["improvement"], rtol=1e-12)
    assert nodes["threshold"][0] in (0.5, 2.5)


def test_zero_weight_samples_are_left_out():
    X, T, w = _data(3, 60, 3, 2, True)
    w[::3] = 0.0
    keep = w > 0
    ref = brute_force_best_split(X[keep], T[keep], w[keep])
    store, leaves = _grow(X, T, sample_weight=w, max_leaf_nodes=2)
    nodes, _ = store.tree_nodes(0)
    assert nodes["feature"][0] == ref["feature"]
    assert nodes["threshold"][0] == ref["threshold"]
    np.testing.assert_allclose(nodes["impurity"][1:], [ref["impurity_left"], ref["impurity_right"]],
                               rtol=1e-12)
    assert (leaves[~keep] == -1).all() and (leaves[keep] >= 0).all()


def test_labels_differ_from_targets():
    """Split on targets, label leaves with the means of other columns (relabelling)."""
    X, T, w = _data(1, 80, 3, 2, True)
    labels = np.random.default_rng(0).normal(size=(80, 4))
    store, leaves = _grow(X, T, labels=labels, sample_weight=w, max_leaf_nodes=4)
    value = store.value
    assert value.shape == (store.node_count, 4)
    for leaf in np.unique(leaves):
        m = leaves == leaf
        np.testing.assert_allclose(value[leaf], np.average(labels[m], axis=0, weights=w[m]),
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(value[0], np.average(labels, axis=0, weights=w), rtol=1e-12)


# ---------------------------------------------------------------- larger trees vs scikit-learn

def _sk_tree(X, T, w, **params):
    return DecisionTreeRegressor(criterion="squared_error", random_state=0, **params).fit(
        X, T if T.shape[1] > 1 else T[:, 0], sample_weight=w)


@pytest.mark.parametrize("max_leaf_nodes", [3, 5, 8, 12])
@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("max_depth", [None, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_best_first_tree_matches_sklearn(max_leaf_nodes, d, max_depth, weighted):
    X, T, w = _data(max_leaf_nodes + d, 120, 4, d, weighted)
    X_test = np.random.default_rng(7).normal(size=(200, 4)).astype(np.float32)
    store, _ = _grow(X, T, sample_weight=w, max_leaf_nodes=max_leaf_nodes,
                     max_depth=max_depth or 0, min_samples_leaf=2)
    sk = _sk_tree(X, T, w, max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=2)
    for Z in (X, X_test):
        ours = store.value[store.apply(Z)[:, 0]]
        np.testing.assert_allclose(ours, sk.predict(Z).reshape(len(Z), d), rtol=1e-12, atol=1e-12)
    nodes, _ = store.tree_nodes(0)
    assert (nodes["left_child"] == LEAF).sum() == sk.get_n_leaves()
    assert store.node_count == sk.tree_.node_count
    # same set of (feature, threshold) splits; impurities are the sum (ours) vs mean (sklearn)
    ours_splits = sorted(zip(nodes["feature"][nodes["left_child"] != LEAF],
                             nodes["threshold"][nodes["left_child"] != LEAF]))
    internal = sk.tree_.children_left != -1
    assert ours_splits == sorted(zip(sk.tree_.feature[internal], sk.tree_.threshold[internal]))
    np.testing.assert_allclose(np.sort(nodes["impurity"]), np.sort(d * sk.tree_.impurity),
                               rtol=1e-9, atol=1e-12)


def test_max_depth_alone_matches_sklearn():
    X, T, _ = _data(2, 100, 3, 2, False)
    store, _ = _grow(X, T, max_leaf_nodes=0, max_depth=3)
    sk = _sk_tree(X, T, None, max_depth=3)
    np.testing.assert_allclose(store.value[store.apply(X)[:, 0]], sk.predict(X), rtol=1e-12, atol=1e-12)
    assert store.node_count == sk.tree_.node_count


# ---------------------------------------------------------------- max_features

def test_max_features_draws_k_features_per_node():
    """Only feature 2 is informative: with k = 1 the root's feature is random across seeds
    (a search over all features would always pick feature 2)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 4)).astype(np.float32)
    T = (X[:, 2] > 0.5) * 3.0 + 0.01 * rng.normal(size=80)
    chosen = set()
    for seed in range(30):
        store, _ = _grow(X, T, max_leaf_nodes=2, max_features=1, seed=seed)
        chosen.add(int(store.nodes["feature"][0]))
    assert len(chosen) >= 3
    store, _ = _grow(X, T, max_leaf_nodes=2)
    assert store.nodes["feature"][0] == 2


@pytest.mark.parametrize("k", [1, 2, 3])
def test_max_features_root_split_is_best_among_some_k_features(k):
    """The root split equals the brute-force best split restricted to some k-subset."""
    from itertools import combinations
    X, T, _ = _data(5, 70, 5, 2, False)
    for seed in range(6):
        store, _ = _grow(X, T, max_leaf_nodes=2, max_features=k, seed=seed)
        nodes = store.nodes
        candidates = []
        for subset in combinations(range(5), k):
            ref = brute_force_best_split(X[:, subset], T)
            candidates.append((subset[ref["feature"]], ref["threshold"]))
        assert (nodes["feature"][0], nodes["threshold"][0]) in candidates


def test_same_seed_same_tree_different_seed_different_tree():
    X, T, _ = _data(4, 100, 6, 2, False)
    a, _ = _grow(X, T, max_leaf_nodes=8, max_features=2, seed=11)
    b, _ = _grow(X, T, max_leaf_nodes=8, max_features=2, seed=11)
    assert a.nodes.tobytes() == b.nodes.tobytes()
    np.testing.assert_array_equal(a.value, b.value)
    trees = {_grow(X, T, max_leaf_nodes=8, max_features=2, seed=s)[0].nodes.tobytes()
             for s in range(8)}
    assert len(trees) > 1


# ---------------------------------------------------------------- TreeStore

def test_treestore_pickle_round_trip_and_tree_nodes():
    X, T, w = _data(6, 90, 3, 2, True)
    grower = TreeGrower(X, max_leaf_nodes=6, max_targets=2)
    store = TreeStore(2)
    for seed in range(3):
        grow_tree(grower, store, T + seed, sample_weight=w, seed=seed)
    assert store.n_trees == 3
    copy = pickle.loads(pickle.dumps(store))
    assert copy.n_trees == 3 and copy.node_count == store.node_count
    np.testing.assert_array_equal(copy.apply(X), store.apply(X))
    np.testing.assert_array_equal(copy.value, store.value)
    assert copy.nodes.tobytes() == store.nodes.tobytes()
    np.testing.assert_array_equal(copy.tree_start, store.tree_start)
    empty = pickle.loads(pickle.dumps(TreeStore(1)))
    assert empty.n_trees == 0 and empty.apply(X).shape == (90, 0)

    starts = store.tree_start
    for k in range(3):
        nodes, value = store.tree_nodes(k)
        assert len(nodes) == starts[k + 1] - starts[k]
        np.testing.assert_array_equal(value, store.value[starts[k]:starts[k + 1]])
        internal = nodes["left_child"] != LEAF
        assert ((nodes["right_child"] != LEAF) == internal).all()
        assert (nodes["feature"][~internal] == LEAF).all()
        children = np.concatenate([nodes["left_child"][internal], nodes["right_child"][internal]])
        # every node but the root is the child of exactly one node, with a larger id
        assert sorted(children) == list(range(1, len(nodes)))
        for parent in np.flatnonzero(internal):
            l, r = nodes["left_child"][parent], nodes["right_child"][parent]
            assert l > parent and r > parent
            assert nodes["n_node_samples"][l] + nodes["n_node_samples"][r] == nodes["n_node_samples"][parent]
            np.testing.assert_allclose(
                nodes["weighted_n_node_samples"][l] + nodes["weighted_n_node_samples"][r],
                nodes["weighted_n_node_samples"][parent], rtol=1e-12)
        # a local traversal reaches the same leaf as apply()
        leaves = store.apply(X)[:, k] - starts[k]
        for i in range(0, 90, 7):
            node = 0
            while nodes["left_child"][node] != LEAF:
                go_left = X[i, nodes["feature"][node]] <= nodes["threshold"][node]
                node = nodes["left_child"][node] if go_left else nodes["right_child"][node]
            assert node == leaves[i]
    with pytest.raises(ValueError, match="tree"):
        store.tree_nodes(3)
