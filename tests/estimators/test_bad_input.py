"""Invalid data and parameters raise a ValueError (TypeError for a sparse Y
and for objects numpy cannot convert to numbers) naming the offending
argument, for both estimators; random valid input never crashes or hangs."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from engine.estimators.boosting import MultiLabelBoostingClassifier
from engine.projections import PROJECTIONS
from paper_settings import PaperClassifier, PaperRegressor

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")


KINDS = ("regressor", "classifier")


def _data(n=30, p=3, d=2, seed=0, kind="regressor"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    Y = rng.normal(size=(n, d))
    if kind == "classifier":
        Y = (Y > 0).astype(float)
    return X, Y


def _est(kind="regressor", **kw):
    cls = PaperRegressor if kind == "regressor" else PaperClassifier
    return cls(**{"n_estimators": 3, **kw})


def _reg(**kw):
    return _est("regressor", **kw)


def _prediction_methods(model):
    names = ["predict", "staged_predict"]
    if isinstance(model, MultiLabelBoostingClassifier):
        names += ["predict_proba", "decision_function", "staged_predict_proba",
                  "staged_decision_function"]
    # staged_* are generators: a bad X must raise on the first item at the latest
    return [lambda X, f=getattr(model, name): (lambda r: next(r) if hasattr(r, "__next__") else r)(f(X))
            for name in names]


# ---------------------------------------------------------------- data

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_or_Y(bad, kind):
    X, Y = _data(kind=kind)
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError, match=r"^X contains NaN or infinity"):
        _est(kind).fit(Xb, Y)
    Yb = Y.copy()
    Yb[4, 0] = bad
    with pytest.raises(ValueError, match=r"^Y contains NaN or infinity"):
        _est(kind).fit(X, Yb)
    with pytest.raises(ValueError, match=r"^sample_weight contains NaN or infinity"):
        _est(kind).fit(X, Y, sample_weight=np.where(np.arange(30) == 2, bad, 1.0))
    model = _est(kind).fit(X, Y)
    for method in _prediction_methods(model):
        with pytest.raises(ValueError, match=r"^X contains NaN or infinity"):
            method(Xb)
    with pytest.raises(ValueError, match="eval_set X contains NaN"):
        _est(kind).fit(X, Y, eval_set=(Xb, Y))
    with pytest.raises(ValueError, match="eval_set Y contains NaN"):
        _est(kind).fit(X, Y, eval_set=(X, Yb))


@pytest.mark.parametrize("kind", KINDS)
def test_X_beyond_float32_range(kind):
    """Features are stored as float32: larger finite values would become infinite."""
    X, Y = _data(kind=kind)
    Xb = X.copy()
    Xb[0, 0] = 1e300
    with pytest.raises(ValueError, match="X contains values too large for float32"):
        _est(kind).fit(Xb, Y)
    model = _est(kind).fit(X, Y)
    for method in _prediction_methods(model):
        with pytest.raises(ValueError, match="X contains values too large for float32"):
            method(Xb)
    _est(kind).fit(X * 1e30, Y)   # large but representable X: fine


def test_huge_Y_with_the_absolute_loss_is_fine():
    X, Y = _data()
    P = _reg(loss="absolute_error").fit(X * 1e30, Y * 1e300).predict(X * 1e30)
    assert np.isfinite(P).all()


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


@pytest.mark.parametrize("kind", KINDS)
def test_mismatched_lengths(kind):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match="X and Y must have the same number of samples"):
        _est(kind).fit(X, Y[:-1])
    with pytest.raises(ValueError, match="sample_weight must have one entry per sample"):
        _est(kind).fit(X, Y, sample_weight=np.ones(29))
    with pytest.raises(ValueError, match="eval_set"):
        _est(kind).fit(X, Y, eval_set=(X[:5], Y[:4]))
    with pytest.raises(ValueError, match="eval_set"):
        _est(kind).fit(X, Y, eval_set=(X[:5, :2], Y[:5]))
    with pytest.raises(ValueError, match="eval_set"):
        _est(kind).fit(X, Y, eval_set=(X[:5], Y[:5, :1]))
    with pytest.raises(ValueError, match="eval_set"):
        _est(kind).fit(X, Y, eval_set=X)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [0, 1])
def test_zero_or_one_sample(n, kind):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match=rf"^X has {n} sample\(s\); fitting needs at least 2 samples$"):
        _est(kind).fit(X[:n], Y[:n])
    with pytest.raises(ValueError, match=rf"^X has {n} sample\(s\)"):
        _est(kind).fit(X[:n], Y[:n, 0])


@pytest.mark.parametrize("kind", KINDS)
def test_zero_outputs_and_zero_features(kind):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match=r"Y has no output column \(0 outputs\)"):
        _est(kind).fit(X, Y[:, :0])
    with pytest.raises(ValueError, match=r"X has 0 feature\(s\)"):
        _est(kind).fit(X[:, :0], Y)


@pytest.mark.parametrize("kind", KINDS)
def test_wrong_dimensions(kind):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match="X must be 2-D, got 1-D"):
        _est(kind).fit(X[:, 0], Y)
    with pytest.raises(ValueError, match="Y must be 1-D or 2-D, got 3-D"):
        _est(kind).fit(X, Y[:, :, None])
    model = _est(kind).fit(X, Y)
    for method in _prediction_methods(model):
        with pytest.raises(ValueError, match="X must be 2-D"):
            method(X[0])
        with pytest.raises(ValueError, match="features"):
            method(X[:, :2])


@pytest.mark.parametrize("kind", KINDS)
def test_non_numeric_data(kind):
    """A string numpy cannot parse is a ValueError, an object it cannot convert at
    all (a dict) a TypeError, as in scikit-learn; both name the argument."""
    X, Y = _data(kind=kind)
    Xs = X.astype(object)
    Xs[0, 0] = "a"
    with pytest.raises(ValueError, match="^X must contain only numbers"):
        _est(kind).fit(Xs, Y)
    Ys = Y.astype(object)
    Ys[1, 1] = "b"
    # the classifier takes string labels, but not strings mixed with numbers in one output
    message = ("^Y must contain only numbers" if kind == "regressor"
               else r"^Y output 1 has labels that cannot be ordered \(\['float', 'str'\]\)")
    with pytest.raises(ValueError, match=message):
        _est(kind).fit(X, Ys)
    Xd = X.astype(object)
    Xd[2, 1] = {"foo": "bar"}
    # the second pattern is scikit-learn's check_dtype_object regex
    with pytest.raises(TypeError, match=r"^X must contain only numbers .*argument must be .* string.* number"):
        _est(kind).fit(Xd, Y)
    with pytest.raises(TypeError, match="^X must contain only numbers"):
        _est(kind).fit([[1, {}], [2, 3]], [1.0, 0.0])
    Yd = Y.astype(object)
    Yd[0, 0] = {}
    if kind == "regressor":
        with pytest.raises(TypeError, match="^Y must contain only numbers"):
            _est(kind).fit(X, Yd)
    else:
        with pytest.raises(ValueError, match="^Y output 0 has labels that cannot be ordered"):
            _est(kind).fit(X, Yd)
    with pytest.raises(TypeError, match="^sample_weight must contain only numbers"):
        _est(kind).fit(X, Y, sample_weight=[{}] * len(X))
    with pytest.raises(ValueError, match="^sample_weight must contain only numbers"):
        _est(kind).fit(X, Y, sample_weight=["heavy"] * len(X))
    model = _est(kind).fit(X, Y)
    for method in _prediction_methods(model):
        with pytest.raises(TypeError, match="^X must contain only numbers"):
            method(Xd)
        with pytest.raises(ValueError, match="^X must contain only numbers"):
            method(Xs)
    # object arrays holding numbers are numbers
    np.testing.assert_array_equal(model.predict(X.astype(object)), model.predict(X))


@pytest.mark.parametrize("kind", KINDS)
def test_complex_data_is_refused_not_truncated(kind):
    """A ValueError, not numpy's ComplexWarning and a fit on the real parts."""
    X, Y = _data(kind=kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^X contains complex numbers"):
            _est(kind).fit(X + 1j, Y)
        with pytest.raises(ValueError, match="^Y contains complex numbers"):
            _est(kind).fit(X, Y + 1j)
        model = _est(kind).fit(X, Y)
        for method in _prediction_methods(model):
            with pytest.raises(ValueError, match="^X contains complex numbers"):
                method(X + 1j)


@pytest.mark.parametrize("kind", KINDS)
def test_sparse_Y_is_a_type_error(kind):
    # Sparse X is accepted (tests/estimators/test_sparse_input.py); Y must be dense.
    X, Y = _data(kind=kind)
    with pytest.raises(TypeError, match="Y is a sparse matrix"):
        _est(kind).fit(X, sparse.csr_matrix(Y))


def test_classifier_labels_are_two_values_per_output():
    """Any two values per output are labels; a third value, or a label the model was
    not fitted on, is refused naming Y (or eval_set Y) and the output."""
    X, Y = _data()
    L = (Y > 0).astype(float)
    reference = PaperClassifier(n_estimators=2).fit(X, L).decision_function(X)
    for labels in (L * 2, L - 1, L + 0.5, np.where(L > 0, 1.0, -1.0), L.astype(bool),
                   np.where(L > 0, "yes", "no")):
        model = PaperClassifier(n_estimators=2).fit(X, labels)
        np.testing.assert_array_equal(model.decision_function(X), reference)
    bad = L.copy()
    bad[0, 1] = 2.0
    with pytest.raises(ValueError, match=r"^Y output 1 has 3 distinct values \(0\.0, 1\.0, 2\.0\)"):
        PaperClassifier(n_estimators=2).fit(X, bad)
    with pytest.raises(ValueError, match="^eval_set Y output 1 has labels the model was not fitted on"):
        PaperClassifier(n_estimators=2).fit(X, L, eval_set=(X, bad))


@pytest.mark.parametrize("kind", KINDS)
def test_unfitted_model_cannot_predict(kind):
    from sklearn.exceptions import NotFittedError
    model = _est(kind)
    for name in ("predict", "predict_proba", "decision_function"):
        if hasattr(model, name):
            with pytest.raises(NotFittedError):
                getattr(model, name)(np.zeros((2, 3)))


# ---------------------------------------------------------------- parameters

BAD_PARAMS = [
    (dict(learning_rate=0.0), "learning_rate"),
    (dict(learning_rate=-0.1), "learning_rate"),
    (dict(learning_rate=1.5), "learning_rate"),
    (dict(learning_rate="fast"), "learning_rate"),
    (dict(learning_rate=[0.1]), "learning_rate"),
    (dict(strategy="projected_relabel", n_projections=0), "n_projections"),
    (dict(strategy="projected_relabel", n_projections=1.5), "n_projections"),
    (dict(strategy="projected_relabel", n_projections=[2]), "n_projections"),
    (dict(strategy="projected_relabel", projection="subsample", n_projections=3), "n_projections"),
    (dict(strategy="projected", n_projections=2), "n_projections"),
    (dict(strategy="boosted"), "strategy"),
    # unhashable or non-string choices: not "unhashable type", a message naming the argument
    (dict(strategy=["projected"]), "strategy"),
    (dict(strategy={"projected": 1}), "strategy"),
    (dict(strategy=None), "strategy"),
    (dict(strategy=1), "strategy"),
    (dict(projection="orthogonal"), "projection"),
    (dict(projection=["gaussian"]), "projection"),
    (dict(projection={}), "projection"),
    (dict(projection=None), "projection"),
    (dict(loss="huber"), "loss"),
    (dict(loss=["squared_error"]), "loss"),
    (dict(loss={}), "loss"),
    (dict(loss=None), "loss"),
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_estimators=2.0), "n_estimators"),
    (dict(max_leaf_nodes=1), "max_leaf_nodes"),
    (dict(max_leaf_nodes=0), "max_leaf_nodes"),
    (dict(max_leaf_nodes=True), "max_leaf_nodes"),
    (dict(max_depth=0), "max_depth"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(min_samples_leaf=1.0), "min_samples_leaf"),
    (dict(min_samples_leaf=[1]), "min_samples_leaf"),
    (dict(max_features=0), "max_features"),
    (dict(max_features=4), "max_features"),   # more than the 3 features
    (dict(max_features=0.0), "max_features"),
    (dict(max_features=1.5), "max_features"),
    (dict(max_features="all"), "max_features"),
    (dict(max_features=["sqrt"]), "max_features"),
    (dict(max_features=np.array([1, 2])), "max_features"),
    (dict(subsample=0.0), "subsample"),
    (dict(subsample=1.01), "subsample"),
    (dict(warm_start="yes"), "warm_start"),
    (dict(random_state="seed"), "random_state"),
    (dict(random_state=-1), "random_state"),
    (dict(random_state=[1, 2.5]), "random_state"),
]


def _param_id(params, name):
    value = list(params.values())[-1]
    return f"{name}={type(value).__name__}:{value!r}"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("params,name", BAD_PARAMS, ids=[_param_id(p, n) for p, n in BAD_PARAMS])
def test_invalid_parameters_name_the_argument(params, name, kind):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        _est(kind, **params).fit(X, Y)


@pytest.mark.parametrize("kind,loss", [("regressor", "logistic"), ("classifier", "absolute_error")])
def test_loss_of_the_other_task_is_rejected(kind, loss):
    X, Y = _data(kind=kind)
    with pytest.raises(ValueError, match="^loss must be one of"):
        _est(kind, loss=loss).fit(X, Y)


@pytest.mark.parametrize("kind", KINDS)
def test_invalid_sample_weight(kind):
    X, Y = _data(kind=kind)
    w = np.ones(30)
    w[5] = -1.0
    with pytest.raises(ValueError, match="sample_weight must not be negative"):
        _est(kind).fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight must have a positive sum"):
        _est(kind).fit(X, Y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match=r"^sample_weight must have shape \(n_samples,\) = \(30,\) or "
                                         r"\(n_samples, n_outputs\) = \(30, 2\), got \(30, 1\)"):
        _est(kind).fit(X, Y, sample_weight=np.ones((30, 1)))
    with pytest.raises(ValueError, match="^sample_weight must be 1-D or 2-D"):
        _est(kind).fit(X, Y, sample_weight=np.ones((30, 2, 1)))
    W = np.ones((30, 2))
    W[3, 1] = -0.5
    with pytest.raises(ValueError, match="^sample_weight must not be negative"):
        _est(kind).fit(X, Y, sample_weight=W)
    W[:, 1] = 0.0
    with pytest.raises(ValueError, match=r"^sample_weight gives output\(s\) \[1\] no positive weight"):
        _est(kind).fit(X, Y, sample_weight=W)


@pytest.mark.parametrize("kind", KINDS)
def test_warm_start_with_other_outputs_or_fewer_steps(kind):
    X, Y = _data(d=3, kind=kind)
    model = _est(kind, warm_start=True).fit(X, Y)
    with pytest.raises(ValueError, match="outputs"):
        model.set_params(n_estimators=5).fit(X, Y[:, :2])
    with pytest.raises(ValueError, match="n_estimators"):
        model.set_params(n_estimators=2).fit(X, Y)


# ---------------------------------------------------------------- fuzz

FUZZ_REFUSAL = re.compile(r"^(X|Y|sample_weight|n_projections) ")
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
        model = PaperClassifier(**params)
    else:
        params["loss"] = draw(st.sampled_from(["squared_error", "absolute_error"]))
        model = PaperRegressor(**params)
    weights = draw(st.sampled_from([None, "uniform", "some zero"]))
    w = None
    if weights == "uniform":
        w = rng.uniform(0.1, 5.0, size=n)
    elif weights == "some zero":
        w = (rng.random(n) < 0.5).astype(float)
    one_d = d == 1 and draw(st.booleans())
    return model, X, (Y[:, 0] if one_d else Y), w


@pytest.mark.slow
@settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", 60)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=_problems())
def test_fuzz_fit_predict_finite_or_value_error(problem):
    model, X, Y, w = problem
    try:
        model.fit(X, Y, sample_weight=w)
    except ValueError as exc:
        # only refusals that name their argument, e.g. "X contains values too
        # large for float32", "n_projections (q) = 5 is larger than ..."
        assert FUZZ_REFUSAL.match(str(exc)), str(exc)
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
        for block in ([proba] if Y.ndim == 1 else proba):
            assert np.isfinite(block).all() and (block >= 0).all() and (block <= 1).all()
            np.testing.assert_allclose(block.sum(axis=1), 1.0)
        assert set(np.unique(P)) <= {0, 1}
    stages = list(model.staged_predict(X))
    assert len(stages) == model.n_steps_
    np.testing.assert_array_equal(stages[-1], P)


@pytest.mark.parametrize("seed", range(12))
def test_absolute_loss_line_search_skips_ratios_beyond_float64(seed):
    # Found by the fuzz test: residuals near 1e300 over a projected leaf value that
    # cancelled to ~1e-17 gave a ratio r / a of inf, so rho and every prediction were inf.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 1)) * 1e-300
    Y = rng.normal(size=(40, 2)) * 1e300
    model = PaperRegressor(learning_rate=0.05, loss="absolute_error", n_estimators=2,
                           projection="achlioptas", random_state=seed, strategy="projected")
    assert np.isfinite(model.fit(X, Y).predict(X)).all()
