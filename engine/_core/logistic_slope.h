/* The inner sums of the logistic line search's slope (losses.pyx, _logistic_slope).
 *
 * For one group of samples (a leaf and a sign of y) at a step rho, with
 * c = exp(2 a rho) shared by the group and e_k = exp(2 y_k f_k):
 *     p = sum_k w_k s_k,   q = sum_k w_k s_k (1 - s_k),   s_k = 1 / (1 + e_k c).
 * One division per sample, every Newton iteration: the line search's
 * hottest loop. In C so that GCC compiles it twice (AVX2 and baseline
 * x86-64, picked at load time by target_clones, as hist_kernels.h): four
 * divisions at a time where the CPU has AVX2. The module is built with
 * -fassociative-math, so the sums are vectorised in partial sums whose order
 * depends on the version: p and q differ by rounding only (about 1e-16
 * relative), and not with the number of threads.
 */
#ifndef ENGINE_LOGISTIC_SLOPE_H
#define ENGINE_LOGISTIC_SLOPE_H

#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_SLOPE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#  define ENGINE_SLOPE_CLONES
#endif

ENGINE_SLOPE_CLONES
static void engine_logistic_group_sums(const double *e, const double *w, ptrdiff_t m, double c,
                                       double *p_out, double *q_out)
{
    double p = 0.0, q = 0.0;
    ptrdiff_t k;
    for (k = 0; k < m; k++) {
        const double s = 1.0 / (1.0 + e[k] * c);
        p += w[k] * s;
        q += w[k] * s * (1.0 - s);
    }
    *p_out = p;
    *q_out = q;
}

#endif
