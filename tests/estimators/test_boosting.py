"""The boosting estimators (engine.estimators.boosting) against independent oracles.

Oracles: scikit-learn's GradientBoostingRegressor (one output, stumps),
tests/oracles/reference_boosting.py (the paper's Algorithms 2-4 written literally on
scikit-learn trees), tests/oracles/split_search.py (brute-force splits, for
max_features), eq. 26 written out (score), finite differences and scipy's
scalar minimiser for the losses and line searches, and the paper's invariances.

Absolute loss: the constant model and the line search minimise a piecewise
linear function whose minimiser can be an interval (the engine takes its lower
end, the reference its midpoint). Comparisons with the reference therefore use
continuous random sample weights, which make every minimiser unique.
"""

import pickle
from math import comb, log

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import r2_score

from engine._core import losses as _losses
from engine._core import testing as _testing
from engine._core.losses import Loss
from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.projections import PROJECTIONS
from engine.estimators.registry import ESTIMATOR_NAMES, make_estimator
from paper_settings import PaperClassifier, PaperRegressor
from oracles.reference_boosting import loss_per_sample, mean_loss, numerical_gradient, reference_boosting
from oracles.reference_boosting import line_search as reference_line_search

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
LOSS_CODE = {"squared_error": Loss.SQUARED_ERROR, "absolute_error": Loss.ABSOLUTE_ERROR,
             "logistic": Loss.LOGISTIC}


def _regression(seed=0, n=101, p=4, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p)).astype(np.float32)
    f = np.column_stack([10 * np.sin(np.pi * X[:, 0] * X[:, 1]), 5 * X[:, 2], X[:, 3] - X[:, 0],
                         X[:, 1] ** 2, X[:, 0] + X[:, 2]])
    Y = f[:, :d] + rng.normal(size=(n, d))
    w = rng.uniform(0.2, 3.0, size=n)
    return X, Y, w


def _labels(seed=0, n=101, p=4, d=3):
    X, Y, w = _regression(seed, n, p, d)
    return X, (Y > np.median(Y, axis=0)).astype(float), w


def _imbalanced(seed=0, n=150):
    """Three labels; the last has only 3 positives out of n."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3)).astype(np.float32)
    Y = np.column_stack([X[:, 0] + 0.3 * rng.normal(size=n) > 0.5,
                         X[:, 1] + 0.3 * rng.normal(size=n) > 0.7,
                         np.zeros(n, bool)]).astype(float)
    Y[rng.choice(n, 3, replace=False), 2] = 1.0
    return X, Y


def _q(strategy, d):
    return min(2, d) if strategy == "projected_relabel" else 1


def _staged(model, X):
    if isinstance(model, MultiLabelBoostingClassifier):
        return [np.asarray(F).reshape(len(X), -1) for F in model.staged_decision_function(X)]
    return [np.asarray(F).reshape(len(X), -1) for F in model.staged_predict(X)]


# ---------------------------------------------------------------- single target vs scikit-learn

@pytest.mark.parametrize("learning_rate", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_single_target_stumps_equal_sklearn_gbr(learning_rate, weighted):
    X, Y, w = _regression(1, n=120, d=1)
    w = w if weighted else None
    ours = PaperRegressor(strategy="single_target", learning_rate=learning_rate,
                          n_estimators=15, max_leaf_nodes=2).fit(X, Y[:, 0], w)
    sk = GradientBoostingRegressor(loss="squared_error", max_depth=1, subsample=1.0,
                                   learning_rate=learning_rate, n_estimators=15,
                                   random_state=0).fit(X, Y[:, 0], sample_weight=w)
    stages = list(ours.staged_predict(X))
    assert len(stages) == 15
    for a, b in zip(stages, sk.staged_predict(X)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-8)
    # same thresholds, not only the same partition of the training set
    X_new = np.random.default_rng(2).uniform(-0.1, 1.1, size=(200, X.shape[1]))
    for a, b in zip(ours.staged_predict(X_new), sk.staged_predict(X_new)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-8)


# scikit-learn's GradientBoostingRegressor orders best-first growth by its
# friedman_mse improvement, which differs from the squared-error decrease beyond
# stumps; the engine orders by the SSE decrease, matching
# DecisionTreeRegressor(criterion="squared_error"), which reference_boosting uses.
@pytest.mark.parametrize("max_leaf_nodes", [3, 5, 8])
def test_single_target_trees_equal_reference(max_leaf_nodes):
    X, Y, w = _regression(2, n=120, d=1)
    ours = PaperRegressor(strategy="single_target", learning_rate=0.3,
                          n_estimators=10, max_leaf_nodes=max_leaf_nodes).fit(X, Y, w)
    ref = reference_boosting(X, Y, strategy="single_target", learning_rate=0.3, n_steps=10,
                             max_leaf_nodes=max_leaf_nodes, sample_weight=w)
    for a, b in zip(_staged(ours, X), ref["staged_raw"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-8)


# ---------------------------------------------------------------- every strategy vs the reference

def _fit_pair(strategy, loss, *, projection="subsample", max_leaf_nodes=2, learning_rate=0.3,
              n_steps=8, seed=0, d=3):
    if loss == "logistic":
        X, Y, w = _labels(seed, d=d)
        model = PaperClassifier
        targets = 2 * Y - 1
    else:
        X, Y, w = _regression(seed, d=d)
        model = PaperRegressor
        targets = Y
    est = model(strategy=strategy, projection=projection, n_projections=_q(strategy, d),
                loss=loss, learning_rate=learning_rate, n_estimators=n_steps,
                max_leaf_nodes=max_leaf_nodes, random_state=seed).fit(X, Y, w)
    ref = reference_boosting(X, targets, strategy=strategy, loss=loss, learning_rate=learning_rate,
                             n_steps=n_steps, max_leaf_nodes=max_leaf_nodes,
                             projections=est.projections_, sample_weight=w)
    return X, est, ref


def _assert_matches_reference(X, est, ref, atol=1e-8, new_data=False):
    np.testing.assert_allclose(est.init_, ref["init"], rtol=0, atol=1e-12)
    stages = _staged(est, X)
    assert len(stages) == len(ref["staged_raw"])
    for a, b in zip(stages, ref["staged_raw"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=atol)
    np.testing.assert_allclose(est.rho_, ref["rho"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(est.train_score_, ref["train_loss"], rtol=1e-10, atol=1e-10)
    if not new_data:
        # Small nodes often have several splits inducing the same partition of the
        # training set (exact ties: any is optimal), which differ on new points.
        return
    X_new = np.random.default_rng(5).uniform(size=(40, X.shape[1]))
    for a, b in zip(_staged(est, X_new), ref["staged_predict_raw"](X_new)):
        np.testing.assert_allclose(a, b, rtol=0, atol=atol)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
@pytest.mark.parametrize("max_leaf_nodes", [2, 5])
@pytest.mark.parametrize("strategy", ["single_target", "multi_output"])
def test_unprojected_strategies_equal_reference(strategy, loss, max_leaf_nodes):
    _assert_matches_reference(*_fit_pair(strategy, loss, max_leaf_nodes=max_leaf_nodes),
                              new_data=max_leaf_nodes == 2)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
@pytest.mark.parametrize("projection", PROJECTIONS)
@pytest.mark.parametrize("strategy", ["projected", "projected_relabel"])
def test_projected_strategies_equal_reference_with_replayed_projections(strategy, projection, loss):
    X, est, ref = _fit_pair(strategy, loss, projection=projection, max_leaf_nodes=4)
    P = est.projections_
    assert P.shape == (8, _q(strategy, 3), 3)
    _assert_matches_reference(X, est, ref)


def test_projections_are_of_the_requested_scheme():
    X, Y, _ = _regression(3, d=5)
    for projection in PROJECTIONS:
        est = PaperRegressor(strategy="projected_relabel", projection=projection,
                             n_projections=3, n_estimators=30, random_state=0).fit(X, Y)
        P = est.projections_
        assert P.shape == (30, 3, 5)
        if projection == "subsample":
            assert set(np.unique(P)) == {0.0, 1.0}
            assert (P.sum(axis=2) == 1).all() and (P.sum(axis=1) <= 1).all()
        elif projection == "gaussian":
            assert abs(P.std() - 1 / np.sqrt(3)) < 0.1
        else:
            assert len(np.unique(np.abs(P[P != 0]))) == 1
    est = PaperRegressor(strategy="multi_output", n_estimators=3).fit(X, Y)
    assert est.projections_ is None


# ---------------------------------------------------------------- invariances

@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
def test_identity_projection_relabel_equals_multi_output(loss):
    X, Y, w = (_labels if loss == "logistic" else _regression)(4, d=4)
    cls = PaperClassifier if loss == "logistic" else PaperRegressor
    kw = dict(loss=loss, learning_rate=0.4, n_estimators=12, max_leaf_nodes=4, random_state=3)
    a = cls(strategy="projected_relabel", projection="subsample", n_projections=4, **kw).fit(X, Y, w)
    b = cls(strategy="multi_output", **kw).fit(X, Y, w)
    for fa, fb in zip(_staged(a, X), _staged(b, X)):
        np.testing.assert_allclose(fa, fb, rtol=0, atol=1e-10)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
def test_projected_on_identical_outputs_equals_multi_output(loss):
    X, Y, w = (_labels if loss == "logistic" else _regression)(5, d=1)
    cls = PaperClassifier if loss == "logistic" else PaperRegressor
    Y3 = np.repeat(Y, 3, axis=1)
    kw = dict(loss=loss, learning_rate=0.4, n_estimators=12, max_leaf_nodes=4, random_state=3)
    a = cls(strategy="projected", projection="subsample", **kw).fit(X, Y3, w)
    b = cls(strategy="multi_output", **kw).fit(X, Y3, w)
    stages_a, stages_b = _staged(a, X), _staged(b, X)
    assert len(stages_a) == len(stages_b) == 12
    for fa, fb in zip(stages_a, stages_b):
        np.testing.assert_allclose(fa, fb, rtol=0, atol=1e-10)
    assert np.ptp(stages_a[-1] - stages_a[0]) > 0.1     # the model did move


# ---------------------------------------------------------------- training loss

MONOTONE_CASES = [(s, l) for s in STRATEGIES for l in ("squared_error", "absolute_error")]


def _assert_monotone_and_consistent(est, X, targets, loss):
    score = est.train_score_
    assert np.isfinite(score).all()
    steps = np.diff(np.concatenate([[mean_loss(loss, targets, np.tile(est.init_, (len(X), 1)))], score]))
    assert (steps <= 1e-12 * np.abs(score)).all(), steps.max()
    for m, F in enumerate(_staged(est, X)):
        np.testing.assert_allclose(score[m], mean_loss(loss, targets, F), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("learning_rate", [0.05, 0.5, 1.0])
@pytest.mark.parametrize("strategy,loss", MONOTONE_CASES)
def test_regressor_training_loss_never_increases(strategy, loss, learning_rate):
    X, Y, _ = _regression(6, d=3)
    for projection in (PROJECTIONS if strategy.startswith("projected") else ("subsample",)):
        est = PaperRegressor(
            strategy=strategy, projection=projection, n_projections=_q(strategy, 3), loss=loss,
            learning_rate=learning_rate, n_estimators=12, max_leaf_nodes=3, random_state=0).fit(X, Y)
        _assert_monotone_and_consistent(est, X, Y, loss)


@pytest.mark.parametrize("learning_rate", [0.05, 0.5, 1.0])
@pytest.mark.parametrize("loss", ["logistic", "squared_error"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_classifier_training_loss_never_increases_with_imbalanced_labels(strategy, loss, learning_rate):
    X, Y = _imbalanced(7)
    for projection in (PROJECTIONS if strategy.startswith("projected") else ("subsample",)):
        est = PaperClassifier(
            strategy=strategy, projection=projection, n_projections=_q(strategy, 3), loss=loss,
            learning_rate=learning_rate, n_estimators=12, max_leaf_nodes=4, random_state=0).fit(X, Y)
        _assert_monotone_and_consistent(est, X, 2 * Y - 1, loss)
        assert np.isfinite(est.rho_).all()
        assert np.isfinite(est.decision_function(X)).all()


# ---------------------------------------------------------------- losses and line searches

@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
def test_negative_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(30, 3))
    if loss == "logistic":
        Y = np.sign(Y)
    F = rng.normal(scale=2.0, size=(30, 3))
    if loss == "absolute_error":
        F[np.abs(Y - F) < 1e-3] += 0.01  # stay away from the kink
    code = LOSS_CODE[loss]
    g = _losses.elementwise_negative_gradient(code, Y, F)
    np.testing.assert_allclose(g, -numerical_gradient(loss, Y, F), rtol=1e-6, atol=1e-7)
    # and against a finite difference of the engine's own loss
    eps = 1e-6
    fd = (_losses.elementwise_loss(code, Y, F + eps) - _losses.elementwise_loss(code, Y, F - eps)) / (2 * eps)
    np.testing.assert_allclose(g, -fd, rtol=1e-6, atol=1e-7)
    # the engine's loss equals the reference's (summed over outputs)
    np.testing.assert_allclose(_losses.elementwise_loss(code, Y, F).sum(axis=1),
                               loss_per_sample(loss, Y, F),
                               rtol=1e-13, atol=1e-13)


def test_logistic_loss_does_not_overflow():
    Y = np.array([[1.0, -1.0, 1.0, -1.0]])
    F = np.array([[-800.0, 800.0, 800.0, -800.0]])
    L = _losses.elementwise_loss(Loss.LOGISTIC, Y, F)
    np.testing.assert_allclose(L, [[1600.0, 1600.0, 0.0, 0.0]], atol=1e-12)
    G = _losses.elementwise_negative_gradient(Loss.LOGISTIC, Y, F)
    np.testing.assert_allclose(G, [[2.0, -2.0, 0.0, 0.0]], atol=1e-12)


def _objective(loss, y, f, a, w, rho):
    code = LOSS_CODE[loss]
    return float(w @ _losses.elementwise_loss(code, y[:, None], (f + rho * a)[:, None])[:, 0])


def _line_search_case(loss, seed, imbalanced=False):
    rng = np.random.default_rng(seed)
    n = 150 if imbalanced else 60
    if loss == "logistic":
        y = -np.ones(n)
        if imbalanced:
            y[rng.choice(n, 3, replace=False)] = 1.0
        else:
            y[rng.random(n) < 0.4] = 1.0
        f = np.full(n, 0.5 * np.log((y > 0).sum() / (y < 0).sum()))
        f += 0.3 * rng.normal(size=n)
        a = np.where(rng.random(n) < 0.5, 0.8, -0.6) + 0.1 * rng.normal(size=n)
    else:
        y = rng.normal(size=n) * 3
        f = rng.normal(size=n)
        a = rng.normal(size=n)
    w = rng.uniform(0.1, 2.0, size=n)
    return y, f, a, w


@pytest.mark.parametrize("loss,imbalanced", [("squared_error", False), ("absolute_error", False),
                                             ("logistic", False), ("logistic", True)])
@pytest.mark.parametrize("seed", range(4))
def test_line_search_hits_the_minimum(loss, imbalanced, seed):
    y, f, a, w = _line_search_case(loss, seed, imbalanced)
    rho = _testing.line_search_on_vectors(LOSS_CODE[loss], y, f, a, w)
    value = _objective(loss, y, f, a, w, rho)
    best = minimize_scalar(lambda r: _objective(loss, y, f, a, w, r), bounds=(-50, 50),
                           method="bounded", options={"xatol": 1e-12}).fun
    grid = np.linspace(rho - 5, rho + 5, 20001)
    grid_best = min(_objective(loss, y, f, a, w, r) for r in grid)
    assert value <= best + 1e-10 * max(1.0, abs(best))
    assert value <= grid_best + 1e-12 * max(1.0, abs(grid_best))
    assert value <= _objective(loss, y, f, a, w, 0.0)
    ref = reference_line_search(loss, y, f, a, w)
    np.testing.assert_allclose(value, _objective(loss, y, f, a, w, ref), rtol=1e-10)


def test_logistic_line_search_imbalanced_far_from_optimum():
    """Plain Newton from rho = 0 overshoots here; the safeguarded search must not."""
    n = 150
    y = -np.ones(n)
    y[:3] = 1.0
    f = np.full(n, 3.0)          # confidently wrong about the 147 negatives
    a = -np.ones(n)              # a direction that fixes it
    a[:3] = 1.0
    w = np.ones(n)
    rho = _testing.line_search_on_vectors(Loss.LOGISTIC, y, f, a, w)
    # separable along a: the loss decreases forever; the search stops where the
    # raw score moved by at most 15 and the loss is already flat.
    assert 0 < rho <= 15.0 + 1e-12
    assert _objective("logistic", y, f, a, w, rho) < 1e-4
    a[5] = 1.0                   # now one negative goes the wrong way: a finite optimum
    rho = _testing.line_search_on_vectors(Loss.LOGISTIC, y, f, a, w)
    grid = np.linspace(0, 20, 40001)
    assert _objective("logistic", y, f, a, w, rho) <= min(
        _objective("logistic", y, f, a, w, r) for r in grid) + 1e-12


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
def test_line_search_zero_direction_gives_zero(loss):
    y, f, _, w = _line_search_case(loss, 0)
    assert _testing.line_search_on_vectors(LOSS_CODE[loss], y, f, np.zeros_like(y), w) == 0.0


# ---------------------------------------------------------------- stages, seeds, warm start

RANDOMIZED = [
    dict(strategy="single_target", subsample=0.7, max_features=2),
    dict(strategy="multi_output", subsample=0.6, max_features=2, max_leaf_nodes=4),
    dict(strategy="projected", projection="gaussian", subsample=0.8),
    dict(strategy="projected_relabel", projection="sparse", n_projections=2, max_features=3,
         max_leaf_nodes=3),
]


@pytest.mark.parametrize("params", RANDOMIZED, ids=lambda p: p["strategy"])
def test_stage_i_equals_a_fresh_model_with_i_steps(params):
    X, Y, _ = _regression(8, d=3)
    kw = dict(learning_rate=0.3, random_state=4, **params)
    full = PaperRegressor(n_estimators=12, **kw).fit(X, Y)
    stages = list(full.staged_predict(X))
    assert len(stages) == 12
    np.testing.assert_array_equal(stages[-1], full.predict(X))
    for i in (1, 2, 5, 12):
        fresh = PaperRegressor(n_estimators=i, **kw).fit(X, Y)
        np.testing.assert_allclose(fresh.predict(X), stages[i - 1], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(fresh.train_score_, full.train_score_[:i])


@pytest.mark.parametrize("loss", ["logistic", "squared_error"])
@pytest.mark.parametrize("params", RANDOMIZED, ids=lambda p: p["strategy"])
def test_classifier_stage_i_equals_a_fresh_model_with_i_steps(params, loss):
    X, Y, _ = _labels(8, d=3)
    kw = dict(learning_rate=0.3, random_state=4, loss=loss, **params)
    full = PaperClassifier(n_estimators=12, **kw).fit(X, Y)
    scores = list(full.staged_decision_function(X))
    probas = list(full.staged_predict_proba(X))
    labels = list(full.staged_predict(X))
    assert len(scores) == len(probas) == len(labels) == 12
    np.testing.assert_array_equal(scores[-1], full.decision_function(X))
    np.testing.assert_array_equal(probas[-1], full.predict_proba(X))
    np.testing.assert_array_equal(labels[-1], full.predict(X))
    assert not np.allclose(scores[0], scores[-1])
    for i in (1, 2, 5, 12):
        fresh = PaperClassifier(n_estimators=i, **kw).fit(X, Y)
        np.testing.assert_allclose(fresh.decision_function(X), scores[i - 1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(fresh.predict_proba(X), probas[i - 1], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(fresh.predict(X), labels[i - 1])
        np.testing.assert_array_equal(fresh.train_score_, full.train_score_[:i])


def _warm_start_params():
    # Row sub-sampling and feature draws must not depend on state left over
    # from earlier fits (the compiled loop restarts its permutations per draw).
    for p in RANDOMIZED:
        yield pytest.param(p, id=p["strategy"])
    yield pytest.param(dict(strategy="projected", projection="achlioptas", max_features=2),
                       id="projected-no-subsample")


@pytest.mark.parametrize("params", RANDOMIZED, ids=lambda p: p["strategy"])
def test_same_seed_same_model_different_seed_different_model(params):
    X, Y, _ = _regression(9, d=3)
    kw = dict(learning_rate=0.3, n_estimators=10, **params)
    a = PaperRegressor(random_state=1, **kw).fit(X, Y)
    b = PaperRegressor(random_state=1, **kw).fit(X, Y)
    c = PaperRegressor(random_state=2, **kw).fit(X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.rho_, b.rho_)
    assert not np.allclose(a.predict(X), c.predict(X))


@pytest.mark.parametrize("params", list(_warm_start_params()))
def test_warm_start_in_chunks_equals_one_fit(params):
    X, Y, _ = _regression(9, d=3)
    kw = dict(learning_rate=0.3, random_state=1, **params)
    a = PaperRegressor(n_estimators=20, **kw).fit(X, Y)
    warm = PaperRegressor(n_estimators=5, warm_start=True, **kw)
    for n_estimators in (5, 12, 20):      # 5 + 7 + 8 steps
        warm.set_params(n_estimators=n_estimators).fit(X, Y)
        assert warm.n_steps_ == n_estimators
    np.testing.assert_allclose(warm.predict(X), a.predict(X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(warm.train_score_, a.train_score_)
    np.testing.assert_array_equal(warm.rho_, a.rho_)
    if a.projections_ is not None:
        np.testing.assert_array_equal(warm.projections_, a.projections_)
    with pytest.raises(ValueError, match="n_estimators"):
        warm.set_params(n_estimators=10).fit(X, Y)


@pytest.mark.parametrize("strategy", ["multi_output", "projected", "projected_relabel"])
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error"])
@pytest.mark.parametrize("missing", [False, True])
def test_the_gradient_carried_across_chunks_is_the_recomputed_one(monkeypatch, strategy, loss, missing):
    # A fit runs its steps in several calls of the compiled loop (chunks, for progress and
    # callbacks); only the first computes the gradient, later ones take the one the previous
    # call's last update left in the workspace. One step per call, one call for all steps
    # after the first, and a warm start that recomputes it must give the same model, bit
    # for bit.
    import engine.estimators.boosting as boosting_module
    X, Y, _ = _regression(4, n=150, d=4)
    if missing:
        Y[np.random.default_rng(0).uniform(size=Y.shape) < 0.2] = np.nan
    kw = dict(strategy=strategy, loss=loss, n_estimators=12, learning_rate=0.3, random_state=2,
              missing_targets="ignore" if missing else "error")
    if strategy != "multi_output":
        kw.update(projection="gaussian", n_projections=2 if strategy == "projected_relabel" else 1)
    models, chunks = [], []
    for chunk_seconds in (1e-12, 1e12):
        monkeypatch.setattr(boosting_module, "CHUNK_SECONDS", chunk_seconds)
        done = []
        models.append(PaperRegressor(**kw).fit(X, Y, callback=lambda k, est: done.append(k)))
        chunks.append(done)
    assert chunks == [list(range(1, 13)), [1, 12]]
    # A warm start recomputes the gradient from the predictions it kept.
    warm = PaperRegressor(**{**kw, "n_estimators": 4}, warm_start=True).fit(X, Y)
    warm.set_params(n_estimators=12).fit(X, Y)
    models.append(warm)
    for other in models[1:]:
        np.testing.assert_array_equal(other.predict(X), models[0].predict(X))
        np.testing.assert_array_equal(other.train_score_, models[0].train_score_)
        np.testing.assert_array_equal(other.rho_, models[0].rho_)


@pytest.mark.parametrize("subsample,max_features", [
    (1.0, None), (1.0, 2), (0.7, None), (0.7, 2)])
def test_warm_start_after_pickling_continues_identically(subsample, max_features):
    X, Y, _ = _regression(9, d=3)
    kw = dict(strategy="projected", projection="gaussian", subsample=subsample,
              max_features=max_features, learning_rate=0.3, random_state=5)
    a = PaperRegressor(n_estimators=10, **kw).fit(X, Y)
    warm = PaperRegressor(n_estimators=4, warm_start=True, **kw).fit(X, Y)
    warm = pickle.loads(pickle.dumps(warm))
    warm.set_params(n_estimators=10).fit(X, Y)
    np.testing.assert_allclose(warm.predict(X), a.predict(X), rtol=0, atol=1e-12)


def test_same_seed_same_model_for_deterministic_variant():
    X, Y, _ = _regression(9, d=3)
    a = PaperRegressor(n_estimators=10, random_state=1).fit(X, Y)
    b = PaperRegressor(n_estimators=10, random_state=2).fit(X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))  # nothing random in gbmort


def test_callback_stops_early_and_keeps_a_usable_model():
    X, Y, _ = _regression(10, d=2)
    calls = []

    def stop_after_three(n_done, est):
        calls.append(n_done)
        return n_done >= 3

    est = PaperRegressor(n_estimators=500, learning_rate=0.2, random_state=0)
    est.fit(X, Y, callback=stop_after_three)
    assert calls == sorted(calls) and calls[0] >= 1
    k = est.n_steps_
    assert 3 <= k < 500 and k == calls[-1]
    assert est.rho_.shape == (k, 2) and est.train_score_.shape == (k,) and est.fit_times_.shape == (k,)
    assert est.trees_.n_trees == k
    fresh = PaperRegressor(n_estimators=k, learning_rate=0.2, random_state=0).fit(X, Y)
    np.testing.assert_allclose(est.predict(X), fresh.predict(X), rtol=0, atol=1e-12)
    assert len(list(est.staged_predict(X))) == k


def test_fit_times_are_positive_and_non_decreasing():
    X, Y, _ = _regression(10, d=2)
    est = PaperRegressor(n_estimators=40, warm_start=True, random_state=0).fit(X, Y)
    est.set_params(n_estimators=60).fit(X, Y)
    t = est.fit_times_
    assert t.shape == (60,) and (t > 0).all() and (np.diff(t) >= 0).all()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_eval_set_scores_match_staged_predictions(strategy):
    X, Y, _ = _regression(11, n=120, d=3)
    Xe, Ye, _ = _regression(12, n=50, d=3)
    for loss in ("squared_error", "absolute_error"):
        est = PaperRegressor(strategy=strategy, n_projections=_q(strategy, 3), loss=loss,
                             n_estimators=10, learning_rate=0.3, subsample=0.8,
                             random_state=0).fit(X, Y, eval_set=(Xe, Ye))
        stages = list(est.staged_predict(Xe))
        assert est.eval_score_.shape == est.eval_loss_.shape == (10,)
        for m, P in enumerate(stages):
            np.testing.assert_allclose(est.eval_score_[m], r2_score(Ye, P, multioutput="uniform_average"),
                                       rtol=0, atol=1e-10)
            np.testing.assert_allclose(est.eval_loss_[m], mean_loss(loss, Ye, P), rtol=1e-10, atol=1e-12)


def test_classifier_eval_loss_matches_staged_decision_function():
    X, Y, _ = _labels(13, d=3)
    Xe, Ye, _ = _labels(14, n=40, d=3)
    est = PaperClassifier(n_estimators=8, learning_rate=0.5).fit(X, Y, eval_set=(Xe, Ye))
    for m, F in enumerate(est.staged_decision_function(Xe)):
        np.testing.assert_allclose(est.eval_loss_[m], mean_loss("logistic", 2 * Ye - 1, F), rtol=1e-10)


# ---------------------------------------------------------------- pickling, registry, classifier

def test_pickle_round_trips_predictions():
    X, Y, _ = _regression(15, d=3)
    reg = PaperRegressor(strategy="projected_relabel", projection="gaussian",
                         n_projections=2, n_estimators=10, max_leaf_nodes=4,
                         random_state=0).fit(X, Y)
    copy = pickle.loads(pickle.dumps(reg))
    np.testing.assert_array_equal(copy.predict(X), reg.predict(X))
    np.testing.assert_array_equal(copy.projections_, reg.projections_)
    X, L, _ = _labels(15, d=3)
    clf = PaperClassifier(strategy="single_target", n_estimators=10).fit(X, L)
    copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(copy.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(copy.predict(X), clf.predict(X))


@pytest.mark.parametrize("name", ESTIMATOR_NAMES + ("br-gbrt",))
@pytest.mark.parametrize("task", ["regression", "multilabel"])
def test_make_estimator_builds_and_fits(name, task):
    X, Y, _ = (_regression if task == "regression" else _labels)(16, n=30, d=4)
    est = make_estimator(name, task=task, n_estimators=3, random_state=0)
    assert isinstance(est, MultiOutputBoostingRegressor if task == "regression"
                      else MultiLabelBoostingClassifier)
    est.fit(X, Y)
    assert est.predict(X[:7]).shape == (7, 4)
    assert np.isfinite(est.predict(X)).all()


def test_make_estimator_rejects_unknown_names():
    with pytest.raises(ValueError, match="no-such-model"):
        make_estimator("no-such-model")
    with pytest.raises(ValueError, match="bogus"):
        make_estimator("gbmort", bogus=1)
    with pytest.raises(ValueError, match="task"):
        make_estimator("gbmort", task="ranking")
    for bad in (["gbmort"], None, 3):
        with pytest.raises(ValueError, match="^name must be one of"):
            make_estimator(bad)
    with pytest.raises(ValueError, match="^task must be one of"):
        make_estimator("gbmort", task=["regression"])
    with pytest.raises(ValueError, match="^strategy must be one of"):
        make_estimator("gbmort", strategy=["projected"]).fit(np.zeros((4, 2)), np.arange(4.0))
    assert make_estimator("gbrt-rpo-gaussian", learning_rate=0.2).get_params()["learning_rate"] == 0.2
    assert make_estimator("gbrt-relabel-rpo-subsampled").projection == "subsample"


@pytest.mark.parametrize("loss", ["logistic", "squared_error"])
def test_classifier_probabilities_and_labels(loss):
    """scikit-learn's multi-output format: a list of (n, 2) blocks [P(class 0), P(class 1)] per label,
    predict the positive class where the decision function is > 0."""
    X, Y, _ = _labels(17, d=3)
    clf = PaperClassifier(loss=loss, n_estimators=20, learning_rate=0.5).fit(X, Y)
    blocks = clf.predict_proba(X)
    assert isinstance(blocks, list) and len(blocks) == 3
    F = clf.decision_function(X)
    assert F.shape == (len(X), 3)
    for j, B in enumerate(blocks):
        assert B.shape == (len(X), 2) and (B >= 0).all() and (B <= 1).all()
        np.testing.assert_allclose(B.sum(axis=1), 1.0)
        np.testing.assert_allclose(B[:, 1], clf._probability(F[:, j]))
    pred = clf.predict(X)
    assert pred.shape == (len(X), 3) and pred.dtype == Y.dtype and set(np.unique(pred)) <= {0, 1}
    np.testing.assert_array_equal(pred, (F > 0).astype(int))
    np.testing.assert_array_equal(clf.classes_[(F > 0).astype(int)], pred)
    assert isinstance(clf.classes_, list) and all(list(c) == [0, 1] for c in clf.classes_)
    assert (pred == Y).mean() > 0.7
    clf1 = PaperClassifier(loss=loss, n_estimators=10).fit(X, Y[:, 0])
    P1 = clf1.predict_proba(X)
    assert P1.shape == (len(X), 2)
    np.testing.assert_allclose(P1.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf1.predict(X), (clf1.decision_function(X) > 0).astype(int))
    assert clf1.predict(X).shape == (len(X),)
    np.testing.assert_array_equal(clf1.classes_, [0, 1])
    staged = list(clf.staged_predict_proba(X))
    for a, b in zip(staged[-1], blocks):
        np.testing.assert_array_equal(a, b)


def test_feature_importances():
    rng = np.random.default_rng(19)
    X = rng.uniform(size=(150, 5))
    Y = np.column_stack([3 * X[:, 3], -2 * X[:, 3] + 0.1 * X[:, 0]]) + 0.05 * rng.normal(size=(150, 2))
    for strategy in STRATEGIES:
        est = PaperRegressor(strategy=strategy, n_estimators=20, max_leaf_nodes=4,
                             random_state=0).fit(X, Y)
        imp = est.feature_importances_
        assert imp.shape == (5,) and (imp >= 0).all()
        np.testing.assert_allclose(imp.sum(), 1.0, rtol=1e-12)
        assert np.argmax(imp) == 3


# ---------------------------------------------------------------- score

def _macro_r2_by_hand(Y, P):
    """Eq. 26 of paper 002 written out: 1 - mean_j SSE_j / SST_j."""
    Y, P = Y.reshape(len(Y), -1), P.reshape(len(P), -1)
    sse = ((Y - P) ** 2).sum(axis=0)
    sst = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
    return 1.0 - np.mean(sse / sst)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_regressor_score_is_macro_r2_of_predict(strategy):
    from engine.metrics import macro_r2
    X, Y, _ = _regression(20, d=3)
    Xt, Yt, _ = _regression(21, n=60, d=3)
    est = PaperRegressor(strategy=strategy, n_projections=_q(strategy, 3),
                         n_estimators=15, learning_rate=0.3, random_state=0).fit(X, Y)
    P = est.predict(Xt)
    assert est.score(Xt, Yt) == pytest.approx(macro_r2(Yt, P), rel=0, abs=1e-12)
    assert est.score(Xt, Yt) == pytest.approx(_macro_r2_by_hand(Yt, P), rel=0, abs=1e-12)
    # macro, not the variance-weighted r2: the outputs' scales differ a lot here
    assert abs(est.score(Xt, Yt) - r2_score(Yt, P, multioutput="variance_weighted")) > 1e-3
    one = PaperRegressor(strategy=strategy, n_estimators=15, random_state=0).fit(X, Y[:, 0])
    assert one.score(Xt, Yt[:, 0]) == pytest.approx(_macro_r2_by_hand(Yt[:, 0], one.predict(Xt)),
                                                    rel=0, abs=1e-12)


def test_classifier_score_is_subset_accuracy():
    from engine.metrics import subset_zero_one_loss
    X, Y, _ = _labels(22, d=3)
    Xt, Yt, _ = _labels(23, n=60, d=3)
    clf = PaperClassifier(n_estimators=15, learning_rate=0.5).fit(X, Y)
    P = clf.predict(Xt)
    assert clf.score(Xt, Yt) == pytest.approx(1.0 - subset_zero_one_loss(Yt, P), abs=1e-12)
    assert clf.score(Xt, Yt) == pytest.approx(np.mean((P == Yt).all(axis=1)), abs=1e-12)


# ---------------------------------------------------------------- max_features

def _per_feature_best(X, R):
    """The brute-force best split of every single feature: (improvement, threshold) each."""
    from oracles.split_search import brute_force_best_split
    best = [brute_force_best_split(X[:, [f]], R) for f in range(X.shape[1])]
    return np.array([b["improvement"] for b in best]), np.array([b["threshold"] for b in best])


@pytest.mark.slow
@pytest.mark.parametrize("strategy,max_features,k", [
    ("single_target", "sqrt", 3), ("single_target", "log2", 3), ("single_target", 0.5, 5),
    ("single_target", 0.25, 2), ("single_target", 7, 7), ("single_target", 10, 10),
    ("single_target", None, 10), ("multi_output", "sqrt", 3), ("multi_output", 0.5, 5)])
def test_max_features_draws_k_candidate_features(strategy, max_features, k):
    """The root split is the brute-force best over some k of the p = 10 features.

    Continuous random data: no constant feature, and every feature's best split
    has a different improvement, so the root's feature has a rank (1 = best of
    all p). With k features drawn uniformly without replacement the rank is
    the minimum of k draws from 1..p: P(rank = r) = C(p - r, k - 1) / C(p, k),
    never above p - k + 1. Over 200 seeds the maximum-likelihood k of the
    observed ranks must be the requested one.
    """
    p, d, n_seeds = 10, (1 if strategy == "single_target" else 3), 200
    rng = np.random.default_rng(30)
    X = rng.uniform(size=(80, p))
    Y = rng.normal(size=(80, d)) + 0.3 * X[:, :d]
    improvement, threshold = _per_feature_best(X, Y - Y.mean(axis=0))
    order = np.sort(improvement)
    assert (np.diff(order) > 1e-9 * order[-1]).all()          # no ties between features
    rank = {f: 1 + int((improvement > improvement[f]).sum()) for f in range(p)}

    ranks = []
    for seed in range(n_seeds):
        est = PaperRegressor(strategy=strategy, n_estimators=1, max_leaf_nodes=2,
                             max_features=max_features, random_state=seed).fit(X, Y)
        root = est.trees_.nodes[0]
        f = int(root["feature"])
        assert root["threshold"] == pytest.approx(threshold[f], abs=1e-12)   # best split of f
        np.testing.assert_allclose(root["improvement"], improvement[f], rtol=1e-9)
        ranks.append(rank[f])
    ranks = np.array(ranks)
    assert ranks.max() <= p - k + 1       # at least k - 1 features were worse
    if k == p:
        assert (ranks == 1).all()         # every feature seen: always the overall best
        return
    assert (ranks > 1).any()              # sometimes the overall best was not drawn

    def log_likelihood(kk):
        if ranks.max() > p - kk + 1:
            return -np.inf
        return sum(log(comb(p - r, kk - 1) / comb(p, kk)) for r in ranks)

    ll = np.array([log_likelihood(kk) for kk in range(1, p + 1)])
    assert np.argmax(ll) + 1 == k
    assert ll[k - 1] - ll[k - 2] > 2.0            # k - 1 features: clearly less likely
