# See histogram.pyx for details.
from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint8_t


# Binned training features (engine._core.binning.BinnedFeatures) as pointers,
# plus the work units the histogram of a node is built in.
cdef struct BinnedView:
    intp_t n_samples
    intp_t n_features
    intp_t total_bins                 # bins over all features (cells of a histogram)
    const intp_t* bin_start           # feature f's bins are [bin_start[f], bin_start[f + 1])
    const int32_t* zero_bin           # bin of the value 0, per feature
    const int32_t* dense_column       # column of f in codes, -1 for a sparse feature
    const int32_t* dense_feature      # feature of each dense column
    const uint8_t* codes              # n_samples x n_dense, column-major
    intp_t n_dense
    const intp_t* sparse_start        # entries of f: [sparse_start[f], sparse_start[f + 1])
    const int32_t* sparse_rows        # row of each entry (increasing within a feature)
    const int32_t* sparse_codes       # bin of each entry (never the zero bin)
    intp_t n_units                    # work units of a histogram build
    const intp_t* unit_first          # dense block: columns [first, last); sparse: feature first
    const intp_t* unit_last           # -1 for a sparse feature
    intp_t n_sparse                   # sparse features, and their entries by row:
    const int32_t* sparse_feature     # the sparse features, in increasing order
    const intp_t* row_start           # row i's entries: [row_start[i], row_start[i + 1])
    const int32_t* row_bins           # absolute bin (bin_start[f] + code) of each entry


cdef void build_histogram(const BinnedView* B, const int32_t* samples, intp_t n_rows,
                          int32_t node, const int32_t* node_of,
                          const float64_t* targets, intp_t t, const float64_t* weights,
                          const float64_t* totals, intp_t stride, const intp_t* col_offset,
                          float64_t* hist, int n_threads) noexcept nogil
cdef void build_feature(const BinnedView* B, intp_t f, const int32_t* samples, intp_t n_rows,
                        int32_t node, const int32_t* node_of,
                        const float64_t* targets, intp_t t, const float64_t* weights,
                        const float64_t* totals, intp_t stride, const intp_t* col_offset,
                        float64_t* hist) noexcept nogil
cdef void subtract_histogram(float64_t* out, const float64_t* parent, const float64_t* child,
                             intp_t n, int n_threads) noexcept nogil
cdef intp_t cell_stride(intp_t t, bint unit_weights) noexcept nogil
cdef float64_t* alloc_histogram(intp_t n_doubles) noexcept nogil
cdef void scan_feature(const BinnedView* B, const float64_t* h, intp_t j, intp_t f,
                       bint random_split, intp_t at, intp_t stride, intp_t t,
                       intp_t count_slot, const float64_t* mean, float64_t W,
                       float64_t n_node, float64_t msl, float64_t* left,
                       intp_t* cand_bin, float64_t* cand_gain, float64_t* cand_wl,
                       float64_t* cand_nl) noexcept nogil
