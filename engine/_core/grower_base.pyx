"""Best-first growth of one tree, written once for both growers.

Two growers derive from :class:`Grower`: :class:`~engine._core.grower.TreeGrower`
(exact split search on presorted dense features) and
:class:`~engine._core.hist_grower.HistGrower` (histograms of binned features,
dense or sparse). Both grow best-first into a :class:`TreeStore` with node
thresholds in the original feature units, so prediction does not depend on
which one grew a tree; the boosting loop and the forests call ``grow``.

The skeleton (``grow``, here). Best-first, as Friedman's and scikit-learn's
best-first builders: every node whose best split is known waits in the
frontier (frontier.pxd), a max-heap keyed by that split's SSE decrease; the
best node is split, its two children are opened, until ``max_leaf_nodes``
leaves exist. Opening a node adds it to the store, and searches its best
split only when growth may split it later (the leaf budget, min_samples_split,
2 min_samples_leaf, max_depth), so a stump costs one split search. A split
node's feature, threshold, improvement and impurity are written to the store
here too; nodes never split go to the leaf list, which the grower labels.

The per-node operations are virtual ``cdef`` methods each grower supplies
(one call per tree or per node, never per sample):

* ``_reset``: set up the tree's in-bag samples; return how many;
* ``_open_root``: the root's weight (and the histogram grower's root histogram);
* ``_node_sse``: the node's weight, mean and weighted SSE (a node whose SSE
  is 0 up to rounding stays a leaf);
* ``_search_split``: the node's best split, filling ``rec.split`` and
  ``rec.improvement``; 0 when it stays a leaf;
* ``_split_node``: apply the parent's split to the samples (partition) and
  prepare the children (the histogram grower: their histograms);
* ``_add_leaf`` (extended by the histogram grower to give back a histogram);
* ``_finish``: label every node with its weighted label mean.
"""
import numpy as np

from libc.stdlib cimport malloc, free

from engine._core.typedefs cimport float64_t, intp_t, int32_t, uint64_t
from engine._core.tree_store cimport TreeStore
from engine._core.frontier cimport NodeRecord, frontier_pop, frontier_push, leaves_append

cdef float64_t EPSILON = 2.220446049250313e-16



cdef class Grower:
    """Base class: ``grow`` one tree best-first; ``training_leaves`` routes every training sample."""

    def __cinit__(self, *args, **kwargs):
        self.frontier_capacity = 64
        self.frontier = <NodeRecord*> malloc(self.frontier_capacity * sizeof(NodeRecord))
        self.leaves_capacity = 64
        self.leaves = <NodeRecord*> malloc(self.leaves_capacity * sizeof(NodeRecord))
        if self.frontier == NULL or self.leaves == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.frontier)
        free(self.leaves)

    def _set_limits(self, intp_t max_leaf_nodes, intp_t max_depth, intp_t min_samples_leaf,
                    intp_t min_samples_split, intp_t max_features, bint random_splits,
                    bint leaf_impurity):
        """Store the growth parameters (n_features set first: max_features <= 0 means all)."""
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = max(min_samples_leaf, 1)
        self.min_samples_split = max(min_samples_split, 2)
        if max_features <= 0 or max_features > self.n_features:
            max_features = self.n_features
        self.max_features = max_features
        self.random_splits = random_splits
        self.leaf_impurity = leaf_impurity

    # ------------------------------------------------------------ the skeleton

    cdef int grow(self, TreeStore store, const float64_t* targets, intp_t n_targets,
                  const float64_t* labels, const float64_t* weights,
                  uint64_t* rng_state) except -1 nogil:
        """Grow one tree on ``targets`` and label its nodes with means of ``labels``.

        targets : n_samples x n_targets, row-major. The split criterion sees only these.
        labels : n_samples x store.n_values, row-major (may be ``targets`` itself).
        weights : n_samples; samples with weight 0 are left out (out-of-bag).

        Afterwards ``sample_leaf[i]`` is the leaf of every in-bag sample i.
        """
        cdef intp_t t = n_targets
        cdef intp_t n_in = self._reset(weights, t)
        cdef intp_t leaf_count = 1
        cdef NodeRecord root, parent, left, right
        cdef bint children_may_split
        cdef bint root_may_split = self.max_leaf_nodes <= 0 or self.max_leaf_nodes > 1
        self.frontier_size = 0
        self.n_leaves = 0
        store.begin_tree()
        root.node_id = store._node_count
        root.start = 0
        root.end = n_in
        root.depth = 0
        root.range_feature = 0
        root.hist = -1
        root.sums = NULL
        root.weight = 0.0
        self._open_root(&root, targets, t, weights, root_may_split)
        self._open_node(store, &root, targets, t, weights, rng_state, root_may_split)
        # Best-first: split the queued node of largest SSE decrease; each split
        # turns one leaf into two.
        while self.frontier_size > 0:
            if self.max_leaf_nodes > 0 and leaf_count >= self.max_leaf_nodes:
                break
            parent = frontier_pop(self.frontier, &self.frontier_size)
            leaf_count += 1
            # At the leaf budget the children will never be split: they need
            # neither a split search nor its preparations (sorted rows, histograms).
            children_may_split = self.max_leaf_nodes <= 0 or leaf_count < self.max_leaf_nodes
            # Children are ranges of the parent's range: left first, then right.
            left.node_id = store._node_count
            right.node_id = left.node_id + 1
            left.start = parent.start
            left.end = parent.start + parent.split.n_left
            right.start = left.end
            right.end = parent.end
            left.depth = right.depth = parent.depth + 1
            left.range_feature = right.range_feature = 0
            left.weight = parent.split.weight_left
            right.weight = parent.weight - parent.split.weight_left
            left.hist = right.hist = -1
            left.sums = right.sums = NULL
            self._split_node(store, &parent, &left, &right, targets, t, weights,
                             children_may_split)
            self._open_node(store, &left, targets, t, weights, rng_state, children_may_split)
            self._open_node(store, &right, targets, t, weights, rng_state, children_may_split)
            self._write_split(store, &parent, &left, &right)
        # Nodes still queued (leaf budget reached) stay leaves.
        while self.frontier_size > 0:
            parent = frontier_pop(self.frontier, &self.frontier_size)
            self._add_leaf(&parent)
        self._finish(store, targets, t, labels, weights)
        return 0

    cdef int _open_node(self, TreeStore store, NodeRecord* rec, const float64_t* targets,
                        intp_t t, const float64_t* weights, uint64_t* rng_state,
                        bint may_split) except -1 nogil:
        """Add a node to the store, and queue it on the frontier if it can be split.

        A node stays a leaf (leaf list) when growth may not split it (leaf
        budget, min_samples_split, 2 min_samples_leaf, max_depth), when its
        targets are constant (SSE <= eps t W: no split can lower it) or when
        no feature has a valid threshold; otherwise its best split is searched
        now, so the frontier can order it by that split's SSE decrease.
        """
        cdef intp_t node_id = store.add_node()
        if node_id != rec.node_id:
            with gil:
                raise RuntimeError("Grower: node ids out of order")
        store._nodes[node_id].n_node_samples = <int32_t> (rec.end - rec.start)
        store._nodes[node_id].weighted_n_node_samples = rec.weight
        rec.sse = -1.0
        rec.improvement = 0.0
        if not may_split or not self._may_split(rec):
            return self._add_leaf(rec)
        rec.sse = self._node_sse(rec, targets, t, weights)
        # Constant targets (up to rounding): no split can lower the SSE.
        if rec.sse <= EPSILON * t * rec.weight:
            return self._add_leaf(rec)
        if self._search_split(rec, targets, t, weights, rng_state):
            return self._push(rec)
        return self._add_leaf(rec)

    cdef bint _may_split(self, NodeRecord* rec) noexcept nogil:
        """Whether the growth limits allow splitting the node (min_samples_*, max_depth)."""
        cdef intp_t n_node = rec.end - rec.start
        return not (n_node < self.min_samples_split or n_node < 2 * self.min_samples_leaf
                    or (self.max_depth > 0 and rec.depth >= self.max_depth))

    cdef int _push(self, NodeRecord* rec) except -1 nogil:
        """Queue an evaluated node (rec.split, rec.improvement set) for splitting."""
        return frontier_push(&self.frontier, &self.frontier_size, &self.frontier_capacity, rec)

    cdef int _add_leaf(self, NodeRecord* rec) except -1 nogil:
        """Record a node that stays a leaf (labelled by _finish)."""
        return leaves_append(&self.leaves, &self.n_leaves, &self.leaves_capacity, rec)

    cdef void _write_split(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                           NodeRecord* right) noexcept nogil:
        """The parent's split, in the store's node (impurity = SSE / W)."""
        store._nodes[parent.node_id].left_child = <int32_t> left.node_id
        store._nodes[parent.node_id].right_child = <int32_t> right.node_id
        store._nodes[parent.node_id].feature = <int32_t> parent.split.feature
        store._nodes[parent.node_id].threshold = parent.split.threshold
        store._nodes[parent.node_id].improvement = parent.improvement
        store._nodes[parent.node_id].impurity = parent.sse / parent.weight

    # ------------------------------------------------------------ supplied by each grower

    cdef intp_t _reset(self, const float64_t* weights, intp_t t) except -1 nogil:
        """Set up the tree's in-bag (non-zero weight) samples; return how many."""
        with gil:
            raise NotImplementedError("Grower._reset")

    cdef int _open_root(self, NodeRecord* root, const float64_t* targets, intp_t t,
                        const float64_t* weights, bint may_split) except -1 nogil:
        """Fill root.weight, the sum of the in-bag weights, before the root is opened."""
        with gil:
            raise NotImplementedError("Grower._open_root")

    cdef float64_t _node_sse(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                             const float64_t* weights) noexcept nogil:
        """The node's weighted SSE about its mean; sets rec.weight (and the mean
        the split search reads). Abstract: every grower supplies it."""
        return 0.0

    cdef int _search_split(self, NodeRecord* rec, const float64_t* targets, intp_t t,
                           const float64_t* weights, uint64_t* rng_state) except -1 nogil:
        """Search the node's best split: fill rec.split and rec.improvement and
        return 1, or 0 when no feature offers a valid threshold (a leaf)."""
        with gil:
            raise NotImplementedError("Grower._search_split")

    cdef int _split_node(self, TreeStore store, NodeRecord* parent, NodeRecord* left,
                         NodeRecord* right, const float64_t* targets, intp_t t,
                         const float64_t* weights, bint children_may_split) except -1 nogil:
        """Apply parent.split to the samples; left and right hold their ids, ranges,
        depths and weights already."""
        with gil:
            raise NotImplementedError("Grower._split_node")

    cdef int _finish(self, TreeStore store, const float64_t* targets, intp_t t,
                     const float64_t* labels, const float64_t* weights) except -1 nogil:
        """Label the tree's nodes (weighted label means) and leaves; fill sample_leaf."""
        with gil:
            raise NotImplementedError("Grower._finish")

    cdef void training_leaves(self, TreeStore store, int32_t* leaf) noexcept nogil:
        """leaf[i] = leaf of training sample i in the last tree (in-bag or not)."""
        pass

    cdef int row_threads(self) noexcept nogil:
        """Threads the boosting loop may use for its loops over rows (1: serial)."""
        return 1


def grow_tree(Grower grower, TreeStore store, targets, labels=None, sample_weight=None,
              uint64_t seed=0):
    """Grow one tree into ``store`` (for tests, forests and single trees).

    Returns the leaf id of every training sample with a non-zero weight
    (-1 for the others).
    """
    T = np.ascontiguousarray(targets, dtype=np.float64)
    if T.ndim == 1:
        T = T.reshape(-1, 1)
    L = T if labels is None else np.ascontiguousarray(labels, dtype=np.float64)
    if L.ndim == 1:
        L = L.reshape(-1, 1)
    n = grower.n_samples
    w = (np.ones(n) if sample_weight is None
         else np.ascontiguousarray(sample_weight, dtype=np.float64))
    if T.shape[0] != n or L.shape[0] != n or w.shape != (n,):
        raise ValueError("targets, labels and sample_weight must have one row per sample")
    if T.shape[1] > grower.max_targets:
        raise ValueError(f"the grower was sized for {grower.max_targets} targets, got {T.shape[1]}")
    if L.shape[1] != store.n_values:
        raise ValueError(f"labels must have {store.n_values} columns, got {L.shape[1]}")
    cdef const float64_t[:, ::1] Tv = T
    cdef const float64_t[:, ::1] Lv = L
    cdef const float64_t[::1] wv = w
    cdef uint64_t state = seed
    cdef intp_t t = T.shape[1]
    with nogil:
        grower.grow(store, &Tv[0, 0], t, &Lv[0, 0], &wv[0], &state)
    return np.asarray(grower.sample_leaf).copy()
