"""Data sets for the dashboard and the experiments.

Three sources of data, all returned as a :class:`Dataset`:

* the synthetic Friedman1 multi-output problems of Joly, Wehenkel and Geurts
  (paper 002, section 4.2.1), with their Bayes prediction E[Y | X]:
  :func:`make_friedman1_multioutput` and :func:`make_friedman_dataset`;
* the 20 real benchmark sets shipped in ``sample_data/`` (Mulan collection):
  :func:`list_datasets` and :func:`load_dataset`;
* a user's own CSV file: :func:`load_csv`.

Plain numpy / pandas only; this module never imports streamlit. Every error a
user can trigger is a ``ValueError`` whose message says what to fix, so that
the dashboard can show it as is. A missing ``sample_data/`` directory is an
installation problem, not bad input: :func:`list_datasets` and
:func:`load_dataset` then raise ``FileNotFoundError`` saying where it was
expected.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
from scipy.special import sici

from engine.validation import check_choice as _check_choice
from engine.validation import check_int as _check_int
from engine.validation import check_real as _check_real

__all__ = [
    "Dataset",
    "FRIEDMAN_STRUCTURES",
    "INPUT_DISTRIBUTIONS",
    "SAMPLE_DATA_DIR",
    "friedman1",
    "friedman1_mean",
    "make_friedman1_multioutput",
    "make_friedman_dataset",
    "list_datasets",
    "load_dataset",
    "load_csv",
]

SAMPLE_DATA_DIR = Path(__file__).resolve().parent.parent / "sample_data"

FRIEDMAN_STRUCTURES = ("chain", "group", "ind")
INPUT_DISTRIBUTIONS = ("uniform", "gaussian")

_TASKS = ("regression", "multilabel")


# --------------------------------------------------------------------------
# Dataset container
# --------------------------------------------------------------------------


@dataclass
class Dataset:
    """A multi-output data set: inputs ``X`` (n x p) and outputs ``Y`` (n x d).

    Attributes
    ----------
    name : str
    X : ndarray of float64, shape (n, p)
    Y : ndarray of float64, shape (n, d)
    feature_names, target_names : list of str (lengths p and d)
    task : "regression" or "multilabel" (0/1 targets)
    test_indices : ndarray of int or None
        Rows of the standard test set when the source ships a train/test
        split; the other rows are the training set.
    bayes : ndarray (n, d) or None
        The Bayes prediction E[Y | X] when it is known (synthetic data).
    description, citation : str
    """

    name: str
    X: np.ndarray
    Y: np.ndarray
    feature_names: list
    target_names: list
    task: str = "regression"
    test_indices: Optional[np.ndarray] = None
    bayes: Optional[np.ndarray] = None
    description: str = ""
    citation: str = ""

    def __post_init__(self):
        self.X = np.asarray(self.X, dtype=np.float64)
        self.Y = np.asarray(self.Y, dtype=np.float64)
        if self.X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {self.X.shape}")
        if self.Y.ndim != 2:
            raise ValueError(f"Y must be 2-D (n_samples, n_outputs), got shape {self.Y.shape}")
        if self.X.shape[0] != self.Y.shape[0]:
            raise ValueError(
                f"X and Y must have the same number of rows, got {self.X.shape[0]} and {self.Y.shape[0]}"
            )
        self.feature_names = [str(c) for c in self.feature_names]
        self.target_names = [str(c) for c in self.target_names]
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(
                f"feature_names has {len(self.feature_names)} names for {self.X.shape[1]} features"
            )
        if len(self.target_names) != self.Y.shape[1]:
            raise ValueError(
                f"target_names has {len(self.target_names)} names for {self.Y.shape[1]} outputs"
            )
        if self.task not in _TASKS:
            raise ValueError(f"task must be one of {_TASKS}, got {self.task!r}")
        if self.test_indices is not None:
            idx = np.asarray(self.test_indices)
            if idx.ndim != 1 or (idx.size and not np.issubdtype(idx.dtype, np.integer)):
                raise ValueError("test_indices must be a 1-D array of integers")
            idx = idx.astype(np.intp)
            if idx.size and (idx.min() < 0 or idx.max() >= self.n_samples):
                raise ValueError(f"test_indices must lie in [0, {self.n_samples})")
            if np.unique(idx).size != idx.size:
                raise ValueError("test_indices contains duplicates")
            self.test_indices = idx
        if self.bayes is not None:
            self.bayes = np.asarray(self.bayes, dtype=np.float64)
            if self.bayes.shape != self.Y.shape:
                raise ValueError(
                    f"bayes must have the shape of Y {self.Y.shape}, got {self.bayes.shape}"
                )

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_outputs(self) -> int:
        return int(self.Y.shape[1])

    @property
    def train_indices(self) -> Optional[np.ndarray]:
        """Rows of the standard training set (complement of ``test_indices``)."""
        if self.test_indices is None:
            return None
        mask = np.ones(self.n_samples, dtype=bool)
        mask[self.test_indices] = False
        return np.flatnonzero(mask)

    def train_test_split(self):
        """Return ``(X_train, Y_train, X_test, Y_test)`` of the standard split.

        Raises ``ValueError`` when the data set has no standard split: the
        caller must then make its own (e.g. scikit-learn's
        ``train_test_split`` with a seed).
        """
        if self.test_indices is None:
            raise ValueError(
                f"data set {self.name!r} has no standard train/test split; "
                "pass your own split (e.g. sklearn.model_selection.train_test_split "
                "with a random_state)"
            )
        tr = self.train_indices
        te = self.test_indices
        return self.X[tr], self.Y[tr], self.X[te], self.Y[te]

    def to_frame(self) -> pd.DataFrame:
        """The data as a DataFrame, feature columns then target columns (for CSV export)."""
        Xdf = pd.DataFrame(self.X, columns=self.feature_names)
        Ydf = pd.DataFrame(self.Y, columns=self.target_names)
        return pd.concat([Xdf, Ydf], axis=1)


# --------------------------------------------------------------------------
# Argument checking helpers
# --------------------------------------------------------------------------


def _as_generator(random_state, name="random_state"):
    """numpy Generator from None, an int seed, a Generator or a RandomState.

    A Generator passed in is used (and advanced) directly. A RandomState is
    used to draw a seed for a new Generator, so it is advanced too.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"{name} must be None, an int, a numpy Generator or RandomState, got {random_state!r}"
    )


# --------------------------------------------------------------------------
# Friedman1 multi-output problems (paper 002, section 4.2.1)
# --------------------------------------------------------------------------


def friedman1(X5):
    """Noise-free Friedman1 function on the 5 columns of ``X5`` (n x 5).

    f(x) = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5   (eq. 27).
    """
    X5 = np.asarray(X5, dtype=np.float64)
    if X5.ndim != 2 or X5.shape[1] != 5:
        raise ValueError(f"X5 must have shape (n, 5), got {X5.shape}")
    return (
        10.0 * np.sin(np.pi * X5[:, 0] * X5[:, 1])
        + 20.0 * (X5[:, 2] - 0.5) ** 2
        + 10.0 * X5[:, 3]
        + 5.0 * X5[:, 4]
    )


def friedman1_mean(input_distribution="uniform"):
    """E[f(x)] of the Friedman1 function, in closed form.

    * uniform, x ~ U(0, 1)^5:
      E[10 sin(pi x1 x2)] = 10/pi * integral_0^pi (1 - cos t)/t dt
      = 10/pi * Cin(pi), with Cin(z) = gamma + ln z - Ci(z) (Euler's gamma,
      cosine integral Ci from scipy.special.sici);
      E[20 (x3 - 1/2)^2] = 20/12; E[10 x4 + 5 x5] = 7.5.
      Total about 14.4131.
    * gaussian, x ~ N(0, I5): sin(pi x1 x2) is odd in x1 and x1 is symmetric,
      so its mean is exactly 0; E[(x3 - 1/2)^2] = Var + bias^2 = 1 + 1/4, so
      20 * 1.25 = 25; E[x4] = E[x5] = 0. Total exactly 25.
    """
    _check_choice(input_distribution, "input_distribution", INPUT_DISTRIBUTIONS)
    if input_distribution == "uniform":
        _, ci = sici(np.pi)
        cin = np.euler_gamma + np.log(np.pi) - ci
        return float(10.0 * cin / np.pi + 20.0 / 12.0 + 7.5)
    return 25.0


def make_friedman1_multioutput(
    structure,
    *,
    n_samples,
    n_outputs=16,
    input_distribution="uniform",
    noise=1.0,
    n_noisy_outputs=0,
    random_state=None,
):
    """Draw a multi-output Friedman1 problem (Joly, Wehenkel & Geurts, sec. 4.2.1).

    With f the Friedman1 function (:func:`friedman1`) and e_j ~ N(0, noise^2)
    independent:

    * ``"chain"``  (eq. 29-30): y_1 = f(x) + e_1, y_j = y_{j-1} + e_j.
      Noise accumulates: Var(y_j | x) = j * noise^2, while E[y_j | x] = f(x)
      for every j. p = 5 inputs.
    * ``"group"``  (eq. 31): y_j = f(x) + e_j. p = 5 inputs.
    * ``"ind"``    (eq. 32): y_j = f(x_{5(j-1)+1}, ..., x_{5j}) + e_j for
      j = 1, ..., d (1-based, as in the paper): output 1 uses inputs x_1..x_5,
      output 2 uses x_6..x_10, ..., output d uses x_{5d-4}..x_{5d}.
      p = 5 * n_outputs inputs (the paper's x ~ N(0, I_{5d})). Eq. 32 prints
      the slice as x_{5j+1:5j+5} with j in {1, ..., d}, which taken literally
      would skip x_1..x_5 and end at x_{5d+5}, past the 5d inputs the paper
      draws; the consecutive blocks above are the only reading consistent
      with x in R^{5d}.

    Inputs. ``"uniform"`` (default) draws x ~ U(0, 1)^p, the classic Friedman
    (1991) setting. ``"gaussian"`` draws x ~ N(0, I_p), which is what the
    paper's text literally says; however the scores the paper reports only
    fit uniform inputs (with Gaussian inputs the x4, x5 terms and the sine
    behave very differently), hence the uniform default.

    Noisy outputs (section 4.2.3, Table 6). ``n_noisy_outputs`` extra outputs
    are appended after the ``n_outputs`` real ones; noisy output k (0-based)
    is an independent random row permutation of real output ``k % n_outputs``
    (including its noise), so it has the right marginal distribution but no
    link with x. Its Bayes prediction is the constant marginal mean E[y] =
    E[f(x)] (:func:`friedman1_mean`; the e_j have mean 0, and for chain
    E[y_j] = E[f(x)] too).

    Parameters
    ----------
    structure : {"chain", "group", "ind"}
    n_samples : int >= 2
    n_outputs : int >= 1, default 16 (the paper's d)
    input_distribution : {"uniform", "gaussian"}
    noise : float >= 0, standard deviation of each e_j (paper: 1)
    n_noisy_outputs : int >= 0 (paper, Table 6: 16)
    random_state : None, int, numpy Generator or RandomState
        Same seed, same data. Draw order: X, then the noise, then the
        permutations, so X depends only on the seed, n_samples, the number of
        inputs and the input distribution.

    Returns
    -------
    X : ndarray (n_samples, p)
    Y : ndarray (n_samples, n_outputs + n_noisy_outputs)
    Y_bayes : ndarray, same shape as Y, E[Y | X]
    """
    structure = _check_choice(structure, "structure", FRIEDMAN_STRUCTURES)
    n_samples = _check_int(n_samples, "n_samples", 2)
    n_outputs = _check_int(n_outputs, "n_outputs", 1)
    input_distribution = _check_choice(input_distribution, "input_distribution", INPUT_DISTRIBUTIONS)
    noise = _check_real(noise, "noise", 0.0)
    n_noisy_outputs = _check_int(n_noisy_outputs, "n_noisy_outputs", 0)
    rng = _as_generator(random_state)

    d = n_outputs
    p = 5 * d if structure == "ind" else 5
    if input_distribution == "uniform":
        X = rng.random((n_samples, p))
    else:
        X = rng.standard_normal((n_samples, p))

    if structure == "ind":
        bayes = np.column_stack([friedman1(X[:, 5 * j: 5 * j + 5]) for j in range(d)])
    else:
        bayes = np.repeat(friedman1(X)[:, None], d, axis=1)

    eps = noise * rng.standard_normal((n_samples, d))
    if structure == "chain":
        eps = np.cumsum(eps, axis=1)
    Y = bayes + eps

    if n_noisy_outputs:
        mean = friedman1_mean(input_distribution)
        noisy = np.empty((n_samples, n_noisy_outputs))
        for k in range(n_noisy_outputs):
            noisy[:, k] = Y[rng.permutation(n_samples), k % d]
        Y = np.hstack([Y, noisy])
        bayes = np.hstack([bayes, np.full((n_samples, n_noisy_outputs), mean)])

    return X, Y, bayes


_FRIEDMAN_CITATION = (
    "A. Joly, L. Wehenkel, P. Geurts. \"Gradient tree boosting with random output "
    "projections for multi-label classification and multi-output regression\". "
    "arXiv:1905.07558, 2019 (section 4.2.1). Friedman1: J. H. Friedman, "
    "\"Multivariate Adaptive Regression Splines\", Annals of Statistics 19(1), 1991."
)


def make_friedman_dataset(structure, **kwargs) -> Dataset:
    """:func:`make_friedman1_multioutput` wrapped in a :class:`Dataset`.

    Same keyword arguments. Features are named x1..xp, outputs y1..yd and the
    noisy outputs noise1..noiseK; ``bayes`` holds E[Y | X]; there is no
    standard split (draw a training and a test set with two seeds, or split).
    """
    X, Y, bayes = make_friedman1_multioutput(structure, **kwargs)
    d = int(kwargs.get("n_outputs", 16))
    k = Y.shape[1] - d
    dist = kwargs.get("input_distribution", "uniform")
    noise = kwargs.get("noise", 1.0)
    desc = (
        f"Friedman1-{structure}: {Y.shape[0]} samples, {X.shape[1]} inputs "
        f"({'U(0,1)' if dist == 'uniform' else 'N(0,1)'}), {d} outputs, noise sd {noise}"
        + (f", plus {k} purely noisy outputs (row permutations of real outputs)" if k else "")
        + "."
    )
    return Dataset(
        name=f"friedman1-{structure}",
        X=X,
        Y=Y,
        feature_names=[f"x{i + 1}" for i in range(X.shape[1])],
        target_names=[f"y{j + 1}" for j in range(d)] + [f"noise{j + 1}" for j in range(k)],
        task="regression",
        test_indices=None,
        bayes=bayes,
        description=desc,
        citation=_FRIEDMAN_CITATION,
    )


# --------------------------------------------------------------------------
# Shipped benchmark data sets (sample_data/)
# --------------------------------------------------------------------------


def _available_names():
    # An empty list would read as "no data sets" and hide a broken install:
    # sample_data/ sits next to the package in the source tree, so a
    # non-editable install (or a moved package) cannot see it.
    if not SAMPLE_DATA_DIR.is_dir():
        raise FileNotFoundError(
            f"the shipped data sets are missing: {SAMPLE_DATA_DIR} is not a directory. "
            "sample_data/ lives in the project's source tree next to engine/; run from a "
            "checkout installed in editable mode (pip install -e .)")
    names = sorted(p.parent.name for p in SAMPLE_DATA_DIR.glob("*/meta.json"))
    if not names:
        raise FileNotFoundError(f"the shipped data sets are missing: no */meta.json under {SAMPLE_DATA_DIR}")
    return names


def _read_meta(name):
    names = _available_names()
    if not isinstance(name, str) or name not in names:
        raise ValueError(f"unknown data set {name!r}; valid names are: {', '.join(names)}")
    with open(SAMPLE_DATA_DIR / name / "meta.json", encoding="utf-8") as fh:
        return json.load(fh)


def _task_of(meta):
    return "multilabel" if "label" in meta["task"] else "regression"


def _full_citation(meta):
    parts = [meta.get("citation", "")] + list(meta.get("also_cite", []) or [])
    return "\n".join(p for p in parts if p)


def list_datasets():
    """Describe the shipped data sets from their meta.json files (no array is loaded).

    Returns a list of dicts with keys name, task ("regression" or
    "multilabel"), n_samples, n_features, n_outputs, has_standard_split,
    citation; sorted by name. Raises ``FileNotFoundError`` when ``sample_data/``
    is missing (e.g. a non-editable install), rather than listing nothing.
    """
    out = []
    for name in _available_names():
        meta = _read_meta(name)
        out.append(
            {
                "name": name,
                "task": _task_of(meta),
                "n_samples": int(meta["n_samples"]),
                "n_features": int(meta["n_features"]),
                "n_outputs": int(meta["n_targets"]),
                "has_standard_split": (SAMPLE_DATA_DIR / name / "standard_split.json").is_file(),
                "citation": meta.get("citation", ""),
            }
        )
    return out


def _impute_median(X, rows):
    """Replace NaN in each column of X by the median of that column over ``rows``.

    A column with no observed value in ``rows`` falls back to the median over
    all rows, then to 0. Returns the number of values replaced.
    """
    missing = np.isnan(X)
    if not missing.any():
        return 0
    for j in np.flatnonzero(missing.any(axis=0)):
        col = X[rows, j]
        col = col[~np.isnan(col)]
        if col.size == 0:
            col = X[~np.isnan(X[:, j]), j]
        X[missing[:, j], j] = np.median(col) if col.size else 0.0
    return int(missing.sum())


def load_dataset(name) -> Dataset:
    """Load one of the shipped benchmark data sets (see :func:`list_datasets`).

    Reads ``sample_data/<name>/`` next to the package: the compact file (CSV,
    CSV.gz, or NPZ read with ``allow_pickle=False``), ``meta.json`` and, where
    present, ``standard_split.json`` (-> ``test_indices``).

    Missing values. Only rf1 has any (3264 feature values in 120 rows, lagged
    measurements at the start of its time series; never in the targets).
    Each missing feature value is replaced by the median of that feature over
    the *training rows of the standard split* when there is one (so nothing
    leaks from the test rows), and over all rows otherwise (rf1 has no
    standard split, so for rf1 the medians use every row; with your own
    split this is a mild, label-free leakage of feature medians only). The
    number of imputed values is given in ``description``. Targets never
    contain NaN (checked; a ValueError is raised otherwise).
    """
    meta = _read_meta(name)
    folder = SAMPLE_DATA_DIR / name
    path = folder / meta["compact_file"]
    p = int(meta["n_features"])
    d = int(meta["n_targets"])
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            X = z["X"].astype(np.float64)
            Y = z["Y"].astype(np.float64)
            feature_names = [str(s) for s in z["feature_names"]]
            target_names = [str(s) for s in z["target_names"]]
    else:
        df = pd.read_csv(path)
        if df.shape[1] != p + d:
            raise ValueError(f"{path.name}: expected {p + d} columns, found {df.shape[1]}")
        X = df.iloc[:, :p].to_numpy(dtype=np.float64)
        Y = df.iloc[:, p:].to_numpy(dtype=np.float64)
        feature_names = [str(c) for c in df.columns[:p]]
        target_names = [str(c) for c in df.columns[p:]]
    if X.shape != (int(meta["n_samples"]), p) or Y.shape[1] != d:
        raise ValueError(f"{name}: arrays have shapes {X.shape}, {Y.shape}, meta.json disagrees")
    if np.isnan(Y).any():
        raise ValueError(f"{name}: the targets contain missing values")

    test_indices = None
    split_path = folder / "standard_split.json"
    if split_path.is_file():
        with open(split_path, encoding="utf-8") as fh:
            test_indices = np.asarray(json.load(fh)["test_indices"], dtype=np.intp)

    if test_indices is not None:
        mask = np.ones(X.shape[0], dtype=bool)
        mask[test_indices] = False
        rows = np.flatnonzero(mask)
    else:
        rows = np.arange(X.shape[0])
    n_imputed = _impute_median(X, rows)

    task = _task_of(meta)
    desc = (
        f"{name}: {meta['task']}, {X.shape[0]} samples, {p} features, {d} "
        f"{'labels' if task == 'multilabel' else 'targets'}"
    )
    if test_indices is not None:
        desc += f", standard split {X.shape[0] - test_indices.size}/{test_indices.size} (train/test)"
    desc += "."
    if n_imputed:
        desc += (
            f" {n_imputed} missing feature values were replaced by the feature's median over "
            + ("the training rows." if test_indices is not None else "all rows.")
        )
    for note in meta.get("notes", []) or []:
        desc += " " + note
    return Dataset(
        name=name,
        X=X,
        Y=Y,
        feature_names=feature_names,
        target_names=target_names,
        task=task,
        test_indices=test_indices,
        bayes=None,
        description=desc,
        citation=_full_citation(meta),
    )


# --------------------------------------------------------------------------
# User CSV upload
# --------------------------------------------------------------------------

DEFAULT_MAX_BYTES = 20_000_000
DEFAULT_MAX_ROWS = 100_000
DEFAULT_MAX_COLUMNS = 2_000

_NA_TOKENS = {"", "na", "nan", "n/a", "null", "none", "?"}


def _read_limited(file_or_buffer, max_bytes):
    """Raw bytes of a path / bytes / file-like, refusing more than max_bytes."""
    if isinstance(file_or_buffer, (bytes, bytearray, memoryview)):
        raw = bytes(file_or_buffer)
    elif isinstance(file_or_buffer, (str, os.PathLike)):
        path = Path(file_or_buffer)
        if not path.is_file():
            raise ValueError(f"file not found: {path}")
        if path.stat().st_size > max_bytes:
            raise ValueError(
                f"the file is {path.stat().st_size:,} bytes, over the limit of {max_bytes:,} bytes"
            )
        raw = path.read_bytes()
    elif hasattr(file_or_buffer, "read"):
        raw = file_or_buffer.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise ValueError(
            f"file_or_buffer must be a path, bytes or a file-like object, got {type(file_or_buffer).__name__}"
        )
    if len(raw) > max_bytes:
        raise ValueError(f"the file is over the size limit of {max_bytes:,} bytes")
    if raw[:2] == b"\x1f\x8b":  # gzip: decompress, bounded
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise ValueError(f"the file looks gzip-compressed but cannot be decompressed: {exc}") from None
        if len(raw) > max_bytes:
            raise ValueError(f"the decompressed file is over the size limit of {max_bytes:,} bytes")
    return raw


def _check_field_counts(text, sep, n_columns, max_rows):
    """Refuse ragged rows: pandas pads short rows silently (as empty fields)."""
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    for k, row in enumerate(reader):
        if k > max_rows + 1:
            break
        if row and len(row) != n_columns:
            raise ValueError(
                f"malformed CSV: line {reader.line_num} has {len(row)} fields, "
                f"the header has {n_columns}"
            )


def load_csv(
    file_or_buffer,
    target_columns,
    *,
    name="uploaded",
    max_bytes=DEFAULT_MAX_BYTES,
    max_rows=DEFAULT_MAX_ROWS,
    max_columns=DEFAULT_MAX_COLUMNS,
    sep=",",
) -> Dataset:
    """Parse a user's CSV file into a :class:`Dataset` (data only, nothing is evaluated).

    ``name`` defaults to the file's name without extension when the source
    has one (a path, or an upload object with a ``name`` attribute).

    The file needs a header row; ``target_columns`` (a column name or a list
    of names) are the outputs and every other column is a feature. All values
    must be numbers. A gzip-compressed file is accepted too.

    Missing values: empty fields and NA / NaN / null / ? tokens are missing.
    They are refused in the targets; in a feature they are replaced by the
    median of that feature over all rows (the description says how many).

    ``task`` is "multilabel" when every target value is 0 or 1, "regression"
    otherwise.

    Limits (defaults): ``max_bytes`` 20 MB (after decompression), ``max_rows``
    100 000 data rows, ``max_columns`` 2 000 columns.

    Raises ValueError (with a message meant for the user) for: an empty file,
    a malformed CSV (ragged rows, not text), a file over a limit, unknown or
    duplicated target columns, no feature column, non-numeric or infinite
    values (the column and an example are named), fewer than 2 data rows,
    missing target values, a feature with no value at all.
    """
    max_bytes = _check_int(max_bytes, "max_bytes", 1)
    max_rows = _check_int(max_rows, "max_rows", 2)
    max_columns = _check_int(max_columns, "max_columns", 2)
    if isinstance(target_columns, str):
        target_columns = [target_columns]
    try:
        target_columns = list(target_columns)
    except TypeError:
        raise ValueError("target_columns must be a column name or a list of column names") from None
    if not target_columns or not all(isinstance(c, str) for c in target_columns):
        raise ValueError("target_columns must be a non-empty list of column names (strings)")
    if len(set(target_columns)) != len(target_columns):
        raise ValueError("target_columns lists the same column twice")

    if name == "uploaded":  # default: use the file's own name when it has one
        src = getattr(file_or_buffer, "name", file_or_buffer)
        if isinstance(src, (str, os.PathLike)):
            stem = Path(src).name
            for suffix in (".gz", ".csv"):
                stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
            name = stem or name
    raw = _read_limited(file_or_buffer, max_bytes)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("the file is not a UTF-8 text CSV file") from None
    if "\x00" in text:
        raise ValueError("the file is not a text CSV file (it contains NUL bytes)")
    if not text.strip():
        raise ValueError("the file is empty")

    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            na_filter=False,
            skip_blank_lines=True,
            nrows=max_rows + 2,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        raise ValueError("the file is empty") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"malformed CSV: {str(exc).strip()}") from None

    if df.shape[1] > max_columns:
        raise ValueError(f"the file has {df.shape[1]} columns, over the limit of {max_columns}")
    if df.shape[0] - 1 > max_rows:
        raise ValueError(f"the file has more than {max_rows:,} data rows (the limit)")
    _check_field_counts(text, sep, df.shape[1], max_rows)

    header = [str(h).strip() for h in df.iloc[0]]
    body = df.iloc[1:]
    if any(h == "" for h in header):
        raise ValueError("malformed CSV: the header row has an empty column name")
    dups = sorted({h for h in header if header.count(h) > 1})
    if dups:
        raise ValueError(f"the header has duplicated column names: {', '.join(dups)}")
    missing = [c for c in target_columns if c not in header]
    if missing:
        hint = ""
        if len(header) == 1:
            for other in (";", "\t", "|"):
                if other in header[0]:
                    hint = f" (the file seems to use {other!r} as separator, not {sep!r})"
        raise ValueError(
            f"target column(s) not found: {', '.join(missing)}; the columns are: "
            + ", ".join(header[:50])
            + (" ..." if len(header) > 50 else "")
            + hint
        )
    if len(target_columns) == len(header):
        raise ValueError("every column is a target: at least one feature column is needed")
    if body.shape[0] < 2:
        raise ValueError(f"the file has {body.shape[0]} data row(s); at least 2 are needed")

    values = np.empty(body.shape, dtype=np.float64)
    for j, col in enumerate(header):
        s = body.iloc[:, j].str.strip()
        is_na = s.str.lower().isin(_NA_TOKENS).to_numpy()
        num = pd.to_numeric(s.where(~is_na, None), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(num) & ~is_na
        kind = "target" if col in target_columns else "feature"
        if bad.any():
            example = s.iloc[int(np.flatnonzero(bad)[0])]
            raise ValueError(
                f"{kind} column {col!r} is not numeric (e.g. value {example[:40]!r} "
                f"on data row {int(np.flatnonzero(bad)[0]) + 1}); encode categories as numbers"
            )
        if np.isinf(num).any():
            raise ValueError(f"{kind} column {col!r} contains infinite values")
        values[:, j] = num

    t_idx = [header.index(c) for c in target_columns]
    f_idx = [j for j in range(len(header)) if j not in set(t_idx)]
    X = values[:, f_idx]
    Y = values[:, t_idx]

    nan_t = np.isnan(Y).any(axis=0)
    if nan_t.any():
        cols = [target_columns[j] for j in np.flatnonzero(nan_t)]
        raise ValueError(f"target column(s) with missing values: {', '.join(cols)}")
    empty_f = np.isnan(X).all(axis=0)
    if empty_f.any():
        cols = [header[f_idx[j]] for j in np.flatnonzero(empty_f)]
        raise ValueError(f"feature column(s) with no value at all: {', '.join(cols)}")
    n_imputed = _impute_median(X, np.arange(X.shape[0]))

    task = "multilabel" if np.isin(Y, (0.0, 1.0)).all() else "regression"
    desc = (
        f"Uploaded CSV: {X.shape[0]} rows, {X.shape[1]} features, {Y.shape[1]} "
        f"{'labels' if task == 'multilabel' else 'targets'}."
    )
    if n_imputed:
        desc += f" {n_imputed} missing feature values were replaced by the feature's median."
    return Dataset(
        name=str(name),
        X=X,
        Y=Y,
        feature_names=[header[j] for j in f_idx],
        target_names=list(target_columns),
        task=task,
        test_indices=None,
        bayes=None,
        description=desc,
        citation="",
    )
