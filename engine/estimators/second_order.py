"""Whether the installed boosting estimators offer second-order leaves, and the parameters of a
"<method> (newton)" row: callers detect the ``leaf_estimation`` parameter instead of assuming it,
so the study and the pages work with an engine that has it and with one that has not."""
from __future__ import annotations

import functools

from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.names import NEWTON_SUFFIX

__all__ = ["has_leaf_estimation", "split_leaf_variant"]


@functools.lru_cache(maxsize=1)
def has_leaf_estimation():
    """True when both boosting estimators take ``leaf_estimation`` (read from get_params)."""
    return all("leaf_estimation" in cls().get_params()
               for cls in (MultiOutputBoostingRegressor, MultiLabelBoostingClassifier))


def split_leaf_variant(method):
    """("gbmort", {"leaf_estimation": "newton"}) for "gbmort (newton)"; (method, {}) otherwise."""
    if method.endswith(NEWTON_SUFFIX):
        return method[: -len(NEWTON_SUFFIX)], {"leaf_estimation": "newton"}
    return method, {}
