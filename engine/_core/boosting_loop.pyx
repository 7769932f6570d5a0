"""The boosting inner loop, in compiled code without the GIL.

One call runs a chunk of boosting steps of paper 002's algorithms:

* single target (st-gbrt): per step, one single-output tree per output,
  outputs visited round-robin; each tree fits its output's negative gradient.
* multi-output (gbmort, Algorithm 2): one tree on the d-dimensional gradient.
* projected (gbrt-rpo, Algorithm 3): one single-output tree on G phi^T, then a
  weight per output rho_j by line search (eq. 23 for the square loss).
* projected with relabelling (gbrt-relabel-rpo, Algorithm 4): a tree grown on
  G Phi^T (q columns), every leaf relabelled with the mean gradient row of its
  samples, then rho_j per output.

Every step updates F += learning_rate * rho ⊙ tree(x) (eq. 9 / 15), with rho
from the line searches of losses.pyx, or eq. 23 here for projected trees under
the square loss.
"""
import numpy as np

from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore, Node, TREE_LEAF, RowMatrix
from engine._core.grower_base cimport Grower
from engine._core.rng cimport rng_int
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks, padded_width
from engine._core.losses cimport (SQUARED_ERROR, RatioWeight, loss_value, negative_gradient,
                                  line_search)
from cython.parallel cimport prange

cpdef enum Strategy:
    SINGLE_TARGET = 0
    MULTI_OUTPUT = 1
    PROJECTED = 2
    PROJECTED_RELABEL = 3

cpdef enum Score:
    SCORE_R2 = 0          # per-output r2 (the regressor's held-out score)
    SCORE_LOSS = 1        # minus the per-output mean loss (the classifier's)


cdef inline float64_t now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


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
#   (_in_bag_column); eq. 23 with per-output denominators
#   (_squared_rho_projected_masked). With the square loss and masked leaf
#   means, eq. 20 is still exactly 1 per output.
# * Training loss (_update_masked, _update_column_masked): the sum over outputs
#   of each output's W-weighted mean loss, sum_j sum_i W_ij l_ij / sum_i W_ij;
#   for weights constant per row this is the unmasked definition.
# With W constant per row every change above is the identity, which is why the
# estimators only take this path when some row's weights differ.

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


cdef void _gradient(int loss, const float64_t* Y, const float64_t* F, const float64_t* ratio,
                    float64_t* G, intp_t n, intp_t d, int n_threads) noexcept nogil:
    """The first step's G (later steps get theirs from the update pass), row blocks in threads."""
    cdef intp_t b, n_blocks = n_row_blocks(n)
    if n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=n_threads):
            _gradient_entries(loss, Y, F, ratio, G, b * ROW_BLOCK * d, block_end(b, 0, n) * d)
    else:
        _gradient_entries(loss, Y, F, ratio, G, 0, n * d)


cdef void _in_bag_column(const float64_t* W, intp_t d, intp_t j, const float64_t* wstep,
                         float64_t* out, intp_t n) noexcept nogil:
    """W[:, j] on the rows of the current tree (wstep != 0), 0 elsewhere."""
    cdef intp_t i
    for i in range(n):
        out[i] = W[i * d + j] if wstep[i] != 0.0 else 0.0


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


cdef float64_t _update_masked(int loss, const float64_t* Y, float64_t* F, float64_t* G,
                              const float64_t* values, const int32_t* leaf, intp_t nv,
                              const float64_t* scale, const float64_t* W, const float64_t* ratio,
                              const float64_t* column_total, float64_t* column_loss,
                              intp_t n, intp_t d) noexcept nogil:
    """F += scale ⊙ tree(x); G = ratio ⊙ (negative gradient); the masked training loss."""
    cdef intp_t i, j, c, col
    cdef float64_t total = 0.0
    for j in range(d):
        column_loss[j] = 0.0
    for i in range(n):
        for j in range(d):
            col = 0 if nv == 1 else j
            c = i * d + j
            F[c] += scale[j] * values[leaf[i] * nv + col]
            G[c] = ratio[c] * negative_gradient(loss, Y[c], F[c])
            column_loss[j] += W[c] * loss_value(loss, Y[c], F[c])
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


# ---------------------------------------------------------------- held-out scores and early stopping

cdef void _score_eval(int loss, int score_kind, const float64_t* Y, const float64_t* F,
                      const float64_t* w, const float64_t* W, intp_t n_eval, intp_t d,
                      float64_t w_total, const float64_t* out_total, const float64_t* sst,
                      float64_t* eval_loss, float64_t* sse, float64_t* out_loss,
                      float64_t* score, float64_t* score_out) noexcept nogil:
    """Score the held-out set after one step.

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
    for j in range(d):
        sse[j] = 0.0
        out_loss[j] = 0.0
    if W == NULL:
        for e in range(n_eval):
            acc = 0.0
            for j in range(d):
                c = e * d + j
                l = loss_value(loss, Y[c], F[c])
                acc += l
                out_loss[j] += w[e] * l
                diff = Y[c] - F[c]
                sse[j] += w[e] * diff * diff
            total += w[e] * acc
        eval_loss[0] = total / w_total
    else:
        for e in range(n_eval):
            for j in range(d):
                c = e * d + j
                weight = W[c]
                out_loss[j] += weight * loss_value(loss, Y[c], F[c])
                diff = Y[c] - F[c]
                sse[j] += weight * diff * diff
        for j in range(d):
            total += out_loss[j] / out_total[j]
        eval_loss[0] = total
    for j in range(d):
        if score_kind == SCORE_R2:
            if sst[j] > 0.0:
                s = 1.0 - sse[j] / sst[j]
            else:
                s = 0.0 if sse[j] > 0.0 else 1.0
        else:
            s = -out_loss[j] / out_total[j]
        score_out[j] = s
        mean += s
    score[0] = mean / d


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
    cdef RatioWeight* work
    cdef object work_buffer
    cdef float64_t[::1] block_sums      # n_row_blocks(n) x padded_width(d + 1): per-block partial sums
    # Fits with per-entry weights only (1 x 1 / length 1 otherwise).
    cdef float64_t[:, ::1] ratio        # n x d: W_ij / r_i, the split targets' entry factors
    cdef float64_t[::1] column_weight   # n: one output's entry weights on the current rows
    cdef float64_t[::1] column_total    # d: sum_i W_ij, the normaliser of output j's loss
    cdef float64_t[::1] column_loss     # d: scratch (per-output sums)
    # Held-out scoring.
    cdef float64_t[::1] eval_total      # d: per-output sum of held-out weights
    cdef float64_t[::1] eval_out        # d: scratch (per-output held-out loss)

    def __init__(self, intp_t n, intp_t d, intp_t n_targets, intp_t n_eval, bint per_entry=False):
        self.gradient = np.zeros((n, d))
        self.targets = np.zeros((n, max(n_targets, 1)))
        self.step_weight = np.zeros(n)
        self.leaf = np.zeros(n, dtype=np.int32)
        self.eval_leaf = np.zeros(max(n_eval, 1), dtype=np.int32)
        self.perm = np.arange(n, dtype=np.int32)
        self.scale = np.zeros(max(d, 1))
        self.work_buffer = np.zeros(2 * max(n, 1))
        self.block_sums = np.zeros(n_row_blocks(n) * padded_width(max(d, 1) + 1))
        self.ratio = np.zeros((n, d)) if per_entry else np.zeros((1, 1))
        self.column_weight = np.zeros(max(n, 1) if per_entry else 1)
        self.column_total = np.zeros(max(d, 1))
        self.column_loss = np.zeros(max(d, 1))
        self.eval_total = np.zeros(max(d, 1))
        self.eval_out = np.zeros(max(d, 1))
        cdef float64_t[::1] buf = self.work_buffer
        self.work = <RatioWeight*> &buf[0]


cdef void _project_rows(const float64_t* G, intp_t lo, intp_t hi, intp_t d,
                        const float64_t* pdata, const intp_t* pind, intp_t nnz,
                        float64_t* out, intp_t out_stride) noexcept nogil:
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


cdef void _draw_in_bag(const float64_t* sample_weight, float64_t* out, int32_t* perm,
                       intp_t n, float64_t subsample, uint64_t* rng) noexcept nogil:
    """Friedman's stochastic boosting: a fraction of the rows, without replacement."""
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
          bint gradient_ready=False):
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

    Returns (seconds spent scoring the evaluation set, steps run).
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

    cdef float64_t W = 0.0
    cdef intp_t i, j, k, r, m, c, e, tree
    for i in range(n):
        W += sample_weight[i]
    cdef float64_t W_eval = 0.0
    if has_eval and not eval_masked:
        for i in range(n_eval):
            W_eval += w_eval[i]
        for j in range(d):
            ws.eval_total[j] = W_eval
    elif eval_masked:
        for j in range(d):
            ws.eval_total[j] = 0.0
        for i in range(n_eval):
            for j in range(d):
                ws.eval_total[j] += eval_entry_weight[i, j]
    cdef const float64_t* Wp = NULL
    cdef float64_t* ratio = NULL
    cdef float64_t* colw = NULL
    cdef float64_t* column_total = &ws.column_total[0]
    if masked:
        Wp = &entry_weight[0, 0]
        ratio = &ws.ratio[0, 0]
        colw = &ws.column_weight[0]
        for j in range(d):
            column_total[j] = 0.0
        for i in range(n):
            for j in range(d):
                ratio[i * d + j] = entry_weight[i, j] / sample_weight[i] if sample_weight[i] > 0.0 else 0.0
                column_total[j] += entry_weight[i, j]
        for j in range(d):
            if not column_total[j] > 0.0:
                raise ValueError("boost: every output needs a positive total weight")
    cdef const float64_t* We = &eval_entry_weight[0, 0] if eval_masked else NULL
    cdef const float64_t* we = &w_eval[0] if (has_eval and not eval_masked) else NULL
    cdef intp_t n_done = 0

    cdef float64_t* G = &ws.gradient[0, 0]
    cdef float64_t* scale = &ws.scale[0]
    cdef float64_t* T = &ws.targets[0, 0]
    cdef float64_t* wstep = &ws.step_weight[0]
    cdef int32_t* leaf = &ws.leaf[0]
    cdef const float64_t* Yp = &Y[0, 0]
    cdef float64_t* Fp = &F[0, 0]
    cdef const float64_t* values
    cdef float64_t acc, rho_j, lr = learning_rate, total
    cdef float64_t* rho_row
    cdef uint64_t* rng = &rng_state[0]
    cdef intp_t row_begin, row_end, nv, col, t_split
    cdef float64_t started, eval_seconds = 0.0
    # Threads for the row loops: the grower's (1 for the exact one); the result does not depend on it.
    cdef int n_threads = grower.row_threads()

    with nogil:
        if strategy != SINGLE_TARGET and not gradient_ready:
            _gradient(loss, Yp, Fp, ratio if masked else NULL, G, n, d, n_threads)
        for m in range(n_steps):
            rho_row = &rho[m, 0]
            total = 0.0
            if strategy == SINGLE_TARGET:
                for j in range(d):
                    if masked:
                        # The tree of output j sees output j's weights (W[:, j]).
                        _in_bag_column(Wp, d, j, &sample_weight[0], colw, n)
                        _draw_in_bag(colw, wstep, &ws.perm[0], n, subsample, rng)
                    else:
                        _draw_in_bag(&sample_weight[0], wstep, &ws.perm[0], n, subsample, rng)
                    for i in range(n):
                        T[i] = negative_gradient(loss, Yp[i * d + j], Fp[i * d + j])
                    grower.grow(store, T, 1, T, wstep, rng)
                    grower.training_leaves(store, leaf)
                    values = store._values
                    if loss == SQUARED_ERROR:
                        rho_j = 1.0
                    else:
                        rho_j = line_search(loss, Yp + j, Fp + j, d, values, leaf, 1, 0,
                                            wstep, n, ws.work)
                    rho_row[j] = rho_j
                    # Update output j and add its share of the training loss.
                    if masked:
                        total += _update_column_masked(loss, Yp, Fp, d, j, values, leaf, lr * rho_j,
                                                       Wp, n) / column_total[j]
                    else:
                        for i in range(n):
                            Fp[i * d + j] += lr * rho_j * values[leaf[i]]
                            total += sample_weight[i] * loss_value(loss, Yp[i * d + j], Fp[i * d + j])
                    if has_eval:
                        started = now()
                        tree = store._n_trees - 1
                        for e in range(n_eval):
                            k = store.leaf_of_row(tree, &X_eval.rows, e)
                            F_eval[e, j] += lr * rho_j * values[k]
                        eval_seconds += now() - started
            else:
                _draw_in_bag(&sample_weight[0], wstep, &ws.perm[0], n, subsample, rng)
                if strategy == MULTI_OUTPUT:
                    grower.grow(store, G, d, G, wstep, rng)
                else:
                    t_split = 1 if strategy == PROJECTED else q
                    # One projection row at a time: its CSR bounds and arrays are
                    # read once, not once per sample (same sums, same order).
                    for r in range(t_split):
                        row_begin = proj_indptr[m * q + r]
                        row_end = proj_indptr[m * q + r + 1]
                        if row_end == row_begin:
                            for i in range(n):
                                T[i * t_split + r] = 0.0
                            continue
                        _project(G, n, d, &proj_data[row_begin], &proj_indices[row_begin],
                                 row_end - row_begin, T + r, t_split, n_threads)
                    if strategy == PROJECTED:
                        grower.grow(store, T, 1, T, wstep, rng)
                    else:
                        # gbrt-relabel-rpo (Algorithm 4): split on the q projected residuals
                        # T = G Phi^T, then relabel every leaf with the mean of the original
                        # residual rows G of its samples (the labels TreeGrower._finish averages).
                        grower.grow(store, T, q, G, wstep, rng)
                grower.training_leaves(store, leaf)
                if masked and strategy != PROJECTED:
                    _relabel_masked(store, leaf, G, wstep, Wp, n, d)
                values = store._values
                nv = store.n_values
                if loss == SQUARED_ERROR and strategy == PROJECTED and masked:
                    _squared_rho_projected_masked(G, values, leaf, wstep, Wp, n, d, rho_row, scale,
                                                  &ws.column_loss[0])
                elif loss == SQUARED_ERROR and strategy == PROJECTED:
                    _squared_rho_projected(G, values, leaf, wstep, n, d, rho_row, scale,
                                           &ws.block_sums[0], n_threads)
                for j in range(d):
                    col = 0 if nv == 1 else j
                    if loss == SQUARED_ERROR and strategy != PROJECTED:
                        rho_row[j] = 1.0   # eq. 20 equals 1 when leaves are mean gradients
                    elif loss != SQUARED_ERROR and masked:
                        _in_bag_column(Wp, d, j, wstep, colw, n)
                        rho_row[j] = line_search(loss, Yp + j, Fp + j, d, values, leaf, nv, col,
                                                 colw, n, ws.work)
                    elif loss != SQUARED_ERROR:
                        rho_row[j] = line_search(loss, Yp + j, Fp + j, d, values, leaf, nv, col,
                                                 wstep, n, ws.work)
                    scale[j] = lr * rho_row[j]
                # One pass: update F, the next step's gradient and the training loss.
                if masked:
                    total = _update_masked(loss, Yp, Fp, G, values, leaf, nv, scale, Wp, ratio,
                                           column_total, &ws.column_loss[0], n, d)
                elif loss == SQUARED_ERROR:
                    total = _update_squared(Yp, Fp, G, values, leaf, nv, scale, &sample_weight[0], n, d,
                                            &ws.block_sums[0], n_threads)
                else:
                    for i in range(n):
                        acc = 0.0
                        for j in range(d):
                            col = 0 if nv == 1 else j
                            c = i * d + j
                            Fp[c] += scale[j] * values[leaf[i] * nv + col]
                            G[c] = negative_gradient(loss, Yp[c], Fp[c])
                            acc += loss_value(loss, Yp[c], Fp[c])
                        total += sample_weight[i] * acc
                if has_eval:
                    started = now()
                    tree = store._n_trees - 1
                    for e in range(n_eval):
                        k = store.leaf_of_row(tree, &X_eval.rows, e)
                        for j in range(d):
                            col = 0 if nv == 1 else j
                            F_eval[e, j] += lr * rho_row[j] * values[k * nv + col]
                    eval_seconds += now() - started
            train_loss[m] = total if masked else total / W
            if has_eval:
                started = now()
                _score_eval(loss, score_kind, &Y_eval[0, 0], &F_eval[0, 0], we, We, n_eval, d,
                            W_eval, &ws.eval_total[0], &eval_sst[0], &eval_loss[m], &eval_sse[m, 0],
                            &ws.eval_out[0], &eval_score[m], &eval_score_out[m, 0])
                eval_seconds += now() - started
            times[m] = now() - t0 - eval_seconds
            n_done = m + 1
            if stopping and _stalled(eval_score[m], &stop_history[0], stop_history.shape[0],
                                     stop_position + m, stop_tol):
                break
    return eval_seconds, n_done


def monotonic_now():
    """The clock ``boost`` stamps its steps with (seconds, CLOCK_MONOTONIC)."""
    return now()


def accumulate(TreeStore store, X, float64_t[:, ::1] out, *, int strategy,
               const float64_t[:, ::1] rho, float64_t learning_rate,
               intp_t step_begin, intp_t step_end):
    """Add steps [step_begin, step_end) of a fitted model to raw predictions ``out``.

    X : dense array, scipy sparse matrix (traversed as CSR, never densified)
    or a RowMatrix.
    """
    cdef RowMatrix Xv = X if isinstance(X, RowMatrix) else RowMatrix(X)
    cdef intp_t n = Xv.n_rows, d = out.shape[1]
    cdef intp_t nv = store.n_values
    cdef intp_t trees_per_step = d if strategy == SINGLE_TARGET else 1
    cdef intp_t m, i, j, k, tree, col
    cdef float64_t lr = learning_rate
    if out.shape[0] != n:
        raise ValueError("accumulate: out has the wrong number of rows")
    if step_end * trees_per_step > store._n_trees or rho.shape[1] != d:
        raise ValueError("accumulate: more steps than trees")
    if n == 0:
        return
    with nogil:
        for m in range(step_begin, step_end):
            if strategy == SINGLE_TARGET:
                for j in range(d):
                    tree = m * d + j
                    for i in range(n):
                        k = store.leaf_of_row(tree, &Xv.rows, i)
                        out[i, j] += lr * rho[m, j] * store._values[k]
            else:
                for i in range(n):
                    k = store.leaf_of_row(m, &Xv.rows, i)
                    for j in range(d):
                        col = 0 if nv == 1 else j
                        out[i, j] += lr * rho[m, j] * store._values[k * nv + col]
