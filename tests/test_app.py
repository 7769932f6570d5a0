"""AppTest (no browser): the app frame and the Home page, started from the entry point."""

import ast
import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import engine.presets
from engine.presets import PRESETS

APP = str(Path(__file__).resolve().parents[1] / "app.py")
HOME_TITLE = "Multi-output gradient boosting with random output projections"


def decode(value):
    """A plotly JSON array: a plain list, or plotly's typed array {dtype, bdata, shape}."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", array.size)).split(",")]
        return array.reshape(shape)
    return np.asarray(value)


@pytest.fixture
def at():
    return AppTest.from_file(APP, default_timeout=30).run()


def test_home_renders_without_exception(at):
    assert not at.exception
    assert [t.value for t in at.title] == [HOME_TITLE]
    assert [h.value for h in at.header] == ["Three output structures", "Presets"]


def test_sidebar_frame(at):
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert "rpo-explorer" in sidebar
    assert "https://arxiv.org/abs/1905.07558" in sidebar
    assert at.sidebar.caption[0].value


def test_page_table_is_well_formed():
    # app.py's PAGES is a literal list of (file, title, icon); read it without running streamlit.
    tree = ast.parse(Path(APP).read_text())
    (pages,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PAGES"
    ]
    assert pages[0] == ("pages/home.py", "Home", "🏠")
    for path, title, icon in pages:
        assert (Path(APP).parent / path).is_file(), path
        assert title and icon and not icon.startswith(":material/")  # material icons load fonts online
    assert len({t for _, t, _ in pages}) == len(pages)


def registered_pages():
    tree = ast.parse(Path(APP).read_text())
    (pages,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PAGES"
    ]
    return tuple(path for path, _, _ in pages)


def test_registered_pages_are_shared_with_pages(at):
    assert at.session_state["app_registered_pages"] == registered_pages()


def test_structures_figure_has_data(at):
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    spec = json.loads(charts[0].proto.spec)
    assert [t["type"] for t in spec["data"]] == ["heatmap"] * 3
    assert [t["name"] for t in spec["data"]] == ["chain", "group", "ind"]
    for trace in spec["data"]:
        z = decode(trace["z"])
        assert z.shape == (16, 16)
        np.testing.assert_allclose(np.diag(z), 1.0)
        assert np.all((z >= 0) & (z <= 1))


def test_presets_of_unregistered_pages_are_not_links(at):
    # Presets of registered pages are links; every other preset is listed as coming soon.
    registered = set(registered_pages())
    linked = [p["label"] for p in PRESETS if p["page"] in registered]
    assert [link.proto.label for link in at.get("page_link")] == linked
    text = " ".join(m.value for m in at.markdown)
    for preset in PRESETS:
        assert (f"{preset['label']} · *coming soon*" in text) == (preset["page"] not in registered)


def test_presets_of_registered_pages_are_links(monkeypatch):
    # A preset whose target page is registered (Home) must render as a page link with its
    # query parameters; the others stay plain text.
    extra = {
        "label": "Back to the tour",
        "page": "pages/home.py",
        "query_params": {"problem": "group", "seed": "3"},
        "description": "test preset",
    }
    monkeypatch.setattr(engine.presets, "PRESETS", [*PRESETS, extra])
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    links = at.get("page_link")
    registered = set(registered_pages())
    linked = [p["label"] for p in PRESETS if p["page"] in registered]
    assert [link.proto.label for link in links] == [*linked, "Back to the tour"]
    assert links[-1].proto.query_string == "problem=group&seed=3"
    assert links[-1].proto.help == "test preset"
    text = " ".join(m.value for m in at.markdown)
    assert text.count("coming soon") == len(PRESETS) - len(linked)
    assert "Back to the tour" not in text
