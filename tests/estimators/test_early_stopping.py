"""Early stopping (early_stopping, n_iter_no_change, validation_fraction, tol), the held-out
scores, and the cut back to the best iteration when early stopping stops.

Oracles: the same estimator fitted without early stopping for n_estimators_
steps on the training rows (the models must be identical), the rule written
in numpy (early_stopping.stopping_step) applied to a full held-out curve,
scikit-learn's r2_score and the losses of tests/oracles/reference_boosting.py on the
staged predictions.
"""

import numpy as np
import pytest
from sklearn.metrics import r2_score

from engine.estimators.early_stopping import stopping_step, validation_split
from paper_settings import PaperClassifier, PaperRegressor
from oracles.reference_boosting import loss_per_sample

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
KINDS = ("regressor", "classifier")


def _data(seed=0, n=120, kind="regressor"):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    Y = np.column_stack([X[:, 0] + X[:, 1], X[:, 2] - X[:, 0], X[:, 3]]) + 0.5 * rng.normal(size=(n, 3))
    if kind == "classifier":
        Y = (Y > np.median(Y, axis=0)).astype(int)
    return X, Y


def _model(kind, strategy, **params):
    """The papers' setting, early stopping on whenever a test sets n_iter_no_change (off otherwise:
    a full fit, the oracle the stopped ones are compared with)."""
    cls = PaperRegressor if kind == "regressor" else PaperClassifier
    params.setdefault("early_stopping", params.get("n_iter_no_change") is not None)
    return cls(strategy=strategy, projection="gaussian",
               n_projections=2 if strategy == "projected_relabel" else 1, learning_rate=0.5,
               max_leaf_nodes=6, random_state=0, **params)


def _raw(model, X):
    return model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_early_stopping_equals_fitting_n_estimators_steps_without_it(kind, strategy):
    X, Y = _data(kind=kind)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(X))
    stopped = _model(kind, strategy, n_estimators=300, n_iter_no_change=3, validation_fraction=0.25,
                     subsample=0.8).fit(X, Y, sample_weight=w)
    assert stopped.early_stopping_ and stopped.n_steps_run_ < 300
    # cut back to the best step: the last kept step is the best held-out score
    assert stopped.n_estimators_ == stopped.n_steps_ == stopped.best_iteration_ + 1 <= stopped.n_steps_run_
    assert stopped.best_iteration_ == int(np.argmax(stopped.eval_score_)) == stopped.n_steps_ - 1
    assert len(stopped.rho_) == len(stopped.train_score_) == len(stopped.fit_times_) == stopped.n_steps_
    train, val = validation_split(len(X), 0.25, 0)
    assert len(val) == 30 and np.intersect1d(train, val).size == 0
    plain = _model(kind, strategy, n_estimators=stopped.n_estimators_, subsample=0.8).fit(
        X[train], Y[train], sample_weight=w[train])
    np.testing.assert_array_equal(_raw(stopped, X), _raw(plain, X))
    np.testing.assert_array_equal(stopped.train_score_, plain.train_score_)
    # The held-out scores early stopping read are those of the held-out rows (weighted).
    assert stopped.eval_score_.shape == (stopped.n_estimators_,)
    last = _raw(plain, X[val])
    if kind == "regressor":
        expected = r2_score(Y[val], last, sample_weight=w[val], multioutput="raw_values")
    else:
        per = [loss_per_sample("logistic", 2 * Y[val][:, [j]] - 1, last[:, [j]]) for j in range(3)]
        expected = [-(w[val] @ p) / w[val].sum() for p in per]
    np.testing.assert_allclose(stopped.eval_score_per_output_[-1], expected, rtol=1e-10)
    # sklearn's rule on the curve of every step run: it stopped at n_steps_run_, its best before
    ran = _model(kind, strategy, n_estimators=stopped.n_steps_run_, subsample=0.8).fit(
        X[train], Y[train], sample_weight=w[train])
    if kind == "regressor":
        curve = [r2_score(Y[val], F, sample_weight=w[val]) for F in ran.staged_predict(X[val])]
    else:
        curve = [np.mean([-(w[val] @ loss_per_sample("logistic", 2 * Y[val][:, [j]] - 1, F[:, [j]]))
                          / w[val].sum() for j in range(3)]) for F in ran.staged_decision_function(X[val])]
    assert stopping_step(curve, 3) == stopped.n_steps_run_
    assert int(np.argmax(curve)) == stopped.best_iteration_


@pytest.mark.parametrize("kind", KINDS)
def test_with_an_eval_set_early_stopping_stops_where_the_rule_says(kind):
    """Nothing is held out: the fit is the full fit cut at stopping_step of its own held-out curve."""
    X, Y = _data(2, kind=kind)
    X_eval, Y_eval = _data(3, n=60, kind=kind)
    for strategy in STRATEGIES:
        full = _model(kind, strategy, n_estimators=60).fit(X, Y, eval_set=(X_eval, Y_eval))
        for k, tol in ((1, 0.0), (3, 1e-4), (5, 1e-3)):
            stopped = _model(kind, strategy, n_estimators=60, n_iter_no_change=k, tol=tol).fit(
                X, Y, eval_set=(X_eval, Y_eval))
            m = stopping_step(full.eval_score_, k, tol)
            best = int(np.argmax(full.eval_score_[:m]))
            assert stopped.n_steps_run_ == m
            assert stopped.n_estimators_ == stopped.best_iteration_ + 1 == best + 1
            np.testing.assert_array_equal(stopped.eval_score_, full.eval_score_[:best + 1])
            staged = list(full.staged_decision_function(X) if kind == "classifier" else full.staged_predict(X))
            np.testing.assert_array_equal(_raw(stopped, X), staged[best])


@pytest.mark.parametrize("kind", KINDS)
def test_early_stopping_does_not_depend_on_how_steps_are_chunked(kind, monkeypatch):
    """A stall on the last step of a compiled call must end the fit too: with one step per call
    (what a slow step gives, CHUNK_SECONDS tiny) the fit stops where it does with the default chunks."""
    from engine.estimators import boosting

    X, Y = _data(2, kind=kind)
    X_eval, Y_eval = _data(3, n=60, kind=kind)
    for strategy in STRATEGIES:
        default = _model(kind, strategy, n_estimators=60, n_iter_no_change=3, tol=1e-4).fit(
            X, Y, eval_set=(X_eval, Y_eval))
        monkeypatch.setattr(boosting, "CHUNK_SECONDS", 1e-12)
        one_by_one = _model(kind, strategy, n_estimators=60, n_iter_no_change=3, tol=1e-4).fit(
            X, Y, eval_set=(X_eval, Y_eval))
        monkeypatch.undo()
        assert default.n_estimators_ <= default.n_steps_run_ < 60
        assert one_by_one.n_steps_run_ == default.n_steps_run_
        assert one_by_one.n_estimators_ == default.n_estimators_
        np.testing.assert_array_equal(_raw(one_by_one, X), _raw(default, X))


@pytest.mark.parametrize("kind", KINDS)
def test_best_iteration_and_per_output_scores(kind):
    X, Y = _data(4, kind=kind)
    X_eval, Y_eval = _data(5, n=50, kind=kind)
    est = _model(kind, "multi_output", n_estimators=40).fit(X, Y, eval_set=(X_eval, Y_eval))
    assert est.eval_score_per_output_.shape == (40, 3)
    np.testing.assert_allclose(est.eval_score_, est.eval_score_per_output_.mean(axis=1), rtol=1e-12)
    assert est.best_iteration_ == int(np.argmax(est.eval_score_))
    staged = list(est.staged_decision_function(X_eval) if kind == "classifier" else est.staged_predict(X_eval))
    for m in (0, 9, 39):
        if kind == "regressor":
            expected = r2_score(Y_eval, staged[m], multioutput="raw_values")
        else:
            expected = [-loss_per_sample("logistic", 2 * Y_eval[:, [j]] - 1, staged[m][:, [j]]).mean()
                        for j in range(3)]
        np.testing.assert_allclose(est.eval_score_per_output_[m], expected, rtol=1e-10)
    if kind == "classifier":
        # minus the mean per-label loss: the held-out loss summed over labels, divided by d
        np.testing.assert_allclose(est.eval_score_, -est.eval_loss_ / 3, rtol=1e-10)


def test_warm_start_and_callback_with_early_stopping():
    X, Y = _data(6)
    est = _model("regressor", "multi_output", n_estimators=200, n_iter_no_change=2, warm_start=True).fit(X, Y)
    first = est.n_estimators_
    assert first == est.best_iteration_ + 1 and est.n_steps_run_ < 200
    est.fit(X, Y)                               # continues from the best step, stops again
    assert est.n_steps_run_ > first             # it fitted new steps
    assert first <= est.n_estimators_ == est.best_iteration_ + 1 <= 200
    calls = []
    _model("regressor", "multi_output", n_estimators=200, n_iter_no_change=2).fit(
        X, Y, callback=lambda n, e: calls.append(n))
    assert calls and calls[-1] < 200


def test_early_stopping_with_missing_targets():
    X, Y = _data(7)
    holes = np.random.default_rng(0).random(Y.shape) < 0.3
    Y_nan = np.where(holes, np.nan, Y)
    stopped = _model("regressor", "projected_relabel", n_estimators=300, n_iter_no_change=3,
                     missing_targets="ignore").fit(X, Y_nan)
    train, val = validation_split(len(X), 0.1, 0)
    plain = _model("regressor", "projected_relabel", n_estimators=stopped.n_estimators_,
                   missing_targets="ignore").fit(X[train], Y_nan[train])
    np.testing.assert_array_equal(stopped.predict(X), plain.predict(X))
    P = plain.predict(X[val])
    observed = ~holes[val]
    expected = [r2_score(Y[val][observed[:, j], j], P[observed[:, j], j]) for j in range(3)]
    np.testing.assert_allclose(stopped.eval_score_per_output_[-1], expected, rtol=1e-10)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("params, match", [
    (dict(validation_fraction=0.0), "^validation_fraction must be a number in \\(0, 1\\)"),
    (dict(validation_fraction=1.0), "^validation_fraction must be a number in \\(0, 1\\)"),
    (dict(validation_fraction="half"), "^validation_fraction must be a number in \\(0, 1\\)"),
    (dict(n_iter_no_change=0), "^n_iter_no_change must be None or an integer >= 1"),
    (dict(n_iter_no_change=2.5), "^n_iter_no_change must be None or an integer >= 1"),
    (dict(n_iter_no_change=True), "^n_iter_no_change must be None or an integer >= 1"),
    (dict(tol=-1e-3), "^tol must be a finite number >= 0"),
    (dict(tol=np.inf), "^tol must be a finite number >= 0"),
    (dict(n_iter_no_change=2, validation_fraction=0.99), "^validation_fraction = 0.99 holds out"),
    (dict(early_stopping=True, n_iter_no_change=None), "^early_stopping=True needs n_iter_no_change"),
])
def test_bad_early_stopping_parameters(kind, params, match):
    X, Y = _data(8, n=40, kind=kind)
    with pytest.raises(ValueError, match=match):
        _model(kind, "multi_output", n_estimators=3, **params).fit(X, Y)


def test_stopping_step_is_sklearns_rule():
    assert stopping_step([0.1, 0.2, 0.3], 1) == 3                 # never stalls
    assert stopping_step([0.1, 0.2, 0.2, 0.3], 1) == 3            # stalls at the third step (kept)
    assert stopping_step([0.1, 0.2, 0.15, 0.19, 0.18], 2) == 5    # beats the older of the last two
    assert stopping_step([0.1, 0.2, 0.15, 0.19, 0.14], 2, tol=0.05) == 3


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("value", ["on", None, 1, 0.5])
def test_bad_early_stopping_value(kind, value):
    X, Y = _data(8, n=40, kind=kind)
    with pytest.raises(ValueError, match="^early_stopping must be 'auto', True or False"):
        _model(kind, "multi_output", n_estimators=3, early_stopping=value).fit(X, Y)


def _noise(n, seed=0):
    """Outputs independent of X: the held-out r2 peaks within a few steps, then falls."""
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(n, 3)), rng.normal(size=(n, 2))


@pytest.mark.parametrize("n, on", [(10_000, False), (10_001, True)])
def test_auto_early_stopping_turns_on_above_10000_rows(n, on):
    from engine.estimators.boosting import MultiOutputBoostingRegressor
    from engine.estimators.early_stopping import AUTO_EARLY_STOPPING_ROWS

    assert AUTO_EARLY_STOPPING_ROWS == 10_000
    X, Y = _noise(n)
    est = MultiOutputBoostingRegressor(n_estimators=30, max_leaf_nodes=4, random_state=0).fit(X, Y)
    assert est.early_stopping == "auto" and est.early_stopping_ is on
    assert hasattr(est, "eval_score_") is on            # held-out rows only when it is on
    if on:
        assert est.n_steps_run_ < 30 and est.n_steps_ == est.best_iteration_ + 1
    else:
        assert est.n_steps_ == 30


def test_default_early_stopping_stops_and_keeps_the_best_iteration():
    """The defaults on 12 000 noise rows: early stopping is on, stops, and keeps the best step;
    the model is a fresh fit of best_iteration_ + 1 steps without early stopping on the same
    training rows (the trees, rho_, the per-step arrays and the projections)."""
    from engine.estimators.boosting import MultiOutputBoostingRegressor

    X, Y = _noise(12_000)
    est = MultiOutputBoostingRegressor(random_state=0).fit(X, Y)
    assert est.early_stopping_ and est.n_iter_no_change == 10
    assert est.best_iteration_ + 1 == est.n_steps_ == est.n_estimators_ < est.n_steps_run_ < 300
    assert est.n_steps_run_ - est.n_steps_ >= 10        # the 10 steps without a better score are gone
    assert est.trees_.n_trees == est.n_steps_
    assert est.projections_.shape == (est.n_steps_, 1, 2)
    train, _ = validation_split(len(X), 0.1, 0)
    fresh = MultiOutputBoostingRegressor(n_estimators=est.n_steps_, early_stopping=False,
                                         random_state=0).fit(X[train], Y[train])
    np.testing.assert_array_equal(est.predict(X), fresh.predict(X))
    np.testing.assert_array_equal(est.rho_, fresh.rho_)
    np.testing.assert_array_equal(est.train_score_, fresh.train_score_)
    np.testing.assert_array_equal(est.projections_, fresh.projections_)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_cut_keeps_every_strategy_consistent(kind, strategy):
    """st-gbrt stores d trees per step: the cut keeps d (best_iteration_ + 1) trees; a pickled
    cut model predicts the same; staged predictions stop at the kept step."""
    import pickle

    X, Y = _data(2, kind=kind)
    X_eval, Y_eval = _data(3, n=60, kind=kind)
    full = _model(kind, strategy, n_estimators=60).fit(X, Y, eval_set=(X_eval, Y_eval))
    stopped = _model(kind, strategy, n_estimators=60, n_iter_no_change=3).fit(X, Y, eval_set=(X_eval, Y_eval))
    k = stopped.n_steps_
    assert k < stopped.n_steps_run_
    assert stopped.trees_.n_trees == k * (3 if strategy == "single_target" else 1)
    np.testing.assert_array_equal(stopped.rho_, full.rho_[:k])
    np.testing.assert_array_equal(stopped.train_score_, full.train_score_[:k])
    if strategy in ("projected", "projected_relabel"):
        np.testing.assert_array_equal(stopped.projections_, full.projections_[:k])
    staged = list(stopped.staged_decision_function(X) if kind == "classifier" else stopped.staged_predict(X))
    assert len(staged) == k
    np.testing.assert_array_equal(_raw(pickle.loads(pickle.dumps(stopped)), X), _raw(stopped, X))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_warm_start_after_a_cut_equals_fitting_on(strategy):
    """A cut model warm-started to n steps (no early stopping) is the full model's first k steps
    followed by n - k new steps: it predicts as a warm start of a plain k-step fit."""
    X, Y = _data(2)
    X_eval, Y_eval = _data(3, n=60)
    stopped = _model("regressor", strategy, n_estimators=60, n_iter_no_change=3,
                     warm_start=True).fit(X, Y, eval_set=(X_eval, Y_eval))
    k = stopped.n_steps_
    assert k < stopped.n_steps_run_
    stopped.set_params(early_stopping=False, n_estimators=k + 7)
    stopped.fit(X, Y)
    assert stopped.n_steps_ == stopped.n_estimators_ == k + 7 and stopped.trees_.n_trees == \
        (k + 7) * (3 if strategy == "single_target" else 1)
    full = _model("regressor", strategy, n_estimators=60, early_stopping=False).fit(X, Y)
    # the first k steps are those of the uncut fit
    staged = list(stopped.staged_predict(X))
    np.testing.assert_array_equal(staged[k - 1], list(full.staged_predict(X))[k - 1])
    # the new steps train on the current model: the training loss keeps falling (square loss)
    assert np.all(np.diff(stopped.train_score_[k - 1:]) <= 1e-12)
    assert np.isfinite(stopped.predict(X)).all()


def test_n_iter_no_change_none_turns_auto_off_and_is_refused_with_true(monkeypatch):
    """None keeps its meaning from before early_stopping (nothing is held out, no stop): "auto"
    stays off with it where it would be on; True with it asks for the opposite and is refused
    (it used to fit every step silently)."""
    from engine.estimators import early_stopping

    monkeypatch.setattr(early_stopping, "AUTO_EARLY_STOPPING_ROWS", 50)     # 120 rows: "auto" is on
    X, Y = _noise(120)
    on = _model("regressor", "multi_output", n_estimators=40, early_stopping="auto",
                n_iter_no_change=3).fit(X, Y)
    assert on.early_stopping_ and on.n_steps_run_ < 40
    off = _model("regressor", "multi_output", n_estimators=40, early_stopping="auto",
                 n_iter_no_change=None).fit(X, Y)
    assert not off.early_stopping_
    assert off.n_steps_ == off.n_steps_run_ == 40 and not hasattr(off, "eval_score_")
    with pytest.raises(ValueError, match=r"^early_stopping=True needs n_iter_no_change.*got None"):
        _model("regressor", "multi_output", n_estimators=40, early_stopping=True,
               n_iter_no_change=None).fit(X, Y)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_the_incremental_held_out_score_equals_a_full_recomputation_at_every_step(strategy, weighted):
    """The compiled loop adds only each new step to the held-out F and takes the logistic loss by
    a vectorised pass (unit row weights: one log per label per 512 rows, issue 46); recomputed from
    scratch at every step (staged_decision_function, numpy's logaddexp per entry) the per-label
    scores, the score and the loss agree to rounding, and early stopping's rule applied to the
    recomputed curve stops and keeps the same steps. 600 held-out rows and 260 labels: more than
    one block of rows and one chunk of labels. Weighted rows (the held-out part of weighted
    training rows) take the per-entry loop."""
    rng = np.random.default_rng(11)
    n, d = 800, 260
    X = rng.uniform(size=(n, 6))
    Y = ((X - 0.5) @ rng.normal(size=(6, d)) + rng.normal(size=(n, d)) > 0).astype(int)
    Y[0], Y[1] = 1, 0                               # every label seen with both classes
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    _, val = validation_split(n, 0.75, 0)           # 600 held-out rows, 200 to train on

    def fit(k):
        model = _model("classifier", strategy, n_estimators=25, early_stopping=True,
                       n_iter_no_change=k, tol=1e-3, validation_fraction=0.75)
        return model.fit(X, Y, sample_weight=w)

    full = fit(1000)                                # never stops within 25 steps
    assert full.n_steps_run_ == full.n_steps_ == 25
    sign, weights = 2.0 * Y[val] - 1.0, (np.ones(len(val)) if w is None else w[val])
    recomputed = []
    for m, F in enumerate(full.staged_decision_function(X[val])):
        per_label = (weights[:, None] * np.logaddexp(0.0, -2.0 * sign * F)).sum(axis=0) / weights.sum()
        recomputed.append(-per_label.mean())
        np.testing.assert_allclose(full.eval_score_per_output_[m], -per_label, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(full.eval_loss_[m], per_label.sum(), rtol=1e-12)
    np.testing.assert_allclose(full.eval_score_, recomputed, rtol=1e-12)
    # the path taken: the vectorised pass leaves the squared errors (unread by the classifier) unset
    assert np.isnan(full._eval_history["eval_sse"]).all() != weighted
    stopped = fit(2)
    m = stopping_step(recomputed, 2, 1e-3)
    assert stopped.n_steps_run_ == m < 25
    assert stopped.n_steps_ == int(np.argmax(recomputed[:m])) + 1
    np.testing.assert_array_equal(stopped.decision_function(X[val]),
                                  list(full.staged_decision_function(X[val]))[stopped.n_steps_ - 1])
