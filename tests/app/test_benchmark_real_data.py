"""The Benchmark page's real-data mode (pages/_real_data.py) through AppTest, started from app.py."""
import re

import plotly.io as pio
import pytest

from apptest_runs import finished, job_of, open_app, poll

from engine.names import REAL_DATA_METHODS

PAGE = "pages/benchmark.py"
FAST = ["gbmort", "gbrt-rpo-subsampled", "mo-rf"]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """The page keeps finished cells in a folder shared by the app's sessions: one per test here."""
    monkeypatch.setenv("RPO_REAL_DATA_CACHE", str(tmp_path / "cache"))


def open_mode(query=None):
    """The page in real-data mode, its cell cache in a fresh folder (see the autouse fixture)."""
    return open_app(PAGE, {"bench_mode": "real-data study", **(query or {})}, route="home-first")


def test_before_a_run_the_papers_diagrams_and_every_control_has_help():
    at = open_mode()
    assert at.radio(key="bench_mode").value == "real-data study"
    assert at.multiselect(key="bench_rd_datasets").value == ["emotions", "birds"]   # two of a kind: a diagram
    assert at.multiselect(key="bench_rd_methods").value == list(REAL_DATA_METHODS)
    assert at.radio(key="bench_rd_budget").value == "quick"
    for w in [*at.multiselect, *at.radio, *at.number_input, *at.button, *at.checkbox]:
        assert w.help, f"{w.label} has no help"
    cd = pio.from_json(at.get_by_key("bench_rd_paper_cd_multilabel").proto.spec)
    assert "Figure 7" in cd.layout.title.text and any("CD = 2.29" in a.text for a in cd.layout.annotations)
    # The preset selects every shipped data set of the paper's list.
    at.button(key="bench_rd_papers_list").click().run()
    assert {"cal500", "emotions", "edm", "wq", "yeast"} <= set(at.multiselect(key="bench_rd_datasets").value)


def test_quick_run_shows_ranks_wilcoxon_per_dataset_table_and_exports():
    at = open_mode()
    at.multiselect(key="bench_rd_datasets").set_value(["edm", "atp7d"])
    at.multiselect(key="bench_rd_methods").set_value(FAST)
    at.run()
    at.button(key="bench_rd_start").click().run()
    poll(at, "bench_rd", timeout=180)
    assert not at.exception
    view = finished(at, "bench_rd")
    assert view.status == "done" and not view.result.partial
    result = view.result
    assert {d["name"] for d in result.datasets} == {"edm", "atp7d"}
    cd = pio.from_json(at.get_by_key("bench_rd_cd_regression_0").proto.spec)
    assert {a.text.split(" (")[0] for a in cd.layout.annotations if "(" in a.text} >= set(FAST)
    frames = [d.value for d in at.dataframe]
    ranks = next(f for f in frames if "average rank" in f.columns)
    assert sorted(ranks["method"]) == sorted(FAST)
    assert ranks["average rank"].sum() == 6.0                  # 1 + 2 + 3 on each data set
    wilcoxon = next(f for f in frames if "mo-rf" in f.columns and "mo-rf" in f.index)
    assert "|" in wilcoxon.loc["gbmort", "mo-rf"]             # ours | the paper's Table 9
    table = next(f for f in frames if "edm" in f.columns)
    assert set(table.columns) == {"method", "edm", "atp7d"} and "|" in table.iloc[0]["edm"]
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"Summary (CSV)", "Everything (JSON)", "Report (HTML)"}


def test_stop_keeps_the_finished_cells():
    at = open_mode()
    at.multiselect(key="bench_rd_datasets").set_value(["emotions"])
    at.multiselect(key="bench_rd_methods").set_value(["st-gbrt", "gbmort"])
    at.radio(key="bench_rd_budget").set_value("moderate")
    at.run()
    at.button(key="bench_rd_start").click().run()
    job = job_of(at, "bench_rd")
    # Cells run one after another here: once a second split's cell has begun, the first has finished
    # (waiting only for the first "validation" raced a loaded machine's first cell: 0 computed).
    while job.running and not re.search(r"split [2-9], validation", job.snapshot()["message"]):
        at.run()
    at.button(key="bench_rd_stop").click().run()
    poll(at, "bench_rd")
    view = finished(at, "bench_rd")
    assert view.status == "stopped" and view.result.partial and view.result.n_computed > 0
    assert len(view.result.cells) == view.result.n_computed     # every finished cell is in the result
    assert not at.exception


def test_the_cost_gate_shows_the_estimate_and_refuses_a_study_over_the_limit():
    at = open_mode()
    start = at.button(key="bench_rd_start")
    assert "≈" in start.label and not start.disabled          # edm + emotions, quick: seconds
    at.button(key="bench_rd_papers_list").click().run()
    at.radio(key="bench_rd_budget").set_value("moderate").run()
    (refused,) = [e.value for e in at.error if "limit" in e.value]
    assert "estimated at" in refused and "reproduce real-data --budget moderate" in refused
    assert at.button(key="bench_rd_start").disabled and job_of(at, "bench_rd") is None
