"""BOOMER (paper 004: gradient boosted multi-label rules) as a reference row, from the real package.

Why a second Python: ``mlrl-boomer`` pins scikit-learn tightly (0.12.3, the
last release for Python 3.11, needs scikit-learn >= 1.7, < 1.8 and packaging
< 26; 0.13+ need Python 3.12 and still pin scikit-learn below this project's
1.9). Installing it beside the engine would run the whole project on an older
scikit-learn. So BOOMER lives in its own virtual environment, made by
``sh tests/install_boomer.sh`` from the pins of the ``boomer`` extra in
pyproject.toml, and :func:`boomer_fit_score` runs it there as a subprocess
(``boomer_worker.py``), passing the data and getting the scores back through a
temporary ``.npz`` file. Data, splits and scores are the study's own; only the
fit and the prediction happen in BOOMER's interpreter.

Which Python: the environment variable ``RPO_BOOMER_PYTHON`` if set, else the
virtual environment the install script makes (``RPO_BOOMER_VENV``, default
``~/.cache/rpo-explorer/boomer-<version>``), else this interpreter (if someone
installed the extra here). :func:`boomer_status` says which one works, or why
none does, in a sentence that tells how to fix it.

Settings: ``BoomerClassifier`` with its documented defaults (``loss=None``:
the package's default, the decomposable logistic loss) or with
``loss="logistic-non-decomposable"``; ``max_rules`` only where a budget asks
for fewer rules than the default 1000. ``random_state`` must be >= 1 (BOOMER's
rule). :func:`boomer_fit_score` returns both ``predict(X, predict_scores=True)``
(BOOMER's real-valued scores, its decision function) and ``predict_proba``; the
study ranks labels by the probabilities (see ``study_cells.final_cell``).
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

__all__ = ["BOOMER_VERSION", "BoomerTooLarge", "BoomerUnavailable", "boomer_fit_score", "boomer_memory_bytes",
           "boomer_memory_check", "boomer_python", "boomer_status", "machine_memory_bytes"]

# Must match the "boomer" extra of pyproject.toml (tests check that they agree).
BOOMER_VERSION = "0.12.3"
PYTHON_VARIABLE = "RPO_BOOMER_PYTHON"
VENV_VARIABLE = "RPO_BOOMER_VENV"
WORKER = Path(__file__).with_name("boomer_worker.py")
INSTALL_HINT = ("Install it with `sh tests/install_boomer.sh` (a separate virtual environment with the pins of "
                "pyproject's 'boomer' extra), or set RPO_BOOMER_PYTHON to a Python that has mlrl-boomer "
                f"{BOOMER_VERSION}")


class BoomerUnavailable(RuntimeError):
    """mlrl-boomer cannot be run: not installed, or an incompatible version."""


class BoomerTooLarge(MemoryError):
    """The fit would need more memory than the machine has (see :func:`boomer_memory_bytes`)."""


# Bytes per stored statistic of BOOMER 0.12.3 (float64). Its non-decomposable logistic loss keeps,
# for every training example, the gradient (d) and the packed label-pair Hessian (d (d + 1) / 2).
# Measured on delicious slices (1 to 2 rules), the worker's peak RSS grows by 8.0 bytes per added
# n d (d + 1) / 2 entry (250 -> 500 examples: +494 MB at 700 labels, +971 MB at 983), above about
# 0.35 GB of interpreter, libraries and data (tests/estimators/test_boomer.py checks it). So the
# full delicious (12 920 x 983) needs about 50 GB, corel5k (4 500 x 374) about 2.5 GB.
_BYTES_PER_STATISTIC = 8


def boomer_memory_bytes(n_samples, n_labels, loss=None):
    """Bytes of the per-example statistics BOOMER's fit keeps (the bulk of its memory).

    Decomposable losses (``loss`` None, BOOMER's default): a gradient and a
    Hessian per label, 2 n d. ``"logistic-non-decomposable"``: the gradient and
    the label-pair Hessian, n (d + d (d + 1) / 2), quadratic in the labels.
    """
    n, d = int(n_samples), int(n_labels)
    per_example = d + d * (d + 1) // 2 if loss == "logistic-non-decomposable" else 2 * d
    return _BYTES_PER_STATISTIC * n * per_example


def _meminfo(field):
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def machine_memory_bytes(available=False):
    """This machine's physical memory in bytes (``available``: what is free for a new process now);
    None where neither /proc/meminfo nor sysconf tells."""
    found = _meminfo("MemAvailable" if available else "MemTotal")
    if found is None and not available:
        try:
            found = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            found = None
    return found


def boomer_memory_check(n_samples, n_labels, loss=None, *, memory=None):
    """None if a fit on ``n_samples`` x ``n_labels`` fits in ``memory`` bytes (default: this machine's
    available memory), else a sentence saying how much it would need and how much there is."""
    memory = machine_memory_bytes(available=True) if memory is None else memory
    need = boomer_memory_bytes(n_samples, n_labels, loss)
    if memory is None or need <= memory:
        return None
    kind = "non-decomposable" if loss == "logistic-non-decomposable" else "decomposable"
    return (f"BOOMER's {kind} loss on {n_samples} examples x {n_labels} labels keeps about {_size(need)} of "
            f"per-example statistics, more than the {_size(memory)} this machine has")


def _size(n_bytes):
    return f"{n_bytes / 1e9:.1f} GB" if n_bytes >= 1e9 else f"{n_bytes / 1e6:.1f} MB"


def default_venv() -> Path:
    """Where ``tests/install_boomer.sh`` puts BOOMER's virtual environment."""
    if os.environ.get(VENV_VARIABLE):
        return Path(os.environ[VENV_VARIABLE])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "rpo-explorer" / f"boomer-{BOOMER_VERSION}"


def _candidates():
    if os.environ.get(PYTHON_VARIABLE):
        return [os.environ[PYTHON_VARIABLE]]     # asked for: no fallback that would hide a mistake
    return [str(default_venv() / "bin" / "python"), sys.executable]


@functools.lru_cache(maxsize=8)
def _probe(python):
    """(version info dict or None, why not)."""
    if not Path(python).exists():
        return None, f"{python} does not exist"
    try:
        done = subprocess.run([python, "-I", str(WORKER), "version"], capture_output=True, text=True,
                              timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{python} cannot run: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"{python} cannot import mlrl-boomer ({last})"
    info = json.loads(done.stdout.strip().splitlines()[-1])
    if info["mlrl-boomer"] != BOOMER_VERSION:
        return None, (f"{python} has mlrl-boomer {info['mlrl-boomer']}, but this project is written "
                      f"and tested against {BOOMER_VERSION}")
    return info, ""


def boomer_status():
    """``(python, info, message)``: the interpreter that runs BOOMER and its versions, or
    ``(None, None, why)`` with a sentence saying what is wrong and how to install it."""
    reasons = []
    for python in _candidates():
        info, why = _probe(python)
        if info is not None:
            return python, info, f"mlrl-boomer {info['mlrl-boomer']} (scikit-learn {info['scikit-learn']}, " \
                                 f"Python {info['python']}) in {python}"
        reasons.append(why)
    return None, None, "BOOMER (mlrl-boomer) is not available: " + "; ".join(reasons) + ". " + INSTALL_HINT


def boomer_python():
    """The interpreter that runs BOOMER; :class:`BoomerUnavailable` with the reason if there is none."""
    python, _, message = boomer_status()
    if python is None:
        raise BoomerUnavailable(message)
    return python


@dataclass
class BoomerScores:
    scores: np.ndarray          # (n_test, d): real-valued label scores (LRAP is computed on these)
    proba: np.ndarray           # (n_test, d): predict_proba
    fit_seconds: float          # BoomerClassifier.fit alone, measured in the worker


def _put(arrays, name, X):
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
        arrays.update({f"{name}_data": X.data.astype(np.float32), f"{name}_indices": X.indices,
                       f"{name}_indptr": X.indptr, f"{name}_shape": np.asarray(X.shape)})
    else:
        arrays[name] = np.ascontiguousarray(X, dtype=np.float32)


def boomer_fit_score(X_train, Y_train, X_test, *, loss=None, max_rules=None, random_state=1,
                     timeout=None) -> BoomerScores:
    """Fit ``BoomerClassifier`` on (X_train, Y_train) and score X_test, in BOOMER's Python.

    ``loss`` None = BOOMER's default; ``max_rules`` None = its default (1000).
    Raises :class:`BoomerTooLarge` before starting when the fit's statistics
    would not fit in the available memory (:func:`boomer_memory_check`).
    """
    if loss is not None and not isinstance(loss, str):
        raise ValueError(f"loss must be None or a BOOMER loss name, got {loss!r}")
    if max_rules is not None and (not isinstance(max_rules, (int, np.integer)) or max_rules < 1):
        raise ValueError(f"max_rules must be None or an integer >= 1, got {max_rules!r}")
    if not isinstance(random_state, (int, np.integer)) or random_state < 1:
        raise ValueError(f"random_state must be an integer >= 1 (BOOMER's rule), got {random_state!r}")
    Y_train = np.asarray(Y_train)
    if Y_train.ndim != 2 or not np.isin(Y_train, (0, 1)).all():
        raise ValueError("Y_train must be a 2-D 0/1 label matrix (BOOMER is for multi-label classification)")
    too_large = boomer_memory_check(Y_train.shape[0], Y_train.shape[1], loss)
    if too_large is not None:       # refused before the worker is killed by the kernel's OOM killer
        raise BoomerTooLarge(too_large)
    python = boomer_python()
    params = {"random_state": int(random_state)}
    if loss is not None:
        params["loss"] = loss
    if max_rules is not None:
        params["max_rules"] = int(max_rules)
    arrays = {"Y_train": Y_train.astype(np.uint8), "params": np.asarray(json.dumps(params))}
    _put(arrays, "X_train", X_train)
    _put(arrays, "X_test", X_test)
    with tempfile.TemporaryDirectory(prefix="boomer-") as tmp:
        path_in, path_out = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(path_in, **arrays)
        done = subprocess.run([python, "-I", str(WORKER), "fit-score", str(path_in), str(path_out)],
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"BOOMER failed ({python}): {done.stderr.strip()[-2000:]}")
        with np.load(path_out) as out:
            return BoomerScores(scores=out["scores"], proba=out["proba"], fit_seconds=float(out["fit_seconds"]))
