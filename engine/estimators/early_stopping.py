"""Held-out scores of the boosting estimators, and early stopping on them as scikit-learn's GB does it.

A held-out set (``eval_set``, or the rows early stopping holds out) is scored
after every step inside the compiled loop; :func:`scoring_arrays` gathers what
it reads (inputs, encoded targets, raw predictions, weights per row or per
entry, the per-output sums of squares r2 divides by).

Parameters (as scikit-learn's HistGradientBoosting):

* ``early_stopping`` {"auto", True, False}, default "auto": "auto" turns it
  on when the training set has more than :data:`AUTO_EARLY_STOPPING_ROWS`
  rows (10 000, scikit-learn's rule), where holding rows out costs little
  and steps cost most; True always, False never. ``n_estimators`` is then a
  ceiling;
* ``n_iter_no_change`` k, default 10: stop after the first step whose
  held-out score does not beat one of the k previous recorded scores by
  more than ``tol``. None means "never stop early" (the meaning None had
  before ``early_stopping`` existed: nothing is held out): it turns "auto"
  off, and ``early_stopping=True`` with it is refused (ValueError), since
  the two ask for opposite things and a fit that silently never stopped
  was the trap (the papers' settings of ``make_estimator`` set 10, unused
  while their early stopping is off);
* ``validation_fraction``: the share of the training rows held out to score
  (drawn by :func:`validation_split` from ``random_state``; no
  stratification, since rows of a label matrix form too many classes). With
  an ``eval_set`` nothing is held out: the eval set is scored instead.
* ``tol``: the margin a score must beat.

When the rule stops a fit, the model is cut back to its best step, as
XGBoost's and LightGBM's best iteration: ``n_steps_ = n_estimators_ =
best_iteration_ + 1`` and every per-step array, the trees and the
projections keep only those steps; ``n_steps_run_`` says how many steps were
fitted (the step the rule stopped at). A fit that reaches ``n_estimators``
without stopping keeps every step. A warm start continues from the kept steps
(the raw training predictions of the cut steps are recomputed).

The held-out score (higher is better) is the one ``eval_score_`` reports:
macro-r2 for the regressor; for the classifier minus the mean over labels of
each label's mean held-out loss (the loss the model is fitted with: logistic
or square), a smooth score that early stopping can follow step by step (LRAP
would need a sort per sample and step).

The compiled loop applies the rule after every step (``stalled`` in
``engine/_core/held_out.pyx``), so a fit stops at the step itself, with
no step beyond it fitted; the steps after the best are then cut. :func:`stopping_step` is the same
rule on a recorded curve: where early stopping would have stopped.
"""
import numpy as np
from sklearn.utils import check_random_state

from engine._core import RowMatrix
from engine.estimators.base import fingerprint, is_int, is_real
from engine.estimators.targets import entry_weights


# "auto" early stopping is on above this many training rows (scikit-learn's HistGradientBoosting rule).
AUTO_EARLY_STOPPING_ROWS = 10_000
EARLY_STOPPING_CHOICES = ("auto", True, False)


def check_early_stopping(early_stopping, validation_fraction, n_iter_no_change, tol):
    """ValueError naming the first bad parameter."""
    if not (isinstance(early_stopping, str) and early_stopping == "auto") \
            and not isinstance(early_stopping, (bool, np.bool_)):
        raise ValueError(f"early_stopping must be 'auto', True or False, got {early_stopping!r}")
    if not is_real(validation_fraction) or not 0.0 < validation_fraction < 1.0:
        raise ValueError(f"validation_fraction must be a number in (0, 1), got {validation_fraction!r}")
    if n_iter_no_change is not None and (not is_int(n_iter_no_change) or n_iter_no_change < 1):
        raise ValueError(f"n_iter_no_change must be None or an integer >= 1, got {n_iter_no_change!r}")
    if n_iter_no_change is None and early_stopping is True:
        raise ValueError("early_stopping=True needs n_iter_no_change, an integer >= 1 (the steps "
                         "without a better held-out score before the fit stops), got None, which "
                         "means never stop early; pass n_iter_no_change=10 (the default) or "
                         "early_stopping=False")
    if not is_real(tol) or not tol >= 0.0 or not np.isfinite(tol):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")


def early_stopping_on(early_stopping, n_iter_no_change, n_samples):
    """Whether a fit on ``n_samples`` training rows stops early (and scores a held-out set for it)."""
    if n_iter_no_change is None:
        return False
    if isinstance(early_stopping, str):          # "auto"
        return n_samples > AUTO_EARLY_STOPPING_ROWS
    return bool(early_stopping)


def validation_split(n_samples, validation_fraction, random_state):
    """(train, validation) row indices, each in increasing order.

    ceil(validation_fraction * n) rows are held out, drawn by a permutation
    from ``random_state`` (as scikit-learn's ``train_test_split``); the rows
    keep their order, so the training part is a plain subset of the data.
    """
    n_val = int(np.ceil(validation_fraction * n_samples))
    if n_samples - n_val < 2:
        raise ValueError(
            f"validation_fraction = {validation_fraction} holds out {n_val} of {n_samples} samples, "
            "leaving fewer than 2 to train on")
    order = check_random_state(random_state).permutation(n_samples)
    return np.sort(order[n_val:]), np.sort(order[:n_val])


def stopping_step(scores, n_iter_no_change, tol=1e-4):
    """Steps early stopping runs on this held-out score curve (len(scores) if it never stops).

    A fit stops after this many steps (``n_steps_run_``) and then keeps its best
    ``argmax(scores[:m]) + 1``.

    The compiled rule written in numpy: keep going while a score beats one
    of the last ``n_iter_no_change`` recorded scores by more than ``tol``.
    """
    history = np.full(n_iter_no_change, -np.inf)
    for m, score in enumerate(np.asarray(scores, dtype=np.float64)):
        if np.any(score - tol > history):
            history[m % n_iter_no_change] = score
        else:
            return m + 1
    return len(scores)


def scoring_arrays(X, Y, weight=None, entry_weight=None):
    """What the compiled loop reads to score a held-out set (a dict; F is added by the caller).

    X (n, p), dense or sparse; Y (n, d) encoded targets, 0 at missing entries; ``weight`` (n,)
    or None (all ones) per row, or ``entry_weight`` (n, d) per entry. ``sst``
    is sum_i w_ij (y_ij - mean_j)^2 with the weighted mean of output j.
    """
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    if entry_weight is None and weight is None:
        weight = np.ones(len(Y))
        sst = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
    else:
        W = entry_weight if entry_weight is not None else np.repeat(weight[:, None], Y.shape[1], axis=1)
        totals = W.sum(axis=0)
        empty = np.flatnonzero(~(totals > 0))
        if empty.size:
            raise ValueError(f"the held-out set gives output(s) {empty.tolist()} no weight "
                             "(no observed target with a positive weight): it cannot score them")
        mean = (W * Y).sum(axis=0) / totals
        sst = (W * (Y - mean) ** 2).sum(axis=0)
    return {"key": fingerprint(X, Y, weight if entry_weight is None else entry_weight),
            "X": RowMatrix(X), "Y": Y,           # dense or CSR rows, for the traversal
            "w": None if entry_weight is not None else np.ascontiguousarray(weight, dtype=np.float64),
            "W": None if entry_weight is None else np.ascontiguousarray(entry_weight),
            "sst": np.ascontiguousarray(sst, dtype=np.float64)}


def held_out_weights(sample_weight, observed, rows, d):
    """(row weights, None) or (None, entry weights) of the held-out rows."""
    W = entry_weights(None if sample_weight is None else sample_weight[rows],
                      None if observed is None else observed[rows], len(rows), d)
    if (W == W[:, :1]).all():
        return np.ascontiguousarray(W[:, 0]), None
    return None, W
