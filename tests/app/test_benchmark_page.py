"""Benchmark page (pages/benchmark.py) through AppTest, started from app.py.

Fragments never tick in AppTest: a test "polls" by calling at.run() until the job ends.
"""

import base64
import time

import numpy as np
import plotly.io as pio
import pytest

from apptest_runs import job_of, open_app, page_run

from engine.experiments.published import PAPER_TABLE4
from engine.experiments.published import TABLE4_ESTIMATORS
from engine.app.page_content.presets import PRESETS

PAGE = "pages/benchmark.py"


def open_page(query=None, refs=False):
    """The page as a deep link opens it; ``refs=False`` unticks the scikit-learn reference rows
    (on by default; sklearn-gb alone takes ~20 s of a quick friedman1 run), unless ``query`` sets them."""
    query = {**({} if refs else {"bench_refs": "false", "bench_peers": "false"}), **(query or {})}
    return open_app(PAGE, query, route="home-first", timeout=30)   # the URL of the deep link /benchmark?...


def poll(at, until, timeout=60.0):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        at.run()
        assert not at.exception
        if until(at):
            return at
        time.sleep(0.2)
    raise AssertionError("timed out polling the benchmark job")


def job(at):
    return job_of(at, "bench")


def figure(at, key):
    """The plotly Figure of a chart (plotly 7 stores numpy arrays base64-encoded in the spec)."""
    return pio.from_json(at.get_by_key(key).proto.spec)


def array(value):
    """A plotly array attribute: a list, or plotly 7's base64 {'dtype', 'bdata', 'shape'}."""
    if isinstance(value, dict):
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return data.reshape(shape) if shape else data
    return np.asarray(value)


def test_renders_defaults_and_the_papers_table():
    at = open_page()
    assert at.title[0].value == "Benchmark"
    assert at.selectbox(key="bench_dataset").value == "friedman1-group"
    assert at.multiselect(key="bench_estimators").value == list(TABLE4_ESTIMATORS)
    assert at.radio(key="bench_budget").value == "quick"
    assert at.slider(key="bench_repeats").value == 2
    assert at.number_input(key="bench_seed").value == 0
    for w in [*at.selectbox, *at.multiselect, *at.radio, *at.slider, *at.number_input, *at.button]:
        assert w.help, f"{w.label} has no help"
    # before any run: the paper's Table 4 numbers for the chosen problem
    paper = at.dataframe[0].value
    assert paper["paper mean"].tolist() == sorted((m for m, _, _ in PAPER_TABLE4["friedman1-group"].values()), reverse=True)
    assert not at.button(key="bench_start").disabled and at.button(key="bench_stop").disabled
    assert "Seed **0**" in " ".join(c.value for c in at.caption)


def test_quick_run_table_heatmap_and_exports():
    at = open_page()
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).status == "done"
    frame = at.dataframe[0].value
    k = len(TABLE4_ESTIMATORS)
    assert sorted(frame["estimator"]) == sorted(TABLE4_ESTIMATORS)
    assert frame["mean"].between(0.7, 1.0).all()  # friedman1-group macro-r2
    assert set(frame["rank"]) <= set(range(1, k + 1)) and frame["rank"].min() == 1
    assert frame["paper mean"].tolist() == [PAPER_TABLE4["friedman1-group"][e][0] for e in frame["estimator"]]
    hm = figure(at, "bench_pvalues").data[0]
    z = array(hm.z).astype(float)
    assert z.shape == (k, k)
    np.testing.assert_allclose(z, z.T, equal_nan=True)  # log10 p: symmetric
    assert np.isnan(np.diag(z)).all() and np.isfinite(z[~np.eye(k, dtype=bool)]).all()
    text = hm.text
    for i in range(k):
        for j in range(k):
            if i != j and ">" in text[i][j]:
                assert "<" in text[j][i]
    scores = figure(at, "bench_scores")
    assert len(array(scores.data[0].x)) == k and any(t.name.startswith("paper") for t in scores.data)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Table (CSV)", "Everything (JSON)", "Scores figure (HTML)", "p-values figure (HTML)"]
    chosen = at.dataframe[1].value  # in the expander
    assert len(chosen) == k * 2 and chosen["n_steps"].between(1, 100).all()
    assert not at.warning  # not partial, no invalid combination


def test_stop_keeps_partial_results():
    at = open_page({"bench_repeats": "10", "bench_estimators": ["st-gbrt", "gbmort"]})
    assert at.slider(key="bench_repeats").value == 10
    at.button(key="bench_start").click().run()
    poll(at, lambda a: (p := job(a).partial) is not None and p.n_repeats_done >= 1)
    at.button(key="bench_stop").click().run()
    assert job(at).wait(30)
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).status == "stopped"
    result = job(at).result
    assert result.partial and 1 <= result.n_repeats_done < 10
    assert any("Partial results" in w.value for w in at.warning)
    frame = at.dataframe[0].value
    assert (frame["repeats"] == result.n_repeats_done).all()
    assert not at.button(key="bench_start").disabled and at.button(key="bench_stop").disabled


def test_query_params_preset_controls():
    at = open_page({
        "bench_dataset": "friedman1-ind", "bench_budget": "moderate", "bench_repeats": "4",
        "bench_seed": "7", "bench_estimators": ["st-gbrt", "sklearn-rf"],
    })  # fmt: skip
    assert at.selectbox(key="bench_dataset").value == "friedman1-ind"
    assert at.radio(key="bench_budget").value == "moderate"
    assert at.slider(key="bench_repeats").value == 4
    assert at.number_input(key="bench_seed").value == 7
    assert at.multiselect(key="bench_estimators").value == ["st-gbrt", "sklearn-rf"]
    # moderate: a cost estimate is shown before anything starts, on the button too
    assert any("fits" in w.value and "about" in w.value for w in at.warning)
    assert at.button(key="bench_start").label.startswith("Start moderate run (≈")
    assert page_run(at, "bench") is None


def test_table4_preset_matches_the_page():
    preset = next(p for p in PRESETS if p["label"].startswith("Table 4"))
    assert preset["page"] == PAGE
    at = open_page(preset["query_params"])
    assert at.selectbox(key="bench_dataset").value == preset["query_params"]["bench_dataset"]
    assert at.slider(key="bench_repeats").value == int(preset["query_params"]["bench_repeats"])
    assert at.multiselect(key="bench_estimators").value == list(TABLE4_ESTIMATORS)


def test_the_default_estimators_run_on_real_data_without_the_oracle_and_say_so():
    at = open_page({"bench_dataset": "enb"})
    assert not at.exception and not at.warning
    assert "artificial-gbrt" in at.multiselect(key="bench_estimators").value      # the default list, untouched
    assert any("artificial-gbrt is left out of this run" in c.value for c in at.caption)
    assert not at.button(key="bench_start").disabled
    alone = open_page({"bench_dataset": "enb", "bench_estimators": "artificial-gbrt", "bench_refs": "false"})
    assert any("artificial-gbrt alone cannot run here" in w.value for w in alone.warning)
    assert alone.button(key="bench_start").disabled


def test_no_estimator_is_a_message():
    at = open_page({"bench_estimators": ""})
    assert at.multiselect(key="bench_estimators").value == []
    assert any("at least one estimator" in w.value for w in at.warning)
    assert at.button(key="bench_start").disabled


@pytest.mark.parametrize("dataset", ["flags", "data-page"])
def test_other_datasets_run(dataset):
    at = open_page({"bench_dataset": dataset, "bench_estimators": ["gbrt-rpo-subsampled", "sklearn-rf"]})
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).status == "done", job(at).error
    frame = at.dataframe[0].value
    assert frame["mean"].between(0.3, 1.0).all()
    assert "paper mean" not in frame.columns  # the Data page's friedman1 is not Table 4's protocol


def test_forests_join_the_benchmark():
    # Issue 5: our forests (paper 003) are rows of the Benchmark page, next to scikit-learn's.
    names = ["gbmort", "mo-rf", "rf-gaussian-per-tree", "sklearn-rf"]
    at = open_page({"bench_estimators": names})
    assert {"mo-rf", "st-rf", "mo-et", "rf-sparse-shared"} <= set(at.multiselect(key="bench_estimators").options)
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).status == "done"
    frame = at.dataframe[0].value
    assert sorted(frame["estimator"]) == sorted(names)
    assert frame["mean"].between(0.6, 1.0).all()


def test_a_control_changed_with_the_click_starts_nothing():
    # The budget moved to "moderate" in the same message as the click on "Run quick benchmark":
    # the page redraws with the new estimate instead of starting a run nobody confirmed.
    at = open_page({"bench_estimators": ["gbmort"]})
    at.radio(key="bench_budget").set_value("moderate")
    at.button(key="bench_start").click().run()
    assert page_run(at, "bench") is None
    assert "settings changed as you clicked" in at.info[0].value
    assert at.button(key="bench_start").label.startswith("Start moderate run")


def test_table6_noisy_outputs_preset():
    # Table 6: 16 purely noisy outputs appended to friedman1-group; half-macro-r2 scores the
    # 16 real outputs and must beat macro-r2 over all 32 (nobody scores above 0 on noise).
    from engine.experiments.published import PAPER_TABLE6

    (preset,) = [p for p in PRESETS if p["label"].startswith("Table 6")]
    query = {**preset["query_params"], "bench_repeats": "2", "bench_estimators": ["st-gbrt", "gbmort"]}
    at = open_page(query)
    assert at.slider(key="bench_noisy").value == 16
    # go=1: the preset's one click starts the run (issue 21), no second click on the Run button
    assert job(at) is not None and "go" not in at.query_params
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).result.n_noisy_outputs == 16
    frame = at.dataframe[0].value
    assert (frame["half mean"] > frame["mean"] + 0.2).all()
    assert frame["paper (Table 6)"].tolist() == [
        f"half {PAPER_TABLE6['friedman1-group'][e][0]:.3f} ({PAPER_TABLE6['friedman1-group'][e][1]}); "
        f"{PAPER_TABLE6['friedman1-group'][e][2]:.3f} ± {PAPER_TABLE6['friedman1-group'][e][3]:.3f} "
        f"({PAPER_TABLE6['friedman1-group'][e][4]})" for e in frame["estimator"]]
    names = [t.name for t in figure(at, "bench_scores").data]
    assert "paper (Table 6)" in names


def test_noisy_outputs_only_on_friedman():
    at = open_page({"bench_dataset": "enb", "bench_noisy": "16", "bench_estimators": ["st-gbrt"]})
    assert at.slider(key="bench_noisy").disabled
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done)
    assert job(at).status == "done" and job(at).result.n_noisy_outputs == 0


def test_reference_rows_are_on_by_default_and_join_a_run():
    at = open_page(refs=True)
    assert at.checkbox(key="bench_refs").value is True and at.checkbox(key="bench_refs").help
    # the cost estimate counts them: more fits than the five Table 4 methods alone
    without = open_page()
    fits = lambda a: int(next(c.value for c in a.caption if " fits · estimated" in c.value).split()[0].replace(",", ""))
    assert fits(at) > fits(without)
    # a small run on a shipped data set: the reference rows are rows of the table
    at = open_page({"bench_dataset": "enb", "bench_estimators": ["gbmort"], "bench_peers": "false"}, refs=True)
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done, timeout=120)
    at.run()
    assert job(at).status == "done", job(at).error
    frame = at.dataframe[0].value
    assert sorted(frame["estimator"]) == ["gbmort", "sklearn-gb", "sklearn-rf"]
    assert frame["mean"].between(0.5, 1.0).all()


def test_very_costly_runs_are_refused_or_need_a_confirmation():
    # full, 5 repeats, with the references (scikit-learn's GB per output alone is estimated at
    # days here): far above the refusal threshold whatever the probe measures on this machine
    at = open_page({"bench_budget": "full", "bench_repeats": "5"}, refs=True)
    assert not at.exception
    assert any("Too costly for this page" in e.value and "python -m engine" in e.value for e in at.error), [e.value for e in at.error] + [c.value for c in at.caption]
    assert at.button(key="bench_start").disabled
    # moderate, 10 repeats, with the references: above the confirmation threshold, below the refusal
    at = open_page({"bench_budget": "moderate", "bench_repeats": "10"}, refs=True)
    assert not at.error
    confirm = at.checkbox(key="bench_confirm")
    assert not confirm.value and at.button(key="bench_start").disabled
    confirm.check().run()
    assert not at.button(key="bench_start").disabled
    assert page_run(at, "bench") is None          # nothing started by the tick alone


def test_defaults_run_beside_the_papers_methods_on_an_uploaded_csv():
    """Issue 34: "defaults" (the estimator as a practitioner gets it, only the seed set) is an
    estimator of the page; on the Data page's uploaded CSV its row is what the engine's
    protocol gives for it, beside gbmort with its selected settings."""
    import dataclasses
    import io

    from selection_calls import select
    from engine.app.page_models import dataspec

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 4))
    Y = np.column_stack([X[:, 0] + X[:, 1] ** 2, X[:, 2] - X[:, 0]]) + 0.1 * rng.normal(size=(120, 2))
    csv = io.StringIO()
    np.savetxt(csv, np.column_stack([X, Y]), delimiter=",", header="a,b,c,d,t1,t2", comments="")
    ds, spec, payload = dataspec.parse_upload(csv.getvalue().encode(), ["t1", "t2"], name="mine.csv")
    at = open_app(PAGE, {"bench_refs": "false", "bench_dataset": "data-page", "bench_estimators": ["gbmort"]},
                  route="home-first", state={"dataset_spec": spec, "dataset_upload": payload},   # the Data page's upload
                  timeout=30)
    assert not at.warning
    assert "defaults" in at.multiselect(key="bench_estimators").options
    assert "defaults (our boosting estimator as a practitioner gets it" in at.multiselect(key="bench_estimators").help
    at.button(key="bench_start").click().run()
    poll(at, lambda a: job(a).done)
    at.run()
    assert job(at).status == "done", job(at).error
    frame = at.dataframe[0].value
    assert sorted(frame["estimator"]) == ["defaults", "gbmort", "xgboost"]     # the peers, on by default
    direct = select(dataclasses.replace(ds, name="mine (Data page)"), ["gbmort", "defaults", "xgboost"],
                                 budget="quick", n_repeats=2, seed=0)
    for i, name in enumerate(direct.estimators):
        row = frame[frame["estimator"] == name].iloc[0]
        assert row["mean"] == pytest.approx(direct.mean[i], abs=1e-12)
    chosen = at.dataframe[1].value
    defaults = chosen[chosen["estimator"] == "defaults"]
    assert len(defaults) == 2 and (defaults["n_estimators"] == 300).all()
    assert (defaults["strategy"] == "projected_relabel").all() and (defaults["early_stopping"] == "auto").all()
    assert "defaults has the estimator's own" in " ".join(c.value for c in at.caption)
    xgb = chosen[chosen["estimator"] == "xgboost"]
    assert len(xgb) == 2 and (xgb["max_depth"] == 6).all() and (xgb["learning_rate"] == 0.3).all()
