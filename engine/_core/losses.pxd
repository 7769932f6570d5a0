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


cdef float64_t line_search(int loss, const float64_t* y, const float64_t* f, intp_t stride,
                           const float64_t* values, const int32_t* leaf, intp_t n_values,
                           intp_t col, const float64_t* w, intp_t n,
                           RatioWeight* work) noexcept nogil
