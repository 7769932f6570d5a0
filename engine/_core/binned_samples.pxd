# The histogram grower's binned training features (dense and sparse) and its
# node sample lists: the stable partition of a node's samples by a split's bin
# (a sparse feature: the zero bin's side, then its stored entries), a sample's
# bin in any feature, and the routing of out-of-bag samples to leaves by bin.
# HistGrower's first layer (hist_grower.pyx allocates the arrays).
# See binned_samples.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint8_t
from engine._core.tree_store cimport TreeStore
from engine._core.grower_base cimport Grower
from engine._core.histogram cimport BinnedView
from engine._core.frontier cimport NodeRecord

# A node's loops over its samples (totals, statistics, partition, leaf sums)
# go to threads from this many row blocks (row_blocks.pxd) on; the blocks
# themselves never depend on the number of threads, so neither do the results.
cdef enum:
    PARALLEL_ROW_BLOCKS = 4


cdef class BinnedSamples(Grower):
    # Binned training inputs, fixed for the grower's lifetime.
    cdef readonly object binned             # BinnedFeatures (owns the arrays B points into)
    cdef BinnedView B
    cdef object _unit_arrays                # unit_first, unit_last, dense_feature
    cdef const float64_t[::1] thresholds    # every feature's bin boundaries, in its units
    cdef const intp_t[::1] threshold_start  # feature f's boundaries start here
    cdef intp_t max_t                       # largest number of split targets
    cdef int _n_threads                     # OpenMP threads for histograms and split search
    # The node sample lists of the current tree.
    cdef int32_t[::1] samples               # in-bag samples, partitioned by node
    cdef int32_t[::1] tmp
    cdef int32_t[::1] node_of               # node id of every in-bag sample, -1 out of bag
    cdef uint8_t[::1] goes_left
    cdef intp_t[::1] block_left             # 3 x n_row_blocks(n): lefts per block, left and right offsets
    # Routing of out-of-bag samples by bin.
    cdef int32_t* node_bin                  # split bin per node of the current tree
    cdef intp_t node_bin_capacity

    cdef void _partition(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil
    cdef void _partition_blocks(self, NodeRecord* rec, intp_t left_id, intp_t right_id) noexcept nogil
    cdef int32_t _code(self, intp_t i, intp_t f) noexcept nogil
    cdef int _record_bin(self, TreeStore store, NodeRecord* parent) except -1 nogil
    cdef int row_threads(self) noexcept nogil
    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil
