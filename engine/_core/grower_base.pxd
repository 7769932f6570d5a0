# See grower_base.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore
from engine._core.frontier cimport NodeRecord


cdef class Grower:
    cdef readonly intp_t n_samples          # training samples the grower was built on
    cdef readonly intp_t n_features
    cdef readonly int32_t[::1] sample_leaf  # leaf id of each in-bag sample of the last tree, -1 if out
    # Growth parameters, as scikit-learn's, resolved to integers by _set_limits.
    cdef intp_t max_leaf_nodes              # <= 0: unlimited
    cdef intp_t max_depth                   # <= 0: unlimited
    cdef intp_t min_samples_leaf
    cdef intp_t min_samples_split
    cdef intp_t max_features
    cdef bint random_splits                 # extra-trees: one random threshold per feature
    cdef bint leaf_impurity                 # compute impurity of never-evaluated leaves
    # Best-first growth (frontier.pxd): the queued nodes and the final leaves of the current tree.
    cdef NodeRecord* frontier               # max-heap on improvement
    cdef intp_t frontier_size
    cdef intp_t frontier_capacity
    cdef NodeRecord* leaves
    cdef intp_t n_leaves
    cdef intp_t leaves_capacity

    # The best-first skeleton, written once (grower_base.pyx).
    cdef int grow(self, TreeStore store, const float64_t* targets, intp_t n_targets,
                  const float64_t* labels, const float64_t* weights,
                  uint64_t* rng_state) except -1 nogil
    cdef int _open_node(self, TreeStore store, NodeRecord* rec, const float64_t* targets,
                        intp_t t, const float64_t* weights, uint64_t* rng_state,
                        bint may_split) except -1 nogil
    cdef bint _may_split(self, NodeRecord* rec) noexcept nogil
    cdef int _push(self, NodeRecord* rec) except -1 nogil
    cdef int _add_leaf(self, NodeRecord* rec) except -1 nogil
    cdef void _write_split(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                           NodeRecord* right) noexcept nogil
    # The per-tree and per-node operations each grower supplies.
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
    cdef int row_threads(self) noexcept nogil
