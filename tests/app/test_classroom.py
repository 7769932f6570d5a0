"""AppTest (no browser): the Cost against d page, the projector view's chart and table hooks, and the
teacher's links (pages/_classroom.py, engine/app/page_content/presets.py's TEACHER_LINKS)."""
import json
import re

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from apptest_runs import finished, open_app, poll
from engine.experiments.cost_vs_outputs import load_shipped, loglog_slope
from engine.app.page_content.presets import TEACHER_LINKS
from pages._classroom import RESET_SELECTOR, hide_css, link_url, parse_hide
from pages._render import table_frame

COST = "pages/cost.py"


def open_page(page, **query):
    return open_app(page, query)


def chart_spec(at, key):
    return json.loads(at.get_by_key(key).proto.spec)


def widget_keys(at):
    """Every keyed element the page drew (main area and sidebar)."""
    keys = set()

    def walk(node):
        key = getattr(node, "key", None)
        if key:
            keys.add(key)
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at.main)
    walk(at.sidebar)
    return keys


# --- Cost against d -------------------------------------------------------------------------------

def test_cost_page_opens_on_the_shipped_measurement_and_its_sentence_matches_the_chart():
    at = open_page(COST)
    assert not at.exception
    spec = chart_spec(at, "cost_chart")
    shipped = load_shipped()
    traces = {t["name"]: t for t in spec["data"]}
    assert list(traces) == shipped.labels
    sentence = next(m.value for m in at.markdown if m.value.startswith("**Fitted log–log slopes**"))
    for name, trace in traces.items():
        x, y = np.asarray(trace["x"], dtype=float), np.asarray(trace["y"], dtype=float)
        assert len(x) >= 3
        assert f"{name} **{loglog_slope(x, y):.2f}**" in sentence          # recomputed from the drawn points
    at_d = int(re.search(r"\*\*At d = (\d+)\*\*", sentence).group(1))
    assert at_d == max(traces["gbmort"]["x"])
    g = traces["gbmort"]["y"][traces["gbmort"]["x"].index(at_d)]
    p = traces["gbrt-rpo, q = 1"]["y"][traces["gbrt-rpo, q = 1"]["x"].index(at_d)]
    assert f"(**{p / g:.2g}×**)" in sentence
    legend = next(m.value for m in at.markdown if m.value.startswith("**Legend**"))
    assert all(f"**{name}**" in legend for name in traces)
    captions = " ".join(c.value for c in at.caption)
    assert "one thread" in captions and shipped.machine["cpu"] in captions and "shipped measurement" in captions


def test_measure_here_runs_the_small_grid_and_shows_it():
    at = open_page(COST, cost_n="250", cost_max_d="64")
    assert at.select_slider(key="cost_n").value == 250
    at.button(key="cost_measure").click().run()
    at = poll(at, "cost", timeout=120)
    assert not at.exception
    done = finished(at, "cost")
    assert done.status == "done" and done.result.d_values == [4, 16, 64]
    assert at.radio(key="cost_show").value == "here"
    spec = chart_spec(at, "cost_chart")
    assert [t["x"] for t in spec["data"]][1] == [4, 16, 64]
    assert "n = 250" in spec["layout"]["title"]["text"]
    at.radio(key="cost_show").set_value("shipped").run()
    assert max(chart_spec(at, "cost_chart")["data"][1]["x"]) >= 1000


# --- projector view -------------------------------------------------------------------------------

def test_projector_view_enlarges_every_chart_font_by_the_same_factor():
    at = open_page(COST)
    off = chart_spec(at, "cost_chart")["layout"]
    at.session_state["projector"] = True
    on = chart_spec(at.run(), "cost_chart")["layout"]
    assert not at.exception
    assert off.get("font", {}).get("size") is None                # the theme's 12 px
    assert on["font"]["size"] == 18 and on["legend"]["font"]["size"] == 18
    assert on["xaxis"]["tickfont"]["size"] == 18 and on["yaxis"]["title"]["font"]["size"] == 21
    assert on["title"]["font"]["size"] == 20 and on["height"] > off["height"]


def test_projector_view_draws_data_frames_as_wrapping_tables():
    def script():
        import streamlit as st
        from pages._render import show_table
        show_table(st, {"estimator": ["gbrt-relabel-rpo-gaussian"], "best_score": [0.912345]}, hide_index=True,
                     key="t", column_config={"best_score": st.column_config.NumberColumn("best score", format="%.3f")})
    at = AppTest.from_function(script).run()
    assert len(at.dataframe) == 1 and len(at.table) == 0
    at.session_state["projector"] = True
    at.run()
    assert not at.exception and len(at.dataframe) == 0 and len(at.table) == 1
    frame = at.table[0].value
    assert list(frame.columns) == ["estimator", "best score"] and frame.iloc[0, 1] == "0.912"


def test_table_frame_applies_order_labels_formats_and_hidden_columns():
    data = pd.DataFrame({"a": [1.234567, np.nan], "b": ["x", "y"], "c": [3, 4], "hidden": [0, 0]})
    frame = table_frame(data, column_order=["b", "a", "c", "hidden"],
                        column_config={"a": {"label": "A", "type_config": {"format": "%.2f"}}, "c": "C", "hidden": None})
    assert list(frame.columns) == ["b", "A", "C"]
    assert frame["A"].tolist() == ["1.23", ""] and frame["C"].tolist() == [3, 4]
    assert table_frame([{"x": 0.123456789}])["x"].tolist() == ["0.1235"]


# --- teacher's links ------------------------------------------------------------------------------

def test_parse_hide_and_its_css():
    assert parse_hide("seed, learning_rate,,seed") == (["seed", "learning_rate"], [])
    assert parse_hide("sidebar,a b,x;y") == (["sidebar"], ["a b", "x;y"])
    css = hide_css(["sidebar", "seed"])
    assert 'section[data-testid="stSidebar"]' in css and ".st-key-seed, " in css
    assert f"{RESET_SELECTOR} {{ display: none !important; }}" in css     # a link hiding controls hides Reset
    assert hide_css(["seed"]).count("display: none") == 1 and "stSidebar" not in hide_css(["seed"])


def test_home_lists_the_three_acts_with_their_links():
    at = open_app(timeout=30)
    links = [link for link in at.get("page_link") if link.proto.icon == "🎓"]
    assert [link.proto.label for link in links] == [f"{t['label']} ({t['minutes']} min)" for t in TEACHER_LINKS]
    assert sum(t["minutes"] for t in TEACHER_LINKS) == 45
    for link, teacher in zip(links, TEACHER_LINKS):
        assert "hide=" in link.proto.query_string
        assert link_url(teacher) in [c.value for c in at.code]
    assert link_url(TEACHER_LINKS[2]) == "/cost?predict=true&hide=sidebar"   # questions first, no controls


@pytest.mark.parametrize("link", TEACHER_LINKS, ids=lambda t: f"act{t['act']}")
def test_every_control_a_teachers_link_hides_is_a_widget_of_its_page(link):
    # The keys are the pages' widget keys: a page that renames one must update presets.py too.
    at = open_page(link["page"], **link["query_params"])
    assert not at.exception
    keys = widget_keys(at)
    missing = [k for k in link["hide"] if k != "sidebar" and k not in keys]
    assert missing == [], f"{link['page']} has no widget {missing}: update TEACHER_LINKS"
    if "sidebar" not in link["hide"]:
        assert keys - set(link["hide"]), "the link hides every widget of the page"
    assert at.session_state["teacher_hide"] == list(link["hide"])


def test_the_hidden_controls_values_are_stated_in_the_sidebar_as_their_rows_say():
    # Act 1 hides every control but the Problem switch: the class still reads the link's values.
    link = TEACHER_LINKS[0]
    at = open_page(link["page"], **link["query_params"])
    line = next(c.value for c in at.sidebar.caption if "Teacher's link" in c.value)
    assert line.startswith("🎓 Teacher's link: 12 controls of this page hidden")
    for said in ("Boosting steps: 2000", "Methods: st-gbrt, gbmort, gbrt-rpo-subsampled", "Learning rate μ: 0.1",
                 "Leaves per tree: 2", "Seed: 0"):
        assert said in line, (said, line)
    assert "Problem:" not in line      # shown, so not stated


def test_a_refused_name_is_said_on_screen():
    at = open_page("pages/convergence.py", hide="seed,<script>")
    assert not at.exception
    assert any("“<script>” is not a widget key" in w.value and "hiding seed" in w.value for w in at.warning)


# --- legend captions ------------------------------------------------------------------------------

def test_every_chart_with_a_legend_gets_its_caption_also_in_a_placeholder():
    def script():
        import plotly.graph_objects as go
        import streamlit as st
        from pages._render import show_chart
        fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], name="gbmort"),
                         go.Scatter(x=[1, 2], y=[2, 1], name="relabel-rpo, within 0.0723 s")])
        left, _ = st.columns(2)
        show_chart(left, fig, key="a")
        show_chart(st.empty(), fig, key="b")
        show_chart(st, go.Figure([go.Scatter(x=[1], y=[1], name="alone")]), key="c")   # no legend: no caption
    at = AppTest.from_function(script).run()
    assert not at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["a", "b", "c"]
    captions = [c.value for c in at.caption]
    assert len(captions) == 2
    assert all(c.startswith("**Legend** · **gbmort**: one multi-output tree per step") for c in captions)
    assert "**relabel-rpo, within 0.0723 s**: gbrt-relabel-rpo's best test score within the first 0.0723 s" in captions[0]
