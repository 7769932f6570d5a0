# See grower_base.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore


cdef class Grower:
    cdef readonly intp_t n_samples          # training samples the grower was built on
    cdef readonly intp_t n_features
    cdef readonly int32_t[::1] sample_leaf  # leaf id of each in-bag sample of the last tree, -1 if out

    cdef int grow(self, TreeStore store, const float64_t* targets, intp_t n_targets,
                  const float64_t* labels, const float64_t* weights,
                  uint64_t* rng_state) except -1 nogil
    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil
    cdef int row_threads(self) noexcept nogil
