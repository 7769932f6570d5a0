"""A node's sums over its samples, for the histogram grower.

Over a node's samples (a range of ``samples``, binned_samples.pyx) with
weights w_i and split targets y_i (t per sample), this module computes:

* the node's cell totals (S_1..S_t, W, count: the layout of a histogram's
  cells, histogram.pyx), which seed the sparse features' zero bins;
* the node mean m = S / W and weighted SSE = sum_i w_i |y_i - m|^2, in two
  passes (no cancellation for targets with a large mean), as the exact
  grower's; the SSE times 1 / W is the node's impurity;
* a leaf's weighted label sums (its value before the division by W).

Sums over many samples run in fixed row blocks (row_blocks.pxd), in OpenMP
threads when there is enough work; the blocks do not depend on the number
of threads, so neither do the sums. The totals' target and weight sums are
bit for bit the first pass of the statistics, which therefore reuses them.
"""
from cython.parallel cimport prange

from engine._core.typedefs cimport float64_t, intp_t
from engine._core.binned_samples cimport BinnedSamples, PARALLEL_ROW_BLOCKS
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks, padded_width
from engine._core.frontier cimport NodeRecord


cdef class HistSums(BinnedSamples):
    """Node sums in row blocks; HistGrower's second layer (no constructor of its own)."""

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
