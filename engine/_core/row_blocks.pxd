# Deterministic parallel loops over rows (split_targets.pyx, leaves.pyx, updates.pyx; the
# histogram grower's hist_sums.pyx, binned_samples.pyx and hist_grower.pyx).
#
# A loop over rows that sums something (a loss, a node's target totals) runs
# in fixed blocks of ROW_BLOCK consecutive rows: each block sums its rows in
# order, from 0, and the block sums are then added in block order. The blocks
# do not depend on the number of threads, so neither does the result; and a
# loop over at most ROW_BLOCK rows is one block, summed exactly as a plain
# serial loop (the teaching size, n = 300, is unchanged to the last bit).
#
# The blocks go to threads one at a time (OpenMP's dynamic schedule): on a
# busy or virtual machine a thread that is held up leaves its share to the
# others instead of making them wait at the loop's end. Each block keeps its
# partial sums on cache lines of its own (padded_width), as neighbouring
# blocks then often run at the same time.
from engine._core.typedefs cimport intp_t

cdef enum:
    ROW_BLOCK = 4096


cdef inline intp_t n_row_blocks(intp_t n) noexcept nogil:
    """Blocks covering n rows (at least one)."""
    return (n + ROW_BLOCK - 1) // ROW_BLOCK if n > 0 else 1


cdef inline intp_t padded_width(intp_t k) noexcept nogil:
    """Doubles a block keeps for k partial sums: whole 64-byte lines, so that a
    block's running sums never share a cache line with the next block's, which
    another thread may be adding to at the same time."""
    return (k + 7) & ~(<intp_t> 7)


cdef inline intp_t block_end(intp_t b, intp_t start, intp_t end) noexcept nogil:
    """End of block b of the rows [start, end)."""
    cdef intp_t stop = start + (b + 1) * ROW_BLOCK
    return stop if stop < end else end
