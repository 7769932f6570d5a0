"""The rows and the split targets of a boosting step (paper 002, Algorithms 2-4, lines 5-6).

* :func:`draw_in_bag`: the in-bag weights of the step's tree. With
  ``subsample`` < 1 (Friedman's stochastic gradient boosting) a fraction of
  the rows keeps its weight and the others get 0, so that the grower, the
  leaf values and rho all see the same rows.
* :func:`project_gradient`: T = G Phi_m^T (n x q), the q random projections
  of the negative gradient on which gbrt-rpo (Algorithm 3, q = 1) and
  gbrt-relabel-rpo (Algorithm 4) grow their tree. Phi_m arrives in CSR form
  (rows m * q + r), so a sparse projection (output sub-sampling, Achlioptas,
  sparse Rademacher; section 2.3) costs its non-zeros only. Rows go to
  threads in blocks of row_blocks.pxd; each row is its own sum, so the result
  does not depend on the number of threads.
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


cdef void project_gradient(Fit* fit, intp_t m, intp_t t) noexcept nogil:
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
