# A tiny random generator for nogil code (splitmix64, Steele et al. 2014).
# The Python side draws one 64-bit seed per fit from the estimator's
# random_state; everything random inside the compiled loops comes from here.
from engine._core.typedefs cimport uint64_t, intp_t, int32_t, float64_t
from libc.math cimport sqrt, log, cos, M_PI


cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline intp_t rng_int(uint64_t* state, intp_t high) noexcept nogil:
    """Uniform integer in [0, high); the modulo bias is below 2**-40 for our sizes."""
    return <intp_t>(rng_next(state) % <uint64_t>high)


cdef inline float64_t rng_uniform(uint64_t* state) noexcept nogil:
    """Uniform double in [0, 1) with 53 random bits."""
    return (rng_next(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline intp_t draw_next(int32_t* order, intp_t drawn, intp_t n, bint shuffle,
                             uint64_t* state) noexcept nogil:
    """Item ``drawn`` of a random order of order[:n], drawn without replacement.

    A partial Fisher-Yates shuffle: a uniform pick among the items not drawn
    yet is swapped into position ``drawn`` (the growers' feature draws of
    ``max_features``). shuffle False: position ``drawn`` itself, no draw.
    """
    cdef intp_t j
    cdef int32_t tmp
    if not shuffle:
        return drawn
    j = drawn + rng_int(state, n - drawn)
    tmp = order[drawn]
    order[drawn] = order[j]
    order[j] = tmp
    return order[drawn]

