"""Random projections of the output space (paper 002 section 2.3): the checks and the draws.

A projection is a (q, d) matrix Phi mapping an output (or residual) vector y
of size d to Phi y of size q. The schemes are rows of the method table
(engine/methods.py, ``SCHEMES``), each with its draw function
(engine/projection_schemes.py): output sub-sampling (q distinct outputs, so
q <= d), sparse Rademacher (s = sqrt(d)), Achlioptas (s = 3) and Gaussian
(N(0, 1/q)).

The boosting core projects a step's n x d gradient by a blocked dense product
for the dense schemes (``DENSE_SCHEMES``: a third or more of the entries are
non-zero, so reading every output at vector speed beats skipping the zeros)
and through the non-zeros for the others (q columns gathered for
sub-sampling, about q sqrt(d) entries per row for the sparse scheme).
"""
import numbers

import numpy as np

from engine.methods import SCHEMES
from engine.names import PROJECTIONS

# The schemes whose matrices the boosting core multiplies densely (see above).
DENSE_SCHEMES = tuple(scheme for scheme, row in SCHEMES.items() if row.dense)


def check_projection(kind, n_components, n_outputs):
    """Raise ValueError unless (kind, q, d) describe a valid projection."""
    if kind not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {kind!r}")
    if (not isinstance(n_components, numbers.Integral) or isinstance(n_components, bool)
            or n_components < 1):
        raise ValueError(f"n_projections (q) must be an integer >= 1, got {n_components!r}")
    if SCHEMES[kind].q_at_most_d and n_components > n_outputs:
        raise ValueError(
            f"n_projections (q) = {n_components} is larger than the number of outputs "
            f"d = {n_outputs}: {SCHEMES[kind].description} draws q distinct outputs, so q <= d")


def draw_projections(kind, n_draws, n_components, n_outputs, rng):
    """Draw ``n_draws`` independent (q, d) projection matrices: shape (n_draws, q, d)."""
    check_projection(kind, n_components, n_outputs)
    return SCHEMES[kind].draw(rng, n_draws, n_components, n_outputs)


def make_projection(kind, n_components, n_outputs, random_state=None):
    """One (q, d) projection matrix of the given scheme."""
    rng = np.random.default_rng(random_state)
    return draw_projections(kind, 1, n_components, n_outputs, rng)[0]


def to_csr(projections):
    """Rows of a (n_draws, q, d) stack as CSR arrays (indptr, indices, data)."""
    flat = projections.reshape(-1, projections.shape[-1])
    rows, cols = np.nonzero(flat)
    indptr = np.zeros(flat.shape[0] + 1, dtype=np.intp)
    np.cumsum(np.bincount(rows, minlength=flat.shape[0]), out=indptr[1:])
    return indptr, cols.astype(np.intp), np.ascontiguousarray(flat[rows, cols])
