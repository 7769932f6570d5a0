"""Comparing several methods over several data sets (Demšar 2006; paper 002, section 4.4).

Paper 002 follows Demšar's recommendations: rank the methods on every data set
(1 = best, ties share the mean rank), average the ranks, test with the Friedman
test whether all methods are equivalent, and draw the Nemenyi critical
difference (two methods whose average ranks differ by less than CD are not
significantly different); pairwise, the Wilcoxon signed-rank test over the data
sets (Tables 8-9).

Every test statistic comes from scipy, not from code of our own:

* ranks: ``scipy.stats.rankdata`` (method "average") on the negated scores;
* Friedman: ``scipy.stats.friedmanchisquare`` (with its tie correction);
* Nemenyi: CD = q_alpha * sqrt(k (k + 1) / (6 N)), where q_alpha is the
  studentized range quantile ``scipy.stats.studentized_range.ppf(1 - alpha, k,
  inf)`` divided by sqrt(2) (Demšar's table of q_alpha is exactly this);
* Wilcoxon: ``scipy.stats.wilcoxon`` with scipy's defaults (zero differences
  dropped, exact distribution where there are no ties, else the normal
  approximation). The sign says which method the test favours: '>' when the
  row method's differences have the larger sum of signed ranks, shown (as in
  the paper) only where p < alpha.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["average_ranks", "dataset_ranks", "friedman_pvalue", "nemenyi_critical_difference",
           "wilcoxon_matrix"]

ALPHA = 0.05


def _scores(scores):
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] < 2:
        raise ValueError(f"scores must be a (data sets, methods) table with >= 2 methods, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite (one complete row per data set)")
    return scores


def dataset_ranks(scores):
    """Rank of every method on every data set (rows): 1 = highest score, ties averaged."""
    scores = _scores(scores)
    return np.vstack([stats.rankdata(-row, method="average") for row in scores])


def average_ranks(scores):
    """The mean over data sets of :func:`dataset_ranks` (Figures 7-8 plot these)."""
    return dataset_ranks(scores).mean(axis=0)


def friedman_pvalue(scores):
    """p-value of the Friedman test that all methods (columns) are equivalent; NaN with < 3 methods
    or < 2 data sets (scipy's test needs three groups)."""
    scores = _scores(scores)
    if scores.shape[1] < 3 or scores.shape[0] < 2:
        return float("nan")
    if np.all(scores == scores[:, :1]):     # every method tied everywhere: nothing to tell apart
        return 1.0
    return float(stats.friedmanchisquare(*scores.T).pvalue)


def nemenyi_critical_difference(n_methods, n_datasets, alpha=ALPHA):
    """Nemenyi's critical difference of average ranks for k methods over N data sets."""
    k, n = int(n_methods), int(n_datasets)
    if k < 2 or n < 1:
        raise ValueError(f"need >= 2 methods and >= 1 data set, got {k} and {n}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    q_alpha = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
    return float(q_alpha * np.sqrt(k * (k + 1) / (6.0 * n)))


def wilcoxon_matrix(scores, alpha=ALPHA):
    """Pairwise Wilcoxon signed-rank tests over the data sets (rows of ``scores``).

    Returns ``(pvalues, signs)``: ``pvalues[i, j]`` for methods i and j (NaN on the
    diagonal, and where every difference is zero or there is < 1 data set);
    ``signs[i][j]`` '>' / '<' when method i is significantly better / worse than j
    at ``alpha``, else ''.
    """
    scores = _scores(scores)
    k = scores.shape[1]
    pvalues = np.full((k, k), np.nan)
    signs = [["" for _ in range(k)] for _ in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            diff = scores[:, i] - scores[:, j]
            if not np.any(diff != 0):
                continue
            p = float(stats.wilcoxon(scores[:, i], scores[:, j]).pvalue)
            pvalues[i, j] = pvalues[j, i] = p
            nonzero = diff[diff != 0]
            ranks = stats.rankdata(np.abs(nonzero))
            favour = ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()
            if p < alpha and favour != 0:
                signs[i][j], signs[j][i] = (">", "<") if favour > 0 else ("<", ">")
    return pvalues, signs
