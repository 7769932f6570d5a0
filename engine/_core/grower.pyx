"""Exact split search and best-first growth of regression trees.

Criterion. A node's impurity is the sum over its split targets of the weighted
variance (multi-output variance, Breiman et al. 1984; paper 002 section 3.3.3).
Splitting a node with weight W and target sum S into (W_l, S_l) and
(W_r, S_r) lowers the weighted sum of squared errors by

    improvement = |S_l|^2 / W_l + |S_r|^2 / W_r - |S|^2 / W,

which equals W |S_l - W_l m|^2 / (W_l W_r) with m = S / W the node mean: the
search maximises that centred form, which stays accurate when the targets have
a large mean.

Splitter. X never changes during a boosting fit, so every feature is sorted
once (``order``). A tree starts from a copy of those sorted rows holding only
the in-bag samples, and when a node is split every feature's row is
partitioned stably, so each child's samples stay sorted in every feature and
no node ever sorts. Thresholds sit halfway between consecutive distinct values
(values closer than 1e-7 are not separated), as in scikit-learn, so trees grown
on the same float32 data agree with scikit-learn's.

Growth. Best-first, by the skeleton both growers share (Grower.grow,
grower_base.pyx): this grower supplies the per-node operations, evaluating a
node (statistics, split search: _node_sse, _search_split), applying a split (the
partition of the sorted rows: _split_node) and labelling the leaves
(_finish). Ties go to the lower feature index, then the lower threshold.

Features are visited in index order when all are candidates; with
``max_features = k`` they are drawn without replacement until k have been
visited and at least one of them is not constant in the node.
"""
import numpy as np

from libc.string cimport memcpy
from libc.math cimport INFINITY, NAN

from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t, uint8_t, uint64_t
from engine._core.tree_store cimport TreeStore, Node, TREE_LEAF
from engine._core.grower_base cimport Grower
from engine._core.rng cimport draw_next, rng_uniform
from engine._core.frontier cimport NodeRecord

cdef extern from "scan_kernels.h" nogil:
    void engine_left_norms(const float64_t* centered, intp_t stride, intp_t t,
                           const int32_t* samples, const float64_t* weights,
                           intp_t n_rows, float64_t* sq)
    intp_t engine_best_row(const float64_t* sq, const float32_t* xv, const int32_t* samples,
                           const float64_t* weights, float64_t W, const float64_t* inverse,
                           intp_t n_node, intp_t lo, intp_t hi, float64_t gap,
                           float64_t* best_gain, float64_t* w_left)
    void engine_left_norms_pair(const float64_t* centered, intp_t stride, intp_t t,
                                const int32_t* samples_a, const int32_t* samples_b,
                                const float64_t* weights, intp_t n_rows,
                                float64_t* sq_a, float64_t* sq_b)
    void engine_single_norms_unit(const float64_t* targets, const int32_t* samples_a,
                                  const int32_t* samples_b, intp_t n_rows, float64_t mean,
                                  float64_t* sq_a, float64_t* sq_b)
    int engine_scan_init()
    int engine_set_simd(int enabled)

engine_scan_init()


def set_simd(bint enabled):
    """Use the AVX2 split-scan kernels (where the CPU has AVX2) or the portable ones.

    Returns whether the AVX2 kernels are now in use. For tests and benchmarks:
    the two must grow the same trees up to rounding.
    """
    return bool(engine_set_simd(enabled))

cdef float64_t FEATURE_THRESHOLD = 1e-7


cdef inline float64_t _midpoint(float64_t lo, float64_t hi) noexcept nogil:
    """Threshold between two consecutive sorted values (scikit-learn's rule)."""
    cdef float64_t threshold = lo / 2.0 + hi / 2.0
    if threshold == hi or threshold == INFINITY or threshold == -INFINITY:
        threshold = lo
    return threshold


cdef class TreeGrower(Grower):
    """Grows one tree at a time on fixed training inputs.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32
        Training inputs; sorted once here.
    max_leaf_nodes, max_depth : int
        Growth limits, <= 0 for none.
    min_samples_leaf, min_samples_split, max_features : int
        As in scikit-learn, already resolved to integers.
    random_splits : bool
        Draw one random threshold per feature (extremely randomized trees)
        instead of searching all of them.
    max_targets : int
        Largest number of split targets a tree will be grown on.
    leaf_impurity : bool
        Compute the impurity of leaves that were never evaluated for a split
        (two extra passes over their samples). Boosting, which never reads
        it, turns this off; those leaves then store NaN.
    """

    def __init__(self, X, *, intp_t max_leaf_nodes=0, intp_t max_depth=0,
                 intp_t min_samples_leaf=1, intp_t min_samples_split=2,
                 intp_t max_features=0, bint random_splits=False,
                 intp_t max_targets=1, bint leaf_impurity=True):
        X = np.asfortranarray(X, dtype=np.float32)
        if X.ndim != 2:
            raise ValueError("X must be 2-D")
        self.X = X
        self.n_samples, self.n_features = X.shape
        order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T, dtype=np.int32)
        self.order = order
        self.sorted_x = np.ascontiguousarray(np.take_along_axis(X, order.T, axis=0).T)
        self._set_limits(max_leaf_nodes, max_depth, min_samples_leaf, min_samples_split,
                         max_features, random_splits, leaf_impurity)
        n, p = self.n_samples, self.n_features
        self.idx = np.empty((p, n), dtype=np.int32)
        self.xs = np.empty((p, n), dtype=np.float32)
        self.tmp_idx = np.empty(n, dtype=np.int32)
        self.tmp_x = np.empty(n, dtype=np.float32)
        self.goes_left = np.zeros(n, dtype=np.uint8)
        self.features = np.arange(p, dtype=np.int32)
        t = max(max_targets, 1)
        self.node_sum = np.zeros(t)
        rows = n if t > 1 else 1
        # The scans gather whole rows in random order: starting the buffer on a
        # 64-byte cache line keeps a 16-output row (128 bytes) on two lines, not three.
        buf = np.zeros(rows * t + 8)
        first = (-buf.ctypes.data % 64) // 8
        self.centered = buf[first:first + rows * t].reshape(rows, t)
        self.left_sum = np.zeros(t)
        self.row_sq = np.zeros(max(2 * n, 1))     # |S_l|^2 per row of two features (paired scans)
        self.node_mean = np.zeros(t)
        self.node_weight = np.zeros(64)
        self.sample_leaf = np.full(n, -1, dtype=np.int32)
        self.inverse = 1.0 / np.maximum(np.arange(n + 1, dtype=np.float64), 1.0)

    @property
    def max_targets(self):
        """Largest number of split targets t a tree may be grown on (the buffers' width)."""
        return self.node_sum.shape[0]

    # ------------------------------------------------------------ node statistics

    cdef float64_t _node_stats(self, NodeRecord* rec, const float64_t* targets,
                               intp_t t, const float64_t* weights) noexcept nogil:
        """Fill node_sum and node_mean; return the node's weighted SSE (two passes).

        For the node's samples i with weights w_i and split targets y_i (rows of
        G, G Phi^T or one column): S = sum_i w_i y_i, W = sum_i w_i, m = S / W
        and SSE = sum_i w_i |y_i - m|^2 (W times the impurity). Two passes, mean
        first, rather than sum |y|^2 - |S|^2 / W, which cancels badly when the
        targets have a large mean. With several targets and exact splits the
        second pass also stores the centred targets y_i - m the split search
        reads (one pass over n x t saved).
        """
        cdef intp_t r, k, i
        cdef const int32_t* samples = self.rows_idx + rec.range_feature * self.n_samples
        cdef float64_t w, W = 0.0, diff, sse = 0.0
        cdef const float64_t* y
        cdef float64_t* c
        cdef intp_t stride = self.centered.shape[1]
        for k in range(t):
            self.node_sum[k] = 0.0
        for r in range(rec.start, rec.end):
            i = samples[r]
            w = weights[i]
            W += w
            y = targets + i * t
            for k in range(t):
                self.node_sum[k] += w * y[k]
        for k in range(t):
            self.node_mean[k] = self.node_sum[k] / W if W > 0.0 else 0.0
        # Second pass: SSE about m (and, for the multi-target scans, y_i - m).
        if t > 1 and not self.random_splits:
            for r in range(rec.start, rec.end):
                i = samples[r]
                y = targets + i * t
                c = &self.centered[0, 0] + i * stride
                w = weights[i]
                for k in range(t):
                    diff = y[k] - self.node_mean[k]
                    c[k] = diff
                    sse += w * diff * diff
        else:
            for r in range(rec.start, rec.end):
                i = samples[r]
                y = targets + i * t
                for k in range(t):
                    diff = y[k] - self.node_mean[k]
                    sse += weights[i] * diff * diff
        rec.weight = W
        return sse

    # ------------------------------------------------------------ split search

    cdef bint _best_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil:
        """Search the best split of a node; fill rec.split and rec.improvement.

        Needs node_mean, rec.weight and (several targets) the centred targets
        from _node_stats. Candidate splits are
        ranked by gain = |S_l - W_l m|^2 / (W_l W_r), where m is the node's
        mean target; the SSE decrease of a split is W times its gain. This
        centred form equals the textbook proxy but does not subtract large
        nearly equal numbers when the targets have a large mean.
        """
        cdef intp_t n_node = rec.end - rec.start
        cdef intp_t p = self.n_features
        cdef intp_t n_drawn = 0, n_visited = 0, n_constant = 0, f
        cdef const float32_t* xv
        cdef bint found = False
        # Exact scans visit features two at a time (one pass computes both
        # features' left sums); single-target weighted scans stay one at a time.
        cdef bint pair = not self.random_splits and (t > 1 or self.unit_weights)
        cdef intp_t pending = -1                # pair: a feature waiting for a partner
        cdef SplitRecord best
        best.gain = -INFINITY
        # Draw features until max_features have been visited and at least one
        # of them was not constant in the node (scikit-learn's rule).
        while n_drawn < p and (n_visited < self.max_features or n_visited <= n_constant):
            f = draw_next(&self.features[0], n_drawn, p, self.max_features < p, rng_state)
            n_drawn += 1
            n_visited += 1
            xv = self.rows_x + f * self.n_samples + rec.start
            # The node's values of f are sorted: constant when max <= min + 1e-7.
            if xv[n_node - 1] <= xv[0] + FEATURE_THRESHOLD:
                n_constant += 1
                continue
            if pair:
                if pending < 0:
                    pending = f
                elif t == 1:
                    found |= self._scan_single_pair(rec, pending, f, targets, &best)
                    pending = -1
                else:
                    found |= self._scan_multi_pair(rec, pending, f, t, weights, &best)
                    pending = -1
            elif self.random_splits:
                found |= self._scan_random(rec, f, targets, t, weights, rng_state, &best)
            else:
                found |= self._scan_single(rec, f, targets, weights, &best)
        # An odd number of candidate features leaves one without a partner.
        if pending >= 0 and t == 1:
            found |= self._scan_single_pair(rec, pending, -1, targets, &best)
        elif pending >= 0:
            found |= self._scan_multi_pair(rec, pending, -1, t, weights, &best)
        if found:
            rec.split = best
            rec.improvement = rec.weight * best.gain    # the SSE decrease, W * gain
        return found

    cdef bint _scan_single_pair(self, NodeRecord* rec, intp_t fa, intp_t fb,
                                const float64_t* targets, SplitRecord* best) noexcept nogil:
        """All thresholds of features fa then fb (fb < 0: fa alone), one target, unit weights.

        One pass computes both features' centred left sums (two independent
        running sums, engine_single_norms_unit); each feature's thresholds are
        then ranked in turn, fa first, so ties still go to the feature visited first.
        """
        cdef intp_t n = self.n_samples
        cdef intp_t n_node = rec.end - rec.start
        cdef intp_t msl = self.min_samples_leaf
        cdef intp_t n_rows = n_node - msl        # rows that can end a left child
        cdef float64_t* sq = &self.row_sq[0]
        if n_rows < msl:
            return False
        engine_single_norms_unit(targets, self.rows_idx + fa * n + rec.start,
                                 self.rows_idx + fb * n + rec.start if fb >= 0 else NULL,
                                 n_rows, self.node_mean[0], sq, sq + n)
        cdef bint found = self._rank(rec, fa, sq, NULL, best)
        if fb >= 0:
            found |= self._rank(rec, fb, sq + n, NULL, best)
        return found

    cdef bint _scan_multi_pair(self, NodeRecord* rec, intp_t fa, intp_t fb, intp_t t,
                               const float64_t* weights, SplitRecord* best) noexcept nogil:
        """All thresholds of features fa then fb (fb < 0: fa alone) for several
        (centred) targets.

        engine_left_norms_pair (scan_kernels.h) writes |S_l|^2 for every row of both
        features in one pass that keeps both running sums in registers; each
        feature's thresholds are then ranked in turn, fa first.
        """
        cdef intp_t n = self.n_samples
        cdef intp_t n_node = rec.end - rec.start
        cdef intp_t msl = self.min_samples_leaf
        cdef intp_t n_rows = n_node - msl        # rows that can end a left child
        cdef float64_t* sq = &self.row_sq[0]
        cdef const float64_t* w = NULL if self.unit_weights else weights
        if n_rows < msl:
            return False
        engine_left_norms_pair(&self.centered[0, 0], self.centered.shape[1], t,
                               self.rows_idx + fa * n + rec.start,
                               self.rows_idx + fb * n + rec.start if fb >= 0 else NULL,
                               w, n_rows, sq, sq + n)
        cdef bint found = self._rank(rec, fa, sq, w, best)
        if fb >= 0:
            found |= self._rank(rec, fb, sq + n, w, best)
        return found

    cdef bint _rank(self, NodeRecord* rec, intp_t f, const float64_t* sq,
                    const float64_t* weights, SplitRecord* best) noexcept nogil:
        """Best threshold of feature f from its rows' |S_l - W_l m|^2 (weights NULL: unit).

        sq[r] = |S_l - W_l m|^2 when the first r + 1 samples go left;
        engine_best_row (scan_kernels.h) divides by W_l W_r, skips positions
        between equal values and leaves closer than min_samples_leaf, and keeps
        the first strictly better gain (ties: the lower threshold).
        """
        cdef const int32_t* samples = self.rows_idx + f * self.n_samples + rec.start
        cdef const float32_t* xv = self.rows_x + f * self.n_samples + rec.start
        cdef intp_t n_node = rec.end - rec.start
        cdef intp_t msl = self.min_samples_leaf
        cdef float64_t w_left = 0.0
        cdef intp_t r = engine_best_row(sq, xv, samples, weights, rec.weight, &self.inverse[0],
                                        n_node, msl - 1, n_node - msl, FEATURE_THRESHOLD,
                                        &best.gain, &w_left)
        if r < 0:
            return False
        best.feature = f
        best.n_left = r + 1
        best.weight_left = w_left
        best.threshold = _midpoint(xv[r], xv[r + 1])
        return True

    cdef bint _scan_single(self, NodeRecord* rec, intp_t f, const float64_t* targets,
                           const float64_t* weights, SplitRecord* best) noexcept nogil:
        """All thresholds of feature f for one target (weighted, or extra-trees off).

        The running left sum S_l and weight W_l give, at every position between
        two distinct values, gain = (S_l - W_l m)^2 / (W_l W_r); the first
        strictly best gain wins, so ties go to the lower threshold.
        """
        cdef const int32_t* samples = self.rows_idx + f * self.n_samples + rec.start
        cdef const float32_t* xv = self.rows_x + f * self.n_samples + rec.start
        cdef intp_t n_node = rec.end - rec.start
        cdef intp_t msl = self.min_samples_leaf
        cdef float64_t mean = self.node_mean[0], W = rec.weight
        cdef float64_t sum_left = 0.0, w_left = 0.0, w, gain, c
        cdef intp_t r, i
        cdef bint found = False
        cdef const float64_t* inv = &self.inverse[0]
        if self.unit_weights:
            # W_left = r + 1, and 1/k comes from a table: no division in the loop.
            for r in range(n_node - 1):
                sum_left += targets[samples[r]]
                if r + 1 < msl:
                    continue
                if n_node - r - 1 < msl:
                    break
                if xv[r + 1] <= xv[r] + FEATURE_THRESHOLD:
                    continue
                c = sum_left - (r + 1) * mean
                gain = c * c * inv[r + 1] * inv[n_node - r - 1]
                if gain > best.gain:
                    best.gain = gain
                    best.feature = f
                    best.n_left = r + 1
                    best.weight_left = r + 1
                    best.threshold = _midpoint(xv[r], xv[r + 1])
                    found = True
            return found
        for r in range(n_node - 1):
            i = samples[r]
            w = weights[i]
            sum_left += w * targets[i]
            w_left += w
            if r + 1 < msl:
                continue
            if n_node - r - 1 < msl:
                break
            if xv[r + 1] <= xv[r] + FEATURE_THRESHOLD:
                continue
            c = sum_left - w_left * mean
            gain = c * c / (w_left * (W - w_left))
            if gain > best.gain:
                best.gain = gain
                best.feature = f
                best.n_left = r + 1
                best.weight_left = w_left
                best.threshold = _midpoint(xv[r], xv[r + 1])
                found = True
        return found

    cdef bint _scan_random(self, NodeRecord* rec, intp_t f, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state,
                           SplitRecord* best) noexcept nogil:
        """One threshold drawn uniformly between the node's min and max of feature f.

        Extremely randomized trees (Geurts et al. 2006): the drawn threshold's
        gain |S_l - W_l m|^2 / (W_l W_r) competes with the other features' drawn
        thresholds; a draw leaving fewer than min_samples_leaf samples on a side
        is no candidate.
        """
        cdef const int32_t* samples = self.rows_idx + f * self.n_samples + rec.start
        cdef const float32_t* xv = self.rows_x + f * self.n_samples + rec.start
        cdef intp_t n_node = rec.end - rec.start
        cdef float64_t lo = xv[0], hi = xv[n_node - 1]
        cdef float64_t threshold = lo + rng_uniform(rng_state) * (hi - lo)
        cdef float64_t* left = &self.left_sum[0]
        cdef float64_t W = rec.weight, w_left = 0.0, w, gain, sq = 0.0, c
        cdef const float64_t* y
        cdef intp_t r, i, k, n_left = 0
        if threshold >= hi:
            threshold = lo
        while n_left < n_node and xv[n_left] <= threshold:
            n_left += 1
        if n_left < self.min_samples_leaf or n_node - n_left < self.min_samples_leaf:
            return False
        for k in range(t):
            left[k] = 0.0
        for r in range(n_left):
            i = samples[r]
            w = weights[i]
            y = targets + i * t
            for k in range(t):
                left[k] += w * y[k]
            w_left += w
        for k in range(t):
            c = left[k] - w_left * self.node_mean[k]
            sq += c * c
        gain = sq / (w_left * (W - w_left))
        if gain > best.gain:
            best.gain = gain
            best.feature = f
            best.n_left = n_left
            best.weight_left = w_left
            best.threshold = threshold
            return True
        return False

    # ------------------------------------------------------------ partition

    cdef void _partition(self, NodeRecord* rec) noexcept nogil:
        """Stable-partition every feature row of the node by the chosen split.

        The split feature's row is already in order (left samples first); the
        others are walked once, left samples kept in place and right samples
        staged in tmp_*, so both children stay sorted in every feature without
        any sort. The first split of a tree that reads the presorted rows in
        place copies them first (the presorted arrays are shared by all trees).
        """
        cdef intp_t f_split = rec.split.feature
        cdef intp_t mid = rec.start + rec.split.n_left
        cdef intp_t r, g, i, n_left, n_right
        cdef intp_t n = self.n_samples, p = self.n_features
        if not self.rows_are_copy:
            memcpy(&self.idx[0, 0], &self.order[0, 0], p * n * sizeof(int32_t))
            memcpy(&self.xs[0, 0], &self.sorted_x[0, 0], p * n * sizeof(float32_t))
            self.rows_idx = &self.idx[0, 0]
            self.rows_x = &self.xs[0, 0]
            self.rows_are_copy = True
        for r in range(rec.start, rec.end):
            self.goes_left[self.idx[f_split, r]] = r < mid
        for g in range(self.n_features):
            if g == f_split:
                continue
            n_left = rec.start
            n_right = 0
            for r in range(rec.start, rec.end):
                i = self.idx[g, r]
                if self.goes_left[i]:
                    self.idx[g, n_left] = <int32_t> i
                    self.xs[g, n_left] = self.xs[g, r]
                    n_left += 1
                else:
                    self.tmp_idx[n_right] = <int32_t> i
                    self.tmp_x[n_right] = self.xs[g, r]
                    n_right += 1
            if n_right > 0:
                memcpy(&self.idx[g, n_left], &self.tmp_idx[0], n_right * sizeof(int32_t))
                memcpy(&self.xs[g, n_left], &self.tmp_x[0], n_right * sizeof(float32_t))

    # ------------------------------------------------------------ growth

    cdef intp_t _reset(self, const float64_t* weights, intp_t t) except -1 nogil:
        """Set up the tree's sample rows: the in-bag (non-zero weight) samples, sorted per feature.

        Returns the number of in-bag samples. unit_weights records whether
        every in-bag weight is 1, which lets the scans count instead of sum.
        """
        cdef intp_t n = self.n_samples, p = self.n_features, f, r, i, n_in = 0
        # Feature draws start from the identity permutation in every tree, so a
        # tree depends only on the generator state (not on earlier trees).
        for f in range(p):
            self.features[f] = <int32_t> f
        self.unit_weights = True
        for i in range(n):
            self.sample_leaf[i] = -1
            if weights[i] != 0.0:
                n_in += 1
                if weights[i] != 1.0:
                    self.unit_weights = False
        if n_in == n:
            # Read the presorted rows in place; _partition copies them if needed.
            self.rows_idx = &self.order[0, 0]
            self.rows_x = &self.sorted_x[0, 0]
            self.rows_are_copy = False
        else:
            self.rows_idx = &self.idx[0, 0]
            self.rows_x = &self.xs[0, 0]
            self.rows_are_copy = True
            for f in range(p):
                n_in = 0
                for r in range(n):
                    i = self.order[f, r]
                    if weights[i] != 0.0:
                        self.idx[f, n_in] = <int32_t> i
                        self.xs[f, n_in] = self.sorted_x[f, r]
                        n_in += 1
        return n_in

    cdef int _open_root(self, NodeRecord* root, const float64_t* targets, intp_t t,
                        const float64_t* weights, bint may_split) except -1 nogil:
        """The root's weight: the in-bag weights summed in feature 0's sorted order."""
        cdef intp_t r
        for r in range(root.end):
            root.weight += weights[self.rows_idx[r]]
        return 0

    cdef float64_t _node_sse(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                             const float64_t* weights) noexcept nogil:
        """The node's SSE (_node_stats: also its sum, mean and centred targets)."""
        return self._node_stats(rec, targets, t, weights)

    cdef int _search_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state) except -1 nogil:
        """The node's best split over every drawn feature's thresholds (_best_split)."""
        return self._best_split(rec, targets, t, weights, rng_state)

    cdef int _split_node(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                         NodeRecord* right, const float64_t* targets, intp_t t,
                         const float64_t* weights, bint children_may_split) except -1 nogil:
        """Partition the sorted rows by the split (only for children that may be
        split: leaves need no sorted rows); the split feature's row then holds
        each child's samples contiguously."""
        if children_may_split:
            self._partition(parent)
        left.range_feature = right.range_feature = parent.split.feature
        return 0

    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil:
        """In-bag samples' leaves come from the growth; the others are routed through the tree."""
        cdef intp_t i, n = self.n_samples
        cdef intp_t tree = store._n_trees - 1
        for i in range(n):
            leaf[i] = self.sample_leaf[i]
            if leaf[i] < 0:
                leaf[i] = <int32_t> store.leaf_of(tree, &self.X[0, 0], 1, n, i)

    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil:
        """Assign samples to leaves; fill node values (label means) and leaf impurities.

        Every node's value is the weighted mean of the labels of its in-bag
        samples, sum_i w_i L_i / W (L = G for gbmort and the relabelled trees of
        Algorithm 4, the split targets otherwise). Internal nodes get values too
        (the mean over their subtree), for staged predictions and inspection.
        """
        cdef intp_t first = store._starts[store._n_trees - 1]
        cdef intp_t m = store.n_values
        cdef intp_t a, r, i, k, node
        cdef NodeRecord* rec
        cdef float64_t w, W
        cdef float64_t* value
        cdef const float64_t* y
        cdef Node* nd
        # Leaves first hold weighted label sums ...
        for a in range(self.n_leaves):
            rec = &self.leaves[a]
            node = rec.node_id
            value = store._values + node * m
            for r in range(rec.start, rec.end):
                i = self.rows_idx[rec.range_feature * self.n_samples + r]
                self.sample_leaf[i] = <int32_t> node
                w = weights[i]
                y = labels + i * m
                for k in range(m):
                    value[k] += w * y[k]
            nd = &store._nodes[node]
            if rec.sse < 0.0 and self.leaf_impurity:
                rec.sse = self._node_stats(rec, targets, t, weights)
            if rec.sse < 0.0:
                nd.impurity = NAN
            else:
                nd.impurity = rec.sse / rec.weight if rec.weight > 0.0 else 0.0
        # ... internal nodes the sums of their children (children have larger
        # ids than their parent), then every sum becomes a mean.
        for node in range(store._node_count - 1, first - 1, -1):
            nd = &store._nodes[node]
            value = store._values + node * m
            if nd.left_child != TREE_LEAF:
                for k in range(m):
                    value[k] = (store._values[nd.left_child * m + k]
                                + store._values[nd.right_child * m + k])
        for node in range(first, store._node_count):
            W = store._nodes[node].weighted_n_node_samples
            value = store._values + node * m
            for k in range(m):
                value[k] = value[k] / W if W > 0.0 else 0.0
        return 0


# grow_tree works with any grower; it lives with their base class.
from engine._core.grower_base import grow_tree  # noqa: E402,F401
