"""Test-only hooks into the compiled core: not used by the estimators.

* The exp of the logistic passes (updates.pyx; exp_kernels.h): which exp they
  take, and that exp on plain arrays, so that tests can hold the vectorised
  exp to libm's and fit the same model with each. Every mode fits the same
  model up to rounding (about 1 ulp per exp).
* The exact line search of losses.pyx on explicit vectors (one sample per
  leaf), for tests against a brute-force minimiser.
* The projection of a step's gradient (split_targets.pyx) on explicit
  arrays, by either version of the dense kernel or through the non-zeros,
  for tests against numpy's product.
"""
import numpy as np

from libc.string cimport memset

from engine._core.typedefs cimport float64_t, intp_t, int32_t
from engine._core.losses cimport LOGISTIC, LineSearchBuffers, line_search
from engine._core.updates cimport set_exp_mode_code, exp_of_array
from engine._core.fit_state cimport Fit
from engine._core.split_targets cimport project_gradient, set_projection_mode_code

EXP_MODES = ("libm", "portable", "avx2")


def set_exp_mode(str mode):
    """Which exp the logistic passes take (exp_kernels.h); returns the mode now in use.

    "avx2" (the default where the CPU has AVX2 + FMA, else "portable"): the
    vectorised polynomial; "portable": the same in plain C; "libm": libm's exp
    per entry, the former path.
    """
    if mode not in EXP_MODES:
        raise ValueError(f"mode must be one of {EXP_MODES}, got {mode!r}")
    return EXP_MODES[set_exp_mode_code(EXP_MODES.index(mode))]


def exp_array(const float64_t[::1] x):
    """exp of every entry of x, by the exp the logistic passes take now."""
    out = np.empty(x.shape[0])
    cdef float64_t[::1] o = out
    if x.shape[0] > 0:
        with nogil:
            exp_of_array(&x[0], &o[0], x.shape[0])
    return out


def line_search_on_vectors(int loss, const float64_t[::1] y, const float64_t[::1] f,
                           const float64_t[::1] a, const float64_t[::1] w):
    """argmin_rho sum_i w_i loss(y_i, f_i + rho a_i) by the compiled line search (losses.pyx)."""
    cdef intp_t n = y.shape[0]
    if n == 0:
        return 0.0
    if loss == LOGISTIC and not np.all(np.abs(np.asarray(y)) == 1.0):
        raise ValueError("y must hold -1 and +1 for the logistic loss")
    leaf = np.arange(n, dtype=np.int32)
    cdef int32_t[::1] lv = leaf
    cdef LineSearchBuffers buffers = LineSearchBuffers(n)
    return line_search(loss, &y[0], &f[0], 1, &a[0], &lv[0], 1, 0, &w[0], n, &buffers.work)


PROJECTION_MODES = ("portable", "avx2")


def set_projection_mode(str mode):
    """Which version of the dense projection kernel runs (projection_kernels.h); returns the one in use.

    "avx2" (the default where the CPU has AVX2 + FMA, else "portable") or "portable".
    """
    if mode not in PROJECTION_MODES:
        raise ValueError(f"mode must be one of {PROJECTION_MODES}, got {mode!r}")
    return PROJECTION_MODES[set_projection_mode_code(PROJECTION_MODES.index(mode))]


def project_on_arrays(const float64_t[:, ::1] G, const intp_t[::1] indptr,
                      const intp_t[::1] indices, const float64_t[::1] data, bint dense,
                      int n_threads=1):
    """T = G Phi^T (n x q) by the boosting step's projection, Phi: q CSR rows over d = G's columns."""
    cdef intp_t n = G.shape[0], d = G.shape[1], q = indptr.shape[0] - 1
    if n < 1 or d < 1 or q < 1 or indices.shape[0] != data.shape[0] or indptr[q] != data.shape[0]:
        raise ValueError("G and the CSR arrays of Phi do not fit together")
    if data.shape[0] and (np.min(indices) < 0 or np.max(indices) >= d):
        raise ValueError("Phi's column indices must lie in [0, d)")
    T = np.zeros((n, q))
    phi = np.zeros((q, d))
    cdef float64_t[:, ::1] tv = T, pv = phi
    cdef Fit fit
    memset(&fit, 0, sizeof(Fit))
    fit.n, fit.d, fit.q, fit.n_threads = n, d, q, n_threads
    fit.G, fit.T, fit.phi = <float64_t*> &G[0, 0], &tv[0, 0], &pv[0, 0]
    fit.proj_indptr, fit.proj_dense = &indptr[0], dense
    fit.proj_indices = &indices[0] if indices.shape[0] else NULL
    fit.proj_data = &data[0] if data.shape[0] else NULL
    with nogil:
        project_gradient(&fit, 0, q)
    return T
