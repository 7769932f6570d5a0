"""engine.app.page_models.dataspec: the Data page's spec of the chosen data set, and the upload parsing path."""

import gzip

import numpy as np
import pytest

from engine.app.page_models import dataspec
from engine.datasets import list_datasets

GOOD = b"a,b,c,t1,t2\n1,2,3,0.5,1\n4,5,6,1.5,0\n7,8,9,2.5,1\n"


def test_friedman_spec_round_trip():
    spec = dataspec.friedman_spec("group", n_samples=40, n_outputs=3, noise=0.5, n_noisy_outputs=1, seed=4)
    assert spec == {**dataspec.DEFAULT_SPEC, "structure": "group", "n_samples": 40, "n_outputs": 3,
                    "noise": 0.5, "n_noisy_outputs": 1, "seed": 4}  # fmt: skip
    a = dataspec.dataset_from_spec(spec)
    b = dataspec.dataset_from_spec(spec)
    assert a.Y.shape == (40, 4) and a.bayes is not None
    np.testing.assert_array_equal(a.Y, b.Y)  # same spec, same data
    c = dataspec.dataset_from_spec(spec, seed=5)  # e.g. a test set
    assert not np.array_equal(a.X, c.X)
    assert "friedman1-group" in dataspec.describe_spec(spec) and "seed 4" in dataspec.describe_spec(spec)
    with pytest.raises(ValueError, match="structure"):
        dataspec.friedman_spec("tree")


def test_default_spec_is_a_valid_friedman_spec():
    assert dataspec.friedman_spec() == dataspec.DEFAULT_SPEC
    assert dataspec.dataset_from_spec(dataspec.DEFAULT_SPEC).Y.shape == (300, 16)


def test_shipped_spec():
    name = list_datasets()[0]["name"]
    ds = dataspec.dataset_from_spec(dataspec.shipped_spec(name))
    assert ds.name == name
    with pytest.raises(ValueError, match="unknown data set"):
        dataspec.dataset_from_spec(dataspec.shipped_spec("nope"))
    with pytest.raises(ValueError, match="source"):
        dataspec.dataset_from_spec({"source": "web"})


def test_csv_columns():
    assert dataspec.csv_columns(GOOD) == ["a", "b", "c", "t1", "t2"]
    assert dataspec.csv_columns(b"\n\n x , y \n1,2\n") == ["x", "y"]
    assert dataspec.csv_columns(gzip.compress(GOOD)) == ["a", "b", "c", "t1", "t2"]
    for bad, match in [(b"", "empty"), (b"\n  \n", "empty"), (b"\xff\xfe\x00a", "UTF-8|NUL"), (b"a,b\x00", "NUL")]:
        with pytest.raises(ValueError, match=match):
            dataspec.csv_columns(bad)


def test_parse_upload_good_file():
    ds, spec, payload = dataspec.parse_upload(GOOD, ["t1", "t2"], name="mine.csv")
    assert ds.name == "mine" and ds.X.shape == (3, 3) and ds.Y.shape == (3, 2)
    assert spec["source"] == "upload" and spec["target_columns"] == ["t1", "t2"] and len(spec["digest"]) == 40
    back = dataspec.dataset_from_spec(spec, upload=payload)
    np.testing.assert_array_equal(back.Y, ds.Y)
    assert back.feature_names == ["a", "b", "c"]
    with pytest.raises(ValueError, match="upload the CSV again"):
        dataspec.dataset_from_spec(spec)
    other = dict(payload, digest="0" * 40)
    with pytest.raises(ValueError, match="different file"):
        dataspec.dataset_from_spec(spec, upload=other)


@pytest.mark.parametrize(
    "raw, targets, match",
    [
        (b"a,b,t\n1,2,3\n4,5\n6,7,8\n", ["t"], "malformed CSV: line 3 has 2 fields"),
        (b"a,b,t\n1,x,3\n4,5,6\n", ["t"], "not numeric"),
        (b"a,b,t\n1,2,3\n4,5,6\n", ["zz"], "not found"),
        (b"a,t\n1,\n4,5\n", ["t"], "missing values"),
        (b"", ["t"], "empty"),
    ],
)
def test_parse_upload_errors_are_value_errors(raw, targets, match):
    with pytest.raises(ValueError, match=match):
        dataspec.parse_upload(raw, targets)
