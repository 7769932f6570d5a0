"""The boosting loop's two ways of adding a step to F agree (engine/_core/algorithms.pyx).

A step updates the training predictions in the step routines (``apply_step``,
``update_output`` for st-gbrt, updates.pyx: one pass that also computes G and the training
loss) and the held-out predictions by routing the rows through the new trees
(``add_step`` of prediction.pyx, which ``accumulate`` and so ``predict`` share). With the
training set itself as the evaluation set, the two must give the same F after
every step, hence the same loss: ``eval_loss_`` equals ``train_score_`` step by
step, for every algorithm, with row weights and with per-entry weights
(missing targets, where both losses are sum_j sum_i W_ij l_ij / sum_i W_ij).
"""
import numpy as np
import pytest

from paper_settings import PaperClassifier, PaperRegressor

STRATEGIES = [
    dict(strategy="single_target"),
    dict(strategy="multi_output"),
    dict(strategy="projected", projection="gaussian"),
    dict(strategy="projected_relabel", projection="subsample", n_projections=2),
]


def _data(missing):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    Y = X[:, :3] @ rng.normal(size=(3, 3)) + 0.2 * rng.normal(size=(120, 3))
    if missing:
        Y[rng.random(Y.shape) < 0.2] = np.nan
    return X, Y


@pytest.mark.parametrize("params", STRATEGIES, ids=lambda p: p["strategy"])
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "logistic"])
@pytest.mark.parametrize("missing", [False, True], ids=["row_weights", "missing_targets"])
def test_held_out_predictions_on_the_training_set_follow_the_training_loss(params, loss, missing):
    X, Y = _data(missing)
    kw = dict(n_estimators=8, max_leaf_nodes=4, learning_rate=0.5, subsample=0.7,
              random_state=1, missing_targets="ignore" if missing else "error", **params)
    if loss == "logistic":
        labels = np.where(np.isnan(Y), np.nan, (Y > 0).astype(float))
        est = PaperClassifier(loss=loss, **kw).fit(X, labels, eval_set=(X, labels))
    else:
        est = PaperRegressor(loss=loss, **kw).fit(X, Y, eval_set=(X, Y))
    assert est.n_steps_ == 8
    # Each step lowers the training loss at least somewhere: a step that did nothing
    # would pass the comparison below trivially.
    assert est.train_score_[-1] < est.train_score_[0]
    np.testing.assert_allclose(est.eval_loss_, est.train_score_, rtol=1e-12, atol=0)
