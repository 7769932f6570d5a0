"""The boosting losses by name, entry by entry: the compiled core's own loss and gradient.

What a view of one boosting step needs (the residuals a tree is grown on, the loss it lowers)
without reaching into the compiled core: the values are the core's, so they are the numbers the
estimators' fits use, for the losses the boosting estimators take (``loss=``).
"""
from __future__ import annotations

import numpy as np

from engine._core.losses import Loss, elementwise_loss, elementwise_negative_gradient

__all__ = ["LOSS_NAMES", "loss_values", "negative_gradient"]

_CODES = {"squared_error": Loss.SQUARED_ERROR, "absolute_error": Loss.ABSOLUTE_ERROR, "logistic": Loss.LOGISTIC}
LOSS_NAMES = tuple(_CODES)


def _code(loss: str) -> int:
    if loss not in _CODES:
        raise ValueError(f"loss must be one of {LOSS_NAMES}, got {loss!r}")
    return int(_CODES[loss])


def _arrays(Y, F):
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    F = np.ascontiguousarray(F, dtype=np.float64)
    if Y.ndim != 2 or Y.shape != F.shape:
        raise ValueError(f"Y and F must be 2-d arrays of one shape, got {Y.shape} and {F.shape}")
    return Y, F


def loss_values(loss: str, Y, F) -> np.ndarray:
    """The loss ``loss`` of every entry of targets ``Y`` (n, d) against raw predictions ``F`` (n, d)
    (multi-label: ``Y`` in {-1, +1}, ``F`` the raw scores)."""
    return elementwise_loss(_code(loss), *_arrays(Y, F))


def negative_gradient(loss: str, Y, F) -> np.ndarray:
    """The negative gradient of ``loss`` at every entry (n, d): the residuals a boosting step fits."""
    return elementwise_negative_gradient(_code(loss), *_arrays(Y, F))
