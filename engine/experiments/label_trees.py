"""The extreme-classification peers, fitted as their users fit them: napkinXC's PLT and Omikuji.

For a data set with hundreds of labels a practitioner reaches first for a label-tree classifier
(probabilistic label trees: napkinXC's ``PLT``; Omikuji's Parabel- and Bonsai-like trees), on
L2-normalised rows, the convention of that field. :func:`plt_fit` and :func:`omikuji_fit` fit one
with its defaults (or Bonsai's settings, :data:`OMIKUJI_SETTINGS`) on one thread and return its
fit's process CPU seconds and its test scores as an (n_test, d) matrix. napkinXC's fits are not
reproducible to the bit even with a seed (two fits of corel5k: probabilities up to 0.02 apart). Both packages are optional
(the bench extra): each function raises ImportError without its package. Used by ``python -m
engine.bench --extreme`` / ``--multilabel`` and by the Projections page's race (PLT).
"""
import os
import sys
import tempfile
import time
from contextlib import contextmanager

import numpy as np
from scipy import sparse
from sklearn.preprocessing import normalize

__all__ = ["OMIKUJI_SETTINGS", "UNSCORED", "l2_rows", "omikuji_fit", "plt_fit", "plt_installed",
           "score_matrix", "write_xmc_file"]

# Omikuji's defaults are Parabel's; Bonsai's as Omikuji's README runs them.
OMIKUJI_SETTINGS = {"Parabel": {}, "Bonsai": {"cluster_balanced": False, "cluster_k": 100, "max_depth": 3}}
UNSCORED = -1.0          # a label a peer returns no score for ranks below every scored one


def plt_installed():
    """Whether napkinXC can be imported (asked afresh, as the race asks for XGBoost)."""
    import importlib.util
    importlib.invalidate_caches()
    return importlib.util.find_spec("napkinxc") is not None


def score_matrix(rows, n, d, fill=UNSCORED):
    """(n, d) scores from a peer's per-row lists of (label, score); labels left out get ``fill``."""
    S = np.full((n, d), fill)
    for i, row in enumerate(rows):
        if row:
            labels, values = zip(*row)
            S[i, list(labels)] = values
    return S


def l2_rows(X):
    """X as CSR float64 with every row scaled to unit Euclidean norm (empty rows stay empty)."""
    return normalize(sparse.csr_matrix(X, dtype=np.float64), norm="l2", axis=1)


@contextmanager
def quiet_output():
    """Send file descriptors 1 and 2 to /dev/null (napkinXC draws progress bars from C++ and
    Omikuji logs from Rust, whatever their verbosity settings)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [devnull]:
            os.close(fd)


def plt_fit(X, Y, X_test, seed=0, clock=time.process_time):
    """(process CPU seconds of fit, test probabilities (n_test, d)) of napkinXC's PLT, defaults,
    one thread; X, X_test L2-normalised CSR. Raises ImportError without napkinXC. ``clock``: the
    bench's process CPU time, or the race's wall clock (``time.perf_counter``) as its other curves."""
    from napkinxc.models import PLT
    d = Y.shape[1]
    with tempfile.TemporaryDirectory() as folder, quiet_output():
        model = PLT(folder, threads=1, seed=seed)
        start = clock()
        model.fit(X, sparse.csr_matrix(Y))
        seconds = clock() - start
        rows = model.predict_proba(X_test, top_k=d)
    return seconds, score_matrix(rows, X_test.shape[0], d, fill=0.0)


def write_xmc_file(path, X, Y):
    """The Extreme Classification Repository's text format: a header "n p d", then per row
    "label,label,... feature:value feature:value ..."."""
    X = sparse.csr_matrix(X)
    Y = np.asarray(Y) > 0
    with open(path, "w", encoding="ascii") as out:
        out.write(f"{X.shape[0]} {X.shape[1]} {Y.shape[1]}\n")
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            features = " ".join(f"{j}:{v:.9g}" for j, v in zip(X.indices[a:b], X.data[a:b]))
            out.write(",".join(map(str, np.flatnonzero(Y[i]))) + " " + features + "\n")


def omikuji_fit(path, X_test, d, setting):
    """(process CPU seconds of training from ``path``, test scores (n_test, d)) of Omikuji with
    its defaults changed by ``OMIKUJI_SETTINGS[setting]``, one thread. Raises ImportError
    without Omikuji."""
    import omikuji
    params = omikuji.Model.default_hyper_param()
    for name, value in OMIKUJI_SETTINGS[setting].items():
        setattr(params, name, value)
    X_test = sparse.csr_matrix(X_test)
    with quiet_output():
        start = time.process_time()
        model = omikuji.Model.train_on_data(path, params, n_threads=1)
        seconds = time.process_time() - start
        model.init_prediction_thread_pool(1)
        rows = []
        for i in range(X_test.shape[0]):
            a, b = X_test.indptr[i], X_test.indptr[i + 1]
            pairs = list(zip(X_test.indices[a:b].tolist(), X_test.data[a:b].tolist()))
            rows.append(model.predict(pairs, top_k=d))
    return seconds, score_matrix(rows, X_test.shape[0], d)
