/* Hot loops of the exact grower's split search (grower.pyx).
 *
 * engine_left_norms: for the rows of one feature, in sorted order,
 *     sq[r] = |sum_{s <= r} w_s c_s|^2
 * where c_s is sample s's row of centred targets (y_s - m, m the node's mean
 * of the split targets: rows of G or of G Phi^T): the squared norm of the
 * running left sum S_l - W_l m. engine_best_row then ranks the thresholds by
 * gain = sq[r] / (W_l W_r), which times W is the split's SSE decrease (the
 * criterion of grower.pyx's module docstring).
 *
 * Why C: the outputs are handled in blocks of a fixed width, so the running
 * sum of a block lives in vector registers for the whole pass over the rows
 * (the Cython loop over a run-time number of outputs kept it in memory and
 * reloaded it for every row). Several blocks add their squared norms into sq.
 *
 * Runtime dispatch: on x86-64 with GCC or Clang an AVX2 version (intrinsics
 * in functions compiled with target("avx2"), so the build needs no
 * -march flag and stays portable) is used when the CPU has AVX2; it also
 * reduces four rows' norms at once and ranks four thresholds at once; it
 * needs FMA too (every AVX2 CPU has it). The portable version is plain C. The
 * two differ in rounding only: the order of the sum of a row's squared
 * outputs, and FMA. engine_set_simd(0) forces the portable one (tests compare
 * them).
 */
#ifndef ENGINE_SCAN_H
#define ENGINE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_X86_SIMD 1
#  include <immintrin.h>
#else
#  define ENGINE_X86_SIMD 0
#endif

#if defined(__GNUC__)
#  define ENGINE_INLINE static inline __attribute__((always_inline))
#else
#  define ENGINE_INLINE static inline
#endif

/* One block of B outputs starting at column `col`; `first` says whether sq
 * is written (first block) or added to. weights == NULL means unit weights.
 * B is a compile-time constant, so acc[] stays in registers across the rows;
 * the macro stamps out one function per block width. */
#define ENGINE_SCAN_BLOCK(B)                                                       \
ENGINE_INLINE void engine_scan_block_##B(                                          \
        const double *centered, ptrdiff_t stride, ptrdiff_t col,                   \
        const int32_t *samples, const double *weights, ptrdiff_t n_rows,           \
        double *sq, int first)                                                     \
{                                                                                  \
    double acc[B];                                                                 \
    ptrdiff_t r;                                                                   \
    int k;                                                                         \
    for (k = 0; k < B; k++) acc[k] = 0.0;                                          \
    for (r = 0; r < n_rows; r++) {                                                 \
        const int32_t i = samples[r];                                              \
        const double *y = centered + (ptrdiff_t)i * stride + col;                  \
        double s = 0.0;                                                            \
        if (weights == NULL) {                                                     \
            for (k = 0; k < B; k++) acc[k] += y[k];                                \
        } else {                                                                   \
            const double w = weights[i];                                           \
            for (k = 0; k < B; k++) acc[k] += w * y[k];                            \
        }                                                                          \
        for (k = 0; k < B; k++) s += acc[k] * acc[k];                              \
        sq[r] = first ? s : sq[r] + s;                                             \
    }                                                                              \
}

ENGINE_SCAN_BLOCK(16)
ENGINE_SCAN_BLOCK(8)
ENGINE_SCAN_BLOCK(4)
ENGINE_SCAN_BLOCK(2)
ENGINE_SCAN_BLOCK(1)

/* sq[r] for r < n_rows over all t outputs: blocks of 16, then 8, 4, 2, 1. */
static void engine_left_norms_generic(const double *centered, ptrdiff_t stride, ptrdiff_t t,
                              const int32_t *samples, const double *weights,
                              ptrdiff_t n_rows, double *sq)
{
    ptrdiff_t col = 0;
    int first = 1;
    /* The weights == NULL branches call the same kernel with a literal NULL, so
     * the compiler specialises the unit-weight loop (no multiply, no load). */
    while (t - col >= 16) {
        if (weights == NULL)
            engine_scan_block_16(centered, stride, col, samples, NULL, n_rows, sq, first);
        else
            engine_scan_block_16(centered, stride, col, samples, weights, n_rows, sq, first);
        col += 16;
        first = 0;
    }
    if (t - col >= 8) {
        if (weights == NULL)
            engine_scan_block_8(centered, stride, col, samples, NULL, n_rows, sq, first);
        else
            engine_scan_block_8(centered, stride, col, samples, weights, n_rows, sq, first);
        col += 8;
        first = 0;
    }
    if (t - col >= 4) {
        if (weights == NULL)
            engine_scan_block_4(centered, stride, col, samples, NULL, n_rows, sq, first);
        else
            engine_scan_block_4(centered, stride, col, samples, weights, n_rows, sq, first);
        col += 4;
        first = 0;
    }
    if (t - col >= 2) {
        engine_scan_block_2(centered, stride, col, samples, weights, n_rows, sq, first);
        col += 2;
        first = 0;
    }
    if (t - col >= 1) {
        engine_scan_block_1(centered, stride, col, samples, weights, n_rows, sq, first);
    }
}

/* Single target, unit weights: sq[r] = (S_r - (r + 1) m)^2 for r < n_rows,
 * S_r the sum of the first r + 1 targets in the feature's sorted order and m
 * the node mean (the centred left sum of the scalar scan, same operations in
 * the same order). samples_b, when not NULL, is a second feature whose rows
 * go to sq_b: the two running sums are independent chains, so one pass over
 * both keeps the adder busy where one sum alone waits on its own latency.
 * Plain C (no FMA contraction), so every build rounds alike. */
static void engine_single_norms_unit(const double *targets, const int32_t *samples_a,
                                     const int32_t *samples_b, ptrdiff_t n_rows,
                                     double mean, double *sq_a, double *sq_b)
{
    double sum_a = 0.0, sum_b = 0.0, k = 1.0, ca, cb;
    ptrdiff_t r;
    if (samples_b == NULL) {
        for (r = 0; r < n_rows; r++, k += 1.0) {
            sum_a += targets[samples_a[r]];
            ca = sum_a - k * mean;
            sq_a[r] = ca * ca;
        }
        return;
    }
    for (r = 0; r < n_rows; r++, k += 1.0) {
        sum_a += targets[samples_a[r]];
        sum_b += targets[samples_b[r]];
        ca = sum_a - k * mean;
        cb = sum_b - k * mean;
        sq_a[r] = ca * ca;
        sq_b[r] = cb * cb;
    }
}

/* The row r in [lo, hi) with the largest gain above *best_gain, or -1.
 * A row ends a left child of r + 1 rows; it is a candidate only when the
 * next sorted value is more than `gap` above its own. Unit weights:
 * gain = sq[r] / ((r + 1) (n_node - r - 1)), the reciprocals read from inv.
 * Otherwise W_left is the running sum of the weights of the rows (the rows
 * before lo included), *w_left_out gets the winner's, and
 * gain = sq[r] / (W_left (W - W_left)). Ties keep the first row. */
static ptrdiff_t engine_best_row_generic(const double *sq, const float *xv, const int32_t *samples,
                                 const double *weights, double W, const double *inv,
                                 ptrdiff_t n_node, ptrdiff_t lo, ptrdiff_t hi, double gap,
                                 double *best_gain, double *w_left_out)
{
    ptrdiff_t r, best_r = -1;
    double best = *best_gain, gain, w_left = 0.0;
    if (weights == NULL) {
        for (r = lo; r < hi; r++) {
            if ((double)xv[r + 1] <= (double)xv[r] + gap)
                continue;
            gain = sq[r] * inv[r + 1] * inv[n_node - r - 1];
            if (gain > best) {
                best = gain;
                best_r = r;
            }
        }
        if (best_r >= 0)
            *w_left_out = (double)(best_r + 1);
    } else {
        for (r = 0; r < lo; r++)
            w_left += weights[samples[r]];
        for (r = lo; r < hi; r++) {
            w_left += weights[samples[r]];
            if ((double)xv[r + 1] <= (double)xv[r] + gap)
                continue;
            gain = sq[r] / (w_left * (W - w_left));
            if (gain > best) {
                best = gain;
                best_r = r;
                *w_left_out = w_left;
            }
        }
    }
    *best_gain = best;
    return best_r;
}


#if ENGINE_X86_SIMD
#define ENGINE_AVX2 static inline __attribute__((always_inline, target("avx2,fma")))

/* The sum of the four lanes of q (a horizontal add). */
ENGINE_AVX2 double engine_hsum_avx2(__m256d q)
{
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/* Adds row y (K vectors, the last one masked) times w into acc and sets q_ to
 * the lane-wise squares of acc summed over the K vectors. */
#define ENGINE_AVX2_ROW_IN(K, acc, q_, y, w_ptr)                                            \
    do {                                                                           \
        int k_;                                                                    \
        if ((w_ptr) == NULL) {                                                     \
            for (k_ = 0; k_ < (K) - 1; k_++)                                       \
                acc[k_] = _mm256_add_pd(acc[k_], _mm256_loadu_pd((y) + 4 * k_));   \
            acc[(K) - 1] = _mm256_add_pd(acc[(K) - 1], full                        \
                ? _mm256_loadu_pd((y) + 4 * ((K) - 1))                             \
                : _mm256_maskload_pd((y) + 4 * ((K) - 1), tail));                  \
        } else {                                                                   \
            const __m256d w_ = _mm256_broadcast_sd(w_ptr);                         \
            for (k_ = 0; k_ < (K) - 1; k_++)                                       \
                acc[k_] = _mm256_add_pd(acc[k_],                                   \
                    _mm256_mul_pd(w_, _mm256_loadu_pd((y) + 4 * k_)));             \
            acc[(K) - 1] = _mm256_add_pd(acc[(K) - 1], _mm256_mul_pd(w_, full      \
                ? _mm256_loadu_pd((y) + 4 * ((K) - 1))                             \
                : _mm256_maskload_pd((y) + 4 * ((K) - 1), tail)));                 \
        }                                                                          \
        q_ = _mm256_mul_pd(acc[0], acc[0]);                                        \
        for (k_ = 1; k_ < (K); k_++)                                               \
            q_ = _mm256_fmadd_pd(acc[k_], acc[k_], q_);                            \
    } while (0)
#define ENGINE_AVX2_ROW(K, y, w_ptr) ENGINE_AVX2_ROW_IN(K, acc, q_, y, w_ptr)

/* One block of K * 4 outputs (the last vector holding the lanes in `tail`). */
#define ENGINE_AVX2_BLOCK(K)                                                       \
ENGINE_AVX2 void engine_avx2_block_##K(                                            \
        const double *base, ptrdiff_t stride, __m256i tail, const int full,        \
        const int32_t *samples, const double *weights, ptrdiff_t n_rows,           \
        double *sq, int first)                                                     \
{                                                                                  \
    __m256d acc[K], q_, q0, q1, q2, q3, h01, h23, tot;                             \
    ptrdiff_t r = 0;                                                               \
    int k;                                                                         \
    for (k = 0; k < (K); k++) acc[k] = _mm256_setzero_pd();                        \
    for (; r + 4 <= n_rows; r += 4) {                                              \
        const int32_t i0 = samples[r], i1 = samples[r + 1];                        \
        const int32_t i2 = samples[r + 2], i3 = samples[r + 3];                    \
        ENGINE_AVX2_ROW(K, base + (ptrdiff_t)i0 * stride, weights ? weights + i0 : NULL); \
        q0 = q_;                                                                   \
        ENGINE_AVX2_ROW(K, base + (ptrdiff_t)i1 * stride, weights ? weights + i1 : NULL); \
        q1 = q_;                                                                   \
        ENGINE_AVX2_ROW(K, base + (ptrdiff_t)i2 * stride, weights ? weights + i2 : NULL); \
        q2 = q_;                                                                   \
        ENGINE_AVX2_ROW(K, base + (ptrdiff_t)i3 * stride, weights ? weights + i3 : NULL); \
        q3 = q_;                                                                   \
        /* four horizontal sums at once: lane j of tot is row r + j */             \
        h01 = _mm256_hadd_pd(q0, q1);                                              \
        h23 = _mm256_hadd_pd(q2, q3);                                              \
        tot = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),                \
                            _mm256_permute2f128_pd(h01, h23, 0x31));               \
        if (!first) tot = _mm256_add_pd(tot, _mm256_loadu_pd(sq + r));             \
        _mm256_storeu_pd(sq + r, tot);                                             \
    }                                                                              \
    for (; r < n_rows; r++) {                                                      \
        const int32_t i = samples[r];                                              \
        double s;                                                                  \
        ENGINE_AVX2_ROW(K, base + (ptrdiff_t)i * stride, weights ? weights + i : NULL); \
        h01 = _mm256_hadd_pd(q_, q_);                                              \
        s = _mm_cvtsd_f64(_mm_add_sd(_mm256_castpd256_pd128(h01),                  \
                                     _mm256_extractf128_pd(h01, 1)));              \
        sq[r] = first ? s : sq[r] + s;                                             \
    }                                                                              \
}

ENGINE_AVX2_BLOCK(4)
ENGINE_AVX2_BLOCK(3)
ENGINE_AVX2_BLOCK(2)
ENGINE_AVX2_BLOCK(1)

/* Four rows of one feature: the running sums in acc, the rows' squared norms
 * stored (or added) at sq + r, exactly as engine_avx2_block_K does (the same
 * operations in the same order, so a pair scan equals two single scans). */
#define ENGINE_AVX2_FOUR(K, acc, samples, sq)                                      \
    do {                                                                           \
        const int32_t i0 = samples[r], i1 = samples[r + 1];                        \
        const int32_t i2 = samples[r + 2], i3 = samples[r + 3];                    \
        ENGINE_AVX2_ROW_IN(K, acc, q0, base + (ptrdiff_t)i0 * stride, weights ? weights + i0 : NULL); \
        ENGINE_AVX2_ROW_IN(K, acc, q1, base + (ptrdiff_t)i1 * stride, weights ? weights + i1 : NULL); \
        ENGINE_AVX2_ROW_IN(K, acc, q2, base + (ptrdiff_t)i2 * stride, weights ? weights + i2 : NULL); \
        ENGINE_AVX2_ROW_IN(K, acc, q3, base + (ptrdiff_t)i3 * stride, weights ? weights + i3 : NULL); \
        h01 = _mm256_hadd_pd(q0, q1);                                              \
        h23 = _mm256_hadd_pd(q2, q3);                                              \
        tot = _mm256_add_pd(_mm256_permute2f128_pd(h01, h23, 0x20),                \
                            _mm256_permute2f128_pd(h01, h23, 0x31));               \
        if (!first) tot = _mm256_add_pd(tot, _mm256_loadu_pd(sq + r));             \
        _mm256_storeu_pd(sq + r, tot);                                             \
    } while (0)

/* One row (the rows left over after the groups of four), as ENGINE_AVX2_FOUR. */
#define ENGINE_AVX2_ONE(K, acc, samples, sq)                                       \
    do {                                                                           \
        const int32_t i = samples[r];                                              \
        double s;                                                                  \
        ENGINE_AVX2_ROW_IN(K, acc, q0, base + (ptrdiff_t)i * stride, weights ? weights + i : NULL); \
        h01 = _mm256_hadd_pd(q0, q0);                                              \
        s = _mm_cvtsd_f64(_mm_add_sd(_mm256_castpd256_pd128(h01),                  \
                                     _mm256_extractf128_pd(h01, 1)));              \
        sq[r] = first ? s : sq[r] + s;                                             \
    } while (0)

/* engine_avx2_block_K for two features at once (rows samples_a -> sq_a,
 * samples_b -> sq_b). Each feature's running sum is one dependency chain
 * (an add per row); two independent chains in one loop let the adds of one
 * fill the latency of the other. Same operations per feature, so the same
 * results as two single passes. */
#define ENGINE_AVX2_PAIR(K)                                                        \
ENGINE_AVX2 void engine_avx2_pair_##K(                                             \
        const double *base, ptrdiff_t stride, __m256i tail, const int full,        \
        const int32_t *samples_a, const int32_t *samples_b, const double *weights, \
        ptrdiff_t n_rows, double *sq_a, double *sq_b, int first)                   \
{                                                                                  \
    __m256d acc_a[K], acc_b[K], q0, q1, q2, q3, h01, h23, tot;                     \
    ptrdiff_t r = 0;                                                               \
    int k;                                                                         \
    for (k = 0; k < (K); k++) {                                                    \
        acc_a[k] = _mm256_setzero_pd();                                            \
        acc_b[k] = _mm256_setzero_pd();                                            \
    }                                                                              \
    for (; r + 4 <= n_rows; r += 4) {                                              \
        ENGINE_AVX2_FOUR(K, acc_a, samples_a, sq_a);                               \
        ENGINE_AVX2_FOUR(K, acc_b, samples_b, sq_b);                               \
    }                                                                              \
    for (; r < n_rows; r++) {                                                      \
        ENGINE_AVX2_ONE(K, acc_a, samples_a, sq_a);                                \
        ENGINE_AVX2_ONE(K, acc_b, samples_b, sq_b);                                \
    }                                                                              \
}

ENGINE_AVX2_PAIR(4)
ENGINE_AVX2_PAIR(3)
ENGINE_AVX2_PAIR(2)
ENGINE_AVX2_PAIR(1)

/* The pair kernel for this block: K = n_vec vectors, FULL when the last is
 * whole (last == 4); the case label 2 n_vec + FULL names the instance. */
#define ENGINE_PAIR_CALL(K, FULL, W)                                               \
    engine_avx2_pair_##K(centered + col, stride, tail, FULL, samples_a, samples_b, \
                         W, n_rows, sq_a, sq_b, first)
#define ENGINE_PAIR_SWITCH(W)                                                      \
    switch (2 * n_vec + (last == 4)) {                                             \
    case 9: ENGINE_PAIR_CALL(4, 1, W); break;                                      \
    case 8: ENGINE_PAIR_CALL(4, 0, W); break;                                      \
    case 7: ENGINE_PAIR_CALL(3, 1, W); break;                                      \
    case 6: ENGINE_PAIR_CALL(3, 0, W); break;                                      \
    case 5: ENGINE_PAIR_CALL(2, 1, W); break;                                      \
    case 4: ENGINE_PAIR_CALL(2, 0, W); break;                                      \
    case 3: ENGINE_PAIR_CALL(1, 1, W); break;                                      \
    default: ENGINE_PAIR_CALL(1, 0, W); break;                                     \
    }

/* engine_left_norms_avx2 for two features (blocks of 16 outputs as there). */
__attribute__((target("avx2,fma")))
static void engine_left_norms_pair_avx2(const double *centered, ptrdiff_t stride, ptrdiff_t t,
                                        const int32_t *samples_a, const int32_t *samples_b,
                                        const double *weights, ptrdiff_t n_rows,
                                        double *sq_a, double *sq_b)
{
    ptrdiff_t col = 0, width;
    int first = 1, n_vec, last;
    __m256i tail;
    while (col < t) {
        /* Blocks of 16 outputs; the last block's final vector masked to its width. */
        width = t - col < 16 ? t - col : 16;
        n_vec = (int)((width + 3) / 4);
        last = (int)(width - 4 * (n_vec - 1));
        tail = _mm256_set_epi64x(last > 3 ? -1 : 0, last > 2 ? -1 : 0,
                                 last > 1 ? -1 : 0, -1);
        if (weights == NULL) {
            ENGINE_PAIR_SWITCH(NULL)
        } else {
            ENGINE_PAIR_SWITCH(weights)
        }
        col += width;
        first = 0;
    }
}

/* engine_left_norms_generic with AVX2: blocks of up to 16 outputs (four
 * vectors of 4), the last vector masked by `tail` when the block width is not
 * a multiple of 4. The switch picks the instance whose vector count and
 * "last vector full" flag are compile-time constants, so the running sums stay
 * in registers; the two halves differ only in passing the weights. */
__attribute__((target("avx2,fma")))
static void engine_left_norms_avx2(const double *centered, ptrdiff_t stride, ptrdiff_t t,
                                   const int32_t *samples, const double *weights,
                                   ptrdiff_t n_rows, double *sq)
{
    ptrdiff_t col = 0, width;
    int first = 1, n_vec, last;
    __m256i tail;
    while (col < t) {
        width = t - col < 16 ? t - col : 16;
        n_vec = (int)((width + 3) / 4);
        last = (int)(width - 4 * (n_vec - 1));          /* lanes used in the last vector */
        tail = _mm256_set_epi64x(last > 3 ? -1 : 0, last > 2 ? -1 : 0,
                                 last > 1 ? -1 : 0, -1);
        if (weights == NULL) {
            switch (n_vec) {
            case 4:
                if (last == 4) engine_avx2_block_4(centered + col, stride, tail, 1, samples, NULL, n_rows, sq, first);
                else engine_avx2_block_4(centered + col, stride, tail, 0, samples, NULL, n_rows, sq, first);
                break;
            case 3:
                if (last == 4) engine_avx2_block_3(centered + col, stride, tail, 1, samples, NULL, n_rows, sq, first);
                else engine_avx2_block_3(centered + col, stride, tail, 0, samples, NULL, n_rows, sq, first);
                break;
            case 2:
                if (last == 4) engine_avx2_block_2(centered + col, stride, tail, 1, samples, NULL, n_rows, sq, first);
                else engine_avx2_block_2(centered + col, stride, tail, 0, samples, NULL, n_rows, sq, first);
                break;
            default:
                if (last == 4) engine_avx2_block_1(centered + col, stride, tail, 1, samples, NULL, n_rows, sq, first);
                else engine_avx2_block_1(centered + col, stride, tail, 0, samples, NULL, n_rows, sq, first);
                break;
            }
        } else {
            switch (n_vec) {
            case 4:
                if (last == 4) engine_avx2_block_4(centered + col, stride, tail, 1, samples, weights, n_rows, sq, first);
                else engine_avx2_block_4(centered + col, stride, tail, 0, samples, weights, n_rows, sq, first);
                break;
            case 3:
                if (last == 4) engine_avx2_block_3(centered + col, stride, tail, 1, samples, weights, n_rows, sq, first);
                else engine_avx2_block_3(centered + col, stride, tail, 0, samples, weights, n_rows, sq, first);
                break;
            case 2:
                if (last == 4) engine_avx2_block_2(centered + col, stride, tail, 1, samples, weights, n_rows, sq, first);
                else engine_avx2_block_2(centered + col, stride, tail, 0, samples, weights, n_rows, sq, first);
                break;
            default:
                if (last == 4) engine_avx2_block_1(centered + col, stride, tail, 1, samples, weights, n_rows, sq, first);
                else engine_avx2_block_1(centered + col, stride, tail, 0, samples, weights, n_rows, sq, first);
                break;
            }
        }
        col += width;
        first = 0;
    }
}

/* engine_best_row_generic for unit weights, four rows at a time. Each lane
 * keeps the first row reaching its own maximum; the lane maxima are then
 * merged preferring the lowest row among equal gains, which is the row the
 * sequential scan keeps. */
__attribute__((target("avx2,fma")))
static ptrdiff_t engine_best_row_unit_avx2(const double *sq, const float *xv, const double *inv,
                                           ptrdiff_t n_node, ptrdiff_t lo, ptrdiff_t hi,
                                           double gap, double *best_gain, double *w_left_out)
{
    ptrdiff_t r = lo, best_r = -1, j;
    double best = *best_gain, gain;
    const __m256d vgap = _mm256_set1_pd(gap);
    __m256d vbest = _mm256_set1_pd(best), vrow = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
    __m256d vbest_row = _mm256_set1_pd(-1.0), step = _mm256_set1_pd(4.0);
    __m256d x0, x1, valid, il, ir, g, better;
    double lane_gain[4], lane_row[4];
    vrow = _mm256_add_pd(vrow, _mm256_set1_pd((double)lo));
    for (; r + 4 <= hi; r += 4) {
        /* lane j: row r + j, a candidate when xv[r + j + 1] > xv[r + j] + gap */
        x0 = _mm256_cvtps_pd(_mm_loadu_ps(xv + r));
        x1 = _mm256_cvtps_pd(_mm_loadu_ps(xv + r + 1));
        valid = _mm256_cmp_pd(x1, _mm256_add_pd(x0, vgap), _CMP_NLE_UQ);
        il = _mm256_loadu_pd(inv + r + 1);
        /* lane j needs inv[n_node - r - 1 - j]: load four and reverse them */
        ir = _mm256_permute4x64_pd(_mm256_loadu_pd(inv + n_node - r - 4), 0x1B);
        /* gain = sq[r] / ((r + 1)(n_node - r - 1)), as in the scalar scan */
        g = _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(sq + r), il), ir);
        better = _mm256_and_pd(valid, _mm256_cmp_pd(g, vbest, _CMP_GT_OQ));
        vbest = _mm256_blendv_pd(vbest, g, better);
        vbest_row = _mm256_blendv_pd(vbest_row, vrow, better);
        vrow = _mm256_add_pd(vrow, step);
    }
    /* Merge the lanes: the largest gain, the lowest row among equal ones. */
    _mm256_storeu_pd(lane_gain, vbest);
    _mm256_storeu_pd(lane_row, vbest_row);
    for (j = 0; j < 4; j++) {
        if (lane_row[j] < 0.0)
            continue;
        if (lane_gain[j] > best || (lane_gain[j] == best && best_r >= 0
                                    && (ptrdiff_t)lane_row[j] < best_r)) {
            best = lane_gain[j];
            best_r = (ptrdiff_t)lane_row[j];
        }
    }
    /* The last rows (fewer than four) one at a time; they come after every lane's rows. */
    for (; r < hi; r++) {
        if ((double)xv[r + 1] <= (double)xv[r] + gap)
            continue;
        gain = sq[r] * inv[r + 1] * inv[n_node - r - 1];
        if (gain > best) {
            best = gain;
            best_r = r;
        }
    }
    if (best_r >= 0)
        *w_left_out = (double)(best_r + 1);
    *best_gain = best;
    return best_r;
}
#endif

/* 1: use the AVX2 versions (set by engine_scan_init when the CPU has AVX2). */
static int engine_simd = 0;

/* Detects the CPU's AVX2 once (call at module import); returns engine_simd. */
static int engine_scan_init(void)
{
#if ENGINE_X86_SIMD
    __builtin_cpu_init();
    engine_simd = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
#endif
    return engine_simd;
}

/* Turns the AVX2 versions off (0) or back on where the CPU has them;
 * returns the new setting. */
static int engine_set_simd(int enabled)
{
    engine_simd = 0;
    if (enabled)
        engine_scan_init();
    return engine_simd;
}

/* sq[r] = |S_l(r) - W_l(r) m|^2 for the first n_rows rows of one feature
 * (see the top of this file): the AVX2 version where enabled, else the
 * portable one. */
static void engine_left_norms(const double *centered, ptrdiff_t stride, ptrdiff_t t,
                              const int32_t *samples, const double *weights,
                              ptrdiff_t n_rows, double *sq)
{
#if ENGINE_X86_SIMD
    if (engine_simd) {
        engine_left_norms_avx2(centered, stride, t, samples, weights, n_rows, sq);
        return;
    }
#endif
    engine_left_norms_generic(centered, stride, t, samples, weights, n_rows, sq);
}

/* engine_left_norms for feature a's rows into sq_a and, when samples_b is
 * not NULL, feature b's into sq_b (both AVX2 chains in one pass). */
static void engine_left_norms_pair(const double *centered, ptrdiff_t stride, ptrdiff_t t,
                                   const int32_t *samples_a, const int32_t *samples_b,
                                   const double *weights, ptrdiff_t n_rows,
                                   double *sq_a, double *sq_b)
{
#if ENGINE_X86_SIMD
    if (engine_simd && samples_b != NULL) {
        engine_left_norms_pair_avx2(centered, stride, t, samples_a, samples_b, weights,
                                    n_rows, sq_a, sq_b);
        return;
    }
#endif
    engine_left_norms(centered, stride, t, samples_a, weights, n_rows, sq_a);
    if (samples_b != NULL)
        engine_left_norms(centered, stride, t, samples_b, weights, n_rows, sq_b);
}

/* The row r in [lo, hi) whose threshold (between rows r and r + 1) has the
 * largest gain sq[r] / (W_l W_r) above *best_gain, or -1 (see
 * engine_best_row_generic); the four-row AVX2 version for unit weights. */
static ptrdiff_t engine_best_row(const double *sq, const float *xv, const int32_t *samples,
                                 const double *weights, double W, const double *inv,
                                 ptrdiff_t n_node, ptrdiff_t lo, ptrdiff_t hi, double gap,
                                 double *best_gain, double *w_left_out)
{
#if ENGINE_X86_SIMD
    if (engine_simd && weights == NULL)
        return engine_best_row_unit_avx2(sq, xv, inv, n_node, lo, hi, gap, best_gain,
                                         w_left_out);
#endif
    return engine_best_row_generic(sq, xv, samples, weights, W, inv, n_node, lo, hi, gap,
                                   best_gain, w_left_out);
}

#endif
