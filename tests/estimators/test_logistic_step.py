"""The logistic step's line search (engine/_core/losses.pyx): exact, and the same model as before.

The grouped search must be the exact minimiser of eq. 8 along each output's
direction: checked against scipy's bounded minimiser on the same sum (random
and extreme data), against the stationarity of the sum, and against a numpy
re-implementation of the former search (tests/oracles/logistic_line_search.py),
both on vectors and replayed along fitted models.
"""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from engine._core import testing as _testing
from engine._core.losses import Loss
from paper_settings import PaperClassifier
from oracles.logistic_line_search import MAX_LOGIT_STEP, old_logistic_line_search


def _objective(y, f, a, w, rho):
    return float(w @ np.logaddexp(0.0, -2.0 * y * (f + rho * a)))


def _slope(y, f, a, w, rho):
    # d/drho of the sum, with s = sigma(-2 y (f + rho a)) computed without overflow
    s = 0.5 * (1.0 - np.tanh(y * (f + rho * a)))
    return float(-np.sum(w * 2.0 * y * a * s))


def _brute_force(y, f, a, w):
    """scipy's bounded minimiser of the same sum over the search's interval |rho| <= 15 / max|a|."""
    active = (w > 0) & (a != 0)
    bound = MAX_LOGIT_STEP / np.abs(a[active]).max()
    scale = max(_objective(y, f, a, w, 0.0), 1e-300)
    result = minimize_scalar(lambda r: _objective(y, f, a, w, r) / scale, bounds=(-bound, bound),
                             method="bounded", options={"xatol": 1e-13 * bound})
    return result.x, bound


def _case(kind, seed):
    rng = np.random.default_rng(seed)
    n = 200
    y = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    f = 0.5 * rng.normal(size=n)
    leaf = rng.integers(0, 5, size=n)
    a = rng.normal(size=5)[leaf]           # a tree's direction: a few leaf values
    w = rng.uniform(0.2, 2.0, size=n)
    if kind == "all_negative":
        y[:] = -1.0
    elif kind == "all_positive":
        y[:] = 1.0
    elif kind == "saturated_right":
        f = 40.0 * y + rng.normal(size=n)
    elif kind == "saturated_wrong":
        f = -40.0 * y + rng.normal(size=n)
    elif kind == "overflowing":
        f = 400.0 * y
    elif kind == "tiny_weights":
        w = 1e-300 * w
    elif kind == "imbalanced":
        y[:] = -1.0
        y[:2] = 1.0
        f[:] = -3.0
    return y, f, a, w


KINDS = ["random", "imbalanced", "all_negative", "all_positive", "saturated_right",
         "saturated_wrong", "overflowing", "tiny_weights"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_line_search_is_the_exact_minimiser(kind, seed):
    y, f, a, w = _case(kind, seed)
    rho = _testing.line_search_on_vectors(Loss.LOGISTIC, y, f, a, w)
    assert np.isfinite(rho)
    brute, bound = _brute_force(y, f, a, w)
    value, best = _objective(y, f, a, w, rho), _objective(y, f, a, w, brute)
    assert value <= best + 1e-9 * max(best, 1e-300)
    slope = _slope(y, f, a, w, rho)
    slope_scale = float(np.sum(w * 2.0 * np.abs(a)))
    if abs(abs(rho) - bound) > 1e-12 * bound:
        # an interior minimiser: the slope vanishes there (to float64 rounding of the sum)
        assert abs(slope) <= 1e-9 * slope_scale
        if abs(brute) < bound * (1 - 1e-6) and value > 1e-280:
            assert abs(rho - brute) <= 1e-6 * (1.0 + abs(rho))
    else:
        # stopped at the cap: the sum still decreases towards it
        assert slope * np.sign(rho) <= 0.0
    # the former search finds the same root
    old = old_logistic_line_search(y, f, a, w)
    assert abs(rho - old) <= 1e-9 * max(1.0, abs(old))


def test_line_search_of_a_loss_that_no_sample_feels_is_zero():
    y, f, a, w = _case("random", 0)
    assert _testing.line_search_on_vectors(Loss.LOGISTIC, y, f, a, np.zeros_like(w)) == 0.0
    assert _testing.line_search_on_vectors(Loss.LOGISTIC, y, f, np.zeros_like(a), w) == 0.0


def test_line_search_on_vectors_refuses_labels_other_than_plus_minus_one():
    y, f, a, w = _case("random", 0)
    with pytest.raises(ValueError, match="y must hold -1 and \\+1"):
        _testing.line_search_on_vectors(Loss.LOGISTIC, 0.5 * y, f, a, w)


# ---------------------------------------------------------------- models: the former line search, replayed

def _multilabel_data(seed, n=150, d=5, p=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    logits = X @ rng.normal(size=(p, d)) - 1.0
    Y = (logits + rng.logistic(size=(n, d)) > 0).astype(float)
    Y[0], Y[1] = 1.0, 0.0               # every label has both classes
    return X, Y


def _directions(model, X, m, d):
    """The step-m tree(s) on the training rows: (n, d) directions a_ij."""
    if model.strategy == "single_target":
        return np.column_stack([model.trees_.predict(X, m * d + j)[:, 0] for j in range(d)])
    values = model.trees_.predict(X, m)
    return np.repeat(values, d, axis=1) if values.shape[1] == 1 else values


@pytest.mark.parametrize("strategy,extra", [
    ("multi_output", {}),
    ("projected", dict(projection="gaussian")),
    ("projected_relabel", dict(projection="gaussian", n_projections=2)),
    ("single_target", {}),
])
@pytest.mark.parametrize("max_leaf_nodes", [2, 6])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_fitted_model_equals_the_former_line_search_replayed(strategy, extra, max_leaf_nodes, missing,
                                                            weighted):
    """Every rho_j of a fit equals the former search's on the same trees, and so does the model.

    The trees only depend on F through the gradient; with equal rho (to
    1e-9) the raw scores of the former code's model are the same to 1e-9.
    With row weights every output's search shares one leaf order of the rows
    (losses.pyx, leaf_order); some weights are 0, so some rows must be left out.
    """
    X, Y = _multilabel_data(3)
    n, d = Y.shape
    sample_weight = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 3.0], size=n) if weighted else None
    if weighted:
        sample_weight[:2] = 1.0         # the rows that hold both classes of every label
    W = np.ones((n, d)) if sample_weight is None else np.tile(sample_weight[:, None], (1, d))
    if missing:
        rng = np.random.default_rng(0)
        hide = rng.random((n, d)) < 0.2
        hide[:2] = False
        Y = Y.copy()
        Y[hide] = np.nan
        W[hide] = 0.0
    model = PaperClassifier(
        strategy=strategy, learning_rate=0.3, n_estimators=12, max_leaf_nodes=max_leaf_nodes,
        missing_targets="ignore" if missing else "error", random_state=0, **extra).fit(
            X, Y, sample_weight=sample_weight)
    y = np.where(np.nan_to_num(Y) > 0, 1.0, -1.0)
    F = np.tile(model.init_, (n, 1))
    for m in range(model.n_steps_):
        A = _directions(model, X, m, d)
        old = np.array([old_logistic_line_search(y[:, j], F[:, j], A[:, j], W[:, j]) for j in range(d)])
        np.testing.assert_allclose(model.rho_[m], old, rtol=1e-9, atol=1e-12)
        F = F + model.learning_rate * old * A
    np.testing.assert_allclose(model.decision_function(X), F, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- models: the vectorised exp against libm's

EXP_STRATEGIES = [
    ("multi_output", {}),
    ("projected", dict(projection="gaussian")),
    ("projected_relabel", dict(projection="gaussian", n_projections=2)),
    ("single_target", {}),
]


def _fit_with_exp(mode, X, Y, fit_kw, **params):
    assert _testing.set_exp_mode(mode) in (mode, "portable")
    try:
        return PaperClassifier(**params).fit(X, Y, **fit_kw)
    finally:
        _testing.set_exp_mode("avx2")


def _equal_fits(X, Y, fit_kw=None, **params):
    """The model fitted with the vectorised exp (exp_kernels.h) and with libm's, the former path.

    The two exps differ by at most 1 ulp; the gradients, and with them the
    trees, rho and the raw scores, then differ by rounding only (a few 1e-13
    at most, measured): 1e-9 leaves room for float64 noise, not for a
    different split.
    """
    fit_kw = fit_kw or {}
    libm = _fit_with_exp("libm", X, Y, fit_kw, **params)
    for mode in ("avx2", "portable"):
        fast = _fit_with_exp(mode, X, Y, fit_kw, **params)
        np.testing.assert_allclose(fast.decision_function(X), libm.decision_function(X),
                                   rtol=0, atol=1e-9)
        np.testing.assert_allclose(fast.rho_, libm.rho_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("strategy,extra,leaf_estimation", [
    (strategy, extra, leaves) for strategy, extra in EXP_STRATEGIES for leaves in ("mean", "newton")
    if not (strategy == "projected" and leaves == "newton")])   # Algorithm 3 has no Newton leaves
@pytest.mark.parametrize("weights", ["none", "missing", "per_entry"])
def test_vectorised_exp_fits_the_libm_model(strategy, extra, leaf_estimation, weights):
    X, Y = _multilabel_data(5, n=300, d=9)
    n, d = Y.shape
    rng = np.random.default_rng(1)
    fit_kw, params = {}, {}
    if weights == "missing":
        hide = rng.random((n, d)) < 0.2
        hide[:2] = False
        Y = Y.copy()
        Y[hide] = np.nan
        params["missing_targets"] = "ignore"
    elif weights == "per_entry":
        fit_kw["sample_weight"] = rng.uniform(0.2, 3.0, size=(n, d))
    _equal_fits(X, Y, fit_kw, strategy=strategy, leaf_estimation=leaf_estimation,
                learning_rate=0.3, n_estimators=15, max_leaf_nodes=6, random_state=0, **params, **extra)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bibtex", "corel5k"])
@pytest.mark.parametrize("strategy,extra", EXP_STRATEGIES[:3])
def test_vectorised_exp_fits_the_libm_model_on_real_data(name, strategy, extra):
    """CSR slices of the papers' multi-label sets (many outputs: several exp chunks per row on corel5k)."""
    from engine.datasets import load_dataset
    X, Y, _, _ = load_dataset(name).train_test_split()
    X, Y = X[:600], Y[:600]
    _equal_fits(X, Y, strategy=strategy, learning_rate=0.3, n_estimators=8, max_leaf_nodes=8,
                random_state=0, n_jobs=1, **extra)


@pytest.mark.slow
@pytest.mark.parametrize("strategy,extra", EXP_STRATEGIES[:3])
def test_logistic_fits_agree_across_threads_and_sparse_input(strategy, extra):
    """Over several row blocks (n > 4096: the update pass runs blocks in parallel), 1 and 2 threads
    and dense and CSR input give the same model, bit for bit."""
    from scipy import sparse
    X, Y = _multilabel_data(7, n=9000, d=6, p=8)
    X[np.random.default_rng(0).random(X.shape) < 0.5] = 0.0
    fits = [PaperClassifier(strategy=strategy, learning_rate=0.3, n_estimators=4,
                            max_leaf_nodes=8, split_search="hist", n_jobs=k,
                            random_state=0, **extra).fit(X_in, Y)
            for X_in, k in [(X, 1), (X, 2), (sparse.csr_matrix(X), 1), (sparse.csr_matrix(X), 2)]]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.decision_function(X), fits[0].decision_function(X))
        np.testing.assert_array_equal(other.rho_, fits[0].rho_)
        np.testing.assert_array_equal(other.train_score_, fits[0].train_score_)
