"""The :class:`Dataset` container every data source returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from engine.names import TASKS


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


def impute_median(X, rows):
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
