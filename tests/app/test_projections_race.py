"""AppTest: the Projections page's race against XGBoost (pages/_race.py): its controls and its chart."""
import json

import pytest

from apptest_runs import finished, open_app, poll
from engine.experiments.time_to_accuracy import plt_installed, xgboost_installed

PROJ = "pages/projections.py"


def open_page():
    return open_app(PROJ)


def test_the_race_and_the_q_sweep_offer_both_leaf_estimations():
    at = open_page()
    assert not at.exception
    for key in ("proj_race_leaves", "proj_leaf_estimation"):
        assert len(at.selectbox(key=key).options) == 2


def test_the_race_draws_lrap_against_seconds():
    at = open_page()
    at.radio(key="proj_race_dataset").set_value("bibtex")
    at.slider(key="proj_race_steps").set_value(10)
    at.slider(key="proj_race_rounds").set_value(5)
    at.run()
    at.button(key="proj_race_run").click().run()
    at = poll(at, "proj_race", timeout=300)
    assert not at.exception
    assert finished(at, "proj_race").status == "done"
    fig = json.loads(at.get_by_key("proj_race_chart").proto.spec)
    curves = [t["meta"]["curve"] for t in fig["data"] if "curve" in t.get("meta", {})]
    assert curves[0].startswith("engine") and len(curves) == 2 + xgboost_installed() + plt_installed()   # + defaults
    assert curves[1] == "engine: its defaults (only the seed set)"
    assert any(c.startswith("napkinXC PLT") for c in curves) == plt_installed()     # issue 46
    assert "test LRAP" in fig["layout"]["yaxis"]["title"]["text"]
    assert any("best LRAP" in c.value for c in at.caption)


def test_the_page_says_whether_napkinxcs_plt_races(monkeypatch):
    at = open_page()
    assert any("napkinXC is installed" in c.value for c in at.caption) == plt_installed()
    monkeypatch.setattr("pages._race.plt_installed", lambda: False)
    at = open_page()
    assert any("where napkinXC is installed" in c.value and "pip install napkinxc" in c.value for c in at.caption)


def test_without_xgboost_the_page_says_so(monkeypatch):
    monkeypatch.setattr("pages._race.xgboost_installed", lambda: False)
    at = open_page()
    assert any("XGBoost is not installed" in i.value and "pip install xgboost-cpu" in i.value for i in at.info)
    assert at.slider(key="proj_race_rounds").disabled


def small_race(at):
    at.radio(key="proj_race_dataset").set_value("bibtex")
    at.checkbox(key="proj_race_defaults").uncheck()
    at.slider(key="proj_race_steps").set_value(10)
    at.run()
    at.button(key="proj_race_run").click().run()
    return poll(at, "proj_race", timeout=300)


def test_a_race_run_without_xgboost_is_not_served_once_xgboost_is_there(monkeypatch):
    """Issue 31: after installing XGBoost the cached engine-only race kept saying "not installed". The race
    remembers whether XGBoost raced (an argument of the run, so a different run for the server's store):
    the engine-only race is shown with a note saying so, and Run gives the race with XGBoost, computed
    afresh rather than served from the cache."""
    monkeypatch.setattr("pages._race.xgboost_installed", lambda: False)
    monkeypatch.setattr("pages._race.plt_installed", lambda: False)
    at = small_race(open_page())
    first = finished(at, "proj_race")
    assert not at.exception and first.status == "done" and first.result.params["with_xgboost"] is False
    assert len(first.result.curves) == 1
    assert not any("ran without XGBoost" in w.value for w in at.warning)   # nothing to add yet
    monkeypatch.undo()                                                     # XGBoost is installed now
    at.run()
    assert any("This race ran without XGBoost" in w.value for w in at.warning)
    assert not at.slider(key="proj_race_rounds").disabled
    at.button(key="proj_race_run").click().run()
    at = poll(at, "proj_race", timeout=300)
    second = finished(at, "proj_race")
    assert second.status == "done" and not second.cached
    assert second.result.params["with_xgboost"] is True
    expected = ["engine", "XGBoost"] + (["napkinXC PLT"] if plt_installed() else [])
    assert [k.split(":")[0] for k in second.result.curves] == expected
    assert not any("ran without XGBoost" in w.value for w in at.warning)
    fig = json.loads(at.get_by_key("proj_race_chart").proto.spec)
    assert sum("curve" in t.get("meta", {}) for t in fig["data"]) == len(expected)


def test_the_benchmark_real_data_mode_offers_second_order_rows(monkeypatch, tmp_path):
    monkeypatch.setenv("RPO_REAL_DATA_CACHE", str(tmp_path / "cache"))
    at = open_app("pages/benchmark.py", {"bench_mode": "real-data study"}, route="home-first")
    assert not at.checkbox(key="bench_rd_newton").value       # the paper's eight methods by default
    at.checkbox(key="bench_rd_newton").check().run()
    assert not at.exception and at.checkbox(key="bench_rd_newton").value

def test_an_upload_too_small_to_split_is_a_message_not_a_run():
    """The race's arguments are built (hence checked) on the page: a 3-row upload cannot be split into
    training and test rows, so the page says why and Run is off; nothing is started. The q sweep below
    says so too (it raised before)."""
    from apptest_runs import job_of
    from engine.app.page_models import dataspec

    rows = "a,b,y1,y2\n0.1,0.2,0.3,0.4\n0.5,0.6,0.7,0.8\n0.9,1.0,1.1,1.2\n"
    ds, spec, payload = dataspec.parse_upload(rows.encode(), None, name="tiny.csv", targets="last-2")
    at = open_app(PROJ, route="home-link", state={"dataset_spec": spec, "dataset_upload": payload}, timeout=30)
    assert not at.exception and at.radio(key="proj_race_dataset").value == "data"
    assert any("This race cannot run" in e.value and "at least 4 are needed" in e.value for e in at.error)
    assert at.button(key="proj_race_run").disabled and job_of(at, "proj_race") is None
    assert any("cannot be swept" in e.value and "at least 4 are needed" in e.value for e in at.error)
