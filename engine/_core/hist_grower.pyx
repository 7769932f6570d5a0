"""Histogram split search and best-first growth of regression trees.

The same trees as the exact grower (grower.pyx) in every respect but where
thresholds may sit: the criterion (SSE summed over the split targets, its
centred gain), best-first growth (the skeleton both share, Grower.grow in
grower_base.pyx), the stopping rules, the tie-breaking (lowest feature
visited first, then lowest threshold), the feature draws of
``max_features`` and the node values (weighted label means) are the same.
Candidate thresholds are the bin boundaries of binning.pyx, in the original
feature units: a fitted tree is stored in a TreeStore like any other and
predicts from raw features.

Per node, instead of scanning every sample of every feature:

1. the node's histogram (histogram.pyx) holds per bin the sums of the t
   split targets, the weight and the count; only the child with fewer
   samples is built from its samples, the other is its parent's histogram
   minus it (the sibling subtraction, here);
2. every candidate feature's bins are scanned left to right (hist_split.pyx):
   cost O(bins x t) per feature, independent of the node's size;
3. the chosen split partitions the node's sample list stably
   (binned_samples.pyx, which also handles the sparse features).

The class is built in layers, one concept per module: BinnedSamples
(binned_samples.pyx: binned features, sample lists, partition, routing) <
HistSums (hist_sums.pyx: a node's sums in row blocks) < HistSplitter
(hist_split.pyx: split search over a histogram) < HistGrower (here: the
histogram buffers of the nodes, the sibling subtraction, and the per-node
operations the best-first skeleton calls: _reset, _open_root, _node_sse,
_search_split, _split_node, _add_leaf, _finish).

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
from libc.stdlib cimport malloc, free
from libc.math cimport NAN

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore, Node
from engine._core.grower_base cimport Grower
from engine._core.binned_samples cimport PARALLEL_ROW_BLOCKS
from engine._core.hist_split cimport HistSplitter
from engine._core.histogram cimport (
    alloc_histogram,
    build_histogram,
    cell_stride,
    subtract_histogram,
)
from engine._core.row_blocks cimport n_row_blocks, padded_width
from engine._core.frontier cimport NodeRecord

# Histogram memory a grower may keep for the nodes waiting in its frontier.
HIST_MEMORY_BUDGET = 256 * 2**20


cdef class HistGrower(HistSplitter):
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
        """Free the histogram buffers."""
        cdef intp_t k
        if self.pool != NULL:
            for k in range(self.pool_allocated):
                free(self.pool[k])
        free(self.pool)
        free(self.free_slots)
        free(self.scratch[0])
        free(self.scratch[1])

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

    # ------------------------------------------------------------ histograms of nodes

    cdef void _build(self, NodeRecord* rec, bint root, const float64_t* targets, intp_t t,
                     const float64_t* weights, float64_t* tot) noexcept nogil:
        """The node's histogram from its samples, into its buffer; its totals into tot,
        which rec.sums then points to (for _node_sse).

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

    cdef float64_t _node_sse(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                             const float64_t* weights) noexcept nogil:
        """The node's SSE (_node_stats), from the totals of its histogram's build when known."""
        cdef const float64_t* sums = rec.sums
        rec.sums = NULL         # valid only until the next build
        if self.per_node_features:
            # The totals give the sparse features' zero bins, and the node's sums.
            self._totals(rec, targets, t, weights, &self.totals[0])
            sums = &self.totals[0]
        return self._node_stats(rec, targets, t, weights, sums)

    cdef int _search_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state) except -1 nogil:
        """The node's best split from its histogram (HistSplitter._best_split).

        With the histogram's bookkeeping: a node that will be split keeps its
        histogram in a pool slot for its children's subtraction (_add_leaf
        gives a leaf's back).
        """
        # A node without a histogram yet gets a buffer (a slot, else scratch):
        # built here from its samples, or with per_node_features filled feature
        # by feature in _best_split.
        if rec.hist < 0:
            rec.hist = self._take_slot(self.pool_limit)
            if not self.per_node_features:
                self._build(rec, False, targets, t, weights, &self.totals[0])
                rec.sums = NULL
        # Queued nodes keep their pool slot for the children's subtraction.
        if not self._best_split(rec, self._buffer(rec.hist), t, targets, weights, rng_state):
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
