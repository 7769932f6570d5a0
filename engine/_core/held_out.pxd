# Held-out scores after every boosting step, and scikit-learn's early-stopping
# rule on them. See held_out.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.tree_store cimport TreeStore
from engine._core.fit_state cimport HeldOut


# Add the step just fitted (the last tree, or st-gbrt's last d) to the held-out
# predictions, then score them: the loss, sse_j, the score and score_j.
cdef void evaluate(HeldOut* held, TreeStore store, bint single_target, const float64_t* rho,
                   float64_t learning_rate, intp_t d, float64_t* eval_loss, float64_t* sse,
                   float64_t* score, float64_t* score_out) noexcept nogil

# Whether the score does not beat one of the last k by more than tol (stop);
# else it replaces the oldest of them (slot position % k).
cdef bint stalled(float64_t score, float64_t* history, intp_t k, intp_t position,
                  float64_t tol) noexcept nogil
