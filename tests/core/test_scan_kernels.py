"""The AVX2 and the portable multi-output split-scan kernels (engine/_core/scan_kernels.h).

Both must find the brute-force best split, for output counts that exercise
every block width (1-4 lanes, 1-4 vectors, several blocks of 16) and the
row tail (node sizes not a multiple of 4), with and without weights.
The single-target unit-weight scan (two features per pass) must too, and
keep giving ties to the lower feature.
"""
import numpy as np
import pytest

from engine._core.grower import TreeGrower, grow_tree, set_simd
from engine._core.tree_store import TreeStore
from oracles.split_search import brute_force_best_split


@pytest.fixture(params=[True, False], ids=["simd", "portable"])
def kernel(request):
    active = set_simd(request.param)
    if request.param and not active:
        pytest.skip("this CPU has no AVX2/FMA: only the portable kernel exists here")
    yield active
    set_simd(True)


def _stump(X, T, w, min_samples_leaf):
    grower = TreeGrower(X, max_targets=T.shape[1], max_leaf_nodes=2,
                        min_samples_leaf=min_samples_leaf)
    store = TreeStore(T.shape[1])
    grow_tree(grower, store, T, sample_weight=w)
    return store.tree_nodes(0)


@pytest.mark.parametrize("d", [2, 3, 5, 8, 13, 16, 17, 38])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n, min_samples_leaf", [(61, 1), (62, 5), (9, 2)])
def test_stump_matches_brute_force(kernel, d, weighted, n, min_samples_leaf):
    rng = np.random.default_rng(d * 100 + n)
    X = rng.uniform(size=(n, 3)).astype(np.float32)
    T = rng.normal(size=(n, d)) + 2.0 * X[:, [d % 3]] + 50.0
    w = rng.uniform(0.2, 3.0, size=n) if weighted else None
    ref = brute_force_best_split(X, T, w, min_samples_leaf=min_samples_leaf)
    nodes, _ = _stump(X, T, w, min_samples_leaf)
    assert ref["n_ties"] == 1
    assert nodes["feature"][0] == ref["feature"]
    assert nodes["threshold"][0] == pytest.approx(ref["threshold"], abs=1e-7)
    assert nodes["n_node_samples"][1] == ref["n_left"]
    W = n if w is None else w.sum()
    np.testing.assert_allclose(nodes["improvement"][0], ref["improvement"],
                               rtol=1e-9, atol=1e-9 * ref["impurity"] * W)


def test_kernels_grow_the_same_trees():
    """Deeper trees on 174 outputs (blocks of 16 plus a tail): same splits either way."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 6)).astype(np.float32)
    T = rng.normal(size=(200, 174)) + np.sin(6 * X[:, :1])
    w = rng.integers(0, 3, size=200).astype(float)
    trees = []
    for enabled in (True, False):
        set_simd(enabled)
        grower = TreeGrower(X, max_targets=174, max_leaf_nodes=12, min_samples_leaf=3)
        store = TreeStore(174)
        grow_tree(grower, store, T, sample_weight=w)
        trees.append(store.tree_nodes(0))
    set_simd(True)
    (a, va), (b, vb) = trees
    np.testing.assert_array_equal(a["feature"], b["feature"])
    np.testing.assert_array_equal(a["threshold"], b["threshold"])
    np.testing.assert_allclose(a["improvement"], b["improvement"], rtol=1e-12)
    np.testing.assert_allclose(va, vb, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("p", [1, 2, 5])
@pytest.mark.parametrize("n, min_samples_leaf", [(61, 1), (62, 5), (9, 2), (11, 3)])
def test_single_target_pairs_match_brute_force(kernel, p, n, min_samples_leaf):
    """Unit weights, one target: features are scanned two at a time (and an odd
    one alone); every feature count and node size must give the brute-force split."""
    rng = np.random.default_rng(p * 1000 + n)
    X = rng.uniform(size=(n, p)).astype(np.float32)
    T = rng.normal(size=(n, 1)) + 3.0 * X[:, [p - 1]] + 100.0
    ref = brute_force_best_split(X, T, None, min_samples_leaf=min_samples_leaf)
    nodes, _ = _stump(X, T, None, min_samples_leaf)
    if ref is None:
        assert nodes.shape[0] == 1
        return
    assert ref["n_ties"] == 1
    assert nodes["feature"][0] == ref["feature"]
    assert nodes["threshold"][0] == pytest.approx(ref["threshold"], abs=1e-7)
    assert nodes["n_node_samples"][1] == ref["n_left"]
    np.testing.assert_allclose(nodes["improvement"][0], ref["improvement"],
                               rtol=1e-9, atol=1e-9 * ref["impurity"] * n)


@pytest.mark.parametrize("copy_of", [0, 1, 2])
def test_single_target_tie_between_paired_features_goes_to_the_lower_one(kernel, copy_of):
    """A feature duplicated in the same pair, the next pair, or a lone last
    feature: the tie goes to the lower index, as with one feature at a time."""
    rng = np.random.default_rng(copy_of)
    base = rng.uniform(size=(40, 4)).astype(np.float32)
    X = np.column_stack([base, base[:, copy_of]])  # feature 4 (alone) copies copy_of
    if copy_of == 0:
        X[:, 1] = X[:, 0]                            # and feature 1 copies 0 in its pair
    T = (X[:, [copy_of]] > 0.5) + 0.01 * rng.normal(size=(40, 1))
    nodes, _ = _stump(X, T, None, 1)
    ref = brute_force_best_split(X, T, None)
    assert nodes["feature"][0] == ref["feature"] == copy_of
    assert nodes["threshold"][0] == pytest.approx(ref["threshold"], abs=1e-7)
