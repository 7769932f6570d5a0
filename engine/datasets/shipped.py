"""The benchmark data sets shipped in ``sample_data/`` (Mulan collection): list and load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from engine.datasets.dataset import Dataset, impute_median

SAMPLE_DATA_DIR = Path(__file__).resolve().parents[2] / "sample_data"
# What a data set's meta.json must give (the other keys are descriptive).
META_KEYS = ("task", "n_samples", "n_features", "n_targets", "compact_file")


def _available_names(root=None):
    if root is not None:
        return _folder_names(root)
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


def _folder_names(root):
    """The data sets of a user's folder laid out as sample_data/ (one sub-folder per data set with
    its meta.json and compact file); a missing or empty folder is bad input (ValueError naming root)."""
    path = Path(root)
    if not path.is_dir():
        raise ValueError(f"root: {str(root)!r} is not a folder")
    names = sorted(p.parent.name for p in path.glob("*/meta.json"))
    if not names:
        raise ValueError(f"root: no data set in {str(root)!r} (expected sub-folders with a meta.json, "
                         "laid out as sample_data/)")
    return names


def _root(root):
    return SAMPLE_DATA_DIR if root is None else Path(root)


def _read_meta(name, root=None):
    names = _available_names(root)
    if not isinstance(name, str) or name not in names:
        raise ValueError(f"unknown data set {name!r}; valid names are: {', '.join(names)}")
    try:
        with open(_root(root) / name / "meta.json", encoding="utf-8") as fh:
            meta = json.load(fh)
    except ValueError as exc:
        raise ValueError(f"{name}/meta.json is not valid JSON ({exc})") from None
    missing = [k for k in META_KEYS if not isinstance(meta, dict) or k not in meta]
    if missing:
        raise ValueError(f"{name}/meta.json lacks {', '.join(missing)} (see sample_data/emotions/meta.json)")
    return meta


def _task_of(meta):
    return "multilabel" if "label" in meta["task"] else "regression"


def _full_citation(meta):
    parts = [meta.get("citation", "")] + list(meta.get("also_cite", []) or [])
    return "\n".join(p for p in parts if p)


def list_datasets(root=None):
    """Describe the shipped data sets (or those of a folder ``root`` laid out as sample_data/)
    from their meta.json files (no array is loaded).

    Returns a list of dicts with keys name, task ("regression" or
    "multilabel"), n_samples, n_features, n_outputs, has_standard_split,
    n_test (rows of the standard test set, None without one), sparse (True when :func:`load_dataset` returns X as a scipy.sparse CSR
    matrix), nnz (the stored non-zeros of a sparse X, None for a dense one),
    citation; sorted by name. Raises ``FileNotFoundError`` when ``sample_data/``
    is missing (e.g. a non-editable install), rather than listing nothing.
    """
    out = []
    for name in _available_names(root):
        meta = _read_meta(name, root)
        out.append(
            {
                "name": name,
                "task": _task_of(meta),
                "n_samples": int(meta["n_samples"]),
                "n_features": int(meta["n_features"]),
                "n_outputs": int(meta["n_targets"]),
                "has_standard_split": (_root(root) / name / "standard_split.json").is_file(),
                "n_test": int(meta["standard_split"]["n_test"]) if meta.get("standard_split") else None,
                "sparse": _is_sparse(meta),
                "nnz": int(meta["x_nnz"]) if _is_sparse(meta) else None,
                "citation": meta.get("citation", ""),
            }
        )
    return out


def _is_sparse(meta):
    return meta.get("x_storage") == "csr"


def _read_npz(path):
    """(X, Y, feature_names, target_names) of an NPZ: X dense (key X) or CSR (X_data, X_indices, ...)."""
    with np.load(path, allow_pickle=False) as z:
        if "X_indptr" in z.files:
            try:
                shape = tuple(int(v) for v in z["X_shape"])
                X = sparse.csr_matrix((z["X_data"].astype(np.float64), z["X_indices"].astype(np.int32),
                                       z["X_indptr"].astype(np.int32)), shape=shape)
                X.check_format(full_check=True)  # a corrupt file is an error here, not a crash later
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{path.name}: the sparse X (X_data, X_indices, X_indptr, X_shape) is "
                                 f"not a valid CSR matrix: {exc}") from None
        else:
            X = z["X"].astype(np.float64)
        Y = z["Y"].astype(np.float64)
        feature_names = [str(s) for s in z["feature_names"]]
        target_names = [str(s) for s in z["target_names"]]
    return X, Y, feature_names, target_names


def load_dataset(name, root=None) -> Dataset:
    """Load one of the shipped benchmark data sets (see :func:`list_datasets`), or with
    ``root`` one of a user's folder laid out as sample_data/.

    Reads ``sample_data/<name>/`` next to the package: the compact file (CSV,
    CSV.gz, or NPZ read with ``allow_pickle=False``), ``meta.json`` and, where
    present, ``standard_split.json`` (-> ``test_indices``).

    Sparse data sets (``list_datasets()[i]["sparse"]``: bibtex, corel5k, delicious) are
    stored with X in CSR form and returned with ``X`` a ``scipy.sparse`` CSR
    matrix of float64, never densified; ``Y`` is always dense.

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
    meta = _read_meta(name, root)
    folder = _root(root) / name
    path = folder / meta["compact_file"]
    if not path.is_file():
        raise ValueError(f"{name}: meta.json names the file {meta['compact_file']!r}, which is not in {folder}")
    p = int(meta["n_features"])
    d = int(meta["n_targets"])
    X, Y, feature_names, target_names = _read_npz(path) if path.suffix == ".npz" else _read_csv(path, p, d)
    if X.shape != (int(meta["n_samples"]), p) or Y.shape[1] != d:
        raise ValueError(f"{name}: arrays have shapes {X.shape}, {Y.shape}, meta.json disagrees")
    if np.isnan(Y).any():
        raise ValueError(f"{name}: the targets contain missing values")

    test_indices = _standard_split(folder)
    if test_indices is not None:
        mask = np.ones(X.shape[0], dtype=bool)
        mask[test_indices] = False
        rows = np.flatnonzero(mask)
    else:
        rows = np.arange(X.shape[0])
    n_imputed = impute_median(X, rows)
    task = _task_of(meta)
    return Dataset(
        name=name,
        X=X,
        Y=Y,
        feature_names=feature_names,
        target_names=target_names,
        task=task,
        test_indices=test_indices,
        bayes=None,
        description=_description(name, meta, task, X, d, test_indices, n_imputed),
        citation=_full_citation(meta),
    )


def _read_csv(path, p, d):
    """(X, Y, feature names, target names) of a compact CSV file: p feature columns, then d targets."""
    df = pd.read_csv(path)
    if df.shape[1] != p + d:
        raise ValueError(f"{path.name}: expected {p + d} columns, found {df.shape[1]}")
    return (df.iloc[:, :p].to_numpy(dtype=np.float64), df.iloc[:, p:].to_numpy(dtype=np.float64),
            [str(c) for c in df.columns[:p]], [str(c) for c in df.columns[p:]])


def _standard_split(folder):
    """The test rows of the data set's standard split (None: it has none)."""
    split_path = folder / "standard_split.json"
    if not split_path.is_file():
        return None
    with open(split_path, encoding="utf-8") as fh:
        return np.asarray(json.load(fh)["test_indices"], dtype=np.intp)


def _description(name, meta, task, X, d, test_indices, n_imputed):
    """One paragraph for the user: task, sizes, sparsity, the standard split, imputed values, the
    data set's own notes."""
    p = X.shape[1]
    desc = (
        f"{name}: {meta['task']}, {X.shape[0]} samples, {p} features, {d} "
        f"{'labels' if task == 'multilabel' else 'targets'}"
    )
    if sparse.issparse(X):
        desc += f", sparse inputs ({X.nnz:,} non-zeros, {X.nnz / max(X.shape[0] * p, 1):.1%})"
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
    return desc
