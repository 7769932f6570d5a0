"""Second-order leaves (leaf_estimation="newton"): -sum g / (sum h + lambda) per leaf and output.

Checked against a numpy oracle on the fitted trees (both losses, missing
targets, (n, d) weights), against the mean leaves they reduce to (square
loss, lambda = 0), and for sparse == dense, 1 == 2 threads, warm start,
early stopping, saturated probabilities and bad input.
"""
import numpy as np
import pytest
from scipy import sparse

from paper_settings import PaperClassifier, PaperRegressor


def _data(seed, n=120, d=4, p=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    Z = X @ rng.normal(size=(p, d))
    Y = (Z + rng.logistic(size=(n, d)) > 0.5).astype(float)
    Y[0], Y[1] = 1.0, 0.0
    return X, Y, Z


def _derivatives(loss, y, F):
    """g, h of the loss in f (y = -1/+1 labels for the logistic loss)."""
    if loss == "squared_error":
        return F - y, np.ones_like(F)
    s = 0.5 * (1.0 - np.tanh(y * F))            # sigma(-2 y F)
    return -2.0 * y * s, 4.0 * s * (1.0 - s)


def _model(kind, loss, strategy, **kw):
    extra = dict(projection="gaussian", n_projections=2) if strategy == "projected_relabel" else {}
    cls = PaperClassifier if kind == "classifier" else PaperRegressor
    params = dict(strategy=strategy, loss=loss, leaf_estimation="newton", learning_rate=0.5,
                  n_estimators=5, max_leaf_nodes=4, random_state=0, **extra)
    return cls(**{**params, **kw})


CASES = [("classifier", "logistic"), ("classifier", "squared_error"), ("regressor", "squared_error")]


@pytest.mark.parametrize("kind,loss", CASES)
@pytest.mark.parametrize("strategy", ["multi_output", "projected_relabel", "single_target"])
@pytest.mark.parametrize("weights", ["none", "missing", "per_entry"])
@pytest.mark.parametrize("lam", [0.0, 1.5])
def test_newton_leaves_equal_the_numpy_oracle(kind, loss, strategy, weights, lam):
    X, Y, Z = _data(1)
    n, d = Y.shape
    target = Y if kind == "classifier" else Z
    W = np.ones((n, d))
    fit_kw, model_kw = {}, {}
    rng = np.random.default_rng(2)
    if weights == "missing":
        hide = rng.random((n, d)) < 0.2
        hide[:2] = False
        target = target.copy()
        target[hide] = np.nan
        W[hide] = 0.0
        model_kw["missing_targets"] = "ignore"
    elif weights == "per_entry":
        W = rng.uniform(0.2, 3.0, size=(n, d))
        fit_kw["sample_weight"] = W
    model = _model(kind, loss, strategy, l2_regularization=lam, **model_kw).fit(X, target, **fit_kw)
    y = np.nan_to_num(target)
    if kind == "classifier":
        y = np.where(y > 0, 1.0, -1.0)
    assert np.all(model.rho_ == 1.0)
    values = model.trees_.value
    F = np.tile(model.init_, (n, 1))
    for m in range(model.n_steps_):
        g, h = _derivatives(loss, y, F)
        step = np.zeros((n, d))
        for j in range(d):
            tree = m * d + j if strategy == "single_target" else m
            col = 0 if strategy == "single_target" else j
            leaves = model.trees_.apply(X)[:, tree]
            for leaf in np.unique(leaves):
                rows = leaves == leaf
                den = np.sum(W[rows, j] * h[rows, j]) + lam
                # no observed entry of output j in the leaf and lambda = 0: 0 (no step)
                expected = -np.sum(W[rows, j] * g[rows, j]) / den if den > 0 else 0.0
                assert values[leaf, col] == pytest.approx(expected, rel=1e-10, abs=1e-12)
                step[rows, j] = values[leaf, col]
        F = F + model.learning_rate * step
    np.testing.assert_allclose(model._raw_predict(X), F, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_square_loss_newton_leaves_without_penalty_are_the_mean_leaves_of_gbmort(kind):
    X, Y, Z = _data(4)
    target = Y if kind == "classifier" else Z
    common = dict(strategy="multi_output", loss="squared_error", learning_rate=0.5,
                  n_estimators=6, max_leaf_nodes=4, random_state=0)
    cls = PaperClassifier if kind == "classifier" else PaperRegressor
    mean = cls(**common).fit(X, target)
    newton = cls(leaf_estimation="newton", l2_regularization=0.0, **common).fit(X, target)
    np.testing.assert_allclose(newton.trees_.value, mean.trees_.value, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(newton.trees_.nodes["feature"], mean.trees_.nodes["feature"])
    np.testing.assert_allclose(newton._raw_predict(X), mean._raw_predict(X), rtol=1e-12, atol=1e-12)
    # a penalty shrinks them
    shrunk = cls(leaf_estimation="newton", l2_regularization=10.0, **common).fit(X, target)
    assert np.abs(shrunk.trees_.value).sum() < np.abs(mean.trees_.value).sum()


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["multi_output", "projected_relabel", "single_target"])
def test_newton_leaves_sparse_equals_dense_and_threads_agree(strategy):
    X, Y, _ = _data(5, n=300)
    X[np.abs(X) < 0.8] = 0.0
    fits = []
    for X_in, n_jobs in [(X, 1), (sparse.csr_matrix(X), 1), (X, 2), (sparse.csr_matrix(X), 2)]:
        model = _model("classifier", "logistic", strategy, split_search="hist", n_jobs=n_jobs)
        fits.append(model.fit(X_in, Y).decision_function(X))
    for other in fits[1:]:
        np.testing.assert_array_equal(fits[0], other)


def test_newton_leaves_warm_start_and_early_stopping():
    X, Y, _ = _data(6)
    whole = _model("classifier", "logistic", "multi_output", n_estimators=8).fit(X, Y)
    warm = _model("classifier", "logistic", "multi_output", n_estimators=3, warm_start=True).fit(X, Y)
    warm.set_params(n_estimators=8).fit(X, Y)
    np.testing.assert_allclose(warm.decision_function(X), whole.decision_function(X), rtol=1e-12, atol=1e-12)
    stopped = _model("classifier", "logistic", "projected_relabel", n_estimators=200,
                     early_stopping=True, n_iter_no_change=3, learning_rate=1.0).fit(X, Y)
    assert 1 <= stopped.n_steps_ == stopped.best_iteration_ + 1 <= stopped.n_steps_run_ < 200
    assert np.isfinite(stopped.decision_function(X)).all()


def test_saturated_leaves_without_penalty_are_zero_not_nan():
    """lambda = 0 and probabilities saturated to 1: sum h = 0 in a leaf, which then holds 0.

    A label that always occurs: its Newton leaves are about 1/2 per step
    (sum g / sum h with s -> 0) until exp(2 y F) overflows (F > 354.9), where
    h = 0 and g = 0 exactly: the leaves hold 0 and F stays finite.
    """
    X = np.linspace(-1, 1, 40)[:, None]
    Y = np.column_stack([np.ones(40), X[:, 0] > 0]).astype(float)
    model = PaperClassifier(strategy="multi_output", leaf_estimation="newton",
                            l2_regularization=0.0, learning_rate=1.0, n_estimators=800,
                            max_leaf_nodes=2, random_state=0).fit(X, Y)
    F = model.decision_function(X)
    assert np.isfinite(F).all() and np.isfinite(model.trees_.value).all()
    assert F[:, 0].min() > 354.0
    last_tree = model.trees_.value[model.trees_.tree_start[-2]:]
    assert np.all(last_tree[:, 0] == 0.0)
    assert np.array_equal(np.sign(F[:, 1]), np.where(Y[:, 1] > 0, 1.0, -1.0))


@pytest.mark.parametrize("params,match", [
    (dict(leaf_estimation="median"), "leaf_estimation"),
    (dict(leaf_estimation=None), "leaf_estimation"),
    (dict(leaf_estimation=["newton"]), "leaf_estimation"),
    (dict(l2_regularization=-1.0), "l2_regularization"),
    (dict(l2_regularization=float("nan")), "l2_regularization"),
    (dict(l2_regularization="1"), "l2_regularization"),
    (dict(l2_regularization=True), "l2_regularization"),
    (dict(leaf_estimation="newton", strategy="projected"), "projected_relabel"),
])
def test_bad_newton_parameters_are_refused(params, match):
    X, Y, Z = _data(7)
    with pytest.raises(ValueError, match=match):
        PaperClassifier(**params).fit(X, Y)
    with pytest.raises(ValueError, match=match):
        PaperRegressor(**params).fit(X, Z)


def test_newton_leaves_refuse_the_absolute_loss():
    X, _, Z = _data(7)
    with pytest.raises(ValueError, match="absolute"):
        PaperRegressor(loss="absolute_error", leaf_estimation="newton").fit(X, Z)


def test_make_estimator_passes_the_leaf_estimation_through():
    from engine.estimators.registry import make_estimator
    X, Y, _ = _data(8)
    model = make_estimator("gbrt-relabel-rpo-gaussian", task="multilabel", leaf_estimation="newton",
                           l2_regularization=0.5, n_estimators=3).fit(X, Y)
    assert model.leaf_estimation == "newton" and np.all(model.rho_ == 1.0)


@pytest.mark.parametrize("strategy", ["multi_output", "projected_relabel"])
def test_row_weights_and_equal_entry_weights_give_the_same_logistic_newton_fit(strategy):
    """Two routes to the same leaves: with row weights the update pass keeps the second
    derivatives row-major (H); with (n, d) weights they come from exp(2 y F) per entry. Both take
    the same operations (logistic_kernels.h, losses.pxd), so the fits are equal to the bit."""
    X, Y, _ = _data(3, n=200)
    w = np.random.default_rng(0).uniform(0.5, 2.0, Y.shape[0])
    rows = _model("classifier", "logistic", strategy, n_estimators=20).fit(X, Y, sample_weight=w)
    entries = _model("classifier", "logistic", strategy, n_estimators=20).fit(
        X, Y, sample_weight=np.repeat(w[:, None], Y.shape[1], axis=1))
    np.testing.assert_array_equal(rows.decision_function(X), entries.decision_function(X))
