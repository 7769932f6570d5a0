"""Line searches of a boosting step: the weight rho of a tree's prediction a for one output.

Each minimises sum_i w_i loss(y_i, f_i + rho a_i) over rho (the losses and
their negative gradients are inline in losses.pxd):

* square loss: closed form (eqs. 20, 23). When the leaves already hold the
  (weighted) mean gradient of their samples (single target, gbmort,
  relabelled trees), eq. 20 is exactly 1 and the boosting loop does not
  recompute it (section 3.3.1).
* absolute loss: the exact minimiser, a weighted median of r_i / a_i with
  weights w_i |a_i|.
* logistic loss: the root of the derivative by Newton steps safeguarded with
  bisection inside a bracket (a convex 1-D problem, so it cannot diverge on
  imbalanced labels as plain Newton can), on the samples grouped by leaf and
  sign of y so that an iteration needs one exp per group (see "The logistic
  line search" below). When the loss keeps decreasing (separable data) rho
  stops where the step changes the raw score by MAX_LOGIT_STEP, where the
  loss' slope is below 1e-13.

Because every line search is exact and the losses are convex, the training
loss cannot increase for any learning rate in (0, 1] (Appendix A).
"""
import numpy as np

from libc.math cimport exp, fabs, isinf
from libc.stdlib cimport qsort
from libc.string cimport memcpy

from engine._core.typedefs cimport float64_t, intp_t, int32_t

cdef extern from "logistic_kernels.h" nogil:
    void engine_logistic_group_sums(const float64_t* e, const float64_t* w, intp_t m,
                                    float64_t c, float64_t* p, float64_t* q)

# The largest change of a raw score one logistic step may make (separable data).
cdef float64_t MAX_LOGIT_STEP = 15.0


# ---------------------------------------------------------------- line searches

cdef inline float64_t _direction(const float64_t* values, const int32_t* leaf, intp_t n_values,
                                 intp_t col, intp_t i) noexcept nogil:
    return values[leaf[i] * n_values + col]


cdef int _compare_ratio(const void* a, const void* b) noexcept nogil:
    cdef float64_t x = (<RatioWeight*> a).ratio, y = (<RatioWeight*> b).ratio
    return (x > y) - (x < y)


cdef class LineSearchBuffers:
    """Scratch of the line searches of one fit with n training samples."""

    def __init__(self, intp_t n):
        n = max(n, 1)
        cdef intp_t max_leaves = 2 * n + 1     # a tree has fewer than 2n nodes
        ratio = np.zeros(2 * n)
        w_order, e, w, positive_e, positive_w = (np.zeros(n) for _ in range(5))
        order = np.zeros(n, dtype=np.int32)
        start = np.zeros(max_leaves + 1, dtype=np.intp)
        fill, positives = (np.zeros(max_leaves, dtype=np.intp) for _ in range(2))
        direction = np.zeros(max_leaves)
        self.arrays = (ratio, w_order, e, w, positive_e, positive_w, order, start, fill, positives,
                       direction)
        cdef float64_t[::1] v
        v = ratio
        self.work.ratio = <RatioWeight*> &v[0]
        v = w_order
        self.work.w_order = &v[0]
        v = e
        self.work.e = &v[0]
        v = w
        self.work.w = &v[0]
        v = positive_e
        self.work.positive_e = &v[0]
        v = positive_w
        self.work.positive_w = &v[0]
        cdef int32_t[::1] o = order
        self.work.order = &o[0]
        cdef intp_t[::1] iv = start
        self.work.start = &iv[0]
        iv = fill
        self.work.fill = &iv[0]
        iv = positives
        self.work.positives = &iv[0]
        v = direction
        self.work.direction = &v[0]
        self.work.max_leaves = max_leaves


cdef float64_t line_search(int loss, const float64_t* y, const float64_t* f, intp_t stride,
                           const float64_t* values, const int32_t* leaf, intp_t n_values,
                           intp_t col, const float64_t* w, intp_t n,
                           LineSearchWork* work) noexcept nogil:
    """argmin_rho sum_i w_i loss(y_i, f_i + rho a_i), a_i = values[leaf_i, col]."""
    cdef intp_t i, m = 0, first, last
    cdef float64_t a, num = 0.0, den = 0.0, total = 0.0, acc
    cdef RatioWeight* ratios = work.ratio
    if loss == SQUARED_ERROR:
        for i in range(n):
            if w[i] == 0.0:
                continue
            a = _direction(values, leaf, n_values, col, i)
            num += w[i] * (y[i * stride] - f[i * stride]) * a
            den += w[i] * a * a
        return num / den if den > 0.0 else 0.0
    if loss == ABSOLUTE_ERROR:
        for i in range(n):
            a = _direction(values, leaf, n_values, col, i)
            if w[i] == 0.0 or a == 0.0:
                continue
            ratios[m].ratio = (y[i * stride] - f[i * stride]) / a
            if isinf(ratios[m].ratio):
                # |r / a| beyond float64 (residuals near 1e300 over a leaf value that
                # cancelled to ~1e-17): the row's weight w|a| is then negligible beside
                # |r|, and keeping it would make rho, and every prediction, infinite.
                continue
            ratios[m].weight = w[i] * fabs(a)
            total += ratios[m].weight
            m += 1
        if m == 0:
            return 0.0
        qsort(ratios, m, sizeof(RatioWeight), _compare_ratio)
        acc = 0.0
        for i in range(m):
            acc += ratios[i].weight
            if acc >= 0.5 * total:
                return ratios[i].ratio
        return ratios[m - 1].ratio
    if n == 0:
        return 0.0
    first = leaf[0]
    last = leaf[0]
    for i in range(n):
        if leaf[i] < first:
            first = leaf[i]
        if leaf[i] > last:
            last = leaf[i]
    leaf_order(leaf, w, n, first, last - first + 1, work)
    return logistic_line_search(y, f, NULL, stride, values, n_values, col, first, last - first + 1,
                                work)


# The logistic line search.
#
# Along output j's direction, with a_i = a_l for the samples of leaf l and
# y_i in {-1, +1}, the objective is
#     L(rho) = sum_i w_i log(1 + e_i c_g(rho)),  e_i = exp(2 y_i f_i),
#     c_g(rho) = exp(2 y_g a_l rho),
# where g = (l, sign of y) is the sample's group: an iteration needs one exp
# per group and one division per sample, with e_i given (the boosting loop
# keeps exp(2 y F) from its update pass) or computed once per search. With
# s_i = 1 / (1 + e_i c_g) = sigma(-2 y_i (f_i + rho a_i)):
#     L'(rho)  = -2 sum_g y_g a_g sum_(i in g) w_i s_i,
#     L''(rho) =  4 sum_g a_g^2 sum_(i in g) w_i s_i (1 - s_i).
# The rows are put in order of their leaf once per step (a counting sort,
# leaf_order): every output shares the tree, so a search only splits each
# leaf's rows by the sign of its output's y (keeping row order within a
# group), and each inner loop is a contiguous run with one constant c_g.
#
# The minimiser is the root of L' (convex, so unique when L'' > 0): Newton
# steps from Friedman's one-Newton-step estimate -L'(0) / L''(0), kept inside
# a bracket [downhill point, uphill point] and replaced by bisection when they
# leave it. It stops after a Newton step that moves no raw score by more than
# NEWTON_TOLERANCE (|step| a_max): since |L'''| <= 2 a_max L'', the error left
# after such a step is about a_max step^2, below 1e-16 in raw score. (The
# former search stopped at |step| <= 1e-12 (1 + |rho|), one pass later, and
# started Newton from the middle of the bracket; both stop at float64's
# resolution of the same root.)
cdef float64_t NEWTON_TOLERANCE = 1e-8


cdef intp_t leaf_order(const int32_t* leaf, const float64_t* w, intp_t n, intp_t first,
                       intp_t n_nodes, LineSearchWork* work) noexcept nogil:
    """work.order: the rows with w_i != 0 by leaf (node first + l is leaf l), in row order
    within a leaf; work.start: where each leaf begins; work.w_order: their weights. Returns
    their count.

    Shared by the line searches of every output of a step (they share the tree and, without
    per-entry weights, the row weights).
    """
    cdef intp_t i, l, m = 0
    if n_nodes > work.max_leaves:
        n_nodes = 0     # cannot happen: a tree has fewer than 2n nodes
    for l in range(n_nodes + 1):
        work.start[l] = 0
    for i in range(n):
        if w[i] != 0.0:
            work.start[leaf[i] - first + 1] += 1
    for l in range(n_nodes):
        work.start[l + 1] += work.start[l]
        work.fill[l] = work.start[l]
    for i in range(n):
        if w[i] != 0.0:
            l = leaf[i] - first
            work.order[work.fill[l]] = <int32_t> i
            work.w_order[work.fill[l]] = w[i]
            work.fill[l] += 1
            m += 1
    return m


cdef void _logistic_slope(const LineSearchWork* work, intp_t n_nodes, float64_t rho,
                          float64_t* d1, float64_t* d2) noexcept nogil:
    """L'(rho) and L''(rho) on the grouped samples (the sums per group: logistic_kernels.h)."""
    cdef intp_t l, lo, hi, side
    cdef float64_t da, p, q, t1 = 0.0, t2 = 0.0
    for l in range(n_nodes):
        if work.direction[l] == 0.0:
            continue
        for side in range(2):      # y < 0, then y > 0
            lo = work.start[l] if side == 0 else work.positives[l]
            hi = work.positives[l] if side == 0 else work.start[l + 1]
            if lo == hi:
                continue
            da = (1.0 if side else -1.0) * work.direction[l]
            engine_logistic_group_sums(work.e + lo, work.w + lo, hi - lo, exp(2.0 * da * rho), &p, &q)
            t1 += da * p
            t2 += da * da * q
    d1[0] = -2.0 * t1
    d2[0] = 4.0 * t2


cdef float64_t _group_by_sign(const float64_t* y, const float64_t* f, const float64_t* e,
                              intp_t stride, const float64_t* values, intp_t n_values,
                              intp_t col, intp_t first, intp_t n_nodes,
                              LineSearchWork* work) noexcept nogil:
    """The groups g = (leaf, sign of y) of one output's search; returns a_max = max_l |a_l|.

    work.e, work.w: this output's exp(2 y f) and weights on the leaves that
    move it, each leaf's samples with y < 0 first, then those with y > 0, in
    row order; work.positives[l]: where leaf l's y > 0 begin; work.direction:
    the leaf values a_l (0 for inner nodes and empty leaves: no group).
    """
    cdef intp_t i, k, l, neg, pos
    cdef float64_t a, yi, ei, amax = 0.0
    for l in range(n_nodes):
        a = values[(first + l) * n_values + col]
        if work.start[l] == work.start[l + 1]:
            a = 0.0         # an inner node or an empty leaf: no group
        work.direction[l] = a
        if a == 0.0:
            continue
        if fabs(a) > amax:
            amax = fabs(a)
        # One pass: the negatives go to their place, the positives (few, in
        # multi-label data) to scratch, appended after them.
        neg = work.start[l]
        pos = 0
        for k in range(work.start[l], work.start[l + 1]):
            i = work.order[k]
            yi = y[i * stride]
            ei = e[i * stride] if e != NULL else exp(2.0 * yi * f[i * stride])
            if yi > 0.0:
                work.positive_e[pos] = ei
                work.positive_w[pos] = work.w_order[k]
                pos += 1
            else:
                work.e[neg] = ei
                work.w[neg] = work.w_order[k]
                neg += 1
        work.positives[l] = neg
        memcpy(work.e + neg, work.positive_e, pos * sizeof(float64_t))
        memcpy(work.w + neg, work.positive_w, pos * sizeof(float64_t))
    return amax


cdef float64_t logistic_line_search(const float64_t* y, const float64_t* f, const float64_t* e,
                                    intp_t stride, const float64_t* values, intp_t n_values,
                                    intp_t col, intp_t first, intp_t n_nodes,
                                    LineSearchWork* work) noexcept nogil:
    """argmin_rho sum_i w_i log(1 + exp(-2 y_i (f_i + rho a_i))), a_i = values[leaf_i, col].

    The rows, their leaves and weights w are those of the last leaf_order (nodes [first,
    first + n_nodes)). y_i in {-1, +1}; e (stride like y and f) holds exp(2 y_i f_i), or NULL
    to compute it here.
    """
    cdef intp_t it
    cdef float64_t amax, rho_max, d1 = 0.0, d2 = 0.0, sign, lo, hi, rho, nxt
    cdef bint hi_known = False
    if n_nodes > work.max_leaves:
        return 0.0      # cannot happen: a tree has fewer than 2n nodes
    amax = _group_by_sign(y, f, e, stride, values, n_values, col, first, n_nodes, work)
    if amax == 0.0:
        return 0.0
    # The slope at rho = 0 (every c_g = exp(0) = 1) by the grouped sums: the
    # same terms as a per-sample sum, added in another order.
    _logistic_slope(work, n_nodes, 0.0, &d1, &d2)
    # When the loss keeps decreasing (separable data) stop where the step
    # changes some raw score by MAX_LOGIT_STEP.
    rho_max = MAX_LOGIT_STEP / amax
    if d1 == 0.0:
        return 0.0
    # The minimiser lies on the side where the slope points downhill: lo is
    # a downhill point, hi an uphill one once hi_known (else the cap).
    sign = 1.0 if d1 < 0.0 else -1.0
    lo = 0.0
    hi = rho_max * sign
    rho = -d1 / d2 if d2 > 0.0 else hi
    if rho * sign <= 0.0 or fabs(rho) >= rho_max:
        rho = hi
    for it in range(200):
        _logistic_slope(work, n_nodes, rho, &d1, &d2)
        if d1 == 0.0:
            return rho
        if d1 * sign < 0.0:
            lo = rho
            if not hi_known and fabs(rho) >= rho_max:
                return rho        # still decreasing at the cap
        else:
            hi = rho
            hi_known = True
        if d2 > 0.0:
            nxt = rho - d1 / d2
            if (nxt - lo) * (nxt - hi) < 0.0:
                if fabs(nxt - rho) * amax <= NEWTON_TOLERANCE:
                    return nxt
                rho = nxt
                continue
        # The Newton step left the bracket: bisect it (or try the cap).
        rho = 0.5 * (lo + hi) if hi_known else hi
        if fabs(hi - lo) <= 1e-14 * (1.0 + fabs(rho)):
            return rho
    return rho


# ---------------------------------------------------------------- the losses on plain arrays (the One step view, tests)

def _elementwise(int loss, const float64_t[:, ::1] Y, const float64_t[:, ::1] F, bint gradient):
    """The loss (or, gradient, the negative gradient) of every entry."""
    out = np.empty((Y.shape[0], Y.shape[1]))
    cdef float64_t[:, ::1] o = out
    cdef intp_t i, j
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            o[i, j] = (negative_gradient(loss, Y[i, j], F[i, j]) if gradient
                       else loss_value(loss, Y[i, j], F[i, j]))
    return out


def elementwise_loss(int loss, Y, F):
    """Element-wise loss (the One step view's numbers; tests hold it to finite differences)."""
    return _elementwise(loss, Y, F, False)


def elementwise_negative_gradient(int loss, Y, F):
    """Element-wise negative gradient (the One step view's G; tests hold it to finite differences)."""
    return _elementwise(loss, Y, F, True)
