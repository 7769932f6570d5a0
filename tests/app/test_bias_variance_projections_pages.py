"""AppTest (no browser): the Bias–variance and Projections pages, started from the entry point.

Fragments never tick in AppTest, so a test "polls" a page's background run (apptest_runs.poll).
"""

import json
import time

import numpy as np

from apptest_runs import finished, job_of, open_app, page_run, poll
from engine.app.page_content.presets import PRESETS

BV, PROJ = "pages/bias_variance.py", "pages/projections.py"


def decode(value):
    """A plotly JSON array: a plain list, or plotly's typed array {dtype, bdata, shape}."""
    import base64

    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", array.size)).split(",")]
        return array.reshape(shape)
    return np.asarray(value, dtype=float)


def open_page(page, **query):
    """An AppTest on ``page`` of app.py, with URL query parameters (set before the first run)."""
    return open_app(page, query, timeout=30)


def spec(at, key):
    return json.loads(at.get_by_key(key).proto.spec)


def test_bias_variance_default_view():
    at = open_page(BV)
    assert not at.exception
    assert [t.value for t in at.title] == ["Bias–variance"]
    at = poll(at, "bv")
    assert not at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["bv_stacked", "bv_lines", "bv_curves"]
    # The default story: stumps against 8-leaf trees, over the number of steps.
    fig = spec(at, "bv_stacked")
    runs = {}
    for trace in fig["data"]:
        runs.setdefault(trace["meta"]["run"], {})[trace["meta"]["component"]] = decode(trace["y"])
    assert list(runs) == ["stumps", "8 leaves"]
    for parts in runs.values():
        assert len(parts["error"]) == 6  # M = 1, 3, 10, 30, 100, 300: a default view of about a second
        stack = [parts[k] for k in ("noise", "bias2", "var_learning_set", "var_algorithm")]
        for component in stack:
            assert np.all(component >= -1e-12)
        np.testing.assert_allclose(np.sum(stack, axis=0), parts["error"], rtol=1e-9, atol=1e-9)
        assert parts["bias2"][-1] < parts["bias2"][0]  # boosting removes bias
    # Bigger trees: more variance at the end of the run.
    assert runs["8 leaves"]["var_learning_set"][-1] > runs["stumps"]["var_learning_set"][-1]
    text = " ".join(m.value for m in at.markdown)
    assert "**Takeaway.** With 8 leaves the variance term rises to" in text
    assert any("Seed **0**" in c.value for c in at.caption)
    assert len(at.latex) == 1
    curves = spec(at, "bv_curves")
    names = [t["name"] for t in curves["data"]]
    assert names.count("Bayes E[y₁|x]") == 2 and names.count("mean over all sets") == 2
    labels = [b.label for b in at.get("download_button")]
    assert labels[:2] == ["Results (CSV)", "Results (JSON)"] and len(labels) == 5


def slice_titles(at):
    return [a["text"] for a in spec(at, "bv_curves")["layout"]["annotations"]]


def test_bias_variance_slice_is_in_the_url_and_clamped():
    at = poll(open_page(BV, bv_n_sets=3, bv_values="1,10,30", bv_compare_leaves="none", bv_slice="10"), "bv")
    assert not at.exception
    assert at.select_slider(key="bv_slice").value == "10"
    assert slice_titles(at) == ["stumps: n_estimators=10"]
    at.select_slider(key="bv_slice").set_value("1").run()
    assert slice_titles(at) == ["stumps: n_estimators=1"]
    # a value that is not in the sweep (a stale link, or the values changed) goes to the last one
    at = poll(open_page(BV, bv_n_sets=3, bv_values="1,10,30", bv_compare_leaves="none", bv_slice="999"), "bv")
    assert not at.exception and at.select_slider(key="bv_slice").value == "30"
    at.text_input(key="bv_values").input("2,4").run()
    at = poll(at, "bv")
    assert not at.exception and at.select_slider(key="bv_slice").value == "4"
    assert slice_titles(at) == ["stumps: n_estimators=4"]


def test_bias_variance_resample_draws_a_new_seed():
    at = poll(open_page(BV, bv_n_sets=3, bv_values="1,10", bv_compare_leaves="none"), "bv")
    first = finished(at, "bv").result["stumps"]
    assert first.seed == 0 and first.param_values == [1, 10]
    at.button(key="bv_resample").click().run()
    at = poll(at, "bv")
    assert not at.exception
    again = finished(at, "bv").result["stumps"]
    assert at.number_input(key="bv_seed").value == again.seed != 0


def test_bias_variance_stop_keeps_a_partial_result():
    at = open_page(BV, bv_n_sets=100, bv_n_train=1000)  # estimated well above the auto-run limit
    assert not at.exception
    assert page_run(at, "bv") is None
    assert any("estimated at" in w.value for w in at.warning)
    at.button(key="bv_run_big").click().run()
    job = job_of(at, "bv")
    assert job.running
    t0 = time.perf_counter()
    while job.fraction < 0.5 / 100 and time.perf_counter() - t0 < 60:   # one learning set of 100 (of 2 runs) done
        time.sleep(0.1)
    at.run()
    at.button(key="bv_stop").click().run()
    at = poll(at, "bv")
    assert not at.exception
    done = finished(at, "bv")
    assert done.status == "stopped"
    res = done.result["stumps"]
    assert res.partial and 1 <= res.n_sets_done < 100
    assert "8 leaves" not in done.result  # the second run never started
    assert any("partial result" in w.value for w in at.warning)
    fig = spec(at, "bv_stacked")
    assert fig["layout"]["meta"]["partial"] is True


def test_bias_variance_query_params_preset_controls():
    at = open_page(BV, bv_sweep="learning_rate", bv_problem="chain", bv_seed=7, bv_compare_leaves="none", bv_n_sets=3,
                   bv_values="0.1,0.5", bv_estimator="gbrt-rpo-gaussian")
    assert not at.exception
    assert at.selectbox(key="bv_sweep").value == "learning_rate"
    assert at.selectbox(key="bv_estimator").value == "gbrt-rpo-gaussian"
    assert at.radio(key="bv_problem").value == "chain"
    assert at.number_input(key="bv_seed").value == 7
    assert at.selectbox(key="bv_compare_leaves").value == "none"
    assert at.slider(key="bv_n_sets").value == 3
    at = poll(at, "bv")
    res = finished(at, "bv").result
    (r,) = res.values()
    assert r.param_name == "learning_rate" and r.param_values == [0.1, 0.5] and r.structure == "chain"


def test_bias_variance_preset_is_the_default_story():
    (preset,) = [p for p in PRESETS if p["page"] == BV]
    at = open_page(BV, **preset["query_params"])
    assert not at.exception
    assert at.selectbox(key="bv_sweep").value == "n_estimators"
    assert at.selectbox(key="bv_compare_leaves").value == "8"


def test_projections_default_view():
    at = open_page(PROJ)
    assert not at.exception
    assert [t.value for t in at.title] == ["Projections"]
    # The default is a wide-output set where the projections save time (issue 21): bibtex, 50 stumps.
    assert at.selectbox(key="proj_dataset").value == "bibtex" and at.slider(key="proj_n_steps").value == 50
    assert at.selectbox(key="proj_loss_multilabel").value == "squared_error"
    if page_run(at, "proj") is None:          # a loaded machine's estimate can pass the auto-start limit
        at.button(key="proj_run_big").click().run()
    at = poll(at, "proj", timeout=300)
    assert not at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["proj_size", "proj_curves"]
    fig = spec(at, "proj_size")
    by_name = {}
    for trace in fig["data"]:
        by_name.setdefault(trace["name"], []).append(trace)
    score = by_name["relabel-rpo, after 50 steps"][0]
    assert list(decode(score["x"])) == [1, 16, 32, 80]  # one point per q
    assert np.all(np.isfinite(decode(score["y"])))
    (time_trace,) = by_name["relabel-rpo fit time"]
    assert len(decode(time_trace["y"])) == 4 and np.all(decode(time_trace["y"]) > 0)
    assert "gbmort (q → ∞)" in by_name
    assert any("**Takeaway.**" in m.value for m in at.markdown)
    assert any("Seed **0**" in c.value for c in at.caption)
    assert len(at.get("download_button")) == 4


def test_projections_schemes_from_query_params():
    at = open_page(PROJ, proj_experiment="schemes", proj_dataset="friedman1-group", proj_n_steps=50, proj_seed=3,
                   proj_schemes=["gaussian", "sparse"], proj_algorithm="gbrt-rpo")
    assert not at.exception
    assert at.radio(key="proj_experiment").value == "schemes"
    assert at.selectbox(key="proj_dataset").value == "friedman1-group"
    assert at.number_input(key="proj_seed").value == 3
    at = poll(at, "proj")
    assert not at.exception
    fig = spec(at, "proj_schemes_chart")
    assert [t["name"] for t in fig["data"] if not t["name"].endswith(" best")] == ["gaussian", "sparse"]
    res = finished(at, "proj").result
    assert res.params["seed"] == 3 and res.params["n_steps"] == 50


def test_projections_figure5_preset_runs_on_its_click_and_stops():
    (preset,) = [p for p in PRESETS if p["label"] == "Figure 5 on delicious"]
    at = open_page(PROJ, **preset["query_params"])
    assert not at.exception
    assert at.selectbox(key="proj_dataset").value == "delicious"
    assert at.text_input(key="proj_q_values").value == "1,98,196,491"          # the paper's q of Figure 5
    assert at.selectbox(key="proj_projection").value == "subsample"            # Figure 5b
    assert job_of(at, "proj").running   # minutes cold, but go=1: the preset's one click starts it (the start-up fill caches it)
    at.button(key="proj_stop").click().run()
    at = poll(at, "proj")
    assert not at.exception
    done = finished(at, "proj")
    assert done.status == "stopped" and done.result.complete is False
    assert any("partial result" in w.value for w in at.warning)


def stacked_runs(at):
    runs = {}
    for trace in spec(at, "bv_stacked")["data"]:
        runs.setdefault(trace["meta"]["run"], {})[trace["meta"]["component"]] = decode(trace["y"])
    return runs


def test_bias_variance_of_a_forest_over_the_number_of_trees():
    # Issue 5: forests join the variant list. Averaging more trees divides the algorithm
    # variance (thesis eq. 4.28) and leaves the bias alone.
    at = open_page(BV, bv_estimator="mo-rf", bv_sweep="n_estimators", bv_values="1, 4, 16", bv_n_sets="4", bv_n_seeds="2",
                   bv_n_test="300")
    assert not at.exception
    assert at.selectbox(key="bv_estimator").value == "mo-rf"
    assert "learning_rate" not in at.selectbox(key="bv_sweep").options
    assert at.slider(key="bv_learning_rate").disabled and at.select_slider(key="bv_max_leaf_nodes").disabled
    assert len(at.sidebar.get("page_link")) == 0      # no projection: no projection/tree split to link to
    at = poll(at, "bv")
    assert not at.exception and not at.error
    (parts,) = stacked_runs(at).values()
    assert len(parts["error"]) == 3
    np.testing.assert_allclose(sum(parts[k] for k in ("noise", "bias2", "var_learning_set", "var_algorithm")),
                               parts["error"], rtol=1e-9)
    var_alg = parts["var_algorithm"]
    assert var_alg[0] > 0 and var_alg[2] < var_alg[1] < var_alg[0]
    np.testing.assert_allclose(var_alg[2] * 16, var_alg[0], rtol=0.5)  # ~1/M
    assert "mo-rf" in " ".join(c.value for c in at.caption)


def test_bias_variance_of_a_projected_forest_over_q():
    at = open_page(BV, bv_estimator="rf-gaussian-per-tree", bv_sweep="n_components", bv_values="1, 16", bv_n_estimators="10",
                   bv_n_sets="3", bv_n_test="300")
    assert "n_components" in at.selectbox(key="bv_sweep").options
    links = at.sidebar.get("page_link")
    assert [link.proto.page for link in links] == ["forests"]
    assert "fx_exp=variance" in links[0].proto.query_string
    at = poll(at, "bv")
    assert not at.exception and not at.error
    (parts,) = stacked_runs(at).values()
    assert len(parts["error"]) == 2 and np.all(np.isfinite(parts["error"]))


def test_bias_variance_subsampling_q_above_d_is_a_message():
    at = open_page(BV, bv_estimator="rf-subsampled-shared", bv_sweep="n_components", bv_values="1, 64", bv_n_outputs="8")
    assert not at.exception
    assert "q must be at most d = 8" in at.error[0].value
    assert page_run(at, "bv") is None
