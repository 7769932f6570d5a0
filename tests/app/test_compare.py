"""AppTest (no browser): Pin, Clear pin and Reset (pages/_compare.py) on the compute pages (issue 32).

A pinned run's traces join the chart named "pinned · …" under the legend group "pinned: <the
settings that differ>"; Clear pin removes them; Reset brings every widget back to the page's default
and takes the page's parameters out of the URL.
"""

import json


from apptest_runs import open_app, poll


def open_page(page, **query):
    return open_app(page, query)


def traces(at, key):
    return json.loads(at.get_by_key(key).proto.spec)["data"]


def pinned_names(at, key):
    return [t["name"] for t in traces(at, key) if t.get("legendgroup") == "pinned"]


def pin_change_clear(at, prefix, chart, widget, value, expect_label):
    """Pin the run on display, set ``widget`` to ``value``, run, check the overlay, then clear it."""
    assert not at.exception
    current = [t["name"] for t in traces(at, chart)]
    assert current and not pinned_names(at, chart)
    at.button(key=f"{prefix}_pin").click().run()
    getattr(at, widget[0])(key=widget[1]).set_value(value).run()
    at = poll(at, prefix)
    assert not at.exception
    pins = traces(at, chart)[: len(current)]
    assert [t["name"] for t in pins] == [f"pinned · {n}" for n in current]   # behind the current run
    assert all(t["legendgrouptitle"]["text"] == f"pinned: {expect_label}" for t in pins)
    assert len(traces(at, chart)) == 2 * len(current)
    at.button(key=f"{prefix}_clear").click().run()
    assert not at.exception and not pinned_names(at, chart)
    assert len(traces(at, chart)) == len(current)
    return at


def reset_restores(at, prefix, widget, default):
    """Reset brings ``widget`` back to ``default`` and takes the page's parameters out of the URL."""
    assert getattr(at, widget[0])(key=widget[1]).value != default
    at.button(key=f"{prefix}_reset_all").click().run()
    assert not at.exception
    assert getattr(at, widget[0])(key=widget[1]).value == default
    assert not [k for k in at.query_params if k.startswith(f"{prefix}_")]
    return at


def test_projections_pin_clear_reset():
    at = poll(open_page("pages/projections.py", proj_experiment="schemes", proj_dataset="friedman1-group",
                        proj_n_steps=20, proj_seed=3), "proj")
    at = pin_change_clear(at, "proj", "proj_schemes_chart", ("number_input", "proj_seed"), 4, "seed = 3")
    at = reset_restores(at, "proj", ("number_input", "proj_seed"), 0)
    assert at.radio(key="proj_experiment").value == "size" and at.slider(key="proj_n_steps").value == 50


def test_bias_variance_pin_clear_reset():
    at = poll(open_page("pages/bias_variance.py", bv_n_sets=3, bv_values="1,10", bv_compare_leaves="none", bv_seed=3), "bv")
    at = pin_change_clear(at, "bv", "bv_stacked", ("number_input", "bv_seed"), 4, "seed = 3")
    at = reset_restores(at, "bv", ("number_input", "bv_seed"), 0)
    assert at.text_input(key="bv_values").value == "" and at.selectbox(key="bv_compare_leaves").value == "8"


def test_forests_pin_clear_reset():
    at = poll(open_page("pages/forests.py", fx_exp="schemes", fx_q="1,3", fx_trees=3, fx_seed=5), "fx")
    at = pin_change_clear(at, "fx", "fx_chart", ("number_input", "fx_seed"), 6, "seed = 5")
    at = reset_restores(at, "fx", ("number_input", "fx_seed"), 0)
    assert at.radio(key="fx_exp").value == "size"


def test_pinned_run_of_another_experiment_is_not_drawn():
    at = poll(open_page("pages/forests.py", fx_exp="schemes", fx_q="1,3", fx_trees=3, fx_seed=5), "fx")
    at.button(key="fx_pin").click().run()
    at.radio(key="fx_exp").set_value("size").run()
    at = poll(at, "fx")
    assert not at.exception and not pinned_names(at, "fx_chart")
    assert any("another kind of experiment" in c.value for c in at.caption)


def test_reset_on_the_other_pages():
    """Data, Convergence, One step, Benchmark and Cost: a changed control goes back to its default."""
    for page, kind, key, other in [("pages/data.py", "slider", "data_n_outputs", 9), ("pages/convergence.py", "slider", "conv_q", 5),
                                   ("pages/one_step.py", "radio", "os_method", "gbmort"),
                                   ("pages/benchmark.py", "number_input", "bench_seed", 7),
                                   ("pages/cost.py", "select_slider", "cost_max_d", 64)]:
        at = open_page(page)
        assert not at.exception, page
        default = getattr(at, kind)(key=key).value
        assert default != other
        getattr(at, kind)(key=key).set_value(other).run()
        assert getattr(at, kind)(key=key).value == other, page
        at = reset_restores(at, key.split("_")[0], (kind, key), default)
