"""st-rf: one independent single-output forest per output (regression, and binary relevance).

Each output's forest is a :class:`~engine.estimators.forest.ProjectedForestRegressor` or
``...Classifier`` without a projection, seeded in output order from ``random_state``; the
forests can also be grown one at a time (``output_forests``) by work that must keep what it
finished when stopped (the real-data study's long st-rf cells).
"""
import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from engine.estimators.forest import (
    ForestBase,
    ForestClassifierMixin,
    ForestRegressorMixin,
    ProjectedForestClassifier,
    ProjectedForestRegressor,
    TreeTicker,
)
from engine.validation import check_int


class PerOutputForestBase(ForestBase):
    """One single-output forest per output column (st-rf).

    Output j gets its own ``_single`` forest (projection=None) with the same
    parameters and a seed drawn in output order from ``random_state``;
    predictions are stacked column by column. Each forest grows its trees in
    ``n_jobs`` threads.
    """

    _has_projection = False

    def _n_trees(self, n_outputs):
        return self.n_estimators * n_outputs

    def _grow(self, X, Y, w, W, ticker=None):
        """Output j's forest grows on column j with output j's weights (W[:, j] if per entry).
        After a stop (``ticker``), the outputs not reached predict their weighted training mean."""
        self.forests_ = [forest for _, forest in self._output_forests(X, Y, w, W, ticker)]
        self.estimators_ = [store for f in self.forests_ for store in f.estimators_]
        self.n_outputs_ = Y.shape[1]
        self.n_components_ = None

    def _output_forests(self, X, Y, w, W, ticker=None, start=0):
        """Yield (j, output j's fitted forest) for j = start, ..., d - 1, one at a time.

        Output j's seed is the j-th of d seeds drawn in output order from
        ``random_state`` whatever ``start`` is, so a caller that keeps the
        forests (or their predictions) of outputs < start from an earlier,
        stopped pass gets the forests ``fit`` grows, bit for bit (the real-data
        study resumes its long st-rf cells this way: ``output_forests``).
        """
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=Y.shape[1])
        params = self.get_params()
        for j in range(start, Y.shape[1]):
            w_j = w if W is None else np.ascontiguousarray(W[:, j])
            if ticker is not None and ticker.stopped:
                mean = np.dot(w_j, Y[:, j]) / w_j.sum() if w_j.sum() > 0 else 0.0
                yield j, _ConstantOutput(mean, self.n_features_in_)
                continue
            forest = self._single(**{**params, "random_state": int(seeds[j])})
            forest._validate_params()
            forest.n_features_in_ = self.n_features_in_
            forest._y_was_1d = True
            forest._grow(X, np.ascontiguousarray(Y[:, [j]]), w_j, None, ticker)
            yield j, forest

    def output_forests(self, X, y, start=0, callback=None):
        """Yield (j, ``forest_j``) for outputs j >= ``start``: the forests ``fit(X, y)`` grows, one by one.

        For work that must keep what it finished when it is stopped: a caller
        stores each output's predictions as its forest arrives, and after a
        stop resumes at ``start`` = the outputs it has. ``forest_j.predict`` and
        ``forest_j.decision_function`` (classifier) give column j of this
        estimator's ``predict`` / ``decision_function`` after ``fit(X, y)``,
        exactly. ``callback`` is ``fit``'s (counted from ``start``'s trees on);
        once it says stop, the forest it cut is not yielded and the generator
        ends. The estimator itself is left unfitted.
        """
        self._validate_params()
        start = check_int(start, "start", 0)
        if callback is not None and not callable(callback):
            raise ValueError(f"callback must be None or callable, got {type(callback).__name__}")
        data = self._check_fit_data(X, y, None, reset=True)
        d = data.Y.shape[1]
        if start > d:
            raise ValueError(f"start must be at most the number of outputs ({d}), got {start}")
        ticker = TreeTicker(callback, self, self.n_estimators * d)
        ticker.grown = start * self.n_estimators
        for j, forest in self._output_forests(data.X, data.Y, data.weight, data.entry_weight, ticker, start):
            if ticker.stopped:
                return
            if data.classes is not None:
                forest._set_classes([data.classes[j]])
            yield j, forest

    def _mean_prediction(self, X):
        check_is_fitted(self, "forests_")
        X = self._predict_rows(X)
        return np.column_stack([f._mean_prediction(X)[:, 0] for f in self.forests_])

    @property
    def feature_importances_(self):
        check_is_fitted(self, "forests_")
        return np.mean([f.feature_importances_ for f in self.forests_], axis=0)


class _ConstantOutput:
    """The stand-in forest of an output a stopped st-rf fit did not reach: its training mean."""

    estimators_ = ()

    def __init__(self, mean, n_features):
        self.mean, self.feature_importances_ = float(mean), np.zeros(n_features)

    def _mean_prediction(self, X):
        return np.full((X.n_rows, 1), self.mean)


class PerOutputForestRegressor(ForestRegressorMixin, RegressorMixin, PerOutputForestBase):
    __doc__ = ("st-rf: one single-output random forest per output (regression).\n\n"
               "    Parameters are those of ProjectedForestRegressor without the projection ones;\n"
               "    ``forests_`` holds the per-output forests.\n")
    _single = ProjectedForestRegressor

    def __init__(self, *, n_estimators=100, max_features=1.0, min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_leaf_nodes=None, bootstrap=True,
                 splitter="best", missing_targets="error", split_search="auto", max_bins=255,
                 n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.splitter = splitter
        self.missing_targets = missing_targets
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state


class PerOutputForestClassifier(ForestClassifierMixin, ClassifierMixin, PerOutputForestBase):
    __doc__ = ("st-rf (binary relevance): one single-label random forest per label.\n\n"
               "    Parameters are those of ProjectedForestClassifier without the projection ones.\n")
    _single = ProjectedForestClassifier

    def __init__(self, *, n_estimators=100, max_features="sqrt", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_leaf_nodes=None, bootstrap=True,
                 splitter="best", missing_targets="error", split_search="auto", max_bins=255,
                 n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.splitter = splitter
        self.missing_targets = missing_targets
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state
