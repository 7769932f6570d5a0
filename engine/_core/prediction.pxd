# Prediction of a boosting model, one step at a time: out += mu rho ⊙ g_m(x)
# (paper 002, eqs. 9 and 15). See prediction.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.tree_store cimport TreeStore, Rows


# Add the step whose trees start at ``first_tree``: st-gbrt's d trees (tree
# first_tree + j adds to output j), else one tree with d values or one value.
cdef void add_step(TreeStore store, const Rows* X, intp_t n_rows, float64_t* out, intp_t d,
                   bint single_target, intp_t first_tree, const float64_t* rho,
                   float64_t learning_rate) noexcept nogil
