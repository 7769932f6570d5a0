"""AppTest (no browser): the Projections page's wide-output problems, loss choice, timing caption and the
"Figure 6 on delicious" preset (the real delicious; its cold run shows its estimate first).

Fragments never tick in AppTest, so a test "polls" the page's background run (apptest_runs.poll).
"""

import json


import pytest

import engine.experiments
from engine.app.page_content import takeaways
from apptest_runs import finished, open_app, page_run, poll
from engine.app.page_content.presets import PRESETS

PROJ = "pages/projections.py"
FIG6 = "Figure 6 on delicious"
FIG6_BIBTEX = "Figure 6 on bibtex (real data)"


def open_page(**query):
    return open_app(PROJ, query)


def test_wide_output_problems_come_first_and_are_described():
    at = open_page(proj_experiment="size", proj_dataset="cal500", proj_n_steps=10, proj_q_values="1,4")
    options = at.selectbox(key="proj_dataset").options
    assert options[:7] == ["friedman1-chain", "friedman1-group", "friedman1-ind",
                           "delicious", "corel5k", "cal500", "bibtex"]
    assert {"scm20d", "emotions", "enb"} <= set(options)
    assert "synthetic-delicious-shape" not in options      # the generator learns nothing: the real set replaces it
    help_text = at.selectbox(key="proj_dataset").help
    for needle in ("delicious (d = 983)", "corel5k (d = 374)", "cal500 (d = 174)", "bibtex (d = 159)"):
        assert needle in help_text


def test_delicious_waits_for_a_click_with_its_estimate():
    at = open_page(proj_experiment="size", proj_dataset="delicious", proj_n_steps=100)
    assert not at.exception
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "16,105 samples × 500 inputs × 983 outputs · sparse inputs" in captions
    assert at.text_input(key="proj_q_values").placeholder == "1, 98, 197, 492"      # 1 and 10 / 20 / 50 % of d
    assert at.selectbox(key="proj_loss_multilabel").options == ["logistic", "squared_error"]
    assert page_run(at, "proj") is None                                       # nothing starts by itself
    messages = " ".join(m.value for m in [*at.warning, *at.error])
    assert "estimated at" in messages


def test_loss_choice_reaches_the_experiment():
    at = open_page(proj_experiment="size", proj_dataset="flags", proj_n_steps=20, proj_q_values="1,3", proj_loss_multilabel="squared_error")
    assert at.selectbox(key="proj_loss_multilabel").value == "squared_error"
    at = poll(at, "proj")
    assert not at.exception
    res = finished(at, "proj").result
    assert res.params["loss"] == "squared_error" and res.params["train_curve"] is False
    assert any("squared_error loss" in c.value for c in at.caption)
    at.selectbox(key="proj_loss_multilabel").set_value("logistic").run()
    at = poll(at, "proj")
    assert finished(at, "proj").result.params["loss"] is None                 # the task's default: logistic


def test_caption_says_how_times_are_measured():
    at = open_page(proj_dataset="friedman1-chain")           # q = 1 ... 16 and gbmort: fits short enough to repeat
    at = poll(at, "proj")
    assert not at.exception
    res = finished(at, "proj").result
    text = " ".join(c.value for c in at.caption)
    assert "untimed warm-up fit" in text and "median of those fits' totals, spread over the steps as their median time per step" in text
    assert "Timed fits per model: q=1: " in text
    fits = [c.timed_fits for c in res.curves.values()]
    assert all(1 <= f <= 5 for f in fits)
    assert f"gbmort: {res.curves['gbmort'].timed_fits}" in text
    assert res.params["timing"] == {"warmup_rows": 64, "warmup_steps": 2, "short_seconds": 0.5, "max_fits": 5,
                                    "budget_seconds": 2.0}


@pytest.mark.parametrize("learning_rate", [0.1, 0.01])
def test_takeaway_reads_figure6_only_when_something_was_learned(learning_rate):
    at = open_page(proj_experiment="size", proj_dataset="flags", proj_n_steps=30, proj_q_values="1,2,7", proj_learning_rate=learning_rate)
    at = poll(at, "proj")
    res = finished(at, "proj").result
    match = res.cheapest_match()
    careful = [m.value for m in at.markdown if m.value.startswith("**Careful.**")]
    takeaway = [m.value for m in at.markdown if m.value.startswith("**Takeaway.**")]
    if res.learned_little():
        assert len(careful) == 1 and not takeaway
        assert f"{res.baseline_score:.3f}" in careful[0]
    elif match is not None:
        assert len(takeaway) == 1 and not careful
        assert f"With q = **{match['q']}** projections, gbrt-relabel-rpo reaches gbmort's LRAP" in takeaway[0]
        if takeaways.time_gap_is_noise(match["fit_time"], res.gbmort_fit_time,
                                       takeaways._range(res, f"q={match['q']}", match["fit_time"]),
                                       takeaways._range(res, "gbmort", res.gbmort_fit_time)):
            assert "within the noise" in takeaway[0]
        elif match["time_ratio"] < 1:
            assert f"**{match['time_ratio']:.0%} of its fit time**" in takeaway[0]
        else:
            assert f"**{match['time_ratio']:.1f} times its fit time**" in takeaway[0]
            assert "the projections save nothing" in takeaway[0]
    else:
        assert len(takeaway) == 1 and takeaway[0].startswith("**Takeaway.** The best LRAP here is")
    if learning_rate == 0.01:
        assert res.learned_little()        # 30 steps of 0.01 barely move away from the label frequencies


def test_a_failed_run_shows_its_reason(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("X must be something else (a test failure)")

    monkeypatch.setattr(engine.experiments, "run_projection_size", broken)
    at = open_page(proj_experiment="size", proj_dataset="friedman1-group", proj_n_steps=10, proj_q_values="1,2")
    at = poll(at, "proj")
    assert not at.exception
    assert any(e.value == "The run failed: ValueError: X must be something else (a test failure)" for e in at.error)
    assert any(x.label == "Traceback" for x in at.expander)


@pytest.mark.parametrize("label,dataset", [(FIG6, "delicious"), (FIG6_BIBTEX, "bibtex")])
def test_figure6_presets_open_the_page_with_their_settings(label, dataset):
    (preset,) = [p for p in PRESETS if p["label"] == label]
    assert preset["page"] == PROJ
    at = open_page(**preset["query_params"])
    assert not at.exception
    assert at.radio(key="proj_experiment").value == "size"
    assert at.selectbox(key="proj_dataset").value == dataset
    assert at.text_input(key="proj_q_values").value == preset["query_params"]["proj_q_values"]
    assert at.slider(key="proj_n_steps").value == int(preset["query_params"]["proj_n_steps"])
    assert at.select_slider(key="proj_max_leaf_nodes").value == 2
    assert at.selectbox(key="proj_projection").value == "gaussian"
    assert at.selectbox(key="proj_loss_multilabel").value == preset["query_params"]["proj_loss_multilabel"]
    entry = page_run(at, "proj")
    if preset["query_params"].get("go") == "1":
        # go=1: the preset's one click starts the run (no second click on Run), and go is consumed
        assert entry is not None and json.loads(entry["settings"])["dataset"] == dataset
        assert "go" not in at.query_params
        entry["job"].stop(timeout=30)
    else:
        # minutes on delicious: a cold run shows its estimate and waits for the Run button
        assert entry is None
        (warning,) = [w.value for w in at.warning if "estimated at" in w.value]
        assert "4 models × 100 steps on delicious" in warning
        assert at.button(key="proj_run_big").label.startswith("Run (≈ ")


@pytest.mark.parametrize("label", [FIG6, FIG6_BIBTEX])
def test_home_links_the_figure6_presets(label):
    at = open_app(timeout=30)
    (link,) = [link for link in at.get("page_link") if link.proto.label == label]
    (preset,) = [p for p in PRESETS if p["label"] == label]
    assert link.proto.query_string == "&".join(f"{k}={v}" for k, v in preset["query_params"].items()).replace(",", "%2C")
    assert link.proto.help == preset["description"]


@pytest.mark.parametrize("gbmort_time,expected", [(10.0, "**20% of its fit time** (2 s against 10 s)"),
                                                  (1.0, "**2.0 times its fit time** (2 s against 1 s)")])
def test_takeaway_says_whether_the_projections_saved_time(monkeypatch, gbmort_time, expected):
    real = engine.experiments.run_projection_size

    def with_known_numbers(*args, **kwargs):
        res = real(*args, **kwargs)
        res.score[:] = [0.408, 0.42]         # q = 1 within 0.005 of gbmort, and the quicker
        res.fit_time[:] = [2.0, 3.0]
        res.gbmort_score, res.gbmort_fit_time, res.baseline_score = 0.41, gbmort_time, 0.1
        return res

    monkeypatch.setattr(engine.experiments, "run_projection_size", with_known_numbers)
    at = poll(open_page(proj_experiment="size", proj_dataset="friedman1-group", proj_n_steps=10, proj_q_values="1,2"), "proj")
    (takeaway,) = [m.value for m in at.markdown if m.value.startswith("**Takeaway.**")]
    assert "With q = **1** projections, gbrt-relabel-rpo reaches gbmort's macro-r2 (0.408 against 0.410)" in takeaway
    assert expected in takeaway


def test_a_delicious_result_shows_the_papers_claims_beside_it(monkeypatch):
    """Issue 33: on delicious the page holds the run to Figures 5 and 6's claims (computed from it)."""
    real = engine.experiments.run_projection_size

    def as_delicious(*args, **kwargs):
        res = real(*args, **kwargs)
        res.dataset = "delicious"         # the numbers of a small run, read as the claims would read delicious'
        return res

    monkeypatch.setattr(engine.experiments, "run_projection_size", as_delicious)
    at = poll(open_page(experiment="size", dataset="friedman1-group", n_steps=10, q_values="1,20"), "proj")
    assert not at.exception
    (expander,) = [x for x in at.expander if x.label.startswith("The paper's claims beside this run")]
    table = expander.dataframe[0].value
    assert list(table["figure"]) == ["Figure 6a", "Figure 6b", "Figure 5 (gaussian)"]
    res = finished(at, "proj").result
    assert f"gbmort {res.gbmort_score:.3f}" in table["ours"].iloc[0]
    assert set(table["holds"]) <= {"yes", "no", "n/a"}
