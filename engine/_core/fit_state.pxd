# The state of one boosting fit (paper 002, Algorithms 2-4), shared by the
# modules of the boosting loop. See fit_state.pyx for details.
#
# A fit is F_0 = the constant model, then M steps m = 1..M, each
#     G = -dl(Y, F)/dF                      (line 4: the negative gradient, n x d)
#     grow a tree g_m on G, G[:, j] or G Phi_m^T   (lines 5-6)
#     rho_j per output                      (line 7: eqs. 20, 23, or a line search)
#     F += mu rho ⊙ g_m(x)                  (line 8: eqs. 9, 15)
# (mu: the learning rate). Who computes what:
#
#   fit_state      the objects the estimator builds once per fit (BoostSpec: what the
#                  fit is; Workspace: the training set and the step buffers; HeldOutSet,
#                  EarlyStopping, StepLog; Projections: Phi_m of a chunk of steps), and
#                  the C structs Fit and HeldOut the nogil code reads them through;
#   split_targets  the in-bag rows of a step and its split targets (line 5, G Phi_m^T);
#   leaves         the leaf values g_m (mean gradient rows, relabelled, Newton) and rho;
#   updates        F += mu rho ⊙ g_m(x) per loss, with the next G and the training loss;
#   held_out       the held-out scores after each step and early stopping;
#   prediction     g_m(x) of new rows (accumulate, and the held-out set's F);
#   algorithms     one step of each strategy, and the loop ``boost``.
#
# Every routine reads the fit through a Fit* (plain pointers, no GIL); the
# pointers are set once per fit by Workspace.__init__, into arrays the
# Workspace keeps alive.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport Rows, RowMatrix
from engine._core.losses cimport LineSearchBuffers, LineSearchWork


cpdef enum Strategy:
    SINGLE_TARGET = 0         # st-gbrt: one single-output tree per output
    MULTI_OUTPUT = 1          # gbmort, Algorithm 2
    PROJECTED = 2             # gbrt-rpo, Algorithm 3
    PROJECTED_RELABEL = 3     # gbrt-relabel-rpo, Algorithm 4

cpdef enum Score:
    SCORE_R2 = 0              # per-output r2 (the regressor's held-out score)
    SCORE_LOSS = 1            # minus the per-output mean loss (the classifier's)


cdef struct Fit:
    # What every step routine reads and writes: the training set, the model F
    # and the buffers of one step. All matrices n x d, row-major.
    intp_t n                    # training samples
    intp_t d                    # outputs
    intp_t q                    # projections per step (Algorithms 3 and 4)
    int loss                    # losses.pxd Loss code
    float64_t learning_rate     # mu
    float64_t subsample         # fraction of rows drawn for each tree (1: all)
    int n_threads               # threads for the loops over rows (results do not depend on it)
    const float64_t* Y          # targets (the classifier's -1/+1)
    float64_t* F                # raw predictions F = f_{m-1}(x_i), updated in place
    float64_t* G                # negative gradient at F (times ratio under per-entry weights)
    float64_t* T                # split targets, n x t: G[:, j], or the projections G Phi^T
    const float64_t* w          # row weights w_i (r_i = max_j W_ij under per-entry weights)
    float64_t w_total           # sum_i w_i, the normaliser of the training loss
    # Per-entry weights (see "per-entry weights" in updates.pyx); W is NULL for row weights.
    const float64_t* W          # W_ij
    const float64_t* ratio      # W_ij / r_i (0 where r_i = 0)
    float64_t* column_weight    # n: scratch for one output's entry weights
    const float64_t* column_total   # d: sum_i W_ij
    float64_t* column_loss      # d: scratch
    # The current step.
    float64_t* step_weight      # n: in-bag weights of the tree being grown (0: out of bag)
    int32_t* leaf               # n: leaf of every training sample in that tree
    int32_t* perm               # n: scratch of the sub-sampling draw
    float64_t* scale            # d: mu rho_j of the step (also scratch before that)
    float64_t* block_sums       # per-row-block partial sums (row_blocks.pxd)
    LineSearchWork* work        # scratch of the line searches
    # Logistic loss, all but single target (else NULL): output-major (d x n)
    # copies, so that one output's line search reads contiguous columns.
    float64_t* E                # exp(2 y_ij F_ij), kept by the pass that computes G
    const float64_t* YT         # Y transposed
    # Logistic loss with Newton leaves and row weights, all but single target (else NULL;
    # then E is NULL): the second derivatives, n x d like G, kept by the same pass.
    float64_t* H
    # Second-order leaves (leaf_estimation="newton", see leaves.pyx).
    bint newton
    float64_t l2                # lambda
    uint64_t* rng               # the fit's random generator (rng.pxd)
    # The random projections Phi_m of the current chunk, rows m * q + r in CSR
    # form (projected strategies only; set by boost from its Projections).
    const intp_t* proj_indptr
    const intp_t* proj_indices
    const float64_t* proj_data
    bint proj_dense             # a dense scheme: T by the blocked product (split_targets.pyx)
    float64_t* phi              # q x d: the step's rows of Phi_m written out (dense schemes)


cdef struct HeldOut:
    # The evaluation set and its running raw predictions (n_eval x d).
    const Rows* X
    intp_t n
    const float64_t* Y
    float64_t* F
    const float64_t* w          # row weights (NULL under per-entry weights)
    const float64_t* W          # per-entry weights (NULL under row weights)
    float64_t w_total           # sum_e w_e (row weights)
    const float64_t* out_total  # d: per-output sum of weights
    const float64_t* sst        # d: weighted sum of squares about the mean (for r2)
    float64_t* out_loss         # d: scratch (per-output loss)
    int loss                    # losses.pxd Loss code
    int score_kind              # Score


cdef class BoostSpec:
    cdef readonly int strategy              # Strategy
    cdef readonly int loss                  # losses.pxd Loss
    cdef readonly float64_t learning_rate   # mu
    cdef readonly float64_t subsample       # fraction of rows per tree
    cdef readonly intp_t n_projections      # q (projected strategies; 1 otherwise)
    cdef readonly bint newton_leaves        # second-order leaves, rho = 1
    cdef readonly float64_t l2_regularization   # lambda of the Newton leaves


cdef class Workspace:
    cdef Fit fit                            # pointers into the arrays below
    cdef readonly BoostSpec spec
    cdef readonly bint gradient_ready       # G is the gradient at F (a call has run)
    # The training set (the estimator's arrays: F is updated in place).
    cdef const float64_t[:, ::1] Y
    cdef float64_t[:, ::1] F
    cdef const float64_t[::1] sample_weight
    cdef const float64_t[:, ::1] entry_weight   # None: row weights
    cdef uint64_t[::1] rng_state
    # Buffers reused by every step.
    cdef float64_t[:, ::1] gradient     # n x d negative gradient
    cdef float64_t[:, ::1] targets      # n x max(q, 1) split targets
    cdef float64_t[::1] step_weight     # n: in-bag weights of the current tree
    cdef int32_t[::1] leaf              # n: leaf of every training sample
    cdef int32_t[::1] perm              # n: for sub-sampling without replacement
    cdef float64_t[::1] scale           # d: mu rho of the current step
    cdef LineSearchBuffers line_search_buffers
    cdef float64_t[:, ::1] expo         # d x n: exp(2 y F), or n x d: H (logistic loss; 1 x 1 otherwise)
    cdef float64_t[:, ::1] labels_t     # d x n: Y, output-major (logistic loss; 1 x 1 otherwise)
    cdef float64_t[::1] block_sums      # n_row_blocks(n) x padded_width(d + 1): per-block partial sums
    # Fits with per-entry weights only (1 x 1 / length 1 otherwise).
    cdef float64_t[:, ::1] ratio        # n x d: W_ij / r_i, the split targets' entry factors
    cdef float64_t[::1] column_weight   # n: one output's entry weights on the current rows
    cdef float64_t[::1] column_total    # d: sum_i W_ij, the normaliser of output j's loss
    cdef float64_t[::1] column_loss     # d: scratch (per-output sums)
    cdef float64_t[:, ::1] phi_dense    # q x d: Phi_m of a dense scheme (projected strategies; 1 x 1 otherwise)

    cdef int _allocate(self, intp_t n, intp_t d, intp_t n_targets, bint per_entry,
                       bint logistic) except -1
    cdef void _point_fit(self, intp_t n, intp_t d)
    cdef int _entry_ratios(self, intp_t n, intp_t d) except -1


cdef class Projections:
    cdef readonly intp_t n_rows             # projection rows (steps x q)
    cdef const intp_t[::1] indptr           # CSR of Phi_m, rows m * q + r
    cdef const intp_t[::1] indices
    cdef const float64_t[::1] data
    cdef readonly bint dense                # a dense scheme (Gaussian, Achlioptas): the blocked product


cdef class StepLog:
    cdef readonly intp_t n_steps            # rows of the arrays below
    cdef float64_t[:, ::1] rho              # rho_m (n_steps x d)
    cdef float64_t[::1] train_loss          # training loss after step m
    cdef float64_t[::1] times               # training seconds since t0 after step m


cdef class HeldOutSet:
    cdef HeldOut held                       # pointers into the arrays below
    cdef readonly intp_t n_steps            # rows of the score arrays
    cdef RowMatrix X
    cdef const float64_t[:, ::1] Y
    cdef float64_t[:, ::1] F                # running raw predictions, updated in place
    cdef const float64_t[::1] w
    cdef const float64_t[:, ::1] W
    cdef const float64_t[::1] sst
    cdef float64_t[::1] out_total           # d: per-output sum of held-out weights
    cdef float64_t[::1] out_loss            # d: scratch (per-output held-out loss)
    # Per-step scores, written at the step's row.
    cdef float64_t[::1] eval_loss
    cdef float64_t[:, ::1] eval_sse
    cdef float64_t[::1] eval_score
    cdef float64_t[:, ::1] eval_score_out

    cdef void _point_held(self, intp_t n, intp_t d, int loss, int score_kind)


cdef class EarlyStopping:
    cdef float64_t[::1] history             # the last k scores (starts at -inf)
    cdef readonly float64_t tol
    cdef readonly intp_t n_scored           # steps scored in this fit (the history's clock)


cdef inline const float64_t* output_weights(Fit* fit, intp_t j, const float64_t* rows) noexcept nogil:
    """The weights of output j's entries on the rows where ``rows`` is non-zero.

    Row weights: ``rows`` itself. Per-entry weights: W[:, j] on those rows and
    0 elsewhere, written to the column_weight scratch (valid until the next call).
    """
    cdef intp_t i, d = fit.d
    if fit.W == NULL:
        return rows
    for i in range(fit.n):
        fit.column_weight[i] = fit.W[i * d + j] if rows[i] != 0.0 else 0.0
    return fit.column_weight
