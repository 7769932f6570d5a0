"""Forests page (pages/forests.py) through AppTest: default view, URL settings, Stop, bad input."""

import json
import time


from apptest_runs import finished, job_of, open_app

PAGE = "pages/forests.py"


def open_page(query=None):
    return open_app(PAGE, query, route="home-first", timeout=30)


def run_until_done(at, timeout=30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        job = job_of(at, "fx")
        if job.done:
            at.run()
            at.run()
            return job
        time.sleep(0.2)
        at.run()
    raise AssertionError("job did not finish")


def chart_spec(at):
    return json.loads(at.get_by_key("fx_chart").proto.spec)


def test_default_view_runs_and_draws():
    # The default is a wide-output set (corel5k, 374 labels: where the projection saves time), about
    # 10 s alone on 2 cores; under a loaded test machine it can take several times that.
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Forests"
    assert at.selectbox(key="fx_data").value == "corel5k" and at.text_input(key="fx_q").value == "1, 4, 16"
    job = run_until_done(at, timeout=180)
    assert job.status == "done"
    assert not at.exception
    spec = chart_spec(at)
    names = {t["name"] for t in spec["data"]}
    assert {"Algorithm 1 (shared projection)", "Algorithm 2 (projection per tree)", "mo-rf (original outputs)"} <= names
    per_tree = next(t for t in spec["data"] if t["name"] == "Algorithm 2 (projection per tree)")
    assert per_tree["x"] == [1.0, 4.0, 16.0] and all(0.1 < y <= 1 for y in per_tree["y"])
    # the fit-time sentence is computed from this run's times (cheaper, or within the noise)
    assert any("Fit times:" in m.value for m in at.markdown)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["CSV", "JSON", "Standalone HTML"]
    assert "Seed **0**" in at.caption[0].value
    assert all(w.help for w in [*at.slider, *at.selectbox, *at.radio, *at.text_input, *at.number_input])


def test_settings_from_url_schemes():
    at = open_page({"fx_exp": "schemes", "fx_q": "1,3", "fx_trees": "3", "fx_seed": "5"})
    assert at.radio(key="fx_exp").value == "schemes"
    assert at.number_input(key="fx_seed").value == 5
    run_until_done(at)
    assert not at.exception
    spec = chart_spec(at)
    gauss = next(t for t in spec["data"] if t["name"] == "Gaussian")
    assert gauss["x"] == [1.0, 3.0]
    assert spec["layout"]["meta"]["experiment"] == "schemes"


def test_randomization_and_rerun_after_change():
    at = open_page({"fx_exp": "randomization", "fx_q": "1", "fx_k": "2, 8", "fx_trees": "2"})
    run_until_done(at)
    spec = chart_spec(at)
    assert spec["data"][0]["x"] == [2.0, 8.0]
    at.text_input(key="fx_k").input("4").run()     # a cheap run passes the cost gate: it starts by itself
    run_until_done(at)
    assert chart_spec(at)["data"][0]["x"] == [4.0]


def test_bad_q_shows_an_error_not_an_exception():
    # from a link: the default is used, and said (issue 31)
    at = open_page({"fx_q": "one"})
    assert not at.exception and not at.error
    assert at.text_input(key="fx_q").value == "1, 4, 16"
    assert any("fx_q = “one”" in w.value and "uses the default, 1, 4, 16" in w.value for w in at.warning)
    # typed in the box: an error naming q
    at.text_input(key="fx_q").input("one").run()
    assert not at.exception
    assert "q" in at.error[0].value


def test_stop_keeps_a_partial_result_and_says_one_thing_about_the_end():
    # about 20 s estimated (above the auto-start limit): it waits for the button showing the estimate
    at = open_page({"fx_data": "yeast", "fx_trees": "40", "fx_q": "1,2,3,4,5,6,7,8"})
    assert at.selectbox(key="fx_data").value == "yeast"
    assert job_of(at, "fx") is None
    assert any("estimated at" in w.value for w in at.warning)
    at.button(key="fx_run_big").click().run()
    job = job_of(at, "fx")
    assert job.running
    while not job.snapshot()["fraction"] and job.running:   # at least one fit in
        time.sleep(0.2)
    at.button(key="fx_stop").click().run()
    assert job.done          # the Stop button's wait (pages/_jobs.py) saw the run end
    run_until_done(at)
    assert job.status == "stopped"
    (stopped,) = [w.value for w in at.warning if "Stopped after" in w.value]
    n_done = len(finished(at, "fx").result.records)
    assert f"Stopped after {n_done} of 17 fits" in stopped and 0 < n_done < 17
    assert not any("Finished in" in c.value for c in at.caption)      # one ending, not two


def test_a_link_over_the_cost_limit_is_refused_with_a_note():
    # corel5k, 9 values of q up to d = 374, 100 trees, 5 repeats, single trees: about 20 minutes
    # (q = 100000 alone is clamped to d = 374 with a note, and runs small: tests/app/test_page_state.py)
    at = open_page({"fx_data": "corel5k", "fx_q": "1,2,5,10,20,50,100,200,374", "fx_trees": "100",
                    "fx_repeats": "5", "fx_single": "True"})
    assert not at.exception
    assert job_of(at, "fx") is None                 # nothing started
    (refused,) = [e.value for e in at.error if "limit" in e.value]
    assert "estimated at" in refused and "fewer or smaller values of q" in refused
    assert at.button(key="fx_run").disabled
    at.session_state["fx_force"] = True             # what a Run click sets: still refused
    at.run()
    assert job_of(at, "fx") is None and any("limit" in e.value for e in at.error)


def test_the_default_view_passes_the_gate_and_starts_by_itself():
    at = open_page()
    assert job_of(at, "fx") is not None and not at.error


def test_home_preset_opens_projection_size_on_emotions():
    from engine.app.page_content.presets import PRESETS

    (preset,) = [p for p in PRESETS if p["page"] == PAGE and p["query_params"]["fx_exp"] == "size"
                 and p["query_params"]["fx_data"] == "emotions"]
    at = open_page(preset["query_params"])
    assert not at.exception
    assert at.radio(key="fx_exp").value == "size"
    assert at.selectbox(key="fx_data").value == "emotions"
    job = run_until_done(at)
    assert job.status == "done"
    per_tree = next(t for t in chart_spec(at)["data"] if t["name"] == "Algorithm 2 (projection per tree)")
    assert per_tree["x"] == [1.0, 2.0, 3.0, 6.0]


def test_variance_split_experiment():
    # Appendix C of paper 003 on the page: the single tree's algorithm variance split into its
    # projection and tree terms, next to the measured variance of forests with Algorithms 1 and 2.
    at = open_page({"fx_exp": "variance", "fx_structure": "group", "fx_sets": "3", "fx_q": "1, 4", "fx_trees": "5"})
    assert not at.exception and not at.error
    assert at.radio(key="fx_structure").value == "group"
    assert at.slider(key="fx_repeats").disabled
    job = run_until_done(at, timeout=60)  # a first visit runs the linked view by itself
    assert job.status == "done" and not at.exception
    result = job.result
    assert result.n_learning_sets_done == 3 and list(result.q_values) == [1, 4]
    bars = {t["name"]: t for t in chart_spec(at)["data"]}
    assert {"single tree: projection term", "single tree: tree-randomization term"} <= set(bars)
    text = " ".join(m.value for m in at.markdown)
    assert "never larger" in text and "q = 4: projection" in text
    assert "same bias and learning-set variance" in text
    table = result.to_frame()
    assert {"var_learning_set_corrected", "alg2_var_learning_set_corrected"} <= set(table.columns)
    assert any("`*_corrected` terms are unbiased" in c.value for c in at.caption)
    assert [b.label for b in at.get("download_button")] == ["CSV", "JSON", "Standalone HTML"]


def test_variance_split_bad_q_is_a_message():
    # q is clamped to [1, d] (d = 16 outputs) and the change said, as on Projections (issue 31)
    at = open_page({"fx_exp": "variance", "fx_q": "0, 40", "fx_sets": "2", "fx_trees": "2"})
    assert not at.exception and not at.error
    assert any("of q (d = 16 outputs): 0 → 1, 40 → 16" in w.value for w in at.warning)
    assert at.session_state["fx_page_run"]["settings"][2].count("'q_values', [1, 16]") == 1
    at.text_input(key="fx_q").input("1, x").run()
    assert not at.exception
    assert at.error and "q" in at.error[0].value


# ---------------------------------------------------------------- compression (thesis chapter 7)

def test_compression_experiment_draws_the_path_and_the_factor():
    at = open_page({"fx_exp": "compression", "fx_trees": "8", "fx_cv": "3"})
    assert not at.exception and not at.error
    assert at.selectbox(key="fx_cdata").value == "friedman1"          # the default data set
    assert "fx_q" not in [w.key for w in at.text_input]                  # no projection here
    job = run_until_done(at, timeout=60)
    assert job.status == "done" and not at.exception
    result = job.result
    row = result.rows[0]
    assert result.dataset == "friedman1" and row["n_estimators"] == 8 and row["n_min"] == 1
    spec = chart_spec(at)
    assert spec["layout"]["meta"] == "compression-path"
    names = {t["name"] for t in spec["data"]}
    assert {"rET, test set", "rET, 3-fold CV", "ET (uncompressed), test"} <= names
    # t* is marked on the chart, and the compression factor is written beside it
    assert any(f"t* = {row['t_star']:.2f}" in a["text"] for a in spec["layout"]["annotations"])
    (metric,) = at.metric
    assert metric.label == "Compression factor" and metric.value == f"{row['compression_factor']:.0f}×"
    text = " ".join(m.value for m in at.markdown)
    assert "indicator function" in text and "1 for the inputs that reach the node" in text
    assert f"{row['et_nodes']:,.0f} → {row['ret_nodes']:,.0f}" in text
    assert [b.label for b in at.get("download_button")] == ["CSV", "JSON", "Standalone HTML"]
    assert all(w.help for w in [*at.slider, *at.selectbox, *at.radio, *at.number_input])


def test_compression_on_a_shipped_multilabel_set_and_stop():
    at = open_page({"fx_exp": "compression", "fx_cdata": "emotions", "fx_trees": "30", "fx_repeats": "2"})
    assert at.selectbox(key="fx_cdata").value == "emotions"
    assert job_of(at, "fx").running       # estimated under the auto-start limit
    at.button(key="fx_stop").click().run()
    job = run_until_done(at, timeout=60)
    assert job.status == "stopped" and len(job.result.rows) < 2
    assert any("Stopped after" in w.value for w in at.warning)
    assert not at.exception


def test_home_preset_table_7_1():
    from engine.app.page_content.presets import PRESETS

    (preset,) = [p for p in PRESETS if p["label"] == "Thesis Table 7.1: compress a forest"]
    at = open_page(preset["query_params"])
    assert not at.exception
    assert at.radio(key="fx_exp").value == "compression"
    assert at.slider(key="fx_trees").value == 100 and at.slider(key="fx_cv").value == 10
    job = run_until_done(at, timeout=120)
    assert job.status == "done"
    row = job.result.rows[0]
    assert row["et_nodes"] == 29900 and row["compression_factor"] >= 10        # Table 7.1's setting
    assert float(at.metric[0].value.rstrip("×")) >= 10


def test_delicious_presets_run_on_their_click_and_state_their_estimate_otherwise():
    """The thesis's delicious study (issue 33): minutes on delicious. A preset's link (go=1) starts
    its run on the click (the server's start-up fill computes it the same way); the same view opened
    without go states its estimate and waits for Run; Stop keeps what is done."""
    from engine.app.page_content.presets import PRESETS
    labels = ("Forests on delicious: thesis Figure 5.1", "Forests on delicious: k against q (thesis Figure 5.3)",
              "Forests on delicious: projection schemes (thesis Figure 5.4)")
    experiments = ("size", "randomization", "schemes")
    for label, experiment in zip(labels, experiments):
        (preset,) = [p for p in PRESETS if p["label"] == label]
        assert preset["query_params"]["go"] == "1"
        quiet = {k: v for k, v in preset["query_params"].items() if k != "go"}
        at = open_page(quiet)
        assert not at.exception
        assert at.radio(key="fx_exp").value == experiment and at.selectbox(key="fx_data").value == "delicious"
        assert job_of(at, "fx") is None                           # nothing started by itself
        (warning,) = [w.value for w in at.warning if "estimated at" in w.value]
        assert "delicious" in warning
    at = open_page(dict(PRESETS[[p["label"] for p in PRESETS].index(labels[0])]["query_params"]))
    assert at.checkbox(key="fx_single").value is True            # Figure 5.1 has single trees too
    assert job_of(at, "fx").running                              # go=1: started on the preset's click
    at.button(key="fx_stop").click().run()
    job = run_until_done(at, timeout=600)
    assert job.status == "stopped"
    assert not at.exception
