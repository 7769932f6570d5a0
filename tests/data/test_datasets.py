"""Tests for engine.datasets: Friedman1 generators, shipped data, CSV upload."""

import gzip
import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from engine import datasets as ds
from engine.datasets import shipped
from engine.datasets import (
    Dataset,
    friedman1_mean,
    list_datasets,
    load_csv,
    load_dataset,
    make_friedman1_multioutput,
    make_friedman_dataset,
)

N = 20000
D = 16


def brute_f(row):
    """Friedman1 written out independently, one row at a time."""
    x1, x2, x3, x4, x5 = (float(v) for v in row)
    return 10 * math.sin(math.pi * x1 * x2) + 20 * (x3 - 0.5) ** 2 + 10 * x4 + 5 * x5


@pytest.fixture(scope="module")
def big():
    return {
        s: make_friedman1_multioutput(s, n_samples=N, n_outputs=D, random_state=123)
        for s in ("chain", "group", "ind")
    }


# ---------------------------------------------------------------- generators


@pytest.mark.parametrize("structure,p", [("chain", 5), ("group", 5), ("ind", 5 * D)])
def test_shapes(big, structure, p):
    X, Y, B = big[structure]
    assert X.shape == (N, p)
    assert Y.shape == (N, D)
    assert B.shape == (N, D)
    assert X.dtype == Y.dtype == B.dtype == np.float64


@pytest.mark.parametrize("structure", ["group", "ind"])
def test_noise_mean_zero_std_noise(big, structure):
    X, Y, B = big[structure]
    R = Y - B
    assert np.all(np.abs(R.mean(axis=0)) < 0.05)
    np.testing.assert_allclose(R.std(axis=0), 1.0, rtol=0.04)


def test_noise_level_scales():
    X, Y, B = make_friedman1_multioutput("group", n_samples=N, n_outputs=3, noise=2.5, random_state=1)
    np.testing.assert_allclose((Y - B).std(axis=0), 2.5, rtol=0.04)


def test_chain_noise_variance_grows_linearly(big):
    X, Y, B = big["chain"]
    var = (Y - B).var(axis=0)
    np.testing.assert_allclose(var, np.arange(1, D + 1), rtol=0.06)
    # and successive differences are independent unit noise
    diffs = np.diff(Y, axis=1)
    np.testing.assert_allclose(diffs.std(axis=0), 1.0, rtol=0.04)


def test_chain_bayes_is_f_for_every_output(big):
    X, Y, B = big["chain"]
    f = np.array([brute_f(r) for r in X[:500]])
    for j in range(D):
        np.testing.assert_allclose(B[:500, j], f, rtol=0, atol=1e-10)


def test_group_bayes_matches_bruteforce_and_outputs_correlated(big):
    X, Y, B = big["group"]
    f = np.array([brute_f(r) for r in X[:500]])
    np.testing.assert_allclose(B[:500], np.repeat(f[:, None], D, axis=1), atol=1e-10)
    C = np.corrcoef(Y, rowvar=False)
    off = C[~np.eye(D, dtype=bool)]
    assert off.min() > 0.9


def test_ind_bayes_uses_only_its_own_block(big):
    X, Y, B = big["ind"]
    for j in range(D):
        f = np.array([brute_f(r) for r in X[:300, 5 * j: 5 * j + 5]])
        np.testing.assert_allclose(B[:300, j], f, atol=1e-10)
    # inputs outside block j carry no information about output j
    Xc = X - X.mean(axis=0)
    Bc = B - B.mean(axis=0)
    corr = (Xc.T @ Bc) / (np.linalg.norm(Xc, axis=0)[:, None] * np.linalg.norm(Bc, axis=0)[None, :])
    for j in range(D):
        own = np.zeros(5 * D, dtype=bool)
        own[5 * j: 5 * j + 5] = True
        assert np.abs(corr[~own, j]).max() < 0.04
        assert np.abs(corr[own, j]).max() > 0.3  # x4 drives it strongly


def test_ind_permuting_other_blocks_leaves_output_unchanged():
    # same seed -> same X; permute the rows of every column outside block 2 and
    # recompute: the Bayes prediction of output 2 must not move.
    X, Y, B = make_friedman1_multioutput("ind", n_samples=400, n_outputs=4, random_state=5)
    rng = np.random.default_rng(0)
    Xp = X.copy()
    for c in range(X.shape[1]):
        if not 10 <= c < 15:
            Xp[:, c] = rng.permutation(Xp[:, c])
    f2 = np.array([brute_f(r) for r in Xp[:, 10:15]])
    np.testing.assert_allclose(B[:, 2], f2, atol=1e-10)
    f1 = np.array([brute_f(r) for r in Xp[:, 5:10]])
    assert not np.allclose(B[:, 1], f1)


def test_ind_outputs_uncorrelated(big):
    X, Y, B = big["ind"]
    C = np.corrcoef(Y, rowvar=False)
    assert np.abs(C[~np.eye(D, dtype=bool)]).max() < 0.04


@pytest.mark.parametrize("structure", ["chain", "group", "ind"])
def test_zero_noise_gives_bayes(structure):
    X, Y, B = make_friedman1_multioutput(structure, n_samples=50, n_outputs=3, noise=0.0, random_state=2)
    np.testing.assert_array_equal(Y, B)


def test_uniform_and_gaussian_inputs(big):
    X = big["ind"][0]
    assert X.min() >= 0.0 and X.max() < 1.0
    np.testing.assert_allclose(X.mean(axis=0), 0.5, atol=0.015)
    np.testing.assert_allclose(X.var(axis=0), 1 / 12, rtol=0.05)
    Xg, Yg, Bg = make_friedman1_multioutput(
        "ind", n_samples=N, n_outputs=4, input_distribution="gaussian", random_state=3
    )
    assert Xg.min() < -3 and Xg.max() > 3
    np.testing.assert_allclose(Xg.mean(axis=0), 0.0, atol=0.03)
    np.testing.assert_allclose(Xg.std(axis=0), 1.0, rtol=0.03)
    f = np.array([brute_f(r) for r in Xg[:200, 5:10]])
    np.testing.assert_allclose(Bg[:200, 1], f, atol=1e-10)


def test_friedman1_mean_uniform_against_quadrature():
    sine, _ = integrate.dblquad(lambda u, v: math.sin(math.pi * u * v), 0, 1, 0, 1, epsabs=1e-12)
    sq, _ = integrate.quad(lambda t: (t - 0.5) ** 2, 0, 1)
    expected = 10 * sine + 20 * sq + 10 * 0.5 + 5 * 0.5
    assert friedman1_mean("uniform") == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
def test_friedman1_mean_gaussian_against_monte_carlo():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((2_000_000, 5))
    f = ds.friedman1(X)
    se = f.std() / math.sqrt(f.size)
    assert abs(f.mean() - friedman1_mean("gaussian")) < 4 * se


@pytest.mark.parametrize("structure", ["chain", "group", "ind"])
def test_noisy_outputs_are_row_permutations(structure):
    d, k = 4, 6
    X, Y, B = make_friedman1_multioutput(
        structure, n_samples=N, n_outputs=d, n_noisy_outputs=k, random_state=11
    )
    assert Y.shape == B.shape == (N, d + k)
    for q in range(k):
        src = Y[:, q % d]
        noisy = Y[:, d + q]
        np.testing.assert_array_equal(np.sort(noisy), np.sort(src))
        assert not np.array_equal(noisy, src)
        # no link with x: hardly correlated with its own source output
        assert abs(np.corrcoef(noisy, src)[0, 1]) < 0.04
        # Bayes prediction: the constant marginal mean, close to the empirical mean
        assert np.all(B[:, d + q] == B[0, d + q])
        se = noisy.std() / math.sqrt(N)
        assert abs(noisy.mean() - B[0, d + q]) < 4.5 * se
    # two noisy copies of the same real output use different permutations
    assert not np.array_equal(Y[:, d], Y[:, d + d])
    # real outputs unchanged by adding noisy ones
    X2, Y2, B2 = make_friedman1_multioutput(structure, n_samples=N, n_outputs=d, random_state=11)
    np.testing.assert_array_equal(Y[:, :d], Y2)
    np.testing.assert_array_equal(X, X2)


def test_noisy_outputs_gaussian_bayes_constant():
    X, Y, B = make_friedman1_multioutput(
        "group", n_samples=N, n_outputs=2, n_noisy_outputs=2, input_distribution="gaussian", random_state=4
    )
    assert np.all(B[:, 2:] == 25.0)
    se = Y[:, 2].std() / math.sqrt(N)
    assert abs(Y[:, 2].mean() - 25.0) < 4.5 * se


def test_determinism():
    a = make_friedman1_multioutput("chain", n_samples=100, n_outputs=3, random_state=42)
    b = make_friedman1_multioutput("chain", n_samples=100, n_outputs=3, random_state=42)
    c = make_friedman1_multioutput("chain", n_samples=100, n_outputs=3, random_state=43)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[1], c[1])
    g1 = make_friedman1_multioutput("group", n_samples=50, random_state=np.random.default_rng(9))
    g2 = make_friedman1_multioutput("group", n_samples=50, random_state=np.random.default_rng(9))
    np.testing.assert_array_equal(g1[1], g2[1])
    r1 = make_friedman1_multioutput("group", n_samples=50, random_state=np.random.RandomState(9))
    r2 = make_friedman1_multioutput("group", n_samples=50, random_state=np.random.RandomState(9))
    np.testing.assert_array_equal(r1[1], r2[1])
    # a shared generator advances: two draws differ
    rng = np.random.default_rng(1)
    assert not np.array_equal(
        make_friedman1_multioutput("group", n_samples=20, random_state=rng)[0],
        make_friedman1_multioutput("group", n_samples=20, random_state=rng)[0],
    )


def test_x_independent_of_noise_level():
    a = make_friedman1_multioutput("group", n_samples=30, noise=0.1, random_state=3)
    b = make_friedman1_multioutput("group", n_samples=30, noise=3.0, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[2], b[2])


@pytest.mark.parametrize(
    "kwargs,arg",
    [
        (dict(structure="tree"), "structure"),
        (dict(structure=3), "structure"),
        (dict(input_distribution="normal"), "input_distribution"),
        (dict(n_samples=1), "n_samples"),
        (dict(n_samples=10.0), "n_samples"),
        (dict(n_samples=True), "n_samples"),
        (dict(n_samples="10"), "n_samples"),
        (dict(n_outputs=0), "n_outputs"),
        (dict(n_outputs=2.5), "n_outputs"),
        (dict(noise=-0.1), "noise"),
        (dict(noise=float("nan")), "noise"),
        (dict(noise="1"), "noise"),
        (dict(n_noisy_outputs=-1), "n_noisy_outputs"),
        (dict(n_noisy_outputs=1.0), "n_noisy_outputs"),
        (dict(random_state="seed"), "random_state"),
        (dict(random_state=-1), "random_state"),
    ],
)
def test_generator_bad_arguments(kwargs, arg):
    full = dict(structure="group", n_samples=10)
    full.update(kwargs)
    structure = full.pop("structure")
    with pytest.raises(ValueError, match=arg):
        make_friedman1_multioutput(structure, **full)
    with pytest.raises(ValueError, match=arg):
        make_friedman_dataset(structure, **full)


def test_generator_validates_before_work():
    # a huge n_samples with a bad later argument must fail fast, without allocating
    with pytest.raises(ValueError, match="noise"):
        make_friedman1_multioutput("ind", n_samples=10**12, n_outputs=10**6, noise=-1)


def test_make_friedman_dataset():
    data = make_friedman_dataset("ind", n_samples=40, n_outputs=3, n_noisy_outputs=2, random_state=0)
    assert isinstance(data, Dataset)
    assert data.feature_names == [f"x{i}" for i in range(1, 16)]
    assert data.target_names == ["y1", "y2", "y3", "noise1", "noise2"]
    assert data.task == "regression"
    assert data.bayes.shape == data.Y.shape
    X, Y, B = make_friedman1_multioutput("ind", n_samples=40, n_outputs=3, n_noisy_outputs=2, random_state=0)
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.bayes, B)
    assert "Joly" in data.citation
    with pytest.raises(ValueError, match="standard"):
        data.train_test_split()


# ---------------------------------------------------------------- Dataset


def test_dataset_frame_and_split():
    X = np.arange(12.0).reshape(4, 3)
    Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    data = Dataset("t", X, Y, ["a", "b", "c"], ["u", "v"], "multilabel", test_indices=np.array([1, 3]))
    Xtr, Ytr, Xte, Yte = data.train_test_split()
    np.testing.assert_array_equal(Xtr, X[[0, 2]])
    np.testing.assert_array_equal(Yte, Y[[1, 3]])
    df = data.to_frame()
    assert list(df.columns) == ["a", "b", "c", "u", "v"]
    np.testing.assert_array_equal(df.to_numpy(), np.hstack([X, Y]))


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        (dict(X=np.zeros(4)), "X must be 2-D"),
        (dict(Y=np.zeros((3, 2))), "same number of rows"),
        (dict(feature_names=["a"]), "feature_names"),
        (dict(target_names=["a"]), "target_names"),
        (dict(task="classification"), "task"),
        (dict(test_indices=np.array([0, 9])), "test_indices"),
        (dict(test_indices=np.array([1, 1])), "duplicates"),
        (dict(test_indices=np.array([0.5])), "test_indices"),
        (dict(bayes=np.zeros((4, 3))), "bayes"),
    ],
)
def test_dataset_bad_arguments(kwargs, msg):
    base = dict(
        name="t", X=np.zeros((4, 2)), Y=np.zeros((4, 2)), feature_names=["a", "b"], target_names=["u", "v"]
    )
    base.update(kwargs)
    with pytest.raises(ValueError, match=msg):
        Dataset(**base)


# ---------------------------------------------------------------- shipped data

# (n_samples, n_features, n_outputs, n_train/n_test or None, label cardinality or None),
# hard-coded from the table in /work/shared/data/README.md (published Mulan numbers)
PUBLISHED = {
    "emotions": (593, 72, 6, (391, 202), 1.869),
    "yeast": (2417, 103, 14, (1500, 917), 4.237),
    "scene": (2407, 294, 6, (1211, 1196), 1.074),
    "birds": (645, 260, 19, (322, 323), 1.014),
    "genbase": (662, 1185, 27, None, 1.252),
    "medical": (978, 1449, 45, (333, 645), 1.245),
    "cal500": (502, 68, 174, None, 26.044),
    "flags": (194, 19, 7, (129, 65), 3.392),
    "bibtex": (7395, 1836, 159, (4880, 2515), 2.402),
    "corel5k": (5000, 499, 374, (4500, 500), 3.522),
    "delicious": (16105, 500, 983, (12920, 3185), 19.020),
    "edm": (154, 16, 2, None, None),
    "atp1d": (337, 411, 6, None, None),
    "atp7d": (296, 411, 6, None, None),
    "oes97": (334, 263, 16, None, None),
    "wq": (1060, 16, 14, None, None),
    "enb": (768, 8, 2, None, None),
    "jura": (359, 15, 3, None, None),
    "slump": (103, 7, 3, None, None),
    "andro": (49, 30, 6, None, None),
    "sf1": (323, 10, 3, None, None),
    "sf2": (1066, 10, 3, None, None),
    "rf1": (9125, 64, 8, None, None),
    "scm20d": (8966, 61, 16, None, None),
}
SPARSE = {"bibtex", "corel5k", "delicious"}


def test_list_datasets():
    rows = list_datasets()
    assert sorted(r["name"] for r in rows) == sorted(PUBLISHED)
    for r in rows:
        n, p, d, split, card = PUBLISHED[r["name"]]
        assert (r["n_samples"], r["n_features"], r["n_outputs"]) == (n, p, d)
        assert r["has_standard_split"] == (split is not None)
        assert r["task"] == ("multilabel" if card is not None else "regression")
        assert r["citation"]


def test_missing_sample_data_is_an_error_not_an_empty_list(tmp_path, monkeypatch):
    # A non-editable install cannot see sample_data/: say so instead of "no data sets".
    monkeypatch.setattr(shipped, "SAMPLE_DATA_DIR", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="nowhere.*editable"):
        list_datasets()
    with pytest.raises(FileNotFoundError, match="shipped data sets are missing"):
        load_dataset("emotions")
    # a directory without any data set is just as broken
    monkeypatch.setattr(shipped, "SAMPLE_DATA_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="meta.json"):
        list_datasets()


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_load_dataset(name):
    n, p, d, split, card = PUBLISHED[name]
    data = load_dataset(name)
    meta = json.loads((ds.SAMPLE_DATA_DIR / name / "meta.json").read_text())
    assert data.X.shape == (n, p) == (meta["n_samples"], meta["n_features"])
    assert data.Y.shape == (n, d) == (meta["n_samples"], meta["n_targets"])
    assert data.X.dtype == data.Y.dtype == np.float64
    assert data.target_names == meta["target_names"]
    assert len(data.feature_names) == p
    assert data.is_sparse == (name in SPARSE)
    assert np.isfinite(data.X.data if data.is_sparse else data.X).all()
    assert np.isfinite(data.Y).all()
    assert data.citation and data.description
    if card is not None:
        assert data.task == "multilabel"
        assert np.isin(data.Y, (0.0, 1.0)).all()
        assert data.Y.sum(axis=1).mean() == pytest.approx(card, abs=1.5e-3)
    else:
        assert data.task == "regression"
    if split is None:
        assert data.test_indices is None
        with pytest.raises(ValueError, match="split"):
            data.train_test_split()
    else:
        te = data.test_indices
        assert te.min() >= 0 and te.max() < n
        assert np.unique(te).size == te.size == split[1]
        tr = data.train_indices
        assert tr.size == split[0]
        assert np.intersect1d(tr, te).size == 0
        Xtr, Ytr, Xte, Yte = data.train_test_split()
        assert Xtr.shape == (split[0], p) and Yte.shape == (split[1], d)


def test_spot_values():
    # a few values read off the compact files, guarding column order / target choice
    enb = load_dataset("enb")
    assert enb.target_names == ["Y1", "Y2"]
    # first row of UCI ENB2012: 0.98, 514.5, 294, 110.25, 7, 2, 0, 0 -> 15.55, 21.33
    np.testing.assert_array_equal(enb.X[0], [0.98, 514.5, 294.0, 110.25, 7.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(enb.Y[0], [15.55, 21.33])
    edm = load_dataset("edm")
    assert edm.target_names == ["DFlow", "DGap"]
    jura = load_dataset("jura")
    assert jura.target_names == ["Cd", "Co", "Cu"]


def test_rf1_missing_values_imputed_with_column_median():
    raw = pd.read_csv(ds.SAMPLE_DATA_DIR / "rf1" / "rf1.csv.gz").iloc[:, :64].to_numpy(float)
    miss = np.isnan(raw)
    assert miss.sum() == 3264  # meta.json: n_missing_values
    data = load_dataset("rf1")
    for j in np.flatnonzero(miss.any(axis=0)):
        med = np.nanmedian(raw[:, j])
        np.testing.assert_array_equal(data.X[miss[:, j], j], med)
    np.testing.assert_array_equal(data.X[~miss], raw[~miss])
    assert "3264" in data.description


def _fake_sample_dir(tmp_path, monkeypatch, with_split=True, npz_object=False):
    folder = tmp_path / "fake"
    folder.mkdir()
    X = np.array([[1.0, np.nan], [3.0, 10.0], [np.nan, 20.0], [7.0, 1000.0], [100.0, np.nan]])
    Y = np.array([[0.5], [1.5], [2.5], [3.5], [4.5]])
    meta = {
        "name": "fake",
        "task": "multi-output regression",
        "n_samples": 5,
        "n_features": 2,
        "n_targets": 1,
        "target_names": ["t"],
        "compact_file": "fake.npz" if npz_object else "fake.csv",
        "citation": "me",
    }
    (folder / "meta.json").write_text(json.dumps(meta))
    if npz_object:
        np.savez(folder / "fake.npz", X=np.array([{"evil": 1}] * 2, dtype=object), Y=Y)
    else:
        pd.DataFrame(np.hstack([X, Y]), columns=["a", "b", "t"]).to_csv(folder / "fake.csv", index=False)
    if with_split:
        (folder / "standard_split.json").write_text(json.dumps({"test_indices": [3, 4]}))
    monkeypatch.setattr(shipped, "SAMPLE_DATA_DIR", tmp_path)


def test_imputation_uses_training_rows_only(tmp_path, monkeypatch):
    _fake_sample_dir(tmp_path, monkeypatch, with_split=True)
    data = load_dataset("fake")
    # training rows 0..2: median of a over {1, 3} = 2; of b over {10, 20} = 15
    assert data.X[2, 0] == 2.0
    assert data.X[0, 1] == 15.0
    assert data.X[4, 1] == 15.0  # test row filled with the training median
    assert data.X[4, 0] == 100.0


def test_imputation_without_split_uses_all_rows(tmp_path, monkeypatch):
    _fake_sample_dir(tmp_path, monkeypatch, with_split=False)
    data = load_dataset("fake")
    assert data.X[2, 0] == np.median([1.0, 3.0, 7.0, 100.0])
    assert data.X[0, 1] == 20.0  # median of {10, 20, 1000}


def test_npz_is_loaded_without_pickle(tmp_path, monkeypatch):
    _fake_sample_dir(tmp_path, monkeypatch, npz_object=True)
    with pytest.raises(ValueError, match="allow_pickle"):
        load_dataset("fake")


@pytest.mark.parametrize("bad", ["nope", "", "../data", None, 3, "EMOTIONS"])
def test_load_dataset_unknown_name(bad):
    with pytest.raises(ValueError, match="valid names.*emotions"):
        load_dataset(bad)


# ---------------------------------------------------------------- load_csv

GOOD = "a,b,y1,y2\n1,2.5,0.1,3\n2,3.5,0.2,4\n3,-1e3,0.3,5\n"


def test_load_csv_round_trip(tmp_path):
    data = make_friedman_dataset("group", n_samples=30, n_outputs=3, random_state=0)
    path = tmp_path / "f.csv"
    data.to_frame().to_csv(path, index=False)
    back = load_csv(path, ["y1", "y2", "y3"])
    np.testing.assert_allclose(back.X, data.X, rtol=1e-15)
    np.testing.assert_allclose(back.Y, data.Y, rtol=1e-15)
    assert back.feature_names == data.feature_names
    assert back.target_names == ["y1", "y2", "y3"]
    assert back.task == "regression"
    # bytes, text buffers, binary buffers and gzip give the same result
    raw = path.read_bytes()
    for src in (raw, io.BytesIO(raw), io.StringIO(raw.decode()), gzip.compress(raw)):
        again = load_csv(src, ["y1", "y2", "y3"])
        np.testing.assert_array_equal(again.X, back.X)
        np.testing.assert_array_equal(again.Y, back.Y)


def test_load_csv_name_from_file(tmp_path):
    path = tmp_path / "my_data.csv"
    path.write_text(GOOD)
    assert load_csv(path, ["y1"]).name == "my_data"
    buf = io.BytesIO(GOOD.encode())
    buf.name = "upload.csv.gz"  # like streamlit's UploadedFile
    assert load_csv(buf, ["y1"]).name == "upload"
    assert load_csv(GOOD.encode(), ["y1"], name="x").name == "x"


def test_load_csv_target_order_and_task():
    data = load_csv(GOOD.encode(), ["y2", "a"])
    assert data.target_names == ["y2", "a"]
    assert data.feature_names == ["b", "y1"]
    np.testing.assert_array_equal(data.Y, [[3, 1], [4, 2], [5, 3]])
    assert data.task == "regression"
    ml = load_csv(b"f,l1,l2\n0.3,1,0\n0.1,0,0\n0.7,1,1\n", ["l1", "l2"])
    assert ml.task == "multilabel"
    single = load_csv(GOOD.encode(), "y1")
    assert single.Y.shape == (3, 1)


def test_load_csv_feature_missing_values_imputed():
    data = load_csv(b"a,b,y\n1,,0\n,4,1\n3,NA,2\n5,6,3\n", ["y"])
    np.testing.assert_array_equal(data.X[:, 0], [1, 3, 3, 5])
    np.testing.assert_array_equal(data.X[:, 1], [5, 4, 5, 6])
    assert "3 missing" in data.description


@pytest.mark.parametrize(
    "content,targets,msg",
    [
        (b"", ["y"], "empty"),
        (b"   \n\n", ["y"], "empty"),
        (b"a,y\n1,2\n3,4,5\n", ["y"], "malformed"),
        (b"a,b,y\n1,2,3\n4,5\n6,7,8\n", ["y"], "line 3 has 2 fields"),
        (b"a,b,y\n1,x,3\n4,5,6\n", ["y"], "feature column 'b' is not numeric"),
        (b"a,b,y\n1,2,3\n4,5,cat\n", ["y"], "target column 'y' is not numeric"),
        (b"a,b,y\n1,2,3\n4,5,6\n", ["z"], "not found: z"),
        (b"a,b,y\n1,2,3\n4,5,6\n", ["y", "y"], "twice"),
        (b"a;b;y\n1;2;3\n4;5;6\n", ["y"], "separator"),
        (b"a,b,y\n1,2,3\n4,5,6\n", [], "non-empty"),
        (b"a,b,y\n1,2,3\n4,5,6\n", [3], "non-empty"),
        (b"a,b,y\n1,2,3\n", ["y"], "at least 2"),
        (b"a,b,y\n", ["y"], "at least 2"),
        (b"a,b,y\n1,2,\n4,5,6\n", ["y"], "missing values: y"),
        (b"a,b,y\n1,2,inf\n4,5,6\n", ["y"], "infinite"),
        (b"a,a,y\n1,2,3\n4,5,6\n", ["y"], "duplicated"),
        (b"a,,y\n1,2,3\n4,5,6\n", ["y"], "empty column name"),
        (b"a,y\n1,2\n3,4\n", ["a", "y"], "feature column"),
        (b"a,b,y\n,2,3\n,5,6\n", ["y"], "no value at all: a"),
        (b"\xff\xfe\x00\x01\x02garbage", ["y"], "not a UTF-8|not a text"),
        (b"a,b\x00,y\n1,2,3\n", ["y"], "NUL"),
        (b"\x1f\x8b\x08\x00notreallygzip", ["y"], "gzip"),
    ],
)
def test_load_csv_bad_input(content, targets, msg):
    with pytest.raises(ValueError, match=msg):
        load_csv(content, targets)


def test_load_csv_limits(tmp_path):
    with pytest.raises(ValueError, match="size limit"):
        load_csv(GOOD.encode(), ["y1"], max_bytes=20)
    with pytest.raises(ValueError, match="size limit"):
        load_csv(io.BytesIO(GOOD.encode()), ["y1"], max_bytes=20)
    path = tmp_path / "g.csv"
    path.write_text(GOOD)
    with pytest.raises(ValueError, match="limit"):
        load_csv(path, ["y1"], max_bytes=20)
    # a small gzip that inflates beyond the limit
    bomb = gzip.compress(b"a,y\n" + b"1,2\n" * 100_000)
    with pytest.raises(ValueError, match="decompressed"):
        load_csv(bomb, ["y"], max_bytes=10_000)
    with pytest.raises(ValueError, match="rows"):
        load_csv(GOOD.encode(), ["y1"], max_rows=2)
    assert load_csv(GOOD.encode(), ["y1"], max_rows=3).n_samples == 3
    with pytest.raises(ValueError, match="columns"):
        load_csv(GOOD.encode(), ["y1"], max_columns=3)
    with pytest.raises(ValueError, match="max_rows"):
        load_csv(GOOD.encode(), ["y1"], max_rows=0)
    with pytest.raises(ValueError, match="max_bytes"):
        load_csv(GOOD.encode(), ["y1"], max_bytes=1.5)


def test_load_csv_bad_source(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        load_csv(tmp_path / "missing.csv", ["y"])
    with pytest.raises(ValueError, match="file_or_buffer"):
        load_csv(12345, ["y"])
