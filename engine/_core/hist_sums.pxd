# A node's sums over its samples, for the histogram grower, in fixed row
# blocks (row_blocks.pxd, OpenMP threads when there is enough work): its cell
# totals (target sums, weight, count), its mean and weighted SSE (two passes),
# a leaf's weighted label sums. HistGrower's second layer.
# See hist_sums.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.binned_samples cimport BinnedSamples
from engine._core.row_blocks cimport ROW_BLOCK
from engine._core.frontier cimport NodeRecord

# The sums over wide target rows go to threads from two row blocks on when
# rows x (t + 1) reaches this (and from PARALLEL_ROW_BLOCKS blocks on anyway).
cdef enum:
    PARALLEL_ROW_WORK = 4 * ROW_BLOCK * 2


cdef class HistSums(BinnedSamples):
    # The current tree's cell layout (histogram.cell_stride).
    cdef bint unit_weights                  # every in-bag weight is 1: the count is the weight
    cdef intp_t stride                      # cell size of the current tree
    cdef intp_t count_slot                  # where a cell counts its samples: t (unit weights) or t + 1
    # A node's sums.
    cdef float64_t[::1] node_mean
    cdef float64_t[::1] totals              # a node's cell totals
    cdef float64_t[::1] block_sums          # n_row_blocks(n) x (max_t + 8): partial sums per row block

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
    cdef void _leaf_sums(self, NodeRecord* rec, const float64_t* labels, intp_t m,
                         const float64_t* weights, float64_t* values) noexcept nogil
