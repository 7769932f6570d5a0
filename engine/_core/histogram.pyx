"""Gradient histograms of a tree node: built from the samples, or by subtraction.

A node's histogram has one cell per bin of every feature; a cell holds the
sums of the node's t split targets over the samples in that bin, then their
weight sum, then (weighted fits) their count (see hist_kernels.h). The split
search reads nothing else, so its cost per node no longer grows with the
node's samples once the histogram exists.

Building (``build_histogram``) runs in work units, in OpenMP threads:

* a *dense block*: a run of dense features (uint8 codes, one column each);
  the node's samples are visited once per block and every sample's target
  row is added to each of the block's features (blocks are sized so their
  histograms stay in cache);
* a *sparse feature*: its stored (row, code) entries, keeping those whose row
  is in the node (``node_of[row] == node``, or all of them at the root); its
  zero bin, never stored, is then the node's totals minus its other bins.

A unit writes only its own features' cells and adds samples in a fixed
order, so the histogram is the same for any number of threads (and the
units can be scheduled dynamically).

Subtraction (``subtract_histogram``): after a split only the child with
fewer samples is built; the other's histogram is its parent's minus the
built one (scikit-learn's and LightGBM's sibling trick), cell by cell.

Scanning (``scan_feature``): the best boundary of one feature, from its cells
(hist_kernels.h, engine_hist_best).
"""
import numpy as np
from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.string cimport memset

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint8_t

cdef extern from "hist_kernels.h" nogil:
    void engine_hist_dense(const uint8_t* codes, intp_t code_stride, intp_t c0, intp_t c1,
                           const int32_t* samples, intp_t n_rows,
                           const float64_t* targets, intp_t t, const float64_t* weights,
                           const intp_t* col_offset, intp_t stride, float64_t* hist)
    void engine_hist_sparse(const int32_t* rows, const int32_t* codes, intp_t n_entries,
                            const int32_t* node_of, int32_t node,
                            const float64_t* targets, intp_t t, const float64_t* weights,
                            intp_t stride, float64_t* hist)
    void engine_hist_sparse_rows(const intp_t* row_start, const int32_t* row_bins,
                                 const int32_t* samples, intp_t n_rows,
                                 const float64_t* targets, intp_t t, const float64_t* weights,
                                 intp_t stride, float64_t* hist)
    void engine_hist_subtract(float64_t* out, const float64_t* a, const float64_t* b, intp_t n)
    intp_t engine_cell_stride(intp_t t, int unit_weights)
    intp_t engine_hist_best(const float64_t* h, intp_t n_bins, intp_t stride, intp_t t,
                            intp_t count_slot, const float64_t* mean, float64_t W,
                            float64_t n_node, float64_t msl, float64_t* left,
                            float64_t* best_gain, float64_t* w_left, float64_t* n_left)
    intp_t engine_hist_gain_at(const float64_t* h, intp_t at, intp_t stride, intp_t t,
                               intp_t count_slot, const float64_t* mean, float64_t W,
                               float64_t n_node, float64_t msl, float64_t* left,
                               float64_t* gain, float64_t* w_left, float64_t* n_left)
    float64_t* engine_hist_alloc(intp_t n_doubles)

cdef extern from "openmp_shim.h" nogil:
    int engine_omp_max_threads()
    int ENGINE_OPENMP

# Subtraction is split into chunks of this many doubles for the threads (the
# grower subtracts on one thread: the loop is bound by memory bandwidth).
cdef intp_t SUBTRACT_CHUNK = 1 << 15


cdef intp_t cell_stride(intp_t t, bint unit_weights) noexcept nogil:
    """Doubles per cell: t target sums, the weight sum, the count when weighted (padded)."""
    return engine_cell_stride(t, unit_weights)


cdef float64_t* alloc_histogram(intp_t n_doubles) noexcept nogil:
    """A cache-line aligned histogram buffer (free with free()); NULL when out of memory."""
    return engine_hist_alloc(n_doubles)


cdef void scan_feature(const BinnedView* B, const float64_t* h, intp_t j, intp_t f,
                          bint random_split, intp_t at, intp_t stride, intp_t t,
                          intp_t count_slot, const float64_t* mean, float64_t W,
                          float64_t n_node, float64_t msl, float64_t* left,
                          intp_t* cand_bin, float64_t* cand_gain, float64_t* cand_wl,
                          float64_t* cand_nl) noexcept nogil:
    """Best (or, random_split, the drawn ``at``) boundary of feature f, from node histogram h,
    into the j-th entries of the cand_* arrays (gain -inf and bin -1 when none)."""
    cdef const float64_t* hf = h + B.bin_start[f] * stride
    cdef intp_t nb = B.bin_start[f + 1] - B.bin_start[f]
    cand_gain[j] = -INFINITY
    if random_split:
        cand_bin[j] = engine_hist_gain_at(hf, at, stride, t, count_slot, mean, W, n_node, msl,
                                          left, &cand_gain[j], &cand_wl[j], &cand_nl[j])
    else:
        cand_bin[j] = engine_hist_best(hf, nb, stride, t, count_slot, mean, W, n_node, msl,
                                       left, &cand_gain[j], &cand_wl[j], &cand_nl[j])


def openmp_enabled():
    """Whether the compiled core was built with OpenMP."""
    return bool(ENGINE_OPENMP)


def openmp_max_threads():
    """OpenMP's default thread count (OMP_NUM_THREADS, threadpoolctl); 1 without OpenMP."""
    return engine_omp_max_threads()


cdef void _fill_zero_bin(const BinnedView* B, intp_t f, const float64_t* totals, intp_t stride,
                         float64_t* hist) noexcept nogil:
    """The zero bin of sparse feature f: the node's totals minus every other bin."""
    cdef intp_t b, k, z = B.zero_bin[f]
    cdef float64_t* h = hist + B.bin_start[f] * stride
    cdef intp_t nb = B.bin_start[f + 1] - B.bin_start[f]
    cdef float64_t* cell = h + z * stride
    for k in range(stride):
        cell[k] = totals[k]
    for b in range(nb):
        if b == z:
            continue
        for k in range(stride):
            cell[k] -= h[b * stride + k]


cdef void _build_sparse_feature(const BinnedView* B, intp_t f, int32_t node,
                                const int32_t* node_of, const float64_t* targets, intp_t t,
                                const float64_t* weights, const float64_t* totals, intp_t stride,
                                float64_t* hist) noexcept nogil:
    """Feature f's cells from its stored (row, code) entries in the node; its zero bin by difference.

    Only the non-zero entries are read (their rows tested against node_of),
    so a sparse feature costs its stored entries, not the node's samples;
    the zero bin's cell is the node's totals minus the other cells.
    """
    cdef float64_t* h = hist + B.bin_start[f] * stride
    cdef intp_t nb = B.bin_start[f + 1] - B.bin_start[f]
    memset(h, 0, nb * stride * sizeof(float64_t))
    engine_hist_sparse(B.sparse_rows + B.sparse_start[f], B.sparse_codes + B.sparse_start[f],
                       B.sparse_start[f + 1] - B.sparse_start[f], node_of, node,
                       targets, t, weights, stride, h)
    _fill_zero_bin(B, f, totals, stride, hist)


cdef void _build_sparse_rows(const BinnedView* B, const int32_t* samples, intp_t n_rows,
                             const float64_t* targets, intp_t t, const float64_t* weights,
                             const float64_t* totals, intp_t stride,
                             float64_t* hist) noexcept nogil:
    """Every sparse feature's cells in one pass over the node's samples' stored entries.

    The same cells as _build_sparse_feature feature by feature (each bin adds
    its samples in index order), at the cost of the node's own entries rather
    than every entry of every feature (engine_hist_sparse_rows).
    """
    cdef intp_t a, f
    for a in range(B.n_sparse):
        f = B.sparse_feature[a]
        memset(hist + B.bin_start[f] * stride, 0,
               (B.bin_start[f + 1] - B.bin_start[f]) * stride * sizeof(float64_t))
    engine_hist_sparse_rows(B.row_start, B.row_bins, samples, n_rows, targets, t, weights,
                            stride, hist)
    for a in range(B.n_sparse):
        _fill_zero_bin(B, B.sparse_feature[a], totals, stride, hist)


cdef void _build_unit(const BinnedView* B, intp_t u, const int32_t* samples, intp_t n_rows,
                      int32_t node, const int32_t* node_of,
                      const float64_t* targets, intp_t t, const float64_t* weights,
                      const float64_t* totals, intp_t stride, const intp_t* col_offset,
                      float64_t* hist) noexcept nogil:
    """Work unit u of a histogram build: a block of dense columns, or one sparse feature.

    Dense block (last >= 0): clear the block's cells, then one pass over the
    node's samples adds each sample's target row (S_1..S_t, w, count) to its
    bin's cell of every feature in the block (engine_hist_dense).
    """
    cdef intp_t c, f, first = B.unit_first[u], last = B.unit_last[u]
    if last >= 0:
        for c in range(first, last):
            f = B.dense_feature[c]
            memset(hist + B.bin_start[f] * stride, 0,
                   (B.bin_start[f + 1] - B.bin_start[f]) * stride * sizeof(float64_t))
        engine_hist_dense(B.codes, B.n_samples, first, last, samples, n_rows, targets, t, weights,
                          col_offset, stride, hist)
        return
    _build_sparse_feature(B, first, node, node_of, targets, t, weights, totals, stride, hist)


cdef void build_feature(const BinnedView* B, intp_t f, const int32_t* samples, intp_t n_rows,
                        int32_t node, const int32_t* node_of,
                        const float64_t* targets, intp_t t, const float64_t* weights,
                        const float64_t* totals, intp_t stride, const intp_t* col_offset,
                        float64_t* hist) noexcept nogil:
    """The cells of feature f alone, from the node's samples (as build_histogram fills them)."""
    cdef intp_t c = B.dense_column[f]
    if c < 0:
        _build_sparse_feature(B, f, node, node_of, targets, t, weights, totals, stride, hist)
        return
    memset(hist + B.bin_start[f] * stride, 0,
           (B.bin_start[f + 1] - B.bin_start[f]) * stride * sizeof(float64_t))
    engine_hist_dense(B.codes, B.n_samples, c, c + 1, samples, n_rows, targets, t, weights,
                      col_offset, stride, hist)


cdef void build_histogram(const BinnedView* B, const int32_t* samples, intp_t n_rows,
                          int32_t node, const int32_t* node_of,
                          const float64_t* targets, intp_t t, const float64_t* weights,
                          const float64_t* totals, intp_t stride, const intp_t* col_offset,
                          float64_t* hist, int n_threads) noexcept nogil:
    """Histogram of the node's samples (``samples[:n_rows]``, in index order, all with
    node_of == node).

    node < 0: every stored entry of a sparse feature belongs to the node (the
    root of a tree grown on every sample). weights NULL: unit weights.
    totals: the node's cell totals (target sums, weight sum, count), for the
    sparse features' zero bins.
    """
    cdef intp_t u
    if n_threads <= 1 and B.n_sparse > 0:
        # One thread: the sparse features row by row, from the node's samples
        # (samples in index order: the same sums as feature by feature).
        for u in range(B.n_units):
            if B.unit_last[u] >= 0:
                _build_unit(B, u, samples, n_rows, node, node_of, targets, t, weights, totals,
                            stride, col_offset, hist)
        _build_sparse_rows(B, samples, n_rows, targets, t, weights, totals, stride, hist)
        return
    if n_threads <= 1 or B.n_units <= 1:
        for u in range(B.n_units):
            _build_unit(B, u, samples, n_rows, node, node_of, targets, t, weights, totals,
                        stride, col_offset, hist)
        return
    for u in prange(B.n_units, schedule="dynamic", num_threads=n_threads):
        _build_unit(B, u, samples, n_rows, node, node_of, targets, t, weights, totals,
                    stride, col_offset, hist)


cdef void subtract_histogram(float64_t* out, const float64_t* parent, const float64_t* child,
                             intp_t n, int n_threads) noexcept nogil:
    """out = parent - child, cell by cell (out may be parent)."""
    cdef intp_t n_chunks = (n + SUBTRACT_CHUNK - 1) // SUBTRACT_CHUNK, c, a, m
    if n_threads <= 1 or n_chunks <= 1:
        engine_hist_subtract(out, parent, child, n)
        return
    for c in prange(n_chunks, schedule="static", num_threads=n_threads):
        a = c * SUBTRACT_CHUNK
        m = SUBTRACT_CHUNK if a + SUBTRACT_CHUNK <= n else n - a
        engine_hist_subtract(out + a, parent + a, child + a, m)


# ---------------------------------------------------------------- work units

# A dense block's histograms should stay in a core's L2 cache (the block's
# samples stream their target rows through it once per block).
BLOCK_BYTES = 384 * 1024
# A block reads one stream of codes per feature: at most this many, so the
# hardware prefetchers follow them all.
MAX_BLOCK_FEATURES = 16
# With several threads, at least this many dense blocks per thread (when
# there are enough features), so the threads can share the work evenly.
BLOCKS_PER_THREAD = 3


def work_units(binned, max_targets, n_threads):
    """The work units of a histogram build, for a BinnedView.

    Returns (unit_first, unit_last, dense_feature, sparse_rows, sparse_codes,
    empty_codes), each array padded with one element so it never is empty.
    Dense blocks: as many features as keep their histograms in BLOCK_BYTES,
    at most MAX_BLOCK_FEATURES, and (threads) at least BLOCKS_PER_THREAD per
    thread; then one unit per sparse feature. The units change only the
    order work is done in, never a histogram.
    """
    dense_features = np.flatnonzero(np.asarray(binned.dense_column) >= 0).astype(np.int32)
    n_dense = len(dense_features)
    first, last = [], []
    if n_dense:
        bins = np.diff(binned.bin_start)[dense_features].mean()
        by_cache = max(1, int(BLOCK_BYTES // (8 * bins * (max_targets + 5))))
        min_blocks = 1 if n_threads <= 1 else BLOCKS_PER_THREAD * n_threads
        size = max(1, min(by_cache, MAX_BLOCK_FEATURES, -(-n_dense // min_blocks)))
        for a in range(0, n_dense, size):
            first.append(a)
            last.append(min(a + size, n_dense))
    sparse_features = np.flatnonzero(np.asarray(binned.dense_column) < 0)
    first += [int(f) for f in sparse_features]
    last += [-1] * len(sparse_features)
    return (np.array(first + [0], dtype=np.intp), np.array(last + [0], dtype=np.intp),
            np.concatenate([dense_features, [0]]).astype(np.int32),
            np.ascontiguousarray(np.concatenate([binned.sparse_rows, [0]]), dtype=np.int32),
            np.ascontiguousarray(np.concatenate([binned.sparse_codes, [0]]), dtype=np.int32),
            np.zeros((1, 1), dtype=np.uint8, order="F"))


def sparse_by_row(binned):
    """The sparse features' stored entries regrouped by row, for the one-thread build.

    Returns (sparse_feature, row_start, row_bins), each padded with one element
    so it never is empty: the sparse features in increasing order; row i's
    entries are [row_start[i], row_start[i + 1]) of row_bins, which holds each
    entry's absolute bin (bin_start[f] + code), features in increasing order.
    """
    n = binned.n_samples
    sparse_start = np.asarray(binned.sparse_start)
    features = np.repeat(np.arange(binned.n_features), np.diff(sparse_start))
    rows = np.asarray(binned.sparse_rows, dtype=np.intp)
    bins = np.asarray(binned.bin_start)[features] + np.asarray(binned.sparse_codes)
    order = np.argsort(rows, kind="stable")      # by row, then feature (entries are by feature)
    row_start = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]).astype(np.intp)
    sparse_feature = np.flatnonzero(np.asarray(binned.dense_column) < 0).astype(np.int32)
    return (np.concatenate([sparse_feature, [0]]).astype(np.int32),
            np.ascontiguousarray(row_start, dtype=np.intp),
            np.ascontiguousarray(np.concatenate([bins[order], [0]]), dtype=np.int32))


def subtract_histograms(parent, child, int n_threads=1):
    """parent - child through the compiled kernel (a test hook)."""
    P = np.ascontiguousarray(parent, dtype=np.float64)
    C = np.ascontiguousarray(child, dtype=np.float64)
    if P.shape != C.shape:
        raise ValueError("parent and child histograms must have the same shape")
    out = np.empty_like(P)
    if P.size == 0:
        return out
    cdef float64_t[::1] o = out.reshape(-1)
    cdef const float64_t[::1] a = P.reshape(-1)
    cdef const float64_t[::1] b = C.reshape(-1)
    subtract_histogram(&o[0], &a[0], &b[0], P.size, n_threads)
    return out
