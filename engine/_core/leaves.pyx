"""The leaf values g_m of a boosting step's tree, and the weights rho_j of the step.

Paper 002, Algorithms 2-4, lines 6-7. What the leaves hold:

* mean gradient rows (gbmort, Algorithm 2; gbrt-relabel-rpo, Algorithm 4,
  whose tree is grown on G Phi_m^T and relabelled in G): the grower already
  averaged its labels G; under per-entry weights each output's mean is taken
  over its observed entries instead (:func:`relabel_masked`);
* the mean projected gradient, a scalar (gbrt-rpo, Algorithm 3), as grown;
* Newton steps (``leaf_estimation="newton"``, an extension beyond paper 002:
  paper 004's BOOMER heads, SketchBoost): v_j = sum_i w_i (-g_ij) /
  (sum_i w_i h_ij + lambda) per output (:func:`newton_leaves`).

And rho per output (line 7): 1 under the square loss for mean leaves (eq. 20:
the leaf mean is already the best constant) and for Newton leaves (the leaf is
the step); eq. 23 in closed form for Algorithm 3's scalar leaves under the
square loss, rho_j = sum_i w_i G_ij g_i / sum_i w_i g_i^2; otherwise the exact
line search of losses.pyx, one per output.
"""
from libc.stdlib cimport calloc, free
from libc.math cimport exp
from cython.parallel cimport prange

from engine._core.typedefs cimport float64_t, intp_t, int32_t
from engine._core.tree_store cimport Node, TREE_LEAF
from engine._core.fit_state cimport output_weights
from engine._core.losses cimport (SQUARED_ERROR, logistic_hessian_from_exp, line_search,
                                  leaf_order, logistic_line_search)
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks, padded_width


# ---------------------------------------------------------------- mean leaves under per-entry weights

cdef int relabel_masked(TreeStore store, const int32_t* leaf, const float64_t* G,
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

cdef int newton_leaves(TreeStore store, const int32_t* leaf, int loss, const float64_t* Y,
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

cdef int mean_gradient_leaves(Fit* fit, Grower grower, TreeStore store) except -1 nogil:
    """Route the training rows to the new tree's leaves; leaves hold mean gradient rows.

    The grower already labelled every node with the weighted mean of its
    labels (G for Algorithms 2 and 4); under per-entry weights each output's
    mean is taken over its observed entries instead (relabel_masked). With
    second-order leaves every node holds its Newton step instead (newton_leaves).
    """
    grower.training_leaves(store, fit.leaf)
    if fit.newton:
        newton_leaves(store, fit.leaf, fit.loss, fit.Y, fit.F, fit.E, fit.H, fit.G, fit.d, fit.ratio,
                       fit.step_weight, fit.n, fit.d, 0, fit.l2)
    elif fit.W != NULL:
        relabel_masked(store, fit.leaf, fit.G, fit.step_weight, fit.W, fit.n, fit.d)
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
                leaf_order(fit.leaf, output_weights(fit, j, fit.step_weight), n, first, n_nodes,
                           fit.work)
            rho[j] = logistic_line_search(fit.YT + j * n, NULL, fit.E + j * n, 1, store._values,
                                          nv, 0 if nv == 1 else j, first, n_nodes, fit.work)
        else:
            rho[j] = line_search(fit.loss, fit.Y + j, fit.F + j, fit.d, store._values, fit.leaf, nv,
                                 0 if nv == 1 else j, output_weights(fit, j, fit.step_weight),
                                 n, fit.work)


cdef void rho_mean_gradient_leaves(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil:
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


cdef void rho_projected(Fit* fit, TreeStore store, float64_t* rho) noexcept nogil:
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
