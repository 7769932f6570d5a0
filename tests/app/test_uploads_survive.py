"""An upload survives a reload (AppTest): the Data page keeps the file on the server by its content
hash and names the choice in the URL (``data=``); a new session (a reload, a link) opened on that URL
trains on the same file, and where the server no longer holds it, says so and runs nothing."""

import numpy as np
import pytest

from apptest_runs import job_of, open_app, poll

from engine.app.page_models import dataspec


def many_targets_csv(n=60, labels=8):
    """Features first and last, labels in between: prefix picks them, the file's order is kept."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    Y = (X[:, :1] + rng.normal(size=(n, labels)) > 0).astype(int)
    head = ["f0", "f1"] + [f"tag_{j:02d}" for j in range(labels)] + ["f2", "f3"]
    rows = [",".join(head)] + [",".join([f"{X[i, 0]:.3f}", f"{X[i, 1]:.3f}", *map(str, Y[i]),
                                         f"{X[i, 2]:.3f}", f"{X[i, 3]:.3f}"]) for i in range(n)]
    return ("\n".join(rows) + "\n").encode()


def upload_by_prefix(raw):
    at = open_app("pages/data.py", {"data_source": "upload"}, route="home-link", timeout=30)
    at.file_uploader(key="data_file").set_value(("labels.csv", raw, "text/csv")).run()
    at.radio(key="data_target_rule").set_value("prefix").run()
    at.text_input(key="data_target_prefix").input("tag_").run()
    assert not at.exception and not at.error
    return at


@pytest.mark.slow
def test_targets_by_prefix_show_the_split_before_anything_runs():
    at = upload_by_prefix(many_targets_csv())
    spec = at.session_state["dataset_spec"]
    assert spec["target_columns"] == [f"tag_{j:02d}" for j in range(8)] and spec["targets"] == "prefix-tag_"
    split = next(m.value for m in at.markdown if m.value.startswith("**Targets"))
    assert "**Targets (8)**, the columns starting with “tag_”" in split and "**Features (4)**: `f0`, `f1`, `f2`, `f3`" in split
    assert [m.value for m in at.metric] == ["60", "4", "8", "multilabel"]
    assert any("content hash" in c.value for c in at.caption)     # the link says where it opens


@pytest.mark.slow
def test_a_new_session_on_the_url_trains_on_the_same_upload_and_a_gone_file_runs_nothing():
    first = upload_by_prefix(many_targets_csv())
    token = dataspec.spec_to_token(first.session_state["dataset_spec"])

    reload = open_app("pages/convergence.py", {"data": token, "conv_problem": "data", "conv_variants": ["gbmort"],
                                               "conv_n_steps": "10"}, route="home-link", timeout=30)   # a reload: a new session, the same URL
    assert not reload.error
    assert reload.session_state["dataset_spec"]["target_columns"] == [f"tag_{j:02d}" for j in range(8)]
    assert any(c.value.startswith("Data: labels (uploaded CSV") for c in reload.caption)
    poll(reload, "conv")
    assert job_of(reload, "conv").done and job_of(reload, "conv").snapshot()["status"] == "done"
    reload.switch_page("pages/data.py").run()           # the Data page shows the same file and rule
    assert not reload.exception and reload.text_input(key="data_target_prefix").value == "tag_"
    assert reload.session_state["dataset_spec"]["digest"] == first.session_state["dataset_spec"]["digest"]

    other = token.replace(token.split("_")[1], "0123456789abcdef")   # a file this server never held
    gone = open_app("pages/convergence.py", {"data": other, "conv_problem": "data", "conv_variants": ["gbmort"],
                                             "conv_n_steps": "10"}, route="home-link", timeout=30)
    assert "the uploaded file is not on this server any more: upload it again" in gone.error[0].value
    assert job_of(gone, "conv") is None                  # nothing ran
    gone.switch_page("pages/data.py").run()
    assert "not on this server any more" in gone.error[0].value and not gone.get("plotly_chart")
