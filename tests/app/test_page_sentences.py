"""AppTest, issue 31: sentences a page said against its own chart, each now read from the result it
describes (or removed): the Convergence page's data caption and pin label, the Projections schemes
view's timing paragraph, the Forests notes on repeats, the Benchmark's real-data diagram and key."""

from __future__ import annotations

import numpy as np


from apptest_runs import finished, open_app, poll
from engine.app.page_models import dataspec


def texts(at):
    return [e.value for kind in (at.caption, at.markdown, at.info, at.warning, at.success) for e in kind]


def test_convergence_on_an_uploaded_csv_captions_its_own_rows():
    """The caption said "1000 test samples (friedman1)" on an uploaded CSV: it now gives the rows of the
    data the run trains on, read from the data drawn, and its split."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    rows = ["a,b,c,t1,t2"] + [",".join(f"{v:.4f}" for v in (*x, x[0] + x[1], x[2])) for x in X]
    ds, spec, payload = dataspec.parse_upload("\n".join(rows).encode(), ["t1", "t2"], name="mine.csv")
    at = open_app("pages/convergence.py", {"conv_problem": "data", "conv_variants": ["gbmort"], "conv_n_steps": "20"},
                  route="home-first", state={"dataset_spec": spec, "dataset_upload": payload})
    caption = next(c.value for c in at.caption if c.value.startswith("Data:"))
    assert "mine (uploaded CSV" in caption and "friedman1" not in caption and "1000 test samples" not in caption
    assert "20 training / 20 test samples (random 50/50 train/test split (seed 0))" in caption
    friedman = open_app("pages/convergence.py", {"conv_problem": "chain", "conv_n_test": "500", "conv_n_steps": "20"}, route="home-link")
    caption = next(c.value for c in friedman.caption if c.value.startswith("Data:"))
    assert "friedman1-chain, 300 training samples" in caption and "; 500 test samples" in caption


def test_the_pin_label_gives_the_steps_the_run_holds():
    """A run started at 20 steps and stepped twice holds 40 steps: its pin says 40, as the table does."""
    at = open_app("pages/convergence.py", {"conv_problem": "group", "conv_variants": ["gbmort"], "conv_n_steps": "20",
                                            "conv_n_test": "200"}, route="home-link")
    poll(at, "conv", 60)
    for _ in range(2):
        at.button(key="conv_step").click().run()
        poll(at, "conv", 60)
    done = finished(at, "conv")
    held = {c.n_steps for c in done.result.curves.values()}
    assert held == {40} and done.settings["n_steps"] == 20
    at.button(key="conv_pin").click().run()
    (pin,) = at.session_state["conv_pins"]
    assert "40 steps" in pin["label"] and "20 steps" not in pin["label"]
    assert set(at.dataframe[0].value["steps"]) == {40}
    assert any(f"Pinned **A** (dashed): {pin['label']}" in c.value for c in at.caption)


def test_the_projections_schemes_view_says_how_it_timed_once():
    """The schemes view printed its fit-time paragraph twice (once among the run's notes)."""
    at = open_app("pages/projections.py", {"proj_experiment": "schemes", "proj_dataset": "friedman1-chain", "proj_n_steps": "20",
                                            "proj_n_test": "500"}, timeout=120, route="home-link")
    poll(at, "proj", 300)
    assert not at.exception and finished(at, "proj").status == "done"
    said = " ".join(texts(at))
    assert said.count("Fit times count the boosting steps only") == 1, said
    assert said.count("Timed fits per model") == 1


def test_the_real_data_default_selection_draws_a_diagram_named_as_its_table(monkeypatch, tmp_path):
    """The default real-data selection was edm + emotions, one data set of each kind: a run drew no
    diagram at all. The default is now two multi-label sets; the diagram's names are the table's."""
    import plotly.io as pio

    monkeypatch.setenv("RPO_REAL_DATA_CACHE", str(tmp_path / "cache"))
    at = open_app("pages/benchmark.py", {"bench_mode": "real-data study"}, route="home-link")
    chosen = at.multiselect(key="bench_rd_datasets").value
    from engine.datasets import list_datasets
    tasks = {d["name"]: d["task"] for d in list_datasets()}
    assert len(chosen) == 2 and len({tasks[d] for d in chosen}) == 1      # two of a kind: a diagram
    at.multiselect(key="bench_rd_methods").set_value(["st-gbrt", "gbmort", "st-rf"]).run()
    at.button(key="bench_rd_start").click().run()
    at = poll(at, "bench_rd", timeout=300)
    assert not at.exception and finished(at, "bench_rd").status == "done"
    assert not any("critical-difference diagram needs" in i.value for i in at.info)
    cd = pio.from_json(at.get_by_key("bench_rd_cd_multilabel_0").proto.spec)
    drawn = {t.name for t in cd.data if "average rank" in (t.hovertemplate or "")}   # one trace per method
    ranks = next(d.value for d in at.dataframe if "average rank" in d.value.columns)
    assert drawn == set(ranks["method"]) == {"st-gbrt", "gbmort", "st-rf"}


def test_a_figure_1_preset_opens_a_page_that_names_the_same_panel():
    """The Home preset "Figure 1a: convergence on chain" opened a page that called chain "Figure 1b".
    Paper 002, section 4.2.2: chain is Figure 1a, group 1b, ind 1c."""
    from engine.app.page_content.presets import FIGURE1_PANELS, PRESETS

    assert FIGURE1_PANELS == {"chain": "Figure 1a", "group": "Figure 1b", "ind": "Figure 1c"}
    for preset in (p for p in PRESETS if p["page"] == "pages/convergence.py"):
        problem = preset["query_params"]["conv_problem"]
        assert preset["label"].startswith(FIGURE1_PANELS[problem] + ":")
        at = open_app("pages/convergence.py", {**preset["query_params"], "conv_n_steps": "20", "go": "0"}, route="home-link")
        said = " ".join(m.value for m in at.markdown)
        panels = {p for p in FIGURE1_PANELS.values() if p in said}
        assert panels == {FIGURE1_PANELS[problem]}, (problem, panels)
