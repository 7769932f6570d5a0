"""Tests for engine.metrics against brute-force versions of eq. 25 and eq. 26."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import hamming_loss as sk_hamming
from sklearn.metrics import zero_one_loss as sk_zero_one

from sklearn.metrics import label_ranking_average_precision_score

from engine.metrics import half_macro_r2, hamming_loss, lrap, macro_r2, subset_zero_one_loss


def brute_macro_r2(Y, F):
    """Eq. 26 written out with loops."""
    n, d = Y.shape
    total = 0.0
    for j in range(d):
        mean = sum(Y[i, j] for i in range(n)) / n
        sse = sum((Y[i, j] - F[i, j]) ** 2 for i in range(n))
        sst = sum((Y[i, j] - mean) ** 2 for i in range(n))
        total += sse / sst
    return 1.0 - total / d


def brute_lrap(Y, F):
    """Eq. 25 written out: L_j(q) = {k : q_k = 1 and f_k >= f_j}."""
    n, d = Y.shape
    score = 0.0
    for i in range(n):
        pos = [j for j in range(d) if Y[i, j] == 1]
        s = 0.0
        for j in pos:
            above_true = sum(1 for k in range(d) if Y[i, k] == 1 and F[i, k] >= F[i, j])
            above_all = sum(1 for k in range(d) if F[i, k] >= F[i, j])
            s += above_true / above_all
        score += s / len(pos)
    return score / n


@pytest.mark.parametrize("seed", range(5))
def test_macro_r2_matches_eq26(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(5, 60), rng.integers(1, 8)
    Y = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d)
    F = Y + rng.normal(size=(n, d)) * rng.uniform(0.1, 5, size=d)
    assert macro_r2(Y, F) == pytest.approx(brute_macro_r2(Y, F), rel=1e-10, abs=1e-12)


def test_macro_r2_reference_points():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(40, 3))
    assert macro_r2(Y, Y) == 1.0
    assert macro_r2(Y, np.tile(Y.mean(axis=0), (40, 1))) == pytest.approx(0.0, abs=1e-12)
    assert macro_r2(Y, Y + 100) < 0
    # 1-D arrays are a single output
    assert macro_r2(Y[:, 0], Y[:, 0] * 0.5) == pytest.approx(brute_macro_r2(Y[:, :1], Y[:, :1] * 0.5))


def test_macro_r2_is_mean_of_per_output_scores_not_pooled():
    # one output with a huge scale must not dominate
    rng = np.random.default_rng(1)
    Y = np.column_stack([rng.normal(size=50), 1000 * rng.normal(size=50)])
    F = np.column_stack([np.zeros(50) + Y[:, 0].mean(), Y[:, 1]])
    assert macro_r2(Y, F) == pytest.approx(0.5, abs=1e-12)


def test_macro_r2_constant_output_convention():
    rng = np.random.default_rng(2)
    Y = np.column_stack([rng.normal(size=20), np.full(20, 3.0)])
    F = Y.copy()
    # perfectly predicted constant output counts 1
    assert macro_r2(Y, F) == pytest.approx(1.0)
    F[:, 1] = 3.5
    # wrongly predicted constant output counts 0
    assert macro_r2(Y, F) == pytest.approx(0.5)


def test_half_macro_r2():
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(100, 6))
    F = Y + rng.normal(size=(100, 6)) * np.array([0.1, 0.2, 0.3, 5, 5, 5])
    assert half_macro_r2(Y, F, 3) == pytest.approx(brute_macro_r2(Y[:, :3], F[:, :3]))
    assert half_macro_r2(Y, F, 6) == pytest.approx(macro_r2(Y, F))
    assert half_macro_r2(Y, F, 3) > macro_r2(Y, F)
    assert half_macro_r2(Y, F, np.int64(2)) == pytest.approx(brute_macro_r2(Y[:, :2], F[:, :2]))


@pytest.mark.parametrize("seed", range(6))
def test_lrap_matches_eq25_with_ties(seed):
    rng = np.random.default_rng(seed)
    n, d = 40, rng.integers(2, 9)
    Y = (rng.random((n, d)) < 0.4).astype(float)
    Y[np.arange(n), rng.integers(0, d, n)] = 1  # at least one true label per row
    # integer scores in a small range: many ties
    F = rng.integers(0, 3, size=(n, d)).astype(float)
    assert lrap(Y, F) == pytest.approx(brute_lrap(Y, F), abs=1e-12)
    G = rng.normal(size=(n, d))
    assert lrap(Y, G) == pytest.approx(brute_lrap(Y, G), abs=1e-12)


def test_lrap_does_not_depend_on_the_order_of_the_labels():
    # One sort per sample: tied labels come out of it in some order; a tie's rank is its run's last
    # position, so permuting the labels (with many ties) gives the same number, to rounding.
    rng = np.random.default_rng(7)
    Y = (rng.random((300, 50)) < 0.1).astype(float)
    Y[np.arange(300), rng.integers(0, 50, 300)] = 1     # at least one true label per row (eq. 25)
    F = rng.integers(0, 4, size=Y.shape).astype(float)
    value = lrap(Y, F)
    for _ in range(5):
        perm = rng.permutation(50)
        assert lrap(Y[:, perm], F[:, perm]) == pytest.approx(value, abs=1e-15)
    assert value == pytest.approx(brute_lrap(Y, F), abs=1e-12)
    # Chunks of rows give the same total as one pass.
    from engine.metrics import ranking_average_precision
    assert ranking_average_precision(Y > 0, F, chunk_size=7) == pytest.approx(value, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.integers(2, 6).flatmap(
            lambda d: st.tuples(
                arrays(np.int8, (n, d), elements=st.integers(0, 1)),
                arrays(np.float64, (n, d), elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0])),
            )
        )
    )
)
def test_lrap_property(data):
    Y, F = data
    Y = Y.astype(float)
    keep = (Y.sum(axis=1) > 0) & (Y.sum(axis=1) < Y.shape[1])
    if not keep.any():
        return
    Y, F = Y[keep], F[keep]
    assert lrap(Y, F) == pytest.approx(brute_lrap(Y, F), abs=1e-12)


def test_lrap_reference_points():
    Y = np.array([[1, 0, 0], [0, 1, 1]], dtype=float)
    assert lrap(Y, Y) == 1.0
    assert lrap(Y, Y * 2 - 1) == 1.0  # only the order matters
    # all labels scored equal: LRAP = fraction of positive labels per sample
    assert lrap(Y, np.zeros_like(Y)) == pytest.approx((1 / 3 + 2 / 3) / 2)
    # worst order for sample 1: its true label ranked last
    assert lrap(Y[:1], np.array([[0.0, 1.0, 2.0]])) == pytest.approx(1 / 3)


def test_lrap_sample_without_true_label_scores_one():
    Y = np.array([[0, 0, 0], [1, 0, 0]], dtype=float)
    F = np.array([[0.3, 0.2, 0.1], [0.0, 1.0, 2.0]])
    assert lrap(Y, F) == pytest.approx((1.0 + 1 / 3) / 2)


def test_hamming_and_subset_losses():
    rng = np.random.default_rng(4)
    Y = (rng.random((60, 7)) < 0.3).astype(int)
    P = Y.copy()
    flip = rng.random(P.shape) < 0.1
    P[flip] = 1 - P[flip]
    h = hamming_loss(Y, P)
    assert h == pytest.approx(flip.mean())
    assert h == pytest.approx(sk_hamming(Y, P))
    z = subset_zero_one_loss(Y, P)
    assert z == pytest.approx(flip.any(axis=1).mean())
    assert z == pytest.approx(sk_zero_one(Y, P))
    assert hamming_loss(Y, Y) == 0.0 and subset_zero_one_loss(Y, Y) == 0.0
    assert hamming_loss(Y, 1 - Y) == 1.0 and subset_zero_one_loss(Y, 1 - Y) == 1.0
    # booleans are accepted as predictions
    assert hamming_loss(Y, P.astype(bool)) == pytest.approx(h)


def test_hamming_and_subset_losses_by_hand_and_single_label():
    Y = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]])
    P = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 1, 0]])
    assert hamming_loss(Y, P) == pytest.approx(3 / 12)      # three wrong entries
    assert subset_zero_one_loss(Y, P) == pytest.approx(2 / 4)  # rows 0 and 2 are wrong
    # one label, as a column or a 1-D array: both losses are the error rate
    y, p = np.array([1, 0, 1, 1, 0]), np.array([1, 1, 1, 0, 0])
    for a, b in ((y, p), (y[:, None], p[:, None])):
        assert hamming_loss(a, b) == pytest.approx(0.4)
        assert subset_zero_one_loss(a, b) == pytest.approx(0.4)


# ---------------------------------------------------------------- bad input

GOOD = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
ALL = [macro_r2, lrap, hamming_loss, subset_zero_one_loss, lambda a, b: half_macro_r2(a, b, 1)]


@pytest.mark.parametrize("fn", ALL)
def test_shape_mismatch(fn):
    with pytest.raises(ValueError, match="same shape"):
        fn(GOOD, GOOD[:, :1])
    with pytest.raises(ValueError, match="same shape"):
        fn(GOOD, GOOD[:2])


@pytest.mark.parametrize("fn", ALL)
@pytest.mark.parametrize(
    "a_true,a_pred,arg",
    [
        (np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), "Y_true"),
        (np.zeros((0, 2)), np.zeros((0, 2)), "Y_true"),
        (np.array([[np.nan, 1.0], [1.0, 0.0], [0.0, 1.0]]), GOOD, "Y_true"),
        (GOOD, np.array([[np.inf, 1.0], [1.0, 0.0], [0.0, 1.0]]), "Y_pred"),
        ([["a", "b"], ["c", "d"], ["e", "f"]], GOOD, "Y_true"),
    ],
)
def test_bad_arrays(fn, a_true, a_pred, arg):
    with pytest.raises(ValueError, match=arg):
        fn(a_true, a_pred)


@pytest.mark.parametrize("fn", [lrap, hamming_loss, subset_zero_one_loss])
def test_non_binary_truth(fn):
    with pytest.raises(ValueError, match="Y_true.*0 and 1"):
        fn(GOOD * 2, GOOD)


@pytest.mark.parametrize("fn", [hamming_loss, subset_zero_one_loss])
def test_non_binary_prediction(fn):
    with pytest.raises(ValueError, match="Y_pred.*0 and 1"):
        fn(GOOD, GOOD * 0.5)


def test_lrap_accepts_real_scores():
    assert 0 < lrap(GOOD, GOOD * 0.3 + 0.1) <= 1


@pytest.mark.parametrize("fn", [macro_r2, lambda a, b: half_macro_r2(a, b, 1)])
def test_r2_needs_two_samples(fn):
    with pytest.raises(ValueError, match="at least 2 samples"):
        fn(np.ones((1, 2)), np.ones((1, 2)))


@pytest.mark.parametrize("n_original", [0, 3, -1, 1.0, True, "1", None])
def test_half_macro_r2_bad_n_original(n_original):
    with pytest.raises(ValueError, match="n_original"):
        half_macro_r2(GOOD, GOOD, n_original)


def test_lrap_equals_scikit_learn():
    # One LRAP for the whole engine: the vectorised one, equal to scikit-learn's.
    rng = np.random.default_rng(1)
    for n, d in ((40, 3), (200, 17), (30, 120)):
        Y = (rng.random((n, d)) < 0.3).astype(int)
        Y[0], Y[1] = 0, 1
        S = np.round(rng.normal(size=(n, d)), 1)  # with ties
        assert lrap(Y, S) == pytest.approx(label_ranking_average_precision_score(Y, S), abs=1e-12)
