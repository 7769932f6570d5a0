"""Invalid data and parameters raise a ValueError (TypeError for sparse input)
naming the offending argument; random valid input never crashes or hangs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from engine.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.projections import PROJECTIONS

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")


def _data(n=30, p=3, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    Y = rng.normal(size=(n, d))
    return X, Y


def _reg(**kw):
    return MultiOutputBoostingRegressor(**{"n_estimators": 3, **kw})


# ---------------------------------------------------------------- data

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_or_Y(bad):
    X, Y = _data()
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError, match=r"^X contains NaN or infinity"):
        _reg().fit(Xb, Y)
    Yb = Y.copy()
    Yb[4, 0] = bad
    with pytest.raises(ValueError, match=r"^Y contains NaN or infinity"):
        _reg().fit(X, Yb)
    with pytest.raises(ValueError, match=r"^sample_weight contains NaN or infinity"):
        _reg().fit(X, Y, sample_weight=np.where(np.arange(30) == 2, bad, 1.0))
    model = _reg().fit(X, Y)
    with pytest.raises(ValueError, match=r"^X contains NaN or infinity"):
        model.predict(Xb)
    with pytest.raises(ValueError, match="eval_set X contains NaN"):
        _reg().fit(X, Y, eval_set=(Xb, Y))


def test_X_beyond_float32_range():
    """Features are stored as float32: larger finite values would become infinite."""
    X, Y = _data()
    Xb = X.copy()
    Xb[0, 0] = 1e300
    with pytest.raises(ValueError, match="X contains values too large for float32"):
        _reg().fit(Xb, Y)
    model = _reg().fit(X, Y)
    with pytest.raises(ValueError, match="X contains values too large for float32"):
        model.predict(Xb)
    _reg(loss="absolute_error").fit(X * 1e30, Y * 1e300)   # representable X, huge Y: fine


def test_Y_too_large_for_the_squared_loss():
    """(y - f)^2 overflows beyond ~1e154; before this check 'projected' returned NaN
    predictions (rho = inf / inf in the closed-form line search)."""
    X, Y = _data()
    for strategy in STRATEGIES:
        with pytest.raises(ValueError, match="Y contains values larger than 1e"):
            _reg(strategy=strategy).fit(X, Y * 1e299)
    P = _reg(strategy="projected", loss="absolute_error").fit(X, Y * 1e299).predict(X)
    assert np.isfinite(P).all()
    P = _reg(strategy="projected").fit(X, Y * 1e149).predict(X)
    assert np.isfinite(P).all()


def test_mismatched_lengths():
    X, Y = _data()
    with pytest.raises(ValueError, match="X and Y must have the same number of samples"):
        _reg().fit(X, Y[:-1])
    with pytest.raises(ValueError, match="sample_weight must have one entry per sample"):
        _reg().fit(X, Y, sample_weight=np.ones(29))
    with pytest.raises(ValueError, match="eval_set"):
        _reg().fit(X, Y, eval_set=(X[:5], Y[:4]))
    with pytest.raises(ValueError, match="eval_set"):
        _reg().fit(X, Y, eval_set=(X[:5, :2], Y[:5]))
    with pytest.raises(ValueError, match="eval_set"):
        _reg().fit(X, Y, eval_set=X)


@pytest.mark.parametrize("n", [0, 1])
def test_zero_or_one_sample(n):
    X, Y = _data()
    with pytest.raises(ValueError, match=rf"^X has {n} sample\(s\); fitting needs at least 2 samples$"):
        _reg().fit(X[:n], Y[:n])


def test_zero_outputs_and_zero_features():
    X, Y = _data()
    with pytest.raises(ValueError, match=r"Y has no output column \(0 outputs\)"):
        _reg().fit(X, Y[:, :0])
    with pytest.raises(ValueError, match=r"X has 0 feature\(s\)"):
        _reg().fit(X[:, :0], Y)


def test_wrong_dimensions():
    X, Y = _data()
    with pytest.raises(ValueError, match="X must be 2-D, got 1-D"):
        _reg().fit(X[:, 0], Y)
    with pytest.raises(ValueError, match="Y must be 1-D or 2-D, got 3-D"):
        _reg().fit(X, Y[:, :, None])
    model = _reg().fit(X, Y)
    with pytest.raises(ValueError, match="X must be 2-D"):
        model.predict(X[0])
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_non_numeric_data():
    """A string numpy cannot parse is a ValueError, an object it cannot convert at
    all (a dict) a TypeError, as in scikit-learn; both name the argument."""
    X, Y = _data()
    Xs = X.astype(object)
    Xs[0, 0] = "a"
    with pytest.raises(ValueError, match="^X must contain only numbers"):
        _reg().fit(Xs, Y)
    Ys = Y.astype(object)
    Ys[1, 1] = "b"
    with pytest.raises(ValueError, match="^Y must contain only numbers"):
        _reg().fit(X, Ys)
    Xd = X.astype(object)
    Xd[2, 1] = {"foo": "bar"}
    # the second pattern is scikit-learn's check_dtype_object regex
    with pytest.raises(TypeError, match=r"^X must contain only numbers .*argument must be .* string.* number"):
        _reg().fit(Xd, Y)
    with pytest.raises(TypeError, match="^X must contain only numbers"):
        _reg().fit([[1, {}], [2, 3]], [1.0, 2.0])
    Yd = Y.astype(object)
    Yd[0, 0] = {}
    with pytest.raises(TypeError, match="^Y must contain only numbers"):
        _reg().fit(X, Yd)
    with pytest.raises(TypeError, match="^sample_weight must contain only numbers"):
        _reg().fit(X, Y, sample_weight=[{}] * len(X))
    model = _reg().fit(X, Y)
    with pytest.raises(TypeError, match="^X must contain only numbers"):
        model.predict(Xd)
    with pytest.raises(ValueError, match="^X must contain only numbers"):
        model.predict(Xs)
    # object arrays holding numbers are numbers
    np.testing.assert_array_equal(model.predict(X.astype(object)), model.predict(X))


def test_sparse_input_is_a_type_error():
    X, Y = _data()
    with pytest.raises(TypeError, match="X is a sparse matrix"):
        _reg().fit(sparse.csr_matrix(X), Y)
    with pytest.raises(TypeError, match="Y is a sparse matrix"):
        _reg().fit(X, sparse.csr_matrix(Y))
    model = _reg().fit(X, Y)
    with pytest.raises(TypeError, match="X is a sparse matrix"):
        model.predict(sparse.csr_matrix(X))


def test_classifier_labels_must_be_0_1():
    X, Y = _data()
    L = (Y > 0).astype(float)
    for bad in (L * 2, L - 1, L + 0.5, np.where(L > 0, 1.0, -1.0)):
        with pytest.raises(ValueError, match="0/1 label indicator"):
            MultiLabelBoostingClassifier(n_estimators=2).fit(X, bad)
    MultiLabelBoostingClassifier(n_estimators=2).fit(X, L.astype(bool))  # booleans are 0/1


def test_unfitted_model_cannot_predict():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        _reg().predict(np.zeros((2, 3)))


# ---------------------------------------------------------------- parameters

BAD_PARAMS = [
    (dict(learning_rate=0.0), "learning_rate"),
    (dict(learning_rate=-0.1), "learning_rate"),
    (dict(learning_rate=1.5), "learning_rate"),
    (dict(learning_rate="fast"), "learning_rate"),
    (dict(strategy="projected_relabel", n_projections=0), "n_projections"),
    (dict(strategy="projected_relabel", n_projections=1.5), "n_projections"),
    (dict(strategy="projected_relabel", projection="subsample", n_projections=3), "n_projections"),
    (dict(strategy="projected", n_projections=2), "n_projections"),
    (dict(strategy="boosted"), "strategy"),
    (dict(projection="orthogonal"), "projection"),
    (dict(loss="huber"), "loss"),
    (dict(loss="logistic"), "loss"),          # a classifier loss
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_estimators=2.0), "n_estimators"),
    (dict(max_leaf_nodes=1), "max_leaf_nodes"),
    (dict(max_leaf_nodes=0), "max_leaf_nodes"),
    (dict(max_leaf_nodes=True), "max_leaf_nodes"),
    (dict(max_depth=0), "max_depth"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(min_samples_leaf=1.0), "min_samples_leaf"),
    (dict(max_features=0), "max_features"),
    (dict(max_features=4), "max_features"),   # more than the 3 features
    (dict(max_features=0.0), "max_features"),
    (dict(max_features=1.5), "max_features"),
    (dict(max_features="all"), "max_features"),
    (dict(subsample=0.0), "subsample"),
    (dict(subsample=1.01), "subsample"),
    (dict(warm_start="yes"), "warm_start"),
]


@pytest.mark.parametrize("params,name", BAD_PARAMS, ids=[f"{n}={list(p.values())[-1]!r}"
                                                         for p, n in BAD_PARAMS])
def test_invalid_parameters_name_the_argument(params, name):
    X, Y = _data()
    with pytest.raises(ValueError, match=name):
        _reg(**params).fit(X, Y)


def test_classifier_rejects_regression_loss():
    X, Y = _data()
    with pytest.raises(ValueError, match="loss"):
        MultiLabelBoostingClassifier(loss="absolute_error").fit(X, (Y > 0).astype(float))


def test_invalid_sample_weight():
    X, Y = _data()
    w = np.ones(30)
    w[5] = -1.0
    with pytest.raises(ValueError, match="sample_weight must not be negative"):
        _reg().fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight must have a positive sum"):
        _reg().fit(X, Y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match="sample_weight must be 1-D"):
        _reg().fit(X, Y, sample_weight=np.ones((30, 1)))


def test_warm_start_with_other_outputs_or_fewer_steps():
    X, Y = _data(d=3)
    model = _reg(warm_start=True).fit(X, Y)
    with pytest.raises(ValueError, match="outputs"):
        model.set_params(n_estimators=5).fit(X, Y[:, :2])
    with pytest.raises(ValueError, match="n_estimators"):
        model.set_params(n_estimators=2).fit(X, Y)


# ---------------------------------------------------------------- fuzz

MAGNITUDES = (1.0, 1e-300, 1e-30, 1e-8, 1e8, 1e30, 1e300)


@st.composite
def _problems(draw):
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 6))
    d = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["normal", "integers", "constant", "mixed"]))

    def matrix(rows, cols):
        if kind == "normal":
            M = rng.normal(size=(rows, cols))
        elif kind == "integers":
            M = rng.integers(-2, 3, size=(rows, cols)).astype(float)   # many duplicates
        elif kind == "constant":
            M = np.full((rows, cols), rng.normal())
        else:
            M = rng.normal(size=(rows, cols))
            M[:, rng.random(cols) < 0.4] = 3.0                          # constant columns
        return M * draw(st.sampled_from(MAGNITUDES))

    X, Y = matrix(n, p), matrix(n, d)
    task = draw(st.sampled_from(["regression", "multilabel"]))
    strategy = draw(st.sampled_from(STRATEGIES))
    params = dict(
        strategy=strategy,
        projection=draw(st.sampled_from(PROJECTIONS)),
        n_projections=(1 if strategy != "projected_relabel" else draw(st.integers(1, 6))),
        learning_rate=draw(st.sampled_from([0.05, 0.5, 1.0])),
        n_estimators=draw(st.integers(1, 6)),
        max_leaf_nodes=draw(st.sampled_from([2, 3, 7, None])),
        max_depth=draw(st.sampled_from([None, 1, 3])),
        min_samples_leaf=draw(st.sampled_from([1, 2, 5, 0.3])),
        max_features=draw(st.sampled_from([None, 1, "sqrt", 0.5])),
        subsample=draw(st.sampled_from([1.0, 0.5, 0.1])),
        random_state=seed % 1000,
    )
    if task == "multilabel":
        Y = (Y > np.median(Y)).astype(float)
        params["loss"] = draw(st.sampled_from(["logistic", "squared_error"]))
        model = MultiLabelBoostingClassifier(**params)
    else:
        params["loss"] = draw(st.sampled_from(["squared_error", "absolute_error"]))
        model = MultiOutputBoostingRegressor(**params)
    weights = draw(st.sampled_from([None, "uniform", "some zero"]))
    w = None
    if weights == "uniform":
        w = rng.uniform(0.1, 5.0, size=n)
    elif weights == "some zero":
        w = (rng.random(n) < 0.5).astype(float)
    one_d = d == 1 and draw(st.booleans())
    return model, X, (Y[:, 0] if one_d else Y), w


@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", 60)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=_problems())
def test_fuzz_fit_predict_finite_or_value_error(problem):
    model, X, Y, w = problem
    try:
        model.fit(X, Y, sample_weight=w)
    except ValueError:
        return
    n = X.shape[0]
    expected = (n,) if Y.ndim == 1 else Y.shape
    P = model.predict(X)
    assert P.shape == expected
    assert np.isfinite(P).all()
    # the squared loss of residuals near 1e300 overflows to inf, but never becomes NaN
    assert not np.isnan(model.train_score_).any()
    assert model.n_steps_ == model.n_estimators
    if isinstance(model, MultiLabelBoostingClassifier):
        proba = model.predict_proba(X)
        assert np.isfinite(proba).all() and (proba >= 0).all() and (proba <= 1).all()
        assert set(np.unique(P)) <= {0, 1}
    stages = list(model.staged_predict(X))
    assert len(stages) == model.n_steps_
    np.testing.assert_array_equal(stages[-1], P)
