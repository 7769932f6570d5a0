"""The estimators' defaults, chosen by measurement: ``python -m engine.bench --defaults``.

A practitioner's first fit uses the defaults, so the defaults are what a quick comparison
measures. Two tables, every fit on one thread, in one run:

* **the study**: each setting of :data:`CANDIDATES` (the papers' teaching setting, gbmort and
  gbrt-relabel-rpo with Newton leaves at a few tree sizes and learning rates, with and without
  early stopping), fitted with ``random_state=0`` on every shipped multi-label and regression
  data set (Mulan's standard split where there is one, else the real-data study's first split;
  regression outputs standardized, as in :func:`engine.bench.multilabel.load_problem`): its test
  score (LRAP, macro-r2) and its fit seconds. Per setting it sums up the mean gap to each data
  set's best score, the data sets it is within ``TOLERANCE`` of the best on, and the seconds.
  The row of the estimators' current defaults is marked, so the docstrings' claims can be read
  off it;
* **defaults against defaults**: on bibtex, corel5k, delicious and scm20d, each system's default
  fit (only the seed and one thread set): :class:`MultiLabelBoostingClassifier` /
  :class:`MultiOutputBoostingRegressor`, XGBoost (``XGBClassifier`` / ``XGBRegressor``,
  ``tree_method="hist"``), CatBoost (``MultiLogloss`` / ``MultiRMSE``) and LightGBM (one model per
  label): fit seconds and the final model's test score. The target: the engine reaches the
  peer's score minus ``TOLERANCE`` in at most ``TARGET_RATIO`` of the peer's fit time, against
  XGBoost and against CatBoost; a miss is printed with its numbers.

A peer fit that passes ``PEER_BUDGET_SECONDS`` is stopped there (its score is then the stopped
model's, and its time a lower bound; the row says so).
"""
import sys
import time

import numpy as np

from engine.bench.problems import MISSING, load_problem
from engine.datasets import list_datasets
from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

TOLERANCE = 0.005
TARGET_RATIO = 0.5
PEER_BUDGET_SECONDS = 1800.0
TARGET_DATASETS = ("bibtex", "corel5k", "delicious", "scm20d")
PEERS = ("XGBoost", "CatBoost")

# Every setting of the study, written out in full (nothing left to the estimators' defaults,
# which this study chooses). "papers" is paper 002's teaching setting, the defaults before.
_FIXED = dict(projection="gaussian", n_projections=1, max_depth=None, min_samples_leaf=1,
              max_features=None, subsample=1.0, l2_regularization=1.0, validation_fraction=0.1,
              tol=1e-4, split_search="auto", max_bins=255)


def _setting(strategy, leaves, leaf_estimation, learning_rate, n_estimators, early_stopping,
             **extra):
    return dict(_FIXED, strategy=strategy, max_leaf_nodes=leaves, leaf_estimation=leaf_estimation,
                learning_rate=learning_rate, n_estimators=n_estimators,
                early_stopping=early_stopping, n_iter_no_change=10, **extra)


# "auto" early stopping: on for more than AUTO_EARLY_STOPPING_ROWS training rows (scikit-learn's
# HistGradientBoosting rule), with n_estimators the ceiling.
CANDIDATES = {
    "papers: gbmort, stumps, mean leaves, lr 0.1, 100 steps":
        _setting("multi_output", 2, "mean", 0.1, 100, False, projection="subsample"),
    "gbmort, 32 leaves, Newton, lr 0.1, 300 steps, early stopping auto":
        _setting("multi_output", 32, "newton", 0.1, 300, "auto"),
    "relabel-rpo gaussian q=1, 8 leaves, Newton, lr 0.1, 300 steps, early stopping auto":
        _setting("projected_relabel", 8, "newton", 0.1, 300, "auto"),
    "relabel-rpo gaussian q=1, 32 leaves, Newton, lr 0.1, 300 steps, early stopping auto":
        _setting("projected_relabel", 32, "newton", 0.1, 300, "auto"),
    "relabel-rpo gaussian q=1, 32 leaves, Newton, lr 0.3, 300 steps, early stopping auto":
        _setting("projected_relabel", 32, "newton", 0.3, 300, "auto"),
    "relabel-rpo gaussian q=4, 32 leaves, Newton, lr 0.1, 300 steps, early stopping auto":
        _setting("projected_relabel", 32, "newton", 0.1, 300, "auto", n_projections=4),
    "relabel-rpo gaussian q=1, 32 leaves, Newton, lr 0.1, 100 steps, early stopping auto":
        _setting("projected_relabel", 32, "newton", 0.1, 100, "auto"),
    "relabel-rpo gaussian q=1, 32 leaves, Newton, lr 0.1, at most 1000 steps, early stopping on":
        _setting("projected_relabel", 32, "newton", 0.1, 1000, True),
}


def estimator_class(task):
    return MultiLabelBoostingClassifier if task == "multilabel" else MultiOutputBoostingRegressor


def resolved_defaults(task):
    """The estimator's default parameters with "auto" leaves resolved (the setting it fits)."""
    model = estimator_class(task)()
    return {**model.get_params(), "leaf_estimation": model._leaf_estimation()}


def current_defaults(task):
    """The parameters of :data:`CANDIDATES` as the estimator's defaults set them."""
    params = resolved_defaults(task)
    keys = set(next(iter(CANDIDATES.values())))
    return {k: params[k] for k in keys}


def is_current_default(setting, task):
    """Whether ``setting`` (a dict of parameters, not empty) is the estimator's defaults for them."""
    params = resolved_defaults(task)
    return bool(setting) and all(k in params and params[k] == v for k, v in setting.items())


def _raw_test_prediction(model, problem):
    if problem.task == "multilabel":
        return model.decision_function(problem.X_test)
    return model.predict(problem.X_test)


def engine_fit(problem, params=None):
    """(test score, fit seconds, steps) of one engine fit, one thread, seed 0 (``params`` None:
    the estimator's defaults)."""
    model = estimator_class(problem.task)(**(params or {}))
    model.set_params(random_state=0, n_jobs=1)
    start = time.perf_counter()
    model.fit(problem.X, problem.Y)
    seconds = time.perf_counter() - start
    return problem.score(_raw_test_prediction(model, problem)), seconds, int(model.n_steps_)


# ---------------------------------------------------------------- peers with their defaults

def _stopwatch(budget):
    """A per-iteration clock that asks a peer to stop once ``budget`` seconds have passed."""
    clock = {"start": time.perf_counter(), "stopped": False}

    def over():
        clock["stopped"] = time.perf_counter() - clock["start"] >= budget
        return clock["stopped"]

    return clock, over


def xgboost_default(problem, budget=PEER_BUDGET_SECONDS):
    """XGBoost's default fit: (score, seconds, rounds, stopped) or None when not installed."""
    try:
        import xgboost
    except ImportError:
        return None
    clock, over = _stopwatch(budget)

    class Budget(xgboost.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            return over()

    multilabel = problem.task == "multilabel"
    cls = xgboost.XGBClassifier if multilabel else xgboost.XGBRegressor
    model = cls(tree_method="hist", n_jobs=1, random_state=0, callbacks=[Budget()])
    clock["start"] = time.perf_counter()
    model.fit(problem.X, problem.Y.astype(np.int32) if multilabel else problem.Y)
    seconds = time.perf_counter() - clock["start"]
    raw = model.predict(problem.X_test, output_margin=True)
    rounds = model.get_booster().num_boosted_rounds()
    return problem.score(np.asarray(raw).reshape(problem.Y_test.shape)), seconds, rounds, clock["stopped"]


def catboost_plan(problem, catboost, **options):
    """CatBoost's default model for ``problem`` (``MultiLogloss`` / ``MultiRMSE``, one thread,
    seed 0, ``options`` added), the targets it fits, the test scores of the labels it leaves out
    (one class in the training rows: clipped log-odds) and the mask of those it fits."""
    multilabel = problem.task == "multilabel"
    raw = np.zeros(problem.Y_test.shape)
    fitted = np.ones(problem.Y.shape[1], dtype=bool)
    if multilabel:
        share = problem.Y.mean(axis=0)
        fitted = (share > 0) & (share < 1)
        raw[:, ~fitted] = np.where(share[~fitted] > 0.5, 15.0, -15.0)
    cls = catboost.CatBoostClassifier if multilabel else catboost.CatBoostRegressor
    model = cls(loss_function="MultiLogloss" if multilabel else "MultiRMSE", thread_count=1,
                random_seed=0, verbose=False, **options)
    Y = problem.Y[:, fitted]
    return model, (Y.astype(np.int32) if multilabel else Y), raw, fitted


def catboost_default(problem, budget=PEER_BUDGET_SECONDS):
    """CatBoost's default fit (``MultiLogloss`` / ``MultiRMSE``, CPU): as :func:`xgboost_default`.

    MultiLogloss refuses a label with one class in the training rows ("All train targets are
    equal": 3 of corel5k's 374 labels): such labels are left out of the fit and get the engine's
    clipped log-odds (as in :func:`lightgbm_default`), what a practitioner would do."""
    try:
        import catboost
    except ImportError:
        return None
    clock, over = _stopwatch(budget)

    class Budget:
        def after_iteration(self, info):
            return not over()

    model, Y, raw, fitted = catboost_plan(problem, catboost, allow_writing_files=False)
    clock["start"] = time.perf_counter()
    model.fit(problem.X, Y, callbacks=[Budget()])
    seconds = time.perf_counter() - clock["start"]
    raw[:, fitted] = np.asarray(model.predict(problem.X_test, prediction_type="RawFormulaVal")
                                ).reshape(len(raw), -1)
    return problem.score(raw), seconds, int(model.tree_count_), clock["stopped"]


def lightgbm_default(problem, budget=PEER_BUDGET_SECONDS):
    """LightGBM with its defaults, one model per label: as :func:`xgboost_default` (rounds: the
    labels fitted; past the budget the remaining labels get their training mean's score)."""
    try:
        import lightgbm
    except ImportError:
        return None
    multilabel = problem.task == "multilabel"
    n_test, d = problem.Y_test.shape
    raw = np.zeros((n_test, d))
    start = time.perf_counter()
    fitted = 0
    for j in range(d):
        y = problem.Y[:, j]
        if time.perf_counter() - start >= budget:
            break
        fitted += 1
        if multilabel and np.unique(y).size < 2:
            raw[:, j] = 15.0 if y.mean() > 0.5 else -15.0
            continue
        cls = lightgbm.LGBMClassifier if multilabel else lightgbm.LGBMRegressor
        model = cls(n_jobs=1, random_state=0, verbose=-1)
        model.fit(problem.X, y.astype(np.int32) if multilabel else y)
        raw[:, j] = model.predict(problem.X_test, raw_score=True)
    seconds = time.perf_counter() - start
    for j in range(fitted, d):
        raw[:, j] = problem.Y[:, j].mean()
    return problem.score(raw), seconds, fitted, fitted < d


PEER_FITS = {"XGBoost": xgboost_default, "CatBoost": catboost_default,
             "LightGBM, a model per label": lightgbm_default}


# ---------------------------------------------------------------- the two tables

def study(datasets, candidates=CANDIDATES, progress=None, max_rows=None):
    """{(candidate, data set): (score, seconds, steps)} over the data sets."""
    results = {}
    for name in datasets:
        problem = load_problem(name, max_rows=max_rows, max_test_rows=max_rows)
        for label, params in candidates.items():
            results[label, name] = engine_fit(problem, params)
            _say(progress, f"  {name}: {label}: score {results[label, name][0]:.4f} in "
                           f"{results[label, name][1]:.2f} s")
    return results


def study_table(results, datasets, tasks):
    """Markdown: per candidate, its score and seconds on every data set, then the summary."""
    candidates = list(dict.fromkeys(label for label, _ in results))
    best = {name: max(results[label, name][0] for label in candidates) for name in datasets}
    head = "| setting | " + " | ".join(datasets) + " | mean gap to best | within " \
        f"{TOLERANCE:g} of best | total seconds |"
    lines = [head, "|---|" + "---:|" * (len(datasets) + 3)]
    for label in candidates:
        cells = [f"{results[label, n][0]:.3f} ({results[label, n][1]:.1f} s)" for n in datasets]
        gaps = [best[n] - results[label, n][0] for n in datasets]
        close = sum(g <= TOLERANCE for g in gaps)
        seconds = sum(results[label, n][1] for n in datasets)
        marks = [task for task in sorted(set(tasks.values()))
                 if label in CANDIDATES and is_current_default(CANDIDATES[label], task)]
        name = label + (f" **(the {', '.join(marks)} default)**" if marks else "")
        lines.append(f"| {name} | " + " | ".join(cells) +
                     f" | {np.mean(gaps):.4f} | {close} of {len(datasets)} | {seconds:.1f} |")
    return "\n".join(lines)


def defaults_against_defaults(datasets=TARGET_DATASETS, peers=PEER_FITS, progress=None,
                              budget=PEER_BUDGET_SECONDS, max_rows=None, max_outputs=None):
    """Rows (data set, system, score, seconds, rounds, note) and the target verdicts."""
    rows, verdicts = [], []
    for name in datasets:
        problem = load_problem(name, max_rows=max_rows, max_test_rows=max_rows,
                               max_outputs=max_outputs)
        more_rows, more_verdicts = defaults_rows(problem, peers, progress, budget)
        rows += more_rows
        verdicts += more_verdicts
    return rows, verdicts


def defaults_rows(problem, peers=PEER_FITS, progress=None, budget=PEER_BUDGET_SECONDS):
    """:func:`defaults_against_defaults` on one loaded problem (``--multilabel`` prints it per
    data set)."""
    name, rows, verdicts = problem.name, [], []
    score, seconds, steps = engine_fit(problem)
    rows.append((name, "engine, the estimator's defaults", score, seconds, steps, ""))
    _say(progress, f"  {name}: engine defaults: {score:.4f} in {seconds:.2f} s")
    for peer, fit in peers.items():
        result = fit(problem, budget)
        if result is None:
            rows.append((name, peer, None, None, None, MISSING))
            continue
        p_score, p_seconds, p_rounds, stopped = result
        note = f"stopped after {budget:g} s" if stopped else ""
        rows.append((name, peer, p_score, p_seconds, p_rounds, note))
        _say(progress, f"  {name}: {peer}: {p_score:.4f} in {p_seconds:.2f} s")
        if peer in PEERS:
            verdicts.append(_verdict(name, peer, score, seconds, p_score, p_seconds, stopped))
    return rows, verdicts


def _verdict(name, peer, score, seconds, p_score, p_seconds, stopped):
    """(name, peer, met: True / False / None, text). A peer stopped at the budget leaves the
    target undecided (None): its full default fit takes longer still, but its score is the
    stopped model's, not the default fit's."""
    text = (f"{name} against {peer}: engine {score:.4f} in {seconds:.2f} s, {peer} {p_score:.4f} "
            f"in {p_seconds:.2f} s (time ratio {seconds / p_seconds:.2f}): ")
    if stopped:
        return name, peer, None, text + (f"UNDECIDED ({peer} was stopped at the budget: its default "
                                         "fit takes longer, and its score is the stopped model's)")
    met = score >= p_score - TOLERANCE and seconds <= TARGET_RATIO * p_seconds
    return name, peer, met, text + ("met" if met else "MISSED")


def defaults_table(rows):
    lines = ["| data | system | test score | fit seconds | steps / rounds | note |",
             "|---|---|---:|---:|---:|---|"]
    for name, system, score, seconds, steps, note in rows:
        if score is None:
            lines.append(f"| {name} | {system} | — | — | — | {note} |")
        else:
            lines.append(f"| {name} | {system} | {score:.4f} | {seconds:.2f} | {steps} | {note} |")
    return "\n".join(lines)


def _say(progress, text):
    if progress is not None:
        print(text, file=progress, flush=True)


def shipped_sets():
    """(names, {name: task}) of every shipped multi-label and regression data set."""
    tasks = {row["name"]: row["task"] for row in list_datasets()}
    return sorted(tasks, key=lambda n: (tasks[n], n)), tasks


# The --quick slice: the first rows and (for defaults against defaults) the most frequent labels,
# two candidates (the papers' setting and the current defaults) and a short budget per peer.
QUICK_ROWS = 300
QUICK_OUTPUTS = 20
QUICK_PEER_BUDGET_SECONDS = 20.0


def quick_candidates(task="multilabel"):
    """The papers' setting and the row of the current defaults (what --quick fits)."""
    first = next(iter(CANDIDATES))
    picked = {first: CANDIDATES[first]}
    picked.update({label: params for label, params in CANDIDATES.items()
                   if is_current_default(params, task)})
    return picked


def run(out=None, quick=False, study_only=False, against_only=False, progress="stderr"):
    """Both tables, printed as markdown; exit status 1 when a target is missed.

    ``quick``: a smoke run on slices (:data:`QUICK_ROWS` rows, :data:`QUICK_OUTPUTS` labels
    against the peers), the two candidates of :func:`quick_candidates`, three data sets in the
    study and bibtex against the peers; its numbers say nothing about the defaults. ``out`` None
    prints to sys.stdout; ``progress`` (a line per fit) goes to sys.stderr unless None.
    """
    out = sys.stdout if out is None else out
    progress = sys.stderr if progress == "stderr" else progress
    names, tasks = shipped_sets()
    max_rows, max_outputs = (QUICK_ROWS, QUICK_OUTPUTS) if quick else (None, None)
    status = 0
    if not against_only:
        candidates = quick_candidates() if quick else CANDIDATES
        sets = names[:2] + names[-1:] if quick else names
        results = study(sets, candidates, progress=progress, max_rows=max_rows)
        print(f"The study: test score (fit seconds), one thread, seed 0, on {len(sets)} shipped "
              "data sets" + (f" (quick: the first {max_rows} rows)" if quick else "") + "\n", file=out)
        print(study_table(results, sets, tasks), file=out)
    if not study_only:
        sets = TARGET_DATASETS[:1] if quick else TARGET_DATASETS
        rows, verdicts = defaults_against_defaults(
            sets, progress=progress, max_rows=max_rows, max_outputs=max_outputs,
            budget=QUICK_PEER_BUDGET_SECONDS if quick else PEER_BUDGET_SECONDS)
        print("\nDefaults against defaults: each system's default fit, one thread"
              + (f" (quick: {max_rows} rows, {max_outputs} labels)" if quick else "") + "\n", file=out)
        print(defaults_table(rows), file=out)
        status |= print_verdicts(verdicts, out)
    return status


def print_verdicts(verdicts, out):
    """The target line and a line per verdict; returns 1 when a target is missed, else 0."""
    print(f"\nTarget: the engine's defaults reach the peer's score - {TOLERANCE:g} in at most "
          f"{TARGET_RATIO:g} x its fit time (undecided where the peer was stopped at the budget)", file=out)
    for _, _, met, text in verdicts:
        print(f"- {text}", file=out)
    return int(any(met is False for _, _, met, _ in verdicts))
