"""Learning curves: Figure 1 (convergence) and Figures 2-4 (projection schemes) of paper 002.

Both experiments take plain arguments, validate all of them before doing any
work (a ``ValueError`` naming the argument), and return a
:class:`ConvergenceResult` that holds everything needed to draw it, with
``to_frame()`` (a long pandas DataFrame, one row per estimator and step, for
CSV) and ``to_json()`` (and ``from_json``). Same arguments and seed, same
numbers (fit times aside). The data come from
:func:`engine.experiments.problems.get_problem`.

* :func:`run_convergence`: Figure 1, test (and train) score after every
  boosting step, against steps, trees per output and fit time.
* :func:`run_projection_schemes`: Figures 2-4, gbrt-rpo (or relabel) with
  each random projection scheme.

Long runs: ``progress(fraction_done, message)`` is called between chunks of
boosting steps (about every 50 ms) and ``stop`` (a ``threading.Event`` or any
object with ``is_set()``) is checked there; once it is set the experiment
returns promptly with what is done (``complete=False``).

How the numbers are measured (regression). Each estimator is fitted twice
with the same seed (the fits are identical, only what is measured differs):
once with the test set as ``eval_set`` (test macro-r2 after every step,
computed inside the compiled loop, and the fit times, which leave the scoring
out) and once with the training set as ``eval_set`` (train macro-r2 after
every step). Multi-label: one fit without an evaluation set (fit times), then LRAP
of ``staged_decision_function`` at about 60 log-spaced steps (always
including the first and the last), NaN at the other steps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np
import pandas as pd

from engine.estimators.artificial import ArtificialGBRT
from engine.estimators.registry import BOOSTING_CONFIGS, ESTIMATOR_NAMES, make_estimator
from engine.experiments.problems import Problem, get_problem
from engine.experiments.settings import BoostingSettings
from engine.experiments.runner import JsonResult, Runner, check_callbacks, from_list, partial_timer, to_list
from engine.experiments.timing import resolve_timing, retime, warm_up
from engine.methods import BOOSTING
from engine.metrics import ranking_average_precision
from engine.names import (
    PROJECTED_STRATEGIES,
    ALIASES,
    ARTIFICIAL,
    FRIEDMAN_PROBLEMS,
    LEAF_ESTIMATIONS,
    LOSSES,
    METRICS,
    PROJECTIONS,
    boosting_name,
)
from engine.projections import check_projection
from engine.validation import check_choice, check_in_interval
from engine.validation import check_int as _int

__all__ = ["EXPERIMENT_ESTIMATORS", "Curve", "ConvergenceResult", "run_convergence", "run_projection_schemes",
           "check_convergence_args", "model_for", "fitted_curve", "BoostingSettings"]

EXPERIMENT_ESTIMATORS = ESTIMATOR_NAMES + tuple(ALIASES) + (ARTIFICIAL,)
N_EVAL_POINTS = 60
PARTIAL_SECONDS = 0.5          # a live run's partial result (copies of the curves) at most this often
# Fraction of an estimator's progress given to each measuring pass (regression).
_PASS_WEIGHTS = (0.6, 0.4)


@dataclass
class Curve:
    """One estimator's learning curve; every array has one entry per boosting step.

    step : 1 .. n_steps (boosting iterations)
    n_trees : trees fitted so far (st-gbrt fits one tree per output and step)
    trees_per_output : n_trees / n_outputs, the x axis that puts all methods
        on the same footing (st-gbrt: one step = one tree per output)
    fit_time : cumulative fitting seconds (measured without an evaluation set)
    train_score, test_score : macro-r2 (regression) or LRAP (multi-label);
        NaN at steps that were not evaluated
    train_loss : the training loss the estimator minimises (``train_score_``)
    timed_fits : how many identical fits ``fit_time`` is the median of (1: a single fit;
        see :mod:`engine.experiments.timing`)
    """

    name: str
    label: str
    step: np.ndarray
    n_trees: np.ndarray
    trees_per_output: np.ndarray
    fit_time: np.ndarray
    train_score: np.ndarray
    test_score: np.ndarray
    train_loss: np.ndarray
    timed_fits: int = 1
    time_range: Optional[tuple] = None   # (lowest, highest) total fit seconds over the timed fits

    ARRAYS = ("step", "n_trees", "trees_per_output", "fit_time", "train_score", "test_score", "train_loss")

    @property
    def n_steps(self) -> int:
        return int(self.step.size)

    @property
    def best_index(self) -> Optional[int]:
        """Index of the best test score (None if nothing was evaluated)."""
        finite = np.isfinite(self.test_score)
        if not finite.any():
            return None
        return int(np.nanargmax(np.where(finite, self.test_score, -np.inf)))

    @property
    def best_score(self) -> float:
        i = self.best_index
        return float("nan") if i is None else float(self.test_score[i])

    @property
    def best_step(self) -> Optional[int]:
        i = self.best_index
        return None if i is None else int(self.step[i])

    @property
    def still_rising(self) -> bool:
        """Whether the best test score is at the last step: the run ended before this curve's
        plateau, so its best score is not yet its best (the chart, the takeaway and the
        challenges all say so from here)."""
        b = self.best_index
        return b is not None and self.n_steps > 1 and b >= self.n_steps - 1

    def steps_to_reach(self, score, x="trees_per_output"):
        """First value of ``x`` at which the test score reaches ``score`` (None if never)."""
        hit = np.flatnonzero(np.nan_to_num(self.test_score, nan=-np.inf) >= score)
        return None if hit.size == 0 else float(getattr(self, x)[hit[0]])

    def score_at(self, seconds):
        """The best test score so far at ``seconds`` of fitting, linear in fit time between the
        scored steps around it (NaN before the first scored step; the best score after the last).

        Why interpolate: on a wide data set only a few steps are scored (8 on delicious by
        default), so "the best scored step before a time budget" reads the model whose own
        total time sets the budget at its last step, and every other model at a scored step up
        to 2.4 times earlier. Figure 5's "q = 1 converges faster at a fixed budget" then holds
        by construction of the grid. Interpolating reads every model at the same time; on a
        rising concave curve it is a lower bound, by less the denser the grid."""
        ok = np.isfinite(self.test_score) & np.isfinite(self.fit_time)
        if not ok.any():
            return float("nan")
        t, best = self.fit_time[ok], np.maximum.accumulate(self.test_score[ok])
        if seconds < t[0]:
            return float("nan")
        return float(np.interp(seconds, t, best))

    def to_dict(self):
        return {"name": self.name, "label": self.label, **{k: to_list(getattr(self, k)) for k in self.ARRAYS},
                "timed_fits": int(self.timed_fits),
                "time_range": None if self.time_range is None else [float(v) for v in self.time_range]}

    @classmethod
    def from_dict(cls, d):
        arrays = {k: from_list(d[k]) for k in cls.ARRAYS}
        for k in ("step", "n_trees"):
            arrays[k] = arrays[k].astype(np.int64)
        rng = d.get("time_range")
        return cls(name=d["name"], label=d["label"], **arrays, timed_fits=int(d.get("timed_fits", 1)),
                   time_range=None if rng is None else tuple(rng))

    def truncated(self, n):
        return Curve(self.name, self.label, **{k: getattr(self, k)[:n] for k in self.ARRAYS},
                     timed_fits=self.timed_fits)   # time_range: of the whole fits, not of a prefix


@dataclass
class ConvergenceResult(JsonResult):
    """Learning curves of several estimators on one problem (Figures 1-4).

    experiment : "convergence" or "schemes"
    dataset, task ("regression" / "multilabel"), metric ("macro-r2" / "LRAP")
    n_outputs : outputs of the problem (including any noisy outputs)
    curves : dict name -> :class:`Curve`, in the order the estimators were given
    params : the settings the experiment ran with (plain JSON values)
    complete : False when ``stop`` interrupted the run; every curve present is
        then consistent (same length in all arrays) but may be shorter than
        ``n_steps`` or have NaN where a measuring pass was skipped
    notes : sentences that say how the numbers were measured
    """

    experiment: str
    dataset: str
    task: str
    metric: str
    n_outputs: int
    curves: dict
    params: dict
    complete: bool = True
    notes: list = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        frames = []
        for c in self.curves.values():
            df = pd.DataFrame({k: getattr(c, k) for k in Curve.ARRAYS})
            df.insert(0, "label", c.label)
            df.insert(0, "estimator", c.name)
            frames.append(df)
        if not frames:
            return pd.DataFrame(columns=["estimator", "label", *Curve.ARRAYS])
        df = pd.concat(frames, ignore_index=True)
        df.insert(0, "dataset", self.dataset)
        return df

    def summary_frame(self, reach=None) -> pd.DataFrame:
        """One row per estimator: best test score, its step, final score, total fit time."""
        rows = []
        for c in self.curves.values():
            i = c.best_index
            row = {"estimator": c.name, "best_score": c.best_score, "best_step": c.best_step,
                   "best_trees_per_output": None if i is None else float(c.trees_per_output[i]),
                   "final_score": float(c.test_score[-1]) if c.n_steps else float("nan"),
                   "n_steps": c.n_steps, "fit_time": float(c.fit_time[-1]) if c.n_steps else float("nan")}
            if reach is not None:
                row[f"trees_per_output_to_{reach}"] = c.steps_to_reach(reach)
                row[f"seconds_to_{reach}"] = c.steps_to_reach(reach, x="fit_time")
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self):
        return {"experiment": self.experiment, "dataset": self.dataset, "task": self.task,
                "metric": self.metric, "n_outputs": self.n_outputs, "params": self.params,
                "complete": self.complete, "notes": list(self.notes),
                "curves": [c.to_dict() for c in self.curves.values()]}

    @classmethod
    def from_dict(cls, d):
        curves = {c["name"]: Curve.from_dict(c) for c in d["curves"]}
        return cls(experiment=d["experiment"], dataset=d["dataset"], task=d["task"], metric=d["metric"],
                   n_outputs=d["n_outputs"], curves=curves, params=d["params"],
                   complete=d["complete"], notes=d["notes"])


# --------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------


def check_model_args(task, n_outputs, n_steps, learning_rate, max_leaf_nodes, max_features, loss):
    """The model arguments of a learning-curve experiment (ValueError naming them)."""
    _int(n_steps, "n_steps", 1)
    check_in_interval(learning_rate, "learning_rate", 0.0, 1.0, low_open=True)
    if max_leaf_nodes is not None:
        _int(max_leaf_nodes, "max_leaf_nodes", 2)
    if loss is not None and loss not in LOSSES[task]:
        raise ValueError(f"loss must be None or one of {LOSSES[task]} for a {task} problem, got {loss!r}")
    # max_features: let the estimator check it (it knows the accepted forms).
    probe = make_estimator("gbmort", task=task, max_features=max_features)
    probe.check_params()


def check_estimators(estimators, dataset, task):
    """The estimators argument as a list of distinct known names (artificial-gbrt on Friedman1 only)."""
    if isinstance(estimators, str):
        estimators = [estimators]
    try:
        estimators = list(estimators)
    except TypeError:
        raise ValueError("estimators must be a list of estimator names") from None
    if not estimators:
        raise ValueError("estimators is empty: give at least one estimator name")
    for name in estimators:
        if name not in EXPERIMENT_ESTIMATORS:
            raise ValueError(f"estimators: unknown name {name!r}; valid names are {EXPERIMENT_ESTIMATORS}")
    if len(set(estimators)) != len(estimators):
        raise ValueError(f"estimators lists a name twice: {estimators}")
    if ARTIFICIAL in estimators and dataset not in FRIEDMAN_PROBLEMS:
        raise ValueError(f"estimators: {ARTIFICIAL} knows the output structure of the Friedman1 "
                         f"problems only ({', '.join(FRIEDMAN_PROBLEMS)}), not of {dataset!r}")
    return estimators


def check_eval_points(n_eval_points):
    """None (decided by the problem's size) or an integer >= 2."""
    return None if n_eval_points is None else _int(n_eval_points, "n_eval_points", 2)


def check_q(name, q, n_outputs):
    """q of a gbrt-relabel-rpo estimator against d (output sub-sampling needs q <= d)."""
    config = BOOSTING_CONFIGS[ALIASES.get(name, name)]
    if BOOSTING[config["strategy"]].takes_q:
        try:
            check_projection(config["projection"], q, n_outputs)
        except ValueError as exc:
            raise ValueError(f"n_projections: {exc}") from None


# --------------------------------------------------------------------------
# Measuring one estimator
# --------------------------------------------------------------------------


def macro_r2_from_sse(sse, sst):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
    return 1.0 - ratio.mean(axis=-1)


def _eval_points(n_steps, n_points=N_EVAL_POINTS):
    return np.unique(np.round(np.geomspace(1, n_steps, min(n_points, n_steps))).astype(int))


def _staged_lrap(est, X, Y, points, runner, at, width, message):
    """LRAP at the (1-based) steps in ``points``; NaN elsewhere. Stops early if asked."""
    out = np.full(est.n_steps_, np.nan)
    wanted = set(int(p) for p in points)
    last = int(points[-1]) if len(points) else 0
    for m, F in enumerate(est.staged_decision_function(X), start=1):
        if m in wanted:
            out[m - 1] = ranking_average_precision(np.asarray(Y) > 0, F)
            runner.report(at + width * m / max(last, 1), f"{message}: LRAP at step {m}")
            if runner.stopped():
                break
        if m >= last:
            break
    return out


def _copied_sse(est, X, Y, chunk=256):
    """Per-step SSE of each column of Y when one staged 1-D prediction is copied to all of them."""
    y2 = (Y ** 2).sum(axis=0)
    rows, buf = [], []
    for f in est.staged_predict(X):
        buf.append(f)
        if len(buf) == chunk:
            S = np.asarray(buf)
            rows.append(y2 - 2.0 * S @ Y + (S * S).sum(axis=1)[:, None])
            buf = []
    if buf:
        S = np.asarray(buf)
        rows.append(y2 - 2.0 * S @ Y + (S * S).sum(axis=1)[:, None])
    return np.vstack(rows) if rows else np.zeros((0, Y.shape[1]))


def _fit(est, X, Y, n, runner, at, width, message, eval_set=None, partial=None):
    est.set_params(n_estimators=n)
    est.fit(X, Y, eval_set=eval_set, callback=runner.fit_callback(at, message, width, planned=n, partial=partial))
    return est


def model_for(est_name, task, seed, model_kwargs, **extra):
    """The estimator the experiments fit for ``est_name``: :func:`engine.make_estimator` with the
    model arguments (``n_projections`` only where the strategy takes it), seeded with ``seed``."""
    kw = dict(model_kwargs)
    if not BOOSTING[BOOSTING_CONFIGS[ALIASES.get(est_name, est_name)]["strategy"]].takes_q:
        kw.pop("n_projections", None)
    return make_estimator(est_name, task=task, random_state=seed, **kw, **extra)


def fitted_curve(name, label, est, n_outputs, trees_per_step):
    """The :class:`Curve` of a regression fit with the test set as ``eval_set``, as far as it has
    grown (a copy: the fit may go on): its test score, fit times and training loss at every step,
    no train score (NaN). ``trees_per_step``: the outputs fitted for st-gbrt (a tree per output
    and step), else 1; ``n_outputs``: the problem's, for ``trees_per_output``."""
    k = int(est.n_steps_)
    n_trees = np.arange(1, k + 1, dtype=np.int64) * int(trees_per_step)
    train = np.full(k, np.nan)
    return Curve(name=name, label=label, step=np.arange(1, k + 1), n_trees=n_trees,
                 trees_per_output=n_trees / n_outputs, fit_time=np.asarray(est.fit_times_, dtype=float).copy(),
                 train_score=train, test_score=np.asarray(est.eval_score_, dtype=float).copy(),
                 train_loss=np.asarray(est.train_score_, dtype=float).copy())


def refit_function(name, problem, model_kwargs, n_steps, seed, runner, label):
    """A callable that fits ``measure``'s model again (same seed: the same model) and returns its
    cumulative ``fit_times_``, or None when a stop cut it short; None for artificial-gbrt."""
    if name == ARTIFICIAL:
        return None
    X_tr, Y_tr, _, _, task, _ = problem

    def refit():
        runner.report(runner.fraction * runner.n_units, f"{label}: timing, one more fit")
        est = model_for(name, task, seed, model_kwargs, n_estimators=n_steps)
        est.fit(X_tr, Y_tr, callback=lambda n_done, _: runner.stopped())
        return est.fit_times_ if est.n_steps_ == n_steps else None
    return refit


def measure(name, problem, model_kwargs, n_steps, seed, runner, unit, label, timing=None, *,
            train_curve=True, n_eval_points=N_EVAL_POINTS, growing=None, models=None):
    """Fit one estimator (all passes) and return its :class:`Curve` (maybe shortened by stop).

    The fits report progress as unit ``unit`` of ``runner`` (one unit per estimator).
    ``timing`` (a :class:`~engine.experiments.timing.Timing` or None): warm up before the
    timed fit (repeats of short fits come later, from :func:`refit_function`, once every
    model is measured; the artificial oracle is always fitted once).
    ``train_curve=False`` leaves the train score NaN (no second pass over the training set);
    ``n_eval_points``: the log-spaced steps at which LRAP is evaluated (multi-label).
    Regression models (artificial-gbrt aside): ``growing(curve)``, called after every compiled
    chunk of the test-curve fit with the curve so far, returns what goes to ``progress`` as
    ``partial=`` (None: nothing); ``models`` (a dict) receives that fit's estimator under
    ``name``, fitted with ``warm_start=True`` so it can be continued.
    """
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    d = Y_tr.shape[1]
    d0 = info["n_original_outputs"]
    msg = f"{label}"
    artificial = name == ARTIFICIAL
    structure = info["name"].split("-", 1)[1] if artificial else None

    def make(est_name, **extra):
        return model_for(est_name, task, seed, model_kwargs, **extra)

    if artificial and structure in ("chain", "group"):
        # One single-target model on the output the oracle knows is best, copied to the d0
        # real outputs; a purely noisy output is predicted by its training mean.
        kw = {k: v for k, v in model_kwargs.items() if k != "n_projections"}
        model = ArtificialGBRT(structure, d0, task=task, random_state=seed, n_estimators=n_steps, **kw)
        model.fit(X_tr, Y_tr, callback=runner.fit_callback(unit, f"{msg} (fit)", 0.5, planned=n_steps))
        est = model.inner_
        k = est.n_steps_
        fit_time, train_loss = est.fit_times_.copy(), est.train_score_.copy()
        scores = []
        for w, (X, Y) in zip((0.3, 0.2), ((X_te, Y_te), (X_tr, Y_tr) if train_curve else (None, None))):
            if runner.stopped() or X is None:
                scores.append(np.full(k, np.nan))
                continue
            sse = _copied_sse(est, X, Y[:, :d0])
            const = Y_tr[:, d0:].mean(axis=0)
            sse_noise = ((Y[:, d0:] - const) ** 2).sum(axis=0)
            sse = np.hstack([sse, np.tile(sse_noise, (k, 1))])
            scores.append(macro_r2_from_sse(sse, ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)))
            runner.report(unit + 0.5 + w, f"{msg}: scored")
        test, train = scores
        n_trees = np.arange(1, k + 1)
    else:
        est_name = "st-gbrt" if artificial else name
        single = artificial or BOOSTING[BOOSTING_CONFIGS[ALIASES.get(name, name)]["strategy"]].trees_per_step == "d"
        # artificial-gbrt on ind is st-gbrt on the real outputs (noisy ones: training mean).
        Ytr_fit, Yte_fit = (Y_tr[:, :d0], Y_te[:, :d0]) if artificial else (Y_tr, Y_te)
        d_fit = Ytr_fit.shape[1]
        kept = models is not None and task == "regression" and not artificial
        est = make(est_name, **({"warm_start": True} if kept else {}))
        if kept:
            models[name] = est
        if timing is not None:
            warm_up(lambda: make(est_name), X_tr, Ytr_fit, timing)
        if task == "regression":
            w1, w2 = _PASS_WEIGHTS if train_curve else (1.0, 0.0)
            partial = None if growing is None or artificial else (
                lambda e: growing(fitted_curve(name, label, e, d, d_fit if single else 1)))
            _fit(est, X_tr, Ytr_fit, n_steps, runner, unit, w1, f"{msg} (test curve)", eval_set=(X_te, Yte_fit),
                 partial=partial)
            k = est.n_steps_
            test, train_loss = est.eval_score_.copy(), est.train_score_.copy()
            fit_time, train = est.fit_times_.copy(), np.full(k, np.nan)
            if train_curve and not runner.stopped():
                tr = _fit(make(est_name), X_tr, Ytr_fit, k, runner, unit + w1, w2, f"{msg} (train curve)",
                          eval_set=(X_tr, Ytr_fit))
                train[: tr.n_steps_] = tr.eval_score_
            if artificial and d > d0:
                const = Y_tr[:, d0:].mean(axis=0)
                r2n = {}
                for key, Y in (("test", Y_te), ("train", Y_tr)):
                    sst = ((Y[:, d0:] - Y[:, d0:].mean(axis=0)) ** 2).sum(axis=0)
                    r2n[key] = macro_r2_from_sse(((Y[:, d0:] - const) ** 2).sum(axis=0), sst)
                test = (d0 * test + (d - d0) * r2n["test"]) / d
                train = (d0 * train + (d - d0) * r2n["train"]) / d
        else:
            _fit(est, X_tr, Ytr_fit, n_steps, runner, unit, 0.5, f"{msg} (fit)")
            k = est.n_steps_
            fit_time, train_loss = est.fit_times_.copy(), est.train_score_.copy()
            points = _eval_points(k, n_eval_points)
            test = train = np.full(k, np.nan)
            if not runner.stopped():
                test = _staged_lrap(est, X_te, Y_te, points, runner, unit + 0.5, 0.3, f"{msg} (test)")
            if train_curve and not runner.stopped():
                train = _staged_lrap(est, X_tr, Y_tr, points, runner, unit + 0.8, 0.2, f"{msg} (train)")
        n_trees = np.arange(1, k + 1) * (d_fit if single else 1)
    step = np.arange(1, k + 1)
    return Curve(name=name, label=label, step=step, n_trees=n_trees.astype(np.int64),
                 trees_per_output=n_trees / d, fit_time=np.asarray(fit_time, dtype=float),
                 train_score=np.asarray(train, dtype=float), test_score=np.asarray(test, dtype=float),
                 train_loss=np.asarray(train_loss, dtype=float))


def measuring_notes(task, n_steps, timing=None, *, train_curve=True, n_eval_points=N_EVAL_POINTS, live=False):
    """Sentences that say how :func:`measure` measured the curves."""
    timed = [timing.describe()] if timing is not None else []
    which = "Test and train" if train_curve else "Test (not train)"
    if task == "regression" and live:
        return ["Test macro-r2 after every step (eval_set inside the compiled loop, one fit per estimator); "
                "fit times exclude that scoring; train scores are not measured live."] + timed
    if task == "regression":
        return [f"{which} macro-r2 after every step (eval_set inside the compiled loop); fit "
                "times exclude that scoring."] + timed
    return [f"{which} LRAP evaluated with staged_decision_function at {len(_eval_points(n_steps, n_eval_points))} "
            "log-spaced steps (first and last included), NaN at the other steps; fit times from the same fit "
            "(no evaluation set)."] + timed


def auto_eval_points(n_test, n_outputs):
    """How many steps to score with LRAP when the caller leaves it to the problem's size.

    LRAP sorts every test row's d scores: on 3185 x 983 (the delicious-shaped set) one
    evaluation takes about 0.6 s, so 60 of them would cost more than the fits they describe.
    60 points up to 200 000 test cells (n_test x d), then fewer in proportion, at least 8.
    """
    cells = max(int(n_test) * int(n_outputs), 1)
    return int(min(N_EVAL_POINTS, max(8, round(N_EVAL_POINTS * 200_000 / cells))))


def _run_curves(experiment, dataset, names_labels, problem, model_kwargs, n_steps, seed, params,
                progress, stop, timing=None, train_curve=True, n_eval_points=N_EVAL_POINTS, live=False,
                models=None):
    X_tr, Y_tr, X_te, Y_te, task, info = problem
    runner = Runner(progress, stop, len(names_labels))
    curves = {}
    complete = True
    notes = measuring_notes(task, n_steps, timing, train_curve=train_curve, n_eval_points=n_eval_points,
                            live=live) + [info["split"]]
    partial_due = partial_timer(PARTIAL_SECONDS)

    def result(growing=None, complete=False):
        cs = dict(curves)
        if growing is not None and growing.n_steps:
            cs[growing.name] = growing
        return ConvergenceResult(experiment=experiment, dataset=dataset, task=task, metric=METRICS[task],
                                 n_outputs=int(Y_tr.shape[1]), curves=cs, params=params, complete=complete,
                                 notes=list(notes))

    def growing(curve):          # the live run's partial result, at most every PARTIAL_SECONDS
        return result(curve) if partial_due() else None

    for i, (name, label) in enumerate(names_labels):
        if runner.stopped():
            complete = False
            break
        live_fit = live and task == "regression" and name != ARTIFICIAL
        if (not live and name == ARTIFICIAL and info["name"] == "friedman1-ind" and "st-gbrt" in curves
                and Y_tr.shape[1] == info["n_original_outputs"]):
            # On ind the oracle is st-gbrt itself: same model, same seed, same curves.
            curve = Curve(ARTIFICIAL, label, **{k: curves["st-gbrt"].__dict__[k].copy() for k in Curve.ARRAYS})
        else:
            curve = measure(name, problem, model_kwargs, n_steps, seed, runner, i, label, timing,
                            train_curve=train_curve and not live_fit, n_eval_points=n_eval_points,
                            growing=growing if live_fit else None, models=models if live_fit else None)
        if curve.n_steps:
            curves[name] = curve
        if runner.stopped():
            complete = False
            break
        if live:
            runner.report(i + 1, f"{label}: done", partial=result())
    if timing is not None and complete:
        labels = {name: label for name, label in names_labels}
        retime(curves, {name: refit_function(name, problem, model_kwargs, n_steps, seed, runner, labels[name])
                        for name in curves}, timing, runner.stopped)
        if live:                     # a stop during the repeats: the live page says the run stopped
            complete = not runner.stopped()
        params.setdefault("timing", asdict(timing))
    final = result(complete=complete)
    if live and progress is not None:
        progress(1.0 if complete else None, "done" if complete else "stopped", partial=final)
    else:
        runner.finish(complete)
    return final


# --------------------------------------------------------------------------
# Experiments
# --------------------------------------------------------------------------


def check_convergence_args(task, n_outputs, dataset, estimators, *, n_steps, learning_rate=0.1, max_leaf_nodes=2,
                           max_features=None, loss=None, n_projections=1, n_features=None) -> list:
    """Every model argument of :func:`run_convergence` for a problem of ``task`` with ``n_outputs``
    outputs (and ``n_features`` inputs, when known), checked before any work (a ``ValueError``
    naming the argument); returns the estimators as a list."""
    estimators = check_estimators(estimators, dataset, task)
    check_model_args(task, n_outputs, n_steps, learning_rate, max_leaf_nodes, max_features, loss)
    _int(n_projections, "n_projections", 1)
    for name in estimators:
        if name != ARTIFICIAL:
            check_q(name, n_projections, n_outputs)
    if n_features is not None and isinstance(max_features, (int, np.integer)) and max_features > n_features:
        raise ValueError(f"max_features = {max_features} exceeds the number of inputs ({n_features})")
    return estimators


def _drawn(dataset):
    """True when ``dataset`` is a problem already drawn (get_problem's 6-tuple), not a name."""
    return isinstance(dataset, tuple) and len(dataset) == 6 and isinstance(dataset[5], dict)


def run_convergence(dataset, estimators, *, n_steps, learning_rate=0.1, max_leaf_nodes=2,
                    max_features=None, loss=None, n_projections=1, seed=0,
                    n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                    n_noisy_outputs=0, timing=None, live=False, models=None, progress=None,
                    stop=None) -> ConvergenceResult:
    """Learning curves of several estimators on one problem (paper Figure 1).

    dataset : a problem name of :func:`get_problem` (drawn with the data arguments and ``seed``),
        or a problem already drawn: the ``(X_train, Y_train, X_test, Y_test, task, info)`` of
        :func:`get_problem` (e.g. the Data page's choice; the data arguments are then unused).
    estimators : names from ``ESTIMATOR_NAMES`` (or "br-gbrt") plus
        "artificial-gbrt" (Friedman1 problems only): chain -> one single-target
        model of output 1, copied to all outputs; group -> one model of the
        mean output, copied; ind -> st-gbrt.
    n_steps : boosting steps for every estimator. For st-gbrt (and
        artificial-gbrt on ind) a step fits one tree per output, so it gets d
        times more trees: compare on ``trees_per_output`` or ``fit_time``.
    n_projections : q of the gbrt-relabel-rpo estimators (others ignore it).
    Data arguments: see :func:`get_problem`. Model arguments: as in
    :func:`engine.make_estimator`; ``loss=None`` is the square loss
    (regression) or the logistic loss (multi-label). Every estimator is seeded
    with ``seed``.
    timing : None (one fit per model, as the paper's figure) or how fit times are measured
        (:mod:`engine.experiments.timing`: True, a Timing or a dict): once every curve is drawn,
        the short fits are repeated in turns and the fit-time axis is their step-wise median.
    live : the curves as they grow (the Convergence page). Each regression model
        (artificial-gbrt aside) is fitted once, with the test set as ``eval_set``: no train
        curve (that would be a second fit); ``progress`` is then called as
        ``progress(fraction, message, partial=result_so_far)``: after every compiled chunk (at
        most every 0.5 s) a :class:`ConvergenceResult` of the finished curves and the one
        growing, and after every estimator the finished ones. The others (artificial-gbrt,
        multi-label) are measured in full and appear when complete.
    models : a dict that receives each regression model of a live run (artificial-gbrt aside),
        fitted with ``warm_start=True``, so that more steps can continue it.

    Returns a :class:`ConvergenceResult`.
    """
    if models is not None and not isinstance(models, dict):
        raise ValueError(f"models must be a dict or None, got {type(models).__name__}")
    if models is not None and not live:
        raise ValueError("models: only a live run keeps its models (live=True)")
    if _drawn(dataset):
        problem = dataset
        X_tr, Y_tr, X_te, _, task, info = problem
        d = int(Y_tr.shape[1])
        name = info["name"]
        # artificial-gbrt knows the Friedman1 structures only: checked against the problem's name
        estimators = check_convergence_args(
            task, d, name if name in FRIEDMAN_PROBLEMS else f"data set {name}", estimators, n_steps=n_steps,
            learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_features=max_features, loss=loss,
            n_projections=n_projections, n_features=X_tr.shape[1])
        data_kw = dict(n_train=int(X_tr.shape[0]), n_test=int(X_te.shape[0]), n_outputs=d)
        dataset = name
    else:
        _int(seed, "seed", 0)
        data_kw = Problem(dataset, n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs).data_kwargs()
        task, d = Problem(dataset, **data_kw).shape()
        estimators = check_convergence_args(task, d, dataset, estimators, n_steps=n_steps, learning_rate=learning_rate,
                                            max_leaf_nodes=max_leaf_nodes, max_features=max_features, loss=loss,
                                            n_projections=n_projections)
        problem = None
    timing = resolve_timing(timing)
    check_callbacks(progress, stop)

    model_kwargs = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                        max_features=max_features, n_projections=n_projections)
    if loss is not None:
        model_kwargs["loss"] = loss
    params = dict(estimators=estimators, n_steps=n_steps, seed=seed, **data_kw, **model_kwargs)
    params["loss"] = loss           # None (the task's default) too: model_kwargs holds it only when given
    if problem is None:
        problem = get_problem(dataset, seed=seed, **data_kw)
    return _run_curves("convergence", dataset, [(e, e) for e in estimators], problem, model_kwargs,
                       n_steps, seed, params, progress, stop, timing, live=bool(live), models=models)


def run_projection_schemes(dataset, *, schemes=PROJECTIONS,
                           strategy="projected", n_steps, n_projections=1, learning_rate=0.1,
                           max_leaf_nodes=2, max_features=None, loss=None, seed=0,
                           n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                           n_noisy_outputs=0, timing=True, train_curve=True, n_eval_points=None, progress=None,
                           stop=None) -> ConvergenceResult:
    """Learning curves of gbrt-rpo (``strategy="projected"``, Algorithm 3) or
    gbrt-relabel-rpo (``"projected_relabel"``, Algorithm 4, with q =
    ``n_projections``) for each random projection scheme (paper Figures 2-4).

    ``timing``: how fit times are measured (:mod:`engine.experiments.timing`):
    True (default) warms up before each model and repeats short fits (median);
    False fits each model once, as :func:`run_convergence` does.
    ``train_curve=False`` skips the train score (NaN); ``n_eval_points`` (multi-label):
    steps scored with LRAP, by default :func:`auto_eval_points` of the test set's size.

    Returns a :class:`ConvergenceResult` with ``experiment="schemes"``; its
    curves are keyed by estimator name (e.g. "gbrt-rpo-gaussian") and labelled
    by scheme.
    """
    _int(seed, "seed", 0)
    data_kw = Problem(dataset, n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs).data_kwargs()
    task, d = Problem(dataset, **data_kw).shape()
    if isinstance(schemes, str):
        schemes = [schemes]
    schemes = list(schemes)
    if not schemes:
        raise ValueError("schemes is empty: give at least one projection scheme")
    for s in schemes:
        if s not in PROJECTIONS:
            raise ValueError(f"schemes: unknown scheme {s!r}; valid ones are {PROJECTIONS}")
    if len(set(schemes)) != len(schemes):
        raise ValueError(f"schemes lists a scheme twice: {schemes}")
    if strategy not in PROJECTED_STRATEGIES:
        raise ValueError(f"strategy must be 'projected' or 'projected_relabel', got {strategy!r}")
    check_model_args(task, d, n_steps, learning_rate, max_leaf_nodes, max_features, loss)
    q = _int(n_projections, "n_projections", 1)
    if not BOOSTING[strategy].takes_q and q != 1:
        raise ValueError(f"n_projections must be 1 for strategy={strategy!r} ({BOOSTING[strategy].paper}); "
                         "use strategy='projected_relabel' for q > 1")
    for s in schemes:
        try:
            check_projection(s, q, d)
        except ValueError as exc:
            raise ValueError(f"n_projections: {exc}") from None
    timing = resolve_timing(timing)
    n_eval_points = check_eval_points(n_eval_points)
    check_callbacks(progress, stop)

    names_labels = [(boosting_name(strategy, s), s) for s in schemes]
    model_kwargs = dict(learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes,
                        max_features=max_features, n_projections=q)
    if loss is not None:
        model_kwargs["loss"] = loss
    params = dict(schemes=schemes, strategy=strategy, n_steps=n_steps, seed=seed,
                  timing=None if timing is None else asdict(timing), train_curve=bool(train_curve),
                  **data_kw, **model_kwargs)
    params["loss"] = loss           # None (the task's default) too: model_kwargs holds it only when given
    problem = get_problem(dataset, seed=seed, **data_kw)
    if n_eval_points is None:
        n_eval_points = auto_eval_points(problem[3].shape[0], d)
    params["n_eval_points"] = n_eval_points
    return _run_curves("schemes", dataset, names_labels, problem, model_kwargs, n_steps, seed, params,
                       progress, stop, timing, bool(train_curve), n_eval_points)
