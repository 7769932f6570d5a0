"""AppTest: pages on the sparse shipped data sets (bibtex, corel5k).

The Data page shows them without densifying and offers an NPZ download; the compute pages
never crash on them. (Whether the estimators fit a sparse X is the engine's business: until
they do, a page says why the settings cannot run; afterwards it runs them.)
"""

import io
import json

import numpy as np
from scipy import sparse

from apptest_runs import open_app
from engine.app.page_models import dataspec
from engine.datasets import load_dataset


def open_data(params):
    return open_app("pages/data.py", params, route="home-link")


def test_data_page_shows_bibtex_sparse_and_offers_npz():
    at = open_data({"data_source": "shipped", "data_dataset": "bibtex"})
    assert not at.exception and not at.error
    assert [m.value for m in at.metric] == ["7,395", "1,836", "159", "multilabel"]
    captions = " ".join(c.value for c in at.caption)
    assert "507,746 non-zeros" in captions and "sparse" in captions
    assert at.session_state["dataset_spec"] == {"source": "shipped", "name": "bibtex"}
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Data (NPZ, sparse)" in labels and "Data as used (CSV)" not in labels
    # the label-frequency chart has one bar per label
    bars = json.loads(at.get_by_key("data_targets").proto.spec)["data"][0]
    assert len(bars["x"]) == 159


def test_npz_download_bytes_rebuild_the_sparse_matrix():
    # What the download button serves (Dataset.to_npz) gives back X and Y exactly.
    data = load_dataset("corel5k")
    with np.load(io.BytesIO(data.to_npz()), allow_pickle=False) as z:
        X = sparse.csr_matrix((z["X_data"], z["X_indices"], z["X_indptr"]), shape=tuple(z["X_shape"]))
        assert (X != data.X).nnz == 0
        np.testing.assert_array_equal(z["Y"], data.Y)


def test_data_page_dense_sets_keep_the_csv_download():
    at = open_data({"data_source": "shipped", "data_dataset": "scm20d"})
    assert not at.exception and not at.error
    assert [m.value for m in at.metric] == ["8,966", "61", "16", "regression"]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Data as used (CSV)" in labels


def test_convergence_page_with_a_sparse_data_page_choice_does_not_crash():
    # The page caches its cost probe on the problem (a sparse X must hash) and shows what the
    # estimators say about the input instead of raising.
    at = open_app("pages/convergence.py", {"conv_problem": "data", "conv_n_steps": "20",
                                           "conv_variants": ["gbrt-rpo-subsampled"]},   # one probe: the page times each variant first
                  state={"dataset_spec": dataspec.shipped_spec("corel5k")})
    assert at.error or at.get("plotly_chart") or at.warning or at.get("progress") or at.caption
    entry = at.session_state["conv_page_run"] if "conv_page_run" in at.session_state else None
    if entry is not None and entry["job"] is not None:
        entry["job"].stop(timeout=10)          # a small run may have started by itself: end it here


def test_benchmark_page_on_a_sparse_set_does_not_crash():
    at = open_app("pages/benchmark.py", {"bench_dataset": "corel5k", "bench_budget": "quick", "bench_repeats": "2",
                                         "bench_estimators": ["gbmort"]}, timeout=120)
    assert at.selectbox(key="bench_dataset").value == "corel5k"


def test_data_page_offers_and_shows_delicious():
    # issue 33: the papers' own wide set, listed by the Data page (list_datasets), kept sparse
    at = open_data({"data_source": "shipped", "data_dataset": "delicious"})
    assert not at.exception and not at.error
    assert "delicious" in at.selectbox(key="data_dataset").options
    assert [m.value for m in at.metric] == ["16,105", "500", "983", "multilabel"]
    captions = " ".join(c.value for c in at.caption)
    assert "294,614 non-zeros" in captions and "standard split 12920/3185" in captions
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Data (NPZ, sparse)" in labels and "Data as used (CSV)" not in labels
    bars = json.loads(at.get_by_key("data_targets").proto.spec)["data"][0]
    assert len(bars["x"]) == 983
    heat = json.loads(at.get_by_key("data_corr").proto.spec)["data"][0]
    assert len(heat["x"]) == 400            # the 400 most variable of the 983 labels (the title says so)
