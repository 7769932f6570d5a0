"""The parameters of a "<method> (newton)" row: the real-data study and its page name a
second-order variant by a suffix (``engine.names.NEWTON_SUFFIX``) beside the paper's methods."""
from __future__ import annotations

from engine.names import NEWTON_SUFFIX

__all__ = ["split_leaf_variant"]


def split_leaf_variant(method):
    """("gbmort", {"leaf_estimation": "newton"}) for "gbmort (newton)"; (method, {}) otherwise."""
    if method.endswith(NEWTON_SUFFIX):
        return method[: -len(NEWTON_SUFFIX)], {"leaf_estimation": "newton"}
    return method, {}
