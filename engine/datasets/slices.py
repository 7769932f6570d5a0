"""A small, fixed slice of the real delicious: the papers' delicious figures in seconds.

``delicious-slice`` keeps the first 1000 rows of delicious' standard training part, the first
500 of its test part and the 100 labels most frequent in those training rows (ties by label
order), X still CSR. It is real data (it learns, unlike the synthetic delicious-shaped set), so
the reproductions' ``--quick`` mode and the tests run every delicious path on it; its scores are
not the paper's (fewer rows and labels).
"""

from __future__ import annotations

import numpy as np

from engine.datasets.dataset import Dataset
from engine.datasets.shipped import list_datasets, load_dataset

__all__ = ["DELICIOUS_SLICE", "SLICE_SHAPE", "load_slice", "slice_catalogue"]

DELICIOUS_SLICE = "delicious-slice"
SLICE_SHAPE = {"source": "delicious", "n_train": 1000, "n_test": 500, "n_labels": 100}


def load_slice(name=DELICIOUS_SLICE) -> Dataset:
    """The slice as a :class:`Dataset` (standard split kept: its last 500 rows are the test set)."""
    if name != DELICIOUS_SLICE:
        raise ValueError(f"name must be {DELICIOUS_SLICE!r}, got {name!r}")
    shape = SLICE_SHAPE
    data = load_dataset(shape["source"])
    test = np.asarray(data.test_indices)
    train = np.setdiff1d(np.arange(data.n_samples), test)
    rows = np.concatenate([train[:shape["n_train"]], test[:shape["n_test"]]])
    counts = data.Y[train[:shape["n_train"]]].sum(axis=0)
    labels = np.sort(np.argsort(-counts, kind="stable")[:shape["n_labels"]])
    return Dataset(
        name=DELICIOUS_SLICE, X=data.X[rows], Y=data.Y[rows][:, labels], feature_names=data.feature_names,
        target_names=[data.target_names[j] for j in labels], task=data.task,
        test_indices=np.arange(shape["n_train"], shape["n_train"] + shape["n_test"]),
        description=(f"a slice of delicious: the first {shape['n_train']} training and {shape['n_test']} test "
                     f"rows of its standard split, its {shape['n_labels']} most frequent labels"),
        citation=data.citation)


def slice_catalogue():
    """The slice, described like :func:`engine.datasets.list_datasets` rows (nothing loaded but the
    catalogue)."""
    source = {d["name"]: d for d in list_datasets()}.get(SLICE_SHAPE["source"])
    if source is None:
        return []
    n = SLICE_SHAPE["n_train"] + SLICE_SHAPE["n_test"]
    return [{**source, "name": DELICIOUS_SLICE, "n_samples": n, "n_outputs": SLICE_SHAPE["n_labels"],
             "n_test": SLICE_SHAPE["n_test"], "has_standard_split": True, "nnz": None,
             "approx_nnz_per_row": (source["nnz"] / source["n_samples"]) if source.get("nnz") else None}]
