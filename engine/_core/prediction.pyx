"""Prediction of a fitted boosting model: F(x) = F_0 + sum_m mu rho_m ⊙ g_m(x) (paper 002, eqs. 9 and 15).

:func:`add_step` routes rows through the tree(s) of one step and adds their
leaf values, scaled per output by mu rho_j: st-gbrt's d trees each add to
their own output; one tree adds its d values (Algorithms 2 and 4) or its one
value to every output (Algorithm 3, eq. 15). :func:`accumulate` adds a range
of steps (the estimators' ``predict`` and ``staged_predict``), and the
boosting loop adds each new step to the held-out set's F (held_out.pyx).
"""
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.fit_state cimport SINGLE_TARGET
from engine._core.tree_store cimport RowMatrix


cdef void add_step(TreeStore store, const Rows* X, intp_t n_rows, float64_t* out, intp_t d,
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
            add_step(store, &Xv.rows, n, &out[0, 0], d, single_target, m * trees_per_step,
                     &rho[m, 0], learning_rate)
