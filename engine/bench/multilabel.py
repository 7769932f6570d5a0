"""Time to accuracy on many outputs, next to XGBoost: ``python -m engine.bench --multilabel``.

On bibtex, corel5k and delicious (Mulan's standard train/test split, X in
CSR form, test LRAP; delicious is the papers' own wide set, 12920 training
rows and 983 labels, and costs the most: XGBoost's reference fit alone takes
minutes there) and on scm20d (regression, 16 outputs standardized, the paper's
train/test sizes drawn as in the real-data study's first split, test
macro-r2), every fit on one thread, in one run:

* **the engine**: each strategy of ``STRATEGIES`` with both losses (multi-label:
  :class:`MultiLabelBoostingClassifier`'s logistic loss and
  :class:`MultiOutputBoostingRegressor`'s square loss on the 0/1 labels;
  scm20d: square and absolute loss), both leaf estimations (the paper's
  line-searched "mean" leaves and second-order "newton" leaves; a combination
  the estimator refuses is listed as such), trees of 8 and 32 leaves, learning
  rates 0.1 and 0.3, at most ``STEP_CAPS[lr]`` steps, and a fit stops once
  its training time passes ``FIT_BUDGET_SECONDS`` (printed as such); the
  other parameters are the papers' settings ``make_estimator`` gives the method's name
  (``split_search="auto"``, one projection for gbrt-relabel-rpo, ``l2_regularization=1.0``,
  no early stopping).
  The sub-sampled projections are left out: they would add half again to a
  run that already takes minutes per data set;
* **XGBoost** (hist, one thread) with ``multi_strategy`` "one_output_per_tree"
  and "multi_output_tree", its defaults (depth 6, learning rate 0.3, 100
  rounds) and depth 3; all but the reference (defaults, one_output_per_tree)
  stop at ``FIT_BUDGET_SECONDS`` like the engine;
* **LightGBM**, one model per label with its defaults (31 leaves, learning
  rate 0.1, 100 rounds), and **scikit-learn's HistGradientBoosting** per label
  likewise. Per-label models cost d models; those fitted on a sample of the
  labels (always scikit-learn on the multi-label sets, LightGBM when a probe
  says all labels would exceed ``PER_LABEL_BUDGET_SECONDS``) have their time
  scaled by d / (labels fitted) and their score computed over the sampled
  labels only: such a score is not comparable to the others (LRAP over fewer
  labels is a different quantity), so it gets no time to reach.

Every curve is the test score after each step against the **fit seconds**:
the wall-clock time from the start of ``fit`` to the end of that step, setup
(binning, presorting, DMatrix / Dataset construction) included, scoring not
(the scores come afterwards from staged predictions: ``staged_predict`` /
``staged_decision_function`` for the engine and scikit-learn, per-round tree
contributions for XGBoost and LightGBM). The engine's step times are its own
loop's clock (``fit_times_``) plus the setup measured around ``fit``;
XGBoost's and LightGBM's come from a per-round callback; scikit-learn's
HistGradientBoosting has no such hook, so its fit time is spread evenly over
its iterations.

Then **defaults against defaults** (issue 34): each system's default fit as
a practitioner gets it, :func:`engine.bench.defaults.defaults_rows` (the
estimator with only ``random_state`` set, XGBoost hist, CatBoost
``MultiLogloss`` / ``MultiRMSE`` on CPU, LightGBM one model per label; one
thread), its fit seconds and its final test score, a peer stopped at
``DEFAULTS_BUDGET_SECONDS`` (CatBoost's 1000 default iterations take hours on
bibtex), and the target line of ``--defaults`` against XGBoost and CatBoost.

On the multi-label sets, the extreme-classification peers too (issue 46,
:mod:`engine.bench.extreme`: napkinXC's PLT and Omikuji, their defaults, one
thread): every curve's final test P@1 and P@5 and its fit seconds to reach
the best peer's, then the table of ``--extreme`` (P@1, P@3, P@5, nDCG@5,
LRAP and cross-entropy of every peer and of the engine's default fit, in
process CPU seconds, and its time to each peer's P@1 and P@5).

For each system it prints ms per step, the best test score, and the seconds
to first reach L - ``TOLERANCE``, where L is XGBoost-with-defaults'
(one_output_per_tree, depth 6, learning rate 0.3) best test score on that data
set. The targets: the fastest engine setting reaches L - ``TOLERANCE`` in at
most ``TARGET_RATIO`` of XGBoost-with-defaults' time to reach it, on every
data set; a missed target is printed as missed, with the numbers. With
``--out DIR`` it writes the curves as one standalone HTML page
(``multilabel.html``, plotly, no network needed to view it).
"""
import sys
import time
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from engine.bench import defaults, extreme
from engine.bench.problems import MISSING, Problem, StagedLRAP, describe, load_problem  # noqa: F401
from engine.estimators.registry import make_estimator
from engine.names import LEAF_ESTIMATIONS

STRATEGIES = ("st-gbrt", "gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-gaussian")
DATASETS = ("bibtex", "corel5k", "delicious", "scm20d")
LEAVES = (8, 32)
LEARNING_RATES = (0.1, 0.3)
STEP_CAPS = {0.1: 300, 0.3: 100}
LOSSES = {"multilabel": ("logistic", "squared_error"), "regression": ("squared_error", "absolute_error")}
FIT_BUDGET_SECONDS = 10.0
PER_LABEL_BUDGET_SECONDS = 60.0
SKLEARN_LABEL_SAMPLE = 2
PEER_ROUNDS = 100
XGBOOST_DEPTHS = (6, 3)
XGBOOST_STRATEGIES = ("one_output_per_tree", "multi_output_tree")
TOLERANCE = 0.005
TARGET_RATIO = 0.5
DEFAULTS_BUDGET_SECONDS = 600.0
QUICK_DEFAULTS_BUDGET_SECONDS = 20.0
REFERENCE = ("XGBoost", "one_output_per_tree", 6)
STRATEGY_COLOURS = {"st-gbrt": "#1f77b4", "gbmort": "#2ca02c", "gbrt-rpo-gaussian": "#ff7f0e",
                    "gbrt-relabel-rpo-gaussian": "#d62728"}


# ---------------------------------------------------------------- curves

@dataclass
class Curve:
    """Test score after each step of one fit, against the fit seconds to that step."""

    system: str
    loss: str
    leaves: str             # how leaf values are set: "mean" (line search), "newton"
    tree: str
    learning_rate: float
    seconds: np.ndarray
    scores: np.ndarray
    notes: list = field(default_factory=list)
    comparable: bool = True     # False: the score is over a sample of the labels
    precision: np.ndarray = None    # multi-label: (steps, 2) test P@1 and P@5 after each step

    def seconds_to_precision(self, k, level):
        """Fit seconds when test P@k (k 1 or 5) first reaches ``level`` (None: never, or not comparable)."""
        if not self.comparable or self.precision is None:
            return None
        reached = np.flatnonzero(self.precision[:, 0 if k == 1 else 1] >= level)
        return float(self.seconds[reached[0]]) if reached.size else None

    @property
    def key(self):
        return (self.system, self.loss, self.leaves, self.tree, self.learning_rate)

    @property
    def steps(self):
        return len(self.scores)

    @property
    def ms_per_step(self):
        return 1000.0 * self.seconds[-1] / self.steps

    @property
    def best(self):
        return float(np.max(self.scores))

    @property
    def best_step(self):
        return int(np.argmax(self.scores)) + 1

    def seconds_to(self, level):
        """Fit seconds when the score first reaches ``level`` (None if never, or not comparable)."""
        if not self.comparable:
            return None
        reached = np.flatnonzero(self.scores >= level)
        return float(self.seconds[reached[0]]) if reached.size else None


def staged_scores(problem, predictions):
    """(test scores, (steps, 2) P@1 and P@5 or None for regression) of staged predictions."""
    scores, precision = [], []
    for F in predictions:
        scores.append(problem.score(F))
        if problem.task == "multilabel":
            precision.append(problem.precision(F))
    return np.array(scores), (np.array(precision) if precision else None)


def _is_engine(curve):
    return curve.system.startswith("engine ")


def engine_curve(problem, name, loss, leaf_estimation, leaves, learning_rate, steps,
                 budget=FIT_BUDGET_SECONDS):
    """One engine fit: seconds from ``fit_times_`` (plus the setup before the loop)."""
    classifier = loss == "logistic"
    task = "multilabel" if classifier else "regression"
    params = dict(loss=loss, n_estimators=steps, max_leaf_nodes=leaves, learning_rate=learning_rate,
                  n_jobs=1, random_state=0)
    if leaf_estimation is not None:
        params["leaf_estimation"] = leaf_estimation
    model = make_estimator(name, task=task, **params)
    start = time.perf_counter()
    model.fit(problem.X, problem.Y, callback=lambda n, est: est.fit_times_[-1] >= budget)
    wall = time.perf_counter() - start
    setup = max(wall - model.fit_times_[-1], 0.0)
    staged = model.staged_decision_function if classifier else model.staged_predict
    scores, precision = staged_scores(problem, staged(problem.X_test))
    notes = []
    if model.n_steps_ < steps:
        notes.append(f"stopped at {model.n_steps_} steps: training time passed {budget:g} s")
    return Curve(f"engine {name}", loss, leaf_estimation or "mean", f"{leaves} leaves", learning_rate,
                 setup + model.fit_times_, scores, notes, precision=precision)


def xgboost_curve(problem, strategy, depth, learning_rate=0.3, rounds=PEER_ROUNDS, budget=None):
    """XGBoost (hist, one thread); None when it is not installed."""
    try:
        import xgboost
    except ImportError:
        return None
    stamps = []

    class Clock(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            stamps.append(time.perf_counter())
            return budget is not None and stamps[-1] - start >= budget

    multilabel = problem.task == "multilabel"
    cls = xgboost.XGBClassifier if multilabel else xgboost.XGBRegressor
    model = cls(n_estimators=rounds, max_depth=depth, learning_rate=learning_rate, tree_method="hist",
                multi_strategy=strategy, n_jobs=1, callbacks=[Clock()])
    Y = problem.Y.astype(np.int32) if multilabel else problem.Y
    start = time.perf_counter()
    model.fit(problem.X, Y)
    seconds = np.array(stamps) - start
    booster = model.get_booster()
    n_rounds = booster.num_boosted_rounds()
    # Each round's trees alone (base margin 0), summed: the raw scores after every round,
    # in one pass over the trees instead of one prediction per prefix.
    n_test, d = problem.Y_test.shape
    plain = xgboost.DMatrix(problem.X_test)
    zero = xgboost.DMatrix(problem.X_test, base_margin=np.zeros((n_test, d)))
    F = (booster.predict(plain, output_margin=True, iteration_range=(0, 1))
         - booster.predict(zero, output_margin=True, iteration_range=(0, 1))).reshape(n_test, d)
    def rounds_of_margins():
        nonlocal F
        for k in range(n_rounds):
            F = F + booster.predict(zero, output_margin=True, iteration_range=(k, k + 1)).reshape(n_test, d)
            yield F
    scores, precision = staged_scores(problem, rounds_of_margins())
    full = booster.predict(plain, output_margin=True).reshape(n_test, d)
    if not np.allclose(F, full, rtol=1e-4, atol=1e-4):      # float32 sums in another order
        raise RuntimeError("XGBoost's per-round margins do not add up to its prediction")
    loss = "logistic" if multilabel else "squared_error"
    notes = [] if n_rounds == rounds else [f"stopped at {n_rounds} rounds: {budget:g} s passed"]
    return Curve(f"XGBoost {strategy}", loss, "newton", f"depth {depth}", learning_rate,
                 seconds[:n_rounds], scores, notes, precision=precision)


def _constant_label_score(y):
    """The raw score of a label seen with one class only (the engine's clipped log-odds)."""
    return 15.0 if y.mean() > 0.5 else -15.0


def lightgbm_label(problem, j, learning_rate=0.1, rounds=PEER_ROUNDS):
    """(cumulative seconds per round, test raw scores per round (rounds, n_test)) of one label."""
    import lightgbm
    y = problem.Y[:, j]
    multilabel = problem.task == "multilabel"
    if multilabel and np.unique(y).size < 2:
        return np.zeros(rounds), np.full((rounds, problem.X_test.shape[0]), _constant_label_score(y))
    stamps = []
    cls = lightgbm.LGBMClassifier if multilabel else lightgbm.LGBMRegressor
    model = cls(n_estimators=rounds, learning_rate=learning_rate, n_jobs=1, verbose=-1)
    start = time.perf_counter()
    model.fit(problem.X, y.astype(np.int32) if multilabel else y,
              callbacks=[lambda env: stamps.append(time.perf_counter())])
    return np.array(stamps) - start, _lightgbm_staged_raw(model.booster_, problem.X_test)


def _lightgbm_staged_raw(booster, X_test):
    """Raw scores after every round, (rounds, n_test): each tree's leaf values at the
    test rows' leaves, summed. (One predict per round costs about 40 ms on bibtex's
    CSR test set, the fit itself about 10 ms per tree.)"""
    leaf = booster.predict(X_test, pred_leaf=True).reshape(X_test.shape[0], -1)
    contributions = np.empty((leaf.shape[1], X_test.shape[0]))
    for t, tree in enumerate(booster.dump_model()["tree_info"]):
        values = {}
        stack = [tree["tree_structure"]]
        while stack:
            node = stack.pop()
            if "leaf_index" in node:
                values[node["leaf_index"]] = node["leaf_value"]
            elif "left_child" in node:
                stack += [node["left_child"], node["right_child"]]
            else:                                   # a tree of one leaf
                values[0] = node["leaf_value"]
        table = np.zeros(max(values) + 1)
        table[list(values)] = list(values.values())
        contributions[t] = table[leaf[:, t]]
    staged = np.cumsum(contributions, axis=0)
    if not np.allclose(staged[-1], booster.predict(X_test, raw_score=True), rtol=1e-9, atol=1e-9):
        raise RuntimeError("LightGBM's leaf values do not add up to its raw prediction")
    return staged


def sklearn_label(problem, j, learning_rate=0.1, rounds=PEER_ROUNDS):
    """Like :func:`lightgbm_label` for scikit-learn's HistGradientBoosting (dense X)."""
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits
    y = problem.Y[:, j]
    multilabel = problem.task == "multilabel"
    if multilabel and np.unique(y).size < 2:
        return np.zeros(rounds), np.full((rounds, problem.X_test.shape[0]), _constant_label_score(y))
    cls = HistGradientBoostingClassifier if multilabel else HistGradientBoostingRegressor
    model = cls(max_iter=rounds, learning_rate=learning_rate, early_stopping=False)
    X = problem.X.toarray() if sparse.issparse(problem.X) else problem.X
    X_test = problem.X_test.toarray() if sparse.issparse(problem.X_test) else problem.X_test
    with threadpool_limits(1):
        start = time.perf_counter()
        model.fit(X, y)
        wall = time.perf_counter() - start
        staged = model.staged_decision_function if multilabel else model.staged_predict
        raw = np.array(list(staged(X_test)))
    return wall * np.arange(1, model.n_iter_ + 1) / model.n_iter_, raw


def _pad(values, rounds):
    """values (k, ...) with k <= rounds, its last entry repeated up to ``rounds`` entries."""
    values = np.asarray(values)
    return np.concatenate([values, np.repeat(values[-1:], rounds - len(values), axis=0)])


def per_label_curve(problem, system, fit_label, labels, learning_rate=0.1, rounds=PEER_ROUNDS):
    """One model per label over ``labels`` (all, or a sample: time scaled to all, score over the sample)."""
    d = problem.Y.shape[1]
    seconds, raw = 0.0, []
    for j in labels:
        s, r = fit_label(problem, j, learning_rate, rounds)
        # LightGBM stops early on a label no split helps any more (a rare label): its
        # model, and so its scores and its time, stay as they are for the remaining rounds
        seconds = seconds + _pad(s, rounds)
        raw.append(_pad(r, rounds))
    raw = np.stack(raw, axis=2)                 # (rounds, n_test, labels)
    sub = Problem(problem.name, problem.task, problem.X, problem.Y[:, labels], problem.X_test,
                  problem.Y_test[:, labels], problem.split)
    scores, precision = staged_scores(sub, raw)
    notes, comparable = [], len(labels) == d
    if not comparable:
        seconds = seconds * d / len(labels)
        notes.append(f"timed on {len(labels)} of {d} labels, x {d / len(labels):.1f}; "
                     f"score over those {len(labels)} labels only (not comparable)")
    loss = "logistic" if problem.task == "multilabel" else "squared_error"
    return Curve(system, loss, "newton", "31 leaves", learning_rate, seconds, scores, notes, comparable,
                 precision)


# ---------------------------------------------------------------- one data set

@dataclass
class Plan:
    """What one run fits: the full grid, or the --quick slice."""

    learning_rates: tuple = LEARNING_RATES
    step_caps: dict = field(default_factory=lambda: dict(STEP_CAPS))
    leaves: tuple = LEAVES
    strategies: tuple = STRATEGIES
    peer_rounds: int = PEER_ROUNDS
    budget: float = FIT_BUDGET_SECONDS
    per_label_budget: float = PER_LABEL_BUDGET_SECONDS
    sklearn_labels: int = SKLEARN_LABEL_SAMPLE
    max_rows: int = None
    max_test_rows: int = None
    max_outputs: int = None
    defaults_budget: float = DEFAULTS_BUDGET_SECONDS    # None: no "defaults against defaults"

    @classmethod
    def quick(cls):
        """A slice that runs in seconds: 300 training rows, 200 test rows, 20 labels, a few steps
        (the default fits of "defaults against defaults" keep their own steps, peers stopped at 20 s)."""
        return cls(learning_rates=(0.3,), step_caps={0.3: 5}, peer_rounds=5, sklearn_labels=2,
                   max_rows=300, max_test_rows=200, max_outputs=20,
                   defaults_budget=QUICK_DEFAULTS_BUDGET_SECONDS)

    def caps_text(self):
        caps = ", ".join(f"{self.step_caps[lr]} at learning rate {lr:g}" for lr in self.learning_rates)
        return (f"engine: at most {caps}, a fit stops once its training time passes {self.budget:g} s; "
                f"peers: {self.peer_rounds} rounds")


def _seconds_text(curve):
    """A curve's fit seconds, saying when they were extrapolated from a sample of the labels (a
    model per label, timed on a few and scaled to all): not a measured time."""
    text = f"{curve.seconds[-1]:.1f} s"
    return text if curve.comparable else f"{text} (extrapolated: {curve.notes[0].split(';')[0]})"


def _say(progress, text):
    if progress is not None:
        print(text, file=progress, flush=True)


def _label_sample(d, m, seed=0):
    return np.sort(np.random.default_rng(seed).choice(d, size=min(m, d), replace=False))


def peer_curves(problem, plan, progress=None):
    """XGBoost's four settings (the reference first), LightGBM and scikit-learn per label.

    Returns (curves, missing peers).
    """
    curves, missing = [], []
    for strategy in XGBOOST_STRATEGIES:
        for depth in XGBOOST_DEPTHS:
            reference = (strategy, depth) == REFERENCE[1:]
            curve = xgboost_curve(problem, strategy, depth, 0.3, plan.peer_rounds,
                                  budget=None if reference else plan.budget)
            if curve is None:
                missing.append("XGBoost")
                break
            curves.append(curve)
            _say(progress, f"  {problem.name}: XGBoost {strategy} depth {depth}: {curve.seconds[-1]:.1f} s")
        if "XGBoost" in missing:
            break
    d = problem.Y.shape[1]
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        missing.append("LightGBM")
    else:
        probe, _ = lightgbm_label(problem, int(np.argmax(problem.Y.sum(axis=0))), 0.1, plan.peer_rounds)
        per_label = max(probe[-1], 1e-6)
        m = d if per_label * d <= plan.per_label_budget else max(2, int(plan.per_label_budget / per_label))
        curves.append(per_label_curve(problem, "LightGBM, a model per label", lightgbm_label,
                                      _label_sample(d, m), 0.1, plan.peer_rounds))
        _say(progress, f"  {problem.name}: LightGBM: {_seconds_text(curves[-1])}")
    m = d if problem.task == "regression" else plan.sklearn_labels
    name = "Classifier" if problem.task == "multilabel" else "Regressor"
    curves.append(per_label_curve(problem, f"sklearn HistGradientBoosting{name}, a model per label",
                                  sklearn_label, _label_sample(d, m), 0.1, plan.peer_rounds))
    _say(progress, f"  {problem.name}: scikit-learn: {_seconds_text(curves[-1])}")
    return curves, missing


def engine_settings(problem, plan, leaf_estimations=None):
    """(strategy, loss, leaf estimation or None, leaves, learning rate, steps) of every engine fit."""
    if leaf_estimations is None:
        leaf_estimations = LEAF_ESTIMATIONS
    return [(name, loss, leaf, leaves, lr, plan.step_caps[lr])
            for name in plan.strategies for loss in LOSSES[problem.task] for leaf in leaf_estimations
            for leaves in plan.leaves for lr in plan.learning_rates]


def target(curves, level):
    """The fastest engine curve to reach ``level`` and XGBoost-with-defaults' time, as a dict."""
    reference = next(c for c in curves if _is_reference(c))
    xgb = reference.seconds_to(level)
    reached = [(c.seconds_to(level), i) for i, c in enumerate(curves)
               if _is_engine(c) and c.seconds_to(level) is not None]
    if not reached:
        best = max((c for c in curves if _is_engine(c)), key=lambda c: c.best)
        return dict(met=False, xgboost_seconds=xgb, engine_seconds=None, fastest=None, best_engine=best)
    seconds, i = min(reached)
    return dict(met=seconds <= TARGET_RATIO * xgb, xgboost_seconds=xgb, engine_seconds=seconds,
                fastest=curves[i], best_engine=None)


def _is_reference(curve):
    return (curve.system == f"XGBoost {REFERENCE[1]}" and curve.tree == f"depth {REFERENCE[2]}"
            and curve.learning_rate == 0.3)


def _setting(curve):
    return f"{curve.loss}, {curve.leaves} leaves, {curve.tree}, lr {curve.learning_rate:g}"


def target_text(result):
    t = result["target"]
    if t is None:
        return "target: not checked (XGBoost is not installed)"
    level = result["level"]
    head = (f"target (the fastest engine setting reaches L - {TOLERANCE} = {level:.4f} in at most "
            f"{TARGET_RATIO:g} x XGBoost-with-defaults' {t['xgboost_seconds']:.2f} s): ")
    if t["fastest"] is None:
        b = t["best_engine"]
        return (head + f"MISSED: no engine setting reaches {level:.4f} (the best: {b.best:.4f}, "
                f"{b.system}, {_setting(b)})")
    f = t["fastest"]
    ratio = t["engine_seconds"] / t["xgboost_seconds"]
    return (head + f"{'met' if t['met'] else 'MISSED'}: {f.system} ({_setting(f)}) reaches it in "
            f"{t['engine_seconds']:.2f} s, {ratio:.2f} x XGBoost's time")


def _fmt_seconds(s):
    return "—" if s is None else f"{s:.2f}"


def print_table(problem, result, out):
    curves, level = result["curves"], result["level"]
    print(f"\n## {describe(problem)}", file=out)
    if level is not None:
        print(f"L = {level + TOLERANCE:.4f}: XGBoost-with-defaults' best (one_output_per_tree, depth 6, "
              f"learning rate 0.3); time to reach = fit seconds when the score first reaches "
              f"L - {TOLERANCE} = {level:.4f}", file=out)
    print(f"| system | loss | leaf values | tree | lr | steps | ms per step | best {problem.metric} (step) | "
          f"s to reach L - {TOLERANCE} | notes |", file=out)
    print("|---|---|---|---|---:|---:|---:|---:|---:|---|", file=out)
    for c in curves:
        reach = None if level is None else c.seconds_to(level)
        print(f"| {c.system} | {c.loss} | {c.leaves} | {c.tree} | {c.learning_rate:g} | {c.steps} | "
              f"{c.ms_per_step:.1f}{'' if c.comparable else ' (extrapolated)'} | {c.best:.4f} ({c.best_step}) | {_fmt_seconds(reach)} | "
              f"{'; '.join(c.notes)} |", file=out)
    for peer in result["missing"]:
        print(f"\n{peer}: {MISSING}", file=out)
    for (system, loss, leaf, tree, lr), message in result.get("refused", []):
        print(f"\n{system} ({loss}, {leaf} leaves, {tree}, lr {lr:g}): refused by the estimator: {message}",
              file=out)
    print(f"\n{target_text(result)}", file=out)
    if result.get("extreme") is not None:
        extreme.print_curves_precision(problem, curves, result["extreme"]["rows"][:-1], out)
        extreme.print_table(problem, result["extreme"], out)
    if result.get("defaults") is not None:
        rows, verdicts = result["defaults"]
        print(f"\n### {problem.name}: defaults against defaults (each system's default fit, one "
              f"thread, a peer stopped at {result['defaults_budget']:g} s)\n", file=out)
        print(defaults.defaults_table(rows), file=out)
        defaults.print_verdicts(verdicts, out)


def run_problem(problem, plan, progress=None, leaf_estimations=None):
    """Every curve of one data set, (``plan.defaults_budget`` not None) the default fits and, for
    many labels, the extreme-classification peers (:mod:`engine.bench.extreme`); returns
    dict(curves, level, target, missing, refused, defaults, defaults_budget, extreme)."""
    curves, missing = peer_curves(problem, plan, progress)
    refused = []
    for name, loss, leaf, leaves, lr, steps in engine_settings(problem, plan, leaf_estimations):
        try:
            curves.append(engine_curve(problem, name, loss, leaf, leaves, lr, steps, plan.budget))
        except ValueError as exc:       # a combination the estimator refuses (its message says why)
            refused.append(((f"engine {name}", loss, leaf, f"{leaves} leaves", lr), str(exc)))
            continue
        _say(progress, f"  {problem.name}: {curves[-1].system} {_setting(curves[-1])}: "
                       f"{curves[-1].seconds[-1]:.1f} s, best {curves[-1].best:.4f}")
    reference = [c for c in curves if _is_reference(c)]
    level = reference[0].best - TOLERANCE if reference else None
    default_fits = None
    if plan.defaults_budget is not None:
        default_fits = defaults.defaults_rows(problem, progress=progress, budget=plan.defaults_budget)
    xmc = extreme.run_problem(problem, progress) if problem.task == "multilabel" else None
    return dict(curves=curves, level=level, missing=missing, refused=refused,
                target=None if level is None else target(curves, level),
                defaults=default_fits, defaults_budget=plan.defaults_budget, extreme=xmc)


# ---------------------------------------------------------------- figure

def figure(problem, result):
    """Plotly figure: test score against fit seconds, one line per curve."""
    import plotly.graph_objects as go
    fig = go.Figure()
    first_loss = LOSSES[problem.task][0]
    for c in result["curves"]:
        if _is_engine(c):       # a colour per strategy; solid: the first loss, dotted: the other
            line = dict(width=1.5, color=STRATEGY_COLOURS.get(c.system[len("engine "):], "grey"),
                        dash="solid" if c.loss == first_loss else "dot")
        else:
            line = dict(width=3 if _is_reference(c) else 2, dash="dash",
                        color="black" if c.system.startswith("XGBoost") else "#8c564b")
            if c.system.startswith("XGBoost") and not _is_reference(c):
                line["color"] = "#7f7f7f"
        fig.add_trace(go.Scatter(
            x=c.seconds, y=c.scores, mode="lines", name=f"{c.system}: {_setting(c)}",
            legendgroup=c.system, line=line, visible=True if c.comparable else "legendonly"))
    if result["level"] is not None:
        fig.add_hline(y=result["level"], line_dash="dot",
                      annotation_text=f"L - {TOLERANCE} = {result['level']:.4f} (L: XGBoost's defaults)")
    fig.update_layout(title=describe(problem), xaxis_title="fit seconds (one thread, log scale)",
                      yaxis_title=problem.metric, xaxis_type="log", height=700)
    return fig


def write_html(figures, path):
    """One standalone page (plotly.js inlined, so it opens offline) with every figure."""
    parts = [fig.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, fig in enumerate(figures)]
    path.write_text("<html><head><meta charset='utf-8'><title>engine.bench --multilabel</title></head><body>"
                    + "".join(parts) + "</body></html>", encoding="utf-8")


# ---------------------------------------------------------------- the run

def run(datasets=DATASETS, quick=False, out=sys.stdout, html_dir=None, progress=sys.stderr,
        leaf_estimations=None):
    """Print every data set's table and target; returns {data set: run_problem's dict}."""
    import os
    from pathlib import Path
    plan = Plan.quick() if quick else Plan()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# python -m engine.bench --multilabel{' --quick' if quick else ''} (one thread; load average "
          f"at start {load:.2f})", file=out)
    print(f"{plan.caps_text()}. Fit seconds: wall-clock from the start of fit to the end of each step, "
          "setup included, scoring not.", file=out)
    results, figures = {}, []
    for name in datasets:
        problem = load_problem(name, plan.max_rows, plan.max_test_rows, plan.max_outputs)
        _say(progress, describe(problem))
        results[name] = run_problem(problem, plan, progress, leaf_estimations)
        print_table(problem, results[name], out)
        if html_dir is not None:        # after every data set: a stopped run keeps the finished ones' figures
            figures.append(figure(problem, results[name]))
            folder = Path(html_dir)
            folder.mkdir(parents=True, exist_ok=True)
            write_html(figures, folder / "multilabel.html")
    if html_dir is not None:
        print(f"\nfigure: {Path(html_dir) / 'multilabel.html'}", file=out)
    return results
