"""The update F += mu rho ⊙ g_m(x) of each loss, and the negative gradient it leaves for the next step.

Line 8 of paper 002's Algorithms 2-4 (eqs. 9 and 15) and line 4 of the next
step: one pass over the n x d scores adds the step's tree, scaled per output
by mu rho_j (``scale``), and computes at the new F

* the negative gradient G_ij = -dl(y_ij, F_ij)/dF_ij (Table 1: y - F for the
  square loss, sign(y - F) for the absolute loss, 2y / (1 + exp(2yF)) for the
  logistic loss), times ratio_ij under per-entry weights;
* the training loss, sum_i w_i sum_j l(y_ij, F_ij) / sum_i w_i (the per-entry
  form below under per-entry weights);
* under the logistic loss, exp(2 y F) output-major (E, d x n), so that the
  next step's line searches (losses.pyx) need no exp and read each output
  contiguously; or, with Newton leaves and row weights, the second
  derivatives H (n x d) beside G for the leaves' sums (leaves.pyx).

One routine per loss (square, logistic, any loss; per-entry weights), each
with its per-row loop in this module so that the compiler can inline it; row
blocks (row_blocks.pxd) go to threads and their losses are added in block
order, so the result does not depend on the number of threads. st-gbrt
updates one output per tree (:func:`update_output`). :func:`gradient` gives G
at the first step of a fit (later ones get it from :func:`apply_step`).

The exps of the logistic passes are taken a chunk of a row at a time by the
vectorised exp of exp_kernels.h; its mode (a static of this module) is set
by :func:`set_exp_mode_code` (the test hooks of testing.pyx).
"""
from cython.parallel cimport prange

from engine._core.typedefs cimport float64_t, intp_t, int32_t
from engine._core.losses cimport (SQUARED_ERROR, loss_value, negative_gradient,
                                  logistic_loss_from_exp)
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks

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


# ---------------------------------------------------------------- the gradient at the start of a fit

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


cdef void gradient(Fit* fit) noexcept nogil:
    """G at the current F, for the first step of a fit (later steps get it from apply_step).

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


# ---------------------------------------------------------------- per-entry weights (missing targets)
#
# A fit with per-entry weights W (n x d, W_ij >= 0; a missing target is a zero
# weight, see engine/estimators/targets.py) runs the steps with these changes,
# each in one helper (those of the update passes are here). ``sample_weight``
# then holds the row weights r_i = max_j W_ij, and ratio_ij = W_ij / r_i (0
# where r_i = 0; fit_state.pyx computes both once per fit).
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
# * Leaves of multi-output and relabelled trees (leaves.pyx, relabel_masked):
#   the mean of each output's residuals over the in-bag entries of the leaf
#   weighted by W, 0 (no step) for an output that has no observed entry in the
#   leaf. The leaf value of a projected tree (Algorithm 3) is the mean
#   projected target, as grown: a scalar shared by all outputs, rescaled per
#   output by rho.
# * rho: line searches for output j weighted by W[:, j] on the in-bag rows
#   (fit_state.pxd, output_weights); eq. 23 with per-output denominators
#   (leaves.pyx, _squared_rho_projected_masked). With the square loss and
#   masked leaf means, eq. 20 is still exactly 1 per output.
# * Training loss (_update_masked, update_output): the sum over outputs of
#   each output's W-weighted mean loss, sum_j sum_i W_ij l_ij / sum_i W_ij;
#   for weights constant per row this is the unmasked definition.
# With W constant per row every change above is the identity, which is why the
# estimators only take this path when some row's weights differ.


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


cdef float64_t apply_step(Fit* fit, TreeStore store, const float64_t* rho) noexcept nogil:
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


cdef float64_t update_output(Fit* fit, intp_t j, const float64_t* values, float64_t step,
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


# ---------------------------------------------------------------- the exp of the logistic passes (testing.pyx)

cdef int set_exp_mode_code(int mode) noexcept nogil:
    """Pick the exp of this module's passes (exp_kernels.h); returns the mode now in use."""
    return engine_exp_set_mode(mode)


cdef void exp_of_array(const float64_t* x, float64_t* out, intp_t n) noexcept nogil:
    """out = exp(x) by the exp the logistic passes take now."""
    engine_exp_array(x, out, n)
