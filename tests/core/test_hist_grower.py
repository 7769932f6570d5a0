"""The histogram grower (engine._core.hist_grower) against independent oracles.

* node histograms against numpy sums per bin (dense and sparse features, the
  sparse zero bin obtained by subtraction);
* histogram subtraction against the directly built sibling;
* stumps against the brute-force search over the same bin thresholds
  (single- and multi-output, weighted, min_samples_leaf);
* with one bin per distinct value, the same partitions as the exact grower;
* 1, 2 and 4 threads grow identical trees; routing of out-of-bag samples.
"""
import numpy as np
import pytest
from scipy import sparse

from engine._core import HistGrower, TreeGrower, TreeStore, bin_features, grow_tree
from engine._core.histogram import subtract_histograms
from oracles.binned_split_search import brute_force_binned_split, reference_codes, reference_histogram

LEAF = -1


def _data(seed, n=300, p=6, d=1, weighted=False, sparse_frac=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if sparse_frac:
        X[rng.uniform(size=X.shape) < sparse_frac] = 0.0
        X[:, 1] = 0.0
    T = rng.normal(size=(n, d)) + X[:, [0]] - 0.5 * X[:, [2 % p]] ** 2
    w = rng.uniform(0.2, 3.0, size=n) if weighted else None
    return X, T, w


def _grow(binned, T, w=None, seed=0, labels=None, **params):
    T2 = T.reshape(len(T), -1)
    grower = HistGrower(binned, max_targets=T2.shape[1], **params)
    store = TreeStore(T2.shape[1] if labels is None else labels.shape[1])
    leaves = grow_tree(grower, store, T2, labels, w, seed=seed)
    return grower, store, leaves


# ---------------------------------------------------------------- histograms

@pytest.mark.parametrize("d", [1, 3, 16])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("sparse_frac", [0.0, 0.85])
def test_node_histogram_matches_numpy(d, weighted, sparse_frac):
    X, T, w = _data(d, n=250, p=5, d=d, weighted=weighted, sparse_frac=sparse_frac)
    binned = bin_features(X, 16)
    grower = HistGrower(binned, max_targets=d)
    rows = np.flatnonzero(np.random.default_rng(1).uniform(size=len(X)) < 0.6)
    W = np.ones(len(X)) if w is None else w
    hist = grower.node_histogram(T, w, samples=rows)
    for f in range(X.shape[1]):
        a, b = binned.bin_start[f], binned.bin_start[f + 1]
        codes = reference_codes(X[rows, f], binned.feature_thresholds(f))
        ref = reference_histogram(codes, b - a, T[rows], W[rows])
        np.testing.assert_allclose(hist[a:b], ref, rtol=1e-12, atol=1e-9)
    if sparse_frac:
        assert np.any(binned.dense_column < 0)


@pytest.mark.parametrize("d", [1, 5])
@pytest.mark.parametrize("sparse_frac", [0.0, 0.85])
def test_histogram_subtraction_equals_the_built_sibling(d, sparse_frac):
    X, T, w = _data(10 + d, n=400, p=7, d=d, weighted=True, sparse_frac=sparse_frac)
    grower = HistGrower(bin_features(X, 32), max_targets=d)
    rng = np.random.default_rng(2)
    left = rng.uniform(size=len(X)) < 0.3
    parent = grower.node_histogram(T, w)
    small = grower.node_histogram(T, w, samples=np.flatnonzero(left))
    sibling = grower.node_histogram(T, w, samples=np.flatnonzero(~left))
    for threads in (1, 3):
        got = subtract_histograms(parent, small, n_threads=threads)
        np.testing.assert_allclose(got, sibling, rtol=1e-10, atol=1e-9)
        np.testing.assert_array_equal(got[:, -1], sibling[:, -1])      # counts are exact


# ---------------------------------------------------------------- split search

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_samples_leaf", [1, 9])
@pytest.mark.parametrize("sparse_frac", [0.0, 0.8])
def test_stump_matches_binned_brute_force(seed, d, weighted, min_samples_leaf, sparse_frac):
    X, T, w = _data(seed, n=200 + 20 * seed, p=5, d=d, weighted=weighted, sparse_frac=sparse_frac)
    if seed == 3:
        X = np.round(X * 2) / 2        # ties in the values
        T = T + 1e3                    # an offset in the targets
    binned = bin_features(X, 8 + 20 * seed)
    thresholds = [binned.feature_thresholds(f) for f in range(X.shape[1])]
    ref = brute_force_binned_split(X, T, thresholds, w, min_samples_leaf=min_samples_leaf)
    _, store, leaves = _grow(binned, T, w, max_leaf_nodes=2, min_samples_leaf=min_samples_leaf)
    nodes, value = store.tree_nodes(0)
    W = np.ones(len(X)) if w is None else w
    np.testing.assert_allclose(value[0], np.average(T, axis=0, weights=W), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(nodes["improvement"][0], ref["improvement"], rtol=1e-8,
                               atol=1e-8 * abs(ref["improvement"]) + 1e-9)
    if ref["n_ties"] > 1:
        return
    assert nodes["feature"][0] == ref["feature"]
    assert nodes["threshold"][0] == ref["threshold"]
    assert nodes["n_node_samples"][1] == ref["n_left"] and nodes["n_node_samples"][2] == ref["n_right"]
    go_left = X[:, ref["feature"]].astype(np.float32) <= ref["threshold"]
    np.testing.assert_array_equal(leaves, np.where(go_left, 1, 2))
    np.testing.assert_array_equal(store.apply(X)[:, 0], leaves)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("d", [1, 4])
@pytest.mark.parametrize("leaves", [4, 8, 16])
def test_with_a_bin_per_value_the_partitions_are_the_exact_growers(seed, d, leaves):
    # 200 distinct values per feature <= 255 bins: every exact threshold is a
    # candidate, so the trees split the training samples identically (the
    # thresholds themselves may differ inside a node's empty gaps). Small
    # trees: in nodes of a few samples two features often give the same
    # partition, a tie that rounding breaks either way.
    X, T, w = _data(20 + seed, n=200, p=5, d=d, weighted=seed == 1)
    _, hs, hist_leaves = _grow(bin_features(X, 255), T, w, max_leaf_nodes=leaves)
    grower = TreeGrower(X.astype(np.float32), max_leaf_nodes=leaves, max_targets=d)
    es = TreeStore(d)
    exact_leaves = grow_tree(grower, es, T, None, w)
    hn, en = hs.nodes, es.nodes
    assert len(hn) == len(en)
    np.testing.assert_array_equal(hn["feature"], en["feature"])
    np.testing.assert_array_equal(hn["n_node_samples"], en["n_node_samples"])
    np.testing.assert_array_equal(hist_leaves, exact_leaves)
    np.testing.assert_allclose(hs.value, es.value, rtol=1e-10, atol=1e-10)


def test_exact_bins_on_sparse_data_match_the_exact_grower():
    X, T, _ = _data(7, n=300, p=8, d=2, sparse_frac=0.6)
    _, hs, hl = _grow(bin_features(sparse.csc_matrix(X), None), T, max_leaf_nodes=6)
    es = TreeStore(2)
    el = grow_tree(TreeGrower(X.astype(np.float32), max_leaf_nodes=6, max_targets=2), es, T)
    np.testing.assert_array_equal(hs.nodes["feature"], es.nodes["feature"])
    np.testing.assert_array_equal(hl, el)


# ---------------------------------------------------------------- threads, routing, random splits

@pytest.mark.parametrize("sparse_frac", [0.0, 0.8])
@pytest.mark.parametrize("params", [dict(max_leaf_nodes=8), dict(max_leaf_nodes=0, max_features=3),
                                    dict(max_leaf_nodes=6, random_splits=True)])
def test_thread_counts_grow_identical_trees(sparse_frac, params):
    X, T, w = _data(5, n=1500, p=40, d=6, weighted=True, sparse_frac=sparse_frac)
    binned = bin_features(X, 64)
    stores = []
    for threads in (1, 2, 4):
        grower = HistGrower(binned, max_targets=6, n_threads=threads, **params)
        assert grower.n_threads == threads
        store = TreeStore(6)
        for seed in range(3):
            grow_tree(grower, store, T, None, w, seed=seed)
        stores.append(store)
    for store in stores[1:]:
        assert store.nodes.tobytes() == stores[0].nodes.tobytes()
        assert store.value.tobytes() == stores[0].value.tobytes()


@pytest.mark.parametrize("t, weighted", [(1, False), (1, True), (3, False)])
def test_one_thread_row_by_row_sparse_build_equals_the_feature_by_feature_build(t, weighted):
    # One thread builds the sparse features row by row (histogram.pyx,
    # _build_sparse_rows); threads build them feature by feature. Every bin
    # adds its samples in index order either way: the histograms and trees
    # must agree to the bit (binary features as in bibtex, and a wider one).
    rng = np.random.default_rng(11)
    X = (rng.uniform(size=(900, 30)) < 0.1).astype(float)
    X[:, 0] *= rng.integers(1, 5, size=900)
    T = rng.normal(size=(900, t)) + X[:, [0]]
    w = rng.uniform(0.2, 3.0, size=900) if weighted else np.ones(900)
    w[rng.uniform(size=900) < 0.3] = 0.0             # out of bag: not in the tree
    binned = bin_features(X, 16)
    assert np.all(binned.dense_column < 0)
    rows = np.flatnonzero(rng.uniform(size=900) < 0.4)
    hists, stores = [], []
    for threads in (1, 2):
        grower = HistGrower(binned, max_targets=t, n_threads=threads, max_leaf_nodes=8)
        hists.append(grower.node_histogram(T, w if weighted else None, samples=rows))
        store = TreeStore(t)
        for seed in range(2):
            grow_tree(grower, store, T, None, w, seed=seed)
        stores.append(store)
    assert hists[0].tobytes() == hists[1].tobytes()
    assert stores[0].nodes.tobytes() == stores[1].nodes.tobytes()
    assert stores[0].value.tobytes() == stores[1].value.tobytes()
    assert len(stores[0].nodes) > 4                  # the trees did split


def test_out_of_bag_samples_are_routed_by_their_bins():
    from engine.estimators.registry import make_estimator
    X, T, _ = _data(8, n=600, p=6, d=3, sparse_frac=0.5)
    model = make_estimator("gbmort", n_estimators=5, max_leaf_nodes=6, subsample=0.5,
                           split_search="hist", random_state=0).fit(X, T)
    # The loop's training loss comes from predictions that route each tree's
    # out-of-bag samples through the bins; rebuilt here through the thresholds.
    F = np.tile(model.init_, (len(X), 1))
    for m in range(model.n_steps_):
        F += model.learning_rate * model.rho_[m] * model.trees_.predict(X, m)
    losses = 0.5 * ((T - F) ** 2).sum(axis=1).mean()
    np.testing.assert_allclose(losses, model.train_score_[-1], rtol=1e-10)


def test_random_splits_use_bin_thresholds_and_the_seed():
    X, T, _ = _data(9, n=400, p=5, d=2)
    binned = bin_features(X, 32)
    all_thr = set(binned.thresholds.tolist())
    trees = []
    for seed in (0, 0, 1):
        _, store, _ = _grow(binned, T, seed=seed, max_leaf_nodes=10, random_splits=True)
        nodes = store.nodes
        assert set(nodes["threshold"][nodes["left_child"] != LEAF].tolist()) <= all_thr
        trees.append(nodes.tobytes())
    assert trees[0] == trees[1] and trees[0] != trees[2]


def test_fully_grown_trees_beyond_the_histogram_pool():
    # Many open nodes: frontier nodes may lose their histograms; the tree still
    # fits every distinct training row (pure leaves) as the exact grower does.
    X, T, _ = _data(11, n=500, p=3, d=1)
    _, store, leaves = _grow(bin_features(X, 255), T, max_leaf_nodes=0)
    np.testing.assert_allclose(store.value[leaves][:, 0], T[:, 0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse_frac", [0.0, 0.85])
@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("random_splits", [False, True])
def test_per_node_feature_builds_grow_the_full_build_tree(sparse_frac, d, random_splits):
    # With max_features < p a node builds only its drawn features' cells from its own
    # samples; the full build adds every feature and gets the larger child by subtraction.
    # On integer targets and weights every sum is exact, so the two must grow the same tree.
    X, _, _ = _data(5, n=400, p=12, sparse_frac=sparse_frac)
    rng = np.random.default_rng(6)
    T = rng.integers(-3, 4, size=(len(X), d)).astype(float) + np.round(2 * X[:, :d])
    w = rng.integers(0, 3, size=len(X)).astype(float)
    binned = bin_features(sparse.csc_matrix(X) if sparse_frac else X, 32)
    trees = []
    for per_node in (True, False):
        grower = HistGrower(binned, max_targets=d, max_features=4, random_splits=random_splits,
                            max_leaf_nodes=40)
        assert grower.per_node_features
        grower.per_node_features = per_node
        store = TreeStore(d)
        leaves = grow_tree(grower, store, T, None, w, seed=3)
        trees.append((store.nodes, np.asarray(store.value), leaves))
    (n1, v1, l1), (n2, v2, l2) = trees
    assert len(n1) > 20
    np.testing.assert_array_equal(n1["feature"], n2["feature"])
    np.testing.assert_array_equal(n1["threshold"], n2["threshold"])
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(l1, l2)


def test_per_node_feature_builds_only_when_features_are_drawn():
    X, _, _ = _data(0, n=100, p=6)
    binned = bin_features(X, 16)
    assert HistGrower(binned, max_features=3).per_node_features
    assert not HistGrower(binned).per_node_features
    assert not HistGrower(binned, max_features=6).per_node_features
