"""Challenges through AppTest: the cards on Home, and each page checking its own result."""

from __future__ import annotations


from apptest_runs import open_app, poll

from engine.app.page_content.challenges import CHALLENGES


def test_home_lists_every_challenge_with_its_starting_point():
    at = open_app()
    links = [p for p in at.get("page_link") if p.proto.label == "Take the challenge"]
    assert len(links) == len(CHALLENGES)
    titles = [m.value for m in at.markdown]
    assert all(f"**{c.title}**" in titles for c in CHALLENGES)


def test_one_step_page_checks_the_step_shown():
    query = {"os_problem": "friedman1-group", "os_method": "gbrt-rpo", "challenge": "near-tie"}
    at = open_app("pages/one_step.py", {**query, "os_step": "1"}, route="home-link")
    assert not at.success and "Challenge: A near tie" in at.info[0].value
    at = open_app("pages/one_step.py", {**query, "os_step": "4"}, route="home-link")
    assert at.success and "Challenge met: A near tie" in at.success[0].value


def test_convergence_page_checks_the_finished_run():
    query = {"conv_problem": "ind", "conv_variants": ["st-gbrt"], "conv_n_steps": "500", "conv_n_test": "500", "challenge": "ind-overfit"}
    at = open_app("pages/convergence.py", {**query, "conv_learning_rate": "0.1"}, route="home-link")
    poll(at, "conv", 60)
    at.run()
    assert not any("Challenge met" in s.value for s in at.success)
    assert any("Challenge: Overfit before 200 steps" in i.value for i in at.info)
    at = open_app("pages/convergence.py", {**query, "conv_learning_rate": "0.5"}, route="home-link")
    poll(at, "conv", 60)
    at.run()
    assert any("Challenge met: Overfit before 200 steps" in s.value for s in at.success)


def test_bias_variance_draws_are_checked():
    at = open_app("pages/bias_variance.py", {"bv_n_sets": "3", "bv_n_train": "100", "bv_n_test": "100", "bv_values": "1, 10",
                                              "bv_compare_leaves": "none", "challenge": "draws-settle"}, route="home-link")
    poll(at, "bv", 60)
    at.run()
    at.button(key="bv_draw_one").click().run()
    assert any("Draw at least 6 learning sets (1 so far)" in i.value for i in at.info)
