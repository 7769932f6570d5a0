"""Feature binning (engine._core.binning) against direct numpy computations.

Thresholds route every training value as its bin does; at most max_bins
bins; every distinct value its own bin when there are few; quantile bins
about balanced; the value 0 has its zero bin; and a sparse X bins exactly as
the dense X with the same numbers (explicit zeros, all-zero columns,
negative values), which is what makes sparse and dense fits identical.
"""
import numpy as np
import pytest
from scipy import sparse

from engine._core import bin_features
from engine._core.binning import FEATURE_THRESHOLD, SPARSE_FRACTION, feature_codes, feature_thresholds
from oracles.binned_split_search import reference_codes


def _sparse_data(seed, n=400, p=12, density=0.1):
    rng = np.random.default_rng(seed)
    X = sparse.random(n, p, density=density, random_state=seed, format="csr",
                      data_rvs=lambda k: np.round(rng.normal(size=k), 2)).toarray()
    X[:, 3] = 0.0                                      # an all-zero column
    X[:, 4] = rng.normal(size=n)                       # a dense column
    X[:5, 5] = [-1.0, -2.0, 3.0, 0.5, 0.5]
    return X


@pytest.mark.parametrize("max_bins", [2, 7, 64, 255])
def test_thresholds_route_values_as_their_bins(max_bins):
    rng = np.random.default_rng(max_bins)
    X = np.column_stack([rng.normal(size=1000), rng.integers(0, 5, size=1000), rng.exponential(size=1000)])
    b = bin_features(X, max_bins)
    for f in range(X.shape[1]):
        thr = b.feature_thresholds(f)
        assert len(thr) + 1 == b.n_bins[f] <= max_bins
        assert np.all(np.diff(thr) > 0)
        codes = b.dense_codes_of(f)
        np.testing.assert_array_equal(codes, reference_codes(X[:, f], thr))
        x32 = X[:, f].astype(np.float32).astype(np.float64)
        # a threshold separates values: x <= thr[code] and x > thr[code - 1]
        assert np.all((codes == len(thr)) | (x32 <= thr[np.minimum(codes, len(thr) - 1)]))
        assert np.all((codes == 0) | (x32 > thr[np.maximum(codes - 1, 0)]))


def test_few_distinct_values_get_one_bin_each_with_exact_midpoints():
    x = np.array([3.0, 1.0, 1.0, 2.5, 7.0, 3.0])
    b = bin_features(x[:, None], 255)
    v = np.unique(x.astype(np.float32)).astype(np.float64)
    np.testing.assert_array_equal(b.feature_thresholds(0), v[:-1] / 2 + v[1:] / 2)
    exact = bin_features(x[:, None], None)
    np.testing.assert_array_equal(exact.feature_thresholds(0), b.feature_thresholds(0))


def test_values_closer_than_the_feature_threshold_share_a_bin():
    x = np.array([1.0, 1.0 + 0.5 * FEATURE_THRESHOLD, 2.0], dtype=np.float64)
    thr = feature_thresholds(np.sort(x.astype(np.float32)), 0, 255)
    assert len(thr) == 1


def test_quantile_bins_are_about_balanced():
    x = np.random.default_rng(0).normal(size=20000)
    b = bin_features(x[:, None], 32)
    counts = np.bincount(b.dense_codes_of(0), minlength=32)
    assert b.n_bins[0] == 32
    assert counts.max() <= 2 * len(x) / 32 and counts.min() >= 0.5 * len(x) / 32


def test_a_frequent_value_gets_its_own_bin_without_starving_the_others():
    rng = np.random.default_rng(1)
    x = np.where(rng.uniform(size=10000) < 0.9, 0.0, rng.normal(size=10000))
    b = bin_features(x[:, None], 16)
    codes = b.dense_codes_of(0)
    z = b.zero_bin[0]
    assert np.all(x[codes == z] == 0) and np.all(codes[x == 0] == z)
    assert b.n_bins[0] >= 12


@pytest.mark.parametrize("max_bins", [4, 255, None])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_and_dense_inputs_bin_identically(max_bins, fmt):
    X = _sparse_data(0)
    S = sparse.csr_matrix(X) if fmt == "csr" else sparse.csc_matrix(X)
    explicit = sparse.csc_matrix(X)
    explicit.data[::7] = 0.0            # explicit zeros stored in the matrix
    Xe = explicit.toarray()
    assert explicit.nnz == S.nnz and np.count_nonzero(explicit.data) < explicit.nnz
    for dense, sp in ((X, S), (Xe, explicit.asformat(fmt))):
        a, b = bin_features(dense, max_bins), bin_features(sp, max_bins)
        for name in ("thresholds", "threshold_start", "bin_start", "zero_bin", "dense_column",
                     "codes", "sparse_start", "sparse_rows", "sparse_codes"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_zero_bin_and_sparse_storage():
    X = _sparse_data(2)
    b = bin_features(X, 255)
    n = X.shape[0]
    for f in range(X.shape[1]):
        thr = b.feature_thresholds(f)
        assert b.zero_bin[f] == np.searchsorted(thr, 0.0)
        codes = b.dense_codes_of(f)
        np.testing.assert_array_equal(codes, reference_codes(X[:, f], thr))
        outside = np.count_nonzero(codes != b.zero_bin[f])
        assert (b.dense_column[f] >= 0) == (outside > SPARSE_FRACTION * n)
        if b.dense_column[f] < 0:
            a, c = b.sparse_start[f], b.sparse_start[f + 1]
            np.testing.assert_array_equal(b.sparse_rows[a:c], np.flatnonzero(codes != b.zero_bin[f]))
    assert b.n_bins[3] == 1 and b.dense_column[3] < 0          # the all-zero column
    assert b.dense_column[4] >= 0                              # the dense column
    # exact bins store every feature sparsely, codes beyond 255 allowed
    e = bin_features(np.random.default_rng(0).normal(size=(600, 2)), None)
    assert np.all(e.dense_column < 0) and e.n_bins.max() == 600


def test_zero_weight_rows_do_not_shape_the_bins():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    w = np.where(rng.uniform(size=300) < 0.3, 0.0, 1.0)
    a = bin_features(X, 16, sample_weight=w)
    b = bin_features(X[w > 0], 16)
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.dense_codes_of(0)[w > 0], b.dense_codes_of(0))


def test_codes_and_threads():
    rng = np.random.default_rng(4)
    x = rng.normal(size=5000).astype(np.float32)
    for m in (1, 2, 3, 17, 254):
        thr = np.sort(rng.normal(size=m))
        np.testing.assert_array_equal(feature_codes(x, thr), np.searchsorted(thr, x.astype(np.float64)))
    X = rng.normal(size=(2000, 9))
    a, b = bin_features(X, 32, n_threads=1), bin_features(X, 32, n_threads=3)
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(a.thresholds, b.thresholds)


def test_bad_max_bins():
    with pytest.raises(ValueError, match="max_bins"):
        bin_features(np.zeros((3, 1)), 256)
