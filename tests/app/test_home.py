"""AppTest (no browser): the app frame and the Home page, started from the entry point."""

import ast
import re
import base64
import json
from pathlib import Path

import numpy as np
import pytest

from apptest_runs import job_of, open_app

import engine.app.page_content.presets
from engine.app.page_models import dataspec
from engine.app.page_content.presets import PRESETS, TEACHER_LINKS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
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
    return open_app(timeout=30)


def test_home_renders_without_exception(at):
    assert not at.exception
    assert [t.value for t in at.title] == [HOME_TITLE]
    assert [h.value for h in at.header] == ["Three output structures", "Presets", "For teachers", "Challenges"]


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
    (pages,) = [ast.literal_eval(n.value) for n in tree.body
                if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "PAGES"]
    return tuple(path for path, _, _ in pages)


def test_registered_pages_are_shared_with_pages(at):
    assert at.session_state["app_registered_pages"] == registered_pages()
    assert at.session_state["app_registered_pages"][0] == "pages/home.py"


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
    registered = registered_pages()
    presets = [link for link in at.get("page_link") if link.proto.label != "Take the challenge"   # not the challenges
               and link.proto.icon != "🎓"]                                                         # nor the teacher's links
    assert [link.proto.label for link in presets] == [
        p["label"] for p in PRESETS if p["page"] in registered]
    text = " ".join(m.value for m in at.markdown)
    for preset in PRESETS:
        if preset["page"] not in registered:
            assert f"{preset['label']} · *coming soon*" in text


def test_presets_of_registered_pages_are_links(monkeypatch):
    # A preset whose target page is registered (Home) must render as a page link with its
    # query parameters; the others stay plain text.
    extra = {
        "label": "Back to the tour",
        "page": "pages/home.py",
        "query_params": {"problem": "group", "seed": "3"},
        "description": "test preset",
    }
    monkeypatch.setattr(engine.app.page_content.presets, "PRESETS", [*PRESETS, extra])
    at = open_app(timeout=30)
    registered = registered_pages()
    links = [link for link in at.get("page_link") if link.proto.label != "Take the challenge" and link.proto.icon != "🎓"]
    assert [link.proto.label for link in links] == [p["label"] for p in PRESETS if p["page"] in registered] + [
        "Back to the tour"]
    assert links[-1].proto.query_string == "problem=group&seed=3"
    assert links[-1].proto.help == "test preset"
    text = " ".join(m.value for m in at.markdown)
    assert text.count("coming soon") == sum(p["page"] not in registered for p in PRESETS)
    assert "Back to the tour" not in text


# --- Data page ----------------------------------------------------------------------------------

DATA = "pages/data.py"
MALFORMED = b"a,b,t\n1,2,3\n4,5\n6,7,8\n"  # line 3 is short
GOOD = b"a,b,t1,t2\n1,2,0.5,1\n4,5,1.5,0\n7,8,2.5,1\n2,2,3.0,0\n"


def open_data(query_params=None):
    return open_app(DATA, query_params, route="home-link", timeout=30)


def spec_of(at, key):
    return json.loads(at.get_by_key(key).proto.spec)


def test_data_page_defaults():
    at = open_data()
    assert not at.exception and not at.error
    assert [t.value for t in at.title] == ["Data"]
    assert [c.key for c in at.get("plotly_chart")] == ["data_corr", "data_bayes"]
    assert [m.value for m in at.metric] == ["300", "5", "16", "regression"]
    assert at.session_state["dataset_spec"] == dataspec.DEFAULT_SPEC
    assert "dataset_upload" not in at.session_state
    corr = decode(spec_of(at, "data_corr")["data"][0]["z"])
    assert corr.shape == (16, 16) and corr[0, 1] > corr[0, 15] > 0.5  # chain: a fading band
    assert [b.proto.label for b in at.get("download_button")] == [
        "Data as used (CSV)", "Correlation matrix (CSV)", "Heatmap (HTML)", "Scatter (HTML)"]
    # every control explains itself
    for widget in [*at.radio, *at.slider, *at.number_input, *at.button]:
        assert widget.help, widget.label


def test_data_page_structure_and_seed_change_the_figures():
    at = open_data()
    before = decode(spec_of(at, "data_bayes")["data"][0]["y"])
    at.radio(key="data_problem").set_value("ind").run()
    assert not at.exception
    corr = decode(spec_of(at, "data_corr")["data"][0]["z"])
    assert np.abs(corr[~np.eye(16, dtype=bool)]).max() < 0.35  # independent outputs
    assert at.session_state["dataset_spec"]["structure"] == "ind"
    assert at.metric[1].value == "80"  # 5 inputs per output
    at.radio(key="data_problem").set_value("chain").run()
    np.testing.assert_array_equal(decode(spec_of(at, "data_bayes")["data"][0]["y"]), before)  # same seed, same data
    at.number_input(key="data_seed").set_value(5).run()
    after = decode(spec_of(at, "data_bayes")["data"][0]["y"])
    assert after.shape == before.shape and not np.array_equal(after, before)
    assert at.session_state["dataset_spec"]["seed"] == 5


def test_data_page_new_seed_button():
    at = open_data()
    at.button(key="data_new_seed").click().run()
    assert not at.exception
    assert at.number_input(key="data_seed").value == at.session_state["dataset_spec"]["seed"]


def test_data_page_noisy_outputs_get_a_panel():
    at = open_data({"data_noisy_outputs": "3", "data_n_outputs": "4"})
    names = [t.get("name") for t in spec_of(at, "data_bayes")["data"] if t["mode"] == "markers"]
    assert names == ["y1", "y2", "y4", "noise1"]
    assert at.metric[2].value == "7"


def test_data_page_shipped_dataset():
    at = open_data()
    at.radio(key="data_source").set_value("shipped").run()
    assert at.selectbox(key="data_dataset").value == "enb"
    at.selectbox(key="data_dataset").set_value("jura").run()
    assert not at.exception and not at.error
    assert [m.value for m in at.metric] == ["359", "15", "3", "regression"]
    assert [c.key for c in at.get("plotly_chart")] == ["data_corr", "data_targets"]
    assert at.session_state["dataset_spec"] == {"source": "shipped", "name": "jura"}
    assert any("Source and citation" == e.label for e in at.expander)
    at.selectbox(key="data_dataset").set_value("emotions").run()  # multi-label: label frequencies
    assert spec_of(at, "data_targets")["data"][0]["type"] == "bar"


def test_data_page_friedman_settings_survive_a_source_switch():
    at = open_data({"data_problem": "group"})
    at.radio(key="data_source").set_value("shipped").run()
    at.radio(key="data_source").set_value("friedman").run()
    assert at.radio(key="data_problem").value == "group"


def test_data_page_deep_link_presets_controls():
    params = {"data_problem": "group", "data_seed": "7", "data_n_outputs": "5", "data_n_samples": "100", "data_noise": "0.5", "data_inputs": "gaussian"}
    at = open_data(params)
    assert not at.exception
    assert at.radio(key="data_problem").value == "group"
    assert at.number_input(key="data_seed").value == 7
    assert at.slider(key="data_n_outputs").value == 5
    assert at.slider(key="data_n_samples").value == 100
    assert at.slider(key="data_noise").value == 0.5
    assert at.radio(key="data_inputs").value == "gaussian"
    assert at.session_state["dataset_spec"] == dataspec.friedman_spec(
        "group", n_samples=100, n_outputs=5, input_distribution="gaussian", noise=0.5, seed=7
    )
    shipped = open_data({"data_source": "shipped", "data_dataset": "slump"})
    assert shipped.session_state["dataset_spec"] == {"source": "shipped", "name": "slump"}


def test_data_page_upload_errors_are_shown_and_state_is_kept():
    at = open_data()
    at.radio(key="data_source").set_value("upload").run()
    assert not at.exception and "Upload a CSV" in at.info[0].value
    at.file_uploader(key="data_file").set_value(("bad.csv", MALFORMED, "text/csv")).run()
    assert not at.exception
    assert "malformed CSV: line 3 has 2 fields" in at.error[0].value and "bad.csv" in at.error[0].value
    assert at.session_state["dataset_spec"] == dataspec.DEFAULT_SPEC  # nothing lost
    assert not at.get("plotly_chart")

    at.file_uploader(key="data_file").set_value(("mine.csv", GOOD, "text/csv")).run()
    assert not at.exception and not at.error
    assert at.session_state["dataset_spec"]["target_columns"] == ["t2"]   # the last column by default
    at.radio(key="data_target_rule").set_value("pick").run()
    (targets,) = at.multiselect
    assert targets.value == ["t2"]
    targets.set_value(["t2", "t1"]).run()
    spec = at.session_state["dataset_spec"]
    assert spec["source"] == "upload" and spec["name"] == "mine" and spec["target_columns"] == ["t1", "t2"]
    assert at.session_state["dataset_upload"]["Y"].shape == (4, 2)
    assert [m.value for m in at.metric] == ["4", "2", "2", "regression"]
    assert [c.key for c in at.get("plotly_chart")] == ["data_corr", "data_targets"]

    at.file_uploader(key="data_file").set_value(("bad.csv", MALFORMED, "text/csv")).run()
    assert "malformed CSV" in at.error[0].value
    assert at.session_state["dataset_spec"] == spec  # the good upload is still the data set
    assert at.session_state["dataset_upload"]["Y"].shape == (4, 2)

    at.switch_page("pages/home.py").run()  # the app keeps working
    assert not at.exception


def test_data_page_non_numeric_upload():
    at = open_data({"data_source": "upload"})
    at.file_uploader(key="data_file").set_value(("x.csv", b"a,b,t\n1,zz,3\n4,5,6\n", "text/csv")).run()
    assert "not numeric" in at.error[0].value
    at.file_uploader(key="data_file").set_value(("binary.csv", b"\xff\xfe\x00\x01", "text/csv")).run()
    assert not at.exception and at.error


def test_data_page_exports_figures_and_the_correlation_matrix():
    import pandas as pd
    from io import StringIO

    at = open_data({"data_problem": "group", "data_n_outputs": "4"})
    buttons = {b.proto.label: b for b in at.get("download_button")}
    assert set(buttons) == {"Data as used (CSV)", "Correlation matrix (CSV)", "Heatmap (HTML)", "Scatter (HTML)"}
    for b in buttons.values():
        assert b.proto.help
    # the matrix the CSV holds is the one drawn (independent oracle: numpy on the data set)
    ds = dataspec.dataset_from_spec(at.session_state["dataset_spec"])
    from engine import plotting

    frame = pd.read_csv(StringIO(plotting.correlation_frame(ds.Y, ds.target_names).to_csv()), index_col=0)
    np.testing.assert_allclose(frame.to_numpy(), np.corrcoef(ds.Y, rowvar=False), atol=1e-9)
    np.testing.assert_allclose(frame.to_numpy(), decode(spec_of(at, "data_corr")["data"][0]["z"]), atol=1e-9)
    assert list(frame.columns) == list(ds.target_names)
    html = plotting.standalone_html(plotting.data_correlation_figure(ds.Y, ds.target_names))
    assert html.lstrip().lower().startswith("<!doctype html>") and len(html) > 1_000_000  # plotly.js inside
    assert not re.search(r"<script[^>]+src=", html)  # nothing fetched from a CDN


def test_data_page_empty_csv_is_a_message():
    at = open_data({"data_source": "upload"})
    at.file_uploader(key="data_file").set_value(("empty.csv", b"", "text/csv")).run()
    assert not at.exception
    assert "empty.csv" in at.error[0].value and "empty" in at.error[0].value.replace("empty.csv", "")
    assert at.session_state["dataset_spec"] == dataspec.DEFAULT_SPEC


def test_data_page_csv_over_the_row_limit_is_a_message(monkeypatch):
    from engine.datasets import upload

    monkeypatch.setattr(upload, "DEFAULT_MAX_ROWS", 5)
    rows = "\n".join(f"{i},{i + 1},{2 * i}" for i in range(8))
    at = open_data({"data_source": "upload"})
    at.file_uploader(key="data_file").set_value(("big.csv", f"a,b,t\n{rows}\n".encode(), "text/csv")).run()
    assert not at.exception
    assert "big.csv" in at.error[0].value and "more than 5 data rows" in at.error[0].value
    assert at.session_state["dataset_spec"] == dataspec.DEFAULT_SPEC and not at.get("plotly_chart")
    # under the limit, the same page takes it
    at.file_uploader(key="data_file").set_value(("ok.csv", f"a,b,t\n{rows.splitlines()[0]}\n2,3,4\n".encode(), "text/csv")).run()
    assert not at.exception and not at.error


def test_data_page_non_numeric_target_columns_are_a_message():
    raw = b"a,b,t,kind\n1,2,3,red\n4,5,6,blue\n7,8,9,red\n1,1,1,blue\n"
    at = open_data({"data_source": "upload"})
    at.file_uploader(key="data_file").set_value(("labels.csv", raw, "text/csv")).run()
    # the last column by default: text
    assert not at.exception and "labels.csv" in at.error[0].value and "not numeric" in at.error[0].value
    assert at.session_state["dataset_spec"] == dataspec.DEFAULT_SPEC
    at.radio(key="data_target_rule").set_value("pick").run()
    (targets,) = at.multiselect
    assert targets.value == ["kind"]
    targets.set_value(["t", "kind"]).run()
    assert not at.exception and "not numeric" in at.error[0].value


def test_a_pinned_convergence_run_survives_a_malformed_upload():
    at = open_app("pages/convergence.py", {"conv_n_steps": "50", "conv_variants": ["gbmort"]}, route="home-link", timeout=30)
    import time

    t0 = time.perf_counter()
    while job_of(at, "conv").running and time.perf_counter() - t0 < 30:
        time.sleep(0.2)
        at.run()
    at.run()
    at.button(key="conv_pin").click().run()
    (pin,) = at.session_state["conv_pins"]
    pinned_scores = pin["result"].curves["gbmort"].test_score.copy()

    at.switch_page(DATA).run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_file").set_value(("bad.csv", MALFORMED, "text/csv")).run()
    assert not at.exception and "malformed CSV" in at.error[0].value

    at.switch_page("pages/convergence.py").run()
    assert not at.exception
    (pin,) = at.session_state["conv_pins"]
    np.testing.assert_array_equal(pin["result"].curves["gbmort"].test_score, pinned_scores)
    traces = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert any((t.get("meta") or {}).get("run") == pin["name"] for t in traces)   # still drawn, dashed
