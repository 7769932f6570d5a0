# See hist_grower.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint8_t, uint64_t
from engine._core.tree_store cimport TreeStore
from engine._core.grower_base cimport Grower
from engine._core.histogram cimport BinnedView
from engine._core.frontier cimport NodeRecord, SplitRecord


cdef class HistGrower(Grower):
    # Binned training inputs, fixed for the grower's lifetime.
    cdef readonly object binned             # BinnedFeatures (owns the arrays B points into)
    cdef BinnedView B
    cdef object _unit_arrays                # unit_first, unit_last, dense_feature
    cdef const float64_t[::1] thresholds
    cdef const intp_t[::1] threshold_start
    # Growth parameters (the others are Grower's).
    cdef bint per_node_features             # max_features < p: build only the drawn features' cells
    cdef intp_t max_t                       # largest number of split targets
    cdef int _n_threads                     # OpenMP threads for histograms and split search
    # Workspace for one tree at a time.
    cdef bint unit_weights
    cdef intp_t stride                      # cell size of the current tree (histogram.cell_stride)
    cdef intp_t count_slot                  # where a cell counts its samples: t (unit weights) or t + 1
    cdef int32_t[::1] samples               # in-bag samples, partitioned by node
    cdef int32_t[::1] tmp
    cdef int32_t[::1] node_of               # node id of every in-bag sample, -1 out of bag
    cdef uint8_t[::1] goes_left
    cdef int32_t[::1] features              # feature permutation for max_features draws
    cdef int32_t[::1] candidates            # non-constant drawn features of the node
    cdef intp_t[::1] cand_at                # random splits: the drawn boundary
    cdef intp_t[::1] cand_bin               # per candidate: best boundary, -1 none
    cdef float64_t[::1] cand_gain
    cdef float64_t[::1] cand_wl
    cdef float64_t[::1] cand_nl
    cdef float64_t[::1] scan_scratch        # per candidate: t running left sums
    cdef intp_t scan_stride                 # doubles between two candidates' scratch (a cache line multiple)
    cdef intp_t[::1] col_offset             # per dense column: offset of its cells
    cdef float64_t[::1] node_mean
    cdef float64_t[::1] totals              # a node's cell totals
    cdef float64_t[::1] built_sums          # 2 x (max_t + 8): the totals of the children just built
    # Row blocks of a node (row_blocks.pxd): partial sums, and the partition's counts and offsets.
    cdef float64_t[::1] block_sums          # n_row_blocks(n) x (max_t + 8)
    cdef intp_t[::1] block_left             # 3 x n_row_blocks(n): lefts per block, left and right offsets
    # Histogram buffers: pool slots kept with frontier nodes, two scratch buffers.
    cdef float64_t** pool
    cdef intp_t pool_limit
    cdef intp_t pool_allocated
    cdef intp_t* free_slots
    cdef intp_t n_free
    cdef float64_t* scratch[2]
    cdef intp_t hist_len                    # doubles in one histogram buffer
    # Routing of out-of-bag samples by bin.
    cdef int32_t* node_bin                  # split bin per node of the current tree
    cdef intp_t node_bin_capacity

    cdef float64_t* _buffer(self, intp_t slot) noexcept nogil
    cdef intp_t _take_slot(self, intp_t fallback) except -2 nogil
    cdef void _release(self, NodeRecord* rec) noexcept nogil
    cdef void _totals_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                           const float64_t* weights, float64_t* tot) noexcept nogil
    cdef void _totals(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                      const float64_t* weights, float64_t* tot) noexcept nogil
    cdef bint _sums_in_threads(self, NodeRecord* rec, intp_t t) noexcept nogil
    cdef void _sums_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                         const float64_t* weights, float64_t* out) noexcept nogil
    cdef float64_t _sse_rows(self, intp_t lo, intp_t hi, const float64_t* targets, intp_t t,
                             const float64_t* weights, const float64_t* mean) noexcept nogil
    cdef float64_t _node_stats(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                               const float64_t* weights, const float64_t* sums) noexcept nogil
    cdef void _build(self, NodeRecord* rec, bint root, const float64_t* targets, intp_t t,
                     const float64_t* weights, float64_t* tot) noexcept nogil
    cdef bint _constant(self, const float64_t* h, intp_t f, intp_t* lo, intp_t* hi) noexcept nogil
    cdef bint _best_split(self, NodeRecord* rec, intp_t t, const float64_t* targets,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil
    cdef void _partition(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil
    cdef void _partition_blocks(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil
    cdef int32_t _code(self, intp_t i, intp_t f) noexcept nogil
    cdef int row_threads(self) noexcept nogil
    cdef int _record_bin(self, TreeStore store, NodeRecord* parent) except -1 nogil
    cdef void _leaf_sums(self, NodeRecord* rec, const float64_t* labels, intp_t m,
                         const float64_t* weights, float64_t* values) noexcept nogil
    # The per-node operations of the best-first skeleton (Grower.grow).
    cdef intp_t _reset(self, const float64_t* weights, intp_t t) except -1 nogil
    cdef int _open_root(self, NodeRecord* root, const float64_t* targets, intp_t t,
                        const float64_t* weights, bint may_split) except -1 nogil
    cdef int _evaluate_node(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                            const float64_t* weights, uint64_t* rng_state) except -1 nogil
    cdef int _split_node(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                         NodeRecord* right, const float64_t* targets, intp_t t,
                         const float64_t* weights, bint children_may_split) except -1 nogil
    cdef int _add_leaf(self, NodeRecord* rec) except -1 nogil
    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil
