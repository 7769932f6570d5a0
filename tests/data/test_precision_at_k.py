"""Precision and nDCG at k (engine.metrics) against brute-force loops over each row's ranking."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.metrics import ndcg_at_k, precision_at_k, top_k_labels


def brute_ranking(scores):
    """Labels by decreasing score, ties by increasing label index (a sort on (-score, label))."""
    return sorted(range(len(scores)), key=lambda j: (-scores[j], j))


def brute_precision(Y, S, k):
    values = []
    for y, s in zip(Y, S):
        if y.sum() == 0:
            continue                                    # rows without a true label are left out
        values.append(sum(y[j] for j in brute_ranking(s)[:k]) / k)
    return sum(values) / len(values)


def brute_ndcg(Y, S, k):
    values = []
    for y, s in zip(Y, S):
        n_true = int(y.sum())
        if n_true == 0:
            continue
        dcg = sum(y[j] / math.log2(r + 2) for r, j in enumerate(brute_ranking(s)[:k]))
        ideal = sum(1.0 / math.log2(r + 2) for r in range(min(k, n_true)))
        values.append(dcg / ideal)
    return sum(values) / len(values)


def _problem(seed, n=40, d=12, ties=False):
    rng = np.random.default_rng(seed)
    Y = (rng.uniform(size=(n, d)) < 0.2).astype(float)
    Y[0] = 0.0                                          # one row without labels
    S = rng.normal(size=(n, d))
    if ties:
        S = np.round(S, 0)                              # many equal scores in a row
    return Y, S


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [1, 3, 5, 12])
def test_precision_and_ndcg_match_the_loops(seed, ties, k):
    Y, S = _problem(seed, ties=ties)
    assert precision_at_k(Y, S, k) == pytest.approx(brute_precision(Y, S, k), abs=1e-12)
    assert ndcg_at_k(Y, S, k) == pytest.approx(brute_ndcg(Y, S, k), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 9), st.integers(0, 10_000), st.integers(0, 3))
def test_top_k_is_the_stable_sort_prefix(n, d, seed, levels):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, levels + 1, size=(n, d)).astype(float) if levels else rng.normal(size=(n, d))
    k = int(rng.integers(1, d + 1))
    expected = np.array([brute_ranking(list(s))[:k] for s in S])
    np.testing.assert_array_equal(top_k_labels(S, k), expected)


def test_reference_points():
    Y = np.array([[1, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]], dtype=float)
    S = np.array([[0.9, 0.8, 0.1, 0.0], [0.9, 0.8, 0.7, 0.6], [1.0, 0.0, 0.0, 0.0]])
    # row 0: top 1 = label 0 (true), top 3 = {0, 1, 2}: 2 true; row 1: its label ranked last; row 2 left out
    assert precision_at_k(Y, S, 1) == pytest.approx(0.5)
    assert precision_at_k(Y, S, 3) == pytest.approx((2 / 3 + 0) / 2)
    assert ndcg_at_k(Y, S, 3) == pytest.approx(((1 + 1 / 2) / (1 + 1 / math.log2(3)) + 0) / 2)
    assert ndcg_at_k(Y, Y, 4) == pytest.approx(1.0)                 # perfect ranking
    assert precision_at_k(Y, S + 7.0, 3) == precision_at_k(Y, S, 3)  # only the order counts


def test_bad_arguments_name_themselves():
    Y, S = _problem(0)
    for k in (0, 13, 2.0, True, None):
        with pytest.raises(ValueError, match="k must be"):
            precision_at_k(Y, S, k)
    with pytest.raises(ValueError, match="no row with a true label"):
        ndcg_at_k(np.zeros((3, 4)), np.ones((3, 4)), 1)
    with pytest.raises(ValueError, match="Y_true must contain only 0 and 1"):
        precision_at_k(Y * 2, S, 1)
    with pytest.raises(ValueError, match="same shape"):
        ndcg_at_k(Y, S[:, :3], 1)
    with pytest.raises(ValueError, match="Y_pred contains NaN"):
        precision_at_k(Y, np.full_like(S, np.nan), 1)
