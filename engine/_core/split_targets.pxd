# What a boosting step's tree is grown on (paper 002, Algorithms 2-4, lines 5-6).
# See split_targets.pyx for details.
#
# The rows: Friedman's stochastic boosting keeps floor(subsample * n) rows
# drawn without replacement (draw_in_bag). The split targets: G itself (gbmort,
# Algorithm 2), one column G[:, j] (st-gbrt, written by its step), or the
# projection T = G Phi_m^T of the step's random matrix Phi_m (q x d, section
# 2.3; Algorithm 3 with q = 1, Algorithm 4): project_gradient.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.fit_state cimport Fit


cdef void draw_in_bag(const float64_t* sample_weight, float64_t* out, int32_t* perm,
                      intp_t n, float64_t subsample, uint64_t* rng) noexcept nogil

cdef void project_gradient(Fit* fit, intp_t m, intp_t t) noexcept nogil

cdef int set_projection_mode_code(int mode) noexcept nogil
