# The histogram grower's frontier: a max-heap of nodes keyed on the SSE
# decrease of their best split (best-first growth). Inline functions on a
# growable array, so the grower module stays about growth.
from libc.stdlib cimport realloc

from engine._core.typedefs cimport intp_t
from engine._core.hist_grower cimport HistNode


cdef inline int heap_push(HistNode** heap, intp_t* size, intp_t* capacity,
                          HistNode* rec) except -1 nogil:
    cdef HistNode* grown
    cdef intp_t i, parent
    if size[0] == capacity[0]:
        grown = <HistNode*> realloc(heap[0], 2 * capacity[0] * sizeof(HistNode))
        if grown == NULL:
            with gil:
                raise MemoryError()
        heap[0] = grown
        capacity[0] *= 2
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


cdef inline HistNode heap_pop(HistNode* heap, intp_t* size) noexcept nogil:
    cdef HistNode top = heap[0]
    cdef HistNode last
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
