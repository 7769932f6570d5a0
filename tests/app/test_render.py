"""Every chart and data frame of the pages goes through pages/_render.py (show_chart, show_table):
that is where the legend caption and the projector view are applied, so a page that called
Streamlit's plotly_chart or dataframe itself would lose both without any test noticing. (What
show_chart and show_table do: tests/app/test_classroom.py.)"""

import ast
from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "pages"


def direct_calls(path):
    """(line, call) of every ``<anything>.plotly_chart(...)`` / ``.dataframe(...)`` in a file."""
    tree = ast.parse(path.read_text())
    return [(node.lineno, node.func.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("plotly_chart", "dataframe")]


def test_no_page_draws_a_chart_or_a_data_frame_itself():
    found = {p.name: direct_calls(p) for p in [*sorted(PAGES.glob("*.py")), PAGES.parent / "app.py"]
             if p.name != "_render.py"}
    assert {name: calls for name, calls in found.items() if calls} == {}
    assert direct_calls(PAGES / "_render.py")          # the checker sees such calls where they are
