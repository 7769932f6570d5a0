# See grower.pyx for details.
from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t, uint8_t, uint64_t
from engine._core.tree_store cimport TreeStore
from engine._core.grower_base cimport Grower
from engine._core.frontier cimport NodeRecord, SplitRecord


cdef class TreeGrower(Grower):
    # Training inputs, fixed for the grower's lifetime (one boosting fit or one forest).
    cdef const float32_t[::1, :] X          # n_samples x n_features, Fortran order
    cdef const int32_t[:, ::1] order        # n_features x n_samples, samples sorted by feature
    cdef const float32_t[:, ::1] sorted_x   # n_features x n_samples, X values in that order
    # Workspace for one tree at a time.
    cdef const int32_t* rows_idx            # order, or idx once a tree partitions
    cdef const float32_t* rows_x            # sorted_x, or xs once a tree partitions
    cdef bint rows_are_copy                 # rows_* point at the working copy
    cdef bint unit_weights                  # every in-bag weight is 1: counts replace sums
    cdef float64_t[::1] inverse             # inverse[k] = 1 / k
    cdef int32_t[:, ::1] idx                # node-partitioned copy of order
    cdef float32_t[:, ::1] xs               # X values aligned with idx
    cdef int32_t[::1] tmp_idx
    cdef float32_t[::1] tmp_x
    cdef uint8_t[::1] goes_left
    cdef int32_t[::1] features              # feature permutation for max_features draws
    cdef float64_t[::1] node_sum            # sum of weighted targets in the node being evaluated
    cdef float64_t[:, ::1] centered         # targets minus the node mean (multi-target scans)
    cdef float64_t[::1] left_sum
    cdef float64_t[::1] row_sq              # |S_left|^2 per row (multi-target scans)
    cdef float64_t[::1] node_mean
    cdef float64_t[::1] node_weight         # per tree node: sum of weights (values pass)

    cdef float64_t _node_stats(self, NodeRecord* rec, const float64_t* targets,
                               intp_t t, const float64_t* weights) noexcept nogil
    cdef bint _best_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil
    cdef bint _scan_single_pair(self, NodeRecord* rec, intp_t fa, intp_t fb,
                                const float64_t* targets, SplitRecord* best) noexcept nogil
    cdef bint _scan_multi_pair(self, NodeRecord* rec, intp_t fa, intp_t fb, intp_t t,
                               const float64_t* weights, SplitRecord* best) noexcept nogil
    cdef bint _rank(self, NodeRecord* rec, intp_t f, const float64_t* sq,
                    const float64_t* weights, SplitRecord* best) noexcept nogil
    cdef bint _scan_single(self, NodeRecord* rec, intp_t f, const float64_t* targets,
                           const float64_t* weights, SplitRecord* best) noexcept nogil
    cdef bint _scan_random(self, NodeRecord* rec, intp_t f, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state,
                           SplitRecord* best) noexcept nogil
    cdef void _partition(self, NodeRecord* rec) noexcept nogil
    # The per-node operations of the best-first skeleton (Grower.grow).
    cdef intp_t _reset(self, const float64_t* weights, intp_t t) except -1 nogil
    cdef int _open_root(self, NodeRecord* root, const float64_t* targets, intp_t t,
                        const float64_t* weights, bint may_split) except -1 nogil
    cdef float64_t _node_sse(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                             const float64_t* weights) noexcept nogil
    cdef int _search_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state) except -1 nogil
    cdef int _split_node(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                         NodeRecord* right, const float64_t* targets, intp_t t,
                         const float64_t* weights, bint children_may_split) except -1 nogil
    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil
    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil
