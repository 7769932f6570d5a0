"""The one interface the boosting loop and the forests grow trees through.

Two growers implement it: :class:`~engine._core.grower.TreeGrower` (exact
split search on presorted dense features) and
:class:`~engine._core.hist_grower.HistGrower` (histograms of binned features,
dense or sparse). Both grow best-first into a :class:`TreeStore` with node
thresholds in the original feature units, so prediction does not depend on
which one grew a tree. ``grow`` is the only virtual call per tree.
"""
import numpy as np

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore


cdef class Grower:
    """Base class: ``grow`` one tree; ``training_leaves`` routes every training sample."""

    cdef int grow(self, TreeStore store, const float64_t* targets, intp_t n_targets,
                  const float64_t* labels, const float64_t* weights,
                  uint64_t* rng_state) except -1 nogil:
        """Grow one tree on ``targets`` (n x n_targets, row-major), label its
        nodes with weighted means of ``labels`` (n x store.n_values); samples
        with weight 0 are left out. Afterwards ``sample_leaf[i]`` is the leaf
        of every in-bag sample i."""
        with gil:
            raise NotImplementedError("Grower.grow")

    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil:
        """leaf[i] = leaf of training sample i in the last tree (in-bag or not)."""
        pass

    cdef int row_threads(self) noexcept nogil:
        """Threads the boosting loop may use for its loops over rows (1: serial)."""
        return 1


def grow_tree(Grower grower, TreeStore store, targets, labels=None, sample_weight=None,
              uint64_t seed=0):
    """Grow one tree into ``store`` (for tests, forests and single trees).

    Returns the leaf id of every training sample with a non-zero weight
    (-1 for the others).
    """
    T = np.ascontiguousarray(targets, dtype=np.float64)
    if T.ndim == 1:
        T = T.reshape(-1, 1)
    L = T if labels is None else np.ascontiguousarray(labels, dtype=np.float64)
    if L.ndim == 1:
        L = L.reshape(-1, 1)
    n = grower.n_samples
    w = (np.ones(n) if sample_weight is None
         else np.ascontiguousarray(sample_weight, dtype=np.float64))
    if T.shape[0] != n or L.shape[0] != n or w.shape != (n,):
        raise ValueError("targets, labels and sample_weight must have one row per sample")
    if T.shape[1] > grower.max_targets:
        raise ValueError(f"the grower was sized for {grower.max_targets} targets, got {T.shape[1]}")
    if L.shape[1] != store.n_values:
        raise ValueError(f"labels must have {store.n_values} columns, got {L.shape[1]}")
    cdef const float64_t[:, ::1] Tv = T
    cdef const float64_t[:, ::1] Lv = L
    cdef const float64_t[::1] wv = w
    cdef uint64_t state = seed
    cdef intp_t t = T.shape[1]
    with nogil:
        grower.grow(store, &Tv[0, 0], t, &Lv[0, 0], &wv[0], &state)
    return np.asarray(grower.sample_leaf).copy()
