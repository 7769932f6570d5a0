"""The first trees of a run on the Convergence page (pages/_tree_strip.py), through AppTest."""

from __future__ import annotations

import json

import numpy as np
import pytest

from apptest_runs import finished, job_of, open_app, poll

from engine.app.page_models.one_step import first_trees

PAGE = "pages/convergence.py"
QUERY = {"conv_problem": "chain", "conv_n_steps": "20", "conv_n_test": "200", "conv_variants": ["st-gbrt", "gbrt-rpo-gaussian"],
         "conv_max_leaf_nodes": "4"}


def finished_page():
    at = open_app(PAGE, QUERY, route="home-link")
    poll(at, "conv", 60)
    at.run()
    assert not at.exception, at.exception
    return at


def strip_keys(at):
    return sorted(c.key for c in at.get("plotly_chart") if c.key.startswith("conv_strip_"))


def curve_spec(at):
    chart = next(c for c in at.get("plotly_chart") if c.key.startswith("conv_chart_"))
    return json.loads(chart.proto.spec)


def test_strip_draws_the_first_trees_of_the_chosen_method_and_marks_a_step():
    at = finished_page()
    at.selectbox(key="conv_strip_method").set_value("gbrt-rpo-gaussian").run()
    keys = strip_keys(at)
    assert len(keys) == 8 and all(k.startswith("conv_strip_gbrt-rpo-gaussian_") for k in keys)
    # The small drawings are the model's trees: step 3's split texts come from its TreeStore.
    model = finished(at, "conv").extra["models"]["gbrt-rpo-gaussian"]
    step, tree = first_trees(model)[2]
    spec = json.loads(at.get_by_key("conv_strip_gbrt-rpo-gaussian_0_3").proto.spec)
    splits = next(t for t in spec["data"] if t.get("name") == "split")["text"]
    expected = [f"x{f + 1} ≤ {t:.3g}" for f, t in zip(tree.feature, tree.threshold) if f >= 0]
    assert step == 3 and sorted(splits) == sorted(expected)
    assert not any(t["meta"]["kind"] == "tree_mark" for t in curve_spec(at)["data"] if t.get("meta"))

    at.button(key="conv_strip_mark_3").click().run()
    marks = [t for t in curve_spec(at)["data"] if (t.get("meta") or {}).get("kind") == "tree_mark"]
    assert len(marks) == 1 and marks[0]["meta"]["estimator"] == "gbrt-rpo-gaussian"
    result = finished(at, "conv").result
    curve = result.curves["gbrt-rpo-gaussian"]
    assert marks[0]["y"][0] == pytest.approx(float(curve.test_score[2]))
    at.button(key="conv_strip_mark_3").click().run()          # a second click clears the mark
    assert not any((t.get("meta") or {}).get("kind") == "tree_mark" for t in curve_spec(at)["data"])


def test_st_gbrt_strip_follows_one_output_through_the_steps():
    at = finished_page()
    at.selectbox(key="conv_strip_method").set_value("st-gbrt").run()
    at.selectbox(key="conv_strip_output").set_value(2).run()
    assert not at.exception
    model = finished(at, "conv").extra["models"]["st-gbrt"]
    trees = first_trees(model, output=2)
    d = model.n_outputs_
    for step, tree in trees:      # step m's tree of output 2 is store tree (m - 1) * d + 2
        nodes, _ = model.trees_.tree_nodes((step - 1) * d + 2)
        np.testing.assert_array_equal(tree.threshold, nodes["threshold"])
    assert [s for s, _ in trees] == list(range(1, 9))


def test_first_trees_validates_its_input():
    with pytest.raises(ValueError, match="model"):
        first_trees(object())
    with pytest.raises(ValueError, match="n_trees"):
        first_trees(object(), 0)


def test_first_trees_keep_the_strip_without_the_model():
    from engine.app.page_models import live_convergence as live
    from engine.app.page_models.one_step import FirstTrees
    from engine.estimators.registry import make_estimator
    from engine.experiments.problems import Problem
    import pickle

    drawn = Problem("friedman1-chain", n_train=200, n_test=10).draw(0)
    X, Y = drawn.X_train, drawn.Y_train
    models = {name: make_estimator(name, task="regression", random_state=0, n_estimators=300,
                                   max_leaf_nodes=4).fit(X, Y) for name in ("st-gbrt", "gbrt-rpo-gaussian")}
    for name, model in models.items():
        kept = FirstTrees(model)
        assert (kept.strategy, kept.n_outputs_, kept.n_steps_) == (model.strategy, model.n_outputs_, 8)
        for output in ([0, 3] if model.strategy == "single_target" else [0]):
            for (s1, a), (s2, b) in zip(first_trees(model, output=output), first_trees(kept, output=output)):
                assert s1 == s2
                np.testing.assert_array_equal(a.threshold, b.threshold)
                np.testing.assert_array_equal(a.value, b.value)
        assert len(first_trees(kept, 3)) == 3
        assert len(pickle.dumps(kept)) < 200_000      # 8 steps' trees whatever the run's length (st-gbrt: 16 outputs)
    with pytest.raises(ValueError, match="output"):
        first_trees(FirstTrees(models["st-gbrt"]), output=99)
    small = live.compact_extra({"models": models, "kind": "run"})
    assert set(small) == {"kind", "first_trees"} and small["kind"] == "run"
    assert set(small["first_trees"]) == set(models)
    assert not live.can_continue(None, [], small.get("models"))
    with pytest.raises(ValueError, match="extra"):
        live.compact_extra(None)


def test_a_cached_run_nobody_holds_draws_its_first_trees_and_steps_by_a_fresh_run():
    at = finished_page()
    model = finished(at, "conv").extra["models"]["st-gbrt"]
    expected = first_trees(model, output=0)
    store = job_of(at, "conv")._store
    ticket = job_of(at, "conv")
    del at, model
    store.leave(ticket.owner)      # every session of the run has gone (AppTests share one session id)
    at = finished_page()           # the next student: from the cache, without the models
    view = finished(at, "conv")
    assert job_of(at, "conv").cached and view.status == "done" and "models" not in view.extra
    assert len(strip_keys(at)) == 8                                  # the strip, from the kept first trees
    spec = json.loads(at.get_by_key("conv_strip_st-gbrt_0_1").proto.spec)
    splits = next(t for t in spec["data"] if t.get("name") == "split")["text"]
    tree = expected[0][1]
    assert sorted(splits) == sorted(f"x{f + 1} ≤ {t:.3g}" for f, t in zip(tree.feature, tree.threshold) if f >= 0)
    assert any("keeps its curves but not its fitted models" in c.value for c in at.caption)
    at.button(key="conv_step").click().run()                         # a fresh run to 30 steps, no crash
    poll(at, "conv", 60)
    at.run()
    assert not at.exception, at.exception
    view = finished(at, "conv")
    assert view.status == "done" and view.extra["kind"] == "step"
    assert min(c.n_steps for c in view.result.curves.values()) == 30
