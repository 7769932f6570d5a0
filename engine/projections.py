"""Random projections of the output space (paper 002 section 2.3).

A projection is a (q, d) matrix Phi mapping an output (or residual) vector y
of size d to Phi y of size q. The four schemes, from sparsest to densest:

* ``"subsample"``: random output sub-sampling, q distinct rows of the d x d
  identity (drawn without replacement, so q <= d and q = d is a permutation:
  the identity projection up to the order of the outputs).
* ``"sparse"``: sparse Rademacher, s = sqrt(d) (Li et al. 2006).
* ``"achlioptas"``: Rademacher with s = 3 (Achlioptas 2003).
* ``"gaussian"``: i.i.d. N(0, 1/q) entries.

Rademacher entries are +-sqrt(s/q) with probability 1/(2s) each and 0
otherwise. A sparse row can be all zero; a tree grown on it has no split and
the boosting step changes nothing, which is what that projection means.

The boosting core projects a step's n x d gradient by a blocked dense product
for the dense schemes (``DENSE_SCHEMES``: a third or more of the entries are
non-zero, so reading every output at vector speed beats skipping the zeros)
and through the non-zeros for the others (q columns gathered for
sub-sampling, about q sqrt(d) entries per row for the sparse scheme).
"""
import numbers

import numpy as np

from engine.names import PROJECTIONS

# The schemes whose matrices the boosting core multiplies densely (see above).
DENSE_SCHEMES = ("gaussian", "achlioptas")


def check_projection(kind, n_components, n_outputs):
    """Raise ValueError unless (kind, q, d) describe a valid projection."""
    if kind not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {kind!r}")
    if (not isinstance(n_components, numbers.Integral) or isinstance(n_components, bool)
            or n_components < 1):
        raise ValueError(f"n_projections (q) must be an integer >= 1, got {n_components!r}")
    if kind == "subsample" and n_components > n_outputs:
        raise ValueError(
            f"n_projections (q) = {n_components} is larger than the number of outputs "
            f"d = {n_outputs}: output sub-sampling draws q distinct outputs, so q <= d")


def rademacher_density(kind, n_outputs):
    """1/s for the Rademacher schemes."""
    return 1.0 / 3.0 if kind == "achlioptas" else 1.0 / np.sqrt(n_outputs)


def draw_projections(kind, n_draws, n_components, n_outputs, rng):
    """Draw ``n_draws`` independent (q, d) projection matrices: shape (n_draws, q, d)."""
    check_projection(kind, n_components, n_outputs)
    q, d = n_components, n_outputs
    if kind == "gaussian":
        return rng.normal(0.0, 1.0 / np.sqrt(q), size=(n_draws, q, d))
    if kind == "subsample":
        # q distinct outputs per draw: the first q of a random permutation.
        chosen = np.argsort(rng.random((n_draws, d)), axis=1)[:, :q]
        out = np.zeros((n_draws, q, d))
        np.put_along_axis(out, chosen[:, :, None], 1.0, axis=2)
        return out
    density = 1.0 if d == 1 and kind == "sparse" else rademacher_density(kind, d)
    s = 1.0 / density
    u = rng.random((n_draws, q, d))
    scale = np.sqrt(s / q)
    out = np.zeros((n_draws, q, d))
    out[u < density / 2] = -scale
    out[(u >= density / 2) & (u < density)] = scale
    return out


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
