/* exp over a contiguous array of doubles (the logistic loss's exp(2 y F) in
 * updates.pyx's update pass; tests reach its mode through testing.pyx).
 *
 * Why our own: libm's exp is a scalar call (about 8-10 ns each), and the
 * logistic update pass takes one per entry of the n x d score matrix; the
 * compiler cannot vectorise a loop around it. This one runs four lanes at a
 * time with AVX2 + FMA where the CPU has them (picked at run time, as in
 * scan_kernels.h; the build needs no -march flag).
 *
 * The method (Cody-Waite range reduction, then a polynomial):
 *     k = round(x / ln 2),  r = x - k ln 2,  |r| <= ln(2) / 2 (about 0.347),
 *     exp(x) = 2^k exp(r).
 * ln 2 is split as LN2_HI + LN2_LO, LN2_HI with its low 21 bits zero, so
 * k * LN2_HI is exact for |k| < 2^20 and x - k * LN2_HI is exact (Sterbenz):
 * r carries only the rounding of its last subtraction. exp(r) is its Taylor
 * polynomial of degree 13 (coefficients 1/i!, Horner's rule): the first term
 * left out, r^14 / 14! <= 4.2e-18, is 0.04 ulp of exp(r) >= 0.70. 2^k is
 * built in the exponent bits, an exact product. Measured against numpy's exp
 * (tests/core/test_exp_kernels.py): at most 1 ulp apart on both versions
 * (see that test for the bound asserted).
 *
 * Only |x| in [ENGINE_EXP_MIN, ENGINE_EXP_MAX] takes that path, where 2^k and
 * the result are normal numbers. Other inputs (results that are subnormal,
 * 0 or +inf; NaN) go to libm's exp, lane by lane: the saturated behaviour
 * (exp(2 y F) = 0 or inf for huge |F|) is exactly libm's.
 *
 * The AVX2 and the portable version differ in rounding only (FMA in the
 * first); a value does not depend on its position in the array (the tail is
 * padded to a full vector), so results do not depend on how rows are split
 * between threads. engine_exp_set_mode picks libm's exp, the portable or the
 * AVX2 version (tests compare them, and fits with each).
 */
#ifndef ENGINE_EXP_KERNELS_H
#define ENGINE_EXP_KERNELS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_EXP_X86_SIMD 1
#  include <immintrin.h>
#else
#  define ENGINE_EXP_X86_SIMD 0
#endif

/* The modules are built with -fassociative-math, which would let the compiler
 * fold (x - k LN2_HI) - k LN2_LO into x - k (LN2_HI + LN2_LO) and lose the
 * range reduction's precision: these functions are compiled without it. */
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC push_options
#  pragma GCC optimize("no-associative-math")
#endif

#define ENGINE_EXP_MIN (-708.0)     /* exp(-708) ~ 3.3e-308: still normal */
#define ENGINE_EXP_MAX 709.0        /* exp(709) ~ 8.2e307: still finite */

static const double ENGINE_LOG2E = 1.4426950408889634074;          /* 1 / ln 2 */
static const double ENGINE_LN2_HI = 6.93147180369123816490e-01;    /* 0x3fe62e42fee00000 */
static const double ENGINE_LN2_LO = 1.90821492927058770002e-10;    /* ln 2 - LN2_HI */

/* 1 / i!, i = 13 down to 2 (the Horner order). */
static const double ENGINE_EXP_C[12] = {
    1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
    1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0,
    1.0 / 6.0, 0.5};

/* exp(x) for x in [ENGINE_EXP_MIN, ENGINE_EXP_MAX], plain C. */
static inline double engine_exp_in_range(double x)
{
    const double k = nearbyint(x * ENGINE_LOG2E);
    const double r = (x - k * ENGINE_LN2_HI) - k * ENGINE_LN2_LO;
    double p = ENGINE_EXP_C[0];
    int i;
    uint64_t bits = (uint64_t)((int64_t)k + 1023) << 52;     /* 2^k */
    double scale;
    for (i = 1; i < 12; i++) p = p * r + ENGINE_EXP_C[i];
    p = (p * r + 1.0) * r + 1.0;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

static void engine_exp_portable(const double *x, double *out, ptrdiff_t n)
{
    ptrdiff_t i;
    for (i = 0; i < n; i++)
        out[i] = (x[i] >= ENGINE_EXP_MIN && x[i] <= ENGINE_EXP_MAX)
                 ? engine_exp_in_range(x[i]) : exp(x[i]);
}

#if ENGINE_EXP_X86_SIMD
/* Four lanes: the same steps as engine_exp_in_range, with FMA. Lanes out of
 * range compute on 0 and are then replaced by libm's exp. */
__attribute__((target("avx2,fma")))
static inline void engine_exp4_avx2(const double *x, double *out)
{
    const __m256d v = _mm256_loadu_pd(x);
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, _mm256_set1_pd(ENGINE_EXP_MIN), _CMP_GE_OQ),
                                     _mm256_cmp_pd(v, _mm256_set1_pd(ENGINE_EXP_MAX), _CMP_LE_OQ));
    const __m256d xc = _mm256_and_pd(v, in);
    const __m256d k = _mm256_round_pd(_mm256_mul_pd(xc, _mm256_set1_pd(ENGINE_LOG2E)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(ENGINE_LN2_HI), xc);
    __m256d p = _mm256_set1_pd(ENGINE_EXP_C[0]);
    __m256i bits;
    int i, mask;
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(ENGINE_LN2_LO), r);
    for (i = 1; i < 12; i++) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(ENGINE_EXP_C[i]));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
    p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
    bits = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
    bits = _mm256_slli_epi64(_mm256_add_epi64(bits, _mm256_set1_epi64x(1023)), 52);
    mask = _mm256_movemask_pd(in);
    if (mask == 0xF) {
        _mm256_storeu_pd(out, _mm256_mul_pd(p, _mm256_castsi256_pd(bits)));
    } else {                    /* x is read before out is written: out may be x */
        double xs[4];
        _mm256_storeu_pd(xs, v);
        _mm256_storeu_pd(out, _mm256_mul_pd(p, _mm256_castsi256_pd(bits)));
        for (i = 0; i < 4; i++)
            if (!(mask & (1 << i))) out[i] = exp(xs[i]);
    }
}

__attribute__((target("avx2,fma")))
static void engine_exp_avx2(const double *x, double *out, ptrdiff_t n)
{
    double xt[4] = {0.0, 0.0, 0.0, 0.0}, ot[4];
    ptrdiff_t i = 0;
    for (; i + 4 <= n; i += 4) engine_exp4_avx2(x + i, out + i);
    if (i < n) {                /* the tail, padded to four lanes */
        memcpy(xt, x + i, (size_t)(n - i) * sizeof(double));
        engine_exp4_avx2(xt, ot);
        memcpy(out + i, ot, (size_t)(n - i) * sizeof(double));
    }
}
#endif

#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC pop_options
#endif

/* Which exp engine_exp_array takes: */
enum {
    ENGINE_EXP_LIBM = 0,        /* libm's exp per entry (the former path; tests compare fits) */
    ENGINE_EXP_PORTABLE = 1,    /* the polynomial in plain C */
    ENGINE_EXP_AVX2 = 2         /* the polynomial four lanes at a time */
};
static int engine_exp_mode = ENGINE_EXP_PORTABLE;

/* The fastest mode this CPU has (AVX2 + FMA, else the portable one); call at
 * module import. Returns the mode. */
static int engine_exp_init(void)
{
    engine_exp_mode = ENGINE_EXP_PORTABLE;
#if ENGINE_EXP_X86_SIMD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        engine_exp_mode = ENGINE_EXP_AVX2;
#endif
    return engine_exp_mode;
}

/* Sets the mode (AVX2 only where the CPU has it, else the portable one);
 * returns the mode now in use. */
static int engine_exp_set_mode(int mode)
{
    if (mode == ENGINE_EXP_AVX2) return engine_exp_init();
    engine_exp_mode = mode == ENGINE_EXP_LIBM ? ENGINE_EXP_LIBM : ENGINE_EXP_PORTABLE;
    return engine_exp_mode;
}

/* out[i] = exp(x[i]) for i < n (out may be x). */
static void engine_exp_array(const double *x, double *out, ptrdiff_t n)
{
    ptrdiff_t i;
#if ENGINE_EXP_X86_SIMD
    if (engine_exp_mode == ENGINE_EXP_AVX2) {
        engine_exp_avx2(x, out, n);
        return;
    }
#endif
    if (engine_exp_mode == ENGINE_EXP_LIBM) {
        for (i = 0; i < n; i++) out[i] = exp(x[i]);
        return;
    }
    engine_exp_portable(x, out, n);
}

#endif
