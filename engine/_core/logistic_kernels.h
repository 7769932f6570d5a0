/* Hot loops of the logistic loss, one division per entry each, compiled twice
 * (AVX2 and baseline x86-64, picked at load time by GCC's target_clones, as
 * hist_kernels.h; the build needs no -march flag): four divisions at a time
 * where the CPU has AVX2. The modules are built with -fassociative-math, so
 * sums are vectorised in partial sums whose order depends on the version:
 * results differ by rounding only (about 1e-16 relative), never with the
 * number of threads.
 *
 * engine_logistic_group_sums: the inner sums of the line search's slope
 * (losses.pyx, _logistic_slope). For one group of samples (a leaf and a
 * sign of y) at a step rho, with c = exp(2 a rho) shared by the group and e_k = exp(2 y_k f_k):
 *     p = sum_k w_k s_k,   q = sum_k w_k s_k (1 - s_k),   s_k = 1 / (1 + e_k c).
 * Every Newton iteration takes it once per sample.
 *
 * engine_logistic_row_terms: the gradient and the loss of a chunk of one row
 * of the update pass (updates.pyx, _update_logistic_rows), given
 * z = 2 y f and e = exp(z). With s = 1 / (1 + e) the negative gradient is
 * 2 y s (the same double as 2 y / (1 + e): scaling by 2 is exact) and the
 * loss log(1 + exp(-z)) is -log(s) - z where z < 0, else -log(1 - s). Every
 * factor s or 1 - s is in [1/2, 1], so the product of a chunk's (at most
 * 512 entries) stays above 2^-512, a normal double, and takes one log.
 */
#ifndef ENGINE_LOGISTIC_KERNELS_H
#define ENGINE_LOGISTIC_KERNELS_H

#include <math.h>
#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ENGINE_NO_SIMD)
#  define ENGINE_LOGISTIC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#  define ENGINE_LOGISTIC_CLONES
#endif

ENGINE_LOGISTIC_CLONES
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

/* The second derivative 4 s (1 - s) of log(1 + exp(-z)) in f (z = 2 y f, e = exp(z),
 * s = 1 / (1 + e)), written as 4 t / (1 + t)^2 with t = e or 1 / e, whichever is at most 1:
 * no cancellation, and saturated scores (e = 0 or inf) give 0, never NaN. The same
 * operations as logistic_hessian_from_exp (losses.pxd), so that both give the same double
 * (the fits do not depend on which one a path takes). */
static inline double engine_logistic_hessian(double e)
{
    const double t = e > 1.0 ? 1.0 / e : e;
    return 4.0 * t / ((1.0 + t) * (1.0 + t));
}

/* g[k] = 2 y_k s_k for k < m (m <= 512); returns sum_k log(1 + exp(-z_k)). */
ENGINE_LOGISTIC_CLONES
static double engine_logistic_row_terms(const double *y, const double *z, const double *e,
                                        double *g, ptrdiff_t m)
{
    double acc = 0.0, product = 1.0;
    ptrdiff_t k;
    for (k = 0; k < m; k++) {
        const double s = 1.0 / (1.0 + e[k]);
        const int right = z[k] >= 0.0;          /* 2 y f >= 0: the label's side */
        g[k] = 2.0 * y[k] * s;
        acc -= right ? 0.0 : z[k];
        product *= right ? 1.0 - s : s;
    }
    return acc - log(product);
}

/* engine_logistic_row_terms, and h[k] = the second derivative (engine_logistic_hessian)
 * for second-order leaves. */
ENGINE_LOGISTIC_CLONES
static double engine_logistic_row_terms_hessian(const double *y, const double *z, const double *e,
                                                double *g, double *h, ptrdiff_t m)
{
    double acc = 0.0, product = 1.0;
    ptrdiff_t k;
    for (k = 0; k < m; k++) {
        const double s = 1.0 / (1.0 + e[k]);
        const int right = z[k] >= 0.0;
        g[k] = 2.0 * y[k] * s;
        h[k] = engine_logistic_hessian(e[k]);
        acc -= right ? 0.0 : z[k];
        product *= right ? 1.0 - s : s;
    }
    return acc - log(product);
}

/* The held-out set's logistic loss per output (held_out.pyx): the product trick of
 * engine_logistic_row_terms kept per output instead of per row. For a chunk of one row
 * (z = 2 y f, e = exp(z), m entries), acc[k] -= z[k] where z < 0 and prod[k] *= the entry's
 * factor s or 1 - s (in [1/2, 1]); the caller adds acc[k] - log(prod[k]) to output k's loss
 * every 512 rows at most: one log per output and block of rows instead of one per entry. */
ENGINE_LOGISTIC_CLONES
static void engine_logistic_column_terms(const double *z, const double *e, double *acc,
                                         double *prod, ptrdiff_t m)
{
    ptrdiff_t k;
    for (k = 0; k < m; k++) {
        const double s = 1.0 / (1.0 + e[k]);
        const int right = z[k] >= 0.0;
        acc[k] -= right ? 0.0 : z[k];
        prod[k] *= right ? 1.0 - s : s;
    }
}

#endif
