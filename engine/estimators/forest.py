"""Random forests on randomly projected outputs (paper 003, Joly, Geurts & Wehenkel 2014).

Every tree is grown on projected outputs ``Y @ Phi.T`` (q columns: the split
criterion is the variance summed over the q projected outputs) and every node
is then relabelled with the weighted mean of the ORIGINAL outputs of its
training samples, so a forest predicts in the original output space with no
decoding: the prediction is the average over trees of the reached leaves'
values (for 0/1 labels, the leaf label frequencies).

* ``projection=None``: an ordinary multi-output forest (trees grown on Y).
* ``projection_per_tree=True``: Algorithm 2 of paper 003, a new Phi for every
  tree (the projection adds diversity; never worse than Algorithm 1 on
  average, section 3.3 and Appendix C).
* ``projection_per_tree=False``: Algorithm 1, one Phi shared by all trees.

``splitter="best"`` with ``bootstrap=True`` is a Random Forest (Breiman 2001);
``splitter="random"`` draws one random threshold per candidate feature (Extra
Trees, Geurts et al. 2006, usually with ``bootstrap=False``).

Defaults. ``max_features`` is 1.0 (all features) for regression, as in
Geurts et al.'s Extra Trees paper (ref. [17] of paper 003) and scikit-learn,
and ``"sqrt"`` for multi-label classification, the setting of paper 003's
Table 1. ``n_components`` (q) has no default when a projection is set; it is an
integer or ``"log"``, q = max(1, round(ln d)), the size paper 003 uses in
Table 1 (2 for d = 6 up to 8 for d = 3993); the registry's projected names use
``"log"``.

Split search. ``split_search`` and ``max_bins`` choose the exact or the
histogram search (engine.estimators.growers); features are binned once per
fit and shared by the threads. X may be dense or a CSR/CSC matrix.

Randomness and threads. One generator seeded from ``random_state`` draws one
integer seed per tree, in tree order; a tree's bootstrap, its feature and
threshold draws and its projection depend only on that seed. Trees are grown
in ``n_jobs`` threads (the compiled grower releases the GIL), each thread with
its own grower (the grower holds per-tree workspace), so the fitted
forest does not depend on ``n_jobs``.

:class:`~engine.estimators.per_output_forest.PerOutputForestRegressor` /
``PerOutputForestClassifier`` (st-rf, one independent single-output forest per output) are
in :mod:`engine.estimators.per_output_forest`.
"""

import threading

import numpy as np
from scipy import sparse
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from engine._core import RowMatrix, TreeStore, grow_tree
from engine.estimators.base import MultiLabelMixin, TreeEnsemble, is_int, is_real
from engine.estimators.frames import NAMES_DOC
from engine.estimators.growers import bin_for, check_split_params, grower_on
from engine.names import PROJECTIONS
from engine.projections import check_projection, draw_projections
from engine.validation import check_n_jobs

SPLITTERS = ("best", "random")
SEED_MAX = 2**63 - 1


def resolve_n_components(n_components, n_outputs):
    """q as an integer: ``"log"`` means max(1, round(ln d)) (paper 003, Table 1)."""
    if isinstance(n_components, str) and n_components == "log":
        return max(1, int(round(np.log(n_outputs))))
    return n_components


def _draw_tree_projection(kind, seed, q, d):
    """The (q, d) projection of the tree with this seed (Algorithm 2)."""
    # A stream separate from the tree's bootstrap and split draws, so the same
    # seed grows the same tree whatever the projection.
    return draw_projections(kind, 1, q, d, np.random.default_rng([seed, 1]))[0]


def project_outputs(Y, phi, kind):
    """Y @ phi.T; sub-sampling just selects columns (same numbers, no products).

    The product is computed by einsum, not BLAS: these are small products
    made inside tree-growing threads, where a multi-threaded BLAS's spinning
    workers compete with the growers (on a loaded 2-core machine one
    502 x 174 x 16 product took 8 ms through BLAS, 0.25 ms through einsum).
    """
    if kind == "subsample":
        # Columns in increasing output order, not in the order phi's rows drew
        # them. The criterion (variance summed over columns) does not depend
        # on column order in exact arithmetic, but its floating-point sum does:
        # in a permuted order, near-tied splits (common in small nodes) break
        # the other way. Sorted, q = d gives exactly Y and so exactly the
        # unprojected forest, and the same drawn subset always grows the same tree.
        return np.ascontiguousarray(Y[:, np.sort(np.argmax(phi, axis=1))])
    return np.ascontiguousarray(np.einsum("ij,kj->ik", Y, phi))


def split_targets(Y, weight, entry_weight):
    """What the trees split on when entries weigh differently (missing targets).

    T = m + ratio ⊙ (Y - m), with m the per-output weighted mean of the
    observed entries and ratio_ij = W_ij / r_i: a missing entry (ratio 0)
    stands at its output's mean, i.e. its residual with respect to the
    forest's constant model counts as zero in the split search (as in
    boosting); an observed entry of full row weight is itself. The criterion
    (variance summed over outputs or projections) does not depend on m for
    complete data, where Y itself is used.
    """
    m = (entry_weight * Y).sum(axis=0) / entry_weight.sum(axis=0)
    ratio = np.divide(entry_weight, weight[:, None], out=np.zeros_like(entry_weight),
                      where=weight[:, None] > 0)
    return np.ascontiguousarray(m + ratio * (Y - m)), m


def masked_relabel(store, leaf, Y, W, prior):
    """Relabel a one-tree store: node values = per-output means of Y over the node's observed entries.

    leaf : (n,) leaf of every in-bag sample (-1 out of bag); W : (n, d) entry
    weights times bootstrap counts. An output with no observed entry in a node
    takes its parent's value (the root: ``prior``, the output's mean over all
    observed entries), the nearest estimate the tree has for it.
    """
    nodes = store.nodes
    n_nodes, d = len(nodes), Y.shape[1]
    num, den = np.zeros((n_nodes, d)), np.zeros((n_nodes, d))
    inside = leaf >= 0
    np.add.at(num, leaf[inside], W[inside] * Y[inside])
    np.add.at(den, leaf[inside], W[inside])
    left, right = nodes["left_child"], nodes["right_child"]
    internal = np.flatnonzero(left >= 0)
    parent = np.full(n_nodes, -1)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    depth = np.zeros(n_nodes, dtype=int)
    for node in range(1, n_nodes):          # parents have smaller ids than their children
        depth[node] = depth[parent[node]] + 1
    levels = [np.flatnonzero(depth == k) for k in range(depth.max() + 1)]
    for level in levels[:0:-1]:             # sums flow up, deepest level first
        np.add.at(num, parent[level], num[level])
        np.add.at(den, parent[level], den[level])
    values = np.empty((n_nodes, d))
    with np.errstate(divide="ignore", invalid="ignore"):
        means = num / den
    values[0] = np.where(den[0] > 0, means[0], prior)
    for level in levels[1:]:
        values[level] = np.where(den[level] > 0, means[level], values[parent[level]])
    store.set_value(values)


class TreeTicker:
    """Counts the trees grown (by every thread of a fit) and asks ``callback(n_done, estimator)``
    after each; once it answers True, every thread stops before its next tree.

    ``n_done`` counts in units of ``n_estimators`` (st-rf grows ``n_estimators`` trees per output:
    there it counts whole rounds over the outputs), so ``n_done < n_estimators`` means a stop cut
    the fit short, as for the boosting estimators' callback.
    """

    def __init__(self, callback, estimator, n_trees):
        self.callback, self.estimator = callback, estimator
        self.n_trees = max(int(n_trees), 1)
        self.n_estimators = int(estimator.n_estimators)
        self.grown = 0
        self.stopped = False
        self._lock = threading.Lock()

    def __call__(self):
        """One more tree grown; True when the fit must stop."""
        if self.callback is None:
            return False
        with self._lock:
            if not self.stopped:
                self.grown += 1
                if self.callback(self.grown * self.n_estimators // self.n_trees, self.estimator):
                    self.stopped = True
            return self.stopped


def grow_trees(X, binned, Y, sample_weight, seeds, grower_params, bootstrap, projection,
               shared_targets, n_components, entry_weight=None, ticker=None):
    """Grow the trees of ``seeds`` with one private grower; return their stores.

    ``ticker`` (:class:`TreeTicker`): called after every tree; the trees stop once it says so.

    binned : the binned features (histogram grower), or None for the exact
    presorted grower on X. With ``entry_weight`` (n, d; ``sample_weight``
    then holds the row weights)
    the trees split on :func:`split_targets` and are relabelled by
    :func:`masked_relabel`.
    """
    n, d = Y.shape
    base, prior = Y, None
    if entry_weight is not None:
        base, prior = split_targets(Y, sample_weight, entry_weight)
    n_targets = d if projection is None else n_components
    grower = grower_on(X, binned, max_targets=n_targets, leaf_impurity=False, **grower_params)
    stores = []
    for seed in seeds:
        if ticker is not None and ticker.stopped:
            break
        rng = np.random.default_rng(seed)
        counts = None
        if bootstrap:
            counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
            weights = counts * sample_weight
        else:
            weights = sample_weight
        grow_seed = int(rng.integers(0, SEED_MAX))
        if projection is None:
            targets = base
        elif shared_targets is not None:
            targets = shared_targets
        else:
            targets = project_outputs(base, _draw_tree_projection(projection, seed, n_components, d),
                                      projection)
        store = TreeStore(d)
        leaf = grow_tree(grower, store, targets, labels=Y, sample_weight=weights, seed=grow_seed)
        if entry_weight is not None:
            W = entry_weight if counts is None else counts[:, None] * entry_weight
            masked_relabel(store, leaf, Y, W, prior)
        stores.append(store)
        if ticker is not None and ticker():
            break
    return stores


def _batches(n_items, n_jobs):
    """Contiguous index ranges, one per worker."""
    n_batches = max(1, min(effective_n_jobs(n_jobs), n_items))
    bounds = np.linspace(0, n_items, n_batches + 1).round().astype(int)
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def tree_leaves(stores, rows):
    """Leaf reached in each tree, one (n_samples,) array per store (rows: a RowMatrix)."""
    return [store.apply(rows)[:, 0] for store in stores]


class ForestBase(TreeEnsemble):
    """Shared validation, fitting and prediction of the forest estimators."""

    _is_classifier = False
    _has_projection = True

    # ------------------------------------------------------------ validation

    def _validate_params(self):
        if not is_int(self.n_estimators) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if self.splitter not in SPLITTERS:
            raise ValueError(f"splitter must be one of {SPLITTERS}, got {self.splitter!r}")
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise ValueError(f"bootstrap must be True or False, got {self.bootstrap!r}")
        mss = self.min_samples_split
        if not ((is_int(mss) and mss >= 2) or (is_real(mss) and not is_int(mss) and 0.0 < mss <= 1.0)):
            raise ValueError(
                f"min_samples_split must be an integer >= 2 or a fraction in (0, 1], got {mss!r}")
        check_n_jobs(self.n_jobs)
        check_split_params(self.split_search, self.max_bins)
        self._validate_tree_params()
        if self._has_projection:
            self._validate_projection_params()

    def _validate_projection_params(self):
        if not isinstance(self.projection_per_tree, (bool, np.bool_)):
            raise ValueError(
                f"projection_per_tree must be True or False, got {self.projection_per_tree!r}")
        q = self.n_components
        if self.projection is None:
            # q is unused without a projection, but a malformed value is still a mistake.
            if q is not None and not (isinstance(q, str) and q == "log") and (not is_int(q) or q < 1):
                raise ValueError(f"n_components (q) must be None, an integer >= 1 or 'log', got {q!r}")
            return
        if not isinstance(self.projection, str) or self.projection not in PROJECTIONS:
            raise ValueError(f"projection must be None or one of {PROJECTIONS}, got {self.projection!r}")
        if q is None:
            raise ValueError(
                f"n_components (q) must be set when projection={self.projection!r}: "
                "an integer >= 1 or 'log' (q = round(ln d))")
        if not (isinstance(q, str) and q == "log") and (not is_int(q) or q < 1):
            raise ValueError(f"n_components (q) must be an integer >= 1 or 'log', got {q!r}")

    def check_data_shape(self, n_samples, n_features, n_outputs):
        """The checks ``fit`` makes against the data's shape, made without data (before any fit).

        The parameters themselves, n_components (q) against d and max_features
        against p; same messages as ``fit``.
        """
        self._validate_params()
        if self._has_projection and self.projection is not None:
            self._resolve_projection_size(n_outputs)
        self._tree_params(n_samples, n_features)

    def is_randomized(self, n_samples, n_features):
        """Whether ``random_state`` can change the model fitted on data of this shape."""
        k = self._tree_params(n_samples, n_features)["max_features"]
        projected = self._has_projection and self.projection is not None
        return bool(self.bootstrap) or self.splitter == "random" or k < n_features or projected

    def _resolve_projection_size(self, n_outputs):
        """q as an integer, checked against d (messages name n_components)."""
        q = resolve_n_components(self.n_components, n_outputs)
        try:
            check_projection(self.projection, q, n_outputs)
        except ValueError as exc:
            raise ValueError(str(exc).replace("n_projections (q)", "n_components (q)")) from None
        return q

    def _tree_params(self, n_samples, n_features):
        params = super()._tree_params(n_samples, n_features)
        mss = self.min_samples_split
        if not is_int(mss):
            mss = max(2, int(np.ceil(mss * n_samples)))
        params["min_samples_split"] = mss
        params["random_splits"] = self.splitter == "random"
        return params

    # ------------------------------------------------------------ fit

    def fit(self, X, y, sample_weight=None, callback=None):
        """Grow the forest.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_outputs) or (n_samples,)
            The output matrix Y (two labels per output for the classifier);
            with ``missing_targets="ignore"`` a NaN entry is a missing target.
        sample_weight : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            Multiplies the bootstrap counts; per output, a zero is a missing target.
        callback : callable or None
            ``callback(n_trees_done, estimator)`` after every tree (as the boosting estimators'
            after every chunk of steps); True stops the fit: the forest keeps the trees grown
            (``n_trees_done < n_estimators`` then). A stop request thus ends a fit within one tree.
        """
        self._validate_params()
        if callback is not None and not callable(callback):
            raise ValueError(f"callback must be None or callable, got {type(callback).__name__}")
        data = self._check_fit_data(X, y, sample_weight, reset=True)
        self._y_was_1d = data.y_was_1d
        ticker = TreeTicker(callback, self, self._n_trees(data.Y.shape[1]))
        self._grow(data.X, data.Y, data.weight, data.entry_weight, ticker)
        if data.classes is not None:
            self._set_classes(data.classes)
        return self

    def _n_trees(self, n_outputs):
        """Trees a fit grows (what the callback counts)."""
        return self.n_estimators

    def _grow(self, X, Y, w, W, ticker=None):
        """Grow the trees on checked data (W: per-entry weights or None, see targets.py)."""
        n, d = Y.shape
        projection = self.projection if self._has_projection else None
        q = None if projection is None else self._resolve_projection_size(d)
        params = self._tree_params(n, X.shape[1])

        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int64).max, size=self.n_estimators + 1, dtype=np.int64)
        self._tree_seeds = [int(s) for s in seeds[1:]]
        shared_targets = None
        self._shared_projection = None
        if projection is not None and not self.projection_per_tree:
            # Algorithm 1: one projection (from the first seed) for every tree.
            self._shared_projection = _draw_tree_projection(projection, int(seeds[0]), q, d)
            base = Y if W is None else split_targets(Y, w, W)[0]
            shared_targets = project_outputs(base, self._shared_projection, projection)

        batches = _batches(self.n_estimators, self.n_jobs)
        binned = bin_for(X, self.split_search, self.max_bins, sample_weight=w, n_threads=len(batches))
        if binned is None:
            # The presorted exact grower: one dense float32 copy shared by the threads
            # (a sparse X only gets here when it is dense enough, see growers.bin_for).
            X = np.asfortranarray(X.toarray() if sparse.issparse(X) else X, dtype=np.float32)
        results = Parallel(n_jobs=len(batches), prefer="threads")(
            delayed(grow_trees)(X, binned, Y, w, [self._tree_seeds[i] for i in batch], params,
                                 bool(self.bootstrap), projection, shared_targets, q, W, ticker)
            for batch in batches)
        self.estimators_ = [store for stores in results for store in stores]
        self.n_outputs_ = d
        self.n_components_ = q

    # ------------------------------------------------------------ prediction

    def _predict_rows(self, X):
        if isinstance(X, RowMatrix):
            return X
        return RowMatrix(self._check_predict_X(X, "estimators_"))

    def _mean_prediction(self, X):
        """Average over trees of the leaf values, shape (n_samples, n_outputs)."""
        X32 = self._predict_rows(X)
        stores = self.estimators_
        batches = _batches(len(stores), self.n_jobs)
        if len(batches) == 1 or X32.n_rows == 0:
            leaves = tree_leaves(stores, X32)
        else:
            # Trees are traversed in threads (apply releases the GIL); the sum
            # runs in tree order so predictions do not depend on n_jobs.
            parts = Parallel(n_jobs=len(batches), prefer="threads")(
                delayed(tree_leaves)([stores[i] for i in batch], X32) for batch in batches)
            leaves = [leaf for part in parts for leaf in part]
        total = np.zeros((X32.n_rows, self.n_outputs_))
        for store, leaf in zip(stores, leaves):
            total += store.value[leaf]
        return total / len(self.estimators_)

    # ------------------------------------------------------------ fitted properties

    @property
    def projections_(self):
        """ndarray (n_estimators, q, d) with Phi per tree, or (1, q, d) when shared; None unprojected.

        Per-tree projections are drawn again from the trees' seeds, so the model
        does not store q x d numbers per tree.
        """
        check_is_fitted(self, "estimators_")
        if not self._has_projection or self.projection is None:
            return None
        if self._shared_projection is not None:
            return self._shared_projection[None].copy()
        return np.stack([_draw_tree_projection(self.projection, s, self.n_components_, self.n_outputs_)
                         for s in self._tree_seeds])

    @property
    def feature_importances_(self):
        """Mean over trees of each tree's normalised SSE decrease per feature.

        The decreases are those the trees optimised, i.e. measured on the
        projected outputs when a projection is used.
        """
        check_is_fitted(self, "estimators_")
        total = np.zeros(self.n_features_in_)
        for store in self.estimators_:
            nodes = store.nodes
            split = nodes["feature"] >= 0
            imp = np.bincount(nodes["feature"][split], weights=nodes["improvement"][split],
                              minlength=self.n_features_in_)
            if imp.sum() > 0:
                total += imp / imp.sum()
        return total / total.sum() if total.sum() > 0 else total


class ForestClassifierMixin(MultiLabelMixin):
    """Multi-label outputs (two labels each, engine/estimators/labels.py).

    The trees' node values are frequencies of each output's positive label, so
    P(positive) is their mean over trees. ``predict_proba`` follows
    scikit-learn's multi-output format (a list of (n_samples, n_classes_j)
    arrays; one array for a 1-D fit); ``decision_function`` is 2 P - 1,
    (n_samples, n_labels), > 0 exactly where the positive label is predicted
    (P > 1/2: a tie goes to the negative class, as RandomForestClassifier's
    argmax does); it ranks labels as P does (LRAP).
    """

    _is_classifier = True

    def _positive_probability(self, X):
        return np.clip(self._mean_prediction(X), 0.0, 1.0)

    def predict_proba(self, X):
        """Class probabilities in scikit-learn's multi-output format."""
        return self._format_proba(self._positive_probability(X))

    def decision_function(self, X):
        """2 P(positive) - 1, (n_samples, n_labels) ((n_samples,) for a 1-D fit): the scores
        to rank labels by (``label_ranking_average_precision_score(Y, clf.decision_function(X))``)."""
        return self._wrap_output(self._shape_output(2.0 * self._positive_probability(X) - 1.0), X)

    def predict(self, X):
        """Labels: each output's positive class where P(positive) > 1/2, else the other."""
        return self._wrap_output(self._labels(2.0 * self._positive_probability(X) - 1.0), X)


class ForestRegressorMixin:
    def predict(self, X):
        """Predicted outputs, (n_samples, n_outputs) ((n_samples,) if fitted on 1-D Y)."""
        return self._wrap_output(self._shape_output(self._mean_prediction(X)), X)

    def score(self, X, y, sample_weight=None):
        """macro-r2: the mean of the per-output r2."""
        from sklearn.metrics import r2_score
        return r2_score(y, self.predict(X), sample_weight=sample_weight,
                        multioutput="uniform_average")


_PARAMS_DOC = """
    Parameters
    ----------
    n_estimators : int, default 100
    max_features : int, float, "sqrt", "log2" or None
        Features drawn at each node (k in paper 003). Default: 1.0 (all) for
        regression, "sqrt" for multi-label classification (paper 003, Table 1).
    min_samples_split : int >= 2 or fraction, default 2
    min_samples_leaf : int >= 1 or fraction, default 1
    max_depth : int or None (fully grown)
    max_leaf_nodes : int or None
        Best-first growth with at most this many leaves.
    bootstrap : bool, default True
        Grow each tree on a bootstrap sample (as sample weights = draw counts).
    splitter : {"best", "random"}
        Best threshold (Random Forest) or one random threshold per feature (Extra Trees).
    projection : None or {"subsample", "gaussian", "achlioptas", "sparse"}
        Output projection scheme; None grows ordinary multi-output trees on Y.
    n_components : int >= 1 or "log"
        q, the projected dimension; required with a projection. "log" means
        max(1, round(ln d)). With "subsample", q <= d. Named as
        sklearn.random_projection names it; the experiments and the app call it q.
    projection_per_tree : bool, default True
        True: a new projection per tree (Algorithm 2); False: one shared (Algorithm 1).
    missing_targets : {"error", "ignore"}
        "ignore": a NaN entry of Y is a missing target, fitted as a zero
        weight on that entry: the trees split on ``split_targets`` and their
        nodes average the observed entries only (``masked_relabel``).
    split_search : {"auto", "exact", "hist"}
        Exact thresholds, histogram bins, or by size (see engine.estimators.growers).
    max_bins : int in [2, 255]
        Bins per feature of the histogram search.
    n_jobs : int or None
        Threads growing trees (None = 1, -1 = all cores). Results do not depend on it.
    random_state : int, RandomState or None

    Attributes
    ----------
    estimators_ : list of TreeStore
        One store per tree; node values are means of the original outputs.
    projections_ : ndarray (n_estimators, q, d), (1, q, d) when shared, or None
    n_components_ : int or None
        The resolved q.
    n_outputs_, n_features_in_, feature_importances_
""" + NAMES_DOC


class ProjectedForestRegressor(ForestRegressorMixin, RegressorMixin, ForestBase):
    __doc__ = ("Random forest (or extra trees) on randomly projected outputs, regression.\n"
               + _PARAMS_DOC)

    def __init__(self, *, n_estimators=100, max_features=1.0, min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_leaf_nodes=None, bootstrap=True,
                 splitter="best", projection=None, n_components=None, projection_per_tree=True,
                 missing_targets="error", split_search="auto", max_bins=255, n_jobs=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.splitter = splitter
        self.projection = projection
        self.n_components = n_components
        self.projection_per_tree = projection_per_tree
        self.missing_targets = missing_targets
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state


class ProjectedForestClassifier(ForestClassifierMixin, ClassifierMixin, ForestBase):
    __doc__ = ("Random forest (or extra trees) on randomly projected outputs, multi-label 0/1.\n\n"
               "    predict_proba is the mean over trees of the leaf label frequencies\n"
               "    (n_samples, n_labels); predict is predict_proba >= 0.5.\n" + _PARAMS_DOC)

    def __init__(self, *, n_estimators=100, max_features="sqrt", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_leaf_nodes=None, bootstrap=True,
                 splitter="best", projection=None, n_components=None, projection_per_tree=True,
                 missing_targets="error", split_search="auto", max_bins=255, n_jobs=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.splitter = splitter
        self.projection = projection
        self.n_components = n_components
        self.projection_per_tree = projection_per_tree
        self.missing_targets = missing_targets
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.random_state = random_state
