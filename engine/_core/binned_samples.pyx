"""The histogram grower's binned features and its node sample lists.

The training features, binned once (binning.pyx), are read through a
BinnedView (histogram.pxd): dense features as uint8 codes in column-major
order, sparse features as their stored entries (row, code), every other
sample of a sparse feature being in its zero bin. Over them, one growth keeps
every in-bag sample in ``samples``, each node's samples a range of it in
index order, and ``node_of``, the node of every sample. This module computes:

* the stable partition of a node's range by a split (code <= bin goes left).
  For a sparse split feature every sample first takes the zero bin's side,
  then the feature's stored entries that belong to the node (node_of)
  correct it; in OpenMP threads, one row block per task (row_blocks.pxd),
  with the one result of the serial partition;
* a sample's bin in any feature (a sparse one: binary search of its entries);
* the routing of out-of-bag samples to their leaves by bin (node_bin: the
  split bin of every split node of the last tree): the same leaves as
  routing by threshold, without reading X.
"""
from cython.parallel cimport prange
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy

import numpy as np

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint8_t
from engine._core.tree_store cimport TreeStore, Node, TREE_LEAF
from engine._core.grower_base cimport Grower
from engine._core.histogram import sparse_by_row, work_units
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks
from engine._core.frontier cimport NodeRecord


cdef class BinnedSamples(Grower):
    """Binned features and node sample lists; HistGrower's first layer (no constructor of its own)."""

    def __dealloc__(self):
        """Free node_bin."""
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
    def n_units(self):
        """Work units of a histogram build (dense blocks and sparse features)."""
        return self.B.n_units

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
