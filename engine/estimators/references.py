"""scikit-learn reference rows for the model-selection protocol (paper 002, 4.1.2).

These wrap scikit-learn's public estimators so that :mod:`engine.experiments.model_selection`
can evaluate them exactly like our boosting variants (same splits, same
validation set, same scores). Names, as used by ``run_model_selection``:

``sklearn-gb``
    scikit-learn gradient boosting fitted **per output** (the reference for
    st-gbrt): ``GradientBoostingRegressor`` per output in regression (square or
    absolute loss), ``GradientBoostingClassifier`` (log-loss) per label in
    multi-label classification, whose probabilities rank the labels (with the
    square loss a ``GradientBoostingRegressor`` on the 0/1 labels). Same grid as
    ours (learning rate, max_leaf_nodes, max_features, loss); the number of
    steps is chosen on the validation set from the staged predictions.
``sklearn-rf``
    one ``RandomForestRegressor`` with multi-output trees (regression) or one
    ``RandomForestClassifier`` with multi-output trees (multi-label).
``sklearn-st-rf``
    one forest per output / per label.

Forests use the paper's default settings (section 4.1.2) and have no grid:
100 trees; regression: k = p/3 features per split and min_samples_split 5;
classification: k = sqrt(p) and fully grown trees. A label that is constant
in the training set is predicted by that constant (scikit-learn classifiers
need two classes).

No streamlit here; only scikit-learn's public API.
"""
from __future__ import annotations

import numpy as np
from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                              RandomForestClassifier, RandomForestRegressor)
from sklearn.utils import check_array

from engine.metrics import lrap
from engine.names import REFERENCE_FOREST_NAMES, REFERENCE_NAMES

__all__ = ["REFERENCE_NAMES", "REFERENCE_FOREST_NAMES", "ReferenceGB", "ReferenceForest", "forest_params"]

N_TREES = 100


def forest_params(task, n_trees=N_TREES):
    """The paper's default forest settings (section 4.1.2) as scikit-learn parameters."""
    if task == "regression":
        return dict(n_estimators=n_trees, max_features=1 / 3, min_samples_split=5)
    return dict(n_estimators=n_trees, max_features="sqrt", min_samples_split=2)


def _as_X(X):
    """X as scikit-learn's trees take it: a float64 array, or a CSR matrix kept sparse (bibtex)."""
    return check_array(X, accept_sparse="csr", dtype=np.float64)


def _positive_column(clf, X):
    """P(label = 1) from a fitted binary classifier (0 if class 1 was never seen)."""
    proba = clf.predict_proba(X)
    classes = list(clf.classes_)
    return proba[:, classes.index(1)] if 1 in classes else np.zeros(X.shape[0])


def _r2_rows(y, P):
    """r2 of every row of P (predictions) against y, as scikit-learn's r2_score
    (a constant y scores 1 if predicted exactly, else 0)."""
    sse = ((P - y) ** 2).sum(axis=1)
    sst = ((y - y.mean()) ** 2).sum()
    if sst == 0:
        return np.where(sse == 0, 1.0, 0.0)
    return 1.0 - sse / sst


class _Constant:
    """Stand-in for a per-output model when the training output is constant."""

    def __init__(self, value):
        self.value = float(value)

    def predict(self, X):
        return np.full(X.shape[0], self.value)

    def staged(self, X, n_steps):
        for _ in range(n_steps):
            yield self.predict(X)


class ReferenceGB:
    """scikit-learn gradient boosting, one model per output (``sklearn-gb``).

    Parameters mirror the engine's estimators: ``learning_rate``,
    ``max_leaf_nodes``, ``max_features`` (int), ``loss`` ("squared_error",
    "absolute_error"; "logistic" = log-loss classifier in multi-label),
    ``n_estimators`` and ``random_state``.
    """

    def __init__(self, task="regression", *, learning_rate=0.1, max_leaf_nodes=2, max_features=None,
                 loss="squared_error", n_estimators=100, random_state=0):
        self.task = task
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.loss = loss
        self.n_estimators = n_estimators
        self.random_state = random_state

    def _one(self, y, seed):
        common = dict(learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
                      max_features=self.max_features, n_estimators=self.n_estimators,
                      random_state=seed, max_depth=None)
        if self.task == "multilabel" and self.loss == "logistic":
            if np.unique(y).size < 2:
                return _Constant(y[0])
            return GradientBoostingClassifier(loss="log_loss", **common).fit(self._X, y.astype(int))
        return GradientBoostingRegressor(loss=self.loss, **common).fit(self._X, y)

    def fit(self, X, Y):
        X = _as_X(X)
        Y = np.asarray(Y, dtype=np.float64)
        seeds = np.random.SeedSequence(self.random_state).generate_state(Y.shape[1])
        self._X = X
        self.estimators_ = [self._one(Y[:, j], int(s)) for j, s in enumerate(seeds)]
        del self._X
        self.n_steps_ = self.n_estimators
        return self

    def _column(self, est, X):
        if isinstance(est, GradientBoostingClassifier):
            return _positive_column(est, X)
        return est.predict(X)

    def _staged_column(self, est, X):
        if isinstance(est, _Constant):
            return est.staged(X, self.n_estimators)
        if isinstance(est, GradientBoostingClassifier):
            pos = list(est.classes_).index(1)
            return (p[:, pos] for p in est.staged_predict_proba(X))
        return est.staged_predict(X)

    def predict(self, X):
        return np.column_stack([self._column(e, X) for e in self.estimators_])

    decision_function = predict

    def validation_curve(self, X_val, Y_val, checkpoints=None):
        """(steps, scores) on validation data: macro-r2 after every step in regression
        (computed output by output, memory n_steps x d), LRAP at ``checkpoints`` in
        multi-label classification."""
        Y_val = np.asarray(Y_val, dtype=np.float64)
        M, d = self.n_estimators, Y_val.shape[1]
        if self.task == "regression":
            r2 = np.empty((M, d))
            for j, est in enumerate(self.estimators_):
                staged = np.array(list(self._staged_column(est, X_val)))      # (M, n_val)
                r2[:, j] = _r2_rows(Y_val[:, j], staged)
            return np.arange(1, M + 1), r2.mean(axis=1)
        steps = np.asarray(sorted(set(int(c) for c in checkpoints)), dtype=int)
        want = {int(m): i for i, m in enumerate(steps)}
        F = np.zeros((len(steps), X_val.shape[0], d))
        for j, est in enumerate(self.estimators_):
            for m, col in enumerate(self._staged_column(est, X_val), start=1):
                if m in want:
                    F[want[m], :, j] = col
        return steps, np.array([lrap(Y_val, F[i]) for i in range(len(steps))])


class ReferenceForest:
    """scikit-learn random forests with the paper's default settings.

    ``per_output=False`` (``sklearn-rf``): one forest of multi-output trees;
    ``per_output=True`` (``sklearn-st-rf``): one forest per output.
    ``n_trees`` is the paper's 100 (fewer only for timing probes).
    """

    def __init__(self, task="regression", *, per_output=False, random_state=0, n_trees=N_TREES):
        self.task = task
        self.per_output = per_output
        self.random_state = random_state
        self.n_trees = n_trees

    def _forest(self, seed):
        cls = RandomForestRegressor if self.task == "regression" else RandomForestClassifier
        return cls(random_state=seed, **forest_params(self.task, self.n_trees))

    def fit(self, X, Y):
        X = _as_X(X)
        Y = np.asarray(Y, dtype=np.float64)
        self.n_outputs_ = Y.shape[1]
        if self.per_output:
            seeds = np.random.SeedSequence(self.random_state).generate_state(Y.shape[1])
            self.estimators_ = []
            for j, s in enumerate(seeds):
                y = Y[:, j]
                if self.task == "multilabel" and np.unique(y).size < 2:
                    self.estimators_.append(_Constant(y[0]))
                else:
                    self.estimators_.append(self._forest(int(s)).fit(X, y if self.task == "regression" else y.astype(int)))
        else:
            self.estimators_ = [self._forest(int(self.random_state)).fit(
                X, Y if self.task == "regression" else Y.astype(int))]
        return self

    def predict(self, X):
        X = _as_X(X)
        if self.per_output:
            cols = []
            for est in self.estimators_:
                if isinstance(est, _Constant) or self.task == "regression":
                    cols.append(est.predict(X))
                else:
                    cols.append(_positive_column(est, X))
            return np.column_stack(cols)
        forest = self.estimators_[0]
        if self.task == "regression":
            P = forest.predict(X)
            return P.reshape(X.shape[0], -1)
        probas = forest.predict_proba(X)
        all_classes = forest.classes_
        if not isinstance(probas, list):          # a single label: not wrapped in lists
            probas, all_classes = [probas], [all_classes]
        cols = []
        for classes, proba in zip(all_classes, probas):
            classes = list(classes)
            cols.append(proba[:, classes.index(1)] if 1 in classes else np.zeros(X.shape[0]))
        return np.column_stack(cols)

    decision_function = predict

