"""Every chart and data frame of the pages goes through pages/_render.py (show_chart, show_table):
that is where the legend caption and the projector view are applied, so a page that called
Streamlit's plotly_chart or dataframe itself would lose both without any test noticing."""

import ast
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[2] / "pages"


def direct_calls(path):
    """(line, call) of every ``<anything>.plotly_chart(...)`` / ``.dataframe(...)`` in a file."""
    tree = ast.parse(path.read_text())
    return [(node.lineno, node.func.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("plotly_chart", "dataframe")]


def test_no_page_draws_a_chart_or_a_data_frame_itself():
    found = {p.name: direct_calls(p) for p in sorted(PAGES.glob("*.py")) if p.name != "_render.py"}
    assert {name: calls for name, calls in found.items() if calls} == {}
    assert direct_calls(PAGES / "_render.py")          # the checker sees such calls where they are


def _page():
    import plotly.graph_objects as go
    import streamlit as st

    from pages._render import show_chart, show_table
    st.session_state.setdefault("projector", False)
    fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], name="gbmort"), go.Scatter(x=[1, 2], y=[2, 1], name="st-gbrt")])
    show_chart(st, fig, key="chart")
    left, _ = st.columns(2)
    show_table(left, {"a": [0.123456, 2.0], "b": ["x", "y"]}, hide_index=True)


def test_show_chart_captions_the_legend_and_the_projector_enlarges_and_wraps():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    assert any("**gbmort**: one multi-output tree per step" in c.value for c in at.caption)
    small = at.get("plotly_chart")[0].proto.spec
    assert len(at.dataframe) == 1 and not at.table
    at.session_state["projector"] = True
    at.run()
    assert len(at.table) == 1 and not at.dataframe          # a plain table whose cells wrap
    big = at.get("plotly_chart")[0].proto.spec
    assert big != small and '"size":18' in big.replace(" ", "")   # 12 px fonts drawn at 18 px
