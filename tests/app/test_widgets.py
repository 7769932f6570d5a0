"""Static checks over app.py and pages/*.py: every input widget explains itself (help=) and lives in
the URL (bind="query-params") through pages/_url.url_widget (which says when the URL's value was
refused): drawn from its row of the parameter table by pages/_parameters.parameter_widget (the row
holds its help), except the documented exceptions below; every key
starts with its page's prefix (a key shared by two pages leaks a setting from one to the other: issue
31); and .streamlit/config.toml keeps the app offline, quiet and headless."""

import ast
import tomllib
from pathlib import Path

import pytest

from engine.app.page_content.parameters import parameter

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
INPUTS = {"slider", "select_slider", "selectbox", "multiselect", "radio", "number_input", "text_input",
          "text_area", "checkbox", "toggle", "file_uploader", "segmented_control", "pills", "date_input",
          "time_input", "color_picker", "feedback", "data_editor", "camera_input", "audio_input", "chat_input"}
BUTTONS = {"button", "download_button", "form_submit_button", "page_link"}
# (file, widget kind, how its key starts) -> why it is not in the URL
NOT_IN_URL = {
    ("data.py", "file_uploader", "data_file"): "an uploaded file cannot travel in a link",
    ("_upload.py", "multiselect", "data_targets_"): "its options are the columns of this session's upload",
    ("benchmark.py", "checkbox", "bench_confirm"): "a shared link must never start hours of work by itself",
    ("_predict.py", "radio", ""): "a student's prediction (its key: the page's prefix) must not travel in a shared link",
}


# The prefix of every key in a page file (its widgets are its URL parameters, its session values its own).
PREFIXES = {"home.py": "home_", "data.py": "data_", "_upload.py": "data_", "_bv_data.py": "bv_data_", "convergence.py": "conv_", "_tree_strip.py": "conv_strip_",
            "one_step.py": "os_", "forests.py": "fx_", "bias_variance.py": "bv_", "_draws.py": "bv_",
            "projections.py": "proj_", "_race.py": "proj_", "benchmark.py": "bench_", "_real_data.py": "bench_rd_"}


TABLE_CALLS = ("parameter_widget", "parameter_button")     # pages/_parameters.py: a widget drawn from its row


def table_key(call):
    """The key a parameter_widget / parameter_button call names (an f-string's literal start), or None."""
    if not (isinstance(call.func, ast.Name) and call.func.id in TABLE_CALLS and call.args):
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        return str(arg.value)
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value)
    return None


def widget_calls(path):
    """(kind, call node) for every st.<widget>(...) / column.<widget>(...) call of the file, every
    url_widget(st.<widget>, ...) call (the node whose keywords are the widget's), and every widget drawn
    from the parameter table (its row's kind)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in INPUTS | BUTTONS:
            yield node.func.attr, node
        elif isinstance(node, ast.Call) and table_key(node) is not None:
            yield ("button" if node.func.id == "parameter_button" else "table"), node
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "url_widget"
              and node.args and isinstance(node.args[0], ast.Attribute) and node.args[0].attr in INPUTS):
            yield node.args[0].attr, node


def through_url_widget(path):
    """Line numbers of the url_widget(...) calls of the file."""
    return {node.lineno for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "url_widget"}


def bound_dicts(path):
    """Names of module-level dict literals holding bind="query-params" (the pages' BOUND)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            pairs = {getattr(k, "value", None): getattr(v, "value", None) for k, v in zip(node.value.keys, node.value.values)}
            if pairs.get("bind") == "query-params":
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def key_prefix(call):
    if table_key(call) is not None:
        return table_key(call)
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    key = kw.get("key")
    if isinstance(key, ast.Constant):
        return str(key.value)
    if isinstance(key, ast.JoinedStr) and key.values and isinstance(key.values[0], ast.Constant):
        return str(key.values[0].value)
    return None


def is_bound(call, bound_names):
    if table_key(call) is not None:
        return True         # parameter_widget binds every widget to the URL through url_widget
    for k in call.keywords:
        if k.arg == "bind" and isinstance(k.value, ast.Constant) and k.value.value == "query-params":
            return True
        if k.arg is None and isinstance(k.value, ast.Name) and k.value.id in bound_names:
            return True
    return False


def all_calls():
    return [(path, kind, call) for path in FILES for kind, call in widget_calls(path)]


def test_the_scan_finds_the_widgets():
    calls = all_calls()
    kinds = {kind for _, kind, _ in calls}
    assert len(calls) > 60 and {"table", "file_uploader", "button"} <= kinds
    assert {p.name for p, _, _ in calls} >= {"home.py", "data.py", "convergence.py", "bias_variance.py",
                                               "projections.py", "benchmark.py"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_control_has_help(path):
    missing = [f"{kind} line {call.lineno}" for kind, call in widget_calls(path)
               if not any(k.arg == "help" for k in call.keywords) and not _row_help(call)]
    assert not missing, f"{path.name}: no help= on {missing}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def _row_help(call):
    """The help of the row a table call draws (an f-string key: the help of each of its rows)."""
    key = table_key(call)
    if key is None:
        return ""
    return parameter(key).help if isinstance(call.args[0], ast.Constant) else "every row's"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_input_is_in_the_url_or_a_documented_exception(path):
    bound = bound_dicts(path)
    unbound, used = [], set()
    for kind, call in widget_calls(path):
        if kind not in INPUTS or is_bound(call, bound):
            continue
        prefix = key_prefix(call)
        exception = next((e for e in NOT_IN_URL if e[0] == path.name and e[1] == kind
                          and (prefix or "").startswith(e[2])), None)
        if exception is None:
            unbound.append(f"{kind} key={prefix} line {call.lineno}")
        else:
            used.add(exception)
    assert not unbound, f"{path.name}: not bound to the URL: {unbound}"
    stale = {e for e in NOT_IN_URL if e[0] == path.name} - used
    assert not stale, f"documented exceptions that no longer exist: {stale}"


def test_bound_widgets_have_keys():
    # bind="query-params" needs a key: it is the URL parameter's name
    for path, kind, call in all_calls():
        if kind in INPUTS and is_bound(call, bound_dicts(path)):
            assert key_prefix(call), f"{path.name} line {call.lineno}: a bound {kind} without a literal key"


def test_bound_widgets_go_through_url_widget():
    # Streamlit replaces a URL value it cannot use by the default without a word; url_widget says so
    for path, kind, call in all_calls():
        if kind in INPUTS and is_bound(call, bound_dicts(path)):
            assert call.lineno in through_url_widget(path), f"{path.name} line {call.lineno}: {kind} not in url_widget"
    assert through_url_widget(ROOT / "pages" / "_parameters.py")     # where the table's widgets are drawn


def test_every_key_starts_with_its_pages_prefix():
    files = [p for p in FILES if p.name in PREFIXES]
    assert {p.name for p in files} == set(PREFIXES)      # a new page or section needs its prefix here
    wrong, seen = [], 0
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                prefix = key_prefix(node)
                if prefix is not None:
                    seen += 1
                    if not prefix.startswith(PREFIXES[path.name]):
                        wrong.append(f"{path.name} line {node.lineno}: key {prefix!r}")
    assert seen > 150 and not wrong, wrong


def test_streamlit_config_is_offline_quiet_and_headless():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False      # else the browser fetches data.streamlit.io
    assert config["server"]["headless"] is True
    assert config["server"]["fileWatcherType"] == "none"
