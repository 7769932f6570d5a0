"""ℓ1-based compression of forests (thesis 001, chapter 7; Joly, Schnitzler, Geurts & Wehenkel 2012).

A forest is a linear model on the indicator functions of all its nodes (eq.
7.1, :mod:`engine.estimators.indicators`). Chapter 7 selects a few of them by
solving, for growing t,

    min_beta sum_i (y_i - beta_0 - sum_k beta_k z_k(x_i))^2  s.t.  sum_k |beta_k| <= t   (7.2)

with the monotone Lasso computed by incremental forward stagewise regression
(step eps = 0.01), picks t by 10-fold cross-validation and prunes every node
whose subtree carries no weight. :class:`CompressedForestRegressor` and
:class:`CompressedForestClassifier` do exactly that around any of the engine's
forests (extra trees: ``splitter="random", bootstrap=False``).

Choices, where the thesis leaves room:

* **Centring and scaling.** Section 7.2: "datasets are pre-whitened:
  input/output data are translated to zero mean and rescaled to unit
  variance". The inputs of the Lasso are the indicators z(x): each indicator
  column is standardised on the sample its path is computed on (mean
  mu_k = n_k / n, standard deviation sqrt(mu_k (1 - mu_k))), as is every
  output; forward stagewise regression assumes standardised predictors
  (Hastie et al. 2007), and t is measured in these units. This reproduces the
  scale of the thesis: t* is about 3 on Friedman1 (Figure 7.2: "until t = 3").
  Columns constant on the sample (the roots) are the intercept beta_0. The
  forest itself is grown on the outputs as given (whitening X does not change
  a tree; for several outputs it would change the split criterion).
* **The solver.** Measured on one Friedman1 forest (300 samples, extra
  trees, K = p, n_min = 1; 10 and 100 trees = 5 990 and 59 900 indicator
  columns) with the standardised indicators, against scikit-learn:
  forward stagewise (eps = 0.01, :class:`engine._core.ForwardStagewise`)
  took 0.02 s / 0.14 s, and no step ever went against the sign of the
  coefficient it moved (a monotone path); ``lars_path(method="lasso")`` took
  0.85 s / 5.3 s, 149 of its coefficients (M = 100) shrink somewhere along the
  path and 42 leave the model again, and on M = 10 it broke down on the
  collinear indicators (coefficients of 1e12); ``lasso_path`` (coordinate
  descent, 100 values of the penalty) took 8.9 s / 41 s with 359 non-monotone
  coefficients. ``MultiTaskLasso`` solves one penalty at a time, so a path
  costs as many fits. The thesis asks for the monotone Lasso because
  neighbouring nodes' indicators are strongly correlated: forward stagewise is
  that path and 40-300 times faster, so it is the solver here (the tests
  check that it equals ``lasso_path`` where monotone and plain Lasso coincide,
  on orthogonal indicators).
* **Several outputs.** One selection shared by all outputs: each step moves
  the weight vector (one weight per output) of the node whose correlation
  vector with the residuals is longest, by eps in Euclidean length, i.e. the
  group form sum_k ||beta_k||_2 <= t. With d = 1, ||beta_k||_2 = |beta_k| and
  the step is eps * sign(correlation): exactly eq. 7.2's path.
* **The end of the path.** The path stops when no step lowers the training
  error any more (every correlation <= eps / 2), or after ``max_steps``.
  On Friedman1 (n_min = 1) that is t ≈ 4: the thesis's remark that "the
  algorithm stops before" overfitting shows.
* **Cross-validation** (section 7.2): for each of the ``cv`` folds, a forest
  (same parameters, its own seed) is grown on the learning part and its path
  run on it; the validation loss (quadratic on the standardised outputs; 0-1
  loss per label for the classifier, as on Two-norm) is recorded after every
  step. A fold whose path ended early keeps its last model. t* minimises the
  mean over folds; the forest is then regrown on all the training data and
  its path stopped at t*.
* **Pruning** keeps the weighted nodes and their ancestors
  (:func:`engine.estimators.indicators.prune_forest`); the compact model
  predicts exactly what the linear model on the kept indicators predicts.
  Complexity is counted in test nodes, as in Table 7.1 (ET: n - 1 per fully
  grown tree on n distinct samples).
"""
from __future__ import annotations

import warnings

import numpy as np
from joblib import Parallel, delayed
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, RegressorMixin, clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from engine._core import ForwardStagewise
from engine.estimators.base import (
    MultiLabelMixin,
    as_numeric,
    check_features,
    check_fitted_features,
    is_int,
    is_real,
)
from engine.estimators.frames import PandasOutputMixin
from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from engine.estimators.indicators import (
    compact_predict,
    count_test_nodes,
    forest_stores,
    node_indicators,
    node_parents,
    prune_forest,
)
from engine.metrics import lrap
from engine.validation import check_n_jobs, check_seed

__all__ = ["CompressedForestRegressor", "CompressedForestClassifier", "StagewisePath", "FitStopped",
           "MAX_PATH_STEPS"]

# A path never takes more steps than this (t = 1000 at eps = 0.01); a warning says so if it must stop.
MAX_PATH_STEPS = 100_000
# Steps per call of the compiled loop (between checks of the cap).
CHUNK_STEPS = 2048


class FitStopped(Exception):
    """``fit``'s callback asked to stop; the estimator is left unfitted."""


class StagewisePath:
    """The forward stagewise path of one fitted forest on one sample.

    Holds the steps (``columns[s]``: the node moved at step s + 1;
    ``deltas[s]``: its change, one number per output, on standardised
    indicators and outputs) and the standardisation, so that the model after
    any number of steps can be evaluated on new samples.
    """

    def __init__(self, stores, X, Y_scaled, step, max_steps=None):
        Z = node_indicators(stores, X)
        Zc = Z.tocsc()
        fs = ForwardStagewise(Z.indptr, Z.indices, Zc.indptr, Zc.indices, Y_scaled, step)
        limit = MAX_PATH_STEPS if max_steps is None else int(max_steps)
        columns, deltas = [], []
        while fs.n_steps < limit and not fs.converged:
            c, dl = fs.run(min(CHUNK_STEPS, limit - fs.n_steps))
            columns.append(c)
            deltas.append(dl)
        d = np.shape(Y_scaled)[1]
        self.columns = np.concatenate(columns) if columns else np.zeros(0, dtype=np.int32)
        self.deltas = np.vstack(deltas) if deltas else np.zeros((0, d))
        self.step = float(step)
        self.n_columns = Z.shape[1]
        counts = np.diff(Zc.indptr)
        self.mean = counts / Z.shape[0]
        scale = fs.scale
        self.inv_scale = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale > 0)
        self.converged = bool(fs.converged)
        if max_steps is None and not self.converged:
            warnings.warn(f"the forward stagewise path stopped after {MAX_PATH_STEPS} steps without "
                          "converging", RuntimeWarning, stacklevel=3)

    @property
    def n_steps(self):
        return len(self.columns)

    def iter_predictions(self, Z_eval, n_steps=None):
        """Yield the standardised predictions (n_eval, d) after 0, 1, ..., n_steps steps.

        ``Z_eval``: node indicators of the evaluation samples (any sparse format).
        The yielded array is updated in place: copy it to keep it.
        """
        Zc = sparse.csc_matrix(Z_eval)
        k_max = self.n_steps if n_steps is None else min(int(n_steps), self.n_steps)
        P = np.zeros((Zc.shape[0], self.deltas.shape[1]))
        yield P
        for s in range(k_max):
            col = self.columns[s]
            a = self.inv_scale[col]
            delta = self.deltas[s]
            P -= (a * self.mean[col]) * delta
            rows = Zc.indices[Zc.indptr[col]:Zc.indptr[col + 1]]
            P[rows] += a * delta
            yield P

    def coefficients(self, n_steps):
        """CSR (n_columns, d): beta after ``n_steps`` steps, on the standardised indicators."""
        k = min(int(n_steps), self.n_steps)
        d = self.deltas.shape[1]
        rows = np.repeat(self.columns[:k], d)
        cols = np.tile(np.arange(d), k)
        beta = sparse.csr_matrix((self.deltas[:k].ravel(), (rows, cols)), shape=(self.n_columns, d))
        beta.sum_duplicates()
        beta.eliminate_zeros()
        return beta

    def node_counts(self, parents):
        """(n_weighted, n_test_nodes) after 0..n_steps steps: weighted nodes and their strict ancestors."""
        d = self.deltas.shape[1]
        beta = {}
        below = np.zeros(len(parents), dtype=np.int64)    # weighted strict descendants per node
        n_weighted = np.zeros(self.n_steps + 1, dtype=np.int64)
        n_test = np.zeros(self.n_steps + 1, dtype=np.int64)
        w = t = 0
        for s in range(self.n_steps):
            col = int(self.columns[s])
            old = beta.get(col, np.zeros(d))
            new = old + self.deltas[s]
            beta[col] = new
            was, now = bool(np.any(old != 0)), bool(np.any(new != 0))
            if was != now:
                change = 1 if now else -1
                w += change
                node = parents[col]
                while node >= 0:
                    below[node] += change
                    if below[node] == (1 if change > 0 else 0):
                        t += change
                    node = parents[node]
            n_weighted[s + 1], n_test[s + 1] = w, t
        return n_weighted, n_test


def _fit_forest(forest, seed, X, Y):
    forest = clone(forest).set_params(random_state=int(seed))
    forest._warn_one_class = False      # the compressed estimator warned once, on its own Y
    return forest.fit(X, Y)


def _extend(curve, length):
    """The curve continued with its last value (a path that ended keeps its last model)."""
    return np.concatenate([curve, np.full(length - len(curve), curve[-1])])


class CompressionBase(PandasOutputMixin, MultiOutputMixin, BaseEstimator):
    """What the regressor and the classifier share: checks, the CV path, the compact model."""

    _forest_types = ()

    def __init__(self, forest, *, cv=10, step=0.01, max_steps=None, random_state=None, n_jobs=None):
        self.forest = forest
        self.cv = cv
        self.step = step
        self.max_steps = max_steps
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------ checks

    def _validate_params(self):
        if not isinstance(self.forest, self._forest_types):
            names = ", ".join(cls.__name__ for cls in self._forest_types)
            raise TypeError(f"forest must be one of the engine's forests ({names}), got "
                            f"{type(self.forest).__name__}")
        if not is_int(self.cv) or self.cv < 2:
            raise ValueError(f"cv must be an integer >= 2 (the number of folds), got {self.cv!r}")
        if not is_real(self.step) or not np.isfinite(self.step) or self.step <= 0:
            raise ValueError(f"step must be a finite number > 0 (the thesis uses 0.01), got {self.step!r}")
        if self.max_steps is not None and (not is_int(self.max_steps) or self.max_steps < 1):
            raise ValueError(f"max_steps must be None or an integer >= 1, got {self.max_steps!r}")
        check_n_jobs(self.n_jobs)
        check_seed(self.random_state)

    def _check_data(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X_given, X = X, check_features("X", X)          # dense array or CSR/CSC matrix
        X = X.tocsr() if sparse.issparse(X) else X    # rows are indexed (folds)
        Y, y_was_1d = self._read_targets(y)
        validate_data(self, X_given, reset=True, skip_check_array=True)   # feature names (frames.py)
        self._keep_target_names(y)
        if X.shape[0] != Y.shape[0]:
            raise ValueError(f"X and Y must have the same number of samples, got {X.shape[0]} and {Y.shape[0]}")
        if X.shape[0] < 2:
            raise ValueError(f"X has {X.shape[0]} sample(s); fitting needs at least 2 samples")
        if self.cv > X.shape[0]:
            raise ValueError(f"cv = {self.cv} is larger than the number of samples ({X.shape[0]})")
        self._y_was_1d = y_was_1d
        return X, Y

    def _read_targets(self, y):
        """(Y 2-D float64, y_was_1d); the classifier reads labels (engine/estimators/labels.py)."""
        Y = as_numeric("Y", y, (1, 2))
        return Y.reshape(len(Y), -1), Y.ndim == 1

    # ------------------------------------------------------------ fit

    def fit(self, X, y, *, callback=None):
        """Grow the forest, follow its ℓ1 path, choose t by cross-validation, prune.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        callback : callable, optional
            ``callback(n_done, estimator)`` after each of the ``cv + 1`` forest
            paths (the folds, then the final one); returning True stops the fit
            with :class:`FitStopped` (the estimator is then left unfitted).
        """
        self._validate_params()
        X, Y = self._check_data(X, y)
        self.n_features_in_ = X.shape[1]
        self.n_outputs_ = Y.shape[1]
        y_mean = Y.mean(axis=0)
        y_scale = Y.std(axis=0)
        y_scale[y_scale == 0] = 1.0
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=self.cv + 2)
        folds = KFold(self.cv, shuffle=True, random_state=int(seeds[0])).split(X)
        n_jobs = 1 if self.n_jobs is None else self.n_jobs
        curves = []
        runs = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(self._fold_curve)(int(seeds[1 + f]), X[learn], Y[learn], X[val], Y[val], y_scale)
            for f, (learn, val) in enumerate(folds))
        try:
            for curve in runs:
                curves.append(curve)
                if callback is not None and callback(len(curves), self):
                    raise FitStopped(f"stopped after {len(curves)} of {self.cv} folds")
        finally:
            runs.close()

        forest = _fit_forest(self.forest, seeds[-1], X, Y)
        stores = forest_stores(forest)
        path = StagewisePath(stores, X, (Y - y_mean) / y_scale, self.step, self.max_steps)
        length = max(max(len(c) for c in curves), path.n_steps + 1)
        cv_errors = np.vstack([_extend(c, length) for c in curves])
        cv_mean = cv_errors.mean(axis=0)
        chosen = int(np.argmin(cv_mean))            # the first minimum: the smallest t
        self.forest_, self.path_model_ = forest, path
        self._y_mean, self._y_scale = y_mean, y_scale
        self.n_steps_ = min(chosen, path.n_steps)
        self.t_ = self.n_steps_ * self.step
        self._build_compact(stores, path)
        self._record_path(stores, X, Y, path, cv_errors, length)
        if callback is not None:
            callback(self.cv + 1, self)     # progress only: the fit is complete
        return self

    def _fold_curve(self, seed, X_learn, Y_learn, X_val, Y_val, y_scale):
        """Validation loss after 0, 1, ... steps of the path of a forest grown on the learning part."""
        forest = _fit_forest(self.forest, seed, X_learn, Y_learn)
        stores = forest_stores(forest)
        mean = Y_learn.mean(axis=0)
        scale = Y_learn.std(axis=0)
        scale[scale == 0] = 1.0
        path = StagewisePath(stores, X_learn, (Y_learn - mean) / scale, self.step, self.max_steps)
        Z_val = node_indicators(stores, X_val)
        return np.array([self._loss(Y_val, mean + scale * P, y_scale) for P in path.iter_predictions(Z_val)])

    def _build_compact(self, stores, path):
        """The compact model at n_steps_: raw indicator weights w_k = s_y beta_k / sigma_k, pruned."""
        beta = path.coefficients(self.n_steps_).tocoo()
        raw = beta.data * path.inv_scale[beta.row] * self._y_scale[beta.col]
        weights = sparse.csr_matrix((raw, (beta.row, beta.col)), shape=beta.shape)
        offset = np.asarray(weights.T @ path.mean).ravel()
        self.intercept_ = self._y_mean - offset
        self.coef_ = weights
        self.compact_, self.kept_nodes_ = prune_forest(stores, weights)
        self.n_weighted_ = int(np.diff(weights.indptr).astype(bool).sum())
        self.n_nodes_forest_ = count_test_nodes(stores)
        self.n_nodes_ = count_test_nodes([self.compact_]) if self.compact_.n_trees else 0
        self.compression_factor_ = (self.n_nodes_forest_ / self.n_nodes_) if self.n_nodes_ else float("inf")
        if self.n_weighted_ == 0:
            warnings.warn("no node survives the compression (t* = 0 or an empty path): the compressed "
                          "model predicts the mean of the training outputs", UserWarning, stacklevel=3)

    def _record_path(self, stores, X, Y, path, cv_errors, length):
        n_weighted, n_test = path.node_counts(node_parents(stores))
        Z = node_indicators(stores, X)
        train = np.array([self._loss(Y, self._y_mean + self._y_scale * P, self._y_scale)
                          for P in path.iter_predictions(Z)])
        self.path_ = {
            "n_steps": np.arange(length),
            "t": np.arange(length) * self.step,
            "cv_error": cv_errors.mean(axis=0),
            "cv_error_std": cv_errors.std(axis=0),
            "train_error": _extend(train, length),
            "n_weighted": _extend(n_weighted, length),
            "n_nodes": _extend(n_test, length),
        }

    # ------------------------------------------------------------ prediction

    def _check_X(self, X):
        check_is_fitted(self, "compact_")
        X = check_fitted_features(self, X)          # names; dense array or CSR/CSC matrix
        return X.tocsr() if sparse.issparse(X) else X    # rows are indexed (folds)

    def _raw_predict(self, X):
        """The compact model's output (n_samples, n_outputs), in the outputs' units."""
        X = self._check_X(X)
        return self.intercept_ + compact_predict(self.compact_, X)

    def linear_model(self, n_steps=None):
        """(intercept (d,), CSR weights (q, d)) on the raw node indicators of ``forest_`` after n_steps.

        Default: the chosen model (n_steps_). Predictions are
        ``intercept + node_indicators(forest_, X) @ weights``.
        """
        check_is_fitted(self, "compact_")
        k = self.n_steps_ if n_steps is None else int(n_steps)
        beta = self.path_model_.coefficients(k).tocoo()
        raw = beta.data * self.path_model_.inv_scale[beta.row] * self._y_scale[beta.col]
        W = sparse.csr_matrix((raw, (beta.row, beta.col)), shape=beta.shape)
        return self._y_mean - np.asarray(W.T @ self.path_model_.mean).ravel(), W

    def path_predict(self, X, n_steps=None):
        """Outputs of the uncompressed-path model after 0, 1, ... steps, shape (len, n_samples, d).

        ``n_steps``: the step counts wanted (an increasing list; default every
        step of the final path). Past the path's end the last model repeats.
        """
        X = self._check_X(X)
        path = self.path_model_
        wanted = np.arange(path.n_steps + 1) if n_steps is None else np.asarray(n_steps, dtype=int)
        if wanted.ndim != 1 or (wanted < 0).any() or (np.diff(wanted) < 0).any():
            raise ValueError("n_steps must be an increasing list of step counts >= 0")
        Z = node_indicators(forest_stores(self.forest_), X)
        out = np.empty((len(wanted), X.shape[0], self.n_outputs_))
        i = 0
        for k, P in enumerate(path.iter_predictions(Z, n_steps=wanted.max(initial=0))):
            while i < len(wanted) and wanted[i] == k:
                out[i] = self._y_mean + self._y_scale * P
                i += 1
        while i < len(wanted):       # beyond the end of the path: its last model
            out[i] = out[i - 1] if i else self._y_mean
            i += 1
        return out

    def path_errors(self, X, y):
        """The cross-validation loss of the path's model on (X, y) after 0, 1, ... steps.

        ndarray of length ``path_model_.n_steps + 1`` (the quadratic loss on the
        outputs standardised with the training statistics, or the 0-1 loss per
        label): what Figure 7.2 draws for the test set.
        """
        X = self._check_X(X)
        Y = as_numeric("Y", y, (1, 2)).reshape(len(X), -1) if np.ndim(y) else None
        if Y is None or Y.shape != (X.shape[0], self.n_outputs_):
            raise ValueError(f"y must have {X.shape[0]} rows and {self.n_outputs_} output(s)")
        Z = node_indicators(forest_stores(self.forest_), X)
        return np.array([self._loss(Y, self._y_mean + self._y_scale * P, self._y_scale)
                         for P in self.path_model_.iter_predictions(Z)])

    def _staged_raw(self, X):
        X = self._check_X(X)
        Z = node_indicators(forest_stores(self.forest_), X)
        for P in self.path_model_.iter_predictions(Z, n_steps=self.n_steps_):
            yield self._y_mean + self._y_scale * P

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.target_tags.required = True
        tags.input_tags.sparse = True       # CSR / CSC X, as the forests it compresses
        return tags


class CompressedForestRegressor(RegressorMixin, CompressionBase):
    """A forest compressed by ℓ1-regularised selection of its node indicators (thesis ch. 7).

    ``fit`` grows the forest, follows the monotone Lasso path of eq. 7.2 on the
    standardised node indicators (forward stagewise, step eps), picks t by
    ``cv``-fold cross-validation (a forest and a path per fold), regrows the
    forest on all the data and prunes it to the weighted nodes and their
    ancestors. Several outputs share one selection: each step moves the weight
    vector of one node (one weight per output) by eps in Euclidean length, the
    group constraint sum_k ||beta_k||_2 <= t; with one output ||beta_k||_2 =
    |beta_k| and each step is eps * sign(correlation), i.e. exactly eq. 7.2's
    sum_k |beta_k| <= t.

    Parameters
    ----------
    forest : ProjectedForestRegressor or PerOutputForestRegressor
        The (unfitted) forest to grow and compress; the thesis uses extra trees
        (``splitter="random", bootstrap=False, max_features=1.0``, M = 100).
        Its ``random_state`` is replaced by seeds drawn from ``random_state``.
    cv : int >= 2, default 10
        Folds of the cross-validation that chooses t (at most n_samples).
    step : float > 0, default 0.01
        eps, the step of the forward stagewise path (t = number of steps * eps).
    max_steps : int >= 1 or None
        Stop every path after this many steps (None: when no step lowers the
        training error any more).
    random_state : None, int or RandomState
        Seeds of the folds and of every forest.
    n_jobs : int or None
        Folds run in this many threads (None = 1); results do not depend on it.

    Attributes
    ----------
    forest_ : the forest grown on all the training data (uncompressed)
    compact_ : TreeStore, the pruned forest (node values = indicator weights)
    feature_names_in_, target_names_in_ : as the forests' (pandas X and Y; engine/estimators/frames.py)
    intercept_ : ndarray (n_outputs,)
    coef_ : sparse (q, n_outputs), the weights on the raw indicators of ``forest_``'s nodes
    n_steps_, t_ : the chosen number of steps and t = n_steps_ * step
    n_nodes_forest_, n_nodes_ : test nodes of the forest and of the compact model
    compression_factor_ : n_nodes_forest_ / n_nodes_ (inf when no node survives)
    n_weighted_ : indicator functions with a non-zero weight
    kept_nodes_ : boolean mask over ``forest_``'s nodes (weighted nodes and their ancestors)
    path_ : dict of arrays over steps 0..L: n_steps, t, cv_error (mean over folds; quadratic
        loss on standardised outputs), cv_error_std, train_error, n_weighted, n_nodes
        (test nodes of the model pruned at that t)
    path_model_ : StagewisePath of the final forest
    """

    _forest_types = (ProjectedForestRegressor, PerOutputForestRegressor)

    @staticmethod
    def _loss(Y, P, y_scale):
        """Quadratic loss on the standardised outputs (the thesis's error on pre-whitened data)."""
        return float(np.mean(((Y - P) / y_scale) ** 2))

    def predict(self, X):
        """The compact model's prediction, (n_samples, n_outputs) ((n_samples,) after a 1-D fit)."""
        P = self._raw_predict(X)
        return self._wrap_output(P[:, 0] if self._y_was_1d else P, X)

    def staged_predict(self, X):
        """Predictions after 0, 1, ..., n_steps_ steps of the path; the last equals ``predict(X)``."""
        for P in self._staged_raw(X):
            yield P[:, 0].copy() if self._y_was_1d else P.copy()

    def score(self, X, y, sample_weight=None):
        """macro-r2: the mean of the per-output r2."""
        from sklearn.metrics import r2_score
        return r2_score(y, self.predict(X), sample_weight=sample_weight, multioutput="uniform_average")


class CompressedForestClassifier(MultiLabelMixin, ClassifierMixin, CompressionBase):
    """The compressed forest for (multi-label) 0/1 outputs: the linear model on indicators is the score.

    Same parameters and attributes as :class:`CompressedForestRegressor`, with
    ``forest`` a ProjectedForestClassifier or PerOutputForestClassifier. The
    path fits the 0/1 labels (standardised) as in regression; the CV loss is
    the 0-1 loss per label (the Hamming loss; the error rate for one label, as
    the thesis uses on Two-norm). Labels are those of the engine's other
    classifiers (two values per output, engine/estimators/labels.py); the path
    fits the positive-label indicator. P, the compact model's output clipped
    to [0, 1], is the positive label's probability: ``predict_proba`` gives it
    in scikit-learn's multi-output format, ``decision_function`` is 2 P - 1,
    ``predict`` the positive label where P > 0.5, ``score`` is LRAP for
    several labels and the accuracy for one.
    """

    _forest_types = (ProjectedForestClassifier, PerOutputForestClassifier)

    def _read_targets(self, y):
        indicator, _, y_was_1d, classes = self._targets(y, "Y")
        self._fit_classes = classes
        return indicator, y_was_1d

    def fit(self, X, y, *, callback=None):
        super().fit(X, y, callback=callback)
        self._set_classes(self._fit_classes)
        return self

    @staticmethod
    def _loss(Y, P, y_scale):
        """0-1 loss per label (predicted label: score >= 0.5)."""
        return float(np.mean((P >= 0.5) != (Y > 0.5)))

    def predict_proba(self, X):
        """Class probabilities in scikit-learn's multi-output format ((n_samples, 2) after a 1-D fit)."""
        return self._format_proba(np.clip(self._raw_predict(X), 0.0, 1.0))

    def decision_function(self, X):
        """2 P - 1, (n_samples, n_labels) ((n_samples,) after a 1-D fit); > 0 where predict is positive."""
        F = 2.0 * np.clip(self._raw_predict(X), 0.0, 1.0) - 1.0
        return self._wrap_output(F[:, 0] if self._y_was_1d else F, X)

    def predict(self, X):
        """Labels: each output's positive class where P > 0.5, else the other."""
        return self._wrap_output(self._labels(2.0 * np.clip(self._raw_predict(X), 0.0, 1.0) - 1.0), X)

    def staged_predict_proba(self, X):
        """predict_proba after 0, 1, ..., n_steps_ steps; the last equals ``predict_proba(X)``."""
        for P in self._staged_raw(X):
            yield self._format_proba(np.clip(P, 0.0, 1.0))

    def score(self, X, y, sample_weight=None):
        """LRAP for several labels; accuracy (1 - 0-1 loss) for one."""
        Y = np.asarray(y)
        if Y.ndim == 2 and Y.shape[1] > 1:
            indicator = self._targets(Y, "y", self._per_output_classes())[0]
            return lrap(indicator, self._raw_predict(X))
        return float(np.mean(self.predict(X) == Y.reshape(-1)))
