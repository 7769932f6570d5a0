"""Multi-output gradient boosting with random output projections (paper 002).

Two scikit-learn estimators share one implementation:

* :class:`MultiOutputBoostingRegressor`: square (l2, eq. 4) or absolute
  (l1, eq. 5) loss on real outputs; ``score`` is macro-r2 (eq. 26).
* :class:`MultiLabelBoostingClassifier`: two labels per output (any values,
  engine/estimators/labels.py), mapped to -1/+1, with the multi-label
  logistic loss (eq. 8) or the square loss.

``strategy`` picks the paper's algorithm (see ``engine/_core/algorithms.pyx``):
``"single_target"`` (st-gbrt), ``"multi_output"`` (gbmort, Alg. 2),
``"projected"`` (gbrt-rpo, Alg. 3) and ``"projected_relabel"``
(gbrt-relabel-rpo, Alg. 4). For single target one step fits one tree per
output, so ``n_estimators`` counts trees per output; for the other strategies
one step is one tree.

Split search (``split_search``, ``max_bins``) and threads (``n_jobs``) are
chosen in :mod:`engine.estimators.growers`; X may be dense or a CSR/CSC
matrix (kept sparse; the same numbers give the same model either way).

Training runs in compiled chunks of steps; between chunks an optional
``callback(n_steps_done, estimator)`` may report progress or stop the fit
(return True), which keeps the steps done so far.

Missing targets and per-output weights (``missing_targets="ignore"``, an
(n, d) ``sample_weight``): engine/estimators/targets.py reduces them to row
and entry weights; what every strategy then does with them is written in
engine/_core/updates.pyx ("per-entry weights"). Early stopping and the
held-out scores: engine/estimators/early_stopping.py.

A fit hands the compiled loop (``engine._core.boost``) a few objects built
once: what the fit is (``BoostSpec``: strategy, loss, learning rate,
sub-sampling, q, leaf estimation and lambda), the training set and its
buffers (``Workspace``), the per-step records (``StepLog``), the held-out set
and its early-stopping state; every chunk of steps adds its projections.
"""
import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from engine import _core
from engine._core import BoostSpec, Loss, RowMatrix, Score, Strategy, TreeStore
from engine.estimators.base import (
    MultiLabelMixin,
    TreeEnsemble,
    check_features,
    fingerprint,
    is_int,
    is_real,
)
from engine.estimators.boosting_doc import BOOSTING_DOC
from engine.estimators.early_stopping import (
    check_early_stopping,
    early_stopping_on,
    held_out_weights,
    scoring_arrays,
    validation_split,
)
from engine.estimators.second_order import (
    LEAF_ESTIMATION_CHOICES,
    NEWTON_LEAVES,
    newton_leaves_refusal,
    resolve_leaf_estimation,
)
from engine.estimators.targets import resolve_weights
from engine.estimators.growers import check_split_params, make_grower, n_threads_of
from engine.methods import BOOSTING, columns
from engine.names import (
    CLASSIFICATION_LOSSES,
    PROJECTED_STRATEGIES,
    PROJECTIONS,
    REGRESSION_LOSSES,
)
from engine.projections import DENSE_SCHEMES, check_projection, draw_projections, to_csr
from engine.validation import check_choice, check_n_jobs, check_real

# The compiled step of every strategy, as its row in the method table (engine/methods.py) names it.
STRATEGY_CODES = {strategy: getattr(Strategy, row.core_step) for strategy, row in BOOSTING.items()}
LOSS_CODES = {"squared_error": Loss.SQUARED_ERROR, "absolute_error": Loss.ABSOLUTE_ERROR,
              "logistic": Loss.LOGISTIC}

# The logistic loss' constant model is +-infinity for a label that never (or
# always) occurs; it is clipped where the loss is already flat (exp(-30)).
MAX_INITIAL_LOGIT = 15.0
# Aim for a callback about every 50 ms of training.
CHUNK_SECONDS = 0.05
MAX_SQUARED_LOSS_Y = 1e150


def weighted_median(values, weights):
    """Smallest v with at least half of the total weight at or below it."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])]


class BoostingBase(TreeEnsemble):
    """Shared fitting and prediction of the two boosting estimators."""

    _losses = ()

    # ------------------------------------------------------------ validation

    def _validate_params(self):
        # check_choice tests the type first: a list would make "in dict" raise
        # "unhashable type" without naming the argument.
        check_choice(self.strategy, "strategy", STRATEGY_CODES)
        check_choice(self.projection, "projection", PROJECTIONS)
        if not is_int(self.n_projections) or self.n_projections < 1:
            raise ValueError(f"n_projections must be an integer >= 1, got {self.n_projections!r}")
        if self.strategy in PROJECTED_STRATEGIES and not BOOSTING[self.strategy].takes_q and self.n_projections != 1:
            raise ValueError(
                f"n_projections must be 1 for strategy={self.strategy!r} ({BOOSTING[self.strategy].paper} fits "
                "a single-output tree on one projection); use 'projected_relabel' for q > 1")
        check_choice(self.loss, "loss", self._losses)
        check_choice(self.leaf_estimation, "leaf_estimation", LEAF_ESTIMATION_CHOICES)
        check_real(self.l2_regularization, "l2_regularization", 0.0)
        if self.leaf_estimation == NEWTON_LEAVES:
            refusal = newton_leaves_refusal(self.strategy, self.loss)
            if refusal is not None:
                raise ValueError(refusal)
        if not is_real(self.learning_rate) or not 0.0 < self.learning_rate <= 1.0:
            raise ValueError(f"learning_rate must be in (0, 1], got {self.learning_rate!r}")
        if not is_int(self.n_estimators) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an integer >= 1, got {self.n_estimators!r}")
        if not is_real(self.subsample) or not 0.0 < self.subsample <= 1.0:
            raise ValueError(f"subsample must be in (0, 1], got {self.subsample!r}")
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise ValueError(f"warm_start must be True or False, got {self.warm_start!r}")
        check_early_stopping(self.early_stopping, self.validation_fraction, self.n_iter_no_change, self.tol)
        check_split_params(self.split_search, self.max_bins)
        check_n_jobs(self.n_jobs)
        self._validate_tree_params()

    def check_data_shape(self, n_samples, n_features, n_outputs):
        """The checks ``fit`` makes against the data's shape, made without data (before any fit).

        The parameters themselves, the projection's q against d (output
        sub-sampling draws q <= d distinct outputs) and max_features against p;
        same messages as ``fit``.
        """
        self._validate_params()
        if self.strategy in PROJECTED_STRATEGIES:
            check_projection(self.projection, self.n_projections, n_outputs)
        self._tree_params(n_samples, n_features)

    def is_randomized(self, n_samples, n_features):
        """Whether ``random_state`` can change the model fitted on data of this shape."""
        k = self._tree_params(n_samples, n_features)["max_features"]
        return self.strategy in PROJECTED_STRATEGIES or self.subsample < 1 or k < n_features

    # ------------------------------------------------------------ loss-specific hooks

    def _loss_targets(self, Y):
        """The targets the loss sees (the classifier maps its 0/1 indicator to -1/+1)."""
        return Y

    def _initial_raw(self, Y, w, W=None):
        """The constant model rho_0 = argmin_rho sum_i w_i loss(y_i, rho), per output.

        With per-entry weights W, output j's constant is weighted by W[:, j]
        (a missing target has weight 0 and does not count).
        """
        loss = LOSS_CODES[self.loss]
        if W is not None:
            return np.concatenate([self._initial_raw(Y[:, [j]][W[:, j] > 0], W[:, j][W[:, j] > 0])
                                   for j in range(Y.shape[1])])
        if loss == Loss.SQUARED_ERROR:
            return np.average(Y, axis=0, weights=w)
        if loss == Loss.ABSOLUTE_ERROR:
            return np.array([weighted_median(Y[:, j], w) for j in range(Y.shape[1])])
        positive = (w[:, None] * (Y > 0)).sum(axis=0)
        negative = (w[:, None] * (Y < 0)).sum(axis=0)
        with np.errstate(divide="ignore"):
            logit = 0.5 * (np.log(positive) - np.log(negative))
        return np.clip(logit, -MAX_INITIAL_LOGIT, MAX_INITIAL_LOGIT)

    # ------------------------------------------------------------ fit

    def fit(self, X, y, sample_weight=None, *, eval_set=None, callback=None):
        """Fit the boosting model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_outputs) or (n_samples,)
            The output matrix Y (scikit-learn's name for the parameter is y).
            With ``missing_targets="ignore"`` a NaN entry is a missing target.
        sample_weight : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            Per sample, or per sample and output (a zero is a missing target).
        eval_set : tuple (X_eval, Y_eval), optional
            A held-out set scored after every step (``eval_loss_``,
            ``eval_score_``, ``eval_score_per_output_``, ``best_iteration_``)
            at the cost of routing it through each new tree only. When early
            stopping is on (``early_stopping``), it watches this set (nothing
            is held out of the training data).
        callback : callable, optional
            ``callback(n_steps_done, estimator)`` after each chunk of steps;
            returning True stops training and keeps the steps done so far.
        """
        self._validate_params()
        warm = self.warm_start and hasattr(self, "trees_")
        data = self._check_fit_data(X, y, sample_weight, reset=not warm)
        if not warm:
            self._y_was_1d = data.y_was_1d
        Y_enc = np.ascontiguousarray(self._loss_targets(data.Y), dtype=np.float64)
        d = Y_enc.shape[1]
        if self.loss == "squared_error" and np.abs(Y_enc).max() > MAX_SQUARED_LOSS_Y:
            # (y - f)^2 and the closed-form line search (sum r a / sum a^2) overflow
            # float64 beyond about 1e154; refuse instead of returning NaN.
            raise ValueError(
                f"Y contains values larger than {MAX_SQUARED_LOSS_Y:.0e} in magnitude, where the "
                "squared loss overflows; rescale Y (or use loss='absolute_error')")
        if warm and d != self.n_outputs_:
            raise ValueError(f"Y has {d} outputs but the warm-started model has {self.n_outputs_}")
        if self.strategy in PROJECTED_STRATEGIES:
            check_projection(self.projection, self.n_projections, d)
        if warm and self.n_estimators < self.n_steps_:
            raise ValueError(
                f"n_estimators = {self.n_estimators} is smaller than the {self.n_steps_} steps "
                "already fitted; warm start can only add steps")
        X, w, W, held_out = data.X, data.weight, data.entry_weight, None
        stopping = early_stopping_on(self.early_stopping, self.n_iter_no_change, len(Y_enc))
        if eval_set is None and stopping:
            X, Y_enc, w, W, held_out = self._hold_out(data, Y_enc)
        if not warm:
            self._start_model(Y_enc, w, W, d)
            if data.classes is not None:
                self._set_classes(data.classes)      # before any step: a callback may predict
        self.early_stopping_ = stopping
        self.leaf_estimation_ = self._leaf_estimation()
        stopped = self._fit_steps(X, Y_enc, w, W,
                                  self._evaluation_state(eval_set, held_out, data.classes),
                                  callback, stopping)
        self.n_steps_run_ = self.n_steps_
        if stopped:
            self._keep_steps(self.best_iteration_ + 1)
        self.n_estimators_ = self.n_steps_
        return self

    def _keep_steps(self, k):
        """Cut the model back to its first k steps (early stopping keeps the best iteration).

        The trees (d per step for single target, one otherwise), every per-step array, the
        held-out history and the projection segments keep the first k steps; the training
        cache (raw predictions of the dropped steps) is dropped, so a warm start recomputes it.
        """
        if k >= self.n_steps_:
            return
        trees_per_step = columns(BOOSTING[self.strategy].trees_per_step, 1, self.n_outputs_)
        state = self.trees_.__getstate__()
        n_trees = k * trees_per_step
        end = int(state["tree_start"][n_trees])
        store = TreeStore(self._boost_spec().n_values(self.n_outputs_))
        store.__setstate__({"nodes": state["nodes"][:end], "values": state["values"][:end],
                            "tree_start": state["tree_start"][:n_trees + 1]})
        self.trees_ = store
        self._set_progress(self.rho_, self.train_score_, self.fit_times_, k)
        history = getattr(self, "_eval_history", None)
        if history is not None:
            self._eval_history = {name: (values if name == "key" else values[:k])
                                  for name, values in history.items()}
            self._set_eval_progress({"eval_loss": history["eval_loss"],
                                     "eval_score": history["eval_score"],
                                     "eval_score_out": history["eval_score_out"]}, k)
        segments, left = [], k
        for state_, steps in self._projection_segments:
            if left > 0:
                segments.append((state_, min(steps, left)))
            left -= steps
        self._projection_segments = segments
        self._train_cache = {}

    def _hold_out(self, data, Y_enc):
        """Early stopping without eval_set: (X, Y, w, W) of the training rows, and the held-out rows."""
        train, val = validation_split(len(Y_enc), self.validation_fraction, self.random_state)
        d = Y_enc.shape[1]
        sw, observed = data.sample_weight, data.observed
        try:
            w, W = resolve_weights(None if sw is None else sw[train],
                                   None if observed is None else observed[train], len(train), d)
        except ValueError as exc:
            raise ValueError(f"{exc} (in the training rows left by validation_fraction="
                             f"{self.validation_fraction} for early stopping)") from None
        w_val, W_val = held_out_weights(sw, observed, val, d)
        held_out = (data.X[val], Y_enc[val], w_val, W_val)
        return data.X[train], np.ascontiguousarray(Y_enc[train]), w, W, held_out

    def _leaf_estimation(self):
        """The leaves this fit uses: ``leaf_estimation`` with "auto" resolved (second_order.py)."""
        return resolve_leaf_estimation(self.leaf_estimation, self.strategy, self.loss)

    def _boost_spec(self):
        """What the compiled loop fits (its BoostSpec), from the validated parameters.

        The core trusts it: the Newton leaves' rule (second_order.py) is
        checked here too, with the message ``fit`` gives.
        """
        newton = self._leaf_estimation() == NEWTON_LEAVES
        refusal = newton_leaves_refusal(self.strategy, self.loss) if newton else None
        if refusal is not None:
            raise ValueError(refusal)
        q = self.n_projections if self.strategy in PROJECTED_STRATEGIES else 1
        return BoostSpec(STRATEGY_CODES[self.strategy], LOSS_CODES[self.loss],
                         float(self.learning_rate), float(self.subsample), q, newton,
                         float(self.l2_regularization))

    def _fit_steps(self, X, Y_enc, w, W, evaluation, callback, stopping):
        """Add n_estimators - n_steps_ steps (fewer if early stopping or the callback stops).

        Returns True when the early-stopping rule stopped the fit."""
        n, d = Y_enc.shape
        params = self._tree_params(n, X.shape[1])
        spec = self._boost_spec()
        q = spec.n_projections
        n_new = self.n_estimators - self.n_steps_
        grower, F = self._training_state(X, Y_enc, w, W, params, spec.n_split_targets(d))
        if n_new == 0:
            return False
        ws = _core.Workspace(spec, Y_enc, F, w, W, self._rng_state)
        old = self.n_steps_
        rho = np.concatenate([self.rho_, np.empty((n_new, d))])
        train_loss = np.concatenate([self.train_score_, np.empty(n_new)])
        times = np.concatenate([self.fit_times_, np.empty(n_new)])
        log = _core.StepLog(rho, train_loss, times)
        scores = self._eval_arrays(evaluation, old + n_new, d)
        held_out, rule = self._held_out_set(evaluation, scores, stopping)
        time_offset = self.fit_times_[-1] if old else 0.0
        t0 = _core.monotonic_now() - time_offset
        done, chunk = 0, 1
        self._projection_segments.append((self._projection_rng.bit_generator.state, 0))
        while done < n_new:
            c = min(chunk, n_new - done)
            projections = None
            if self.strategy in PROJECTED_STRATEGIES:
                phi = draw_projections(self.projection, c, q, d, self._projection_rng)
                projections = _core.Projections(*to_csr(phi),
                                                dense=self.projection in DENSE_SCHEMES)
            started = _core.monotonic_now()
            eval_seconds, steps, stalled = _core.boost(grower, self.trees_, spec, ws, projections,
                                                       log, old + done, c, t0, held_out, rule)
            elapsed = _core.monotonic_now() - started - eval_seconds
            t0 += eval_seconds          # held-out scoring is not training time
            done += steps
            segment_state, segment_steps = self._projection_segments[-1]
            self._projection_segments[-1] = (segment_state, segment_steps + steps)
            self._set_progress(rho, train_loss, times, old + done)
            if evaluation is not None:
                self._eval_history = {"key": evaluation["key"], **scores}
                self._set_eval_progress(scores, old + done)
            if callback is not None:
                callback_started = _core.monotonic_now()
                stop = callback(self.n_steps_, self)
                t0 += _core.monotonic_now() - callback_started   # nor is the caller's work
                if stop:
                    break
            if stalled:
                break                   # early stopping (possibly at the chunk's last step)
            chunk = int(np.clip(c * CHUNK_SECONDS / max(elapsed, 1e-6), 1, 4 * c + 16))
        # The presorted features and raw predictions only speed up a warm start.
        self._train_cache = {**self._train_cache, "F": F} if self.warm_start else {}
        return bool(stalled) and rule is not None

    def _held_out_set(self, evaluation, scores, stopping):
        """The compiled loop's held-out set (writing into ``scores``) and early-stopping state
        (None unless ``stopping``)."""
        if evaluation is None:
            return None, None
        held_out = _core.HeldOutSet(
            evaluation["X"], evaluation["Y"], evaluation["F"], evaluation["w"], evaluation["W"],
            evaluation["sst"], LOSS_CODES[self.loss], self._score_kind, scores["eval_loss"],
            scores["eval_sse"], scores["eval_score"], scores["eval_score_out"])
        rule = None
        if stopping:
            rule = _core.EarlyStopping(self.n_iter_no_change, float(self.tol))
        return held_out, rule

    def _eval_arrays(self, evaluation, n_steps, d):
        """Per-step held-out arrays; steps fitted before a warm start keep their scores
        when they were evaluated on the same set (otherwise NaN)."""
        if evaluation is None:
            return {}
        scores = {"eval_loss": np.full(n_steps, np.nan), "eval_sse": np.full((n_steps, d), np.nan),
                  "eval_score": np.full(n_steps, np.nan), "eval_score_out": np.full((n_steps, d), np.nan)}
        previous = getattr(self, "_eval_history", None)
        old = self.n_steps_
        if old and previous is not None and previous["key"] == evaluation["key"]:
            for name, values in scores.items():
                values[:old] = previous[name][:old]
        return scores

    def _start_model(self, Y_enc, w, W, d):
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, 2**31 - 1, size=3)
        self._rng_state = np.array([(int(seeds[0]) << 32) | int(seeds[1])], dtype=np.uint64)
        self._projection_rng = np.random.default_rng(int(seeds[2]))
        self._projection_segments = []
        self.n_outputs_ = d
        self.init_ = self._initial_raw(Y_enc, w, W)
        self.trees_ = TreeStore(self._boost_spec().n_values(d))
        self._train_cache = {}
        self._eval_history = None
        self._set_progress(np.empty((0, d)), np.empty(0), np.empty(0), 0)

    def _set_progress(self, rho, train_loss, times, n_steps):
        self.n_steps_ = n_steps
        self.rho_ = rho[:n_steps]
        self.train_score_ = train_loss[:n_steps]
        self.fit_times_ = times[:n_steps]

    def _set_eval_progress(self, scores, n_steps):
        self.eval_loss_ = scores["eval_loss"][:n_steps]
        self.eval_score_ = scores["eval_score"][:n_steps]
        self.eval_score_per_output_ = scores["eval_score_out"][:n_steps]
        ranked = np.where(np.isfinite(self.eval_score_), self.eval_score_, -np.inf)
        self.best_iteration_ = int(np.argmax(ranked)) if n_steps else None

    def _training_state(self, X, Y_enc, w, W, params, n_targets):
        """The grower (features sorted or binned once) and raw training predictions F."""
        n_threads = n_threads_of(self.n_jobs)
        key = None
        if self.warm_start:     # hashing X costs a serial pass: only a warm start can reuse it
            key = (fingerprint(X, Y_enc, w) + ("" if W is None else fingerprint(W))
                   + repr(sorted(params.items())) + str(n_targets) + self.split_search + str(self.max_bins))
        cache = getattr(self, "_train_cache", {})
        if key is not None and cache.get("key") == key:
            if hasattr(cache["grower"], "n_threads"):
                cache["grower"].n_threads = n_threads
            return cache["grower"], cache["F"]
        grower = make_grower(X, self.split_search, self.max_bins, sample_weight=w, n_threads=n_threads,
                             random_splits=False,
                             max_targets=n_targets, leaf_impurity=False, **params)
        F = self._raw_predict_array(X)
        self._train_cache = {"key": key, "grower": grower, "F": F}
        return grower, F

    def _evaluation_state(self, eval_set, held_out, classes):
        """What the loop scores after every step: eval_set, the held-out rows, or nothing."""
        if eval_set is not None:
            X_eval, Y_eval, w_eval, W_eval = self._check_eval_set(eval_set, classes)
        elif held_out is not None:
            X_eval, Y_eval, w_eval, W_eval = held_out
        else:
            return None
        state = scoring_arrays(X_eval, Y_eval, w_eval, W_eval)
        state["F"] = self._raw_predict_array(state["X"])
        return state

    def _check_eval_set(self, eval_set, classes):
        try:
            X_eval, Y_eval = eval_set
        except (TypeError, ValueError):
            raise ValueError("eval_set must be a pair (X_eval, Y_eval)") from None
        n_features = self.n_features_in_
        X_eval = check_features("eval_set X", X_eval)
        Y_eval, observed, _, _ = self._targets(Y_eval, "eval_set Y", classes)
        if X_eval.shape[1] != n_features or Y_eval.shape[1] != self.n_outputs_ or X_eval.shape[0] != len(Y_eval):
            raise ValueError(
                f"eval_set must have {n_features} features, {self.n_outputs_} outputs and matching rows, "
                f"got X {X_eval.shape} and Y {Y_eval.shape}")
        W_eval = None if observed is None else observed.astype(np.float64)
        return X_eval, self._loss_targets(Y_eval), None, W_eval

    # ------------------------------------------------------------ prediction

    def _raw_predict_array(self, X, n_steps=None):
        n = X.n_rows if isinstance(X, RowMatrix) else X.shape[0]
        F = np.tile(self.init_, (n, 1))
        steps = self.n_steps_ if n_steps is None else n_steps
        if steps:
            _core.accumulate(self.trees_, X, F, strategy=STRATEGY_CODES[self.strategy],
                                 rho=np.ascontiguousarray(self.rho_), learning_rate=float(self.learning_rate),
                                 step_begin=0, step_end=steps)
        return F

    def _raw_predict(self, X):
        return self._raw_predict_array(self._check_predict_X(X, "trees_"))

    def _staged_raw_predict(self, X):
        X = self._check_predict_X(X, "trees_")
        F = np.tile(self.init_, (X.shape[0], 1))
        rho = np.ascontiguousarray(self.rho_)
        Xf = RowMatrix(X)
        for m in range(self.n_steps_):
            _core.accumulate(self.trees_, Xf, F, strategy=STRATEGY_CODES[self.strategy], rho=rho,
                                 learning_rate=float(self.learning_rate), step_begin=m, step_end=m + 1)
            yield F.copy()

    # ------------------------------------------------------------ fitted properties

    @property
    def projections_(self):
        """ndarray (n_steps, q, d): the projection of every step (projected strategies only).

        Drawn again from the generator states recorded during fit, so the
        model does not have to store q x d numbers per step.
        """
        check_is_fitted(self, "trees_")
        if self.strategy not in PROJECTED_STRATEGIES:
            return None
        q, d = self.n_projections, self.n_outputs_
        parts = [np.zeros((0, q, d))]
        for state, steps in self._projection_segments:
            rng = np.random.default_rng()
            rng.bit_generator.state = state
            parts.append(draw_projections(self.projection, steps, q, d, rng))
        return np.concatenate(parts)[: self.n_steps_]

    @property
    def feature_importances_(self):
        """Total SSE decrease brought by each feature over all trees, normalised to sum 1."""
        check_is_fitted(self, "trees_")
        nodes = self.trees_.nodes
        split = nodes["feature"] >= 0
        total = np.bincount(nodes["feature"][split], weights=nodes["improvement"][split],
                            minlength=self.n_features_in_)
        return total / total.sum() if total.sum() > 0 else total

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_train_cache", None)
        return state


class MultiOutputBoostingRegressor(RegressorMixin, BoostingBase):
    __doc__ = ("Gradient boosting for multi-output regression (paper 002, Algorithms 2-4).\n"
               + BOOSTING_DOC % dict(losses='{"squared_error", "absolute_error"}: l2 (eq. 4) or l1 (eq. 5)',
                                  score="macro-r2 (eq. 26), its per-output values the r2 of each output"))

    _losses = REGRESSION_LOSSES
    _score_kind = Score.SCORE_R2

    def __init__(self, *, strategy="projected_relabel", projection="gaussian", n_projections=1,
                 loss="squared_error", learning_rate=0.1, n_estimators=300, max_leaf_nodes=32,
                 max_depth=None, min_samples_leaf=1, max_features=None, subsample=1.0,
                 leaf_estimation="auto", l2_regularization=1.0, missing_targets="error",
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=10, tol=1e-4,
                 split_search="auto", max_bins=255, n_jobs=None, warm_start=False,
                 random_state=None):
        self.strategy = strategy
        self.projection = projection
        self.n_projections = n_projections
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.subsample = subsample
        self.leaf_estimation = leaf_estimation
        self.l2_regularization = l2_regularization
        self.missing_targets = missing_targets
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.random_state = random_state

    def predict(self, X):
        """Predicted outputs, shape (n_samples, n_outputs) ((n_samples,) if fitted on 1-D Y);
        a DataFrame after ``set_output(predict="pandas")`` (engine/estimators/frames.py)."""
        return self._wrap_output(self._shape_output(self._raw_predict(X)), X)

    def staged_predict(self, X):
        """Predictions after each boosting step (a generator; the last equals predict)."""
        for F in self._staged_raw_predict(X):
            yield self._shape_output(F)

    def score(self, X, y, sample_weight=None):
        """macro-r2 (eq. 26 of paper 002): the mean of the per-output r2."""
        from sklearn.metrics import r2_score
        return r2_score(y, self.predict(X), sample_weight=sample_weight,
                        multioutput="uniform_average")


class MultiLabelBoostingClassifier(MultiLabelMixin, ClassifierMixin, BoostingBase):
    __doc__ = ("""Gradient boosting for multi-label classification (paper 002, eq. 8).

    Each output takes any two labels (numbers, booleans, strings) or one
    (engine/estimators/labels.py); its positive label (the larger class) is
    +1 and the other -1. The logistic loss sum_j log(1 + exp(-2 y_j f_j))
    models P(positive_j | x) = 1 / (1 + exp(-2 f_j)); its constant model is
    0.5 log(n+ / n-) per label (the paper's Table 1 omits the 1/2, but this
    is the minimiser). With ``loss="squared_error"`` the -1/+1 labels are
    regressed and the probability is (f + 1) / 2 clipped to [0, 1].

    ``classes_`` is a list of per-output class arrays (one array for a 1-D
    fit); ``predict`` returns the original labels (the positive class where
    ``decision_function`` > 0); ``predict_proba`` follows scikit-learn's
    multi-output convention (a list of (n_samples, n_classes_j) arrays, one
    (n_samples, 2) array for a 1-D fit; an output with a single class gets a
    column of ones, as in RandomForestClassifier); ``decision_function`` is
    the (n_samples, n_labels) score matrix the papers rank labels by (LRAP).
""" + BOOSTING_DOC % dict(losses='{"logistic", "squared_error"}',
                       score=("minus the mean over labels of each label's mean held-out loss "
                              "(higher is better)")))

    _losses = CLASSIFICATION_LOSSES
    _score_kind = Score.SCORE_LOSS

    def __init__(self, *, strategy="projected_relabel", projection="gaussian", n_projections=1,
                 loss="logistic", learning_rate=0.1, n_estimators=300, max_leaf_nodes=32,
                 max_depth=None, min_samples_leaf=1, max_features=None, subsample=1.0,
                 leaf_estimation="auto", l2_regularization=1.0, missing_targets="error",
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=10, tol=1e-4,
                 split_search="auto", max_bins=255, n_jobs=None, warm_start=False,
                 random_state=None):
        self.strategy = strategy
        self.projection = projection
        self.n_projections = n_projections
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.subsample = subsample
        self.leaf_estimation = leaf_estimation
        self.l2_regularization = l2_regularization
        self.missing_targets = missing_targets
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.split_search = split_search
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.random_state = random_state

    def _loss_targets(self, Y):
        return 2.0 * Y - 1.0

    def _probability(self, F):
        if self.loss == "logistic":
            return 0.5 * (1.0 + np.tanh(F))      # 1 / (1 + exp(-2F)) without overflow
        return np.clip(0.5 * (F + 1.0), 0.0, 1.0)

    def decision_function(self, X):
        """Raw scores f(x), (n_samples, n_labels) ((n_samples,) for a 1-D fit); > 0: positive class.

        The scores to rank labels by: ``label_ranking_average_precision_score(Y,
        clf.decision_function(X))`` (P(positive) = 1 / (1 + exp(-2 f)) for the logistic
        loss ranks the labels of a sample the same way)."""
        return self._wrap_output(self._shape_output(self._raw_predict(X)), X)

    def predict_proba(self, X):
        """Class probabilities in scikit-learn's multi-output format (see the class docstring)."""
        return self._format_proba(self._probability(self._raw_predict(X)))

    def predict(self, X):
        """Labels: each output's positive class where the raw score is > 0, else the other."""
        return self._wrap_output(self._labels(self._raw_predict(X)), X)

    def staged_decision_function(self, X):
        for F in self._staged_raw_predict(X):
            yield self._shape_output(F)

    def staged_predict_proba(self, X):
        for F in self._staged_raw_predict(X):
            yield self._format_proba(self._probability(F))

    def staged_predict(self, X):
        for F in self._staged_raw_predict(X):
            yield self._labels(F)
