"""The boosting estimators' shared docstring: their defaults (and why), parameters and attributes.

One text for :class:`~engine.estimators.boosting.MultiOutputBoostingRegressor` and
:class:`~engine.estimators.boosting.MultiLabelBoostingClassifier` (``%(losses)s`` and
``%(score)s`` are filled per estimator), kept apart from the fitting code it documents.
"""

from engine.estimators.frames import NAMES_DOC

BOOSTING_DOC = """
    Defaults
    --------
    The defaults serve a practitioner's first fit and were chosen by
    measurement (``python -m engine.bench --defaults``; one thread,
    ``random_state=0``, Mulan's train/test splits, test LRAP or macro-r2),
    as scikit-learn chose HistGradientBoosting's. The papers' teaching
    setting (gbmort, stumps, mean leaves, 100 steps) is one call away:
    ``engine.make_estimator("gbmort")`` and every paper name set their
    algorithm's hyper-parameters explicitly.

    ====================  ====================  ==========================================
    parameter             default               why
    ====================  ====================  ==========================================
    strategy              "projected_relabel"   one tree per step on a projected
                                                gradient, leaves per output (Alg. 4): the
                                                cost of a tree does not grow with d
    projection            "gaussian"            the dense projection keeps every output
                                                in every step's split targets
    n_projections         1                     q = 1: the cheapest tree; with Newton
                                                leaves every output still gets its value
    max_leaf_nodes        32                    31 leaves in HistGradientBoosting, 32 in
                                                the study: stumps underfit every set
    leaf_estimation       "auto"                Newton (second-order) leaves, no line
                                                search; the papers' mean leaves where
                                                Newton does not apply
    l2_regularization     1.0                   XGBoost's reg_lambda
    learning_rate         0.1                   HistGradientBoosting's and XGBoost's
    n_estimators          300                   a ceiling; 300 beat 100 on every large
                                                set and matched 1000 on most small ones
    early_stopping        "auto"                on above 10 000 training rows
    n_iter_no_change      10                    as HistGradientBoosting
    validation_fraction   0.1                   as HistGradientBoosting
    tol                   1e-4                  as HistGradientBoosting
    ====================  ====================  ==========================================

    Measured with these settings (early stopping off), test score at
    100 / 300 / 1000 steps: bibtex LRAP 0.597 / 0.619 / 0.623, corel5k
    0.323 / 0.333 / 0.334, delicious 0.386 / 0.401 / 0.409, scm20d
    macro-r2 0.805 / 0.865 / 0.889. The papers' teaching setting scored
    0.386 (bibtex), 0.253 (corel5k), 0.283 (delicious) and 0.492 (scm20d);
    XGBoost's defaults (``tree_method="hist"``) 0.586, 0.310, 0.387 and
    0.863, on the same splits (engine/bench/RESULTS.md). Early stopping watches the held-out loss, which levels while LRAP
    still rises, and takes rows a small set needs (emotions: LRAP 0.805 with
    it, 0.827 without; andro macro-r2 0.28 against 0.67; oes97 0.63 against
    0.70): it pays only on large sets (delicious, 12 920 rows: 0.387 at 119
    steps in a fifth of the 300-step time), hence "auto". On the 20 other
    shipped sets the defaults are within 0.005 of the papers' setting or
    better on 15 (andro 0.67 against 0.57, rf1 0.98 against 0.86, medical
    0.89 against 0.84); they lose on cal500 and flags (by 0.02), on oes97
    and wq (by about 0.005), and on sf1 and sf2 (solar-flare counts, 161 and 533 training rows,
    nearly unpredictable) they fit noise: macro-r2 -0.31 and -0.24 against
    0.07 and 0.08 (``early_stopping=True`` gives -0.10 and -0.01). A larger
    ``min_samples_leaf`` did not help overall (20: andro -0.12, oes97 0.50).
    With ``strategy="projected"`` or ``loss="absolute_error"`` the
    default "auto" leaves resolve to the papers' mean leaves (``leaf_estimation_``).

    Parameters
    ----------
    strategy : {"single_target", "multi_output", "projected", "projected_relabel"}, \
default "projected_relabel"
        st-gbrt, gbmort (Alg. 2), gbrt-rpo (Alg. 3), gbrt-relabel-rpo (Alg. 4).
    projection : {"subsample", "gaussian", "achlioptas", "sparse"}, default "gaussian"
        Random projection scheme of the projected strategies.
    n_projections : int, default 1
        q, rows of each projection (1 for "projected"). Named as a scikit-learn
        parameter is (a count, ``n_*``); the experiments and the app call it q.
    loss : %(losses)s
    learning_rate : float in (0, 1], default 0.1
    n_estimators : int, default 300
        Boosting steps (trees per output for single target); with early
        stopping a ceiling.
    max_leaf_nodes : int or None, default 32
        Leaves of each best-first tree (2 = stump).
    max_depth, min_samples_leaf, max_features :
        Tree limits and feature randomisation, as in scikit-learn.
    subsample : float in (0, 1]
        Fraction of rows drawn without replacement for each tree.
    leaf_estimation : {"auto", "mean", "newton"}, default "auto"
        "auto": "newton" where it applies, else "mean" (Algorithm 3,
        ``strategy="projected"``, and the absolute loss); the value used is
        ``leaf_estimation_``. Every strategy, projection and loss thus fits
        with the other parameters at their defaults.
        "mean": the papers' leaves (mean gradient of the leaf's samples, or
        the shared projected mean for "projected") and the per-output line
        search rho_j (eqs. 14, 20, 23). "newton" (an extension beyond paper
        002, after paper 004's BOOMER label-wise heads and SketchBoost,
        Iosipoi and Vakhrushev, NeurIPS 2022): the tree is grown on the same
        split targets (all outputs for multi_output, the projected gradient
        for projected_relabel, one output for single_target), then each leaf
        holds per output j the regularised Newton step
        ``-sum_i w_i g_ij / (sum_i w_i h_ij + l2_regularization)`` over its
        in-bag samples (g, h: first and second derivatives of the loss in
        f_ij; square loss h = 1, logistic h = 4 s (1 - s) with
        s = 1 / (1 + exp(2 y f)); with per-output weights w_i is W_ij), and
        rho = 1 (no line search; ``rho_`` is all ones). With the square loss
        and ``l2_regularization=0`` these are the mean leaves of
        multi_output. Refused for "projected" (a per-output leaf is
        projected_relabel) and for the absolute loss (no second derivative).
        A leaf whose denominator is 0 (l2_regularization=0 and saturated
        probabilities) holds 0.
    l2_regularization : float >= 0, default 1.0
        lambda of the Newton leaves (XGBoost's default reg_lambda); unused
        with leaf_estimation="mean".
    missing_targets : {"error", "ignore"}
        "ignore": a NaN entry of Y is a missing target, fitted as a zero
        weight on that entry (see engine/estimators/targets.py).
    early_stopping : {"auto", True, False}, default "auto"
        Stop when the held-out score of ``eval_score_`` stalls, as scikit-learn's
        HistGradientBoosting: "auto" is on when the training set has more than
        10 000 rows. The held-out set is ``eval_set`` when given, else
        ``validation_fraction`` of the training rows. When it stops, the model
        is cut back to its best step (``best_iteration_``); see
        engine/estimators/early_stopping.py.
    validation_fraction : float in (0, 1), default 0.1
    n_iter_no_change : int >= 1 or None, default 10
        Stop after a step whose held-out score does not beat one of the
        previous ``n_iter_no_change`` by more than ``tol`` (used only when
        early stopping is on). None: never stop early (what None meant
        before ``early_stopping``): "auto" stays off, and
        ``early_stopping=True`` with None is refused (ValueError).
    tol : float >= 0, default 1e-4
    split_search : {"auto", "exact", "hist"}
        Exact thresholds, histogram bins, or by size (hist from
        ``growers.AUTO_HIST_MIN_SAMPLES`` samples on); see engine.estimators.growers.
    max_bins : int in [2, 255]
        Bins per feature of the histogram search.
    n_jobs : int or None
        OpenMP threads for histograms and split search (None = 1, -1 = OpenMP's
        default). The model does not depend on it.
    warm_start : bool
        Keep the fitted steps and add ``n_estimators - n_steps_`` more.
    random_state : int, RandomState or None

    Attributes
    ----------
    trees_ : TreeStore
        All trees, in fitting order (step m of single target holds trees m*d .. m*d+d-1).
    init_ : ndarray (d,)
        The constant model rho_0.
    rho_ : ndarray (n_steps, d)
        Per-output step weights found by line search (ones with Newton leaves).
    projections_ : ndarray (n_steps, q, d) or None
    train_score_ : ndarray (n_steps,)
        Training loss after each step: the weighted mean over samples of the
        loss summed over outputs (with missing targets or per-output weights:
        the sum over outputs of each output's weighted mean loss).
    fit_times_ : ndarray (n_steps,)
        Cumulative fitting seconds after each step, measured inside the loop
        (scoring the held-out set and the callback's own time are left out).
    n_estimators_ : int
        Steps kept: fewer than n_estimators when the callback stopped (the
        steps done) or early stopping stopped (best_iteration_ + 1).
    n_steps_run_ : int
        Steps fitted by the last ``fit``, counting those early stopping then
        cut off (the step at which the rule stopped); n_steps_ otherwise.
    leaf_estimation_ : {"mean", "newton"}
        The leaves the last ``fit`` used (``leaf_estimation`` with "auto"
        resolved).
    early_stopping_ : bool
        Whether early stopping was on in the last ``fit`` (``early_stopping``
        resolved: "auto" on its number of training rows).
    eval_loss_, eval_score_ : ndarray (n_steps,)
        With ``eval_set`` (or early stopping's held-out rows): held-out loss and
        score after each step; the score is %(score)s.
    eval_score_per_output_ : ndarray (n_steps, d)
        The per-output scores eval_score_ averages.
    best_iteration_ : int
        argmax of eval_score_ (0-based: the best model has best_iteration_ + 1
        steps, the steps an early-stopped model keeps).
    n_outputs_, n_steps_, n_features_in_, feature_importances_
""" + NAMES_DOC
