# The three losses of paper 002 (eqs. 5-8), their negative gradients, and the
# exact line search of a boosting step (losses.pyx). Inline here so that the
# boosting loop's per-entry calls compile to plain arithmetic.
from libc.math cimport exp, log1p, fabs

from engine._core.typedefs cimport float64_t, intp_t, int32_t

cpdef enum Loss:
    SQUARED_ERROR = 0
    ABSOLUTE_ERROR = 1
    LOGISTIC = 2


cdef struct RatioWeight:
    # One term of the absolute loss's weighted median: r_i / a_i and w_i |a_i|.
    float64_t ratio
    float64_t weight


cdef inline float64_t loss_value(int loss, float64_t y, float64_t f) noexcept nogil:
    cdef float64_t z
    if loss == SQUARED_ERROR:
        return 0.5 * (y - f) * (y - f)
    if loss == ABSOLUTE_ERROR:
        return fabs(y - f)
    z = -2.0 * y * f            # log(1 + exp(z)) without overflow
    if z > 0.0:
        return z + log1p(exp(-z))
    return log1p(exp(z))


cdef inline float64_t negative_gradient(int loss, float64_t y, float64_t f) noexcept nogil:
    if loss == SQUARED_ERROR:
        return y - f
    if loss == ABSOLUTE_ERROR:
        return (y > f) - (y < f)
    return 2.0 * y / (1.0 + exp(2.0 * y * f))


cdef inline float64_t logistic_loss_from_exp(float64_t y, float64_t f, float64_t e) noexcept nogil:
    """log(1 + exp(-2 y f)) given e = exp(2 y f): the update pass' one exp serves gradient and loss.

    Where -2 y f > 0 this is loss_value's formula with the same exp; elsewhere
    exp(-2 y f) is 1 / e (one rounding apart, about 1e-16 of the entry's loss).
    """
    cdef float64_t z = -2.0 * y * f
    if z > 0.0:
        return z + log1p(e)
    return log1p(1.0 / e)


cdef inline float64_t logistic_hessian_from_exp(float64_t e) noexcept nogil:
    """d^2/df^2 log(1 + exp(-2 y f)) = 4 s (1 - s), s = 1 / (1 + e), e = exp(2 y f), y = +-1.

    Written so that e = 0 or e = inf (saturated scores) give 0, never NaN.
    """
    cdef float64_t r
    if e > 1.0:
        r = 1.0 / e
        return 4.0 * r / ((1.0 + r) * (1.0 + r))
    return 4.0 * e / ((1.0 + e) * (1.0 + e))


cdef struct LineSearchWork:
    # Scratch of the line searches for n samples (LineSearchBuffers owns it).
    RatioWeight* ratio        # n: absolute loss
    int32_t* order            # n: the rows that count (w != 0), by leaf, in row order within one
    float64_t* w_order        # n: their weights
    intp_t* start             # max_leaves + 1: leaf l holds order[start[l]:start[l + 1]]
    intp_t* fill              # max_leaves: counting-sort cursors
    float64_t* e              # n: one output's exp(2 y f) in leaf order, by sign of y in a leaf
    float64_t* w              # n: the weights in that order
    intp_t* positives         # max_leaves: where leaf l's samples with y > 0 begin
    float64_t* positive_e     # n: scratch, a leaf's e with y > 0 while its others are placed
    float64_t* positive_w     # n: their weights
    float64_t* direction      # max_leaves: the output's leaf values a_l
    intp_t max_leaves


cdef class LineSearchBuffers:
    cdef LineSearchWork work
    cdef object arrays


cdef float64_t line_search(int loss, const float64_t* y, const float64_t* f, intp_t stride,
                           const float64_t* values, const int32_t* leaf, intp_t n_values,
                           intp_t col, const float64_t* w, intp_t n,
                           LineSearchWork* work) noexcept nogil


cdef intp_t leaf_order(const int32_t* leaf, const float64_t* w, intp_t n, intp_t first,
                       intp_t n_nodes, LineSearchWork* work) noexcept nogil


cdef float64_t logistic_line_search(const float64_t* y, const float64_t* f, const float64_t* e,
                                    intp_t stride, const float64_t* values, intp_t n_values,
                                    intp_t col, intp_t first, intp_t n_nodes,
                                    LineSearchWork* work) noexcept nogil
