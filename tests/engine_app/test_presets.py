"""engine.app.page_content.presets: the preset table is well formed and filtered by registered pages."""

from pathlib import Path

from engine.app.page_content import presets

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_presets_are_well_formed():
    labels = [p["label"] for p in presets.PRESETS]
    assert len(labels) == len(set(labels))
    for p in presets.PRESETS:
        assert set(p) == {"label", "page", "query_params", "description"}
        assert p["page"].startswith("pages/") and p["page"].endswith(".py")
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in p["query_params"].items())


def test_presets_cover_the_papers_figures():
    labels = " ".join(p["label"] for p in presets.PRESETS)
    for needle in ("Figure 1a", "chain", "group", "ind", "Figure 5", "Table 4", "Bias–variance"):
        assert needle in labels


def test_presets_for_filters_and_keeps_order():
    assert presets.presets_for([]) == []
    conv = presets.presets_for(["pages/convergence.py", "pages/home.py"])
    assert [p["query_params"]["conv_problem"] for p in conv] == ["chain", "group", "ind"]
    assert presets.presets_for(["./pages/benchmark.py"])[0]["label"].startswith("Table 4")


def test_engine_does_not_import_streamlit():
    sources = [*(REPO_ROOT / "engine").rglob("*.py"), *(REPO_ROOT / "engine").rglob("*.pyx")]
    assert len(sources) > 30
    for path in sources:
        source = path.read_text()
        assert "import streamlit" not in source and "from streamlit" not in source, path
