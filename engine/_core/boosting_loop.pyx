"""The boosting inner loop, in compiled code without the GIL.

One call of :func:`boost` runs a chunk of boosting steps of paper 002's
algorithms. Every step m starts from the negative gradient of the loss at the
current model, G_ij = -d l(y_ij, F_ij) / dF_ij (line 4 of Algorithms 2-4),
fits a tree to it and adds the tree, scaled by learning_rate * rho, to F.
Each strategy is one step routine, named after the paper's algorithm:

* :func:`_step_single_target` (st-gbrt): one single-output tree per output j,
  outputs visited in turn, each fit to its own column G[:, j]; rho_j by line
  search (1 under the square loss, whose leaf means already minimise it).
* :func:`_step_multi_output` (gbmort, Algorithm 2): one tree grown on the
  d-dimensional G, leaves labelled with the mean gradient row; rho_j = 1 under
  the square loss (eq. 20), else a line search per output.
* :func:`_step_projected` (gbrt-rpo, Algorithm 3): one single-output tree
  grown on the projection G phi_m^T; its leaf values are scalars, so a weight
  per output rho_j rescales them (eq. 23 for the square loss, a line search
  otherwise). The model then reads F += rho ⊙ g_m(x) of eq. 15.
* :func:`_step_projected_relabel` (gbrt-relabel-rpo, Algorithm 4): a tree
  grown on G Phi_m^T (q columns), then relabelled in the original residual
  space: every leaf holds the mean gradient row of its samples; rho_j as in
  Algorithm 2.

Every step ends with F += learning_rate * rho ⊙ g_m(x) (eq. 9 / 15) in one pass
that also computes the next step's G and the training loss
(:func:`_apply_step`). A fit with per-entry weights (missing targets) goes
through the same routines: the per-entry differences live in the small
helpers of the section "per-entry weights", which read the weights from the
:c:type:`Fit` struct that every routine receives. The held-out set, when
there is one, is scored after each step (:func:`_evaluate`).

Under the logistic loss the pass over F keeps exp(2 y F) output-major, so the
next step's line searches (losses.pyx) need no exp per sample and read each
output contiguously. With second-order leaves (``newton_leaves``, an
extension beyond paper 002) every strategy but Algorithm 3 labels its leaves
with regularised Newton steps and takes rho = 1 (section "second-order leaves");
there is no line search, and the pass keeps the second derivatives row-major
instead, beside G, for the leaves' sums.
"""
import numpy as np

from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore, Node, TREE_LEAF, RowMatrix, Rows
from engine._core.grower_base cimport Grower
from engine._core.rng cimport rng_int
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks, padded_width
from engine._core.losses cimport (SQUARED_ERROR, LOGISTIC, LineSearchBuffers, LineSearchWork,
                                  loss_value, negative_gradient, logistic_loss_from_exp,
                                  logistic_hessian_from_exp, line_search, leaf_order,
                                  logistic_line_search)
from libc.math cimport exp, log
from cython.parallel cimport prange

cdef extern from "exp_kernels.h" nogil:
    void engine_exp_array(const float64_t* x, float64_t* out, intp_t n)
    int engine_exp_init()
    int engine_exp_set_mode(int mode)

cdef extern from "logistic_kernels.h" nogil:
    float64_t engine_logistic_row_terms(const float64_t* y, const float64_t* z, const float64_t* e,
                                        float64_t* g, intp_t m)
    float64_t engine_logistic_row_terms_hessian(const float64_t* y, const float64_t* z,
                                                const float64_t* e, float64_t* g, float64_t* h,
                                                intp_t m)
    float64_t engine_logistic_hessian(float64_t e)

engine_exp_init()

cdef enum:
    # The logistic passes take exp(2 y F) over a row's outputs in chunks of
    # this many entries (a stack buffer), one vectorised call per chunk (at
    # most 512: engine_logistic_row_terms takes one log per chunk).
    EXP_CHUNK = 256

cpdef enum Strategy:
    SINGLE_TARGET = 0
    MULTI_OUTPUT = 1
    PROJECTED = 2
    PROJECTED_RELABEL = 3

cpdef enum Score:
    SCORE_R2 = 0          # per-output r2 (the regressor's held-out score)
    SCORE_LOSS = 1        # minus the per-output mean loss (the classifier's)


cdef inline float64_t now() noexcept nogil:
    """Seconds on the monotonic clock (the step times' clock)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


# ---------------------------------------------------------------- the state of a fit

cdef struct Fit:
    # What every step routine reads and writes: the training set, the model F
    # and the buffers of one step (from the Workspace). All matrices n x d,
    # row-major. Filled once per call of boost.
    intp_t n                    # training samples
    intp_t d                    # outputs
    intp_t q                    # projections per step (Algorithms 3 and 4)
    int loss                    # losses.pxd Loss code
    float64_t learning_rate
    float64_t subsample         # fraction of rows drawn for each tree (1: all)
    int n_threads               # threads for the loops over rows (results do not depend on it)
    const float64_t* Y          # targets (the classifier's -1/+1)
    float64_t* F                # raw predictions F = f_{m-1}(x_i), updated in place
    float64_t* G                # negative gradient at F (times ratio under per-entry weights)
    float64_t* T                # split targets, n x t: G[:, j], or the projections G Phi^T
    const float64_t* w          # row weights w_i (r_i = max_j W_ij under per-entry weights)
    float64_t w_total           # sum_i w_i, the normaliser of the training loss
    # Per-entry weights (see "per-entry weights" below); W is NULL for row weights.
    const float64_t* W          # W_ij
    const float64_t* ratio      # W_ij / r_i (0 where r_i = 0)
    float64_t* column_weight    # n: scratch for one output's entry weights
    const float64_t* column_total   # d: sum_i W_ij
    float64_t* column_loss      # d: scratch
    # The current step.
    float64_t* step_weight      # n: in-bag weights of the tree being grown (0: out of bag)
    int32_t* leaf               # n: leaf of every training sample in that tree
    int32_t* perm               # n: scratch of the sub-sampling draw
    float64_t* scale            # d: learning_rate * rho_j of the step (also scratch before that)
    float64_t* block_sums       # per-row-block partial sums (row_blocks.pxd)
    LineSearchWork* work        # scratch of the line searches
    # Logistic loss, all but single target (else NULL): output-major (d x n)
    # copies, so that one output's line search reads contiguous columns.
    float64_t* E                # exp(2 y_ij F_ij), kept by the pass that computes G
    const float64_t* YT         # Y transposed
    # Logistic loss with Newton leaves and row weights, all but single target (else NULL;
    # then E is NULL): the second derivatives, n x d like G, kept by the same pass.
    float64_t* H
    # Second-order leaves (leaf_estimation="newton", see "second-order leaves").
    bint newton
    float64_t l2                # lambda
    uint64_t* rng               # the fit's random generator (rng.pxd)
    # The random projections Phi_m, rows m * q + r in CSR form (projected strategies only).
    const intp_t* proj_indptr
    const intp_t* proj_indices
    const float64_t* proj_data


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


# ---------------------------------------------------------------- the rows of a tree

cdef void _draw_in_bag(const float64_t* sample_weight, float64_t* out, int32_t* perm,
                       intp_t n, float64_t subsample, uint64_t* rng) noexcept nogil:
    """Friedman's stochastic boosting: out = the weights of a fraction of the rows.

    floor(subsample * n) rows (at least one) are drawn without replacement and
    keep their weight; the others get 0. With subsample >= 1, out = the weights.
    """
    cdef intp_t i, j, k, n_in
    cdef int32_t tmp
    if subsample >= 1.0:
        memcpy(out, sample_weight, n * sizeof(float64_t))
        return
    n_in = <intp_t> (subsample * n)
    if n_in < 1:
        n_in = 1
    # Start from the identity every time, so the draw depends only on the
    # generator state (not on earlier fits, chunks or pickling).
    for i in range(n):
        out[i] = 0.0
        perm[i] = <int32_t> i
    for k in range(n_in):
        j = k + rng_int(rng, n - k)
        tmp = perm[k]
        perm[k] = perm[j]
        perm[j] = tmp
        out[perm[k]] = sample_weight[perm[k]]


# ---------------------------------------------------------------- split targets

cdef void _gradient_entries(int loss, const float64_t* Y, const float64_t* F,
                            const float64_t* ratio, float64_t* G, intp_t lo, intp_t hi) noexcept nogil:
    """G[lo:hi] = the negative gradient, times ratio when given (missing entries' residuals are zero)."""
    cdef intp_t c
    if ratio == NULL:
        for c in range(lo, hi):
            G[c] = negative_gradient(loss, Y[c], F[c])
    else:
        for c in range(lo, hi):
            G[c] = ratio[c] * negative_gradient(loss, Y[c], F[c])


cdef void _gradient(Fit* fit) noexcept nogil:
    """G at the current F, for the first step of a fit (later steps get it from _apply_step).

    Row blocks go to threads; every entry is its own value, so the result does
    not depend on their number.
    """
    cdef intp_t b, i, j, k, j0, j1, n = fit.n, d = fit.d, n_blocks = n_row_blocks(n)
    cdef float64_t z[EXP_CHUNK]
    # exp(2 y F) for the first line searches (E, d x n), or the second derivatives for the
    # first Newton leaves (H, n x d)
    if fit.E != NULL or fit.H != NULL:
        for i in range(n):
            for k in range((d + EXP_CHUNK - 1) // EXP_CHUNK):
                j0 = k * EXP_CHUNK
                j1 = min(j0 + EXP_CHUNK, d)
                for j in range(j0, j1):
                    z[j - j0] = 2.0 * fit.Y[i * d + j] * fit.F[i * d + j]
                engine_exp_array(z, z, j1 - j0)
                for j in range(j0, j1):
                    if fit.E != NULL:
                        fit.E[j * n + i] = z[j - j0]
                    else:
                        fit.H[i * d + j] = engine_logistic_hessian(z[j - j0])
    if fit.n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=fit.n_threads):
            _gradient_entries(fit.loss, fit.Y, fit.F, fit.ratio, fit.G, b * ROW_BLOCK * d,
                              block_end(b, 0, n) * d)
    else:
        _gradient_entries(fit.loss, fit.Y, fit.F, fit.ratio, fit.G, 0, n * d)


cdef void _project_rows(const float64_t* G, intp_t lo, intp_t hi, intp_t d,
                        const float64_t* pdata, const intp_t* pind, intp_t nnz,
                        float64_t* out, intp_t out_stride) noexcept nogil:
    """out[i * out_stride] = <phi, G_i> for the rows i in [lo, hi) (phi: nnz entries, CSR)."""
    cdef intp_t i, c
    cdef float64_t acc
    cdef const float64_t* Gi
    for i in range(lo, hi):
        acc = 0.0
        Gi = G + i * d
        for c in range(nnz):
            acc += pdata[c] * Gi[pind[c]]
        out[i * out_stride] = acc


cdef void _project(const float64_t* G, intp_t n, intp_t d, const float64_t* pdata,
                   const intp_t* pind, intp_t nnz, float64_t* out, intp_t out_stride,
                   int n_threads) noexcept nogil:
    """out[i * out_stride] = <phi_r, G_i> for one projection row phi_r in CSR form.

    Its bounds and arrays are read once, not once per sample; every row is its
    own sum, so row blocks can go to threads.
    """
    cdef intp_t b, n_blocks = n_row_blocks(n)
    if n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=n_threads):
            _project_rows(G, b * ROW_BLOCK, block_end(b, 0, n), d, pdata, pind, nnz, out, out_stride)
    else:
        _project_rows(G, 0, n, d, pdata, pind, nnz, out, out_stride)


cdef void _project_gradient(Fit* fit, intp_t m, intp_t t) noexcept nogil:
    """T = G Phi_m^T on the first t projection rows of step m (n x t, line 5 of Algorithms 3-4).

    One projection row at a time: its CSR bounds and arrays are read once, not
    once per sample (same sums, same order). An empty row gives a zero column.
    """
    cdef intp_t i, r, row_begin, row_end
    for r in range(t):
        row_begin = fit.proj_indptr[m * fit.q + r]
        row_end = fit.proj_indptr[m * fit.q + r + 1]
        if row_end == row_begin:
            for i in range(fit.n):
                fit.T[i * t + r] = 0.0
            continue
        _project(fit.G, fit.n, fit.d, &fit.proj_data[row_begin], &fit.proj_indices[row_begin],
                 row_end - row_begin, fit.T + r, t, fit.n_threads)


# ---------------------------------------------------------------- per-entry weights (missing targets)
#
# A fit with per-entry weights W (n x d, W_ij >= 0; a missing target is a zero
# weight, see engine/estimators/targets.py) runs the steps above with these
# changes, each in one helper below. ``sample_weight`` then holds the row
# weights r_i = max_j W_ij, and ratio_ij = W_ij / r_i (0 where r_i = 0).
#
# * Split targets (multi-output and projected searches): the trees are grown
#   with row weights r on ratio ⊙ G. A missing entry's residual counts as zero,
#   and a node's weighted target sums sum_i r_i ratio_ij g_ij are exactly the
#   per-entry weighted sums sum_i W_ij g_ij; only the node weights (the
#   denominators of the criterion) stay row weights, since the grower has one
#   weight per sample. A sample keeps its row weight in every output's sums.
# * Single target: the tree of output j is grown with the weights W[:, j]
#   (the criterion is per output, so the sample is left out of that output's
#   tree: its split statistics, its leaf means and its line search).
# * Leaves of multi-output and relabelled trees (_relabel_masked): the mean of
#   each output's residuals over the in-bag entries of the leaf weighted by W,
#   0 (no step) for an output that has no observed entry in the leaf. The leaf
#   value of a projected tree (Algorithm 3) is the mean projected target, as
#   grown: a scalar shared by all outputs, rescaled per output by rho.
# * rho: line searches for output j weighted by W[:, j] on the in-bag rows
#   (_output_weights); eq. 23 with per-output denominators
#   (_squared_rho_projected_masked). With the square loss and masked leaf
#   means, eq. 20 is still exactly 1 per output.
# * Training loss (_update_masked, _update_output): the sum over outputs
#   of each output's W-weighted mean loss, sum_j sum_i W_ij l_ij / sum_i W_ij;
#   for weights constant per row this is the unmasked definition.
# With W constant per row every change above is the identity, which is why the
# estimators only take this path when some row's weights differ.

cdef const float64_t* _output_weights(Fit* fit, intp_t j, const float64_t* rows) noexcept nogil:
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


cdef int _relabel_masked(TreeStore store, const int32_t* leaf, const float64_t* G,
                         const float64_t* wstep, const float64_t* W,
                         intp_t n, intp_t d) except -1 nogil:
    """Node values of the last tree: per-output means of g over in-bag observed entries.

    sum_i wstep_i G_ij = sum_i W_ij g_ij (G = ratio ⊙ g, wstep = r on in-bag
    rows), divided by sum_i W_ij over the same rows; 0 where that is 0.
    Internal nodes get the same means over their subtree.
    """
    cdef intp_t first = store._starts[store._n_trees - 1]
    cdef intp_t n_nodes = store._node_count - first
    cdef float64_t* den = <float64_t*> calloc(n_nodes * d, sizeof(float64_t))
    cdef float64_t* value
    cdef float64_t* node_den
    cdef intp_t i, j, node, a, b
    cdef Node* nd
    if den == NULL:
        with gil:
            raise MemoryError()
    for i in range(n_nodes * d):
        store._values[first * d + i] = 0.0
    for i in range(n):
        if wstep[i] == 0.0:
            continue
        value = store._values + leaf[i] * d
        node_den = den + (leaf[i] - first) * d
        for j in range(d):
            value[j] += wstep[i] * G[i * d + j]
            node_den[j] += W[i * d + j]
    # Children have larger ids than their parent: sums flow upwards in one pass.
    for node in range(store._node_count - 1, first - 1, -1):
        nd = &store._nodes[node]
        if nd.left_child != TREE_LEAF:
            a = nd.left_child
            b = nd.right_child
            for j in range(d):
                store._values[node * d + j] = store._values[a * d + j] + store._values[b * d + j]
                den[(node - first) * d + j] = den[(a - first) * d + j] + den[(b - first) * d + j]
    for i in range(n_nodes * d):
        store._values[first * d + i] = store._values[first * d + i] / den[i] if den[i] > 0.0 else 0.0
    free(den)
    return 0


cdef float64_t _update_masked(int loss, const float64_t* Y, float64_t* F, float64_t* G,
                              float64_t* E, const float64_t* values, const int32_t* leaf, intp_t nv,
                              const float64_t* scale, const float64_t* W, const float64_t* ratio,
                              const float64_t* column_total, float64_t* column_loss,
                              intp_t n, intp_t d) noexcept nogil:
    """F += scale ⊙ tree(x); G = ratio ⊙ (negative gradient); the masked training loss.

    E (logistic loss, else NULL): exp(2 y F), shared by gradient and loss and kept (d x n) for the line search.
    """
    cdef intp_t i, j, k, j0, j1, c, col
    cdef float64_t total = 0.0, e
    cdef float64_t ez[EXP_CHUNK]
    for j in range(d):
        column_loss[j] = 0.0
    for i in range(n):
        for k in range((d + EXP_CHUNK - 1) // EXP_CHUNK):
            j0 = k * EXP_CHUNK
            j1 = min(j0 + EXP_CHUNK, d)
            for j in range(j0, j1):
                col = 0 if nv == 1 else j
                c = i * d + j
                F[c] += scale[j] * values[leaf[i] * nv + col]
                if E != NULL:
                    ez[j - j0] = 2.0 * Y[c] * F[c]
                    continue
                G[c] = ratio[c] * negative_gradient(loss, Y[c], F[c])
                column_loss[j] += W[c] * loss_value(loss, Y[c], F[c])
            if E == NULL:
                continue
            engine_exp_array(ez, ez, j1 - j0)      # exp(2 y F), shared by gradient and loss
            for j in range(j0, j1):
                c = i * d + j
                e = ez[j - j0]
                E[j * n + i] = e
                G[c] = ratio[c] * (2.0 * Y[c] / (1.0 + e))
                column_loss[j] += W[c] * logistic_loss_from_exp(Y[c], F[c], e)
    for j in range(d):
        total += column_loss[j] / column_total[j]
    return total


cdef float64_t _update_column_masked(int loss, const float64_t* Y, float64_t* F, intp_t d,
                                     intp_t j, const float64_t* values, const int32_t* leaf,
                                     float64_t step, const float64_t* W,
                                     intp_t n) noexcept nogil:
    """Single target: F[:, j] += step * tree(x); return sum_i W_ij loss_ij."""
    cdef intp_t i, c
    cdef float64_t total = 0.0
    for i in range(n):
        c = i * d + j
        F[c] += step * values[leaf[i]]
        total += W[c] * loss_value(loss, Y[c], F[c])
    return total


# ---------------------------------------------------------------- second-order leaves
#
# leaf_estimation="newton" (an extension beyond paper 002; paper 004's BOOMER
# heads, SketchBoost): the tree is grown on the strategy's split targets as
# usual, then every node holds, per output j,
#     v_j = sum_i w_i (-g_ij) / (sum_i w_i h_ij + lambda)
# over its in-bag samples (g, h: first and second derivatives of the loss in
# f; with per-entry weights w_i is W_ij), and the step has rho = 1 (no line
# search). Square loss: h = 1. Logistic: h = 4 s (1 - s), s = 1 / (1 + exp(2 y f)).
# A node whose denominator is 0 (lambda = 0, every probability saturated) holds 0.

cdef int _newton_leaves(TreeStore store, const int32_t* leaf, int loss, const float64_t* Y,
                        const float64_t* F, const float64_t* E, const float64_t* H,
                        const float64_t* G, intp_t g_stride, const float64_t* ratio,
                        const float64_t* wstep, intp_t n, intp_t d, intp_t j0,
                        float64_t lam) except -1 nogil:
    """Newton values of the last tree's nodes, for outputs j0 .. j0 + store.n_values - 1.

    G[i * g_stride + k] is the negative gradient of output j0 + k (times ratio
    when per-entry weights are given, as the loop keeps it). The logistic
    loss' second derivatives come from H (n x d, as the update pass keeps
    them), else from E (exp(2 y F), d x n), else from exp(2 y F) computed
    here; Y, F are n x d.
    """
    cdef intp_t k_out = store.n_values
    cdef intp_t first = store._starts[store._n_trees - 1]
    cdef intp_t n_nodes = store._node_count - first
    cdef float64_t* den = <float64_t*> calloc(n_nodes * k_out, sizeof(float64_t))
    cdef float64_t* num = store._values + first * k_out
    cdef intp_t i, k, c, node, a, b
    cdef float64_t h, e, total
    cdef float64_t* node_num
    cdef float64_t* node_den
    cdef const float64_t* g_row
    cdef const float64_t* h_row
    cdef Node* nd
    if den == NULL:
        with gil:
            raise MemoryError()
    for i in range(n_nodes * k_out):
        num[i] = 0.0
    for i in range(n):
        if wstep[i] == 0.0:
            continue
        if H != NULL and ratio == NULL:     # contiguous rows of G and H: a vectorised loop
            node_num = num + (leaf[i] - first) * k_out
            node_den = den + (leaf[i] - first) * k_out
            g_row = G + i * g_stride
            h_row = H + i * d + j0
            for k in range(k_out):
                node_num[k] += wstep[i] * g_row[k]
                node_den[k] += wstep[i] * h_row[k]
            continue
        for k in range(k_out):
            c = i * d + j0 + k
            num[(leaf[i] - first) * k_out + k] += wstep[i] * G[i * g_stride + k]
            if loss == SQUARED_ERROR:
                h = 1.0
            elif H != NULL:
                h = H[c]
            else:
                e = E[(j0 + k) * n + i] if E != NULL else exp(2.0 * Y[c] * F[c])
                h = logistic_hessian_from_exp(e)
            den[(leaf[i] - first) * k_out + k] += wstep[i] * (ratio[c] if ratio != NULL else 1.0) * h
    # Children have larger ids than their parent: sums flow upwards in one pass.
    for node in range(store._node_count - 1, first - 1, -1):
        nd = &store._nodes[node]
        if nd.left_child != TREE_LEAF:
            a = nd.left_child - first
            b = nd.right_child - first
            for k in range(k_out):
                num[(node - first) * k_out + k] = num[a * k_out + k] + num[b * k_out + k]
                den[(node - first) * k_out + k] = den[a * k_out + k] + den[b * k_out + k]
    for i in range(n_nodes * k_out):
        total = den[i] + lam
        num[i] = num[i] / total if total > 0.0 else 0.0
    free(den)
    return 0


# ---------------------------------------------------------------- leaves and rho

cdef int _mean_gradient_leaves(Fit* fit, Grower grower, TreeStore store) except -1 nogil:
    """Route the training rows to the new tree's leaves; leaves hold mean gradient rows.

    The grower already labelled every node with the weighted mean of its
    labels (G for Algorithms 2 and 4); under per-entry weights each output's
    mean is taken over its observed entries instead (_relabel_masked). With
    second-order leaves every node holds its Newton step instead (_newton_leaves).
    """
    grower.training_leaves(store, fit.leaf)
    if fit.newton:
        _newton_leaves(store, fit.leaf, fit.loss, fit.Y, fit.F, fit.E, fit.H, fit.G, fit.d, fit.ratio,
                       fit.step_weight, fit.n, fit.d, 0, fit.l2)
    elif fit.W != NULL:
        _relabel_masked(store, fit.leaf, fit.G, fit.step_weight, fit.W, fit.n, fit.d)
    return 0


cdef void _rho_line_search(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil:
    """rho_j = argmin_r sum_i w_ij l(y_ij, F_ij + r g_m(x_i)_j) per output (losses.pyx).

    w_ij: the in-bag row weights, or output j's entry weights under per-entry
    weights. g_m(x)_j is the leaf's value j, or its one value when the leaves
    are scalars (Algorithm 3). Under the logistic loss the rows are put in
    leaf order once for every output (once per output under per-entry weights).
    """
    cdef intp_t j, nv = store.n_values, n = fit.n
    cdef intp_t first = store._starts[store._n_trees - 1], n_nodes = store._node_count - first
    if fit.E != NULL and fit.W == NULL:
        leaf_order(fit.leaf, fit.step_weight, n, first, n_nodes, fit.work)
    for j in range(fit.d):
        if fit.E != NULL:
            # exp(2 y F) from the last pass over F; the leaves are the last tree's nodes
            if fit.W != NULL:
                leaf_order(fit.leaf, _output_weights(fit, j, fit.step_weight), n, first, n_nodes,
                           fit.work)
            rho[j] = logistic_line_search(fit.YT + j * n, NULL, fit.E + j * n, 1, store._values,
                                          nv, 0 if nv == 1 else j, first, n_nodes, fit.work)
        else:
            rho[j] = line_search(fit.loss, fit.Y + j, fit.F + j, fit.d, store._values, fit.leaf, nv,
                                 0 if nv == 1 else j, _output_weights(fit, j, fit.step_weight),
                                 n, fit.work)


cdef void _rho_mean_gradient_leaves(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil:
    """rho for leaves that hold mean gradient rows (Algorithms 2 and 4, st-gbrt's trees).

    Under the square loss eq. 20 equals 1 for every output: the leaf mean of
    the residuals is already the best constant in the leaf. Otherwise a line
    search per output.
    """
    cdef intp_t j
    if fit.loss == SQUARED_ERROR or fit.newton:
        for j in range(fit.d):
            rho[j] = 1.0        # a Newton leaf is the step itself: no line search
    else:
        _rho_line_search(fit, store, rho)


cdef void _squared_rho_rows(const float64_t* G, const float64_t* values, const int32_t* leaf,
                            const float64_t* w, intp_t lo, intp_t hi, intp_t d,
                            float64_t* sums) noexcept nogil:
    """sums[:d] = sum_i w_i G_ij g_i and sums[d] = sum_i w_i g_i^2 over the rows [lo, hi)."""
    cdef intp_t i, j
    cdef float64_t a, wa
    for j in range(d + 1):
        sums[j] = 0.0
    for i in range(lo, hi):
        if w[i] == 0.0:
            continue
        a = values[leaf[i]]
        wa = w[i] * a
        sums[d] += wa * a
        for j in range(d):
            sums[j] += wa * G[i * d + j]


cdef void _squared_rho_projected(const float64_t* G, const float64_t* values, const int32_t* leaf,
                                 const float64_t* w, intp_t n, intp_t d, float64_t* rho,
                                 float64_t* num, float64_t* block_sums, int n_threads) noexcept nogil:
    """Eq. 23 for every output at once: rho_j = sum_i w_i G_ij g_i / sum_i w_i g_i^2.

    The sums run in row blocks (engine/_core/row_blocks.pxd), in parallel when
    there are several, and are added in block order: the same rho for any
    number of threads.
    """
    cdef intp_t b, j, n_blocks = n_row_blocks(n), width = padded_width(d + 1)
    cdef float64_t den = 0.0
    if n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=n_threads):
            _squared_rho_rows(G, values, leaf, w, b * ROW_BLOCK, block_end(b, 0, n), d,
                              block_sums + b * width)
    else:
        for b in range(n_blocks):
            _squared_rho_rows(G, values, leaf, w, b * ROW_BLOCK, block_end(b, 0, n), d,
                              block_sums + b * width)
    for j in range(d):
        num[j] = 0.0
    for b in range(n_blocks):
        den += block_sums[b * width + d]
        for j in range(d):
            num[j] += block_sums[b * width + j]
    for j in range(d):
        rho[j] = num[j] / den if den > 0.0 else 0.0


cdef void _squared_rho_projected_masked(const float64_t* G, const float64_t* values,
                                        const int32_t* leaf, const float64_t* wstep,
                                        const float64_t* W, intp_t n, intp_t d, float64_t* rho,
                                        float64_t* num, float64_t* den) noexcept nogil:
    """Eq. 23 over observed entries: rho_j = sum_i W_ij g_ij a_i / sum_i W_ij a_i^2 (in-bag rows)."""
    cdef intp_t i, j
    cdef float64_t a, wa
    for j in range(d):
        num[j] = 0.0
        den[j] = 0.0
    for i in range(n):
        if wstep[i] == 0.0:
            continue
        a = values[leaf[i]]
        wa = wstep[i] * a
        for j in range(d):
            num[j] += wa * G[i * d + j]
            den[j] += W[i * d + j] * a * a
    for j in range(d):
        rho[j] = num[j] / den[j] if den[j] > 0.0 else 0.0


cdef void _rho_projected(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil:
    """rho for a tree with scalar leaves g_m(x) grown on G phi_m^T (Algorithm 3, line 7).

    Square loss: eq. 23 in closed form (the scale buffer serves as scratch);
    otherwise a line search per output.
    """
    if fit.loss != SQUARED_ERROR:
        _rho_line_search(fit, store, rho)
    elif fit.W != NULL:
        _squared_rho_projected_masked(fit.G, store._values, fit.leaf, fit.step_weight, fit.W,
                                      fit.n, fit.d, rho, fit.scale, fit.column_loss)
    else:
        _squared_rho_projected(fit.G, store._values, fit.leaf, fit.step_weight, fit.n, fit.d,
                               rho, fit.scale, fit.block_sums, fit.n_threads)


# ---------------------------------------------------------------- F += learning_rate * rho ⊙ g_m(x)

cdef float64_t _update_squared_rows(const float64_t* Y, float64_t* F, float64_t* G,
                                    const float64_t* values, const int32_t* leaf, intp_t nv,
                                    const float64_t* scale, const float64_t* w,
                                    intp_t lo, intp_t hi, intp_t d) noexcept nogil:
    """The rows [lo, hi) of _update_squared; returns their share of the loss."""
    cdef intp_t i, j, c
    cdef float64_t a, g, acc, total = 0.0
    cdef const float64_t* v
    for i in range(lo, hi):
        acc = 0.0
        if nv == 1:
            a = values[leaf[i]]
            for j in range(d):
                c = i * d + j
                F[c] += scale[j] * a
                g = Y[c] - F[c]
                G[c] = g
                acc += g * g
        else:
            v = values + leaf[i] * nv
            for j in range(d):
                c = i * d + j
                F[c] += scale[j] * v[j]
                g = Y[c] - F[c]
                G[c] = g
                acc += g * g
        total += w[i] * 0.5 * acc
    return total


cdef float64_t _update_squared(const float64_t* Y, float64_t* F, float64_t* G,
                               const float64_t* values, const int32_t* leaf, intp_t nv,
                               const float64_t* scale, const float64_t* w,
                               intp_t n, intp_t d, float64_t* block_sums,
                               int n_threads) noexcept nogil:
    """F += scale ⊙ tree(x); G = Y - F; return sum_i w_i 0.5 |G_i|^2 (square loss).

    Row blocks in parallel, their losses added in block order (row_blocks.pxd).
    """
    cdef intp_t b, n_blocks = n_row_blocks(n)
    cdef float64_t total = 0.0
    if n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=n_threads):
            block_sums[b] = _update_squared_rows(Y, F, G, values, leaf, nv, scale, w,
                                                 b * ROW_BLOCK, block_end(b, 0, n), d)
    else:
        for b in range(n_blocks):
            block_sums[b] = _update_squared_rows(Y, F, G, values, leaf, nv, scale, w,
                                                 b * ROW_BLOCK, block_end(b, 0, n), d)
    for b in range(n_blocks):
        total += block_sums[b]
    return total


cdef float64_t _update_logistic_rows(const float64_t* Y, float64_t* F, float64_t* G, float64_t* E,
                                     float64_t* H, const float64_t* values, const int32_t* leaf, intp_t nv,
                                     const float64_t* scale, const float64_t* w,
                                     intp_t lo, intp_t hi, intp_t n, intp_t d) noexcept nogil:
    """The rows [lo, hi) of _update_logistic; returns their share of the loss.

    The exps are taken a chunk of the row at a time (EXP_CHUNK entries of
    2 y f in a stack buffer), in one vectorised call (exp_kernels.h); E's
    column-strided copy is a loop of its own, and G and the loss come from
    one vectorised loop over the chunk (logistic_kernels.h: one division per
    entry serves both). The loss differs from a per-entry log1p by rounding
    only, about 1e-16 per entry; it does not enter the model. With H (Newton
    leaves) the same loop writes the second derivatives there, row-major,
    and E (NULL) is not kept: no line search reads it.
    """
    cdef intp_t i, j, k, j0, j1, c
    cdef float64_t acc, total = 0.0
    cdef float64_t z[EXP_CHUNK]
    cdef float64_t ez[EXP_CHUNK]
    cdef const float64_t* v
    for i in range(lo, hi):
        acc = 0.0
        v = values + leaf[i] * nv
        for k in range((d + EXP_CHUNK - 1) // EXP_CHUNK):
            j0 = k * EXP_CHUNK
            j1 = min(j0 + EXP_CHUNK, d)
            for j in range(j0, j1):
                c = i * d + j
                F[c] += scale[j] * (v[0] if nv == 1 else v[j])
                z[j - j0] = 2.0 * Y[c] * F[c]
            engine_exp_array(z, ez, j1 - j0)
            if H != NULL:
                acc += engine_logistic_row_terms_hessian(Y + i * d + j0, z, ez, G + i * d + j0,
                                                         H + i * d + j0, j1 - j0)
                continue
            for j in range(j0, j1):
                E[j * n + i] = ez[j - j0]
            acc += engine_logistic_row_terms(Y + i * d + j0, z, ez, G + i * d + j0, j1 - j0)
        total += w[i] * acc
    return total


cdef float64_t _update_logistic(const float64_t* Y, float64_t* F, float64_t* G, float64_t* E,
                                float64_t* H, const float64_t* values, const int32_t* leaf, intp_t nv,
                                const float64_t* scale, const float64_t* w,
                                intp_t n, intp_t d, float64_t* block_sums,
                                int n_threads) noexcept nogil:
    """F += scale ⊙ tree(x); G = the negative gradient; E = exp(2 y F) (d x n), or H = the second
    derivatives (n x d) when E is NULL; the training loss.

    One exp per entry serves the gradient, the loss and (through E) the next
    step's line searches. Row blocks in parallel, added in block order.
    """
    cdef intp_t b, n_blocks = n_row_blocks(n)
    cdef float64_t total = 0.0
    if n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=n_threads):
            block_sums[b] = _update_logistic_rows(Y, F, G, E, H, values, leaf, nv, scale, w,
                                                  b * ROW_BLOCK, block_end(b, 0, n), n, d)
    else:
        for b in range(n_blocks):
            block_sums[b] = _update_logistic_rows(Y, F, G, E, H, values, leaf, nv, scale, w,
                                                  b * ROW_BLOCK, block_end(b, 0, n), n, d)
    for b in range(n_blocks):
        total += block_sums[b]
    return total


cdef float64_t _update_any_loss(int loss, const float64_t* Y, float64_t* F, float64_t* G,
                                const float64_t* values, const int32_t* leaf, intp_t nv,
                                const float64_t* scale, const float64_t* w,
                                intp_t n, intp_t d) noexcept nogil:
    """F += scale ⊙ tree(x); G = the negative gradient at F; return sum_i w_i sum_j l_ij."""
    cdef intp_t i, j, c, col
    cdef float64_t acc, total = 0.0
    for i in range(n):
        acc = 0.0
        for j in range(d):
            col = 0 if nv == 1 else j
            c = i * d + j
            F[c] += scale[j] * values[leaf[i] * nv + col]
            G[c] = negative_gradient(loss, Y[c], F[c])
            acc += loss_value(loss, Y[c], F[c])
        total += w[i] * acc
    return total


cdef float64_t _apply_step(Fit* fit, TreeStore store, const float64_t* rho) noexcept nogil:
    """F += learning_rate * rho ⊙ g_m(x) with the step's tree; return the training loss.

    One pass over F also computes the next step's G (line 4) and the loss,
    sum_i w_i sum_j l(y_ij, F_ij) / sum_i w_i (the per-entry form under
    per-entry weights). A tree with scalar leaves (Algorithm 3) adds
    rho_j g_m(x) to every output j (eq. 15).
    """
    cdef intp_t j, nv = store.n_values
    for j in range(fit.d):
        fit.scale[j] = fit.learning_rate * rho[j]
    if fit.W != NULL:
        return _update_masked(fit.loss, fit.Y, fit.F, fit.G, fit.E, store._values, fit.leaf, nv,
                              fit.scale, fit.W, fit.ratio, fit.column_total, fit.column_loss,
                              fit.n, fit.d)
    if fit.loss == SQUARED_ERROR:
        return _update_squared(fit.Y, fit.F, fit.G, store._values, fit.leaf, nv, fit.scale,
                               fit.w, fit.n, fit.d, fit.block_sums, fit.n_threads) / fit.w_total
    if fit.E != NULL or fit.H != NULL:
        return _update_logistic(fit.Y, fit.F, fit.G, fit.E, fit.H, store._values, fit.leaf, nv, fit.scale,
                                fit.w, fit.n, fit.d, fit.block_sums, fit.n_threads) / fit.w_total
    return _update_any_loss(fit.loss, fit.Y, fit.F, fit.G, store._values, fit.leaf, nv,
                            fit.scale, fit.w, fit.n, fit.d) / fit.w_total


cdef float64_t _update_output(Fit* fit, intp_t j, const float64_t* values, float64_t step,
                              float64_t total) noexcept nogil:
    """Single target: F[:, j] += step * tree(x); return ``total`` plus output j's loss.

    Row weights: total + sum_i w_i l_ij (normalised by the caller, once all
    outputs are added, as the other strategies' loss). Per-entry weights:
    total + sum_i W_ij l_ij / sum_i W_ij.
    """
    cdef intp_t i, d = fit.d
    if fit.W != NULL:
        return total + _update_column_masked(fit.loss, fit.Y, fit.F, d, j, values, fit.leaf, step,
                                             fit.W, fit.n) / fit.column_total[j]
    for i in range(fit.n):
        fit.F[i * d + j] += step * values[fit.leaf[i]]
        total += fit.w[i] * loss_value(fit.loss, fit.Y[i * d + j], fit.F[i * d + j])
    return total


# ---------------------------------------------------------------- the four algorithms: one step each

cdef float64_t _step_single_target(Fit* fit, Grower grower, TreeStore store,
                                   float64_t* rho) except? -1 nogil:
    """st-gbrt: one single-output tree per output j, fit to -dl/dF_ij; returns the training loss.

    Outputs are visited in turn, each tree seeing the model already updated
    by the trees of the outputs before it (the losses are separable, so this
    is d independent boosting runs sharing the random generator). The tree of
    output j is grown on its own in-bag draw, with output j's weights.
    """
    cdef intp_t i, j, n = fit.n, d = fit.d
    cdef float64_t total = 0.0
    for j in range(d):
        _draw_in_bag(_output_weights(fit, j, fit.w), fit.step_weight, fit.perm, n, fit.subsample,
                     fit.rng)
        for i in range(n):
            fit.T[i] = negative_gradient(fit.loss, fit.Y[i * d + j], fit.F[i * d + j])
        grower.grow(store, fit.T, 1, fit.T, fit.step_weight, fit.rng)
        grower.training_leaves(store, fit.leaf)
        if fit.newton:
            _newton_leaves(store, fit.leaf, fit.loss, fit.Y, fit.F, NULL, NULL, fit.T, 1, NULL,
                           fit.step_weight, n, d, j, fit.l2)
            rho[j] = 1.0
        elif fit.loss == SQUARED_ERROR:
            rho[j] = 1.0
        else:
            rho[j] = line_search(fit.loss, fit.Y + j, fit.F + j, d, store._values, fit.leaf, 1, 0,
                                 fit.step_weight, n, fit.work)
        total = _update_output(fit, j, store._values, fit.learning_rate * rho[j], total)
    return total if fit.W != NULL else total / fit.w_total


cdef float64_t _step_multi_output(Fit* fit, Grower grower, TreeStore store,
                                  float64_t* rho) except? -1 nogil:
    """gbmort (Algorithm 2): one tree on the n x d gradient G; returns the training loss.

    Lines 5-7: the tree is grown on G (multi-output variance) and its leaves
    hold the mean gradient rows; rho_j = 1 (square loss) or a line search.
    """
    _draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    grower.grow(store, fit.G, fit.d, fit.G, fit.step_weight, fit.rng)
    _mean_gradient_leaves(fit, grower, store)
    _rho_mean_gradient_leaves(fit, store, rho)
    return _apply_step(fit, store, rho)


cdef float64_t _step_projected(Fit* fit, Grower grower, TreeStore store, intp_t m,
                               float64_t* rho) except? -1 nogil:
    """gbrt-rpo (Algorithm 3): one single-output tree on G phi_m^T; returns the training loss.

    Lines 5-8: project the gradient on the step's random row phi_m, grow a
    tree on that one column (leaf values: the mean projected gradient), then
    choose rho_j per output (eq. 23 under the square loss): the weights also
    undo the projection's signs and scales.
    """
    _draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    _project_gradient(fit, m, 1)
    grower.grow(store, fit.T, 1, fit.T, fit.step_weight, fit.rng)
    grower.training_leaves(store, fit.leaf)
    _rho_projected(fit, store, rho)
    return _apply_step(fit, store, rho)


cdef float64_t _step_projected_relabel(Fit* fit, Grower grower, TreeStore store, intp_t m,
                                       float64_t* rho) except? -1 nogil:
    """gbrt-relabel-rpo (Algorithm 4): split on G Phi_m^T, relabel in G; returns the training loss.

    Lines 5-9: the tree's splits are searched on the q projected residuals
    T = G Phi_m^T, while its nodes are labelled with the mean of the original
    residual rows G of their samples (the labels the grower averages), so
    each leaf predicts all d outputs; rho_j as in Algorithm 2.
    """
    _draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    _project_gradient(fit, m, fit.q)
    grower.grow(store, fit.T, fit.q, fit.G, fit.step_weight, fit.rng)
    _mean_gradient_leaves(fit, grower, store)
    _rho_mean_gradient_leaves(fit, store, rho)
    return _apply_step(fit, store, rho)


# ---------------------------------------------------------------- held-out scores and early stopping

cdef void _add_step(TreeStore store, const Rows* X, intp_t n_rows, float64_t* out, intp_t d,
                    bint single_target, intp_t first_tree, const float64_t* rho,
                    float64_t learning_rate) noexcept nogil:
    """out += learning_rate * rho ⊙ g_m(x) for the step whose trees start at ``first_tree``.

    Single target: trees first_tree + j each add to output j. Otherwise one
    tree adds its value j (or its one value, Algorithm 3) to every output j.
    Used for the held-out set while fitting and by :func:`accumulate`.
    """
    cdef intp_t i, j, k, col, nv = store.n_values
    if single_target:
        for j in range(d):
            for i in range(n_rows):
                k = store.leaf_of_row(first_tree + j, X, i)
                out[i * d + j] += learning_rate * rho[j] * store._values[k]
    else:
        for i in range(n_rows):
            k = store.leaf_of_row(first_tree, X, i)
            for j in range(d):
                col = 0 if nv == 1 else j
                out[i * d + j] += learning_rate * rho[j] * store._values[k * nv + col]


cdef void _score_eval(HeldOut* ho, intp_t d, float64_t* eval_loss, float64_t* sse,
                      float64_t* score, float64_t* score_out) noexcept nogil:
    """Score the held-out set's current predictions (after one step).

    Row weights w (W NULL): eval_loss = sum_e w_e sum_j loss_ej / sum_e w_e (the
    training loss' definition). Per-entry weights W (missing held-out targets):
    the masked definition, sum_j sum_e W_ej loss_ej / sum_e W_ej. sse_j is the
    weighted squared error of output j. score_out_j is r2_j = 1 - sse_j / sst_j
    (SCORE_R2; a constant output scores 1 if predicted exactly, else 0, as
    scikit-learn's r2_score) or minus output j's weighted mean loss
    (SCORE_LOSS); score is their mean over outputs (macro-r2, or minus the mean
    per-output loss).
    """
    cdef intp_t e, j, c
    cdef float64_t acc, total = 0.0, l, diff, weight, s, mean = 0.0
    cdef const float64_t* Y = ho.Y
    cdef const float64_t* F = ho.F
    cdef const float64_t* w = ho.w
    cdef const float64_t* W = ho.W
    cdef float64_t* out_loss = ho.out_loss
    cdef int loss = ho.loss
    for j in range(d):
        sse[j] = 0.0
        out_loss[j] = 0.0
    if W == NULL:
        for e in range(ho.n):
            acc = 0.0
            for j in range(d):
                c = e * d + j
                l = loss_value(loss, Y[c], F[c])
                acc += l
                out_loss[j] += w[e] * l
                diff = Y[c] - F[c]
                sse[j] += w[e] * diff * diff
            total += w[e] * acc
        eval_loss[0] = total / ho.w_total
    else:
        for e in range(ho.n):
            for j in range(d):
                c = e * d + j
                weight = W[c]
                out_loss[j] += weight * loss_value(loss, Y[c], F[c])
                diff = Y[c] - F[c]
                sse[j] += weight * diff * diff
        for j in range(d):
            total += out_loss[j] / ho.out_total[j]
        eval_loss[0] = total
    for j in range(d):
        if ho.score_kind == SCORE_R2:
            if ho.sst[j] > 0.0:
                s = 1.0 - sse[j] / ho.sst[j]
            else:
                s = 0.0 if sse[j] > 0.0 else 1.0
        else:
            s = -out_loss[j] / ho.out_total[j]
        score_out[j] = s
        mean += s
    score[0] = mean / d


cdef void _evaluate(HeldOut* held, TreeStore store, bint single_target, const float64_t* rho,
                    float64_t learning_rate, intp_t d, float64_t* eval_loss, float64_t* sse,
                    float64_t* score, float64_t* score_out) noexcept nogil:
    """Add the step just fitted to the held-out predictions, then score them (_score_eval)."""
    _add_step(store, held.X, held.n, held.F, d, single_target,
              store._n_trees - (d if single_target else 1), rho, learning_rate)
    _score_eval(held, d, eval_loss, sse, score, score_out)


cdef bint _stalled(float64_t score, float64_t* history, intp_t k, intp_t position,
                   float64_t tol) noexcept nogil:
    """scikit-learn's early-stopping rule on a score (higher is better).

    Go on while the score beats one of the last k recorded scores by more than
    tol (that score then replaces the oldest); stop otherwise. history starts at -inf.
    """
    cdef intp_t h
    for h in range(k):
        if score - tol > history[h]:
            history[position % k] = score
            return False
    return True


# ---------------------------------------------------------------- the loop

cdef class Workspace:
    """Buffers reused by every step of a fit."""
    cdef float64_t[:, ::1] gradient     # n x d negative gradient
    cdef float64_t[:, ::1] targets      # n x max(q, 1) split targets
    cdef float64_t[::1] step_weight     # n: in-bag weights of the current tree
    cdef int32_t[::1] leaf              # n: leaf of every training sample
    cdef int32_t[::1] eval_leaf         # n_eval
    cdef int32_t[::1] perm              # n: for sub-sampling without replacement
    cdef float64_t[::1] scale           # d: learning_rate * rho of the current step
    cdef LineSearchBuffers line_search_buffers
    cdef float64_t[:, ::1] expo         # d x n: exp(2 y F), output-major (logistic loss; 1 x 1 otherwise)
    cdef float64_t[:, ::1] labels_t     # d x n: Y, output-major (logistic loss; 1 x 1 otherwise)
    cdef float64_t[::1] block_sums      # n_row_blocks(n) x padded_width(d + 1): per-block partial sums
    # Fits with per-entry weights only (1 x 1 / length 1 otherwise).
    cdef float64_t[:, ::1] ratio        # n x d: W_ij / r_i, the split targets' entry factors
    cdef float64_t[::1] column_weight   # n: one output's entry weights on the current rows
    cdef float64_t[::1] column_total    # d: sum_i W_ij, the normaliser of output j's loss
    cdef float64_t[::1] column_loss     # d: scratch (per-output sums)
    # Held-out scoring.
    cdef float64_t[::1] eval_total      # d: per-output sum of held-out weights
    cdef float64_t[::1] eval_out        # d: scratch (per-output held-out loss)

    def __init__(self, intp_t n, intp_t d, intp_t n_targets, intp_t n_eval, bint per_entry=False,
                 bint logistic=False):
        self.gradient = np.zeros((n, d))
        self.targets = np.zeros((n, max(n_targets, 1)))
        self.step_weight = np.zeros(n)
        self.leaf = np.zeros(n, dtype=np.int32)
        self.eval_leaf = np.zeros(max(n_eval, 1), dtype=np.int32)
        self.perm = np.arange(n, dtype=np.int32)
        self.scale = np.zeros(max(d, 1))
        self.line_search_buffers = LineSearchBuffers(n)
        self.expo = np.zeros((d, n)) if logistic else np.zeros((1, 1))
        self.labels_t = np.zeros((d, n)) if logistic else np.zeros((1, 1))
        self.block_sums = np.zeros(n_row_blocks(n) * padded_width(max(d, 1) + 1))
        self.ratio = np.zeros((n, d)) if per_entry else np.zeros((1, 1))
        self.column_weight = np.zeros(max(n, 1) if per_entry else 1)
        self.column_total = np.zeros(max(d, 1))
        self.column_loss = np.zeros(max(d, 1))
        self.eval_total = np.zeros(max(d, 1))
        self.eval_out = np.zeros(max(d, 1))

cdef float64_t _step(int strategy, Fit* fit, Grower grower, TreeStore store, intp_t m,
                     float64_t* rho) except? -1 nogil:
    """Boosting step m of ``strategy``: grow its tree(s), fill rho, update F; the training loss."""
    if strategy == SINGLE_TARGET:
        return _step_single_target(fit, grower, store, rho)
    if strategy == MULTI_OUTPUT:
        return _step_multi_output(fit, grower, store, rho)
    if strategy == PROJECTED:
        return _step_projected(fit, grower, store, m, rho)
    return _step_projected_relabel(fit, grower, store, m, rho)


cdef int _set_up_fit(Fit* fit, Workspace ws, Grower grower, const float64_t[:, ::1] Y,
                     float64_t[:, ::1] F, const float64_t[::1] sample_weight,
                     const float64_t[:, ::1] entry_weight, int loss, float64_t learning_rate,
                     float64_t subsample, const intp_t[::1] proj_indptr,
                     const intp_t[::1] proj_indices, const float64_t[::1] proj_data, intp_t q,
                     uint64_t[::1] rng_state, bint single_target, bint newton,
                     float64_t l2) except -1:
    """Point ``fit`` at the training buffers; under per-entry weights compute ratio and column_total."""
    cdef intp_t i, j, n = Y.shape[0], d = Y.shape[1]
    memset(fit, 0, sizeof(Fit))
    fit.n, fit.d, fit.q = n, d, q
    fit.loss = loss
    fit.learning_rate = learning_rate
    fit.subsample = subsample
    # Threads for the row loops: the grower's (1 for the exact one); the result does not depend on it.
    fit.n_threads = grower.row_threads()
    fit.Y, fit.F, fit.G, fit.T = &Y[0, 0], &F[0, 0], &ws.gradient[0, 0], &ws.targets[0, 0]
    fit.w = &sample_weight[0]
    for i in range(n):
        fit.w_total += sample_weight[i]
    fit.step_weight, fit.leaf, fit.perm = &ws.step_weight[0], &ws.leaf[0], &ws.perm[0]
    fit.scale, fit.block_sums = &ws.scale[0], &ws.block_sums[0]
    fit.work = &ws.line_search_buffers.work
    fit.newton, fit.l2 = newton, l2
    cdef float64_t* YT
    if loss == LOGISTIC and not single_target:
        if ws.expo.shape[0] != d or ws.expo.shape[1] != n:
            raise ValueError("boost: the logistic loss needs a workspace made with logistic=True")
        if newton and entry_weight is None:
            fit.H = &ws.expo[0, 0]      # no line search: the same n * d doubles, row-major
        else:
            fit.E, YT = &ws.expo[0, 0], &ws.labels_t[0, 0]
            for i in range(n):
                for j in range(d):
                    YT[j * n + i] = Y[i, j]
            fit.YT = YT
    fit.rng = &rng_state[0]
    fit.proj_indptr = &proj_indptr[0]
    fit.proj_indices = &proj_indices[0] if proj_indices.shape[0] > 0 else NULL
    fit.proj_data = &proj_data[0] if proj_data.shape[0] > 0 else NULL
    cdef float64_t* ratio = &ws.ratio[0, 0]
    cdef float64_t* column_total = &ws.column_total[0]
    fit.column_total, fit.column_loss = column_total, &ws.column_loss[0]
    if entry_weight is None:
        return 0
    fit.W, fit.ratio, fit.column_weight = &entry_weight[0, 0], ratio, &ws.column_weight[0]
    for j in range(d):
        column_total[j] = 0.0
    for i in range(n):
        for j in range(d):
            ratio[i * d + j] = entry_weight[i, j] / sample_weight[i] if sample_weight[i] > 0.0 else 0.0
            column_total[j] += entry_weight[i, j]
    for j in range(d):
        if not column_total[j] > 0.0:
            raise ValueError("boost: every output needs a positive total weight")
    return 0


cdef int _set_up_held_out(HeldOut* held, Workspace ws, RowMatrix X_eval,
                           const float64_t[:, ::1] Y_eval, float64_t[:, ::1] F_eval,
                           const float64_t[::1] w_eval, const float64_t[:, ::1] eval_entry_weight,
                           const float64_t[::1] eval_sst, int loss, int score_kind) except -1:
    """Point ``held`` at the evaluation buffers; out_total_j = the held-out weight of output j."""
    cdef intp_t i, j, n_eval = X_eval.n_rows, d = Y_eval.shape[1]
    cdef float64_t* eval_total = &ws.eval_total[0]
    memset(held, 0, sizeof(HeldOut))
    held.X, held.n = &X_eval.rows, n_eval
    held.Y, held.F = &Y_eval[0, 0], &F_eval[0, 0]
    held.out_total, held.sst, held.out_loss = eval_total, &eval_sst[0], &ws.eval_out[0]
    held.loss, held.score_kind = loss, score_kind
    if eval_entry_weight is not None:
        held.W = &eval_entry_weight[0, 0]
        for j in range(d):
            eval_total[j] = 0.0
        for i in range(n_eval):
            for j in range(d):
                eval_total[j] += eval_entry_weight[i, j]
    else:
        held.w = &w_eval[0]
        for i in range(n_eval):
            held.w_total += w_eval[i]
        for j in range(d):
            eval_total[j] = held.w_total
    return 0


def boost(Grower grower, TreeStore store, Workspace ws, *,
          const float64_t[:, ::1] Y, float64_t[:, ::1] F, const float64_t[::1] sample_weight,
          int strategy, int loss, float64_t learning_rate, float64_t subsample,
          const intp_t[::1] proj_indptr, const intp_t[::1] proj_indices,
          const float64_t[::1] proj_data, intp_t n_projections,
          intp_t n_steps, float64_t[:, ::1] rho, float64_t[::1] train_loss,
          float64_t[::1] times, float64_t t0, uint64_t[::1] rng_state,
          RowMatrix X_eval=None, const float64_t[:, ::1] Y_eval=None,
          float64_t[:, ::1] F_eval=None, const float64_t[::1] w_eval=None,
          float64_t[::1] eval_loss=None, float64_t[:, ::1] eval_sse=None,
          const float64_t[:, ::1] entry_weight=None, const float64_t[:, ::1] eval_entry_weight=None,
          const float64_t[::1] eval_sst=None, float64_t[::1] eval_score=None,
          float64_t[:, ::1] eval_score_out=None, int score_kind=SCORE_R2,
          float64_t[::1] stop_history=None, intp_t stop_position=0, float64_t stop_tol=0.0,
          bint gradient_ready=False, bint newton_leaves=False, float64_t l2_regularization=0.0):
    """Run up to ``n_steps`` boosting steps, appending trees to ``store``.

    F (n x d raw predictions) and, with an evaluation set, F_eval are updated
    in place; rho, train_loss, times and the eval arrays receive one row per
    step. Projections arrive in CSR form, rows ``m * q + r`` for step m.
    ``times`` are seconds since ``t0`` spent training: the time spent scoring
    the evaluation set is left out, so curves against time show the cost of
    learning only.

    ``entry_weight`` (n x d): per-entry weights W, with ``sample_weight`` the
    row weights max_j W_ij (see "per-entry weights" above); the workspace must
    have been made with ``per_entry=True``. ``eval_entry_weight``: per-entry
    weights of the evaluation set (else ``w_eval`` per row). With an
    evaluation set, ``eval_score`` / ``eval_score_out`` receive the held-out
    score (``score_kind``, see _score_eval; ``eval_sst`` holds the per-output
    weighted sums of squares about the mean for r2). ``stop_history`` (k
    scores, persistent across calls) turns early stopping on: the loop ends
    after the first step whose score does not beat one of the last k by more
    than ``stop_tol`` (that step is kept, as in scikit-learn);
    ``stop_position`` counts the steps already scored in this fit.
    ``gradient_ready``: the workspace's gradient is that of F already (the
    previous call on this workspace ran all its steps and left it there).
    ``newton_leaves``: second-order leaves with L2 penalty ``l2_regularization``
    and rho = 1 (see "second-order leaves"; not for PROJECTED, whose leaves
    are one value shared by all outputs, nor for the absolute loss).

    Returns (seconds spent scoring the evaluation set, steps run, whether early
    stopping ended the call). The last flag cannot be read off the step count: a
    call whose final step stalls has run all its steps.
    """
    cdef intp_t n = Y.shape[0], d = Y.shape[1]
    cdef intp_t q = n_projections
    cdef bint has_eval = X_eval is not None
    cdef intp_t n_eval = X_eval.n_rows if has_eval else 0
    if F.shape[0] != n or F.shape[1] != d or sample_weight.shape[0] != n:
        raise ValueError("boost: inconsistent training buffers")
    if grower.n_samples != n:
        raise ValueError("boost: the grower was built on other data")
    if strategy in (MULTI_OUTPUT, PROJECTED_RELABEL) and store.n_values != d:
        raise ValueError("boost: store must hold d values per node")
    if strategy in (SINGLE_TARGET, PROJECTED) and store.n_values != 1:
        raise ValueError("boost: store must hold one value per node")
    cdef intp_t need_targets = {SINGLE_TARGET: 1, MULTI_OUTPUT: d, PROJECTED: 1,
                                PROJECTED_RELABEL: q}[strategy]
    if grower.max_targets < need_targets or ws.targets.shape[1] < need_targets:
        raise ValueError("boost: workspace too small for the number of split targets")
    if has_eval and (X_eval.n_cols != grower.n_features or F_eval.shape[0] != n_eval
                     or F_eval.shape[1] != d or Y_eval.shape[0] != n_eval or Y_eval.shape[1] != d):
        raise ValueError("boost: inconsistent evaluation buffers")
    if has_eval and (eval_score is None or eval_score_out is None or eval_sst is None
                     or eval_sst.shape[0] != d or n_eval == 0):
        raise ValueError("boost: an evaluation set needs eval_score, eval_score_out and eval_sst")
    if newton_leaves and (strategy == PROJECTED or loss not in (SQUARED_ERROR, LOGISTIC)
                          or not l2_regularization >= 0.0):
        raise ValueError("boost: Newton leaves need a non-projected strategy, the square or "
                         "logistic loss and l2_regularization >= 0")
    cdef bint stopping = stop_history is not None
    if stopping and (not has_eval or stop_history.shape[0] < 1):
        raise ValueError("boost: early stopping needs an evaluation set and a history")
    cdef bint masked = entry_weight is not None
    if masked and (entry_weight.shape[0] != n or entry_weight.shape[1] != d
                   or ws.ratio.shape[0] != n or ws.ratio.shape[1] != d):
        raise ValueError("boost: entry_weight must be n x d, with a per-entry workspace")
    cdef bint eval_masked = eval_entry_weight is not None
    if eval_masked and (not has_eval or eval_entry_weight.shape[0] != n_eval
                        or eval_entry_weight.shape[1] != d):
        raise ValueError("boost: eval_entry_weight must be n_eval x d")

    cdef Fit fit
    _set_up_fit(&fit, ws, grower, Y, F, sample_weight, entry_weight, loss, learning_rate,
                subsample, proj_indptr, proj_indices, proj_data, q, rng_state,
                strategy == SINGLE_TARGET, newton_leaves, l2_regularization)
    cdef HeldOut held
    if has_eval:
        _set_up_held_out(&held, ws, X_eval, Y_eval, F_eval, w_eval, eval_entry_weight, eval_sst,
                         loss, score_kind)

    cdef intp_t m, n_done = 0
    cdef bint stalled = False
    cdef float64_t* rho_m
    cdef float64_t started, eval_seconds = 0.0
    cdef bint single_target = strategy == SINGLE_TARGET
    with nogil:
        if not single_target and not gradient_ready:
            _gradient(&fit)
        for m in range(n_steps):
            rho_m = &rho[m, 0]
            train_loss[m] = _step(strategy, &fit, grower, store, m, rho_m)
            if has_eval:
                started = now()
                _evaluate(&held, store, single_target, rho_m, learning_rate, d, &eval_loss[m],
                          &eval_sse[m, 0], &eval_score[m], &eval_score_out[m, 0])
                eval_seconds += now() - started
            times[m] = now() - t0 - eval_seconds
            n_done = m + 1
            if stopping and _stalled(eval_score[m], &stop_history[0], stop_history.shape[0],
                                     stop_position + m, stop_tol):
                stalled = True
                break
    return eval_seconds, n_done, stalled


def monotonic_now():
    """The clock ``boost`` stamps its steps with (seconds, CLOCK_MONOTONIC)."""
    return now()


def accumulate(TreeStore store, X, float64_t[:, ::1] out, *, int strategy,
               const float64_t[:, ::1] rho, float64_t learning_rate,
               intp_t step_begin, intp_t step_end):
    """Add steps [step_begin, step_end) of a fitted model to raw predictions ``out``.

    out += sum_m learning_rate * rho_m ⊙ g_m(x) (eq. 9 / 15) over those steps.
    X : dense array, scipy sparse matrix (traversed as CSR, never densified)
    or a RowMatrix.
    """
    cdef RowMatrix Xv = X if isinstance(X, RowMatrix) else RowMatrix(X)
    cdef intp_t n = Xv.n_rows, d = out.shape[1]
    cdef bint single_target = strategy == SINGLE_TARGET
    cdef intp_t trees_per_step = d if single_target else 1
    cdef intp_t m
    if out.shape[0] != n:
        raise ValueError("accumulate: out has the wrong number of rows")
    if step_end * trees_per_step > store._n_trees or rho.shape[1] != d:
        raise ValueError("accumulate: more steps than trees")
    if n == 0:
        return
    with nogil:
        for m in range(step_begin, step_end):
            _add_step(store, &Xv.rows, n, &out[0, 0], d, single_target, m * trees_per_step,
                      &rho[m, 0], learning_rate)


# ---------------------------------------------------------------- the exp of the logistic passes

EXP_MODES = ("libm", "portable", "avx2")


def set_exp_mode(str mode):
    """Which exp the logistic passes take (exp_kernels.h); returns the mode now in use.

    "avx2" (the default where the CPU has AVX2 + FMA, else "portable"): the
    vectorised polynomial; "portable": the same in plain C; "libm": libm's exp
    per entry, the former path. For tests and benchmarks: every mode fits the
    same model up to rounding (about 1 ulp per exp).
    """
    if mode not in EXP_MODES:
        raise ValueError(f"mode must be one of {EXP_MODES}, got {mode!r}")
    return EXP_MODES[engine_exp_set_mode(EXP_MODES.index(mode))]


def exp_array(const float64_t[::1] x):
    """exp of every entry of x, by the exp the logistic passes take now (for tests)."""
    out = np.empty(x.shape[0])
    cdef float64_t[::1] o = out
    if x.shape[0] > 0:
        with nogil:
            engine_exp_array(&x[0], &o[0], x.shape[0])
    return out
