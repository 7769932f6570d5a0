"""Incremental forward stagewise regression on sparse 0/1 columns (the monotone Lasso).

Thesis 001, section 7.1 (Joly, Schnitzler, Geurts & Wehenkel, ESANN 2012)
selects node indicator functions of a forest with the monotone Lasso, which
it computes by *incremental forward stagewise regression* (Hastie, Taylor,
Tibshirani & Walther 2007, "FS_eps"): starting from beta = 0 and the centred
outputs as residual r, repeat

    j     = argmax_k |<z_k, r>| / n          (the most correlated column)
    delta = eps * sign(<z_j, r>)
    beta_j += delta;  r -= delta * z_j

with standardised columns z_k (mean 0, unit variance). After s steps the path
has travelled t = s * eps in l1 norm; as eps -> 0 the path is the monotone
Lasso (every |beta_j| grows monotonically in the space of signed columns).

Multi-output (d columns of r). The correlation of column k is the d-vector
c_k = z_k^T R / n; the step picks the largest ||c_k||_2 and moves beta_k (a
d-vector) by eps * c_k / ||c_k||: one selection shared by all outputs (the
group form of the constraint, sum_k ||beta_k||_2 <= t). With d = 1 this is
exactly the single-output algorithm above.

The end of the path. A step of length eps along column j changes the
residual sum of squares by n * eps * (eps - 2 ||c_j||); once the largest
||c_j|| is <= eps / 2 no step lowers the training error any more and the path
has converged (FS_eps would only oscillate from there).

Cost per step. The columns are 0/1 indicators z_k = 1[x in node k]; with
mean mu_k = n_k / n and scale sigma_k = sqrt(mu_k (1 - mu_k)) the
standardised column is (z_k - mu_k) / sigma_k. The residual always sums to
zero (each step removes a centred column), so c_k = (1/(n sigma_k)) sum over
the samples i of node k of r_i, and after a step on j

    c_k -= delta / (n sigma_j sigma_k) * (|S_k & S_j| - mu_j n_k),

the intersection counted by walking the samples of node j (CSC) and the
nodes on each of their paths (CSR). So a step costs O(q d) for the argmax
and the dense term plus O(|S_j| * path length * d), never a pass over all
non-zeros; :meth:`ForwardStagewise.run` recomputes c exactly from r at the
start of each call so rounding cannot drift over a long path.

Columns that are constant on the sample (n_k = 0 or n_k = n, e.g. every
tree's root) are never selected: they are the intercept.
"""
import numpy as np

from libc.math cimport sqrt

from engine._core.typedefs cimport float64_t, intp_t, int32_t, int64_t


cdef class ForwardStagewise:
    """The FS_eps path on the standardised columns of a sparse 0/1 matrix.

    Parameters
    ----------
    row_ptr, row_idx : int64 (n + 1,), int32 (nnz,)
        CSR structure of Z (n samples x q columns), all stored values 1.
    col_ptr, col_idx : int64 (q + 1,), int32 (nnz,)
        CSC structure of the same matrix.
    Y : float64 (n, d)
        The (already scaled) outputs; centred here (the intercept is their mean).
    step : float
        eps, the length of a step (thesis: 0.01).
    """

    cdef readonly intp_t n, q, d
    cdef readonly float64_t step
    cdef readonly intp_t n_steps          # steps taken so far
    cdef readonly bint converged           # no step can lower the training error
    cdef const int64_t[::1] row_ptr
    cdef const int32_t[::1] row_idx
    cdef const int64_t[::1] col_ptr
    cdef const int32_t[::1] col_idx
    cdef float64_t[::1] mean               # mu_k = n_k / n
    cdef float64_t[::1] inv_scale          # 1 / sigma_k, 0 for constant columns
    cdef float64_t[:, ::1] R               # residual (n, d), sums to 0 per column
    cdef float64_t[:, ::1] C               # correlations (q, d)

    def __init__(self, row_ptr, row_idx, col_ptr, col_idx, Y, float64_t step):
        Y = np.array(Y, dtype=np.float64, order="C", ndmin=2)
        self.n, self.d = Y.shape[0], Y.shape[1]
        self.q = len(col_ptr) - 1
        if len(row_ptr) != self.n + 1:
            raise ValueError("row_ptr must have one entry per sample of Y, plus one")
        if not step > 0:
            raise ValueError(f"step must be > 0, got {step}")
        self.row_ptr = np.ascontiguousarray(row_ptr, dtype=np.int64)
        self.row_idx = np.ascontiguousarray(row_idx, dtype=np.int32)
        self.col_ptr = np.ascontiguousarray(col_ptr, dtype=np.int64)
        self.col_idx = np.ascontiguousarray(col_idx, dtype=np.int32)
        if self.row_ptr[self.n] != self.col_ptr[self.q]:
            raise ValueError("the CSR and CSC structures hold different numbers of non-zeros")
        counts = np.diff(np.asarray(self.col_ptr)).astype(np.float64)
        mean = counts / self.n
        varying = (counts > 0) & (counts < self.n)
        inv = np.zeros(self.q)
        inv[varying] = 1.0 / np.sqrt(mean[varying] * (1.0 - mean[varying]))
        self.mean, self.inv_scale = mean, inv
        self.R = Y - Y.mean(axis=0)
        self.C = np.zeros((self.q, self.d))
        self.step = step
        self.n_steps = 0
        self.converged = False

    @property
    def residual(self):
        """ndarray (n, d): the current residual (centred outputs minus the fitted part)."""
        return np.array(self.R)

    @property
    def scale(self):
        """ndarray (q,): sigma_k of every column (0 for the constant ones, never selected)."""
        inv = np.asarray(self.inv_scale)
        out = np.zeros(self.q)
        out[inv > 0] = 1.0 / inv[inv > 0]
        return out

    @property
    def correlations(self):
        """ndarray (q, d): c_k = z_k^T r / n on the standardised columns."""
        return np.array(self.C)

    cdef void _refresh(self) noexcept nogil:
        """c computed exactly from r (one pass over the non-zeros)."""
        cdef intp_t k, p, j
        cdef float64_t a
        for k in range(self.q):
            for j in range(self.d):
                self.C[k, j] = 0.0
            a = self.inv_scale[k] / self.n
            if a == 0.0:
                continue
            for p in range(self.col_ptr[k], self.col_ptr[k + 1]):
                for j in range(self.d):
                    self.C[k, j] += self.R[self.col_idx[p], j]
            for j in range(self.d):
                self.C[k, j] *= a

    cdef intp_t _argmax(self, float64_t* best_norm) noexcept nogil:
        """Column of largest ||c_k||_2 (lowest index on ties), -1 if none varies."""
        cdef intp_t k, j, best = -1
        cdef float64_t s, top = 0.0
        for k in range(self.q):
            if self.inv_scale[k] == 0.0:
                continue
            s = 0.0
            for j in range(self.d):
                s += self.C[k, j] * self.C[k, j]
            if s > top:
                top, best = s, k
        best_norm[0] = sqrt(top)
        return best

    cdef void _take_step(self, intp_t col, float64_t* delta) noexcept nogil:
        """r -= z~_col delta^T and the matching update of every c_k."""
        cdef intp_t i, j, k, p, r
        cdef float64_t a = self.inv_scale[col], mu = self.mean[col], ak
        cdef float64_t n = <float64_t> self.n
        for i in range(self.n):
            for j in range(self.d):
                self.R[i, j] += delta[j] * mu * a
        for p in range(self.col_ptr[col], self.col_ptr[col + 1]):
            i = self.col_idx[p]
            for j in range(self.d):
                self.R[i, j] -= delta[j] * a
            # |S_k & S_col| part of the update, one node of i's paths at a time
            for r in range(self.row_ptr[i], self.row_ptr[i + 1]):
                k = self.row_idx[r]
                ak = self.inv_scale[k] * a / n
                for j in range(self.d):
                    self.C[k, j] -= delta[j] * ak
        for k in range(self.q):           # the mu_col n_k part
            ak = self.inv_scale[k] * a * mu * (self.col_ptr[k + 1] - self.col_ptr[k]) / n
            if ak == 0.0:
                continue
            for j in range(self.d):
                self.C[k, j] += delta[j] * ak

    def run(self, intp_t max_steps):
        """Take up to ``max_steps`` more steps (fewer once converged).

        Returns ``(columns, deltas)``: int32 (k,) the column of each step and
        float64 (k, d) its change of that column's coefficients (on the
        standardised columns and outputs given).
        """
        if max_steps < 0:
            raise ValueError(f"max_steps must be >= 0, got {max_steps}")
        columns = np.empty(max_steps, dtype=np.int32)
        deltas = np.zeros((max_steps, self.d))
        cdef int32_t[::1] cols = columns
        cdef float64_t[:, ::1] dv = deltas
        cdef intp_t s = 0, col, j
        cdef float64_t norm
        if max_steps == 0 or self.converged:
            return columns[:0], deltas[:0]
        with nogil:
            self._refresh()
            while s < max_steps:
                col = self._argmax(&norm)
                if col < 0 or norm <= 0.5 * self.step:
                    self.converged = True
                    break
                for j in range(self.d):
                    dv[s, j] = self.step * self.C[col, j] / norm
                cols[s] = <int32_t> col
                self._take_step(col, &dv[s, 0])
                s += 1
        self.n_steps += s
        return columns[:s], deltas[:s]
