/* The dense projection T = G Phi^T of a boosting step's gradient (split_targets.pyx).
 *
 * Why our own: G is n x d (12 920 x 983 on delicious) and Phi q x d. Taking
 * one projection row at a time over all of G reads G from memory q times
 * (2 GB at q = 20) at one multiply-add per load; this kernel reads each row
 * of G once, for all q projections, and keeps a block of 4 rows x 2
 * projections in 8 vector accumulators, so a load of G or Phi serves 2 or 4
 * multiply-adds. It runs as fast as OpenBLAS's dgemm on one thread there,
 * picks AVX2 + FMA at run time where the CPU has them (as exp_kernels.h; the
 * build needs no -march flag) and, unlike a BLAS call, runs on the engine's
 * own threads (row blocks of row_blocks.pxd) and gives a result that does not
 * depend on their number.
 *
 * The summation order, the same for every (row i, projection r) whatever
 * block it falls in: with d4 = d rounded down to a multiple of 4, four lane
 * sums a_l = sum over k = l, l + 4, ... < d4 of G_ik Phi_rk (in increasing k),
 * then (a_0 + a_1) + (a_2 + a_3), then the tail k = d4 .. d - 1 added in
 * order. The AVX2 and the portable version follow that order and differ in
 * rounding only (FMA in the first); engine_project_set_mode picks one (tests
 * compare both with numpy). This is not the order of the plain loop it
 * replaces (k = 0 .. d - 1), so the projected models moved by rounding.
 */
#ifndef ENGINE_PROJECTION_KERNELS_H
#define ENGINE_PROJECTION_KERNELS_H

#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_PROJ_X86_SIMD 1
#  include <immintrin.h>
#else
#  define ENGINE_PROJ_X86_SIMD 0
#endif

/* The modules are built with -fassociative-math, which would let the compiler
 * regroup the lane sums of the portable version: the order above is the
 * contract, so these functions are compiled without it. */
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC push_options
#  pragma GCC optimize("no-associative-math")
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define ENGINE_PROJ_INLINE static inline __attribute__((always_inline))
#else
#  define ENGINE_PROJ_INLINE static inline
#endif

/* Rows i0 .. i0 + NR - 1 against projections r0 .. r0 + NP - 1, plain C. */
ENGINE_PROJ_INLINE void engine_proj_block_portable(const double *G, ptrdiff_t i0, ptrdiff_t d,
                                                   const double *P, ptrdiff_t r0, double *T,
                                                   ptrdiff_t q, int NR, int NP)
{
    double a[4][2][4];
    ptrdiff_t k, d4 = d & ~(ptrdiff_t)3;
    int u, v, l;
    for (u = 0; u < NR; u++)
        for (v = 0; v < NP; v++)
            for (l = 0; l < 4; l++) a[u][v][l] = 0.0;
    for (k = 0; k < d4; k += 4)
        for (u = 0; u < NR; u++)
            for (v = 0; v < NP; v++)
                for (l = 0; l < 4; l++)
                    a[u][v][l] += G[(i0 + u) * d + k + l] * P[(r0 + v) * d + k + l];
    for (u = 0; u < NR; u++)
        for (v = 0; v < NP; v++) {
            const double *g = G + (i0 + u) * d, *p = P + (r0 + v) * d;
            double s = (a[u][v][0] + a[u][v][1]) + (a[u][v][2] + a[u][v][3]);
            for (k = d4; k < d; k++) s += g[k] * p[k];
            T[(i0 + u) * q + r0 + v] = s;
        }
}

static void engine_project_dense_portable(const double *G, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t d,
                                          const double *P, ptrdiff_t q, double *T)
{
    ptrdiff_t i = lo, r;
    for (; i + 4 <= hi; i += 4) {
        for (r = 0; r + 2 <= q; r += 2) engine_proj_block_portable(G, i, d, P, r, T, q, 4, 2);
        if (r < q) engine_proj_block_portable(G, i, d, P, r, T, q, 4, 1);
    }
    for (; i < hi; i++) {
        for (r = 0; r + 2 <= q; r += 2) engine_proj_block_portable(G, i, d, P, r, T, q, 1, 2);
        if (r < q) engine_proj_block_portable(G, i, d, P, r, T, q, 1, 1);
    }
}

#if ENGINE_PROJ_X86_SIMD
/* The same block, four lanes per vector, one FMA per lane and k. */
__attribute__((target("avx2,fma")))
ENGINE_PROJ_INLINE void engine_proj_block_avx2(const double *G, ptrdiff_t i0, ptrdiff_t d,
                                               const double *P, ptrdiff_t r0, double *T,
                                               ptrdiff_t q, int NR, int NP)
{
    __m256d a[4][2];
    double lanes[4];
    ptrdiff_t k, d4 = d & ~(ptrdiff_t)3;
    int u, v;
    for (u = 0; u < NR; u++)
        for (v = 0; v < NP; v++) a[u][v] = _mm256_setzero_pd();
    for (k = 0; k < d4; k += 4) {
        __m256d p[2], g;
        for (v = 0; v < NP; v++) p[v] = _mm256_loadu_pd(P + (r0 + v) * d + k);
        for (u = 0; u < NR; u++) {
            g = _mm256_loadu_pd(G + (i0 + u) * d + k);
            for (v = 0; v < NP; v++) a[u][v] = _mm256_fmadd_pd(g, p[v], a[u][v]);
        }
    }
    for (u = 0; u < NR; u++)
        for (v = 0; v < NP; v++) {
            const double *g = G + (i0 + u) * d, *p = P + (r0 + v) * d;
            double s;
            _mm256_storeu_pd(lanes, a[u][v]);
            s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            for (k = d4; k < d; k++) s += g[k] * p[k];
            T[(i0 + u) * q + r0 + v] = s;
        }
}

__attribute__((target("avx2,fma")))
static void engine_project_dense_avx2(const double *G, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t d,
                                      const double *P, ptrdiff_t q, double *T)
{
    ptrdiff_t i = lo, r;
    for (; i + 4 <= hi; i += 4) {
        for (r = 0; r + 2 <= q; r += 2) engine_proj_block_avx2(G, i, d, P, r, T, q, 4, 2);
        if (r < q) engine_proj_block_avx2(G, i, d, P, r, T, q, 4, 1);
    }
    for (; i < hi; i++) {
        for (r = 0; r + 2 <= q; r += 2) engine_proj_block_avx2(G, i, d, P, r, T, q, 1, 2);
        if (r < q) engine_proj_block_avx2(G, i, d, P, r, T, q, 1, 1);
    }
}
#endif

/* 0: portable, 1: AVX2 + FMA (the default where the CPU has them). */
static int engine_project_mode = 0;

static int engine_project_set_mode(int mode)
{
#if ENGINE_PROJ_X86_SIMD
    if (mode == 1 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) mode = 0;
#else
    mode = 0;
#endif
    engine_project_mode = mode ? 1 : 0;
    return engine_project_mode;
}

static int engine_project_init(void)
{
#if ENGINE_PROJ_X86_SIMD
    __builtin_cpu_init();
#endif
    return engine_project_set_mode(1);
}

/* T[i * q + r] = sum_k G[i * d + k] P[r * d + k] for the rows i in [lo, hi), r < q
 * (G: n x d, P: q x d, T: n x q, all row-major). */
static void engine_project_dense(const double *G, ptrdiff_t lo, ptrdiff_t hi, ptrdiff_t d,
                                 const double *P, ptrdiff_t q, double *T)
{
#if ENGINE_PROJ_X86_SIMD
    if (engine_project_mode == 1) {
        engine_project_dense_avx2(G, lo, hi, d, P, q, T);
        return;
    }
#endif
    engine_project_dense_portable(G, lo, hi, d, P, q, T);
}

#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC pop_options
#endif

#endif
