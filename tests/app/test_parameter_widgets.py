"""pages/_parameters.parameter_widget: a widget of every kind drawn from its row of the parameter table
opens on the row's default, takes a link's value, and clamps a link's number to the row's range with a
note naming the parameter (AppTest of a bare script, no page around it)."""
from streamlit.testing.v1 import AppTest

from engine.app.page_content.parameters import parameter

# One row of every widget kind (a radio with labels too), as the pages draw them.
KEYS = ("conv_q", "conv_seed", "conv_n_steps", "conv_problem", "conv_max_features", "conv_variants", "os_relabel",
        "fx_single", "fx_q", "cost_show")


def _script():
    import streamlit as st

    from pages._parameters import SHOWN_KEY, parameter_widget

    for key in ("conv_q", "conv_seed", "conv_n_steps", "conv_problem", "conv_max_features", "conv_variants",
                "os_relabel", "fx_single", "fx_q", "cost_show"):
        st.session_state[f"value_{key}"] = parameter_widget(key)
    st.session_state["shown"] = dict(st.session_state[SHOWN_KEY])


def _open(query=None):
    at = AppTest.from_function(_script, default_timeout=30)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_kind_opens_on_its_rows_default_with_its_label_and_help():
    at = _open()
    for key in KEYS:
        row = parameter(key)
        value = at.session_state[f"value_{key}"]
        assert (list(value) if isinstance(value, list) else value) == (
            list(row.default) if isinstance(row.default, tuple) else row.default), key
        widget = at.get(row.kind)
        drawn = next(w for w in widget if w.key == key)
        assert drawn.label == row.label and drawn.help == row.help, key
    assert at.session_state["shown"]["conv_n_steps"] == "Boosting steps: 1000"


def test_a_links_values_are_taken_and_a_number_out_of_range_is_clamped_with_a_note():
    at = _open({"conv_q": "7", "conv_problem": "ind", "conv_variants": ["gbmort"], "fx_single": "true",
                "cost_show": "measured on this server", "conv_seed": "-3", "conv_n_steps": "3000"})
    state = at.session_state
    assert (state["value_conv_q"], state["value_conv_problem"], list(state["value_conv_variants"])) == (7, "ind", ["gbmort"])
    assert state["value_fx_single"] is True and state["value_cost_show"] == "here"
    assert state["value_conv_seed"] == 0 and state["value_conv_n_steps"] == 2000        # clamped, the nearest step
    notes = " ".join(w.value for w in at.warning)
    assert "conv_seed = “-3”" in notes and "conv_n_steps = “3000”" in notes
