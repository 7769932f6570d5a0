# See tree_store.pyx for details.
from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t, int64_t

cdef enum:
    TREE_LEAF = -1

# Field order puts the doubles first so the struct has no padding and maps
# one-to-one onto NODE_DTYPE.
cdef struct Node:
    float64_t threshold               # go left when x[feature] <= threshold
    float64_t impurity                # sum over split targets of the weighted variance
    float64_t improvement             # weighted SSE decrease of this node's split (0 for leaves)
    float64_t weighted_n_node_samples # sum of sample weights in the node
    int32_t left_child                # node id of the left child, TREE_LEAF for leaves
    int32_t right_child               # node id of the right child, TREE_LEAF for leaves
    int32_t feature                   # split feature, TREE_LEAF for leaves
    int32_t n_node_samples            # number of (in-bag) training samples in the node


# Rows of a feature matrix, dense (any strides) or CSR (sorted column indices,
# no duplicates): what a traversal reads x[row, feature] from.
cdef struct Rows:
    bint csr                          # CSR rows (else dense)
    const float32_t* dense            # dense: x[0, 0] (NULL when X is empty)
    intp_t row_stride                 # dense: elements between rows
    intp_t col_stride                 # dense: elements between columns
    const int64_t* indptr             # CSR: row r holds entries [indptr[r], indptr[r + 1])
    const int32_t* indices            # CSR: column of each entry, increasing within a row
    const float32_t* data             # CSR: value of each entry


cdef class RowMatrix:
    cdef readonly intp_t n_rows
    cdef readonly intp_t n_cols
    cdef readonly bint is_sparse
    cdef object _arrays                # keeps the buffers behind ``rows`` alive
    cdef Rows rows


cdef float32_t row_value(const Rows* X, intp_t row, intp_t feature) noexcept nogil


cdef class TreeStore:
    cdef readonly intp_t n_values     # length of each node's value vector
    cdef Node* _nodes                  # all nodes of all trees, tree after tree
    cdef float64_t* _values            # node_capacity x n_values, row-major
    cdef intp_t _node_count
    cdef intp_t node_capacity
    cdef intp_t* _starts           # tree k owns nodes [tree_start[k], tree_start[k+1])
    cdef intp_t _n_trees
    cdef intp_t tree_capacity

    cdef int _reserve_nodes(self, intp_t capacity) except -1 nogil
    cdef int begin_tree(self) except -1 nogil
    cdef intp_t add_node(self) except -1 nogil
    cdef void sums_to_means(self, intp_t first) noexcept nogil
    cdef intp_t leaf_of(self, intp_t tree, const float32_t* X, intp_t row_stride,
                        intp_t col_stride, intp_t row) noexcept nogil
    cdef intp_t leaf_of_row(self, intp_t tree, const Rows* X, intp_t row) noexcept nogil
    cdef intp_t _walk(self, intp_t tree, const Rows* X, intp_t row, int32_t* out) noexcept nogil
