"""Sparse data: bibtex / corel5k / delicious / scm20d loaders, Dataset with a sparse X, the delicious-shaped generator.

Oracles: the dense compact copies of the collection (``shared/data/<name>/<name>.npz``, entry for
entry, where that folder is on this machine), entries read off those files and written here
(always), the dense equivalent of every sparse operation, and scikit-learn's generator itself.
"""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from engine.datasets import (
    DELICIOUS_SHAPE,
    SAMPLE_DATA_DIR,
    SYNTHETIC_DELICIOUS,
    Dataset,
    list_datasets,
    load_dataset,
    make_delicious_shaped,
)
from engine.datasets import dataset as dataset_module
from engine.experiments.model_selection import make_splits, selection_problem
from engine.experiments.problems import Problem

REPO = Path(__file__).resolve().parents[2]
SHARED_CANDIDATES = [os.environ.get("SHARED_DATA_DIR", ""), "/work/shared/data", str(REPO.parent / "shared" / "data")]
SHARED = next((Path(c) for c in SHARED_CANDIDATES if c and (Path(c) / "bibtex" / "bibtex.npz").is_file()), None)
needs_shared = pytest.mark.skipif(SHARED is None, reason="the collection's dense copies (shared/data) are not on this machine")

# name: (n_samples, n_features, n_outputs, nnz of X or None, (n_train, n_test) or None)
NEW_SETS = {
    "bibtex": (7395, 1836, 159, 507746, (4880, 2515)),
    "corel5k": (5000, 499, 374, 41351, (4500, 500)),
    "delicious": (16105, 500, 983, 294614, (12920, 3185)),
    "scm20d": (8966, 61, 16, None, None),
}


@pytest.fixture(scope="module")
def loaded():
    return {name: load_dataset(name) for name in NEW_SETS}


# ---------------------------------------------------------------- loaders


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NEW_SETS))
def test_shape_sparsity_and_split(loaded, name):
    n, p, d, nnz, split = NEW_SETS[name]
    data = loaded[name]
    assert data.X.shape == (n, p) and data.Y.shape == (n, d)
    assert isinstance(data.Y, np.ndarray) and data.Y.dtype == np.float64
    if nnz is None:
        assert isinstance(data.X, np.ndarray) and not data.is_sparse
    else:
        assert sparse.isspmatrix_csr(data.X) and data.is_sparse
        assert data.X.dtype == np.float64
        assert data.X.nnz == data.nnz == nnz
        assert data.X.has_canonical_format
        assert np.all(data.X.data == 1.0)        # binary features: only ones are stored
    if split is None:
        assert data.test_indices is None
    else:
        Xtr, Ytr, Xte, Yte = data.train_test_split()
        assert (Xtr.shape[0], Xte.shape[0]) == split
        assert sparse.isspmatrix_csr(Xtr) and sparse.isspmatrix_csr(Xte)
        assert Xtr.nnz + Xte.nnz == nnz
        assert isinstance(Ytr, np.ndarray) and isinstance(Yte, np.ndarray)
        on_disk = json.loads((SAMPLE_DATA_DIR / name / "standard_split.json").read_text())["test_indices"]
        np.testing.assert_array_equal(data.test_indices, on_disk)
        # the training rows are the complement, in order
        np.testing.assert_array_equal((Xtr != data.X[data.train_indices]).nnz, 0)


def test_list_datasets_reports_sparse_sets_and_nnz():
    rows = {r["name"]: r for r in list_datasets()}
    assert len(rows) == 24
    for name, (n, p, d, nnz, split) in NEW_SETS.items():
        r = rows[name]
        assert (r["n_samples"], r["n_features"], r["n_outputs"]) == (n, p, d)
        assert r["sparse"] == (nnz is not None) and r["nnz"] == nnz
        assert r["has_standard_split"] == (split is not None)
    assert [name for name, r in rows.items() if r["sparse"]] == ["bibtex", "corel5k", "delicious"]
    assert all(r["nnz"] is None for r in rows.values() if not r["sparse"])


def test_spot_values_read_off_the_collection(loaded):
    # Non-zero columns and labels of a few rows, read from shared/data/<name>/<name>.npz.
    bib, corel, scm = loaded["bibtex"], loaded["corel5k"], loaded["scm20d"]
    assert bib.X[1234].indices.tolist() == [44, 364, 450, 605, 735, 846, 1086, 1129, 1552, 1553, 1708]
    assert np.flatnonzero(bib.Y[1234]).tolist() == [48, 131]
    assert bib.X[0].indices[:5].tolist() == [44, 51, 95, 121, 129] and bib.X[0].nnz == 90
    assert np.flatnonzero(bib.Y[7394]).tolist() == [26]
    np.testing.assert_array_equal(np.asarray(bib.X[:, :5].sum(axis=0)).ravel(), [597, 66, 72, 103, 112])
    assert corel.X[0].indices.tolist() == [19, 93, 143, 149, 259, 329, 379, 461]
    assert np.flatnonzero(corel.Y[0]).tolist() == [0, 1, 2, 3]
    assert corel.X[4999].indices.tolist() == [55, 56, 78, 96, 208, 240, 247, 406, 457, 492, 498]
    assert corel.target_names[:4] == ["city", "mountain", "sky", "sun"]
    np.testing.assert_array_equal(scm.X[0, :6], [9.0, 27.0, 8.0, 881.606, 276.589, 283.096])
    np.testing.assert_array_equal(scm.Y[0, :4], [1424, 1519, 1507, 1581])
    assert scm.feature_names[:3] == ["timeunit", "storageCost", "interestRate"]
    assert scm.target_names[:3] == ["LBL", "MTLp2A", "MTLp3A"]
    # delicious: row 0 is the first line of delicious-train.arff, "{60 1,248 1,279 1,316 1,490 1,577 1,...}"
    # (attributes 500 and up are the labels); row 12920 is the first of delicious-test.arff
    deli = loaded["delicious"]
    assert deli.X[0].indices.tolist() == [60, 248, 279, 316, 490]
    assert np.flatnonzero(deli.Y[0]).tolist() == [77, 91, 315, 544, 575, 621, 718, 818, 819, 834, 908]
    assert deli.X[12920].indices.tolist() == [163, 305]
    assert np.flatnonzero(deli.Y[16104]).tolist() == [19, 20, 80, 239, 444, 540, 560, 593, 617, 636, 773, 777,
                                                      809, 849, 850, 879, 930, 941]
    np.testing.assert_array_equal(np.asarray(deli.X[:, :5].sum(axis=0)).ravel(), [505, 728, 160, 144, 43])
    assert deli.feature_names[:3] == ["_qacct", "accessing", "actionscript"]
    assert deli.target_names[:3] == ["TAG_.imported", "TAG_.net", "TAG_2.0"]


@pytest.mark.slow
@needs_shared
@pytest.mark.parametrize("name", sorted(NEW_SETS))
def test_every_value_equals_the_collections_dense_copy(loaded, name):
    with np.load(SHARED / name / f"{name}.npz", allow_pickle=False) as z:
        X, Y = z["X"].astype(np.float64), z["Y"].astype(np.float64)
        feature_names, target_names = z["feature_names"].tolist(), z["target_names"].tolist()
    data = loaded[name]
    dense_X = data.X.toarray() if data.is_sparse else data.X    # the test may densify; the loader may not
    np.testing.assert_array_equal(dense_X, X)
    np.testing.assert_array_equal(data.Y, Y)
    assert data.feature_names == feature_names and data.target_names == target_names
    split = SHARED / name / "standard_split.json"
    if split.is_file():
        np.testing.assert_array_equal(data.test_indices, json.loads(split.read_text())["test_indices"])


@pytest.mark.parametrize("name", ["bibtex", "corel5k", "delicious"])
def test_meta_records_provenance_of_the_sparse_file(name):
    meta = json.loads((SAMPLE_DATA_DIR / name / "meta.json").read_text())
    assert meta["x_storage"] == "csr" and meta["compact_file"] == f"{name}.npz"
    assert len(meta["derived_from"]["sha256"]) == 64
    with np.load(SAMPLE_DATA_DIR / name / f"{name}.npz", allow_pickle=False) as z:
        assert "X" not in z.files and {"X_data", "X_indices", "X_indptr", "X_shape"} <= set(z.files)
        assert z["X_data"].size == meta["x_nnz"]


def test_corrupt_sparse_file_is_an_error(tmp_path, monkeypatch):
    from engine.datasets import shipped

    folder = tmp_path / "broken"
    folder.mkdir()
    meta = {"name": "broken", "task": "multi-label classification", "n_samples": 2, "n_features": 3,
            "n_targets": 1, "target_names": ["t"], "compact_file": "broken.npz", "x_storage": "csr", "x_nnz": 2}
    (folder / "meta.json").write_text(json.dumps(meta))
    np.savez(folder / "broken.npz", X_data=np.ones(2, np.int8), X_indices=np.array([0, 7], np.int16),
             X_indptr=np.array([0, 1, 2], np.int32), X_shape=np.array([2, 3]), Y=np.zeros((2, 1), np.int8),
             feature_names=np.array(["a", "b", "c"]), target_names=np.array(["t"]))
    monkeypatch.setattr(shipped, "SAMPLE_DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match="broken.npz.*not a valid CSR matrix"):
        load_dataset("broken")


# ---------------------------------------------------------------- Dataset with a sparse X


def _small(fmt="csr", seed=0):
    rng = np.random.default_rng(seed)
    dense = rng.random((30, 7)) * (rng.random((30, 7)) < 0.3)
    dense[:, 4] = 0.0                          # an all-zero column
    Y = (rng.random((30, 3)) < 0.4).astype(float)
    X = sparse.csr_matrix(dense).asformat(fmt)
    return Dataset(name="small", X=X, Y=Y, feature_names=list("abcdefg"), target_names=["u", "v", "w"],
                   task="multilabel", test_indices=np.array([3, 7, 11])), dense, Y


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
def test_any_sparse_format_becomes_csr_never_dense(fmt):
    data, dense, _ = _small(fmt)
    assert sparse.isspmatrix_csr(data.X) and data.X.dtype == np.float64
    assert (data.n_samples, data.n_features, data.n_outputs) == (30, 7, 3)
    assert data.nnz == np.count_nonzero(dense)
    np.testing.assert_array_equal(data.X.toarray(), dense)


def test_sparse_array_and_integer_input_and_duplicates():
    coo = sparse.coo_array((np.array([1, 2, 5], dtype=np.int64), (np.array([0, 0, 1]), np.array([1, 1, 2]))),
                           shape=(2, 3))
    data = Dataset(name="dup", X=coo, Y=np.zeros((2, 1)), feature_names=list("abc"), target_names=["t"])
    assert sparse.isspmatrix_csr(data.X) and data.X.dtype == np.float64
    np.testing.assert_array_equal(data.X.toarray(), [[0, 3, 0], [0, 0, 5]])   # duplicates summed
    assert data.X.has_canonical_format and data.nnz == 2


def test_split_and_rows_keep_x_sparse():
    data, dense, Y = _small()
    Xtr, Ytr, Xte, Yte = data.train_test_split()
    assert sparse.isspmatrix_csr(Xtr) and sparse.isspmatrix_csr(Xte)
    np.testing.assert_array_equal(Xte.toarray(), dense[[3, 7, 11]])
    np.testing.assert_array_equal(Xtr.toarray(), np.delete(dense, [3, 7, 11], axis=0))
    np.testing.assert_array_equal(Yte, Y[[3, 7, 11]])
    rows = np.array([5, 0, 29, 5])
    sub = data.take(rows)
    assert sparse.isspmatrix_csr(sub.X) and sub.test_indices is None
    np.testing.assert_array_equal(sub.X.toarray(), dense[rows])
    np.testing.assert_array_equal(sub.Y, Y[rows])
    mask = np.zeros(30, dtype=bool)
    mask[[1, 2]] = True
    np.testing.assert_array_equal(data.take(mask).X.toarray(), dense[[1, 2]])
    with pytest.raises(ValueError, match="rows must lie"):
        data.take([30])
    with pytest.raises(ValueError, match="boolean mask"):
        data.take(mask[:5])


@pytest.mark.parametrize("bad,match", [(np.nan, "X contains NaN or infinite"), (np.inf, "X contains NaN or infinite")])
def test_nonfinite_stored_value_is_refused(bad, match):
    X = sparse.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    X.data[0] = bad
    with pytest.raises(ValueError, match=match):
        Dataset(name="bad", X=X, Y=np.zeros((2, 1)), feature_names=["a", "b"], target_names=["t"])


def test_sparse_y_is_refused():
    with pytest.raises(ValueError, match="Y must be a dense array"):
        Dataset(name="bad", X=np.zeros((2, 2)), Y=sparse.csr_matrix(np.zeros((2, 1))),
                feature_names=["a", "b"], target_names=["t"])


def test_to_frame_has_sparse_columns_with_the_same_values():
    data, dense, Y = _small()
    frame = data.to_frame()
    assert list(frame.columns) == list("abcdefg") + ["u", "v", "w"]
    assert all(isinstance(t, pd.SparseDtype) for t in frame.dtypes.iloc[:7])
    np.testing.assert_array_equal(frame.iloc[:, :7].sparse.to_dense().to_numpy(), dense)
    np.testing.assert_array_equal(frame.iloc[:, 7:].to_numpy(), Y)
    back = pd.read_csv(pd.io.common.StringIO(frame.to_csv(index=False)))
    np.testing.assert_allclose(back.to_numpy(), np.hstack([dense, Y]))


def test_to_frame_refuses_a_large_sparse_x(loaded):
    with pytest.raises(ValueError, match="to_npz"):
        loaded["bibtex"].to_frame()
    assert dataset_module.MAX_SPARSE_FRAME_CELLS < 7395 * (1836 + 159)
    data, _, _ = _small()
    with pytest.raises(ValueError, match="300 cells"):
        data.to_frame(max_sparse_cells=299)


@pytest.mark.parametrize("sparse_x", [True, False])
def test_to_npz_round_trip(tmp_path, sparse_x):
    data, dense, Y = _small()
    if not sparse_x:
        data = Dataset(name="d", X=dense, Y=Y, feature_names=data.feature_names, target_names=data.target_names)
    raw = data.to_npz()
    path = tmp_path / "x.npz"
    data.to_npz(path)
    assert path.read_bytes()[:2] == raw[:2] == b"PK"
    with np.load(path, allow_pickle=False) as z:
        if sparse_x:
            X = sparse.csr_matrix((z["X_data"], z["X_indices"], z["X_indptr"]), shape=tuple(z["X_shape"]))
            assert "X" not in z.files
            X = X.toarray()
        else:
            X = z["X"]
        np.testing.assert_array_equal(X, dense)
        np.testing.assert_array_equal(z["Y"], Y)
        assert z["feature_names"].tolist() == data.feature_names


def test_bibtex_npz_is_much_smaller_in_memory_than_dense(loaded):
    X = loaded["bibtex"].X
    stored = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    assert stored < 0.1 * X.shape[0] * X.shape[1] * 8


# ---------------------------------------------------------------- experiments' data path


def test_the_drawn_problem_has_sparse_x_for_bibtex(loaded):
    drawn = Problem("bibtex").draw(3)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert task == "multilabel"
    assert sparse.isspmatrix_csr(X_tr) and sparse.isspmatrix_csr(X_te)
    assert X_tr.shape == (4880, 1836) and X_te.shape == (2515, 1836)
    assert Y_tr.shape == (4880, 159) and isinstance(Y_tr, np.ndarray)
    data = loaded["bibtex"]
    assert (X_te != data.X[data.test_indices]).nnz == 0
    assert info["split"] == "standard train/test split" and info["n_features"] == 1836


def test_a_random_split_keeps_sparse_and_scm20d_dense():
    drawn = Problem("scm20d").draw(0)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert isinstance(X_tr, np.ndarray) and task == "regression"
    assert X_tr.shape[0] + X_te.shape[0] == 8966


def test_model_selection_splits_keep_sparse_x(loaded):
    reps, split, n_train, n_test, n_val, p, d = make_splits(selection_problem(loaded["corel5k"]), 2, seed=0)
    assert (n_train, n_test, p, d) == (4500, 500, 499, 374)
    for rep in reps:
        assert sparse.isspmatrix_csr(rep["X_train"]) and rep["X_train"].shape == (4500, 499)
        assert rep["X_train"].nnz + rep["X_test"].nnz == 41351


# ---------------------------------------------------------------- the delicious-shaped generator


@pytest.fixture(scope="module")
def delicious():
    return make_delicious_shaped(random_state=0)


@pytest.mark.slow
def test_generator_has_delicious_shape(delicious):
    data = delicious
    assert data.name == SYNTHETIC_DELICIOUS == "synthetic-delicious-shape"
    assert data.X.shape == (16105, 500) and data.Y.shape == (16105, 983)
    assert data.task == "multilabel" and sparse.isspmatrix_csr(data.X) and data.X.dtype == np.float64
    assert data.Y.dtype == np.float64 and np.isin(data.Y, (0.0, 1.0)).all()
    Xtr, Ytr, Xte, Yte = data.train_test_split()
    assert (Xtr.shape[0], Xte.shape[0]) == (12920, 3185)
    np.testing.assert_array_equal(data.test_indices, np.arange(12920, 16105))
    cardinality = data.Y.sum(axis=1)
    assert cardinality.min() >= 1                         # no unlabelled sample
    assert abs(cardinality.mean() - 19) < 0.3             # Poisson(19), 16105 samples
    density = data.nnz / (16105 * 500)
    assert 0.05 < density < 0.15                          # about 48 distinct words of 500 per row
    assert np.all(data.X.data == np.round(data.X.data)) and data.X.data.min() >= 1   # word counts
    assert "not delicious" in data.description


def test_generator_equals_scikit_learn_and_is_deterministic():
    from sklearn.datasets import make_multilabel_classification

    a = make_delicious_shaped(300, n_features=40, n_labels=25, mean_labels=3, length=20, random_state=7)
    b = make_delicious_shaped(300, n_features=40, n_labels=25, mean_labels=3, length=20, random_state=7)
    c = make_delicious_shaped(300, n_features=40, n_labels=25, mean_labels=3, length=20, random_state=8)
    X, Y = make_multilabel_classification(n_samples=300, n_features=40, n_classes=25, n_labels=3, length=20,
                                          allow_unlabeled=False, sparse=True, random_state=7)
    np.testing.assert_array_equal(a.X.toarray(), X.toarray())
    np.testing.assert_array_equal(a.Y, Y)
    assert (a.X != b.X).nnz == 0 and np.array_equal(a.Y, b.Y)
    assert (a.X != c.X).nnz > 0
    assert a.test_indices.size == round(300 * 3185 / 16105)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_samples=1), "n_samples"),
    (dict(n_features=0), "n_features"),
    (dict(n_labels=2.5), "n_labels"),
    (dict(n_labels=3, mean_labels=4), "mean_labels"),
    (dict(length=0), "length"),
    (dict(random_state=None), "random_state"),
    (dict(random_state=-1), "random_state"),
])
def test_generator_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_delicious_shaped(**{"n_samples": 50, **kwargs})


@pytest.mark.slow
def test_the_problem_draws_the_synthetic_set(delicious):
    assert Problem(SYNTHETIC_DELICIOUS).shape() == ("multilabel", 983)
    drawn = Problem(SYNTHETIC_DELICIOUS).draw(0)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert sparse.isspmatrix_csr(X_tr) and X_tr.shape == (12920, 500) and X_te.shape == (3185, 500)
    assert Y_tr.shape == (12920, 983) and task == "multilabel"
    assert (X_te != delicious.X[12920:]).nnz == 0            # seed = the generator's random_state
    assert info["n_outputs"] == DELICIOUS_SHAPE["n_labels"]
    with pytest.raises(ValueError, match="n_noisy_outputs"):
        Problem(SYNTHETIC_DELICIOUS, n_noisy_outputs=2)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["friedman1-ind", "friedman1", "two-norm", "cal500", "scm20d", "bibtex", "corel5k",
                                  "delicious"])
def test_problem_size_matches_the_drawn_problem(name):
    from engine.experiments import problem_size

    size = problem_size(name, n_outputs=4, n_test=50, n_train=40)
    drawn = Problem(name, n_outputs=4, n_test=50, n_train=40).draw(0)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert (size["task"], size["n_train"], size["n_test"]) == (task, X_tr.shape[0], X_te.shape[0])
    assert (size["n_features"], size["n_outputs"]) == (X_tr.shape[1], Y_tr.shape[1])
    if sparse.issparse(X_tr):
        assert size["nnz_per_row"] == pytest.approx(X_tr.nnz / X_tr.shape[0], rel=0.05)
    else:
        assert size["nnz_per_row"] is None


# ---------------------------------------------------------------- delicious (issue 33)


def test_delicious_is_the_papers_wide_set(loaded):
    """Paper 002 Table 2 / Mulan: 12 920 + 3 185 bookmarks, 500 binary words, 983 tags, cardinality 19.02;
    the split is Mulan's train file then its test file, so the test rows are the last 3 185."""
    data = loaded["delicious"]
    assert data.task == "multilabel" and np.isin(data.Y, (0.0, 1.0)).all()
    assert data.Y.sum(axis=1).mean() == pytest.approx(19.020, abs=1e-3)
    np.testing.assert_array_equal(data.test_indices, np.arange(12920, 16105))
    assert data.X.nnz / (16105 * 500) == pytest.approx(0.0366, abs=1e-4)
    assert "sparse inputs (294,614 non-zeros" in data.description and "12920/3185" in data.description
    meta = json.loads((SAMPLE_DATA_DIR / "delicious" / "meta.json").read_text())
    assert meta["n_samples"] == 16105 and meta["n_features"] == 500 and meta["n_targets"] == 983
    assert meta["standard_split"]["n_train"] == 12920 and meta["standard_split"]["n_test"] == 3185
    assert meta["label_cardinality"] == 19.02 and len(meta["label_frequencies"]) == 983
    assert [f["path"] for f in meta["original_files"][:2]] == ["data/multi-label/delicious/delicious-train.arff",
                                                               "data/multi-label/delicious/delicious-test.arff"]
    assert meta["x_nnz"] == 294614 and meta["citation"].startswith("G. Tsoumakas, I. Katakis, I. Vlahavas")
    assert "license_notes" in meta
    # kept sparse in memory: the CSR arrays are a small fraction of the dense float64 matrix
    stored = data.X.data.nbytes + data.X.indices.nbytes + data.X.indptr.nbytes
    assert stored < 0.1 * 16105 * 500 * 8


def test_the_drawn_problem_keeps_delicious_sparse_on_its_standard_split():
    drawn = Problem("delicious").draw(0)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert task == "multilabel" and info["split"] == "standard train/test split"
    assert sparse.isspmatrix_csr(X_tr) and sparse.isspmatrix_csr(X_te)
    assert X_tr.shape == (12920, 500) and X_te.shape == (3185, 500)
    assert Y_tr.shape == (12920, 983) and X_tr.nnz + X_te.nnz == 294614
