"""Convergence page (pages/convergence.py) through AppTest, plus its engine helpers.

Fragments do not tick in AppTest: a test polls by calling ``at.run()`` until the job is done.
"""

from __future__ import annotations

import base64
import json
import threading
import time

import numpy as np
import pytest

from apptest_runs import finished, job_of, open_app, page_run, poll

from engine import experiments, plotting
from engine.app.page_models import dataspec, live_convergence
from engine.app.page_content.presets import PRESETS
from curve_calls import run_curves, run_schemes

PAGE = "pages/convergence.py"


def open_page(query=None):
    return open_app(PAGE, query, route="home-link", timeout=30)


def wait_done(at, timeout=30.0):
    """Poll until the page's run has ended; its last finished run (pages._jobs.RunView)."""
    poll(at, "conv", timeout)
    assert not at.exception, at.exception
    return finished(at, "conv")


def status_of(done):
    """The status the page shows: "stepped" for a finished Step."""
    return "stepped" if done.status == "done" and done.extra.get("kind") == "step" else done.status
    raise AssertionError("the training job did not finish")


def arr(v):
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
    return np.asarray(v, dtype=float)


def chart(at):
    charts = [c for c in at.get("plotly_chart") if c.key.startswith("conv_chart_")]   # not the tree strip
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def curves(spec, run="current", axis="x"):
    """{estimator: (x, y)} of the left-panel curve traces of one run."""
    out = {}
    for tr in spec["data"]:
        meta = tr.get("meta") or {}
        if meta.get("run") == run and meta.get("kind") == "curve" and tr.get("xaxis", "x") == axis:
            out[meta["estimator"]] = (arr(tr["x"]), arr(tr["y"]))
    return out


def status_text(at):
    return " ".join(e.value for kind in (at.info, at.success, at.warning, at.error) for e in kind)


def test_default_view_trains_by_itself():
    t0 = time.perf_counter()
    at = open_page()
    assert at.radio(key="conv_problem").value == "group"
    assert at.multiselect(key="conv_variants").value == ["st-gbrt", "gbmort", "gbrt-rpo-subsampled"]
    run = wait_done(at)
    assert time.perf_counter() - t0 < 15
    assert run.status == "done"
    assert "done" in status_text(at)
    c = curves(chart(at))
    assert set(c) == {"st-gbrt", "gbmort", "gbrt-rpo-subsampled"}
    for x, y in c.values():
        assert len(y) == 1000 and np.all(y <= 1) and np.all(y > -1)
    # The story of Figure 1b: per tree per output, gbmort and gbrt-rpo are far ahead of st-gbrt.
    at_one = {k: np.interp(1.0, x, y) for k, (x, y) in c.items()}
    assert at_one["gbmort"] > at_one["st-gbrt"] + 0.1 and at_one["gbrt-rpo-subsampled"] > at_one["st-gbrt"] + 0.1
    # "What to look for" names the method that is ahead on *these* curves (computed, issue 21)
    text = " ".join(m.value for m in at.markdown)
    best = max(c, key=lambda k: np.nanmax(c[k][1]))
    assert f"On this run **{best} ends best**" in text
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Results CSV", "Curves JSON", "Figure HTML"]


def test_start_small_config_and_read_the_curves():
    at = open_page()
    wait_done(at)
    at.multiselect(key="conv_variants").set_value(["gbmort", "gbrt-rpo-gaussian"])
    at.select_slider(key="conv_n_steps").set_value(100)
    at.select_slider(key="conv_n_test").set_value(200)
    at.slider(key="conv_learning_rate").set_value(0.2)
    at.run()
    assert "Estimated training time" in " ".join(c.value for c in at.caption)
    at.button(key="conv_start").click().run()
    run = wait_done(at)
    assert run.status == "done" and run.settings["learning_rate"] == 0.2
    c = curves(chart(at))
    assert set(c) == {"gbmort", "gbrt-rpo-gaussian"}
    for name, (x, y) in c.items():
        assert len(y) == 100 and len(x) == 100
        assert np.all(np.isfinite(y)) and np.all(y <= 1.0) and np.all(y > -1.0)
        assert y[9] > y[0] and y[29] > y[9]          # increasing early
    table = at.dataframe[0].value
    assert list(table["estimator"]) == ["gbmort", "gbrt-rpo-gaussian"]
    assert (table["best_step"] >= 1).all() and (table["steps"] == 100).all()


def test_stop_keeps_the_partial_curve():
    at = open_page({"conv_variants": ["st-gbrt", "gbmort"], "conv_n_steps": "10000", "conv_n_test": "4000"})
    job = job_of(at, "conv")
    if job is None or not job.running:    # (auto-start skipped: long run)
        at.button(key="conv_start").click().run()
    time.sleep(0.6)
    at.run()
    assert job_of(at, "conv").running
    at.button(key="conv_stop").click().run()
    assert not at.exception
    run = finished(at, "conv")
    assert run.status == "stopped" and job_of(at, "conv").done
    assert "stopped" in status_text(at)
    c = curves(chart(at))
    assert c, "the partial curves must be drawn"
    n = max(len(y) for _, y in c.values())
    assert 0 < n < 10000
    assert not run.result.complete


def test_pin_then_second_run_overlays_both():
    at = open_page({"conv_n_steps": "200"})
    wait_done(at)
    at.button(key="conv_pin").click().run()
    pins = at.session_state["conv_pins"]
    assert [p["name"] for p in pins] == ["A"]
    at.slider(key="conv_learning_rate").set_value(0.5).run()
    at.button(key="conv_start").click().run()
    wait_done(at)
    spec = chart(at)
    pinned, current = curves(spec, "A"), curves(spec, "current")
    assert set(pinned) == set(current) == {"st-gbrt", "gbmort", "gbrt-rpo-subsampled"}
    assert not np.allclose(pinned["gbmort"][1], current["gbmort"][1])   # lr 0.1 vs 0.5
    dashes = {tr["line"]["dash"] for tr in spec["data"] if (tr.get("meta") or {}).get("kind") == "curve"}
    assert dashes == {"dash", "solid"}
    assert set(at.dataframe[0].value["run"]) == {"A", "current"}
    # Pins survive an error and later reruns.
    at.multiselect(key="conv_variants").set_value([]).run()
    assert at.error and not at.exception
    assert [p["name"] for p in at.session_state["conv_pins"]] == ["A"]
    at.button(key="conv_clear").click().run()
    assert at.session_state["conv_pins"] == []


def test_step_adds_a_fixed_number_of_steps():
    at = open_page({"conv_n_steps": "10000", "conv_n_test": "4000", "conv_variants": ["gbmort"]})
    job = job_of(at, "conv")
    if job is not None and job.running:
        at.button(key="conv_stop").click().run()
    at.select_slider(key="conv_n_test").set_value(200).run()    # settings changed: Step starts from 0
    wait_done(at)
    at.button(key="conv_step").click().run()
    wait_done(at)
    at.button(key="conv_step").click().run()
    done = wait_done(at)
    assert status_of(done) == "stepped"
    assert {len(y) for _, y in curves(chart(at)).values()} == {20}


def test_step_continues_the_kept_models_warm():
    """After a run, Step adds steps to the fitted models (a background job, not a refit of all the
    steps done): the curves equal those of one longer run with the same seed."""
    at = open_page({"conv_n_steps": "200", "conv_n_test": "200", "conv_variants": ["gbmort", "gbrt-rpo-gaussian"]})
    done = wait_done(at)
    assert status_of(done) == "done" and set(done.extra["models"]) == {"gbmort", "gbrt-rpo-gaussian"}
    models = done.extra["models"]
    at.button(key="conv_step").click().run()
    assert page_run(at, "conv")["extra"]["kind"] == "step"
    done = wait_done(at)
    # Copies of the kept estimators, continued (the originals may be shared with other sessions of the run)
    assert status_of(done) == "stepped" and set(done.extra["models"]) == set(models)
    assert all(m.n_steps_ == 210 for m in done.extra["models"].values())
    assert all(m.n_steps_ == 200 for m in models.values())
    got = curves(chart(at))
    assert {name: len(y) for name, (_, y) in got.items()} == {"gbmort": 210, "gbrt-rpo-gaussian": 210}
    problem = live_convergence.problem_from_spec(dataspec.friedman_spec("group"), None, n_test=200)
    longer = live_convergence.train_curves(problem, experiments.BoostingSettings(210), ["gbmort", "gbrt-rpo-gaussian"])
    for name, (_, y) in got.items():
        np.testing.assert_allclose(y, longer.curves[name].test_score, rtol=1e-9)


def test_query_params_preset_the_controls():
    at = open_page({"conv_problem": "ind", "conv_learning_rate": "0.3", "conv_max_leaf_nodes": "4", "conv_seed": "7",
                    "conv_n_steps": "200", "conv_max_features": "sqrt", "conv_x_axis": "steps", "conv_q": "3",
                    "conv_variants": ["st-gbrt", "gbrt-relabel-rpo-gaussian"]})
    assert at.radio(key="conv_problem").value == "ind"
    assert at.slider(key="conv_learning_rate").value == 0.3
    assert at.slider(key="conv_max_leaf_nodes").value == 4
    assert at.number_input(key="conv_seed").value == 7
    assert at.select_slider(key="conv_n_steps").value == 200
    assert at.selectbox(key="conv_max_features").value == "sqrt"
    assert at.radio(key="conv_x_axis").value == "steps"
    assert at.slider(key="conv_q").value == 3
    assert at.multiselect(key="conv_variants").value == ["st-gbrt", "gbrt-relabel-rpo-gaussian"]
    run = wait_done(at)
    assert run.settings["seed"] == 7 and run.settings["problem"] == "ind"
    assert "st-gbrt ends best" in " ".join(m.value for m in at.markdown)
    assert "seed **7**" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("query, needle", [
    ({"conv_variants": ["gbrt-relabel-rpo-subsampled"], "conv_q": "40"}, "n_projections"),
    ({"conv_loss": "logistic"}, "loss"),
    ({"conv_variants": ["gbmort"], "conv_max_leaf_nodes": "2", "conv_n_steps": "10", "conv_learning_rate": "0.01"}, None),
])
def test_bad_settings_give_a_message_not_an_exception(query, needle):
    at = open_page(query)
    if needle is None:
        assert not at.error
        return
    assert any(needle in e.value for e in at.error), [e.value for e in at.error]
    assert at.button(key="conv_start").disabled
    assert page_run(at, "conv") is None


def test_no_methods_and_data_page_choice():
    at = open_page({"conv_variants": ["gbmort"], "conv_n_steps": "50"})
    at.multiselect(key="conv_variants").set_value([]).run()
    assert any("estimators" in e.value for e in at.error) and not at.exception
    # artificial-gbrt only knows friedman1: a shipped data set from the Data page is refused.
    at.session_state["dataset_spec"] = dataspec.shipped_spec("enb")
    at.multiselect(key="conv_variants").set_value(["artificial-gbrt"])
    at.radio(key="conv_problem").set_value("data").run()
    assert any("artificial-gbrt" in e.value for e in at.error) and not at.exception
    at.multiselect(key="conv_variants").set_value(["gbmort"]).run()
    assert not at.error
    at.button(key="conv_start").click().run()
    run = wait_done(at)
    assert run.status == "done" and run.result.dataset == "enb"


def test_switching_pages_keeps_both_pages_working():
    at = open_page({"conv_n_steps": "50"})
    wait_done(at)
    at.switch_page("pages/data.py").run()
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception
    assert finished(at, "conv").result is not None


def test_home_links_the_figure1_presets():
    at = open_app(timeout=30)
    links = [el for el in at.get("page_link")]
    labels = [el.proto.label for el in links]
    for preset in PRESETS:
        if preset["page"] == PAGE:
            assert preset["label"] in labels
            assert preset["query_params"]["conv_problem"] in ("chain", "group", "ind")


# --- engine helpers ---------------------------------------------------------------------------


def test_live_curves_equal_the_experiment_and_report_partials():
    problem = live_convergence.problem_from_spec(dataspec.friedman_spec("chain"), n_test=300)
    partials = []
    res = live_convergence.train_curves(problem, experiments.BoostingSettings(60), ["gbmort", "st-gbrt"], seed=1,
                                        progress=lambda f, m, partial=None: partials.append(partial))
    ref = run_curves("friedman1-chain", ["gbmort", "st-gbrt"], n_steps=60, n_test=300, seed=1)
    for name in ("gbmort", "st-gbrt"):
        np.testing.assert_allclose(res.curves[name].test_score, ref.curves[name].test_score)
        np.testing.assert_array_equal(res.curves[name].trees_per_output, ref.curves[name].trees_per_output)
    assert res.complete and any(p is not None and p.curves for p in partials)
    back = experiments.ConvergenceResult.from_json(res.to_json())
    assert set(back.curves) == {"gbmort", "st-gbrt"}


def test_stop_returns_a_partial_result_and_the_estimate_is_positive():
    problem = live_convergence.problem_from_spec(dataspec.friedman_spec("group"), n_test=2000)
    stop = threading.Event()

    def progress(f, m, partial=None):
        if partial is not None and partial.curves:
            stop.set()

    res = live_convergence.train_curves(problem, experiments.BoostingSettings(5000), ["st-gbrt", "gbmort"],
                                        progress=progress, stop=stop)
    assert not res.complete and "gbmort" not in res.curves and 0 < res.curves["st-gbrt"].n_steps < 5000
    cost = live_convergence.estimate_seconds(problem, experiments.BoostingSettings(1000), ["st-gbrt", "gbmort"])
    assert set(cost) == {"st-gbrt", "gbmort"} and all(v > 0 for v in cost.values())
    fig = plotting.live_convergence_figure(res, [("A", res)], "step")
    assert {t.meta["run"] for t in fig.data} == {"A", "current"}
    table = live_convergence.results_table([("A", res), ("current", None)])
    assert list(table["estimator"]) == ["st-gbrt"]


def test_early_stop_marks_are_where_early_stopping_stops():
    """The ◆ of each curve is the step a fit with early stopping and the test set as eval_set stops at
    (``n_steps_run_``; the fit then keeps its best step, ``best_iteration_ + 1``)."""
    from engine.estimators.registry import make_estimator
    problem = live_convergence.problem_from_spec(dataspec.friedman_spec("group"), n_test=300)
    data = problem.draw(2)
    X_tr, Y_tr, X_te, Y_te = data.X_train, data.Y_train, data.X_test, data.Y_test
    names = ["st-gbrt", "gbmort", "gbrt-relabel-rpo-gaussian"]
    res = live_convergence.train_curves(problem, experiments.BoostingSettings(400, learning_rate=0.3, q=2), names,
                                        seed=2)
    stops = live_convergence.early_stop_steps(res, 5)
    assert set(stops) == set(names) and all(m is not None and m < 400 for m in stops.values())
    for name in names:
        kw = {"n_projections": 2} if "relabel" in name else {}
        est = make_estimator(name, n_estimators=400, learning_rate=0.3, random_state=2, early_stopping=True,
                             n_iter_no_change=5, **kw).fit(X_tr, Y_tr, eval_set=(X_te, Y_te))
        assert est.n_steps_run_ == stops[name]
        assert est.n_estimators_ == est.best_iteration_ + 1 <= stops[name]
    fig = plotting.live_convergence_figure(res, [], "step", early_stops={"current": stops})
    marks = {t.meta["estimator"]: t.x[0] for t in fig.data if t.meta["kind"] == "early_stop" and t.xaxis == "x"}
    assert marks == {name: float(stops[name]) for name in names}
    table = live_convergence.results_table([("current", res)], {"current": stops})
    assert list(table["early_stop_step"]) == [stops[n] for n in names]
    np.testing.assert_array_equal(table["early_stop_score"],
                                  [res.curves[n].test_score[stops[n] - 1] for n in names])
    assert live_convergence.early_stop_steps(res, None) == {}
    assert set(live_convergence.early_stop_steps(res, 10_000).values()) == {None}   # never stops


def test_the_page_marks_early_stopping_and_can_turn_it_off():
    at = open_page()
    wait_done(at)
    assert at.selectbox(key="conv_patience").value == "10"
    marks = [tr for tr in chart(at)["data"] if (tr.get("meta") or {}).get("kind") == "early_stop"]
    assert {tr["meta"]["estimator"] for tr in marks} == {"st-gbrt", "gbmort", "gbrt-rpo-subsampled"}
    table = at.dataframe[0].value
    assert (table["early_stop_step"] < table["steps"]).all()
    assert "would have stopped" in " ".join(c.value for c in at.caption)
    at.selectbox(key="conv_patience").set_value("off").run()
    assert not [tr for tr in chart(at)["data"] if (tr.get("meta") or {}).get("kind") == "early_stop"]


@pytest.mark.parametrize("button", ["conv_start", "conv_step"])
def test_a_control_changed_with_the_click_runs_nothing_until_confirmed(button):
    # A slider moved just before a click reaches the server together with the click, after the
    # button was drawn (and cost-checked) with the old settings: nothing runs, the page says so,
    # and the next click runs the new settings.
    at = open_page()
    wait_done(at)
    at.multiselect(key="conv_variants").set_value(["gbmort"])
    at.select_slider(key="conv_n_steps").set_value(100)
    at.run()
    before = job_of(at, "conv")
    at.select_slider(key="conv_n_test").set_value(200)
    at.slider(key="conv_learning_rate").set_value(0.3)
    at.button(key=button).click().run()
    assert job_of(at, "conv") is before
    assert "settings changed as you clicked" in at.info[0].value
    at.button(key=button).click().run()
    done = wait_done(at)
    assert done.settings["n_test"] == 200 and done.settings["learning_rate"] == 0.3
    assert "Settings have changed" not in " ".join(c.value for c in at.caption)


def test_a_released_session_stops_its_job():
    """The session's place in the run store is a session-scoped cache_resource whose on_release
    leaves every run: clearing it (what Streamlit does when the session disconnects) stops the run
    nobody else watches, and drops the session's results (Streamlit keeps a disconnected session a
    while for reconnects; its results should not stay with it)."""
    import streamlit as st

    at = open_page({"conv_variants": ["st-gbrt", "gbmort"], "conv_n_steps": "10000", "conv_n_test": "4000"})
    job = job_of(at, "conv")
    if job is None or not job.running:
        at.button(key="conv_start").click().run()
    job = job_of(at, "conv")
    assert job.running
    st.cache_resource.clear()
    assert job.wait(10) and job.status == "stopped"
    at.run()     # a reconnect: the page starts afresh (idle, or its default run anew), no error
    assert not at.exception and finished(at, "conv") is None and job_of(at, "conv") is not job
    new = job_of(at, "conv")
    if new is not None:
        new.stop(timeout=10)


def test_a_long_curve_is_drawn_through_log_spaced_steps_keeping_its_best_and_early_stop():
    """The live chart thins a curve longer than LIVE_POINTS steps (it is sent to every watching session
    about once a second); shorter curves are drawn whole, and the best and early-stop steps stay."""
    from engine.plotting.convergence import LIVE_POINTS, log_spaced

    n = 10_000
    steps = np.arange(1, n + 1)
    score = 1 - 1 / np.sqrt(steps)
    score[7_777] = 2.0                       # a best step between two log-spaced points
    curve = experiments.Curve(name="gbmort", label="gbmort", step=steps, n_trees=steps, trees_per_output=steps / 1.0,
                              fit_time=steps * 1e-3, train_score=np.full(n, np.nan), test_score=score,
                              train_loss=np.full(n, np.nan))
    short = experiments.Curve(name="st-gbrt", label="st-gbrt", step=steps[:500], n_trees=steps[:500],
                              trees_per_output=steps[:500] / 1.0, fit_time=steps[:500] * 1e-3,
                              train_score=np.full(500, np.nan), test_score=score[:500], train_loss=np.full(500, np.nan))
    res = experiments.ConvergenceResult("convergence", "friedman1-ind", "regression", "macro-r2", 1,
                                        {"gbmort": curve, "st-gbrt": short}, {}, True, [])
    fig = plotting.live_convergence_figure(res, [], "step", early_stops={"current": {"gbmort": 4321, "st-gbrt": None}})
    drawn = {(t.meta["estimator"], t.xaxis): np.asarray(t.x) for t in fig.data if t.meta["kind"] == "curve"}
    long_x = drawn[("gbmort", "x")]
    assert len(long_x) <= LIVE_POINTS + 2 and long_x[0] == 1 and long_x[-1] == n
    assert {7778.0, 4321.0} <= set(long_x)                         # the best step and the early stop
    ratios = long_x[1:] / long_x[:-1]
    assert ratios[long_x[:-1] >= 1000].max() < 1.01                 # evenly spread on the log axis: no gap
    assert len(drawn[("gbmort", "x2")]) == len(long_x)              # the fit-time panel the same steps
    np.testing.assert_array_equal(drawn[("st-gbrt", "x")], steps[:500])     # a short curve whole
    np.testing.assert_array_equal(log_spaced(5), np.arange(5))
    assert len(log_spaced(10 ** 6)) <= LIVE_POINTS
