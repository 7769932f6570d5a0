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
  imbalanced labels as plain Newton can). When the loss keeps decreasing
  (separable data) rho stops where the step changes the raw score by
  MAX_LOGIT_STEP, where the loss' slope is below 1e-13.

Because every line search is exact and the losses are convex, the training
loss cannot increase for any learning rate in (0, 1] (Appendix A).
"""
import numpy as np

from libc.math cimport exp, fabs
from libc.stdlib cimport qsort

from engine._core.typedefs cimport float64_t, intp_t, int32_t

# The largest change of a raw score one logistic step may make (separable data).
cdef float64_t MAX_LOGIT_STEP = 15.0


# ---------------------------------------------------------------- line searches

cdef inline float64_t _direction(const float64_t* values, const int32_t* leaf, intp_t n_values,
                                 intp_t col, intp_t i) noexcept nogil:
    return values[leaf[i] * n_values + col]


cdef int _compare_ratio(const void* a, const void* b) noexcept nogil:
    cdef float64_t x = (<RatioWeight*> a).ratio, y = (<RatioWeight*> b).ratio
    return (x > y) - (x < y)


cdef float64_t line_search(int loss, const float64_t* y, const float64_t* f, intp_t stride,
                           const float64_t* values, const int32_t* leaf, intp_t n_values,
                           intp_t col, const float64_t* w, intp_t n,
                           RatioWeight* work) noexcept nogil:
    """argmin_rho sum_i w_i loss(y_i, f_i + rho a_i), a_i = values[leaf_i, col]."""
    cdef intp_t i, m = 0, it
    cdef float64_t a, num = 0.0, den = 0.0, total = 0.0, acc, amax = 0.0
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
            work[m].ratio = (y[i * stride] - f[i * stride]) / a
            work[m].weight = w[i] * fabs(a)
            total += work[m].weight
            m += 1
        if m == 0:
            return 0.0
        qsort(work, m, sizeof(RatioWeight), _compare_ratio)
        acc = 0.0
        for i in range(m):
            acc += work[i].weight
            if acc >= 0.5 * total:
                return work[i].ratio
        return work[m - 1].ratio
    for i in range(n):
        a = fabs(_direction(values, leaf, n_values, col, i))
        if w[i] != 0.0 and a > amax:
            amax = a
    if amax == 0.0:
        return 0.0
    return _logistic_line_search(y, f, stride, values, leaf, n_values, col, w, n,
                                 MAX_LOGIT_STEP / amax)


cdef void _logistic_slope(const float64_t* y, const float64_t* f, intp_t stride,
                          const float64_t* values, const int32_t* leaf, intp_t n_values,
                          intp_t col, const float64_t* w, intp_t n, float64_t rho,
                          float64_t* d1, float64_t* d2) noexcept nogil:
    """First and second derivative in rho of sum_i w_i log(1 + exp(-2 y_i (f_i + rho a_i)))."""
    cdef intp_t i
    cdef float64_t a, yi, s, g1 = 0.0, g2 = 0.0
    for i in range(n):
        if w[i] == 0.0:
            continue
        a = _direction(values, leaf, n_values, col, i)
        if a == 0.0:
            continue
        yi = y[i * stride]
        s = 1.0 / (1.0 + exp(2.0 * yi * (f[i * stride] + rho * a)))  # sigma(-2 y F)
        g1 -= w[i] * 2.0 * yi * a * s
        g2 += w[i] * 4.0 * a * a * s * (1.0 - s)
    d1[0] = g1
    d2[0] = g2


cdef float64_t _logistic_line_search(const float64_t* y, const float64_t* f, intp_t stride,
                                     const float64_t* values, const int32_t* leaf,
                                     intp_t n_values, intp_t col, const float64_t* w,
                                     intp_t n, float64_t rho_max) noexcept nogil:
    cdef float64_t d1, d2, lo, hi, rho, step, sign, d1_hi, d2_hi
    cdef intp_t it
    _logistic_slope(y, f, stride, values, leaf, n_values, col, w, n, 0.0, &d1, &d2)
    if d1 == 0.0:
        return 0.0
    # The minimiser lies on the side where the slope points downhill.
    sign = 1.0 if d1 < 0.0 else -1.0
    lo = 0.0
    hi = -d1 / d2 if d2 > 0.0 else rho_max * sign
    if fabs(hi) > rho_max or hi * sign <= 0.0:
        hi = rho_max * sign
    # Expand the bracket until the slope changes sign.
    while True:
        _logistic_slope(y, f, stride, values, leaf, n_values, col, w, n, hi, &d1_hi, &d2_hi)
        if d1_hi * sign >= 0.0:
            break  # slope no longer downhill: the root is in (lo, hi]
        lo = hi
        if fabs(hi) >= rho_max:
            return hi  # still decreasing at the cap
        hi = 2.0 * hi
        if fabs(hi) > rho_max:
            hi = rho_max * sign
    # Safeguarded Newton inside [lo, hi] (lo: downhill slope, hi: uphill or flat).
    rho = 0.5 * (lo + hi)
    for it in range(100):
        _logistic_slope(y, f, stride, values, leaf, n_values, col, w, n, rho, &d1, &d2)
        if d1 == 0.0:
            return rho
        if d1 * sign < 0.0:
            lo = rho
        else:
            hi = rho
        step = d1 / d2 if d2 > 0.0 else 0.0
        if d2 > 0.0 and (rho - step - lo) * (rho - step - hi) < 0.0:
            rho = rho - step
        else:
            rho = 0.5 * (lo + hi)
            step = hi - lo
        if fabs(step) <= 1e-12 * (1.0 + fabs(rho)) or fabs(hi - lo) <= 1e-14 * (1.0 + fabs(rho)):
            return rho
    return rho


# ---------------------------------------------------------------- test hooks (compiled routines on plain arrays)

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
    """Element-wise loss, for tests against finite differences."""
    return _elementwise(loss, Y, F, False)


def elementwise_negative_gradient(int loss, Y, F):
    """Element-wise negative gradient, for tests against finite differences."""
    return _elementwise(loss, Y, F, True)


def line_search_on_vectors(int loss, const float64_t[::1] y, const float64_t[::1] f,
                    const float64_t[::1] a, const float64_t[::1] w):
    """The compiled line search on explicit vectors, for tests."""
    cdef intp_t n = y.shape[0]
    leaf = np.arange(n, dtype=np.int32)
    cdef int32_t[::1] lv = leaf
    work = np.zeros(2 * max(n, 1))
    cdef float64_t[::1] wv = work
    return line_search(loss, &y[0], &f[0], 1, &a[0], &lv[0], 1, 0, &w[0], n,
                       <RatioWeight*> &wv[0])
