"""The compute pages on the Data page's upload (AppTest): each says it uses the file, and runs on it."""
import json

import numpy as np
import pytest

from apptest_runs import job_of, open_app, poll
from engine.app.page_models import dataspec
from engine.experiments.bias_variance_data import DataBiasVarianceSettings, run_bias_variance_on_data


def upload(n=80):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(n, 3))
    Y = np.column_stack([X[:, 0] + X[:, 1], X[:, 2] - X[:, 0]]) + 0.1 * rng.normal(size=(n, 2))
    rows = ["a,b,c,y1,y2"] + [",".join(f"{v:.4f}" for v in row) for row in np.column_stack([X, Y])]
    return dataspec.parse_upload(("\n".join(rows) + "\n").encode(), None, name="mine.csv", targets="last-2")


def open_on_upload(page, query=None):
    ds, spec, payload = upload()
    at = open_app(page, query, route="home-link", state={"dataset_spec": spec, "dataset_upload": payload}, timeout=30)
    return at, ds


@pytest.mark.slow
def test_one_step_steps_on_the_upload():
    at, ds = open_on_upload("pages/one_step.py")
    assert at.selectbox(key="os_problem").value == "data"
    assert at.caption[0].value == "Data: **mine (uploaded CSV, targets: y1, y2)**, the Data page's choice."
    at.button(key="os_step_one").click().run()
    assert not at.exception and at.session_state["os_run"].n_steps == 1
    assert at.session_state["os_run"].X.shape == (40, 3)          # half the 80 rows, at most 80 of them
    at.selectbox(key="os_problem").set_value("friedman1-chain").run()   # the page's own problems stay
    assert not at.exception and at.session_state["os_run"].X.shape[1] == 5


@pytest.mark.slow
def test_an_upload_is_decomposed_on_its_own_rows_and_the_page_says_so():
    ds, spec, payload = upload()
    at = open_app("pages/bias_variance.py", {"bv_data_methods": ["gbmort", "gbrt-rpo-gaussian"], "bv_data_sets": "2",
                                             "bv_data_steps": "5", "bv_data_seeds": "2"},
                  route="home-link", state={"dataset_spec": spec, "dataset_upload": payload}, timeout=30)
    assert at.radio(key="bv_data").value == "data"
    assert at.caption[0].value.startswith("Data: **mine (uploaded CSV, targets: y1, y2)**")
    assert job_of(at, "bv_data") is None                    # nothing runs before Run
    at.button(key="bv_data_run").click().run()
    poll(at, "bv_data")
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    settings = DataBiasVarianceSettings(n_learning_sets=2, n_seeds=2, estimator_params=dict(n_estimators=5, max_leaf_nodes=8))
    direct = run_bias_variance_on_data(ds, settings, ["gbmort", "gbrt-rpo-gaussian"])
    np.testing.assert_allclose(table["error"], direct.error, rtol=1e-12)
    np.testing.assert_allclose(table["algorithm_variance"], direct.algorithm_variance, rtol=1e-12)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t.get("meta", {}).get("component") for t in chart["data"]] == [
        "bias2_noise", "learning_set_variance", "algorithm_variance", "error"]
    at.radio(key="bv_data").set_value("friedman1").run()      # the page's own Friedman1 view is one click away
    assert not at.exception and "friedman1" in at.caption[0].value


def test_two_uploads_of_one_name_are_two_runs():
    """The pages give an upload to the experiments as Problem.of(dataset), named by the file: the run store's
    key counts the data, so another file of the same name is another run, never the cached one."""
    from engine.app.serving.run_key import run_key
    from engine.experiments import Problem
    from engine.experiments.forests import run_sweep

    a, _, _ = upload(80)
    b, _, _ = upload(82)
    assert a.name == b.name
    assert run_key("fx", run_sweep, Problem.of(a)) != run_key("fx", run_sweep, Problem.of(b))
    assert run_key("fx", run_sweep, Problem.of(a)) == run_key("fx", run_sweep, Problem.of(upload(80)[0]))


@pytest.mark.slow
def test_forests_compresses_a_forest_on_the_upload():
    """Thesis chapter 7 on the user's own rows: the compression takes the Data page's upload too."""
    at, ds = open_on_upload("pages/forests.py", {"fx_exp": "compression", "fx_trees": "6", "fx_cv": "2",
                                                 "fx_repeats": "1"})
    assert at.selectbox(key="fx_cdata").value == "Data page"       # opens on the upload
    assert not at.exception and not at.error
    assert any("mine (uploaded CSV" in m.value for m in [*at.caption, *at.markdown])
    poll(at, "fx")
    job = job_of(at, "fx")
    assert job is not None and job.status == "done", job and job.status
    row = job.result.rows[0]
    assert job.result.dataset == ds.name and row["n_estimators"] == 6
    assert row["ret_nodes"] <= row["et_nodes"]
