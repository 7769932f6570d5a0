"""XGBoost with its own defaults, the peer a practitioner fits first: the benchmark's ``xgboost`` row
(:mod:`engine.experiments.model_selection`), beside the engine's ``defaults`` row, on any data set.

XGBoost with its defaults, nothing selected (one tree per output or label, depth 6, learning rate 0.3,
100 rounds, hist), one thread: ``XGBRegressor`` in regression, ``XGBClassifier`` on the 0/1 label matrix
in multi-label classification, whose probabilities rank the labels. XGBoost is an app dependency, not
the library's (README): only the experiments that race it import it (tests/test_layers.py).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_array

__all__ = ["ReferenceXGBoost"]


class ReferenceXGBoost:
    """XGBoost with its own defaults (only the seed, one thread, one tree per output set):
    ``n_estimators`` only for the cost probe's short fits. Needs the ``xgboost`` module."""

    # What it 'chose' (the benchmark's table of chosen settings): XGBoost's own defaults.
    DEFAULTS = dict(n_estimators=100, max_depth=6, learning_rate=0.3, tree_method="hist", n_steps=None,
                    validation_score=None)

    def __init__(self, task="regression", *, random_state=0, n_estimators=None):
        self.task = task
        self.random_state = random_state
        self.n_estimators = n_estimators

    def fit(self, X, Y):
        import xgboost

        X = check_array(X, accept_sparse="csr", dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        kwargs = dict(tree_method="hist", multi_strategy="one_output_per_tree", n_jobs=1,
                      random_state=int(self.random_state))
        if self.n_estimators:
            kwargs["n_estimators"] = int(self.n_estimators)
        if self.task == "regression":
            self.model_ = xgboost.XGBRegressor(**kwargs).fit(X, Y)
        else:
            self.model_ = xgboost.XGBClassifier(**kwargs).fit(X, Y.astype(int))
        self.n_outputs_ = Y.shape[1]
        return self

    def predict(self, X):
        """Regression: the (n, d) predictions; multi-label: the (n, L) label probabilities."""
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
        if self.task == "regression":
            return np.asarray(self.model_.predict(X), dtype=np.float64).reshape(X.shape[0], -1)
        return np.asarray(self.model_.predict_proba(X), dtype=np.float64).reshape(X.shape[0], -1)

    decision_function = predict
