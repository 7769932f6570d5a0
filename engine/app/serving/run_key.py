"""The key of a run: everything that determines a result, hashed.

The engine is deterministic (same problem, settings and seed, same result), so a run is named by
its page, its function, every argument and the engine's version: two sessions asking for the same
key want the same result, and the run store (:mod:`engine.app.serving.runstore`) computes it once.
Arrays and sparse matrices count by content, dicts in any order, and every value is type-tagged
(1, 1.0 and "1" differ).
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from typing import Any, Callable, Mapping

import numpy as np

from engine.experiments.engine_version import engine_version   # version + the core's sources' hash

__all__ = ["run_key", "run_key_part"]


def _feed(h, obj: Any) -> None:
    """Feed a canonical encoding of ``obj`` to the hash ``h`` (type-tagged, so 1 != 1.0 != "1")."""
    if obj is None or isinstance(obj, (bool, int, float, complex, str)):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, bytes):
        h.update(b"bytes:" + hashlib.sha256(obj).digest())
    elif isinstance(obj, np.generic):
        _feed(h, obj.item())
    elif isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        h.update(f"ndarray:{a.dtype.str}:{a.shape};".encode())
        if a.dtype.hasobject:
            for x in a.ravel():
                _feed(h, x)
        else:
            h.update(hashlib.sha256(a.view(np.uint8).ravel() if a.size else b"").digest())
    elif hasattr(obj, "tocsr") and hasattr(obj, "nnz"):          # a scipy sparse matrix / array
        m = obj.tocsr()
        m.sort_indices()
        h.update(f"sparse:{m.shape};".encode())
        for part in (m.data, m.indices, m.indptr):
            _feed(h, part)
    elif isinstance(obj, Mapping):
        items = sorted(((run_key_part(k), v) for k, v in obj.items()), key=lambda kv: kv[0])
        h.update(f"map:{len(items)};".encode())
        for k, v in items:
            h.update(k.encode())
            _feed(h, v)
    elif isinstance(obj, (list, tuple)):
        h.update(f"{type(obj).__name__}:{len(obj)};".encode())
        for x in obj:
            _feed(h, x)
    elif isinstance(obj, (set, frozenset)):
        _feed(h, sorted(run_key_part(x) for x in obj))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"dataclass:{type(obj).__qualname__};".encode())
        _feed(h, {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    elif callable(obj) and hasattr(obj, "__qualname__"):
        h.update(f"callable:{getattr(obj, '__module__', '')}.{obj.__qualname__};".encode())
    elif hasattr(obj, "get_params") and hasattr(obj, "set_params"):   # an estimator's settings
        h.update(f"estimator:{type(obj).__qualname__};".encode())
        _feed(h, obj.get_params(deep=False))
    else:   # anything else by its pickle (deterministic for plain objects)
        try:
            h.update(b"pickle:" + hashlib.sha256(pickle.dumps(obj, protocol=4)).digest())
        except Exception as exc:  # noqa: BLE001
            if not callable(obj):
                raise TypeError(f"run_key: cannot hash a {type(obj).__name__}") from exc
            # a callable object with state that does not pickle: by identity (never wrongly shared)
            h.update(f"object:{type(obj).__qualname__}:{id(obj)};".encode())


def run_key_part(obj: Any) -> str:
    """The hash of one object (hex), as it enters a run key."""
    h = hashlib.sha256()
    _feed(h, obj)
    return h.hexdigest()


def run_key(page: str, target: Callable, *args: Any, **kwargs: Any) -> str:
    """The key of a run: page, function, every argument and the engine's version.

    Two calls differing in any argument (a setting, the seed, one value of the data) give
    different keys; keyword arguments in another order, or dicts built in another order, give
    the same key. Arrays and sparse matrices count by content, not identity.
    """
    if not isinstance(page, str) or not page:
        raise ValueError(f"page must be a non-empty string, got {page!r}")
    if not callable(target):
        raise ValueError(f"target must be callable, got {type(target).__name__}")
    h = hashlib.sha256()
    _feed(h, ("run", page, engine_version(), target, list(args), dict(kwargs)))
    return h.hexdigest()
