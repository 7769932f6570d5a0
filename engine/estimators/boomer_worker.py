"""Run BOOMER (the real ``mlrl-boomer`` package) for :mod:`engine.estimators.boomer`, in BOOMER's own Python.

This file is a script, not a module of the engine: it runs under the
interpreter that has mlrl-boomer (a second virtual environment, see
``engine/estimators/boomer.py`` for why) and imports only the standard
library, numpy, scipy and mlrl. Usage::

    python -I boomer_worker.py version
    python -I boomer_worker.py fit-score IN.npz OUT.npz

``IN.npz`` holds the training inputs (``X_train`` dense, or its CSR parts
``X_train_data/indices/indptr/shape``), ``Y_train`` (0/1), ``X_test`` (same
forms) and ``params`` (JSON text of BoomerClassifier keyword arguments).
``OUT.npz`` receives ``scores`` (n_test x d: the real-valued scores of
``predict(X, predict_scores=True)``, BOOMER's decision function), ``proba``
(``predict_proba``) and ``fit_seconds`` (the ``fit`` call alone).
"""
import json
import sys
import time

import numpy as np


def _matrix(arrays, name):
    if f"{name}_data" in arrays:
        from scipy import sparse
        return sparse.csr_matrix((arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]),
                                 shape=tuple(arrays[f"{name}_shape"]))
    return arrays[name]


def version():
    from importlib.metadata import version as installed
    import sklearn
    info = {"mlrl-boomer": installed("mlrl-boomer"), "scikit-learn": sklearn.__version__,
            "python": sys.version.split()[0]}
    from mlrl.boosting import BoomerClassifier  # noqa: F401  (the import itself is the check)
    print(json.dumps(info))


def fit_score(path_in, path_out):
    from mlrl.boosting import BoomerClassifier
    with np.load(path_in, allow_pickle=False) as arrays:
        X_train, X_test = _matrix(arrays, "X_train"), _matrix(arrays, "X_test")
        Y_train = np.ascontiguousarray(arrays["Y_train"], dtype=np.uint8)
        params = json.loads(str(arrays["params"]))
    model = BoomerClassifier(**params)
    started = time.perf_counter()
    model.fit(X_train, Y_train)
    fit_seconds = time.perf_counter() - started
    scores = np.asarray(model.predict(X_test, predict_scores=True), dtype=np.float64)
    proba = np.asarray(model.predict_proba(X_test), dtype=np.float64)
    np.savez(path_out, scores=scores, proba=proba, fit_seconds=np.float64(fit_seconds))


if __name__ == "__main__":
    if sys.argv[1:] == ["version"]:
        version()
    elif len(sys.argv) == 4 and sys.argv[1] == "fit-score":
        fit_score(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: boomer_worker.py version | fit-score IN.npz OUT.npz")
