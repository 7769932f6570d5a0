# F += mu rho ⊙ g_m(x) per loss (paper 002, eqs. 9 and 15; line 8 of
# Algorithms 2-4), and the next step's negative gradient G and training loss
# from the same pass. See updates.pyx for details.
#
# Per-row loops stay inside updates.pyx (a call across modules goes through a
# pointer and cannot be inlined): the step routines call these once per tree.
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.tree_store cimport TreeStore
from engine._core.fit_state cimport Fit


# G at the current F, for the first step of a fit (and E or H under the logistic loss).
cdef void gradient(Fit* fit) noexcept nogil

# F += mu rho ⊙ g_m(x) with the step's tree (the last one in store); G at the
# new F; returns the training loss.
cdef float64_t apply_step(Fit* fit, TreeStore store, const float64_t* rho) noexcept nogil

# st-gbrt: F[:, j] += step * tree(x); returns ``total`` plus output j's loss.
cdef float64_t update_output(Fit* fit, intp_t j, const float64_t* values, float64_t step,
                             float64_t total) noexcept nogil

# The exp of the logistic passes (exp_kernels.h, a static of updates.pyx): for testing.pyx.
cdef int set_exp_mode_code(int mode) noexcept nogil
cdef void exp_of_array(const float64_t* x, float64_t* out, intp_t n) noexcept nogil
