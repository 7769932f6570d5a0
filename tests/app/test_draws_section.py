"""One draw, many draws on the Bias–variance page (pages/_draws.py), through AppTest."""

from __future__ import annotations

import json


from apptest_runs import open_app, poll

PAGE = "pages/bias_variance.py"
QUERY = {"bv_n_sets": "3", "bv_n_train": "100", "bv_n_test": "100", "bv_values": "1, 10, 30", "bv_compare_leaves": "none"}


def open_page(query):
    at = open_app(PAGE, query, route="home-link")
    poll(at, "bv", 60)
    at.run()
    assert not at.exception, at.exception
    return at


def draws_chart(at):
    charts = [c for c in at.get("plotly_chart") if c.key.startswith("bv_draws_chart_")]
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def test_draw_one_then_draw_25_adds_fits_one_at_a_time():
    at = open_page(QUERY)
    assert at.session_state["bv_draws"][1].n_draws == 0
    at.button(key="bv_draw_one").click().run()
    running = at.session_state["bv_draws"][1]
    assert running.n_draws == 1
    spec = draws_chart(at)
    assert sum(t.get("name") == "one draw" for t in spec["data"]) == 1
    at.button(key="bv_draw_many").click().run()
    assert not at.exception and running.n_draws == 26
    spec = draws_chart(at)
    assert sum(t.get("name") == "one draw" for t in spec["data"]) == 26
    assert len(running.history["error"]) == 26
    r = running.result()
    text = next(m.value for m in at.markdown if m.value.startswith("After **26** draws"))
    assert f"bias² **{r.bias2[0]:.3f}**" in text and f"**{r.error[0]:.3f}**" in text
    # The draws follow the page's settings: the last value of the sweep, the sidebar's problem.
    assert running.estimator_params["n_estimators"] == 30 and running.n_train == 100
    at.button(key="bv_draw_reset").click().run()
    assert at.session_state["bv_draws"][1].n_draws == 0


def test_a_projected_forest_shows_its_algorithm_variance():
    at = open_page({**QUERY, "bv_estimator": "rf-gaussian-per-tree", "bv_values": "1, 5", "bv_n_seeds": "2"})
    at.button(key="bv_draw_one").click().run()
    at.button(key="bv_draw_one").click().run()
    assert not at.exception
    text = next(m.value for m in at.markdown if m.value.startswith("After **2** draws"))
    assert "algorithm variance" in text


def test_drawing_a_projected_forest_shows_the_projection_and_tree_terms():
    # rf-…-shared is Algorithm 1: its draws are the Appendix C experiment's, one learning set at a time.
    at = open_page({**QUERY, "bv_estimator": "rf-gaussian-shared", "bv_values": "1, 5", "bv_n_projections": "2"})
    at.button(key="bv_draw_one").click().run()
    at.button(key="bv_draw_one").click().run()
    assert not at.exception, at.exception
    running = at.session_state["bv_draws"][1]
    assert type(running).__name__ == "RunningForestBiasVariance" and running.n_draws == 2
    # the page's settings: the sweep's last value, its q, its problem
    assert running.shown == "alg1" and running.q == 2 and running.settings["n_estimators"] == 5
    assert running.settings["n_train"] == 100 and running.settings["projection"] == "gaussian"
    t = running.terms()
    text = next(m.value for m in at.markdown if m.value.startswith("After **2** draws of rf-gaussian-shared"))
    for number in (t["var_algorithm"], t["var_projection"], t["var_tree"], t["alg1_projection_part"],
                   t["alg1_tree_part"], t["alg1_var_algorithm"], t["alg2_var_algorithm"]):
        assert f"**{number:.3g}**" in text or f"{number:.3g}" in text
    assert f"projection term **{t['var_projection']:.3g}** + tree term **{t['var_tree']:.3g}**" in text
    assert f"bias² **{t['alg1_bias2']:.3f}**" in text and f"**{t['alg1_error']:.3f}**" in text
    spec = draws_chart(at)
    by_term = {tr["meta"]["term"]: tr for tr in spec["data"] if tr.get("meta")}
    for term in ("alg1_var_algorithm", "alg1_projection_part", "alg1_tree_part", "alg1_bias2", "alg1_error"):
        assert by_term[term]["y"] == running.history[term], term
        assert len(by_term[term]["y"]) == 2
    names = {tr["name"] for tr in spec["data"]}
    assert {"projection term Φ", "tree term θ", "algorithm variance (measured)"} <= names
    assert sum(tr.get("name") == "one draw" for tr in spec["data"]) == 2
    caption = next(c.value for c in at.caption if c.value.startswith("rf-gaussian-shared = Algorithm 1"))
    assert "4 projections × 4 single trees" in caption


def test_a_projected_forest_with_a_tree_size_falls_back_to_the_plain_draws():
    # run_forest_bias_variance grows full trees: with max_leaf_nodes swept the plain draws are used.
    at = open_page({**QUERY, "bv_estimator": "rf-gaussian-per-tree", "bv_sweep": "max_leaf_nodes", "bv_values": "4, 16"})
    at.button(key="bv_draw_one").click().run()
    assert not at.exception, at.exception
    running = at.session_state["bv_draws"][1]
    assert type(running).__name__ == "RunningBiasVariance" and running.estimator_params["max_leaf_nodes"] == 16
    assert any(m.value.startswith("After **1** draw: bias²") for m in at.markdown)
