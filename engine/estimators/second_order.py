"""Second-order (Newton) leaves: which fits accept them, and the "<method> (newton)" rows.

The rule lives here once: the boosting estimators validate with it
(engine/estimators/boosting.py), and the compiled core trusts the validated
fit it is handed (engine/_core/fit_state.pyx, BoostSpec). The real-data study
and its page name a second-order variant by a suffix
(``engine.names.NEWTON_SUFFIX``) beside the paper's methods.
"""
from __future__ import annotations

from engine.methods import BOOSTING
from engine.names import LEAF_ESTIMATIONS, NEWTON_SUFFIX

__all__ = ["AUTO_LEAVES", "LEAF_ESTIMATION_CHOICES", "MEAN_LEAVES", "NEWTON_LEAVES",
           "newton_leaves_refusal", "resolve_leaf_estimation", "split_leaf_variant"]

MEAN_LEAVES, NEWTON_LEAVES = LEAF_ESTIMATIONS
AUTO_LEAVES = "auto"
LEAF_ESTIMATION_CHOICES = (AUTO_LEAVES,) + LEAF_ESTIMATIONS


def newton_leaves_refusal(strategy, loss):
    """Why Newton leaves do not apply to this strategy and loss (a message), or None if they do.

    Newton leaves hold one value per output, so a strategy whose row refuses them
    (gbrt-rpo, Algorithm 3: one scalar per leaf rescaled per output by rho, would
    become gbrt-relabel-rpo) says why (engine/methods.py); and they need the loss'
    second derivative, which the absolute loss lacks.
    """
    row = BOOSTING.get(strategy)
    if row is not None and row.newton_refusal is not None:
        return f"leaf_estimation={NEWTON_LEAVES!r} {row.newton_refusal}"
    if loss == "absolute_error":
        return (f"leaf_estimation={NEWTON_LEAVES!r} needs a loss with a second derivative; the "
                f"absolute loss has none (0 almost everywhere): use leaf_estimation={MEAN_LEAVES!r}")
    return None


def resolve_leaf_estimation(leaf_estimation, strategy, loss):
    """"mean" or "newton": ``leaf_estimation`` itself, or for "auto" Newton where it applies and
    the papers' mean leaves where it does not (Algorithm 3, the absolute loss), as scikit-learn
    resolves its own "auto" defaults per setting. An explicit "newton" where it does not apply
    stays refused (``newton_leaves_refusal``)."""
    if leaf_estimation != AUTO_LEAVES:
        return leaf_estimation
    return MEAN_LEAVES if newton_leaves_refusal(strategy, loss) is not None else NEWTON_LEAVES


def split_leaf_variant(method):
    """("gbmort", {"leaf_estimation": "newton"}) for "gbmort (newton)"; (method, {}) otherwise."""
    if method.endswith(NEWTON_SUFFIX):
        return method[: -len(NEWTON_SUFFIX)], {"leaf_estimation": NEWTON_LEAVES}
    return method, {}
