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
    assert spec["source"] == "upload" and spec["target_columns"] == ["t1", "t2"] and len(spec["digest"]) == 16
    back = dataspec.dataset_from_spec(spec, upload=payload)
    np.testing.assert_array_equal(back.Y, ds.Y)
    assert back.feature_names == ["a", "b", "c"]
    with pytest.raises(ValueError, match="not on this server any more: upload it again"):
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


def test_targets_keep_the_files_column_order_whatever_the_order_asked():
    raw = b"tag_b,x,tag_a,y\n1,2,0,5\n0,4,1,6\n1,1,1,2\n"
    ds, spec, _ = dataspec.parse_upload(raw, ["tag_a", "y", "tag_b"])
    assert ds.target_names == ["tag_b", "tag_a", "y"] and ds.feature_names == ["x"]
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0, 1])
    by_rule, spec, _ = dataspec.parse_upload(raw, None, targets="prefix-tag_")
    assert by_rule.target_names == ["tag_b", "tag_a"] and spec["targets"] == "prefix-tag_"
    assert dataspec.parse_upload(raw, None, targets="binary")[0].target_names == ["tag_b", "tag_a"]
    assert dataspec.parse_upload(raw, None, targets="last-2")[0].target_names == ["tag_a", "y"]


@pytest.mark.parametrize("spec", [
    dataspec.DEFAULT_SPEC,
    dataspec.friedman_spec("ind", n_samples=50, n_outputs=3, input_distribution="gaussian", noise=0.25,
                           n_noisy_outputs=2, seed=9),
    dataspec.shipped_spec("enb"),
])
def test_a_spec_survives_the_url(spec):
    token = dataspec.spec_to_token(spec)
    assert dataspec.spec_from_token(token) == spec
    assert all(c.isalnum() or c in "._-" for c in token)     # nothing a URL must escape


def test_an_uploads_token_names_its_file_separator_and_rule():
    raw = b"a;b;tag_1;tag_2\n1;2;0;1\n3;4;1;1\n"
    _, spec, _ = dataspec.parse_upload(raw, None, targets="prefix-tag_", sep=";")
    token = dataspec.spec_to_token(spec)
    assert token == f"upload_{spec['digest']}_semicolon_prefix-tag_"
    back = dataspec.spec_from_token(token)
    assert (back["digest"], back["sep"], back["targets"]) == (spec["digest"], ";", "prefix-tag_")
    assert back["target_columns"] == [] and "not on this server" in dataspec.describe_spec(back)
    with pytest.raises(ValueError, match="not on this server any more"):
        dataspec.dataset_from_spec(back)


@pytest.mark.parametrize("token", ["", "x", "upload_abc", "upload_0123456789abcdef_comma_nope",
                                   "friedman_chain", "friedman_tree_n300_d16_uniform_noise1_noisy0_seed0",
                                   "friedman_chain_n300_d16_uniform_noise1_noisy0_x0", "shipped_"])
def test_a_token_no_spec_has_is_a_value_error(token):
    with pytest.raises(ValueError, match="names no data set"):
        dataspec.spec_from_token(token)
