"""The rows and the split targets of a boosting step (paper 002, Algorithms 2-4, lines 5-6).

* :func:`draw_in_bag`: the in-bag weights of the step's tree. With
  ``subsample`` < 1 (Friedman's stochastic gradient boosting) a fraction of
  the rows keeps its weight and the others get 0, so that the grower, the
  leaf values and rho all see the same rows.
* :func:`project_gradient`: T = G Phi_m^T (n x q), the q random projections
  of the negative gradient on which gbrt-rpo (Algorithm 3, q = 1) and
  gbrt-relabel-rpo (Algorithm 4) grow their tree. Phi_m arrives in CSR form
  (rows m * q + r). The dense schemes (Gaussian, Achlioptas; section 2.3)
  take a blocked product (projection_kernels.h) that reads G once for all q
  rows, at the speed of a BLAS product; the sparse ones (output
  sub-sampling, sparse Rademacher) read each row of G once through Phi_m's
  non-zeros (a column gather for sub-sampling). Rows go to threads in blocks
  of row_blocks.pxd; each entry of T is its own sum, so the result does not
  depend on the number of threads.
"""
from cython.parallel cimport prange
from libc.string cimport memcpy

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.rng cimport rng_int
from engine._core.row_blocks cimport ROW_BLOCK, block_end, n_row_blocks


cdef void draw_in_bag(const float64_t* sample_weight, float64_t* out, int32_t* perm,
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


cdef extern from "projection_kernels.h" nogil:
    void engine_project_dense(const float64_t* G, intp_t lo, intp_t hi, intp_t d,
                              const float64_t* P, intp_t q, float64_t* T)
    int engine_project_init()
    int engine_project_set_mode(int mode)

engine_project_init()


cdef void _project_rows_sparse(const float64_t* G, intp_t lo, intp_t hi, intp_t d,
                               const intp_t* indptr, const intp_t* indices,
                               const float64_t* data, intp_t t, float64_t* T) noexcept nogil:
    """T[i, r] = <phi_r, G_i> for the rows i in [lo, hi), through phi_r's non-zeros (CSR).

    A row of G is read once for all t projection rows (it stays in cache);
    each entry is the former per-row loop over phi_r's non-zeros, so sparse
    schemes give the same numbers as before (checked against the former build).
    """
    cdef intp_t i, r, c
    cdef float64_t acc
    cdef const float64_t* Gi
    for i in range(lo, hi):
        Gi = G + i * d
        for r in range(t):
            acc = 0.0
            for c in range(indptr[r], indptr[r + 1]):
                acc += data[c] * Gi[indices[c]]
            T[i * t + r] = acc


cdef void _project_block(Fit* fit, intp_t lo, intp_t hi, const intp_t* indptr,
                         intp_t t) noexcept nogil:
    """The rows [lo, hi) of T = G Phi_m^T, by the dense kernel or through the non-zeros."""
    if fit.proj_dense:
        engine_project_dense(fit.G, lo, hi, fit.d, fit.phi, t, fit.T)
    else:
        _project_rows_sparse(fit.G, lo, hi, fit.d, indptr, fit.proj_indices, fit.proj_data, t,
                             fit.T)


cdef void project_gradient(Fit* fit, intp_t m, intp_t t) noexcept nogil:
    """T = G Phi_m^T on the first t projection rows of step m (n x t, line 5 of Algorithms 3-4).

    A dense scheme's rows are first written out as a t x d matrix (fit.phi)
    for the kernel of projection_kernels.h; a sparse one's are read through
    their non-zeros (an empty row gives a zero column). Every entry of T is
    its own sum, so row blocks go to threads and the result does not depend
    on their number.
    """
    cdef intp_t b, r, c, j, n_blocks = n_row_blocks(fit.n)
    cdef const intp_t* indptr = fit.proj_indptr + m * fit.q
    if fit.proj_dense:
        for r in range(t):
            for j in range(fit.d):
                fit.phi[r * fit.d + j] = 0.0
            for c in range(indptr[r], indptr[r + 1]):
                fit.phi[r * fit.d + fit.proj_indices[c]] = fit.proj_data[c]
    if fit.n_threads > 1 and n_blocks > 1:
        for b in prange(n_blocks, schedule="dynamic", num_threads=fit.n_threads):
            _project_block(fit, b * ROW_BLOCK, block_end(b, 0, fit.n), indptr, t)
    else:
        _project_block(fit, 0, fit.n, indptr, t)


cdef int set_projection_mode_code(int mode) noexcept nogil:
    """Pick the dense kernel's version (0: portable, 1: AVX2 + FMA); returns the one in use."""
    return engine_project_set_mode(mode)
