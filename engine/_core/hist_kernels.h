/* Hot loops of the histogram split search (engine/_core/histogram.pyx).
 *
 * A histogram holds, for every bin of every feature, one cell of `stride`
 * doubles: the (weighted) sums of the t split targets, then the sum of the
 * weights, then (weighted fits only) the number of samples: stride = t + 1
 * with unit weights (the weight sum is the count), t + 2 otherwise. The
 * count is always the cell's last slot.
 *
 * engine_hist_dense: adds a node's samples to the cells of the dense
 *     features in columns [c0, c1) of the row-major code matrix. Rows outer,
 *     features inner: a sample's target row is read once per block of
 *     features and stays in registers while it is added to every feature's
 *     cell (the block is chosen so its histograms stay in cache).
 * engine_hist_sparse: adds the entries of one sparse feature whose sample is
 *     in the node (node_of[row] == node; node < 0 takes every entry).
 * engine_hist_best: the best boundary of one feature's histogram.
 *
 * Every loop runs in a fixed order, so a histogram does not depend on the
 * number of threads that built the others. The general-t loops are compiled
 * twice (AVX2 and baseline x86-64) and picked at load time by GCC's
 * target_clones where available; the build needs no -march flag.
 */
#ifndef ENGINE_HIST_KERNELS_H
#define ENGINE_HIST_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#if defined(__GNUC__)
#  define ENGINE_INLINE static inline __attribute__((always_inline))
#else
#  define ENGINE_INLINE static inline
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#  define ENGINE_CLONES
#endif

/* Cells wider than two doubles are padded to a multiple of four (32 bytes),
 * start on 32-byte boundaries (buffers from engine_hist_alloc) and are added
 * four doubles at a time. */
#if defined(__GNUC__)
typedef double engine_v4d __attribute__((vector_size(32)));
#define ENGINE_HAVE_V4D 1
#else
#define ENGINE_HAVE_V4D 0
#endif

/* Doubles per cell for t split targets: (S_1..S_t, W) with unit weights (the
 * weight sum is then the count), (S_1..S_t, W, count) otherwise, padded to a
 * multiple of four beyond two. */
static ptrdiff_t engine_cell_stride(ptrdiff_t t, int unit_weights)
{
    ptrdiff_t width = unit_weights ? t + 1 : t + 2;
    if (width == 2) return 2;
    return (width + 3) & ~(ptrdiff_t)3;
}

/* A histogram buffer on a 64-byte (cache line) boundary; NULL when out of memory. */
static double *engine_hist_alloc(ptrdiff_t n_doubles)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)(n_doubles > 0 ? n_doubles : 1) * sizeof(double)) != 0)
        return NULL;
    return (double *)p;
}

/* The cell a sample adds: its targets (times its weight), then its weight,
 * then (weighted) 1 for the count, then zeros up to the stride. */
ENGINE_INLINE void engine_sample_cell(double *v, const double *targets, ptrdiff_t i, ptrdiff_t t,
                                      const double *weights, ptrdiff_t stride)
{
    ptrdiff_t k;
    const double *g = targets + i * t;
    if (weights == NULL) {
        for (k = 0; k < t; k++) v[k] = g[k];
        v[t] = 1.0;
        k = t + 1;
    } else {
        const double w = weights[i];
        for (k = 0; k < t; k++) v[k] = w * g[k];
        v[t] = w;
        v[t + 1] = 1.0;
        k = t + 2;
    }
    for (; k < stride; k++) v[k] = 0.0;
}

#if ENGINE_HAVE_V4D
/* Dense kernel for cells of NC vectors: the sample's cell stays in NC registers
 * while it is added to each feature of the block. */
#define ENGINE_DENSE_NC(NC)                                                              \
ENGINE_CLONES                                                                            \
static void engine_hist_dense_##NC(const uint8_t *codes, ptrdiff_t code_stride, ptrdiff_t c0,  \
        ptrdiff_t c1, const int32_t *samples, ptrdiff_t n_rows, const double *targets,   \
        ptrdiff_t t, const double *weights, const ptrdiff_t *col_offset, double *hist)   \
{                                                                                        \
    ptrdiff_t r, c;                                                                      \
    int q;                                                                               \
    engine_v4d v[NC];                                                                    \
    for (r = 0; r < n_rows; r++) {                                                       \
        const ptrdiff_t i = samples[r];                                                  \
        const uint8_t *row = codes + i;                                                  \
        engine_sample_cell((double *)v, targets, i, t, weights, 4 * NC);                 \
        for (c = c0; c < c1; c++) {                                                      \
            engine_v4d *h = (engine_v4d *)(hist + col_offset[c] + (ptrdiff_t)row[c * code_stride] * (4 * NC)); \
            for (q = 0; q < NC; q++) h[q] += v[q];                                       \
        }                                                                                \
    }                                                                                    \
}
ENGINE_DENSE_NC(1)
ENGINE_DENSE_NC(2)
ENGINE_DENSE_NC(3)
ENGINE_DENSE_NC(4)
ENGINE_DENSE_NC(5)
ENGINE_DENSE_NC(6)
ENGINE_DENSE_NC(7)
ENGINE_DENSE_NC(8)
#endif

/* engine_hist_dense_NC for any stride (cells wider than 8 vectors, or no
 * vector extension): the sample's cell in a stack array. */
ENGINE_CLONES
static void engine_hist_dense_any(const uint8_t *codes, ptrdiff_t code_stride, ptrdiff_t c0, ptrdiff_t c1,
                                  const int32_t *samples, ptrdiff_t n_rows,
                                  const double *targets, ptrdiff_t t, const double *weights,
                                  const ptrdiff_t *col_offset, ptrdiff_t stride, double *hist)
{
    ptrdiff_t r, c, k;
    double v[stride];
    for (r = 0; r < n_rows; r++) {
        const ptrdiff_t i = samples[r];
        const uint8_t *row = codes + i;
        engine_sample_cell(v, targets, i, t, weights, stride);
        for (c = c0; c < c1; c++) {
            double *h = hist + col_offset[c] + (ptrdiff_t)row[c * code_stride] * stride;
            for (k = 0; k < stride; k++) h[k] += v[k];
        }
    }
}

/* The cells of the dense columns [c0, c1) from the node's samples: for every
 * sample i, its cell (w_i y_i, w_i, 1) is added to the cell of its bin
 * codes[c * code_stride + i] in each column c (cells at col_offset[c]). The
 * samples are visited in order, so the sums do not depend on threads; the
 * kernel is picked by cell width so the cell stays in registers. */
static void engine_hist_dense(const uint8_t *codes, ptrdiff_t code_stride, ptrdiff_t c0, ptrdiff_t c1,
                              const int32_t *samples, ptrdiff_t n_rows,
                              const double *targets, ptrdiff_t t, const double *weights,
                              const ptrdiff_t *col_offset, ptrdiff_t stride, double *hist)
{
    ptrdiff_t r, c;
    if (stride == 2) {              /* one target, unit weights: (g, 1) per sample */
        for (r = 0; r < n_rows; r++) {
            const ptrdiff_t i = samples[r];
            const uint8_t *row = codes + i;
            const double g = targets[i];
            for (c = c0; c < c1; c++) {
                double *h = hist + col_offset[c] + 2 * (ptrdiff_t)row[c * code_stride];
                h[0] += g;
                h[1] += 1.0;
            }
        }
        return;
    }
#if ENGINE_HAVE_V4D
    switch (stride / 4) {
    case 1: engine_hist_dense_1(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 2: engine_hist_dense_2(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 3: engine_hist_dense_3(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 4: engine_hist_dense_4(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 5: engine_hist_dense_5(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 6: engine_hist_dense_6(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 7: engine_hist_dense_7(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    case 8: engine_hist_dense_8(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights, col_offset, hist); return;
    default: break;
    }
#endif
    engine_hist_dense_any(codes, code_stride, c0, c1, samples, n_rows, targets, t, weights,
                          col_offset, stride, hist);
}

/* The non-zero bins of one sparse feature: each stored entry (rows[e],
 * codes[e]) whose row is in the node (node < 0: every row, the root) adds the
 * row's cell to its bin. The zero bin is filled by the caller, by difference. */
ENGINE_CLONES
static void engine_hist_sparse(const int32_t *rows, const int32_t *codes, ptrdiff_t n_entries,
                               const int32_t *node_of, int32_t node,
                               const double *targets, ptrdiff_t t, const double *weights,
                               ptrdiff_t stride, double *hist)
{
    ptrdiff_t e, k;
    double v[stride];
    for (e = 0; e < n_entries; e++) {
        const ptrdiff_t i = rows[e];
        if (node >= 0 && node_of[i] != node) continue;
        double *h = hist + (ptrdiff_t)codes[e] * stride;
        engine_sample_cell(v, targets, i, t, weights, stride);
        for (k = 0; k < stride; k++) h[k] += v[k];
    }
}

/* The non-zero bins of every sparse feature at once, row by row: each of the
 * node's samples (in index order) adds its cell to the bins of its stored
 * entries (row_bins[row_start[i] .. row_start[i + 1]): absolute bin numbers).
 * Every bin receives its samples in index order, as from engine_hist_sparse,
 * so the sums are the same to the bit; but a sample's cell is built once for
 * all its entries, only the node's own entries are read, and neighbouring
 * entries add to different cells (engine_hist_sparse on a binary feature adds
 * every entry to one cell: a chain of dependent additions through memory). */
ENGINE_CLONES
static void engine_hist_sparse_rows(const ptrdiff_t *row_start, const int32_t *row_bins,
                                    const int32_t *samples, ptrdiff_t n_rows,
                                    const double *targets, ptrdiff_t t, const double *weights,
                                    ptrdiff_t stride, double *hist)
{
    ptrdiff_t r, e, k;
    if (stride == 2) {              /* one target, unit weights: (g, 1) per sample */
        for (r = 0; r < n_rows; r++) {
            const ptrdiff_t i = samples[r];
            const double g = targets[i];
            const ptrdiff_t end = row_start[i + 1];
            for (e = row_start[i]; e < end; e++) {
                double *h = hist + 2 * (ptrdiff_t)row_bins[e];
                h[0] += g;
                h[1] += 1.0;
            }
        }
        return;
    }
    double v[stride];
    for (r = 0; r < n_rows; r++) {
        const ptrdiff_t i = samples[r];
        const ptrdiff_t end = row_start[i + 1];
        engine_sample_cell(v, targets, i, t, weights, stride);
        for (e = row_start[i]; e < end; e++) {
            double *h = hist + (ptrdiff_t)row_bins[e] * stride;
            for (k = 0; k < stride; k++) h[k] += v[k];
        }
    }
}

/* out = a - b over n doubles (out may be a). */
ENGINE_CLONES
static void engine_hist_subtract(double *out, const double *a, const double *b, ptrdiff_t n)
{
    ptrdiff_t k;
    for (k = 0; k < n; k++) out[k] = a[k] - b[k];
}

/* Best boundary of one feature: the bin b maximising
 *     gain = |S_l - W_l m|^2 / (W_l (W - W_l))
 * over the boundaries after a non-empty bin b that leave at least msl samples
 * on each side (the left side holds bins 0..b). Ties go to the lowest b.
 * Returns b, or -1 when no boundary beats *best_gain (which it updates).
 * count_slot: t with unit weights (the weight sum is the count), t + 1 otherwise.
 * left: scratch of t doubles. */
ENGINE_CLONES
static ptrdiff_t engine_hist_best(const double *h, ptrdiff_t n_bins, ptrdiff_t stride, ptrdiff_t t,
                                  ptrdiff_t count_slot, const double *mean, double W,
                                  double n_node, double msl, double *left,
                                  double *best_gain, double *w_left, double *n_left)
{
    /* The running sums and the best so far live in locals (one target: all of
     * them), written back once: stored on every bin they would make the scans
     * of neighbouring candidates on other threads share cache lines. */
    ptrdiff_t b, k, best = -1;
    double wl = 0.0, cl = 0.0, bg = *best_gain, bw = 0.0, bc = 0.0;
    const double m0 = mean[0];
    double l0 = 0.0;
    for (k = 0; k < t; k++) left[k] = 0.0;
    for (b = 0; b < n_bins - 1; b++) {
        const double *cell = h + b * stride;
        const double c = cell[count_slot];
        /* An empty bin's boundary gives the same partition as the previous one. */
        if (c == 0.0) continue;
        if (t == 1)
            l0 += cell[0];
        else
            for (k = 0; k < t; k++) left[k] += cell[k];
        wl += cell[t];
        cl += c;
        /* min_samples_leaf: the left side is still too small, or from here on
         * the right side is. */
        if (cl < msl) continue;
        if (n_node - cl < msl) break;
        const double wr = W - wl;
        if (!(wr > 0.0) || !(wl > 0.0)) continue;
        double sq = 0.0;
        if (t == 1) {
            const double d = l0 - wl * m0;
            sq += d * d;
        } else {
            for (k = 0; k < t; k++) {
                const double d = left[k] - wl * mean[k];
                sq += d * d;
            }
        }
        const double gain = sq / (wl * wr);
        if (gain > bg) {                /* strictly better: ties keep the lower bin */
            bg = gain;
            bw = wl;
            bc = cl;
            best = b;
        }
    }
    if (best >= 0) {
        *best_gain = bg;
        *w_left = bw;
        *n_left = bc;
    }
    return best;
}

/* Gain of the boundary after bin `at` (random splits); -1 when it leaves fewer
 * than msl samples on a side, else `at` with *gain, *w_left, *n_left set. */
static ptrdiff_t engine_hist_gain_at(const double *h, ptrdiff_t at, ptrdiff_t stride, ptrdiff_t t,
                                     ptrdiff_t count_slot, const double *mean, double W,
                                     double n_node, double msl, double *left,
                                     double *gain, double *w_left, double *n_left)
{
    ptrdiff_t b, k;
    double wl = 0.0, cl = 0.0, sq = 0.0;
    for (k = 0; k < t; k++) left[k] = 0.0;
    for (b = 0; b <= at; b++) {
        const double *cell = h + b * stride;
        if (cell[count_slot] == 0.0) continue;
        for (k = 0; k < t; k++) left[k] += cell[k];
        wl += cell[t];
        cl += cell[count_slot];
    }
    if (cl < msl || n_node - cl < msl || !(wl > 0.0) || !(W - wl > 0.0)) return -1;
    for (k = 0; k < t; k++) {
        const double d = left[k] - wl * mean[k];
        sq += d * d;
    }
    *gain = sq / (wl * (W - wl));
    *w_left = wl;
    *n_left = cl;
    return at;
}

#endif
