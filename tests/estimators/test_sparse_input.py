"""Sparse X, split_search, max_bins and n_jobs at the estimators.

* a model fitted on a CSR or CSC X is bit-identical to the one fitted on the
  same dense X, in exact and histogram mode (explicit zeros, all-zero
  columns), for every boosting strategy and the forests, and predicts the
  same on sparse and dense test rows;
* 1, 2 and 4 threads give identical models;
* a sparse fit does not densify X (peak memory far below n x p);
* "auto" is exact below growers.AUTO_HIST_MIN_SAMPLES samples, hist above;
* bad input raises ValueError naming the argument.
"""
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy import sparse

from engine.estimators import growers
from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.estimators.per_output_forest import PerOutputForestRegressor
from engine.estimators.registry import make_estimator
from paper_settings import PaperClassifier, PaperRegressor

BOOSTING = ("st-gbrt", "gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-subsampled")


def _sparse_problem(seed=0, n=240, p=30, d=3, density=0.08):
    rng = np.random.default_rng(seed)
    X = sparse.random(n, p, density=density, random_state=seed, format="csr",
                      data_rvs=lambda k: rng.normal(size=k)).toarray()
    X[:, 5] = 0.0                                   # an all-zero column
    X[:, 6] = np.round(rng.normal(size=n), 1)       # a dense column
    Y = (X[:, :4] @ rng.normal(size=(4, d)) + (X[:, 6:7] > 0) + 0.1 * rng.normal(size=(n, d)))
    S = sparse.csr_matrix(X)
    S.data[::9] = 0.0                               # explicit zeros (still stored)
    X = S.toarray()
    return X, S, Y


def _same_model(a, b):
    stores_a = a.estimators_ if hasattr(a, "estimators_") else [a.trees_]
    stores_b = b.estimators_ if hasattr(b, "estimators_") else [b.trees_]
    assert len(stores_a) == len(stores_b)
    for sa, sb in zip(stores_a, stores_b):
        assert sa.nodes.tobytes() == sb.nodes.tobytes()
        assert sa.value.tobytes() == sb.value.tobytes()
    if hasattr(a, "rho_"):
        assert a.rho_.tobytes() == b.rho_.tobytes()


@pytest.mark.parametrize("name", BOOSTING)
@pytest.mark.parametrize("split_search", ["exact", "hist"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_boosting_on_sparse_x_is_bit_identical_to_dense(name, split_search, fmt):
    X, S, Y = _sparse_problem()
    params = dict(n_estimators=6, max_leaf_nodes=5, split_search=split_search, max_bins=16,
                  n_projections=2 if "relabel" in name else 1, random_state=0)
    dense = make_estimator(name, **params).fit(X, Y)
    sp = make_estimator(name, **params).fit(S.asformat(fmt), Y)
    _same_model(dense, sp)
    for rows in (X[:50], S[:50], sparse.csc_matrix(S[:50])):
        np.testing.assert_array_equal(sp.predict(rows), dense.predict(X[:50]))
    staged = list(sp.staged_predict(S[:20]))
    np.testing.assert_array_equal(staged[-1], dense.predict(X[:20]))


@pytest.mark.parametrize("split_search", ["exact", "hist"])
def test_boosting_subsample_weights_and_eval_set_on_sparse_x(split_search):
    X, S, Y = _sparse_problem(1)
    w = np.random.default_rng(0).uniform(0, 2, size=len(X))
    w[:10] = 0.0
    params = dict(n_estimators=5, max_leaf_nodes=4, subsample=0.7, split_search=split_search,
                  random_state=0)
    dense = PaperRegressor(**params).fit(X, Y, sample_weight=w, eval_set=(X, Y))
    sp = PaperRegressor(**params).fit(S, Y, sample_weight=w, eval_set=(S, Y))
    _same_model(dense, sp)
    np.testing.assert_array_equal(dense.eval_score_, sp.eval_score_)
    L = (Y > np.median(Y, axis=0)).astype(float)
    a = PaperClassifier(n_estimators=4, split_search=split_search).fit(X, L)
    b = PaperClassifier(n_estimators=4, split_search=split_search).fit(S.tocsc(), L)
    _same_model(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(S))


@pytest.mark.parametrize("split_search", ["exact", "hist"])
@pytest.mark.parametrize("make", [
    lambda ss: ProjectedForestRegressor(n_estimators=4, max_features=0.5, split_search=ss, random_state=0),
    lambda ss: ProjectedForestRegressor(n_estimators=3, splitter="random", bootstrap=False,
                                        projection="gaussian", n_components=2, split_search=ss,
                                        random_state=1),
    lambda ss: PerOutputForestRegressor(n_estimators=2, split_search=ss, max_bins=8, random_state=0),
])
def test_forests_on_sparse_x_are_bit_identical_to_dense(split_search, make):
    X, S, Y = _sparse_problem(2)
    dense = make(split_search).fit(X, Y)
    sp = make(split_search).fit(S, Y)
    _same_model(dense, sp)
    np.testing.assert_array_equal(sp.predict(S), dense.predict(X))
    clf_d = ProjectedForestClassifier(n_estimators=3, split_search=split_search, random_state=0)
    clf_s = ProjectedForestClassifier(n_estimators=3, split_search=split_search, random_state=0)
    L = (Y > 0).astype(int)
    np.testing.assert_array_equal(clf_d.fit(X, L).predict_proba(X), clf_s.fit(S, L).predict_proba(S))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gbmort", "gbrt-rpo-subsampled", "gbrt-relabel-rpo-gaussian"])
@pytest.mark.parametrize("sparse_input", [False, True])
def test_thread_counts_give_identical_models(name, sparse_input):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 40))
    if sparse_input:
        X[rng.uniform(size=X.shape) < 0.85] = 0.0
    Y = X[:, :3] @ rng.normal(size=(3, 6)) + rng.normal(size=(3000, 6))
    Xin = sparse.csr_matrix(X) if sparse_input else X
    models = [make_estimator(name, n_estimators=4, max_leaf_nodes=8, split_search="hist",
                             n_projections=3 if "relabel" in name else 1, n_jobs=k,
                             random_state=0).fit(Xin, Y)
              for k in (1, 2, 4)]
    for m in models[1:]:
        _same_model(models[0], m)
    forests = [ProjectedForestRegressor(n_estimators=4, max_depth=6, split_search="hist", n_jobs=k,
                                        random_state=0).fit(Xin, Y) for k in (1, 2, 4)]
    for f in forests[1:]:
        _same_model(forests[0], f)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["st-gbrt", "gbmort", "gbrt-rpo-subsampled", "gbrt-relabel-rpo-gaussian"])
def test_row_block_loops_give_the_same_model_for_any_thread_count(name):
    # 20 000 rows are five row blocks (engine/_core/row_blocks.pxd): the boosting update, eq. 23,
    # the projection G phi^T and the root's statistics and partition run block by block in
    # threads, the leaves' label sums one leaf per thread, and the blocks' sums are added in
    # block order, so 1, 2 and 4 threads grow byte-identical models.
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(20_000, 6))
    Y = np.sin(3 * X[:, :1]) + X[:, 1:4] + 0.1 * rng.normal(size=(20_000, 3))
    models = [make_estimator(name, n_estimators=3, max_leaf_nodes=4, split_search="hist",
                             n_projections=2 if "relabel" in name else 1, n_jobs=k,
                             random_state=0).fit(X, Y)
              for k in (1, 2, 4)]
    for m in models[1:]:
        _same_model(models[0], m)
        assert m.train_score_.tobytes() == models[0].train_score_.tobytes()
    # and the blocked sums are the serial sums up to rounding
    F = models[0].predict(X)
    assert np.isclose(models[0].train_score_[-1], 0.5 * ((Y - F) ** 2).sum(axis=1).mean(), rtol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("split_search", ["exact", "hist"])
def test_a_sparse_fit_does_not_densify_x(split_search):
    # 20000 x 5000: dense float32 would take 400 MB; the matrix holds 40000 values.
    n, p = 20000, 5000
    rng = np.random.default_rng(4)
    rows, cols = rng.integers(0, n, size=40000), rng.integers(0, p, size=40000)
    S = sparse.csr_matrix((rng.normal(size=40000), (rows, cols)), shape=(n, p))
    Y = np.asarray(S[:, :3].sum(axis=1)) + rng.normal(size=(n, 1))
    model = PaperRegressor(n_estimators=2, max_leaf_nodes=4, split_search=split_search)
    tracemalloc.start()
    try:
        model.fit(S, Y)
        model.predict(S)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 60e6, f"peak {peak / 1e6:.0f} MB"
    assert model.trees_.n_trees == 2


def test_auto_is_exact_below_the_threshold_and_hist_above(monkeypatch):
    X, S, Y = _sparse_problem(5, n=300, density=0.5)
    auto = PaperRegressor(n_estimators=5, max_leaf_nodes=4).fit(X, Y)
    exact = PaperRegressor(n_estimators=5, max_leaf_nodes=4, split_search="exact").fit(X, Y)
    hist = PaperRegressor(n_estimators=5, max_leaf_nodes=4, split_search="hist",
                          max_bins=4).fit(X, Y)
    _same_model(auto, exact)
    assert auto.trees_.nodes.tobytes() != hist.trees_.nodes.tobytes()
    monkeypatch.setattr(growers, "AUTO_HIST_MIN_SAMPLES", 100)
    auto = PaperRegressor(n_estimators=5, max_leaf_nodes=4, max_bins=4).fit(X, Y)
    _same_model(auto, hist)
    assert growers.resolved_split_search("auto", 99) == "exact"
    assert growers.resolved_split_search("auto", 100) == "hist"


def test_n_jobs_without_openmp_warns_once_and_runs_on_one_thread(monkeypatch):
    monkeypatch.setattr(growers, "OPENMP", False)
    monkeypatch.setattr(growers, "_warned_no_openmp", False)
    with pytest.warns(RuntimeWarning, match="without OpenMP"):
        assert growers.n_threads_of(2) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert growers.n_threads_of(4) == 1
        assert growers.n_threads_of(None) == 1
    monkeypatch.setattr(growers, "OPENMP", True)
    assert growers.n_threads_of(3) == 3
    assert growers.n_threads_of(-1) == growers.openmp_max_threads()


# ---------------------------------------------------------------- bad input

ESTIMATORS = [
    lambda **k: PaperRegressor(n_estimators=2, **k),
    lambda **k: PaperClassifier(n_estimators=2, **k),
    lambda **k: ProjectedForestRegressor(n_estimators=2, **k),
    lambda **k: PerOutputForestRegressor(n_estimators=2, **k),
]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_bad_sparse_input(make):
    X, S, Y = _sparse_problem(6, n=60, p=8)
    Y = (Y > 0).astype(float)
    for bad_value in (np.nan, np.inf, -np.inf):
        B = S.copy()
        B.data[0] = bad_value
        with pytest.raises(ValueError, match="^X contains NaN or infinity"):
            make().fit(B, Y)
    for fmt in ("coo", "dok", "lil"):
        with pytest.raises(ValueError, match="X is a sparse matrix in .* format.*CSR or CSC"):
            make().fit(S.asformat(fmt), Y)
    model = make().fit(S, Y)
    with pytest.raises(ValueError, match="X has 9 features"):
        model.predict(sparse.hstack([S, S[:, :1]]).tocsr())
    with pytest.raises(ValueError, match="X has 7 features"):
        model.predict(S[:, :7])
    with pytest.raises(ValueError, match="X is a sparse matrix in COO"):
        model.predict(S.tocoo())
    B = S.copy()
    B.data[1] = np.nan
    with pytest.raises(ValueError, match="^X contains NaN"):
        model.predict(B)


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("name, value", [
    ("max_bins", 1), ("max_bins", 256), ("max_bins", 2.5), ("max_bins", "255"), ("max_bins", None),
    ("split_search", "fast"), ("split_search", None), ("split_search", ["hist"]),
    ("n_jobs", 0), ("n_jobs", 1.5), ("n_jobs", "2"),
])
def test_bad_split_parameters_are_named(make, name, value):
    X, S, Y = _sparse_problem(7, n=40, p=8)
    Y = (Y > 0).astype(float)
    with pytest.raises(ValueError, match=name):
        make(**{name: value}).fit(X, Y)


@pytest.mark.slow
def test_compressed_forest_on_sparse_x_equals_dense():
    from engine.estimators.compression import CompressedForestRegressor
    X, S, Y = _sparse_problem(8, n=120, p=12)
    params = dict(forest=ProjectedForestRegressor(n_estimators=4, random_state=0), random_state=0)
    dense = CompressedForestRegressor(**params).fit(X, Y)
    sp = CompressedForestRegressor(**params).fit(S.tocsc(), Y)
    np.testing.assert_array_equal(sp.predict(S), dense.predict(X))
