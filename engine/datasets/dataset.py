"""The :class:`Dataset` container every data source returns.

X is either a dense float64 array or, for sparse data (bag-of-words inputs such as bibtex),
a ``scipy.sparse`` CSR matrix of float64 that is never densified here: row selections,
the standard split and the CSV frame all keep it sparse, so memory grows with the
non-zeros, not with n x p. Y is always dense (the estimators need dense targets).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
from scipy import sparse

from engine.names import TASKS

# Above this many cells (n x (p + d)), to_frame refuses a sparse X: its CSV would spell out
# every zero (bibtex, 14.7 million cells, gives 59 MB of text and takes over a minute to
# write). Use to_npz for sparse data instead.
MAX_SPARSE_FRAME_CELLS = 2_000_000


def as_csr(X, name="X"):
    """A scipy.sparse matrix of any format as a canonical float64 CSR matrix (not densified).

    Canonical: no duplicate entries, sorted column indices. Stored NaN or infinite values
    raise ValueError naming ``name``.
    """
    if not sparse.issparse(X):
        raise TypeError(f"{name} must be a scipy.sparse matrix, got {type(X).__name__}")
    if len(X.shape) != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    try:
        X = sparse.csr_matrix(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must contain only numbers ({exc})") from None
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if not np.isfinite(X.data).all():
        raise ValueError(f"{name} contains NaN or infinite stored values")
    return X


@dataclass
class Dataset:
    """A multi-output data set: inputs ``X`` (n x p) and outputs ``Y`` (n x d).

    Attributes
    ----------
    name : str
    X : ndarray of float64, shape (n, p), or scipy.sparse CSR matrix of float64
        Any scipy.sparse input (CSC, COO, sparse arrays ...) is converted to a
        canonical CSR matrix, never to a dense array.
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
        if sparse.issparse(self.X):
            self.X = as_csr(self.X)
        else:
            self.X = np.asarray(self.X, dtype=np.float64)
        if sparse.issparse(self.Y):
            raise ValueError("Y must be a dense array: the outputs are stored dense (only X may be sparse)")
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
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
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
    def is_sparse(self) -> bool:
        """True when X is a scipy.sparse CSR matrix."""
        return sparse.issparse(self.X)

    @property
    def nnz(self) -> int:
        """Stored non-zeros of X (for a dense X: its non-zero entries)."""
        return int(self.X.nnz) if self.is_sparse else int(np.count_nonzero(self.X))

    def take(self, rows, name=None) -> "Dataset":
        """A new Dataset with the given rows (X stays sparse if it is); no standard split."""
        rows = np.asarray(rows)
        if rows.ndim != 1 or (rows.size and not (np.issubdtype(rows.dtype, np.integer) or rows.dtype == bool)):
            raise ValueError("rows must be a 1-D array of row indices or a boolean mask")
        if rows.dtype == bool:
            if rows.size != self.n_samples:
                raise ValueError(f"rows: a boolean mask needs {self.n_samples} entries, got {rows.size}")
            rows = np.flatnonzero(rows)
        rows = rows.astype(np.intp)
        if rows.size and (rows.min() < -self.n_samples or rows.max() >= self.n_samples):
            raise ValueError(f"rows must lie in [0, {self.n_samples})")
        return Dataset(name=self.name if name is None else name, X=self.X[rows], Y=self.Y[rows],
                       feature_names=self.feature_names, target_names=self.target_names, task=self.task,
                       bayes=None if self.bayes is None else self.bayes[rows],
                       description=self.description, citation=self.citation)

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
        return self.X[tr], self.Y[tr], self.X[te], self.Y[te]  # CSR row selection stays CSR

    def to_frame(self, max_sparse_cells=MAX_SPARSE_FRAME_CELLS) -> pd.DataFrame:
        """The data as a DataFrame, feature columns then target columns (for CSV export).

        A sparse X becomes pandas sparse columns (``SparseDtype(float64, 0)``), so the
        frame holds the non-zeros only. Its CSV, however, spells out every zero, so
        above ``max_sparse_cells`` cells (n x (p + d)) this raises ValueError pointing
        to :meth:`to_npz`, which keeps X sparse on disk (None: no limit).
        """
        if self.is_sparse:
            cells = self.n_samples * (self.n_features + self.n_outputs)
            if max_sparse_cells is not None and cells > max_sparse_cells:
                raise ValueError(
                    f"{self.name}: X is sparse ({self.nnz:,} non-zeros) but a CSV would write all "
                    f"{cells:,} cells, zeros included; export it with to_npz (X kept sparse) instead")
            Xdf = pd.DataFrame.sparse.from_spmatrix(self.X, columns=self.feature_names)
        else:
            Xdf = pd.DataFrame(self.X, columns=self.feature_names)
        Ydf = pd.DataFrame(self.Y, columns=self.target_names)
        return pd.concat([Xdf, Ydf], axis=1)

    def to_npz(self, file=None):
        """Write the data in sample_data's NPZ layout (a sparse X stays sparse); bytes if no file.

        Keys: ``X`` (dense) or ``X_data``, ``X_indices``, ``X_indptr``, ``X_shape`` (CSR),
        then ``Y``, ``feature_names``, ``target_names``; no pickled objects, so
        ``np.load(file, allow_pickle=False)`` reads it, and ``scipy.sparse.csr_matrix((z["X_data"],
        z["X_indices"], z["X_indptr"]), shape=z["X_shape"])`` rebuilds a sparse X.
        """
        arrays = dict(Y=self.Y, feature_names=np.array(self.feature_names, dtype=str),
                      target_names=np.array(self.target_names, dtype=str))
        if self.is_sparse:
            arrays.update(X_data=self.X.data, X_indices=self.X.indices, X_indptr=self.X.indptr,
                          X_shape=np.array(self.X.shape, dtype=np.int64))
        else:
            arrays["X"] = self.X
        if file is not None:
            np.savez_compressed(file, **arrays)
            return None
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        return buffer.getvalue()


def impute_median(X, rows):
    """Replace NaN in each column of X by the median of that column over ``rows``.

    A column with no observed value in ``rows`` falls back to the median over
    all rows, then to 0. Returns the number of values replaced. A sparse X has
    no missing value to fill (a stored NaN is refused by :func:`as_csr`).
    """
    if sparse.issparse(X):
        if not np.isfinite(X.data).all():
            raise ValueError("X is sparse and has NaN or infinite stored values; sparse data sets "
                             "with missing values are not supported")
        return 0
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
