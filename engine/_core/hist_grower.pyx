"""Histogram split search and best-first growth of regression trees.

The same trees as the exact grower (grower.pyx) in every respect but where
thresholds may sit: the criterion (SSE summed over the split targets, its
centred gain), best-first growth, the stopping rules, the tie-breaking
(lowest feature visited first, then lowest threshold), the feature draws of
``max_features`` and the node values (weighted label means) are the same.
Candidate thresholds are the bin boundaries of binning.pyx, in the original
feature units: a fitted tree is stored in a TreeStore like any other and
predicts from raw features.

Per node, instead of scanning every sample of every feature:

1. the node's histogram (histogram.pyx) holds per bin the sums of the t
   split targets, the weight and the count; only the child with fewer
   samples is built from its samples, the other is its parent's histogram
   minus it;
2. every candidate feature's bins are scanned left to right (hist_kernels.h):
   cost O(bins x t) per feature, independent of the node's size;
3. the chosen split partitions the node's sample list stably (a sparse
   split feature: the zero bin's side by default, then its stored entries).

Threads: the histogram's work units and the candidate features' scans run
in OpenMP threads (``n_threads``); every feature's histogram and best
boundary are computed by one thread in a fixed order, and the features'
results are then reduced in the order they were drawn, so the tree does not
depend on the number of threads.

Extra-trees (``random_splits``): for each candidate feature one bin boundary
is drawn uniformly among those between the node's lowest and highest
occupied bins (the exact grower draws a threshold uniformly in value range;
with bins, the boundary is the unit of choice).

Memory: a histogram per node waiting in the frontier (for the subtraction),
up to HIST_MEMORY_BUDGET bytes; beyond that (fully grown trees) a node's
histogram is dropped and its children are built from their samples.
"""
import numpy as np
from cython.parallel cimport prange
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy
from libc.math cimport INFINITY, NAN

from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t, uint8_t, uint64_t
from engine._core.tree_store cimport TreeStore, Node, TREE_LEAF
from engine._core.grower_base cimport Grower
from engine._core.histogram import sparse_by_row, work_units
from engine._core.histogram cimport (
    BinnedView,
    alloc_histogram,
    build_feature,
    build_histogram,
    cell_stride,
    scan_feature,
    subtract_histogram,
)
from engine._core.rng cimport draw_next, rng_int
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks, padded_width
from engine._core.frontier cimport NodeRecord

cdef float64_t EPSILON = 2.220446049250313e-16
# Histogram memory a grower may keep for the nodes waiting in its frontier.
HIST_MEMORY_BUDGET = 256 * 2**20
# The candidates' scans go to threads from this many cells x targets on (a
# node of 50 features of 255 bins with one target is 12750): below it a
# parallel region costs more than it saves. Each candidate's running sums sit
# on cache lines of their own (scan_stride), or neighbouring scans on two
# threads would keep stealing each other's lines.
cdef intp_t PARALLEL_SCAN_WORK = 1 << 12
# A node's loops over its samples (totals, statistics, partition) go to threads from
# this many row blocks on, or, for the sums over wide target rows, from two blocks
# when rows x (t + 1) reaches PARALLEL_ROW_WORK; the blocks themselves
# (row_blocks.pxd) never depend on the number of threads, so neither do the sums.
cdef intp_t PARALLEL_ROW_BLOCKS = 4
cdef intp_t PARALLEL_ROW_WORK = 4 * ROW_BLOCK * 2


cdef class HistGrower(Grower):
    """Grows one tree at a time on binned training inputs.

    Parameters
    ----------
    binned : engine._core.binning.BinnedFeatures
        The training features, binned once.
    max_leaf_nodes, max_depth, min_samples_leaf, min_samples_split, max_features,
    random_splits, max_targets, leaf_impurity :
        As for :class:`~engine._core.grower.TreeGrower`.
    n_threads : int
        OpenMP threads for histograms and split search (1 without OpenMP).
    """

    def __init__(self, binned, *, intp_t max_leaf_nodes=0, intp_t max_depth=0,
                 intp_t min_samples_leaf=1, intp_t min_samples_split=2,
                 intp_t max_features=0, bint random_splits=False,
                 intp_t max_targets=1, bint leaf_impurity=True, int n_threads=1):
        self.binned = binned
        n, p = binned.n_samples, binned.n_features
        self.n_samples = n
        self.n_features = p
        self._set_limits(max_leaf_nodes, max_depth, min_samples_leaf, min_samples_split,
                         max_features, random_splits, leaf_impurity)
        # A node that scans only a few drawn features builds only their cells,
        # from its own samples (no sibling subtraction): on wide data, forests'
        # sqrt(p) draws would otherwise pay for p features in every node.
        self.per_node_features = self.max_features < p
        self.max_t = max(max_targets, 1)
        self._n_threads = max(n_threads, 1)
        self._set_view(binned)
        t = self.max_t
        self.samples = np.zeros(max(n, 1), dtype=np.int32)
        self.tmp = np.zeros(max(n, 1), dtype=np.int32)
        self.node_of = np.full(max(n, 1), -1, dtype=np.int32)
        # After growth every in-bag sample's node is its leaf: the two are one array.
        self.sample_leaf = self.node_of[:n]
        self.goes_left = np.zeros(max(n, 1), dtype=np.uint8)
        self.features = np.arange(max(p, 1), dtype=np.int32)
        self.candidates = np.zeros(max(p, 1), dtype=np.int32)
        self.cand_at = np.zeros(max(p, 1), dtype=np.intp)
        self.cand_bin = np.zeros(max(p, 1), dtype=np.intp)
        self.cand_gain = np.zeros(max(p, 1))
        self.cand_wl = np.zeros(max(p, 1))
        self.cand_nl = np.zeros(max(p, 1))
        # One cache line or more per candidate: threads scan neighbouring candidates.
        self.scan_stride = (t + 7) & ~7
        self.scan_scratch = np.zeros(max(p, 1) * self.scan_stride)
        self.col_offset = np.zeros(max(self.B.n_dense, 1), dtype=np.intp)
        self.node_mean = np.zeros(t)
        self.totals = np.zeros(t + 8)
        self.built_sums = np.zeros(2 * (t + 8))
        self.block_sums = np.zeros(n_row_blocks(n) * padded_width(t + 8))
        self.block_left = np.zeros(3 * n_row_blocks(n), dtype=np.intp)
        self.hist_len = max(self.B.total_bins, 1) * cell_stride(t, False)
        # Pool slots: at most one per frontier node (at most max_leaf_nodes + 1 at
        # once) and within HIST_MEMORY_BUDGET bytes; allocated on first use.
        bound = (max_leaf_nodes + 1) if max_leaf_nodes > 0 else 2**30
        self.pool_limit = int(max(1, min(bound, HIST_MEMORY_BUDGET // (8 * self.hist_len))))
        self.pool = <float64_t**> malloc(self.pool_limit * sizeof(float64_t*))
        self.free_slots = <intp_t*> malloc(self.pool_limit * sizeof(intp_t))
        self.scratch[0] = NULL
        self.scratch[1] = NULL
        self.node_bin_capacity = 64
        self.node_bin = <int32_t*> malloc(self.node_bin_capacity * sizeof(int32_t))
        if self.pool == NULL or self.free_slots == NULL or self.node_bin == NULL:
            raise MemoryError()

    def __dealloc__(self):
        """Free the histogram buffers and node_bin."""
        cdef intp_t k
        if self.pool != NULL:
            for k in range(self.pool_allocated):
                free(self.pool[k])
        free(self.pool)
        free(self.free_slots)
        free(self.scratch[0])
        free(self.scratch[1])
        free(self.node_bin)

    def _set_view(self, binned):
        """Point the BinnedView at the binned arrays; cut the dense features into blocks.

        The view B is what the nogil code reads (histogram.pxd); the arrays it
        points into stay alive in ``binned`` and ``_unit_arrays`` (which also
        holds the sparse entries regrouped by row, for the one-thread build). The work
        units depend on the thread count, hence the call from n_threads' setter.
        """
        cdef const intp_t[::1] bin_start = binned.bin_start
        cdef const int32_t[::1] zero_bin = binned.zero_bin
        cdef const int32_t[::1] dense_column = binned.dense_column
        cdef const uint8_t[::1, :] codes = binned.codes
        cdef const intp_t[::1] sparse_start = binned.sparse_start
        cdef const int32_t[::1] sparse_rows
        cdef const int32_t[::1] sparse_codes
        cdef const int32_t[::1] dense_feature
        cdef const intp_t[::1] unit_first
        cdef const intp_t[::1] unit_last
        cdef const int32_t[::1] sparse_feature
        cdef const intp_t[::1] row_start
        cdef const int32_t[::1] row_bins
        p = binned.n_features
        units = work_units(binned, self.max_t, self._n_threads)
        by_row = sparse_by_row(binned)
        n_dense = len(units[2]) - 1
        self._unit_arrays = units + by_row
        sparse_feature, row_start, row_bins = by_row
        unit_first, unit_last, dense_feature = units[0], units[1], units[2]
        sparse_rows, sparse_codes = units[3], units[4]
        if n_dense == 0 or binned.n_samples == 0:
            codes = units[5]
        # One spare entry: a feature with no threshold still has a valid start.
        self.thresholds = np.concatenate([binned.thresholds, [0.0]])
        self.threshold_start = binned.threshold_start
        self.B.n_samples = binned.n_samples
        self.B.n_features = p
        self.B.total_bins = binned.bin_start[p]
        self.B.bin_start = &bin_start[0]
        self.B.zero_bin = &zero_bin[0] if p else NULL
        self.B.dense_column = &dense_column[0] if p else NULL
        self.B.dense_feature = &dense_feature[0]
        self.B.codes = &codes[0, 0]
        self.B.n_dense = n_dense
        self.B.sparse_start = &sparse_start[0]
        self.B.sparse_rows = &sparse_rows[0]
        self.B.sparse_codes = &sparse_codes[0]
        self.B.n_units = len(units[0]) - 1
        self.B.unit_first = &unit_first[0]
        self.B.unit_last = &unit_last[0]
        self.B.n_sparse = len(by_row[0]) - 1
        self.B.sparse_feature = &sparse_feature[0]
        self.B.row_start = &row_start[0]
        self.B.row_bins = &row_bins[0]

    @property
    def max_targets(self):
        """Largest number of split targets t a tree may be grown on (the buffers' width)."""
        return self.max_t

    @property
    def n_threads(self):
        """OpenMP threads for histograms and split search (the tree does not depend on it)."""
        return self._n_threads

    @n_threads.setter
    def n_threads(self, value):
        self._n_threads = max(int(value), 1)
        self._set_view(self.binned)      # the work units are cut for the thread count

    @property
    def per_node_features(self):
        """Whether a node builds only its drawn features' cells (max_features < p).

        Settable, for tests: False builds every feature's cells, with the sibling subtraction.
        """
        return self.per_node_features

    @per_node_features.setter
    def per_node_features(self, value):
        self.per_node_features = bool(value)

    @property
    def n_units(self):
        """Work units of a histogram build (dense blocks and sparse features)."""
        return self.B.n_units

    # ------------------------------------------------------------ histogram buffers

    cdef float64_t* _buffer(self, intp_t slot) noexcept nogil:
        """The histogram buffer of a slot: a pool slot, or scratch buffer slot - pool_limit."""
        if slot < self.pool_limit:
            return self.pool[slot]
        return self.scratch[slot - self.pool_limit]

    cdef intp_t _take_slot(self, intp_t fallback) except -2 nogil:
        """A free pool slot, or the scratch buffer ``fallback`` when the pool is full.

        Pool slots hold the histograms of nodes waiting in the frontier (for the
        sibling subtraction) and are allocated on first use, up to pool_limit
        (HIST_MEMORY_BUDGET). A node given a scratch buffer keeps no histogram:
        its children are built from their samples.
        """
        cdef float64_t* buf
        if self.n_free > 0:
            self.n_free -= 1
            return self.free_slots[self.n_free]
        if self.pool_allocated < self.pool_limit:
            buf = alloc_histogram(self.hist_len)
            if buf == NULL:
                with gil:
                    raise MemoryError()
            self.pool[self.pool_allocated] = buf
            self.pool_allocated += 1
            return self.pool_allocated - 1
        if self.scratch[fallback - self.pool_limit] == NULL:
            buf = alloc_histogram(self.hist_len)
            if buf == NULL:
                with gil:
                    raise MemoryError()
            self.scratch[fallback - self.pool_limit] = buf
        return fallback

    cdef void _release(self, NodeRecord* rec) noexcept nogil:
        """Give the node's pool slot back (scratch buffers are not pooled); rec.hist = -1."""
        if 0 <= rec.hist < self.pool_limit:
            self.free_slots[self.n_free] = rec.hist
            self.n_free += 1
        rec.hist = -1

    cdef int _add_leaf(self, NodeRecord* rec) except -1 nogil:
        """A leaf keeps no histogram: its pool slot goes back before it joins the leaf list."""
        self._release(rec)
        rec.sums = NULL
        return Grower._add_leaf(self, rec)

    # ------------------------------------------------------------ node statistics

    cdef void _totals_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                           const float64_t* weights, float64_t* tot) noexcept nogil:
        """tot[:stride] = the cell totals of the samples [lo, hi) of the node order.

        A cell is (S_1..S_t, W, count) with unit weights folding W and count
        into one slot (count_slot = t): the layout of histogram.pyx's cells.
        """
        cdef intp_t r, k, i
        cdef float64_t w
        cdef const float64_t* y
        for k in range(self.stride):
            tot[k] = 0.0
        for r in range(lo, hi):
            i = self.samples[r]
            y = targets + i * t
            if self.unit_weights:
                for k in range(t):
                    tot[k] += y[k]
                tot[t] += 1.0
            else:
                w = weights[i]
                for k in range(t):
                    tot[k] += w * y[k]
                tot[t] += w
                tot[t + 1] += 1.0

    cdef void _totals(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                      const float64_t* weights, float64_t* tot) noexcept nogil:
        """tot[:stride] = the node's cell totals: target sums, weight sum, count (row blocks).

        The target sums and the weight sum are bit for bit those of _node_stats's
        first pass (same rows, blocks and order), which therefore reuses them.
        """
        cdef intp_t b, k, nb = n_row_blocks(rec.end - rec.start), s = self.stride
        cdef intp_t width = padded_width(s)
        cdef float64_t* part = &self.block_sums[0]
        if nb == 1:
            self._totals_rows(rec.start, rec.end, targets, t, weights, tot)
            return
        if self._sums_in_threads(rec, t):
            for b in prange(nb, schedule="dynamic", num_threads=self._n_threads):
                self._totals_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end), targets, t,
                                  weights, part + b * width)
        else:
            for b in range(nb):
                self._totals_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end), targets, t,
                                  weights, part + b * width)
        for k in range(s):
            tot[k] = 0.0
        for b in range(nb):
            for k in range(s):
                tot[k] += part[b * width + k]

    cdef bint _sums_in_threads(self, NodeRecord* rec, intp_t t) noexcept nogil:
        """Whether the node's sums over its rows go to threads (see PARALLEL_ROW_WORK)."""
        cdef intp_t rows = rec.end - rec.start, nb = n_row_blocks(rows)
        return self._n_threads > 1 and nb >= 2 and (nb >= PARALLEL_ROW_BLOCKS
                                                     or rows * (t + 1) >= PARALLEL_ROW_WORK)

    cdef void _sums_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                         const float64_t* weights, float64_t* out) noexcept nogil:
        """out[:t] = sum_r w y, out[t] = sum_r w over the samples [lo, hi) of the node order."""
        cdef intp_t r, k, i
        cdef float64_t w
        cdef const float64_t* y
        for k in range(t + 1):
            out[k] = 0.0
        for r in range(lo, hi):
            i = self.samples[r]
            w = weights[i]
            out[t] += w
            y = targets + i * t
            for k in range(t):
                out[k] += w * y[k]

    cdef float64_t _sse_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                             const float64_t* weights, const float64_t* mean) noexcept nogil:
        """sum_r w |y - mean|^2 over the samples [lo, hi) of the node order."""
        cdef intp_t r, k, i
        cdef float64_t diff, sse = 0.0
        cdef const float64_t* y
        for r in range(lo, hi):
            i = self.samples[r]
            y = targets + i * t
            for k in range(t):
                diff = y[k] - mean[k]
                sse += weights[i] * diff * diff
        return sse

    cdef float64_t _node_stats(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                               const float64_t* weights, const float64_t* sums) noexcept nogil:
        """Fill node_mean; return the node's weighted SSE (two passes, in row blocks).

        As the exact grower's: m = S / W over the node's samples, then
        SSE = sum_i w_i |y_i - m|^2 about that mean (no cancellation for targets
        with a large mean). sums: the node's totals (_totals) when known, which
        are the first pass's result exactly; NULL to sum.
        """
        cdef intp_t b, k, nb = n_row_blocks(rec.end - rec.start), s = self.stride
        cdef float64_t W = 0.0, sse = 0.0
        cdef float64_t* mean = &self.node_mean[0]
        cdef float64_t* part = &self.block_sums[0]
        cdef bint parallel = self._sums_in_threads(rec, t)
        cdef intp_t width = padded_width(t + 1)
        if sums != NULL:
            W = sums[t]
            for k in range(t):
                mean[k] = sums[k]
        else:
            if parallel:
                for b in prange(nb, schedule="dynamic", num_threads=self._n_threads):
                    self._sums_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end), targets,
                                    t, weights, part + b * width)
            else:
                for b in range(nb):
                    self._sums_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end), targets,
                                    t, weights, part + b * width)
            for k in range(t):
                mean[k] = 0.0
            for b in range(nb):
                W += part[b * width + t]
                for k in range(t):
                    mean[k] += part[b * width + k]
        for k in range(t):
            mean[k] = mean[k] / W if W > 0.0 else 0.0
        # Second pass: each block's SSE about m, added in block order.
        if parallel:
            for b in prange(nb, schedule="dynamic", num_threads=self._n_threads):
                part[b] = self._sse_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end),
                                         targets, t, weights, mean)
        else:
            for b in range(nb):
                part[b] = self._sse_rows(rec.start + b * ROW_BLOCK, block_end(b, rec.start, rec.end),
                                         targets, t, weights, mean)
        for b in range(nb):
            sse += part[b]
        rec.weight = W
        return sse

    cdef void _build(self, NodeRecord* rec, bint root, const float64_t* targets, intp_t t,
                     const float64_t* weights, float64_t* tot) noexcept nogil:
        """The node's histogram from its samples, into its buffer; its totals into tot,
        which rec.sums then points to (for _evaluate_node).

        node = -1 tells the sparse kernels that every sample is in the node (the
        root of a tree without sub-sampling), so they need not test node_of.
        """
        cdef int32_t node = -1 if (root and rec.end - rec.start == self.n_samples) else <int32_t> rec.node_id
        self._totals(rec, targets, t, weights, tot)
        build_histogram(&self.B, &self.samples[rec.start], rec.end - rec.start, node,
                        &self.node_of[0], targets, t, NULL if self.unit_weights else weights,
                        tot, self.stride, &self.col_offset[0],
                        self._buffer(rec.hist), self._n_threads)
        rec.sums = tot

    # ------------------------------------------------------------ split search

    cdef bint _constant(self, const float64_t* h, intp_t f, intp_t* lo, intp_t* hi) noexcept nogil:
        """Whether the node has a single occupied bin of f; lo, hi: first and last occupied.

        Occupied: a non-zero count in the histogram h. A feature constant in the
        node has no threshold to offer; lo and hi bound the extra-trees draw.
        """
        cdef intp_t s = self.stride
        cdef intp_t slot = self.count_slot
        cdef intp_t a = self.B.bin_start[f], b = self.B.bin_start[f + 1] - 1
        cdef const float64_t* hf = h
        while a < b and hf[a * s + slot] == 0.0:
            a += 1
        while b > a and hf[b * s + slot] == 0.0:
            b -= 1
        lo[0] = a - self.B.bin_start[f]
        hi[0] = b - self.B.bin_start[f]
        return a >= b

    cdef bint _best_split(self, NodeRecord* rec, intp_t t, const float64_t* targets,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil:
        """Search the node's best split from its histogram; fill rec.split and rec.improvement.

        Needs node_mean and rec.weight (from _node_stats); with per_node_features
        it builds each drawn feature's cells first (and needs the node's totals).
        """
        cdef float64_t* h = self._buffer(rec.hist)
        cdef int32_t node = -1 if (rec.depth == 0 and rec.end - rec.start == self.n_samples) \
            else <int32_t> rec.node_id
        cdef intp_t p = self.n_features
        cdef intp_t n_drawn = 0, n_visited = 0, n_constant = 0, n_cand = 0, j, f, lo, hi
        cdef intp_t work = 0, best = -1
        cdef intp_t s = self.stride
        cdef intp_t count_slot = self.count_slot
        cdef float64_t n_node = rec.end - rec.start
        cdef float64_t msl = self.min_samples_leaf
        cdef float64_t best_gain = -INFINITY
        # Draw features as the exact grower does (max_features visited, at least
        # one not constant); list the candidates, then scan them (in threads
        # when there is enough work), each into its own cand_* slot.
        while n_drawn < p and (n_visited < self.max_features or n_visited <= n_constant):
            f = draw_next(&self.features[0], n_drawn, p, self.max_features < p, rng_state)
            n_drawn += 1
            n_visited += 1
            if self.per_node_features:
                build_feature(&self.B, f, &self.samples[rec.start], rec.end - rec.start, node,
                              &self.node_of[0], targets, t, NULL if self.unit_weights else weights,
                              &self.totals[0], self.stride, &self.col_offset[0], h)
            if self._constant(h, f, &lo, &hi):
                n_constant += 1
                continue
            self.candidates[n_cand] = <int32_t> f
            if self.random_splits:
                self.cand_at[n_cand] = lo + rng_int(rng_state, hi - lo)
            work += (self.B.bin_start[f + 1] - self.B.bin_start[f]) * t
            n_cand += 1
        if n_cand == 0:
            return False
        # Each candidate's best boundary by gain |S_l - W_l m|^2 / (W_l W_r)
        # (hist_kernels.h, engine_hist_best; one drawn boundary for extra-trees).
        if self._n_threads > 1 and work >= PARALLEL_SCAN_WORK and not self.random_splits:
            for j in prange(n_cand, schedule="dynamic", num_threads=self._n_threads):
                scan_feature(&self.B, h, j, self.candidates[j], False, 0, s, t, count_slot,
                                &self.node_mean[0], rec.weight, n_node, msl,
                                &self.scan_scratch[j * self.scan_stride], &self.cand_bin[0],
                                &self.cand_gain[0], &self.cand_wl[0], &self.cand_nl[0])
        else:
            for j in range(n_cand):
                scan_feature(&self.B, h, j, self.candidates[j], self.random_splits,
                                self.cand_at[j], s, t, count_slot,
                                &self.node_mean[0], rec.weight, n_node, msl,
                                &self.scan_scratch[j * self.scan_stride], &self.cand_bin[0],
                                &self.cand_gain[0], &self.cand_wl[0], &self.cand_nl[0])
        # Reduce in draw order: a later feature wins only with a strictly larger gain.
        for j in range(n_cand):
            if self.cand_bin[j] >= 0 and self.cand_gain[j] > best_gain:
                best_gain = self.cand_gain[j]
                best = j
        if best < 0:
            return False
        rec.split.feature = self.candidates[best]
        rec.split.bin = self.cand_bin[best]
        rec.split.threshold = self.thresholds[self.threshold_start[rec.split.feature] + rec.split.bin]
        rec.split.gain = best_gain
        rec.split.weight_left = self.cand_wl[best]
        rec.split.n_left = <intp_t> self.cand_nl[best]
        rec.improvement = rec.weight * best_gain    # the SSE decrease, W * gain
        return True

    # ------------------------------------------------------------ partition and routing

    cdef void _partition(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil:
        """Stable-partition the node's samples by its split; mark their new nodes.

        A sample goes left when its bin in the split feature is <= split.bin.
        For a sparse feature every sample first takes the zero bin's side, then
        the feature's stored entries that belong to this node correct it.
        Left samples keep their order at the front, right ones follow (staged in
        tmp), so each child's samples stay in index order.
        """
        cdef intp_t f = rec.split.feature, b = rec.split.bin
        cdef intp_t col = self.B.dense_column[f]
        cdef intp_t r, e, i, n_left, n_right
        cdef uint8_t side
        cdef int32_t node = <int32_t> rec.node_id
        if self._n_threads > 1 and n_row_blocks(rec.end - rec.start) >= PARALLEL_ROW_BLOCKS:
            self._partition_blocks(rec, left_id, right_id)
            return
        if col >= 0:
            for r in range(rec.start, rec.end):
                i = self.samples[r]
                self.goes_left[i] = self.B.codes[col * self.n_samples + i] <= b
        else:
            side = self.B.zero_bin[f] <= b
            for r in range(rec.start, rec.end):
                self.goes_left[self.samples[r]] = side
            for e in range(self.B.sparse_start[f], self.B.sparse_start[f + 1]):
                i = self.B.sparse_rows[e]
                if self.node_of[i] == node:
                    self.goes_left[i] = self.B.sparse_codes[e] <= b
        n_left = rec.start
        n_right = 0
        for r in range(rec.start, rec.end):
            i = self.samples[r]
            if self.goes_left[i]:
                self.samples[n_left] = <int32_t> i
                self.node_of[i] = <int32_t> left_id
                n_left += 1
            else:
                self.tmp[n_right] = <int32_t> i
                self.node_of[i] = <int32_t> right_id
                n_right += 1
        if n_right > 0:
            memcpy(&self.samples[n_left], &self.tmp[0], n_right * sizeof(int32_t))

    cdef void _partition_blocks(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil:
        """_partition in threads, one row block per task: each block marks and counts its
        samples, the offsets follow in block order, and each block then writes its left and
        right samples at its offsets. The result is the one stable partition, exactly."""
        cdef intp_t f = rec.split.feature, bin_ = rec.split.bin
        cdef intp_t col = self.B.dense_column[f]
        cdef intp_t n_node = rec.end - rec.start, nb = n_row_blocks(n_node)
        cdef intp_t blk, r, e, i, lo, hi, lpos, rpos, total_left = 0, total_right = 0
        cdef uint8_t side
        cdef int32_t node = <int32_t> rec.node_id
        cdef intp_t* count = &self.block_left[0]
        cdef intp_t* left_at = count + nb
        cdef intp_t* right_at = count + 2 * nb
        cdef int32_t* samples = &self.samples[0]
        cdef int32_t* out = &self.tmp[0]
        cdef int32_t* node_of = &self.node_of[0]
        cdef uint8_t* goes_left = &self.goes_left[0]
        cdef const uint8_t* codes = self.B.codes
        cdef intp_t n = self.n_samples
        if col < 0:
            side = self.B.zero_bin[f] <= bin_
            for blk in prange(nb, schedule="dynamic", num_threads=self._n_threads):
                for r in range(rec.start + blk * ROW_BLOCK, block_end(blk, rec.start, rec.end)):
                    goes_left[samples[r]] = side
            for e in range(self.B.sparse_start[f], self.B.sparse_start[f + 1]):
                i = self.B.sparse_rows[e]
                if node_of[i] == node:
                    goes_left[i] = self.B.sparse_codes[e] <= bin_
        for blk in prange(nb, schedule="dynamic", num_threads=self._n_threads):
            lo = rec.start + blk * ROW_BLOCK
            hi = block_end(blk, rec.start, rec.end)
            lpos = 0            # this block's lefts, counted in a register
            for r in range(lo, hi):
                i = samples[r]
                if col >= 0:
                    goes_left[i] = codes[col * n + i] <= bin_
                lpos = lpos + goes_left[i]
            count[blk] = lpos
        for blk in range(nb):
            left_at[blk] = total_left
            total_left += count[blk]
        for blk in range(nb):
            right_at[blk] = total_left + total_right
            total_right += block_end(blk, rec.start, rec.end) - (rec.start + blk * ROW_BLOCK) - count[blk]
        for blk in prange(nb, schedule="dynamic", num_threads=self._n_threads):
            lpos = left_at[blk]
            rpos = right_at[blk]
            for r in range(rec.start + blk * ROW_BLOCK, block_end(blk, rec.start, rec.end)):
                i = samples[r]
                if goes_left[i]:
                    out[lpos] = <int32_t> i
                    node_of[i] = <int32_t> left_id
                    lpos = lpos + 1
                else:
                    out[rpos] = <int32_t> i
                    node_of[i] = <int32_t> right_id
                    rpos = rpos + 1
        memcpy(&samples[rec.start], out, n_node * sizeof(int32_t))

    cdef int32_t _code(self, intp_t i, intp_t f) noexcept nogil:
        """Bin of sample i in feature f: its code, or for a sparse feature the stored
        entry's code (binary search over the feature's rows) or else the zero bin."""
        cdef intp_t col = self.B.dense_column[f], lo, hi, mid
        if col >= 0:
            return self.B.codes[col * self.n_samples + i]
        lo = self.B.sparse_start[f]
        hi = self.B.sparse_start[f + 1]
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.B.sparse_rows[mid] < i:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.B.sparse_start[f + 1] and self.B.sparse_rows[lo] == i:
            return self.B.sparse_codes[lo]
        return self.B.zero_bin[f]

    cdef int row_threads(self) noexcept nogil:
        """The boosting loop's row loops may use the grower's threads (see Grower.row_threads)."""
        return self._n_threads

    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil:
        """In-bag samples' leaves come from the growth; the others are routed by their bins.

        Routing by bin (node_bin: the split bin of every node of the last tree)
        gives the same leaf as routing by threshold, without reading X.
        """
        cdef intp_t i, node, n = self.n_samples
        cdef intp_t first = store._starts[store._n_trees - 1]
        cdef Node* nd
        for i in range(n):
            leaf[i] = self.sample_leaf[i]
            if leaf[i] >= 0:
                continue
            node = first
            nd = &store._nodes[node]
            while nd.left_child != TREE_LEAF:
                if self._code(i, nd.feature) <= self.node_bin[node - first]:
                    node = nd.left_child
                else:
                    node = nd.right_child
                nd = &store._nodes[node]
            leaf[i] = <int32_t> node

    # ------------------------------------------------------------ growth

    cdef intp_t _reset(self, const float64_t* weights, intp_t t) except -1 nogil:
        """List the in-bag samples (in index order); set the tree's cell layout."""
        cdef intp_t n = self.n_samples, i, c, n_in = 0
        self.unit_weights = True
        for i in range(n):
            self.node_of[i] = -1
            if weights[i] != 0.0:
                self.samples[n_in] = <int32_t> i
                n_in += 1
                if weights[i] != 1.0:
                    self.unit_weights = False
        self.stride = cell_stride(t, self.unit_weights)
        self.count_slot = t if self.unit_weights else t + 1
        for c in range(self.B.n_dense):
            self.col_offset[c] = self.B.bin_start[self.B.dense_feature[c]] * self.stride
        # Feature draws start from the identity permutation in every tree.
        for i in range(self.n_features):
            self.features[i] = <int32_t> i
        self.n_free = 0
        for i in range(self.pool_allocated):
            self.free_slots[self.n_free] = i
            self.n_free += 1
        return n_in

    cdef int _open_root(self, NodeRecord* root, const float64_t* targets, intp_t t,
                        const float64_t* weights, bint may_split) except -1 nogil:
        """The root's weight and node marks; its histogram when it may be split.

        The root's histogram is built here, with root=True: when every sample
        is in bag the sparse kernels take all stored entries without testing
        node_of. (With per_node_features each node builds its drawn cells.)
        """
        cdef intp_t r
        for r in range(root.end):
            root.weight += weights[self.samples[r]]
            self.node_of[self.samples[r]] = <int32_t> root.node_id
        if may_split and self._may_split(root) and not self.per_node_features:
            root.hist = self._take_slot(self.pool_limit)
            self._build(root, True, targets, t, weights, &self.built_sums[0])
        return 0

    cdef int _evaluate_node(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                            const float64_t* weights, uint64_t* rng_state) except -1 nogil:
        """The node's SSE, then its best split from its histogram (see Grower._evaluate_node).

        As the exact grower's (a leaf when SSE <= eps t W or when no feature
        offers a threshold), plus the histogram's bookkeeping: a node that will
        be split keeps its histogram in a pool slot for its children's
        subtraction (_add_leaf gives a leaf's back).
        """
        cdef const float64_t* sums = rec.sums
        rec.sums = NULL         # valid only until the next build
        if self.per_node_features:
            # The totals give the sparse features' zero bins, and the node's sums.
            self._totals(rec, targets, t, weights, &self.totals[0])
            sums = &self.totals[0]
        rec.sse = self._node_stats(rec, targets, t, weights, sums)
        # Constant targets (up to rounding): no split can lower the SSE.
        if rec.sse <= EPSILON * t * rec.weight:
            return 0
        # A node without a histogram yet gets a buffer (a slot, else scratch):
        # built here from its samples, or with per_node_features filled feature
        # by feature in _best_split.
        if rec.hist < 0:
            rec.hist = self._take_slot(self.pool_limit)
            if not self.per_node_features:
                self._build(rec, False, targets, t, weights, &self.totals[0])
                rec.sums = NULL
        # Queued nodes keep their pool slot for the children's subtraction.
        if not self._best_split(rec, t, targets, weights, rng_state):
            return 0
        if self.per_node_features:
            self._release(rec)  # the children build their own cells
        elif rec.hist >= self.pool_limit:
            rec.hist = -1       # a scratch buffer is not kept
        return 1

    cdef int _split_node(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                         NodeRecord* right, const float64_t* targets, intp_t t,
                         const float64_t* weights, bint children_may_split) except -1 nogil:
        """Partition the parent's samples; build the children's histograms.

        The child with fewer samples is built from its samples and the other
        one is the parent's histogram minus it (in the parent's buffer).
        Children that can never be split (leaf budget, limits) get no
        histogram. node_bin keeps the split bin for training_leaves.
        """
        cdef NodeRecord* small
        cdef NodeRecord* large
        cdef bint need_small, need_large
        self._partition(parent, left.node_id, right.node_id)
        self._record_bin(store, parent)
        if children_may_split and not self.per_node_features:
            # Build the smaller child from its samples; get the larger one as
            # parent - smaller when the parent kept its histogram. A child that
            # may not be split needs no histogram, except the small one when the
            # large one is to be had by subtraction.
            if left.end - left.start <= right.end - right.start:
                small, large = left, right
            else:
                small, large = right, left
            need_small = self._may_split(small)
            need_large = self._may_split(large)
            if need_small or (need_large and parent.hist >= 0):
                small.hist = self._take_slot(self.pool_limit)
                self._build(small, False, targets, t, weights, &self.built_sums[0])
            if need_large:
                if parent.hist >= 0 and small.hist >= 0:
                    # The sibling trick: large = parent - small, in the parent's buffer.
                    large.hist = parent.hist
                    parent.hist = -1
                    subtract_histogram(self._buffer(large.hist), self._buffer(large.hist),
                                       self._buffer(small.hist),
                                       self.B.total_bins * self.stride, self._n_threads)
                else:
                    # No parent histogram (pool full): build it from its samples too,
                    # in the second scratch buffer if the pool has no slot.
                    large.hist = self._take_slot(self.pool_limit + 1)
                    self._build(large, False, targets, t, weights,
                                &self.built_sums[self.max_t + 8])
        self._release(parent)
        return 0

    cdef int _record_bin(self, TreeStore store, NodeRecord* parent) except -1 nogil:
        """node_bin[parent] = its split bin (node_bin grows with the tree)."""
        cdef intp_t at = parent.node_id - store._starts[store._n_trees - 1]
        cdef int32_t* grown
        if at >= self.node_bin_capacity:
            grown = <int32_t*> realloc(self.node_bin, 2 * (at + 1) * sizeof(int32_t))
            if grown == NULL:
                with gil:
                    raise MemoryError()
            self.node_bin = grown
            self.node_bin_capacity = 2 * (at + 1)
        self.node_bin[at] = <int32_t> parent.split.bin
        return 0

    cdef void _leaf_sums(self, NodeRecord* rec, const float64_t* labels, intp_t m,
                         const float64_t* weights, float64_t* values) noexcept nogil:
        """A leaf's weighted label sums into its value slot.

        One label is summed in a register: leaves sharing a cache line of
        values would otherwise slow each other's threads down (false sharing).
        """
        cdef intp_t r, i, k
        cdef float64_t w, acc
        cdef const float64_t* y
        cdef float64_t* value = values + rec.node_id * m
        if m == 1:
            acc = value[0]
            for r in range(rec.start, rec.end):
                i = self.samples[r]
                acc += weights[i] * labels[i]
            value[0] = acc
            return
        for r in range(rec.start, rec.end):
            i = self.samples[r]
            w = weights[i]
            y = labels + i * m
            for k in range(m):
                value[k] += w * y[k]

    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil:
        """Assign samples to leaves; fill node values (label means) and leaf impurities.

        Node values as the exact grower's: sum_i w_i L_i / W over each node's
        in-bag samples (L = G for gbmort and Algorithm 4's relabelled trees).
        """
        cdef intp_t first = store._starts[store._n_trees - 1]
        cdef intp_t m = store.n_values
        cdef intp_t a, node
        cdef NodeRecord* rec
        cdef Node* nd
        cdef float64_t* values = store._values
        # Every leaf sums its own rows in order, so the leaves can go to threads.
        if self._n_threads > 1 and n_row_blocks(self.n_samples) >= PARALLEL_ROW_BLOCKS:
            for a in prange(self.n_leaves, schedule="dynamic", num_threads=self._n_threads):
                self._leaf_sums(&self.leaves[a], labels, m, weights, values)
        else:
            for a in range(self.n_leaves):
                self._leaf_sums(&self.leaves[a], labels, m, weights, values)
        for a in range(self.n_leaves):
            rec = &self.leaves[a]
            node = rec.node_id
            nd = &store._nodes[node]
            if rec.sse < 0.0 and self.leaf_impurity:
                rec.sse = self._node_stats(rec, targets, t, weights, NULL)
            if rec.sse < 0.0:
                nd.impurity = NAN
            else:
                nd.impurity = rec.sse / rec.weight if rec.weight > 0.0 else 0.0
        store.sums_to_means(first)
        return 0

    # ------------------------------------------------------------ test hooks

    def node_histogram(self, targets, sample_weight=None, samples=None):
        """The histogram of a node holding ``samples`` (default: all), built from its samples.

        Returns an ndarray (total_bins, t + 2): per bin the target sums, the
        weight sum and the count (with unit weights the grower keeps only
        the first, as the weight sum is the count; it is repeated here).
        """
        T = np.ascontiguousarray(targets, dtype=np.float64).reshape(self.n_samples, -1)
        n, t = T.shape
        if t > self.max_t:
            raise ValueError(f"the grower was sized for {self.max_t} targets, got {t}")
        w = np.ones(n) if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
        rows = np.arange(n) if samples is None else np.asarray(samples)
        rows = np.sort(rows[w[rows] != 0]).astype(np.int32)
        cdef const float64_t[:, ::1] Tv = T
        cdef const float64_t[::1] wv = w
        cdef NodeRecord rec
        cdef intp_t k
        self.unit_weights = bool(np.all(w[rows] == 1.0))
        self.stride = cell_stride(t, self.unit_weights)
        self.count_slot = t if self.unit_weights else t + 1
        buf = np.zeros(max(self.B.total_bins, 1) * self.stride + 8)
        first = (-buf.ctypes.data % 64) // 8          # 64-byte aligned, as the pool's buffers
        out = buf[first:first + max(self.B.total_bins, 1) * self.stride].reshape(-1, self.stride)
        cdef float64_t[:, ::1] ov = out
        for k in range(self.B.n_dense):
            self.col_offset[k] = self.B.bin_start[self.B.dense_feature[k]] * self.stride
        np.asarray(self.node_of)[:] = -1
        np.asarray(self.node_of)[rows] = 0
        np.asarray(self.samples)[:len(rows)] = rows
        rec.start = 0
        rec.end = len(rows)
        rec.node_id = 0
        self._totals(&rec, &Tv[0, 0], t, &wv[0], &self.totals[0])
        build_histogram(&self.B, &self.samples[0], rec.end, 0, &self.node_of[0], &Tv[0, 0], t,
                        NULL if self.unit_weights else &wv[0], &self.totals[0], self.stride,
                        &self.col_offset[0], &ov[0, 0], self._n_threads)
        out = out[:self.B.total_bins]
        if self.unit_weights:
            return np.column_stack([out[:, :t + 1], out[:, t]])
        return out[:, :t + 2].copy()

