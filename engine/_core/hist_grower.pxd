# The histogram grower: node histograms kept in a pool for the nodes waiting
# in the frontier, the sibling subtraction (the larger child's histogram is
# its parent's minus the smaller child's), and the per-node operations the
# best-first skeleton (Grower.grow, grower_base.pyx) calls. Its layers:
# BinnedSamples < HistSums < HistSplitter < HistGrower.
# See hist_grower.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore
from engine._core.hist_split cimport HistSplitter
from engine._core.frontier cimport NodeRecord


cdef class HistGrower(HistSplitter):
    cdef float64_t[::1] built_sums          # 2 x (max_t + 8): the totals of the children just built
    # Histogram buffers: pool slots kept with frontier nodes, two scratch buffers.
    cdef float64_t** pool
    cdef intp_t pool_limit
    cdef intp_t pool_allocated
    cdef intp_t* free_slots
    cdef intp_t n_free
    cdef float64_t* scratch[2]
    cdef intp_t hist_len                    # doubles in one histogram buffer

    cdef float64_t* _buffer(self, intp_t slot) noexcept nogil
    cdef intp_t _take_slot(self, intp_t fallback) except -2 nogil
    cdef void _release(self, NodeRecord* rec) noexcept nogil
    cdef void _build(self, NodeRecord* rec, bint root, const float64_t* targets, intp_t t,
                     const float64_t* weights, float64_t* tot) noexcept nogil
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
    cdef int _add_leaf(self, NodeRecord* rec) except -1 nogil
    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil
