"""The logistic line search as the engine did it before its grouped rewrite (numpy, row by row).

A reference for tests: the same bracketed, safeguarded Newton iteration to
1e-12 (commit a8a4e58, engine/_core/losses.pyx), with one exp per sample and
iteration, so that a model refitted with it can be compared with today's.
"""
import numpy as np

MAX_LOGIT_STEP = 15.0


def _slope(y, f, a, w, rho):
    with np.errstate(over="ignore"):        # exp = inf: s = 0, as in the compiled code
        s = 1.0 / (1.0 + np.exp(2.0 * y * (f + rho * a)))
    return -np.sum(w * 2.0 * y * a * s), np.sum(w * 4.0 * a * a * s * (1.0 - s))


def old_logistic_line_search(y, f, a, w):
    """argmin_rho sum_i w_i log(1 + exp(-2 y_i (f_i + rho a_i))), |rho a_i| <= 15 (y in {-1, +1})."""
    keep = (w != 0.0) & (a != 0.0)
    y, f, a, w = y[keep], f[keep], a[keep], w[keep]
    if len(a) == 0:
        return 0.0
    rho_max = MAX_LOGIT_STEP / np.abs(a).max()
    d1, d2 = _slope(y, f, a, w, 0.0)
    if d1 == 0.0:
        return 0.0
    sign = 1.0 if d1 < 0.0 else -1.0
    lo = 0.0
    hi = -d1 / d2 if d2 > 0.0 else rho_max * sign
    if abs(hi) > rho_max or hi * sign <= 0.0:
        hi = rho_max * sign
    while True:
        d1_hi, _ = _slope(y, f, a, w, hi)
        if d1_hi * sign >= 0.0:
            break
        lo = hi
        if abs(hi) >= rho_max:
            return hi
        hi = 2.0 * hi
        if abs(hi) > rho_max:
            hi = rho_max * sign
    rho = 0.5 * (lo + hi)
    for _ in range(100):
        d1, d2 = _slope(y, f, a, w, rho)
        if d1 == 0.0:
            return rho
        if d1 * sign < 0.0:
            lo = rho
        else:
            hi = rho
        step = d1 / d2 if d2 > 0.0 else 0.0
        if d2 > 0.0 and (rho - step - lo) * (rho - step - hi) < 0.0:
            rho = rho - step
        else:
            rho = 0.5 * (lo + hi)
            step = hi - lo
        if abs(step) <= 1e-12 * (1.0 + abs(rho)) or abs(hi - lo) <= 1e-14 * (1.0 + abs(rho)):
            return rho
    return rho
