# Best-first growth's frontier and leaf list, and the node record both growers
# keep in them (the loop that uses them is Grower.grow, grower_base.pyx).
#
# A tree grows best-first, as Friedman's and scikit-learn's best-first
# builders (BestFirstTreeBuilder in sklearn/tree/_tree.pyx): every node whose
# best split has been found waits in the *frontier*, a binary max-heap keyed
# on that split's SSE decrease (the record's ``improvement``). The grower pops
# the best node, splits it and opens its two children, until max_leaf_nodes
# leaves exist or the frontier is empty. A node that is not split is appended
# to the *leaf list*, which the grower's _finish walks to label the leaves.
#
# One record type serves both growers (a few fields are one grower's: the
# exact grower's presorted range_feature and threshold, the histogram
# grower's hist, sums and bin), so one heap, hence the same order of nodes in
# both. Between nodes of equal improvement the order is the heap's (a push
# stops below a parent of equal improvement; a pop moves the right child up
# only when it is strictly better), not the order of insertion. It decides
# which of two equally good nodes is split first (and, at the leaf budget,
# which one is split at all), so it must not change.
#
# Arrays are malloc'ed by Grower (64 records) and doubled here when full.
# This file depends on no grower (the growers cimport it).
from libc.stdlib cimport realloc

from engine._core.typedefs cimport float64_t, intp_t


cdef struct SplitRecord:
    intp_t feature            # split feature
    intp_t n_left             # samples going left (the first n_left of the node's range)
    intp_t bin                # histogram grower: go left when the feature's code <= bin
    float64_t threshold       # go left when x <= threshold (the histogram grower: bin's boundary)
    float64_t gain            # |S_left - W_left m|^2 / (W_left W_right); SSE decrease / W
    float64_t weight_left     # sum of weights going left


cdef struct NodeRecord:
    intp_t node_id            # id in the TreeStore
    intp_t start              # the node's samples are a range [start, end) of the grower's order
    intp_t end
    intp_t depth
    intp_t range_feature      # exact grower: a feature whose idx row holds the node's samples contiguously
    intp_t hist               # histogram grower: a pool slot, a scratch buffer (>= pool_limit) or -1
    float64_t weight          # sum of weights in the node
    float64_t sse             # weighted sum of squared errors of the split targets, -1 if unknown
    float64_t improvement     # sse decrease of the best split (the frontier's priority)
    const float64_t* sums     # histogram grower: its totals when just built (HistGrower._build), else NULL
    SplitRecord split


# ---------------------------------------------------------------- the frontier and the leaf list

cdef inline int _make_room(NodeRecord** array, intp_t size, intp_t* capacity) except -1 nogil:
    """Double the array's capacity when it holds ``size`` == capacity records."""
    cdef NodeRecord* grown
    if size < capacity[0]:
        return 0
    grown = <NodeRecord*> realloc(array[0], 2 * capacity[0] * sizeof(NodeRecord))
    if grown == NULL:
        with gil:
            raise MemoryError()
    array[0] = grown
    capacity[0] *= 2
    return 0


cdef inline int frontier_push(NodeRecord** heap, intp_t* size, intp_t* capacity,
                              NodeRecord* rec) except -1 nogil:
    """Insert a copy of ``rec`` into the max-heap heap[:size] (sift up)."""
    cdef intp_t i, parent
    _make_room(heap, size[0], capacity)
    i = size[0]
    size[0] += 1
    while i > 0:
        parent = (i - 1) // 2
        if heap[0][parent].improvement >= rec.improvement:
            break
        heap[0][i] = heap[0][parent]
        i = parent
    heap[0][i] = rec[0]
    return 0


cdef inline NodeRecord frontier_pop(NodeRecord* heap, intp_t* size) noexcept nogil:
    """Remove and return the record of largest improvement (size > 0; sift down)."""
    cdef NodeRecord top = heap[0]
    cdef NodeRecord last
    cdef intp_t i = 0, child
    size[0] -= 1
    if size[0] > 0:
        last = heap[size[0]]
        while True:
            child = 2 * i + 1
            if child >= size[0]:
                break
            if child + 1 < size[0] and heap[child + 1].improvement > heap[child].improvement:
                child += 1
            if last.improvement >= heap[child].improvement:
                break
            heap[i] = heap[child]
            i = child
        heap[i] = last
    return top


cdef inline int leaves_append(NodeRecord** leaves, intp_t* n_leaves, intp_t* capacity,
                              NodeRecord* rec) except -1 nogil:
    """Append a copy of ``rec`` to the leaf list leaves[:n_leaves]."""
    _make_room(leaves, n_leaves[0], capacity)
    leaves[0][n_leaves[0]] = rec[0]
    n_leaves[0] += 1
    return 0
