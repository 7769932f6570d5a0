"""Brute-force reference for the best (multi-output) regression-tree split.

This is a test oracle: slow, vectorised per feature, and written to be
obviously correct rather than fast. It mirrors the conventions of
scikit-learn's best splitter so the compiled engine can be compared to it
exactly:

* X is cast to float32 first (scikit-learn stores features as float32);
* candidate thresholds sit between two consecutive distinct sorted values
  x_a < x_b of one feature and are computed in float64 as x_a/2 + x_b/2
  (halves first, so the sum can never overflow); pairs with
  x_b <= x_a + 1e-7 (scikit-learn's FEATURE_THRESHOLD) are skipped;
* samples with x <= threshold go left;
* min_samples_leaf counts samples, not weights.

The criterion is the weighted sum over outputs of squared errors (SSE)
around each child's weighted mean, computed in two passes (mean first, then
squared deviations) so that large target offsets do not cancel.
"""

import numpy as np

FEATURE_THRESHOLD = 1e-7  # same constant as scikit-learn's splitter
# Candidates whose improvement is within TIE_RTOL of the best are "tied"; the
# gap is taken relative to max(|best improvement|, SSE(node)), the scale of
# the rounding error in an improvement.
TIE_RTOL = 1e-10


def _as_inputs(X, T, sample_weight):
    X = np.asarray(X, dtype=np.float32).astype(np.float64)  # float32 values, exact in float64
    T = np.asarray(T, dtype=np.float64)
    if T.ndim == 1:
        T = T[:, None]
    n = X.shape[0]
    if T.shape[0] != n:
        raise ValueError("X and T have different numbers of rows")
    if sample_weight is None:
        w = np.ones(n)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (n,) or np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("sample_weight must be n finite non-negative numbers")
    if w.sum() <= 0:
        raise ValueError("total sample weight must be positive")
    return X, T, w


def _sse(T, w):
    """Two-pass weighted SSE (summed over outputs), total weight and mean."""
    W = w.sum()
    if W <= 0:
        # A child holding only zero-weight samples: no error, no defined mean.
        return 0.0, 0.0, np.full(T.shape[1], np.nan)
    mean = (w @ T) / W
    return float(w @ ((T - mean) ** 2).sum(axis=1)), W, mean


def brute_force_impurity(T, w=None):
    """Node impurity: sum over outputs of the weighted variance (= SSE / W)."""
    T = np.asarray(T, dtype=np.float64)
    if T.ndim == 1:
        T = T[:, None]
    w = np.ones(T.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    sse, W, _ = _sse(T, w)
    return sse / W if W > 0 else 0.0


def _feature_candidates(x, T, w, min_samples_leaf):
    """Every admissible threshold of one feature and its left/right SSE.

    Returns thresholds (k,), n_left (k,), sse_left (k,), sse_right (k,).
    Vectorised over the k candidates with a (k, n) membership mask; the
    SSE of each child is computed two-pass from its own weighted mean.
    """
    values = np.unique(x)  # sorted distinct float32 values (held in float64)
    if values.size < 2:
        return (np.empty(0),) + (np.empty(0, dtype=np.intp),) + (np.empty(0),) * 2
    lo, hi = values[:-1], values[1:]
    keep = hi > lo + FEATURE_THRESHOLD
    thresholds = lo[keep] / 2.0 + hi[keep] / 2.0
    left = x[None, :] <= thresholds[:, None]  # (k, n)
    n_left = left.sum(axis=1)
    n_right = x.size - n_left
    ok = (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
    thresholds, left, n_left = thresholds[ok], left[ok], n_left[ok]

    def child_sse(mask):
        wm = mask * w[None, :]  # (k, n) weights restricted to the child
        W = wm.sum(axis=1)
        safe_W = np.where(W > 0, W, 1.0)
        mean = (wm @ T) / safe_W[:, None]  # (k, t) first pass: weighted means
        dev2 = ((T[None, :, :] - mean[:, None, :]) ** 2).sum(axis=2)  # (k, n)
        return (wm * dev2).sum(axis=1)  # second pass: weighted squared deviations

    return thresholds, n_left, child_sse(left), child_sse(~left)


def brute_force_best_split(X, T, sample_weight=None, min_samples_leaf=1):
    """Exhaustive best split of (X, T) for the summed-over-outputs SSE.

    Returns None when no admissible split exists, otherwise a dict with
    feature, threshold, improvement (= SSE(node) - SSE(left) - SSE(right),
    weighted, summed over outputs), n_left, n_right (sample counts),
    impurity, impurity_left, impurity_right (sum over outputs of the
    weighted variance, i.e. SSE / W), value_left, value_right (weighted mean
    vectors) and n_ties (how many (feature, threshold) candidates have an
    improvement within TIE_RTOL relative of the best; 1 means a unique best).
    Ties are broken by lowest feature index, then lowest threshold.
    """
    X, T, w = _as_inputs(X, T, sample_weight)
    node_sse, W, _ = _sse(T, w)

    cands = []  # (feature, threshold, improvement)
    for f in range(X.shape[1]):
        thr, _, sse_l, sse_r = _feature_candidates(X[:, f], T, w, min_samples_leaf)
        for t, imp in zip(thr, node_sse - sse_l - sse_r):
            cands.append((f, float(t), float(imp)))
    if not cands:
        return None

    improvements = np.array([c[2] for c in cands])
    best_imp = improvements.max()
    tol = TIE_RTOL * max(abs(best_imp), node_sse, np.finfo(float).tiny)
    tied = [c for c in cands if c[2] >= best_imp - tol]
    # cands are in (feature, threshold) increasing order, so the first tied
    # candidate is the lowest feature index, then the lowest threshold.
    feature, threshold, _ = tied[0]

    left = X[:, feature] <= threshold
    sse_l, W_l, mean_l = _sse(T[left], w[left])
    sse_r, W_r, mean_r = _sse(T[~left], w[~left])
    return {
        "feature": feature,
        "threshold": threshold,
        "improvement": node_sse - sse_l - sse_r,
        "n_left": int(left.sum()),
        "n_right": int((~left).sum()),
        "impurity": node_sse / W,
        "impurity_left": sse_l / W_l if W_l > 0 else 0.0,
        "impurity_right": sse_r / W_r if W_r > 0 else 0.0,
        "value_left": mean_l,
        "value_right": mean_r,
        "n_ties": len(tied),
    }
