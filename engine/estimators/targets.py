"""Missing targets and per-output weights: what a fit reduces Y's holes and ``sample_weight`` to.

``missing_targets`` (every boosting estimator and forest):

* ``"error"`` (default): a NaN in Y is refused, as it always was (the message
  says that ``"ignore"`` exists);
* ``"ignore"``: a NaN entry of Y is a missing target, fitted exactly as an
  entry of weight zero.

``sample_weight`` is None, one weight per sample (n,), or one weight per
sample and output (n, d). With the observed mask it becomes the per-entry
weights W (n x d; W_ij = w_ij, 0 where y_ij is missing), which every fit
reduces to

* ``weight`` (n,): the row weight r_i = max_j W_ij, the weight a sample has in
  the trees (a sample keeps its row weight when one of its targets is missing);
* ``entry_weight`` (n, d) or None: None when every row's entries weigh the
  same (1-D or no weights, no missing target; also an (n, d) weight constant
  per row): the fit is then the per-row fit, bit for bit.

What the estimators do with per-entry weights is written where they do it:
``engine/_core/updates.pyx`` ("per-entry weights") for boosting and
``engine/estimators/forest.py`` (``masked_relabel``) for forests.
"""
import numpy as np

from engine.validation import check_choice

MISSING_TARGETS = ("error", "ignore")
MISSING_HINT = ("; a NaN is a missing target: missing_targets='ignore' fits the model "
                "without the missing entries")


def check_missing_targets(value):
    check_choice(value, "missing_targets", MISSING_TARGETS)


def check_sample_weight(sample_weight, n, d, as_numeric):
    """The checked weights: None, (n,) or (n, d) float64, >= 0; ValueError naming sample_weight."""
    if sample_weight is None:
        return None
    w = as_numeric("sample_weight", sample_weight, (1, 2))
    if w.ndim == 1 and w.shape[0] != n:
        raise ValueError(f"sample_weight must have one entry per sample ({n}), got {w.shape[0]}")
    if w.ndim == 2 and w.shape != (n, d):
        raise ValueError(
            f"sample_weight must have shape (n_samples,) = ({n},) or (n_samples, n_outputs) = "
            f"({n}, {d}), got {w.shape}")
    if (w < 0).any():
        raise ValueError("sample_weight must not be negative")
    return np.ascontiguousarray(w)


def entry_weights(sample_weight, observed, n, d):
    """W (n, d): the weights per entry, zero at missing targets."""
    if sample_weight is None:
        W = np.ones((n, d))
    elif sample_weight.ndim == 1:
        W = np.repeat(sample_weight[:, None], d, axis=1)
    else:
        W = sample_weight.copy()
    if observed is not None:
        W[~observed] = 0.0
    return W


def resolve_weights(sample_weight, observed, n, d):
    """(weight, entry_weight) as the module docstring defines them.

    sample_weight : None, (n,) or (n, d), already checked
    observed : (n, d) bool, or None when no target is missing
    """
    if observed is None and (sample_weight is None or sample_weight.ndim == 1):
        weight = np.ones(n) if sample_weight is None else sample_weight
        if weight.sum() <= 0:
            raise ValueError("sample_weight must have a positive sum (all weights are zero)")
        return np.ascontiguousarray(weight), None
    W = entry_weights(sample_weight, observed, n, d)
    totals = W.sum(axis=0)
    empty = np.flatnonzero(~(totals > 0))
    if empty.size:
        where = "on its observed targets " if observed is not None else ""
        raise ValueError(
            f"sample_weight gives output(s) {empty.tolist()} no positive weight {where}"
            "(all-zero weights for an output): nothing to fit for it")
    if (W == W[:, :1]).all():
        return np.ascontiguousarray(W[:, 0]), None
    return np.ascontiguousarray(W.max(axis=1)), np.ascontiguousarray(W)


def observed_mask(missing, name):
    """None when nothing is missing, else ~missing; a column with nothing observed is refused."""
    if not missing.any():
        return None
    empty = np.flatnonzero(missing.all(axis=0))
    if empty.size:
        raise ValueError(f"{name} output(s) {empty.tolist()} have no observed value "
                         "(every entry is missing): nothing to fit for them")
    return ~missing
