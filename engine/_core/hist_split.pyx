"""Split search over a node's histogram.

Given the node's histogram h (histogram.pyx: per bin of every feature the
sums of the t split targets, the weight and the count), its mean m and
weight W (hist_sums.pyx), this module finds the node's best split:

1. features are drawn as the exact grower draws them (``max_features``
   visited, at least one not constant in the node); a feature whose node
   samples all sit in one bin is constant. With per_node_features (forests'
   max_features < p) only the drawn features' cells are built, here;
2. every candidate's bins are scanned left to right (scan_feature,
   hist_kernels.h): the best boundary by gain |S_l - W_l m|^2 / (W_l W_r),
   or for extra-trees one boundary drawn between the node's lowest and
   highest occupied bins. The scans run in OpenMP threads when there is
   enough work, each into its own candidate slot;
3. the candidates are reduced in draw order: a later feature wins only with
   a strictly larger gain, so the tree does not depend on the number of
   threads. The split's threshold is its bin's upper boundary in feature units.
"""
from cython.parallel cimport prange
from libc.math cimport INFINITY

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.hist_sums cimport HistSums
from engine._core.histogram cimport build_feature, scan_feature
from engine._core.rng cimport draw_next, rng_int
from engine._core.frontier cimport NodeRecord

# The candidates' scans go to threads from this many cells x targets on (a
# node of 50 features of 255 bins with one target is 12750): below it a
# parallel region costs more than it saves. Each candidate's running sums sit
# on cache lines of their own (scan_stride), or neighbouring scans on two
# threads would keep stealing each other's lines.
cdef intp_t PARALLEL_SCAN_WORK = 1 << 12


cdef class HistSplitter(HistSums):
    """Split search over histograms; HistGrower's third layer (no constructor of its own)."""

    @property
    def per_node_features(self):
        """Whether a node builds only its drawn features' cells (max_features < p).

        Settable, for tests: False builds every feature's cells, with the sibling subtraction.
        """
        return self.per_node_features

    @per_node_features.setter
    def per_node_features(self, value):
        self.per_node_features = bool(value)

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

    cdef bint _best_split(self, NodeRecord* rec, float64_t* h, intp_t t, const float64_t* targets,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil:
        """Search the node's best split from its histogram h; fill rec.split
        (feature, bin, the bin's threshold, gain, left weight and count) and
        rec.improvement.

        Needs node_mean and rec.weight (from _node_stats); with per_node_features
        it builds each drawn feature's cells into h first (and needs the node's totals).
        """
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
