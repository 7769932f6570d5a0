"""The random projection schemes of paper 002 (section 2.3), one draw function each.

A scheme draws ``n_draws`` independent (q, d) matrices Phi, shape (n_draws, q, d), from a
numpy Generator. Each function is one row's ``draw`` in the method table (engine/methods.py):
adding a scheme is its draw function plus one row there. The argument checks (q >= 1, q <= d
for sub-sampling) are made once, by engine.projections.check_projection, before any draw.

Rademacher entries are +-sqrt(s/q) with probability 1/(2s) each and 0 otherwise. A sparse row
can be all zero; a tree grown on it has no split and the boosting step changes nothing, which is
what that projection means.
"""
import numpy as np


def draw_gaussian(rng, n_draws, q, d):
    """i.i.d. N(0, 1/q) entries."""
    return rng.normal(0.0, 1.0 / np.sqrt(q), size=(n_draws, q, d))


def draw_subsample(rng, n_draws, q, d):
    """Random output sub-sampling: q distinct rows of the d x d identity per draw (the first q of a
    random permutation), so q <= d and q = d is the identity up to the order of the outputs."""
    chosen = np.argsort(rng.random((n_draws, d)), axis=1)[:, :q]
    out = np.zeros((n_draws, q, d))
    np.put_along_axis(out, chosen[:, :, None], 1.0, axis=2)
    return out


def rademacher_density(kind, n_outputs):
    """1/s for the Rademacher schemes: s = 3 (Achlioptas 2003), s = sqrt(d) (Li et al. 2006)."""
    return 1.0 / 3.0 if kind == "achlioptas" else 1.0 / np.sqrt(n_outputs)


def _draw_rademacher(rng, n_draws, q, d, density):
    s = 1.0 / density
    u = rng.random((n_draws, q, d))
    scale = np.sqrt(s / q)
    out = np.zeros((n_draws, q, d))
    out[u < density / 2] = -scale
    out[(u >= density / 2) & (u < density)] = scale
    return out


def draw_achlioptas(rng, n_draws, q, d):
    """Rademacher with s = 3 (Achlioptas 2003)."""
    return _draw_rademacher(rng, n_draws, q, d, rademacher_density("achlioptas", d))


def draw_sparse(rng, n_draws, q, d):
    """Sparse Rademacher, s = sqrt(d) (Li et al. 2006); with one output every entry is +-1/sqrt(q)."""
    return _draw_rademacher(rng, n_draws, q, d, 1.0 if d == 1 else rademacher_density("sparse", d))
