"""Storage for many binary regression trees in one flat, growable buffer.

A boosting run adds thousands of tiny trees; giving each its own Python
object would cost more than growing it. ``TreeStore`` keeps every node of
every tree in one C array of ``Node`` structs, tree after tree, plus a
``values`` buffer with one vector of ``n_values`` numbers per node (the mean
of the labels of the training samples that reached it). Node ids are global
to the store; ``tree_start[k]`` is the root of tree ``k``.

The store knows nothing about how trees are grown (see grower.pyx,
hist_grower.pyx) or combined (see algorithms.pyx): it adds nodes,
traverses, and pickles.

Traversal reads features from a :class:`RowMatrix`: a dense array (any
layout) or a CSR matrix, whose row is searched for the split feature
(binary search over the row's sorted column indices; a missing entry is 0).
A sparse X is never densified: prediction memory grows with its non-zeros.
"""
import numpy as np

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from scipy import sparse

from engine._core.typedefs cimport float32_t, float64_t, intp_t, int32_t, int64_t

NODE_DTYPE = np.dtype({
    "names": ["threshold", "impurity", "improvement", "weighted_n_node_samples",
              "left_child", "right_child", "feature", "n_node_samples"],
    "formats": [np.float64, np.float64, np.float64, np.float64,
                np.int32, np.int32, np.int32, np.int32],
    "offsets": [0, 8, 16, 24, 32, 36, 40, 44],
    "itemsize": sizeof(Node),
})


def as_csr32(X):
    """X as a canonical CSR matrix (float32 values, sorted indices, no duplicates).

    CSC and the other scipy formats are converted (memory O(nnz)).
    """
    X = sparse.csr_matrix(X, dtype=np.float32)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


cdef class RowMatrix:
    """Feature rows for traversal: a dense array or a scipy sparse matrix (held as CSR).

    Dense input is converted to float32 once (the trees compare float32
    features with float64 thresholds); sparse input to canonical float32 CSR.
    """

    def __init__(self, X):
        cdef const float32_t[:, :] dense
        cdef const int64_t[::1] indptr
        cdef const int32_t[::1] indices
        cdef const float32_t[::1] data
        if sparse.issparse(X):
            X = as_csr32(X)
            ip = np.ascontiguousarray(X.indptr, dtype=np.int64)
            ix = np.ascontiguousarray(X.indices, dtype=np.int32)
            dt = np.ascontiguousarray(X.data, dtype=np.float32)
            if dt.shape[0] == 0:           # keep valid pointers for an all-zero matrix
                ix = np.zeros(1, dtype=np.int32)
                dt = np.zeros(1, dtype=np.float32)
            indptr, indices, data = ip, ix, dt
            self._arrays = (ip, ix, dt)
            self.rows.csr = True
            self.rows.dense = NULL
            self.rows.indptr = &indptr[0]
            self.rows.indices = &indices[0]
            self.rows.data = &data[0]
            self.is_sparse = True
        else:
            A = np.asarray(X, dtype=np.float32)
            if A.ndim != 2:
                raise ValueError(f"X must be 2-D, got {A.ndim} dimension(s)")
            self._arrays = A
            self.rows.csr = False
            self.rows.dense = NULL
            if A.shape[0] > 0 and A.shape[1] > 0:
                dense = A
                self.rows.dense = &dense[0, 0]
            self.rows.row_stride = A.strides[0] // sizeof(float32_t)
            self.rows.col_stride = A.strides[1] // sizeof(float32_t)
            self.is_sparse = False
        self.n_rows, self.n_cols = X.shape


    @property
    def shape(self):
        return (self.n_rows, self.n_cols)


cdef inline float32_t row_value(const Rows* X, intp_t row, intp_t feature) noexcept nogil:
    """x[row, feature] from dense or CSR rows."""
    cdef int64_t lo, hi, mid
    if not X.csr:
        return X.dense[row * X.row_stride + feature * X.col_stride]
    lo = X.indptr[row]
    hi = X.indptr[row + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if X.indices[mid] < feature:
            lo = mid + 1
        else:
            hi = mid
    if lo < X.indptr[row + 1] and X.indices[lo] == feature:
        return X.data[lo]
    return 0.0


cdef class TreeStore:
    """Nodes and node values of a sequence of trees.

    Parameters
    ----------
    n_values : int
        Length of the value vector stored in every node (1 for single-output
        trees, the number of outputs for multi-output or relabelled trees).
    """

    def __cinit__(self, intp_t n_values):
        if n_values < 1:
            raise ValueError(f"n_values must be >= 1, got {n_values}")
        self.n_values = n_values
        self._nodes = NULL
        self._values = NULL
        self._node_count = 0
        self.node_capacity = 0
        self.tree_capacity = 16
        self._n_trees = 0
        self._starts = <intp_t*> malloc(self.tree_capacity * sizeof(intp_t))
        if self._starts == NULL:
            raise MemoryError()
        self._starts[0] = 0

    def __dealloc__(self):
        free(self._nodes)
        free(self._values)
        free(self._starts)

    cdef int _reserve_nodes(self, intp_t capacity) except -1 nogil:
        """Room for ``capacity`` nodes and their values (at least doubling, so
        appending a node costs O(1) amortised). May move _nodes and _values:
        pointers into them do not survive adding a node."""
        if capacity <= self.node_capacity:
            return 0
        cdef intp_t new_capacity = max(capacity, 2 * self.node_capacity, 64)
        cdef Node* nodes = <Node*> realloc(self._nodes, new_capacity * sizeof(Node))
        if nodes == NULL:
            with gil:
                raise MemoryError()
        self._nodes = nodes
        cdef float64_t* values = <float64_t*> realloc(
            self._values, new_capacity * self.n_values * sizeof(float64_t))
        if values == NULL:
            with gil:
                raise MemoryError()
        self._values = values
        self.node_capacity = new_capacity
        return 0

    cdef int begin_tree(self) except -1 nogil:
        """Open a new tree: the next node added is its root."""
        cdef intp_t* starts
        if self._n_trees + 2 > self.tree_capacity:
            starts = <intp_t*> realloc(self._starts, 2 * self.tree_capacity * sizeof(intp_t))
            if starts == NULL:
                with gil:
                    raise MemoryError()
            self._starts = starts
            self.tree_capacity *= 2
        self._n_trees += 1
        self._starts[self._n_trees] = self._node_count
        return 0

    cdef intp_t add_node(self) except -1 nogil:
        """Append a leaf node (fields zeroed) to the current tree; return its id."""
        self._reserve_nodes(self._node_count + 1)
        cdef intp_t node_id = self._node_count
        cdef Node* node = &self._nodes[node_id]
        node.threshold = 0.0
        node.impurity = 0.0
        node.improvement = 0.0
        node.weighted_n_node_samples = 0.0
        node.left_child = TREE_LEAF
        node.right_child = TREE_LEAF
        node.feature = TREE_LEAF
        node.n_node_samples = 0
        cdef intp_t k
        for k in range(self.n_values):
            self._values[node_id * self.n_values + k] = 0.0
        self._node_count += 1
        self._starts[self._n_trees] = self._node_count    # the open tree ends here for now
        return node_id

    cdef void sums_to_means(self, intp_t first) noexcept nogil:
        """Node values of the tree starting at node ``first``: its leaves hold
        weighted label sums; every internal node gets the sum of its children's
        (children have larger ids), then every sum is divided by the node's weight."""
        cdef intp_t node, k, m = self.n_values
        cdef Node* nd
        cdef float64_t W
        cdef float64_t* value
        # Children before parents (ids decrease): each internal node's children are done.
        for node in range(self._node_count - 1, first - 1, -1):
            nd = &self._nodes[node]
            value = self._values + node * m
            if nd.left_child != TREE_LEAF:
                for k in range(m):
                    value[k] = self._values[nd.left_child * m + k] + self._values[nd.right_child * m + k]
        for node in range(first, self._node_count):
            W = self._nodes[node].weighted_n_node_samples
            value = self._values + node * m
            for k in range(m):
                value[k] = value[k] / W if W > 0.0 else 0.0

    cdef intp_t leaf_of(self, intp_t tree, const float32_t* X, intp_t row_stride,
                        intp_t col_stride, intp_t row) noexcept nogil:
        """Id of the leaf reached by sample ``row`` of X (any memory layout).

        x[feature] <= threshold goes left; float32 features against float64
        thresholds, as the growers compared them.
        """
        cdef intp_t node_id = self._starts[tree]
        cdef const float32_t* x = X + row * row_stride
        cdef Node* node = &self._nodes[node_id]
        while node.left_child != TREE_LEAF:
            if x[node.feature * col_stride] <= node.threshold:
                node_id = node.left_child
            else:
                node_id = node.right_child
            node = &self._nodes[node_id]
        return node_id

    cdef intp_t leaf_of_row(self, intp_t tree, const Rows* X, intp_t row) noexcept nogil:
        """Id of the leaf reached by row ``row`` of dense or CSR rows.

        CSR: each visited node's feature is looked up in the row (row_value: a
        binary search, 0 when not stored), so a path costs O(depth log nnz_row).
        """
        if not X.csr:
            return self.leaf_of(tree, X.dense, X.row_stride, X.col_stride, row)
        cdef intp_t node_id = self._starts[tree]
        cdef Node* node = &self._nodes[node_id]
        while node.left_child != TREE_LEAF:
            if row_value(X, row, node.feature) <= node.threshold:
                node_id = node.left_child
            else:
                node_id = node.right_child
            node = &self._nodes[node_id]
        return node_id

    cdef intp_t _walk(self, intp_t tree, const Rows* X, intp_t row, int32_t* out) noexcept nogil:
        """Length of the root-to-leaf path of sample ``row``; its node ids go to ``out`` unless NULL."""
        cdef intp_t node_id = self._starts[tree]
        cdef Node* node = &self._nodes[node_id]
        cdef intp_t length = 0
        while True:
            if out != NULL:
                out[length] = <int32_t> node_id
            length += 1
            if node.left_child == TREE_LEAF:
                return length
            if row_value(X, row, node.feature) <= node.threshold:
                node_id = node.left_child
            else:
                node_id = node.right_child
            node = &self._nodes[node_id]


    # ---------------------------------------------------------------- Python API

    @property
    def n_trees(self):
        """Number of trees in the store."""
        return self._n_trees

    @property
    def node_count(self):
        """Total number of nodes over all trees."""
        return self._node_count

    @property
    def tree_start(self):
        """ndarray of shape (n_trees + 1,): first node id of each tree, then node_count."""
        return np.array(<intp_t[:self._n_trees + 1]> self._starts, dtype=np.intp)

    @property
    def nodes(self):
        """Structured ndarray (NODE_DTYPE) holding a copy of every node."""
        if self._node_count == 0:
            return np.zeros(0, dtype=NODE_DTYPE)
        out = np.empty(self._node_count, dtype=NODE_DTYPE)
        cdef unsigned char[::1] raw = out.view(np.uint8)
        memcpy(&raw[0], self._nodes, self._node_count * sizeof(Node))
        return out

    @property
    def value(self):
        """ndarray of shape (node_count, n_values): a copy of the node values."""
        if self._node_count == 0:
            return np.zeros((0, self.n_values))
        return np.array(<float64_t[:self._node_count, :self.n_values]> self._values)

    def set_value(self, values):
        """Overwrite every node's value vector (values: node_count x n_values).

        For relabelling in Python (a forest's leaves over observed targets);
        the structure of the trees does not change.
        """
        cdef const float64_t[:, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
        if v.shape[0] != self._node_count or v.shape[1] != self.n_values:
            raise ValueError(f"values must have shape ({self._node_count}, {self.n_values}), "
                             f"got ({v.shape[0]}, {v.shape[1]})")
        if self._node_count:
            memcpy(self._values, &v[0, 0], self._node_count * self.n_values * sizeof(float64_t))

    def tree_nodes(self, intp_t tree):
        """Nodes of one tree, with child ids made local to that tree."""
        if not 0 <= tree < self._n_trees:
            raise ValueError(f"tree must be in [0, {self._n_trees}), got {tree}")
        start, stop = self._starts[tree], self._starts[tree + 1]
        nodes = self.nodes[start:stop].copy()
        for name in ("left_child", "right_child"):
            col = nodes[name]
            col[col != TREE_LEAF] -= start
        return nodes, self.value[start:stop]

    def apply(self, X):
        """Leaf id (global node id) reached by every row of X in every tree.

        X : dense array or scipy sparse matrix (traversed without densifying).
        Returns an int32 ndarray of shape (n_samples, n_trees).
        """
        cdef RowMatrix rows = X if isinstance(X, RowMatrix) else RowMatrix(X)
        cdef intp_t n = rows.n_rows
        out = np.empty((n, self._n_trees), dtype=np.int32)
        cdef int32_t[:, ::1] leaves = out
        cdef intp_t i, k
        if n == 0 or self._n_trees == 0:
            return out
        with nogil:
            for i in range(n):
                for k in range(self._n_trees):
                    leaves[i, k] = <int32_t> self.leaf_of_row(k, &rows.rows, i)
        return out

    def decision_path(self, X):
        """Every node on the path of every row of X, in every tree: CSR parts.

        Returns ``(indptr, indices)``: int64 ``indptr`` of length n_samples + 1
        and int32 ``indices``; row i's node ids (global to the store) are
        ``indices[indptr[i]:indptr[i + 1]]``, tree after tree, each path from
        the root down to the leaf. With all-ones data this is the matrix of the
        node indicator functions 1_{m,l}(x) of thesis eq. 7.1 (one column per
        node): ``scipy.sparse.csr_matrix((ones, indices, indptr),
        shape=(n_samples, node_count))``.
        """
        if not sparse.issparse(X) and not isinstance(X, RowMatrix):
            X = np.asarray(X, dtype=np.float32)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
        cdef RowMatrix rows = X if isinstance(X, RowMatrix) else RowMatrix(X)
        cdef intp_t n = rows.n_rows
        indptr = np.zeros(n + 1, dtype=np.int64)
        cdef int64_t[::1] ptr = indptr
        if n == 0 or self._n_trees == 0:
            return indptr, np.zeros(0, dtype=np.int32)
        cdef intp_t i, k, pos
        # Two passes over the same paths: count, then fill (no growable buffer).
        with nogil:
            for i in range(n):
                ptr[i + 1] = ptr[i]
                for k in range(self._n_trees):
                    ptr[i + 1] += self._walk(k, &rows.rows, i, NULL)
        indices = np.empty(ptr[n], dtype=np.int32)
        cdef int32_t[::1] out = indices
        with nogil:
            for i in range(n):
                pos = ptr[i]
                for k in range(self._n_trees):
                    pos += self._walk(k, &rows.rows, i, &out[pos])
        return indptr, indices

    def predict(self, X, tree):
        """Value vector of the leaf reached by every row of X in one tree.

        Returns a float64 ndarray of shape (n_samples, n_values): what that
        tree alone predicts, before any learning rate, rho or averaging of
        the ensemble that owns the store.
        """
        if isinstance(tree, (bool, np.bool_)) or not isinstance(tree, (int, np.integer)):
            raise TypeError(f"tree must be an integer, got {type(tree).__name__}")
        if not 0 <= tree < self._n_trees:
            raise ValueError(f"tree must be in [0, {self._n_trees}), got {tree}")
        if not sparse.issparse(X):
            X = np.asarray(X, dtype=np.float32)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s)")
        cdef RowMatrix rows = RowMatrix(X)
        cdef intp_t n = rows.n_rows, m = self.n_values, t = tree
        out = np.empty((n, m), dtype=np.float64)
        if n == 0:
            return out
        cdef float64_t[:, ::1] values = out
        cdef intp_t i, k, leaf
        with nogil:
            for i in range(n):
                leaf = self.leaf_of_row(t, &rows.rows, i)
                for k in range(m):
                    values[i, k] = self._values[leaf * m + k]
        return out

    # ---------------------------------------------------------------- pickling

    def __reduce__(self):
        """Pickle as (TreeStore(n_values), state): the nodes, values and tree starts as arrays."""
        return (TreeStore, (self.n_values,), self.__getstate__())

    def __getstate__(self):
        return {"nodes": self.nodes, "values": self.value, "tree_start": self.tree_start}

    def __setstate__(self, state):
        """Refill an empty store from __getstate__'s arrays, after checking they agree."""
        nodes = np.ascontiguousarray(state["nodes"], dtype=NODE_DTYPE)
        values = np.ascontiguousarray(state["values"], dtype=np.float64)
        tree_start = np.asarray(state["tree_start"], dtype=np.intp)
        cdef intp_t n_nodes = nodes.shape[0]
        if values.shape != (n_nodes, self.n_values):
            raise ValueError("TreeStore state: values do not match the nodes")
        if tree_start.shape[0] < 1 or tree_start[0] != 0 or tree_start[-1] != n_nodes:
            raise ValueError("TreeStore state: inconsistent tree_start")
        self._reserve_nodes(max(n_nodes, 1))
        cdef const unsigned char[::1] raw = nodes.view(np.uint8)
        cdef const float64_t[:, ::1] vals = values
        if self._node_count != 0:
            raise ValueError("TreeStore state can only be set on an empty store")
        if n_nodes > 0:
            memcpy(self._nodes, &raw[0], n_nodes * sizeof(Node))
            memcpy(self._values, &vals[0, 0], n_nodes * self.n_values * sizeof(float64_t))
        self._node_count = n_nodes
        cdef intp_t k
        for k in range(tree_start.shape[0] - 1):
            self.begin_tree()
            self._starts[self._n_trees] = tree_start[k + 1]
        self._starts[0] = 0
