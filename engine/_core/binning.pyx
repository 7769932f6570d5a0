"""Feature binning for the histogram split search: quantile bin edges, small integer codes.

Every feature is binned once per fit. Its distinct values (float32, as the
trees store features) are grouped: a value closer than 1e-7 to its
predecessor joins the predecessor's group (the exact splitter never separates
such values either). With at most ``max_bins`` groups every group is a bin,
so the candidate thresholds are exactly the exact search's; with more, groups
are merged into at most ``max_bins`` bins of about equal sample counts by a
greedy pass (a bin is closed once it holds its share of the samples not yet
binned, or before a group that would overshoot that share by more than the
bin falls short of it, so one very frequent value, such as the zeros of a
sparse column, gets a bin of its own without starving the others). ``max_bins=None`` keeps
every group: the exact search written as a histogram (used for sparse
inputs in exact mode).

The threshold between bins b and b + 1 is the midpoint of the largest value of
bin b and the smallest of bin b + 1 (scikit-learn's rule, in float64), so
``x <= threshold`` routes every training value exactly as its bin does, and a
fitted tree predicts from the raw features with the usual traversal. A value's
code is the number of thresholds below it.

Storage, chosen from the values only (never from the input format, so a dense
X and a sparse X holding the same numbers give the same binned data and hence
the same model):

* the *zero bin* of a feature is the bin of the value 0;
* a feature with more than ``sparse_fraction * n`` samples outside its zero
  bin is stored densely, one uint8 code per sample (hist mode only);
* any other feature keeps only the samples outside its zero bin, as
  (row, code) pairs sorted by row: its zero bin is implicit, and its
  histogram gets the zero bin's sums by subtracting the others from the
  node's totals. Memory grows with the non-zeros, not with n x p.
"""
import numpy as np
from concurrent.futures import ThreadPoolExecutor
from scipy import sparse

from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t
from libc.math cimport INFINITY

FEATURE_THRESHOLD = 1e-7
cdef float64_t _FEATURE_THRESHOLD = FEATURE_THRESHOLD
# A feature is stored densely (hist mode) when more than this fraction of the
# samples lie outside its zero bin: a dense code costs n bytes, a sparse entry
# 8 bytes, and a sparse feature's histogram costs its entries at every node.
SPARSE_FRACTION = 0.25
MAX_BINS_LIMIT = 255


cdef inline float64_t _midpoint(float64_t lo, float64_t hi) noexcept nogil:
    """Threshold between two consecutive sorted values (scikit-learn's rule)."""
    cdef float64_t threshold = lo / 2.0 + hi / 2.0
    if threshold == hi or threshold == INFINITY or threshold == -INFINITY:
        threshold = lo
    return threshold


cdef void _group(const float32_t[::1] sorted_values, intp_t n_zeros, float64_t* lo,
                 float64_t* hi, intp_t* count, intp_t* n_groups) noexcept nogil:
    """Groups of sorted values (a value within 1e-7 of its predecessor joins its group).

    The n_zeros implicit zeros are inserted before the first value >= 0.
    """
    cdef intp_t m = sorted_values.shape[0], k = 0, g = 0, g_count
    cdef float64_t v, prev = 0.0
    cdef bint zeros_placed = n_zeros == 0
    while k < m or not zeros_placed:
        if not zeros_placed and (k == m or sorted_values[k] >= 0.0):
            v = 0.0
            g_count = n_zeros
            zeros_placed = True
        else:
            v = sorted_values[k]
            g_count = 1
            k += 1
        if g == 0 or v > prev + _FEATURE_THRESHOLD:
            lo[g] = v
            hi[g] = v
            count[g] = g_count
            g += 1
        else:
            hi[g - 1] = v
            count[g - 1] += g_count
        prev = v
    n_groups[0] = g


def feature_thresholds(const float32_t[::1] sorted_values, intp_t n_zeros, max_bins):
    """Bin thresholds of one feature.

    sorted_values : the feature's stored values, sorted (zeros among them allowed).
    n_zeros : further samples with the value 0 (a sparse column's implicit zeros).
    max_bins : at most this many bins, or None for one bin per group of values.
    Returns a float64 array of (n_bins - 1) increasing thresholds.
    """
    cdef intp_t m = sorted_values.shape[0], g, n_groups = 0
    cdef intp_t limit = -1 if max_bins is None else max_bins
    lo_arr = np.empty(m + 1)
    hi_arr = np.empty(m + 1)
    count_arr = np.zeros(m + 1, dtype=np.intp)
    cdef float64_t[::1] lo = lo_arr, hi = hi_arr
    cdef intp_t[::1] count = count_arr
    with nogil:
        _group(sorted_values, n_zeros, &lo[0], &hi[0], &count[0], &n_groups)
    if n_groups <= 1:
        return np.empty(0)
    # Group g ends a bin when ends[g]; the last group always does.
    ends_arr = np.zeros(n_groups, dtype=np.uint8)
    cdef unsigned char[::1] ends = ends_arr
    cdef intp_t remaining = 0, bins_left, acc = 0
    cdef float64_t target
    if limit < 0 or n_groups <= limit:
        ends_arr[:] = 1
    else:
        for g in range(n_groups):
            remaining += count[g]
        bins_left = limit
        target = remaining / <float64_t> bins_left
        for g in range(n_groups):
            # Close the bin before a group that would overshoot its share by
            # more than the bin falls short of it (a frequent value, such as a
            # sparse column's zeros, then gets a bin of its own) ...
            if acc > 0 and bins_left > 1 and acc + count[g] - target > target - acc:
                ends[g - 1] = 1
                remaining -= acc
                bins_left -= 1
                acc = 0
                target = remaining / <float64_t> bins_left
            acc += count[g]
            # ... and after the group that fills it.
            if g < n_groups - 1 and bins_left > 1 and acc >= target:
                ends[g] = 1
                remaining -= acc
                bins_left -= 1
                acc = 0
                target = remaining / <float64_t> bins_left
        ends[n_groups - 1] = 1
    cdef intp_t n_thresholds = 0
    for g in range(n_groups - 1):
        n_thresholds += ends[g]
    out = np.empty(n_thresholds)
    cdef float64_t[::1] thr = out
    cdef intp_t t = 0
    for g in range(n_groups - 1):
        if ends[g]:
            thr[t] = _midpoint(hi[g], lo[g + 1])
            t += 1
    return out


def feature_codes(const float32_t[::1] values, const float64_t[::1] thresholds):
    """Code of every value: the number of thresholds strictly below it (int32).

    A branch-free binary search (the comparison picks the half with a
    conditional move), as the values come in no particular order.
    """
    cdef intp_t n = values.shape[0], m = thresholds.shape[0], i, half, size
    cdef const float64_t* base
    cdef const float64_t* thr = &thresholds[0] if m > 0 else NULL
    cdef float64_t x
    out = np.zeros(n, dtype=np.int32)
    cdef int32_t[::1] codes = out
    if m == 0 or n == 0:
        return out
    with nogil:
        for i in range(n):
            x = values[i]
            base = thr
            size = m
            while size > 1:
                half = size >> 1
                base = base + half if base[half] < x else base
                size -= half
            codes[i] = <int32_t> ((base - thr) + (base[0] < x))
    return out


class BinnedFeatures:
    """Binned training features (see the module docstring).

    Attributes
    ----------
    n_samples, n_features : int
    thresholds : float64 (sum of n_bins - 1,), feature after feature
    threshold_start : intp (p + 1,): feature f's thresholds are thresholds[start[f]:start[f + 1]]
    bin_start : intp (p + 1,): feature f's bins are [bin_start[f], bin_start[f + 1]) in a histogram
    zero_bin : int32 (p,): the bin of the value 0
    dense_column : int32 (p,): column of f in ``codes``, -1 for a sparse feature
    codes : uint8 (n, n_dense), Fortran order: codes of the dense features, column by column
    sparse_start : intp (p + 1,): entries of feature f are [sparse_start[f], sparse_start[f + 1])
    sparse_rows, sparse_codes : int32 (n_entries,): row and code of every
        sample of a sparse feature that is outside the zero bin, by row
    exact : bool, every group of values has its own bin (max_bins None)
    """

    def __init__(self, n_samples, thresholds_per_feature, zero_bin, dense_codes, sparse_parts, exact):
        p = len(thresholds_per_feature)
        self.n_samples = n_samples
        self.n_features = p
        self.exact = exact
        counts = np.array([len(t) for t in thresholds_per_feature], dtype=np.intp)
        self.threshold_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        self.thresholds = (np.concatenate(thresholds_per_feature) if p else np.empty(0)).astype(np.float64)
        self.bin_start = np.concatenate([[0], np.cumsum(counts + 1)]).astype(np.intp)
        self.zero_bin = np.asarray(zero_bin, dtype=np.int32)
        self.dense_column = np.full(p, -1, dtype=np.int32)
        dense = [f for f in range(p) if dense_codes[f] is not None]
        self.dense_column[dense] = np.arange(len(dense), dtype=np.int32)
        self.codes = np.empty((n_samples, len(dense)), dtype=np.uint8, order="F")
        for j, f in enumerate(dense):
            self.codes[:, j] = dense_codes[f]
        sizes = np.array([0 if part is None else len(part[0]) for part in sparse_parts], dtype=np.intp)
        self.sparse_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        rows = [part[0] for part in sparse_parts if part is not None]
        codes = [part[1] for part in sparse_parts if part is not None]
        self.sparse_rows = np.ascontiguousarray(np.concatenate(rows) if rows else np.empty(0), dtype=np.int32)
        self.sparse_codes = np.ascontiguousarray(np.concatenate(codes) if codes else np.empty(0), dtype=np.int32)

    @property
    def n_bins(self):
        return np.diff(self.bin_start)

    def feature_thresholds(self, f):
        return self.thresholds[self.threshold_start[f]:self.threshold_start[f + 1]]

    def dense_codes_of(self, f):
        """All n codes of feature f (a test and debugging view; O(n))."""
        if self.dense_column[f] >= 0:
            return self.codes[:, self.dense_column[f]].astype(np.int32)
        out = np.full(self.n_samples, self.zero_bin[f], dtype=np.int32)
        a, b = self.sparse_start[f], self.sparse_start[f + 1]
        out[self.sparse_rows[a:b]] = self.sparse_codes[a:b]
        return out


def _bin_one(values, rows, n, max_bins, sparse_fraction, keep, n_kept):
    """Thresholds, zero bin and storage of one feature from its stored values.

    values : float32 stored values (all n of a dense column; a sparse column's
    stored ones, explicit zeros included); rows : their rows (None: 0..n-1).
    keep : bool per row, the rows the thresholds are computed from (None:
    all), n_kept of them.
    """
    values = values + np.float32(0.0)          # -0.0 -> +0.0: one zero, one bin
    if keep is None:
        fitted = values
    else:
        fitted = values[keep if rows is None else keep[rows]]
    n_zeros = n_kept - len(fitted)
    thresholds = feature_thresholds(np.sort(fitted), n_zeros, max_bins)
    codes = feature_codes(values, thresholds)
    zero_bin = int(np.searchsorted(thresholds, 0.0, side="left"))
    outside = codes != zero_bin
    n_outside = int(np.count_nonzero(outside))
    if max_bins is not None and n_outside > sparse_fraction * n:
        if rows is None:
            return thresholds, zero_bin, codes.astype(np.uint8), None
        column = np.full(n, zero_bin, dtype=np.uint8)
        column[rows] = codes
        return thresholds, zero_bin, column, None
    kept_rows = np.flatnonzero(outside) if rows is None else rows[outside]
    return thresholds, zero_bin, None, (kept_rows.astype(np.int32), codes[outside])


def bin_features(X, max_bins, *, sample_weight=None, n_threads=1, sparse_fraction=SPARSE_FRACTION):
    """Bin the features of X (dense float32 array or scipy sparse matrix).

    max_bins : int in [2, 255], or None for exact bins (one per group of
    values; every feature then stored sparsely, codes may exceed 255).
    sample_weight : rows with weight 0 do not shape the bins (a zero weight
    is the same as an absent row), but get codes.
    n_threads : features are binned in this many threads (numpy's sort and
    search release the GIL); the result does not depend on it.
    """
    if max_bins is not None and not 2 <= max_bins <= MAX_BINS_LIMIT:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS_LIMIT}], got {max_bins}")
    n, p = X.shape
    keep, n_kept = None, n
    if sample_weight is not None:
        positive = np.asarray(sample_weight) > 0
        if not positive.all():
            keep, n_kept = positive, int(positive.sum())
    if sparse.issparse(X):
        X = sparse.csc_matrix(X, dtype=np.float32)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        indptr, indices, data = X.indptr, X.indices, X.data

        def one(f):
            a, b = indptr[f], indptr[f + 1]
            return _bin_one(data[a:b], indices[a:b], n, max_bins, sparse_fraction, keep, n_kept)
    else:
        X = np.asarray(X, dtype=np.float32)

        def one(f):
            return _bin_one(np.ascontiguousarray(X[:, f]), None, n, max_bins, sparse_fraction,
                            keep, n_kept)
    if n_threads > 1 and p > 1:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            parts = list(pool.map(one, range(p)))
    else:
        parts = [one(f) for f in range(p)]
    return BinnedFeatures(n, [r[0] for r in parts], [r[1] for r in parts],
                          [r[2] for r in parts], [r[3] for r in parts], max_bins is None)
