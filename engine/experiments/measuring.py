"""Measuring one estimator's learning curve (:func:`measure`), as every learning-curve experiment
of paper 002 does (:mod:`engine.experiments.convergence`, :mod:`engine.experiments.projection_size`)
and the app's live Convergence page (:mod:`engine.app.page_models.live_convergence`).

Regression: each estimator is fitted twice with the same seed (the fits are identical, only what
is measured differs): once with the test set as ``eval_set`` (test macro-r2 after every step,
computed inside the compiled loop, and the fit times, which leave the scoring out) and once with
the training set as ``eval_set`` (train macro-r2 after every step). Multi-label: one fit without
an evaluation set (fit times), then LRAP of ``staged_decision_function`` at about 60 log-spaced
steps (always including the first and the last), NaN at the other steps. artificial-gbrt (the
oracle that knows the Friedman1 output structure, section 4.2.1): one single-target model copied
to the outputs it knows are alike.
"""

from __future__ import annotations

import numpy as np

from engine.estimators.artificial import ArtificialGBRT
from engine.estimators.registry import BOOSTING_CONFIGS, make_estimator
from engine.experiments.curves import Curve
from engine.experiments.timing import retime, warm_up
from engine.methods import BOOSTING
from engine.metrics import ranking_average_precision
from engine.names import ALIASES, ARTIFICIAL
from engine.validation import check_int

__all__ = ["N_EVAL_POINTS", "measure", "measure_all", "model_for", "fitted_curve", "refit_function", "measuring_notes",
           "auto_eval_points", "check_eval_points", "macro_r2_from_sse", "single_target"]

N_EVAL_POINTS = 60
# Fraction of an estimator's progress given to each measuring pass (regression).
_PASS_WEIGHTS = (0.6, 0.4)


def check_eval_points(n_eval_points):
    """None (decided by the problem's size) or an integer >= 2."""
    return None if n_eval_points is None else check_int(n_eval_points, "n_eval_points", 2)


def auto_eval_points(n_test, n_outputs):
    """How many steps to score with LRAP when the caller leaves it to the problem's size.

    LRAP sorts every test row's d scores: on 3185 x 983 (the delicious-shaped set) one
    evaluation takes about 0.6 s, so 60 of them would cost more than the fits they describe.
    60 points up to 200 000 test cells (n_test x d), then fewer in proportion, at least 8.
    """
    cells = max(int(n_test) * int(n_outputs), 1)
    return int(min(N_EVAL_POINTS, max(8, round(N_EVAL_POINTS * 200_000 / cells))))


def macro_r2_from_sse(sse, sst):
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
    return 1.0 - ratio.mean(axis=-1)


def eval_points(n_steps, n_points=N_EVAL_POINTS):
    """The (1-based) steps LRAP is scored at: about ``n_points`` log-spaced, first and last included."""
    return np.unique(np.round(np.geomspace(1, n_steps, min(n_points, n_steps))).astype(int))


def single_target(name):
    """True for st-gbrt (and its alias): one tree per output and step."""
    return BOOSTING[BOOSTING_CONFIGS[ALIASES.get(name, name)]["strategy"]].trees_per_step == "d"


def model_for(est_name, task, seed, boosting, q=None, **extra):
    """The estimator the experiments fit for ``est_name``: :func:`engine.make_estimator` with the
    :class:`~engine.experiments.settings.BoostingSettings`' model arguments (q where the strategy
    takes it: ``q`` or the settings'), ``n_steps`` steps unless ``extra`` says otherwise, seeded with
    ``seed``."""
    kw = {"n_estimators": boosting.n_steps, **boosting.model_kwargs(est_name, q), **extra}
    return make_estimator(est_name, task=task, random_state=seed, **kw)


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


def refit_function(name, data, boosting, seed, runner, label, q=None):
    """A callable that fits ``measure``'s model again (same seed: the same model) and returns its
    cumulative ``fit_times_``, or None when a stop cut it short; None for artificial-gbrt."""
    if name == ARTIFICIAL:
        return None

    def refit():
        runner.report(runner.fraction * runner.n_units, f"{label}: timing, one more fit")
        est = model_for(name, data.task, seed, boosting, q)
        est.fit(data.X_train, data.Y_train, callback=lambda n_done, _: runner.stopped())
        return est.fit_times_ if est.n_steps_ == boosting.n_steps else None
    return refit


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
    return [f"{which} LRAP evaluated with staged_decision_function at {len(eval_points(n_steps, n_eval_points))} "
            "log-spaced steps (first and last included), NaN at the other steps; fit times from the same fit "
            "(no evaluation set)."] + timed


# --------------------------------------------------------------------------
# The passes of one measurement
# --------------------------------------------------------------------------


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


def _noisy_r2(data, d0):
    """macro-r2 of the appended noisy outputs (columns d0..) predicted by their training mean."""
    const = data.Y_train[:, d0:].mean(axis=0)
    out = {}
    for key, Y in (("test", data.Y_test), ("train", data.Y_train)):
        sst = ((Y[:, d0:] - Y[:, d0:].mean(axis=0)) ** 2).sum(axis=0)
        out[key] = macro_r2_from_sse(((Y[:, d0:] - const) ** 2).sum(axis=0), sst)
    return out


def _oracle_copied(data, boosting, seed, runner, unit, label, train_curve):
    """artificial-gbrt on chain / group: one single-target model on the output the oracle knows is
    best, copied to the d0 real outputs; a purely noisy output is predicted by its training mean.
    (fit times, train loss, test score, train score, trees)."""
    d0, Y_tr = data.n_original_outputs, data.Y_train
    structure = data.name.split("-", 1)[1]
    model = ArtificialGBRT(structure, d0, task=data.task, random_state=seed, n_estimators=boosting.n_steps,
                           **boosting.model_kwargs())
    model.fit(data.X_train, Y_tr, callback=runner.fit_callback(unit, f"{label} (fit)", 0.5, planned=boosting.n_steps))
    est = model.inner_
    k = est.n_steps_
    scores = []
    for w, (X, Y) in zip((0.3, 0.2), ((data.X_test, data.Y_test), (data.X_train, Y_tr) if train_curve else (None, None))):
        if runner.stopped() or X is None:
            scores.append(np.full(k, np.nan))
            continue
        sse = _copied_sse(est, X, Y[:, :d0])
        sse_noise = ((Y[:, d0:] - Y_tr[:, d0:].mean(axis=0)) ** 2).sum(axis=0)
        sse = np.hstack([sse, np.tile(sse_noise, (k, 1))])
        scores.append(macro_r2_from_sse(sse, ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)))
        runner.report(unit + 0.5 + w, f"{label}: scored")
    return est.fit_times_.copy(), est.train_score_.copy(), scores[0], scores[1], np.arange(1, k + 1)


def _regression_passes(est, make, X_tr, Y_fit, X_te, Y_te_fit, runner, unit, label, train_curve, partial):
    """The test-curve fit (``est``) and, with ``train_curve``, a second identical fit scored on the
    training set: (fit times, train loss, test score, train score)."""
    w1, w2 = _PASS_WEIGHTS if train_curve else (1.0, 0.0)
    _fit(est, X_tr, Y_fit, est.n_estimators, runner, unit, w1, f"{label} (test curve)", eval_set=(X_te, Y_te_fit),
         partial=partial)
    k = est.n_steps_
    test, train_loss, fit_time, train = est.eval_score_.copy(), est.train_score_.copy(), est.fit_times_.copy(), \
        np.full(k, np.nan)
    if train_curve and not runner.stopped():
        tr = _fit(make(), X_tr, Y_fit, k, runner, unit + w1, w2, f"{label} (train curve)", eval_set=(X_tr, Y_fit))
        train[: tr.n_steps_] = tr.eval_score_
    return fit_time, train_loss, test, train


def _multilabel_passes(est, data, runner, unit, label, train_curve, n_eval_points):
    """One fit without an evaluation set, then LRAP of its staged scores at the log-spaced steps:
    (fit times, train loss, test score, train score)."""
    _fit(est, data.X_train, data.Y_train, est.n_estimators, runner, unit, 0.5, f"{label} (fit)")
    k = est.n_steps_
    points = eval_points(k, n_eval_points)
    test = train = np.full(k, np.nan)
    if not runner.stopped():
        test = _staged_lrap(est, data.X_test, data.Y_test, points, runner, unit + 0.5, 0.3, f"{label} (test)")
    if train_curve and not runner.stopped():
        train = _staged_lrap(est, data.X_train, data.Y_train, points, runner, unit + 0.8, 0.2, f"{label} (train)")
    return est.fit_times_.copy(), est.train_score_.copy(), test, train


def measure(name, label, data, boosting, seed, runner, unit, *, q=None, timing=None, train_curve=True,
            n_eval_points=N_EVAL_POINTS, growing=None, models=None):
    """Fit one estimator (all passes) on a drawn problem (:class:`~engine.experiments.problems.ProblemData`)
    with ``boosting`` (:class:`~engine.experiments.settings.BoostingSettings`; ``q`` instead of its own)
    and return its :class:`Curve` (maybe shortened by stop).

    The fits report progress as unit ``unit`` of ``runner`` (one unit per estimator).
    ``timing`` (a :class:`~engine.experiments.timing.Timing` or None): warm up before the
    timed fit (repeats of short fits come later, from :func:`refit_function`, once every
    model is measured; the artificial oracle is always fitted once).
    ``train_curve=False`` leaves the train score NaN (no second pass over the training set);
    ``n_eval_points``: the log-spaced steps at which LRAP is evaluated (multi-label).
    Regression models (artificial-gbrt aside): ``growing(curve)``, called after every compiled
    chunk of the test-curve fit with the curve so far, returns what goes to ``progress`` as
    ``partial=`` (None: nothing); ``models`` (a dict) receives that fit's estimator under
    ``name``, fitted with ``warm_start=True`` so it can be continued (the live page's hooks).
    """
    d, d0, task = data.n_outputs, data.n_original_outputs, data.task
    artificial = name == ARTIFICIAL
    if artificial and data.name.split("-", 1)[1] in ("chain", "group"):
        fit_time, train_loss, test, train, n_trees = _oracle_copied(data, boosting, seed, runner, unit, label,
                                                                    train_curve)
        return _curve(name, label, d, n_trees, fit_time, train, test, train_loss)
    # artificial-gbrt on ind is st-gbrt on the real outputs (noisy ones: training mean).
    est_name = "st-gbrt" if artificial else name
    single = artificial or single_target(name)
    Y_fit, Y_te_fit = (data.Y_train[:, :d0], data.Y_test[:, :d0]) if artificial else (data.Y_train, data.Y_test)
    kept = models is not None and task == "regression" and not artificial
    est = model_for(est_name, task, seed, boosting, q, **({"warm_start": True} if kept else {}))
    if kept:
        models[name] = est
    if timing is not None:
        warm_up(lambda: model_for(est_name, task, seed, boosting, q), data.X_train, Y_fit, timing)
    if task == "regression":
        partial = None if growing is None or artificial else (
            lambda e: growing(fitted_curve(name, label, e, d, Y_fit.shape[1] if single else 1)))
        fit_time, train_loss, test, train = _regression_passes(
            est, lambda: model_for(est_name, task, seed, boosting, q), data.X_train, Y_fit, data.X_test, Y_te_fit,
            runner, unit, label, train_curve, partial)
        if artificial and d > d0:
            r2n = _noisy_r2(data, d0)
            test, train = (d0 * test + (d - d0) * r2n["test"]) / d, (d0 * train + (d - d0) * r2n["train"]) / d
    else:
        fit_time, train_loss, test, train = _multilabel_passes(est, data, runner, unit, label, train_curve,
                                                               n_eval_points)
    k = len(fit_time)
    return _curve(name, label, d, np.arange(1, k + 1) * (Y_fit.shape[1] if single else 1), fit_time, train, test,
                  train_loss)


def _curve(name, label, d, n_trees, fit_time, train, test, train_loss):
    k = len(n_trees)
    return Curve(name=name, label=label, step=np.arange(1, k + 1), n_trees=np.asarray(n_trees).astype(np.int64),
                 trees_per_output=n_trees / d, fit_time=np.asarray(fit_time, dtype=float),
                 train_score=np.asarray(train, dtype=float), test_score=np.asarray(test, dtype=float),
                 train_loss=np.asarray(train_loss, dtype=float))


def measure_all(runs, data, boosting, seed, runner, *, timing=None, train_curve=True, n_eval_points=N_EVAL_POINTS,
                by_label=False):
    """Measure each run ``(estimator, label, q)`` in turn (``q`` None: the settings' own), unit i of
    ``runner``; then, with ``timing``, repeat the short fits for steady times
    (:func:`engine.experiments.timing.retime`). ``(curves keyed by estimator, or by label with
    ``by_label``, complete)``: ``complete`` is False after a stop."""
    curves, complete = {}, True
    for i, (name, label, q) in enumerate(runs):
        if runner.stopped():
            complete = False
            break
        if (name == ARTIFICIAL and data.name == "friedman1-ind" and "st-gbrt" in curves
                and data.n_outputs == data.n_original_outputs):
            # On ind the oracle is st-gbrt itself: same model, same seed, same curves.
            curve = Curve(ARTIFICIAL, label, **{k: curves["st-gbrt"].__dict__[k].copy() for k in Curve.ARRAYS})
        else:
            curve = measure(name, label, data, boosting, seed, runner, i, q=q, timing=timing, train_curve=train_curve,
                            n_eval_points=n_eval_points)
        if curve.n_steps:
            curves[label if by_label else name] = curve
        if runner.stopped():
            complete = False
            break
    if timing is not None and complete:
        refits = {(label if by_label else name): refit_function(name, data, boosting, seed, runner, label, q=q)
                  for name, label, q in runs}
        retime(curves, {key: refit for key, refit in refits.items() if key in curves}, timing, runner.stopped)
    return curves, complete
