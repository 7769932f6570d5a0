"""One step page (pages/one_step.py) through AppTest."""

from __future__ import annotations

import base64
import json

import numpy as np

from apptest_runs import open_app
from engine.app.page_models import one_step as os_

PAGE = "pages/one_step.py"


def open_page(query=None):
    return open_app(PAGE, query, route="home-link")


def arr(v):
    """A plotly array from a figure's JSON (typed arrays come base64-encoded)."""
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
        return a.reshape([int(n) for n in str(v["shape"]).split(",")]) if "shape" in v else a
    return np.asarray(v, dtype=float)


def tree_spec(at):
    spec = json.loads(at.get_by_key("os_tree").proto.spec)
    return [t.get("text") for t in spec["data"] if t.get("name") in ("split", "leaf")]


def test_step_back_step_shows_the_same_tree_and_keeps_the_model():
    at = open_page()
    assert at.number_input(key="os_step").value == 0
    at.button(key="os_step_one").click().run()
    at.button(key="os_step_one").click().run()
    assert not at.exception and at.number_input(key="os_step").value == 2
    two = tree_spec(at)
    model = at.session_state["os_run"].model
    at.button(key="os_back").click().run()
    assert at.number_input(key="os_step").value == 1 and tree_spec(at) != two
    at.button(key="os_step_one").click().run()
    assert tree_spec(at) == two
    assert at.session_state["os_run"].model is model and model.n_steps_ == 2   # re-read, not refitted
    at.button(key="os_reset").click().run()
    assert at.number_input(key="os_step").value == 0 and not at.exception


def test_a_shared_url_restores_the_same_step():
    query = {"os_problem": "friedman1-group", "os_method": "gbrt-rpo", "os_relabel": "true", "os_q": "3",
             "os_scheme": "subsample", "os_step": "4", "os_seed": "5"}
    a, b = open_page(query), open_page(query)
    assert a.number_input(key="os_step").value == 4
    assert tree_spec(a) == tree_spec(b)
    run = a.session_state["os_run"]
    assert run.settings.method == "gbrt-relabel-rpo" and run.settings.q == 3
    # The picture is the engine's: the drawn step equals a fresh run's view of step 4.
    fresh = os_.OneStepRun(run.settings).view(4)
    spec = json.loads(a.get_by_key("os_projection").proto.spec)
    assert np.array_equal(arr(spec["data"][0]["z"]), fresh.projection)


def test_every_method_and_a_multilabel_problem_render():
    at = open_page({"os_step": "2"})
    for method in ("st-gbrt", "gbmort", "gbrt-rpo"):
        at.radio(key="os_method").set_value(method).run()
        assert not at.exception, (method, at.exception)
        assert at.get_by_key("os_tree") is not None
    at.selectbox(key="os_problem").set_value("emotions").run()
    assert not at.exception and not at.error
    assert at.session_state["os_run"].task == "multilabel"


def test_impossible_settings_show_a_message_not_a_crash():
    # Output sub-sampling cannot draw q = 10 of emotions' 6 labels.
    at = open_page({"os_problem": "emotions", "os_method": "gbrt-rpo", "os_relabel": "true", "os_q": "10",
                    "os_scheme": "subsample", "os_step": "1"})
    assert not at.exception
    assert at.error and "cannot run" in at.error[0].value


def test_leaf_values_toggle_offers_mean_and_newton():
    at = open_page()
    assert list(at.radio(key="os_leaves").options) == ["mean", "newton"]
