"""Tests of the test oracles themselves (oracles.split_search, oracles.reference_boosting).

The engine's tests compare against these references, so here we check the
references against scikit-learn, scipy, brute-force grids and the paper's
own invariances (identity projection = no projection, gbrt-rpo on identical
outputs = gbmort, monotone training loss, eqs. 20 and 23).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import minimize_scalar
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.tree import DecisionTreeRegressor

from oracles.reference_boosting import (
    LOGISTIC_RHO_MAX,
    LOSSES,
    STRATEGIES,
    init_constant,
    line_search,
    loss_per_sample,
    negative_gradient,
    numerical_gradient,
    reference_boosting,
    weighted_median,
)
from oracles.split_search import brute_force_best_split, brute_force_impurity


def _data(seed, n=80, p=4, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p))
    f = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 5 * X[:, 2]
    Y = f[:, None] + rng.normal(size=(n, d))
    w = rng.uniform(0.2, 3.0, size=n)
    return X, Y, w


def _targets(loss, Y):
    """Labels in {-1, +1} for the logistic loss, raw targets otherwise."""
    if loss == "logistic":
        return np.where(Y > np.median(Y, axis=0), 1.0, -1.0)
    return Y


def _objective(loss, y, f, a, w, rho):
    return float(w @ loss_per_sample(loss, y[:, None], (f + rho * a)[:, None]))


# ---------------------------------------------------------------------------
# Split oracle
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_outputs", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_samples_leaf", [1, 9])
def test_split_matches_sklearn_stump(seed, n_outputs, weighted, min_samples_leaf):
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.normal(size=(n, 5))
    T = rng.normal(size=(n, n_outputs)) + 0.7 * X[:, [seed % 5]]
    w = rng.uniform(0.1, 4.0, size=n) if weighted else None

    ours = brute_force_best_split(X, T, w, min_samples_leaf=min_samples_leaf)
    assert ours["n_ties"] == 1  # continuous data: a unique best split
    sk = DecisionTreeRegressor(max_depth=1, min_samples_leaf=min_samples_leaf, random_state=0)
    tree = sk.fit(X, T if n_outputs > 1 else T[:, 0], sample_weight=w).tree_
    left, right = tree.children_left[0], tree.children_right[0]

    assert ours["feature"] == tree.feature[0]
    assert ours["threshold"] == tree.threshold[0]  # same float32 midpoint, bit for bit
    assert ours["n_left"] == tree.n_node_samples[left]
    assert ours["n_right"] == tree.n_node_samples[right]
    # scikit-learn's impurity is the MEAN over outputs of the variances; ours the SUM.
    np.testing.assert_allclose(ours["impurity"], n_outputs * tree.impurity[0], rtol=1e-9)
    np.testing.assert_allclose(ours["impurity_left"], n_outputs * tree.impurity[left], rtol=1e-9)
    np.testing.assert_allclose(ours["impurity_right"], n_outputs * tree.impurity[right], rtol=1e-9)
    for side, node in (("value_left", left), ("value_right", right)):
        np.testing.assert_allclose(ours[side], tree.value[node].ravel(), rtol=1e-12, atol=1e-12)


def test_split_quantities_are_consistent():
    X, Y, w = _data(1)
    s = brute_force_best_split(X, Y, w)
    left = X[:, s["feature"]].astype(np.float32) <= s["threshold"]
    wl, wr = w[left].sum(), w[~left].sum()
    # improvement = SSE(node) - SSE(left) - SSE(right), SSE = W * impurity
    expected = w.sum() * s["impurity"] - wl * s["impurity_left"] - wr * s["impurity_right"]
    np.testing.assert_allclose(s["improvement"], expected, rtol=1e-10)
    np.testing.assert_allclose(s["impurity"], brute_force_impurity(Y, w), rtol=1e-12)
    np.testing.assert_allclose(s["value_left"], np.average(Y[left], axis=0, weights=w[left]))
    var_left = np.average((Y[left] - s["value_left"]) ** 2, axis=0, weights=w[left]).sum()
    np.testing.assert_allclose(s["impurity_left"], var_left, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 25), msl=st.integers(1, 3))
def test_split_beats_every_single_candidate(seed, n, msl):
    """The best improvement dominates any admissible threshold checked directly."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 3)).astype(float)  # many duplicates
    T = rng.normal(size=(n, 2))
    w = rng.uniform(0.5, 2, size=n)
    s = brute_force_best_split(X, T, w, min_samples_leaf=msl)

    def sse(mask):
        m = np.average(T[mask], axis=0, weights=w[mask])
        return float(w[mask] @ ((T[mask] - m) ** 2).sum(axis=1))

    best_direct = -np.inf
    for f in range(3):
        vals = np.unique(X[:, f])
        for thr in (vals[:-1] + vals[1:]) / 2:
            left = X[:, f] <= thr
            if min(left.sum(), (~left).sum()) >= msl:
                best_direct = max(best_direct, sse(np.ones(n, bool)) - sse(left) - sse(~left))
    if s is None:
        assert best_direct == -np.inf
    else:
        np.testing.assert_allclose(s["improvement"], best_direct, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("offset", [1e6, 1e8])
def test_split_is_numerically_careful_with_large_offsets(offset):
    """Two-pass SSE: a large offset in the targets changes nothing (a one-pass
    sum-of-squares formula loses ~all digits at 1e8)."""
    X, Y, w = _data(2)
    a = brute_force_best_split(X, Y, w)
    b = brute_force_best_split(X, Y + offset, w)
    for key in ("feature", "threshold", "n_ties"):
        assert a[key] == b[key]
    for key in ("impurity", "impurity_left", "impurity_right", "improvement"):
        np.testing.assert_allclose(b[key], a[key], rtol=1e-7)
    # exact ties survive the offset too (every candidate is evaluated carefully)
    x = np.arange(4.0)[:, None]
    t = brute_force_best_split(x, np.array([0.0, 5.0, 5.0, 0.0]) + offset)
    assert (t["n_ties"], t["threshold"]) == (2, 0.5)
    np.testing.assert_allclose(t["improvement"], 25 / 3, rtol=1e-7)


def test_split_ties_pick_lowest_feature_then_lowest_threshold():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    T = np.array([0.0, 5.0, 5.0, 0.0])  # splits at 0.5 and 2.5 are equally good
    s = brute_force_best_split(np.column_stack([x, x]), T)  # and both features are equal
    assert s["n_ties"] == 4
    assert (s["feature"], s["threshold"]) == (0, 0.5)
    s1 = brute_force_best_split(x[:, None], T)
    assert s1["n_ties"] == 2 and s1["threshold"] == 0.5


def test_split_skips_values_closer_than_feature_threshold():
    x = np.array([0.0, 5e-8, 1.0, 2.0])  # 0 and 5e-8 are distinct float32 values
    T = np.array([10.0, 0.0, 0.0, 0.0])  # a split between them would be perfect
    s = brute_force_best_split(x[:, None], T)
    assert s["threshold"] == np.float64(np.float32(5e-8)) / 2 + 0.5
    sk = DecisionTreeRegressor(max_depth=1).fit(x[:, None], T).tree_
    assert sk.threshold[0] == s["threshold"]


def test_split_uses_float32_values_and_counts_samples_for_min_leaf():
    # 1 and 1 + 1e-9 are the same float32: no admissible split at all.
    assert brute_force_best_split(np.array([[1.0], [1.0 + 1e-9]]), np.array([0.0, 1.0])) is None
    # min_samples_leaf counts samples even when weights are large.
    X = np.arange(4.0)[:, None]
    assert brute_force_best_split(X, np.arange(4.0), np.full(4, 100.0), min_samples_leaf=3) is None
    s = brute_force_best_split(X, np.array([0.0, 0.0, 0.0, 9.0]), min_samples_leaf=2)
    assert (s["n_left"], s["n_right"], s["threshold"]) == (2, 2, 1.5)


# ---------------------------------------------------------------------------
# Losses, constants, line searches
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("loss", LOSSES)
def test_negative_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(3)
    Y = _targets(loss, rng.normal(size=(15, 3)))
    F = rng.normal(size=Y.shape) * 2
    if loss == "absolute_error":  # stay away from the kink at y == f
        F = np.where(np.abs(Y - F) < 1e-2, F + 0.1, F)
    np.testing.assert_allclose(
        negative_gradient(loss, Y, F), -numerical_gradient(loss, Y, F, eps=1e-6), atol=1e-7
    )


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_init_constant_is_the_minimiser(loss, weighted):
    X, Y, w = _data(4, n=41, d=2)
    Y = _targets(loss, Y)
    Y[:30] = np.abs(Y[:30]) if loss == "logistic" else Y[:30]  # imbalanced labels
    w = w if weighted else np.ones(len(Y))
    rho0 = init_constant(loss, Y, w)
    for j in range(Y.shape[1]):
        zero = np.zeros(len(Y))

        def h(r):
            return _objective(loss, Y[:, j], zero, zero + 1.0, w, r)

        res = minimize_scalar(h, bounds=(-20, 20), method="bounded", options={"xatol": 1e-12})
        assert h(rho0[j]) <= res.fun + 1e-9
        grid = rho0[j] + np.linspace(-1, 1, 2001)
        assert h(rho0[j]) <= min(h(r) for r in grid) + 1e-12
        if loss != "absolute_error":  # strictly convex: the minimiser is unique
            np.testing.assert_allclose(rho0[j], res.x, atol=1e-6)


def test_logistic_init_is_half_log_odds_not_table1():
    y = np.array([1.0] * 30 + [-1.0] * 10)[:, None]
    rho0 = init_constant("logistic", y)[0]
    np.testing.assert_allclose(rho0, 0.5 * np.log(3.0), rtol=1e-15)

    def h(r):
        return loss_per_sample("logistic", y, np.full_like(y, r)).sum()

    res = minimize_scalar(h, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12})
    np.testing.assert_allclose(rho0, res.x, atol=1e-7)
    assert h(np.log(3.0)) > h(rho0) + 1e-3  # the paper's Table 1 value is not the minimiser


def test_weighted_median():
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 10):
        v = rng.normal(size=n)
        assert weighted_median(v, np.ones(n)) == np.median(v)
    v = rng.normal(size=9)
    k = rng.integers(1, 4, size=9)  # integer weights = repeated samples
    assert weighted_median(v, k) == np.median(np.repeat(v, k))
    assert weighted_median([1.0, 2.0, 100.0], [1.0, 0.0, 1.0]) == 50.5  # zero weight ignored


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("seed", range(3))
def test_line_search_hits_the_minimum(loss, seed):
    rng = np.random.default_rng(seed)
    n = 50
    y = _targets(loss, rng.normal(size=(n, 1)))[:, 0]
    f = rng.normal(size=n) * 0.5
    a = np.round(rng.normal(size=n), 1)  # tree-like: few distinct values
    w = rng.uniform(0.1, 2, size=n)
    rho = line_search(loss, y, f, a, w)

    def h(r):
        return _objective(loss, y, f, a, w, r)

    res = minimize_scalar(
        h, bounds=(rho - 10, rho + 10), method="bounded", options={"xatol": 1e-12}
    )
    assert h(rho) <= res.fun + 1e-10
    grid = rho + np.linspace(-2, 2, 4001)
    assert h(rho) <= min(h(r) for r in grid) + 1e-12
    if loss == "squared_error":  # eqs. 20/23
        np.testing.assert_allclose(rho, (w * (y - f)) @ a / ((w * a) @ a), rtol=1e-13)
    elif loss == "absolute_error":  # weighted median of r/a with weights w|a|
        nz = a != 0
        wm = weighted_median((y - f)[nz] / a[nz], (w * np.abs(a))[nz])
        np.testing.assert_allclose(h(rho), h(wm), rtol=1e-12)
    else:  # the derivative vanishes at rho
        np.testing.assert_allclose(rho, res.x, atol=1e-6)
        deriv = -(w * a) @ negative_gradient("logistic", y[:, None], (f + rho * a)[:, None])[:, 0]
        assert abs(deriv) < 1e-10


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    loss=st.sampled_from(LOSSES),
    r=hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-3, 3)),
    data=st.data(),
)
def test_line_search_is_a_local_minimum(loss, r, data):
    n = r.size
    a = data.draw(hnp.arrays(np.float64, n, elements=st.sampled_from([-1.5, -0.5, 0.0, 0.25, 2.0])))
    w = data.draw(hnp.arrays(np.float64, n, elements=st.floats(0.1, 3)))
    y = np.where(r >= 0, 1.0, -1.0) if loss == "logistic" else r
    f = np.zeros(n) if loss != "logistic" else r / 3
    rho = line_search(loss, y, f, a, w)
    if not np.any(a != 0):
        assert rho == 0.0
        return
    h0 = _objective(loss, y, f, a, w, rho)
    for delta in (1e-6, 1e-3, 0.1, 1.0):
        step = delta * (1 + abs(rho))
        assert h0 <= _objective(loss, y, f, a, w, rho + step) + 1e-9 * (1 + h0)
        assert h0 <= _objective(loss, y, f, a, w, rho - step) + 1e-9 * (1 + h0)


def test_line_search_zero_direction_gives_zero():
    y = np.array([1.0, -1.0, 1.0])
    for loss in LOSSES:
        assert line_search(loss, y, np.zeros(3), np.zeros(3)) == 0.0
        a, w = np.array([1.0, 2.0, 0.0]), np.array([0.0, 0.0, 1.0])  # w * a == 0
        assert line_search(loss, y, np.zeros(3), a, w) == 0.0


# ---------------------------------------------------------------------------
# Boosting reference
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("learning_rate", [0.1, 0.7])
@pytest.mark.parametrize("weighted", [False, True])
def test_single_target_one_output_matches_sklearn_gbr(learning_rate, weighted):
    X, Y, w = _data(6, n=120)
    y = Y[:, 0]
    w = w if weighted else None
    n_steps = 25
    ref = reference_boosting(
        X, y, strategy="single_target", learning_rate=learning_rate, n_steps=n_steps,
        sample_weight=w,
    )
    gbr = GradientBoostingRegressor(
        loss="squared_error", max_depth=1, learning_rate=learning_rate, n_estimators=n_steps,
        subsample=1.0, random_state=0,
    ).fit(X, y, sample_weight=w)
    for ours, theirs in zip(ref["staged_raw"], gbr.staged_predict(X), strict=True):
        np.testing.assert_allclose(ours[:, 0], theirs, rtol=0, atol=1e-8)
    X_new = np.random.default_rng(7).uniform(size=(30, X.shape[1]))
    stages = ref["staged_predict_raw"](X_new)
    for ours, theirs in zip(stages, gbr.staged_predict(X_new), strict=True):
        np.testing.assert_allclose(ours[:, 0], theirs, rtol=0, atol=1e-8)


@pytest.mark.parametrize("weighted", [False, True])
def test_multi_output_square_loss_rho_is_one_and_first_tree_is_sklearn(weighted):
    X, Y, w = _data(8)
    w = w if weighted else np.ones(len(Y))
    ref = reference_boosting(
        X, Y, strategy="multi_output", n_steps=6, max_leaf_nodes=3, sample_weight=w
    )
    np.testing.assert_allclose(ref["rho"], 1.0, rtol=0, atol=1e-12)

    mean = np.average(Y, axis=0, weights=w)
    np.testing.assert_allclose(ref["init"], mean, rtol=1e-14)
    tree = DecisionTreeRegressor(max_leaf_nodes=3, random_state=0).fit(X, Y - mean, sample_weight=w)
    A = tree.predict(X)
    # eq. 20 evaluated directly on the first step: leaf means make rho_j = 1
    rho_eq20 = ((w[:, None] * (Y - mean)) * A).sum(axis=0) / ((w[:, None] * A) * A).sum(axis=0)
    np.testing.assert_allclose(rho_eq20, 1.0, atol=1e-12)
    np.testing.assert_allclose(ref["staged_raw"][0], mean + 0.1 * A, rtol=0, atol=1e-12)
    # and the multi-output stump agrees with the brute-force split oracle
    stump = reference_boosting(X, Y, strategy="multi_output", n_steps=1, sample_weight=w)
    stump = stump["trees"][0][0]
    s = brute_force_best_split(X, Y - mean, w)
    assert (stump.tree_.feature[0], stump.tree_.threshold[0]) == (s["feature"], s["threshold"])


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_identity_projection_relabel_equals_multi_output(loss, weighted):
    X, Y, w = _data(9)
    Y = _targets(loss, Y)
    w = w if weighted else None
    d, n_steps = Y.shape[1], 8
    kw = dict(loss=loss, learning_rate=0.3, n_steps=n_steps, max_leaf_nodes=4, sample_weight=w)
    mo = reference_boosting(X, Y, strategy="multi_output", **kw)
    identity = [np.eye(d)] * n_steps
    rl = reference_boosting(X, Y, strategy="projected_relabel", projections=identity, **kw)
    np.testing.assert_allclose(rl["rho"], mo["rho"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(rl["train_loss"], mo["train_loss"], rtol=1e-10)
    for a, b in zip(rl["staged_raw"], mo["staged_raw"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("loss", LOSSES)
def test_projected_subsampling_on_identical_outputs_equals_multi_output(loss):
    X, Y, w = _data(10, d=1)
    d, n_steps = 4, 8
    Y = _targets(loss, np.repeat(Y, d, axis=1))
    rng = np.random.default_rng(11)
    projections = [np.eye(d)[[rng.integers(d)]] for _ in range(n_steps)]  # output sub-sampling
    kw = dict(loss=loss, learning_rate=0.5, n_steps=n_steps, max_leaf_nodes=3)
    mo = reference_boosting(X, Y, strategy="multi_output", **kw)
    pr = reference_boosting(X, Y, strategy="projected", projections=projections, **kw)
    np.testing.assert_allclose(pr["rho"], mo["rho"], rtol=1e-9, atol=1e-12)
    for a, b in zip(pr["staged_raw"], mo["staged_raw"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


def test_projected_square_loss_rho_follows_eq23_and_relabel_rho_is_one():
    X, Y, w = _data(12)
    d = Y.shape[1]
    rng = np.random.default_rng(13)
    phis = [rng.normal(size=(1, d)) for _ in range(3)]
    pr = reference_boosting(
        X, Y, strategy="projected", n_steps=3, projections=phis, sample_weight=w
    )
    G = Y - np.average(Y, axis=0, weights=w)
    tree = DecisionTreeRegressor(max_leaf_nodes=2, random_state=0)
    tree.fit(X, G @ phis[0][0], sample_weight=w)
    a = tree.predict(X)
    np.testing.assert_allclose(pr["rho"][0], (w * a) @ G / ((w * a) @ a), rtol=1e-12)  # eq. 23
    assert np.ptp(pr["rho"][0]) > 0.01  # outputs get different weights
    # Section 3.3.1: with output sub-sampling and relabelling, rho is all ones.
    subs = [np.eye(d)[[k % d]] for k in range(5)]
    rl = reference_boosting(
        X, Y, strategy="projected_relabel", n_steps=5, projections=subs, sample_weight=w
    )
    np.testing.assert_allclose(rl["rho"], 1.0, atol=1e-12)


@pytest.mark.parametrize("learning_rate", [0.1, 1.0])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_training_loss_never_increases(strategy, loss, learning_rate):
    X, Y, w = _data(14, n=70, d=3)
    Y = _targets(loss, Y)
    rng = np.random.default_rng(15)
    q = 2 if strategy == "projected_relabel" else 1
    projections = [rng.normal(size=(q, 3)) for _ in range(12)]
    ref = reference_boosting(
        X, Y, strategy=strategy, loss=loss, learning_rate=learning_rate, n_steps=12,
        max_leaf_nodes=3, projections=projections, sample_weight=w,
    )
    losses = np.concatenate([[ref["init_loss"]], ref["train_loss"]])
    assert np.all(np.diff(losses) <= 1e-12 * losses[:-1])
    assert losses[-1] < 0.9 * losses[0]  # and it actually learns something


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_stages_predictions_and_fresh_models_agree(strategy):
    X, Y, w = _data(16, n=50)
    rng = np.random.default_rng(17)
    projections = [rng.normal(size=(1, 3)) for _ in range(5)]
    kw = dict(strategy=strategy, loss="absolute_error", max_leaf_nodes=3, projections=projections)
    ref = reference_boosting(X, Y, n_steps=5, **kw)
    stages = ref["staged_predict_raw"](X)
    assert len(stages) == len(ref["staged_raw"]) == 5
    for a, b in zip(stages, ref["staged_raw"]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ref["predict_raw"](X), ref["staged_raw"][-1])
    three = reference_boosting(X, Y, n_steps=3, **kw)  # stage i = a fresh model with i steps
    np.testing.assert_array_equal(three["staged_raw"][-1], ref["staged_raw"][2])
    manual = [loss_per_sample("absolute_error", Y, F).mean() for F in ref["staged_raw"]]
    np.testing.assert_allclose(ref["train_loss"], manual, rtol=1e-14)


def test_single_target_fits_one_tree_per_output_on_its_own_gradient():
    X, Y, _ = _data(18)
    Y[:, 1] = -3 * Y[:, 0]  # output 1 is a scaled copy of output 0
    ref = reference_boosting(X, Y, strategy="single_target", n_steps=2)
    assert all(len(trees) == 3 for trees in ref["trees"])
    F0, F1 = ref["staged_raw"][0], ref["staged_raw"][1]
    step0, step1 = F1[:, 0] - F0[:, 0], F1[:, 1] - F0[:, 1]
    np.testing.assert_allclose(step1, -3 * step0, rtol=1e-9, atol=1e-10)
    tree0 = DecisionTreeRegressor(max_leaf_nodes=2, random_state=0).fit(X, Y[:, 2] - Y[:, 2].mean())
    np.testing.assert_allclose(F0[:, 2], Y[:, 2].mean() + 0.1 * tree0.predict(X), atol=1e-12)


def test_projected_strategies_require_projections():
    X, Y, _ = _data(19, n=20)
    for strategy in ("projected", "projected_relabel"):
        with pytest.raises(ValueError):
            reference_boosting(X, Y, strategy=strategy, n_steps=2)
    with pytest.raises(ValueError):
        reference_boosting(X, Y, strategy="projected", n_steps=1, projections=[np.eye(3)])


def test_logistic_line_search_on_separable_data_stops_at_the_bound():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    # a agrees in sign with y everywhere: the loss decreases forever along +a
    assert line_search("logistic", y, np.zeros(4), 0.5 * y) == LOGISTIC_RHO_MAX
    assert line_search("logistic", y, np.zeros(4), -0.5 * y) == -LOGISTIC_RHO_MAX


# ---------------------------------------------------------------------------
# Binned split oracle (oracles.binned_split_search)
# ---------------------------------------------------------------------------
from oracles.binned_split_search import (  # noqa: E402
    brute_force_binned_split,
    reference_codes,
    reference_histogram,
)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_binned_split_with_every_midpoint_is_the_exact_split(seed, weighted):
    X, Y, w = _data(seed, n=60, p=3, d=2)
    w = w if weighted else None
    X32 = X.astype(np.float32).astype(np.float64)
    thresholds = []
    for f in range(X.shape[1]):
        v = np.unique(X32[:, f])
        thresholds.append(v[:-1] / 2 + v[1:] / 2)
    ref = brute_force_best_split(X, Y, w)
    got = brute_force_binned_split(X, Y, thresholds, w)
    assert (got["feature"], got["threshold"]) == (ref["feature"], ref["threshold"])
    np.testing.assert_allclose(got["improvement"], ref["improvement"], rtol=1e-12)


def test_binned_split_only_tries_the_given_thresholds():
    X, Y, _ = _data(0, n=50, p=3, d=1)
    thresholds = [np.array([0.3]), np.array([0.5, 0.7]), np.array([])]
    got = brute_force_binned_split(X, Y, thresholds)
    assert got["threshold"] in (0.3, 0.5, 0.7)
    # one threshold per feature kept: the best of the three
    imps = []
    for f, thr in ((0, 0.3), (1, 0.5), (1, 0.7)):
        left = X[:, f].astype(np.float32) <= thr
        imps.append(brute_force_impurity(Y) * len(Y) - brute_force_impurity(Y[left]) * left.sum()
                    - brute_force_impurity(Y[~left]) * (~left).sum())
    np.testing.assert_allclose(got["improvement"], max(imps), rtol=1e-10)


def test_reference_codes_and_histogram():
    x = np.array([0.0, 0.125, 0.25, 0.5, 0.875])
    codes = reference_codes(x, [0.125, 0.5])
    np.testing.assert_array_equal(codes, [0, 0, 1, 1, 2])
    T = np.arange(5.0)
    h = reference_histogram(codes, 3, T, np.ones(5))
    np.testing.assert_array_equal(h, [[1, 2, 2], [5, 2, 2], [4, 1, 1]])
