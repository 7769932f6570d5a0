# The leaf values g_m of a boosting step's tree and the step's weights rho_j
# (paper 002, Algorithms 2-4, lines 6-7). See leaves.pyx for details.
#
# Mean leaves: the grower's weighted means of its labels (G, or the projected
# gradient for Algorithm 3), per observed entry under per-entry weights; rho_j
# = 1 (square loss, eq. 20), eq. 23 (Algorithm 3, square loss) or a line
# search per output (losses.pyx). Newton leaves (an extension beyond paper
# 002): v_j = sum_i w_i (-g_ij) / (sum_i w_i h_ij + lambda), rho = 1.
from engine._core.typedefs cimport float64_t, intp_t, int32_t
from engine._core.tree_store cimport TreeStore
from engine._core.grower_base cimport Grower
from engine._core.fit_state cimport Fit


# Newton values of the last tree's nodes, for outputs j0 .. j0 + store.n_values - 1.
cdef int newton_leaves(TreeStore store, const int32_t* leaf, int loss, const float64_t* Y,
                       const float64_t* F, const float64_t* E, const float64_t* H,
                       const float64_t* G, intp_t g_stride, const float64_t* ratio,
                       const float64_t* wstep, intp_t n, intp_t d, intp_t j0,
                       float64_t lam) except -1 nogil

# Route the training rows to the new tree's leaves; leaves hold mean gradient
# rows (per observed entry under per-entry weights) or Newton steps.
cdef int mean_gradient_leaves(Fit* fit, Grower grower, TreeStore store) except -1 nogil

# rho for leaves that hold mean gradient rows or Newton steps (Algorithms 2 and 4).
cdef void rho_mean_gradient_leaves(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil

# rho for Algorithm 3's scalar leaves: eq. 23 (square loss) or a line search.
cdef void rho_projected(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil
