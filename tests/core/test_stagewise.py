"""The compiled pieces of thesis chapter 7 against brute force and scikit-learn.

* ``TreeStore.decision_path`` against a Python walk of the node array;
* ``ForwardStagewise`` against a dense numpy forward stagewise loop
  (oracles.stagewise), for one output and the group step of several;
* on orthogonal standardised indicators the monotone and the plain Lasso coincide:
  the forward stagewise path against scikit-learn's ``lasso_path`` there;
* on a forest's nested indicators they do not: ``lasso_path`` shrinks coefficients
  along the path, forward stagewise never moves one against its sign (why the
  engine uses it, engine.estimators.compression).
"""
import numpy as np
import pytest
from scipy import sparse
from sklearn.linear_model import lasso_path

from engine import ProjectedForestRegressor
from engine._core import ForwardStagewise, TreeGrower, TreeStore, grow_tree
from engine.estimators.indicators import forest_stores, node_indicators
from oracles.stagewise import brute_force_paths, forward_stagewise_dense, standardise


def _fs(Z, Y, step):
    Z = sparse.csr_matrix(Z)
    Zc = Z.tocsc()
    return ForwardStagewise(Z.indptr, Z.indices, Zc.indptr, Zc.indices, Y, step)


# ---------------------------------------------------------------- decision_path

def test_decision_path_matches_a_walk_of_the_nodes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)).astype(np.float32)
    store = TreeStore(1)
    grower = TreeGrower(np.asfortranarray(X), max_targets=1, max_leaf_nodes=0, max_depth=0,
                        min_samples_leaf=2, max_features=3, min_samples_split=2, random_splits=False)
    for seed in range(3):         # three trees in one store
        grow_tree(grower, store, rng.normal(size=60) + X[:, 0], seed=seed)
    X_new = rng.normal(size=(40, 3)).astype(np.float32)
    indptr, indices = store.decision_path(X_new)
    ref = brute_force_paths(store, X_new)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    for i, path in enumerate(ref):
        assert indices[indptr[i]:indptr[i + 1]].tolist() == path
    # the last node of each tree's path is the leaf apply() returns
    leaves = store.apply(X_new)
    assert [p[-1] for p in ref] == leaves[:, -1].tolist()


def test_decision_path_of_no_samples_and_of_a_strided_view():
    forest = ProjectedForestRegressor(n_estimators=2, random_state=0).fit(np.arange(20.0).reshape(10, 2),
                                                                          np.arange(10.0))
    store = forest.estimators_[0]
    indptr, indices = store.decision_path(np.zeros((0, 2)))
    assert indptr.tolist() == [0] and indices.size == 0
    X = np.arange(40.0, dtype=np.float32).reshape(10, 4)[:, ::2]      # non-contiguous
    indptr, indices = store.decision_path(X)
    assert [indices[indptr[i]:indptr[i + 1]].tolist() for i in range(10)] == brute_force_paths(store, X)
    with pytest.raises(ValueError, match="2-D"):
        store.decision_path(np.zeros(3))


# ---------------------------------------------------------------- forward stagewise

def _indicators(seed, n=40, q=30):
    """Random 0/1 columns, with a constant-one and an all-zero column among them."""
    rng = np.random.default_rng(seed)
    Z = (rng.random((n, q)) < rng.uniform(0.05, 0.7, size=q)).astype(float)
    Z[:, 3] = 1.0
    Z[:, 7] = 0.0
    return Z


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("seed", range(3))
def test_forward_stagewise_matches_the_dense_oracle(seed, d):
    Z = _indicators(seed)
    rng = np.random.default_rng(seed + 10)
    Y = Z[:, :5] @ rng.normal(size=(5, d)) + 0.3 * rng.normal(size=(len(Z), d))
    fs = _fs(Z, Y, 0.02)
    columns, deltas = fs.run(50)
    more_columns, more_deltas = fs.run(10_000)          # resumes where it stopped
    columns = np.concatenate([columns, more_columns])
    deltas = np.vstack([deltas, more_deltas])
    ref_cols, ref_deltas, ref_R, converged = forward_stagewise_dense(Z, Y, 0.02, 10_000)
    assert converged and fs.converged
    np.testing.assert_array_equal(columns, ref_cols)
    np.testing.assert_allclose(deltas, ref_deltas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fs.residual, ref_R, atol=1e-9)
    assert 3 not in columns and 7 not in columns          # constant columns are the intercept
    # every step has length eps (the group step: Euclidean length)
    np.testing.assert_allclose(np.linalg.norm(deltas, axis=1), 0.02, rtol=1e-12)
    # converged: no correlation larger than eps / 2, so no step lowers the training error
    assert np.sqrt((fs.correlations ** 2).sum(axis=1)).max() <= 0.01 + 1e-12
    assert fs.run(5)[0].size == 0


def test_one_output_step_is_eps_times_the_sign_of_the_correlation():
    """d = 1: the group step is eq. 7.2's forward stagewise step, delta = eps * sign(c_j)."""
    Z = _indicators(5)
    y = Z[:, 0] - 2 * Z[:, 1] + 0.1 * np.random.default_rng(0).normal(size=len(Z))
    fs = _fs(Z, y[:, None], 0.05)
    cols, deltas = fs.run(40)
    assert set(np.round(np.abs(deltas[:, 0]), 12)) == {0.05}
    Zs, _ = standardise(Z)
    r = y - y.mean()
    for j, delta in zip(cols, deltas[:, 0]):     # the sign of the correlation at that step
        assert np.sign(Zs[:, j] @ r) == np.sign(delta)
        r = r - delta * Zs[:, j]


def test_forward_stagewise_checks_its_arguments():
    Z = sparse.csr_matrix(_indicators(0))
    Zc = Z.tocsc()
    with pytest.raises(ValueError, match="step"):
        ForwardStagewise(Z.indptr, Z.indices, Zc.indptr, Zc.indices, np.zeros((40, 1)), 0.0)
    with pytest.raises(ValueError, match="row_ptr"):
        ForwardStagewise(Z.indptr, Z.indices, Zc.indptr, Zc.indices, np.zeros((39, 1)), 0.1)
    with pytest.raises(ValueError, match="max_steps"):
        ForwardStagewise(Z.indptr, Z.indices, Zc.indptr, Zc.indices, np.zeros((40, 1)), 0.1).run(-1)


# ---------------------------------------------------------------- against the Lasso

def _orthogonal_indicators(repeats=8):
    """Indicators of the three bits of i mod 8 (a balanced design): orthogonal once centred."""
    i = np.arange(8 * repeats) % 8
    return np.column_stack([(i >> b) & 1 for b in range(3)]).astype(float)


def test_forward_stagewise_equals_lasso_path_on_orthogonal_indicators():
    """Orthogonal standardised columns: the Lasso path is monotone, so monotone Lasso = Lasso."""
    Z = _orthogonal_indicators()
    rng = np.random.default_rng(1)
    y = Z @ np.array([2.0, -1.0, 0.5]) + 0.5 * rng.normal(size=len(Z))
    y = (y - y.mean()) / y.std()
    Zs, _ = standardise(Z)
    np.testing.assert_allclose(Zs.T @ Zs / len(Z), np.eye(3), atol=1e-12)
    alphas, coefs, _ = lasso_path(Zs, y, alphas=30, eps=1e-3)
    eps = 1e-3
    fs = _fs(Z, y[:, None], eps)
    cols, deltas = fs.run(100_000)
    beta_steps = np.zeros((len(cols) + 1, 3))
    for s, (j, delta) in enumerate(zip(cols, deltas[:, 0])):
        beta_steps[s + 1] = beta_steps[s]
        beta_steps[s + 1, j] += delta
    for k in range(len(alphas)):
        t = np.abs(coefs[:, k]).sum()                     # the Lasso's l1 norm at this penalty
        s = min(int(round(t / eps)), len(cols))
        np.testing.assert_allclose(beta_steps[s], coefs[:, k], atol=3 * eps)


def test_lasso_path_is_not_monotone_on_a_forests_indicators_but_stagewise_is():
    """Nested node indicators are correlated: the plain Lasso shrinks and drops coefficients."""
    rng = np.random.default_rng(0)
    X = rng.random((120, 5))
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + rng.normal(size=120)
    forest = ProjectedForestRegressor(n_estimators=3, splitter="random", bootstrap=False, random_state=0).fit(X, y)
    Z = node_indicators(forest_stores(forest), X)
    ys = (y - y.mean()) / y.std()
    Zs, varying = standardise(Z.toarray())
    _, coefs, _ = lasso_path(Zs[:, varying], ys, alphas=40, eps=1e-2)
    shrinking = (np.diff(np.abs(coefs), axis=1) < -1e-9).any(axis=1).sum()
    fs = _fs(Z, ys[:, None], 0.01)
    cols, deltas = fs.run(100_000)
    beta = np.zeros(Z.shape[1])
    against = set()
    for j, delta in zip(cols, deltas[:, 0]):
        if beta[j] * delta < 0:
            against.add(j)
        beta[j] += delta
    # FS_eps is monotone only as eps -> 0: a rare step back at eps = 0.01, against many for the Lasso
    assert len(against) <= 2 < 5 * max(len(against), 1) <= shrinking
