"""Brute-force reference for the best split over fixed bin thresholds (histogram search).

A test oracle, written to be obviously correct: every candidate threshold of
every feature is tried by masking the samples (x <= threshold goes left) and
computing both children's weighted SSE in two passes, as in
``oracles.split_search``; no histogram, no running sums. It also bins
features independently of the engine (``reference_codes``), so the engine's
histograms can be checked cell by cell.

Conventions held to the engine's:

* X is cast to float32 and compared with float64 thresholds;
* a candidate needs at least ``min_samples_leaf`` samples on each side;
* thresholds giving the same partition as a lower one are the same split:
  ties (improvements within TIE_RTOL) go to the lowest feature, then the
  lowest threshold.
"""
import numpy as np

from oracles.split_search import TIE_RTOL, _as_inputs, _sse


def reference_codes(x, thresholds):
    """Bin of each value: the number of thresholds strictly below it."""
    x = np.asarray(x, dtype=np.float32).astype(np.float64)
    return (x[:, None] > np.asarray(thresholds)[None, :]).sum(axis=1)


def reference_histogram(codes, n_bins, T, w):
    """(n_bins, t + 2): per bin the weighted target sums, the weight sum and the count."""
    T = np.asarray(T, dtype=np.float64).reshape(len(codes), -1)
    out = np.zeros((n_bins, T.shape[1] + 2))
    for b in range(n_bins):
        m = codes == b
        out[b, :-2] = w[m] @ T[m]
        out[b, -2] = w[m].sum()
        out[b, -1] = m.sum()
    return out


def brute_force_binned_split(X, T, thresholds, sample_weight=None, min_samples_leaf=1):
    """Best split of (X, T) among ``thresholds[f]`` (one increasing array per feature).

    Samples with weight 0 are left out. Returns None when no admissible split
    exists, else a dict with feature, bin (the threshold's index), threshold,
    improvement (weighted SSE decrease, summed over targets), n_left,
    n_right and n_ties (candidates with distinct partitions tied with the best).
    """
    X, T, w = _as_inputs(X, T, sample_weight)
    keep = w > 0
    X, T, w = X[keep], T[keep], w[keep]
    node_sse, _, _ = _sse(T, w)
    cands = []
    for f in range(X.shape[1]):
        seen = set()
        for b, thr in enumerate(np.asarray(thresholds[f], dtype=np.float64)):
            left = X[:, f] <= thr
            n_left = int(left.sum())
            if n_left < min_samples_leaf or len(left) - n_left < min_samples_leaf:
                continue
            key = left.tobytes()
            if key in seen:          # same partition as a lower threshold
                continue
            seen.add(key)
            sse_l, _, _ = _sse(T[left], w[left])
            sse_r, _, _ = _sse(T[~left], w[~left])
            cands.append((f, b, float(thr), node_sse - sse_l - sse_r, n_left))
    if not cands:
        return None
    best_imp = max(c[3] for c in cands)
    tol = TIE_RTOL * max(abs(best_imp), node_sse, np.finfo(float).tiny)
    tied = [c for c in cands if c[3] >= best_imp - tol]
    f, b, thr, imp, n_left = tied[0]
    return {"feature": f, "bin": b, "threshold": thr, "improvement": imp,
            "n_left": n_left, "n_right": len(X) - n_left, "n_ties": len(tied)}
