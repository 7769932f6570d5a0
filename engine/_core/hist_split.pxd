# Split search over a node's histogram: draw the candidate features (as the
# exact grower), skip those constant in the node, scan each candidate's bins
# for its best boundary by the centred gain |S_l - W_l m|^2 / (W_l W_r) (in
# OpenMP threads when there is enough work), reduce in draw order.
# HistGrower's third layer. See hist_split.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.hist_sums cimport HistSums
from engine._core.frontier cimport NodeRecord


cdef class HistSplitter(HistSums):
    cdef bint per_node_features             # max_features < p: build only the drawn features' cells
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

    cdef bint _constant(self, const float64_t* h, intp_t f, intp_t* lo, intp_t* hi) noexcept nogil
    cdef bint _best_split(self, NodeRecord* rec, float64_t* h, intp_t t, const float64_t* targets,
                          const float64_t* weights, uint64_t* rng_state) noexcept nogil
