"""The parameter table (engine/app/page_content/parameters): its rows, the links built from it, and every
link the app contains (presets, the teacher's plan, challenges, the start-up fill's first views, the
examples typed in the pages' text and the README) naming only parameters the table has (issue 43).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.app.page_content import parameters as table
from engine.app.page_content.challenges import CHALLENGES, start_params
from engine.app.page_content.first_views import first_views
from engine.app.page_content.parameters.row import NUMBER_KINDS, WIDGET_KINDS
from engine.app.page_content.presets import PRESETS, TEACHER_LINKS

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p for p in table.PREFIXES if p != "pages/home.py"]
# Every text a link may be typed in: the pages, the app's frame, the engine's app content, the README.
TEXTS = sorted([*ROOT.glob("pages/*.py"), ROOT / "app.py", *ROOT.glob("engine/app/**/*.py"), ROOT / "README.md"])
PATH_LINK = re.compile(r"/([a-z_]+)\?([A-Za-z0-9_=&,.%+-]+)")      # /convergence?conv_seed=3&...
QUERY_NAME = re.compile(r"[?&]([a-z][a-z0-9_]*)=")                  # ?projector=true, &fx_data=yeast


def test_every_row_names_its_page_kind_and_a_default_it_offers():
    assert len(table.PARAMETERS) > 100
    for key, row in table.PARAMETERS.items():
        assert row.key == key
        if row.page is not None:
            assert key.startswith(table.PREFIXES[row.page] + "_"), key
        if row.kind in NUMBER_KINDS:
            assert row.low <= row.default <= row.high, key
        if row.kind in ("selectbox", "radio", "select_slider") and row.options is not None:
            assert row.default in row.options, key
        if row.kind == "multiselect" and row.options is not None:
            assert set(row.default or ()) <= set(row.options), key
        if row.kind in WIDGET_KINDS:
            assert row.label and row.help, key


def test_a_lookup_or_a_link_refuses_what_the_table_does_not_have():
    assert table.parameter("conv_n_steps").default == 1000
    with pytest.raises(ValueError, match="parameter"):
        table.parameter("n_steps")
    with pytest.raises(ValueError, match="no parameter 'n_step'"):
        table.query("pages/convergence.py", n_step=2000)
    with pytest.raises(ValueError, match="conv_n_steps must be one of"):
        table.query("pages/convergence.py", n_steps=2001)       # not a value of the slider
    with pytest.raises(ValueError, match=r"conv_learning_rate must be in"):
        table.query("pages/convergence.py", learning_rate=5)
    with pytest.raises(ValueError, match="has no parameter 'fx_q'"):
        table.query("pages/convergence.py", fx_q="1")           # another page's
    with pytest.raises(ValueError, match="page must be one of"):
        table.link("pages/nowhere.py", seed=0)
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        table.query("pages/convergence.py", hide=("seed", "nope"))


def test_a_link_names_the_pages_own_parameters_then_the_flags():
    assert table.link("pages/convergence.py", problem="chain", variants=["st-gbrt", "gbmort"], n_steps=2000,
                      learning_rate=0.1, predict=True, hide=("seed", "sidebar")) == (
        "/convergence?conv_problem=chain&conv_variants=st-gbrt&conv_variants=gbmort&conv_n_steps=2000"
        "&conv_learning_rate=0.1&predict=true&hide=conv_seed,sidebar")
    assert table.query("pages/forests.py", fx_data="yeast") == table.query("pages/forests.py", data="yeast")


def _links():
    """(where, page, query parameters) of every link the app builds."""
    yield from ((f"preset {p['label']}", p["page"], p["query_params"]) for p in PRESETS)
    yield from ((f"teacher's {t['label']}", t["page"], t["query_params"]) for t in TEACHER_LINKS)
    yield from ((f"challenge {c.key}", c.page, start_params(c)) for c in CHALLENGES)
    yield from ((f"first view {v['label']}", v["page"], v["query_params"]) for v in first_views(PAGES))


@pytest.mark.parametrize("where, page, params", list(_links()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_link_the_app_builds_names_only_parameters_of_its_page(where, page, params):
    own = set(table.page_parameters(page))
    assert set(params) <= own, (where, set(params) - own)
    assert table.query(page, **params) == params, where       # the values too: options, ranges, lists
    for name in filter(None, params.get(table.HIDE, "").split(",")):
        assert name == table.SIDEBAR or table.parameter(name).page == page, (where, name)


def test_no_text_of_the_app_types_a_link_with_a_parameter_the_table_does_not_have():
    stems = {Path(p).stem: p for p in table.PREFIXES}
    found = 0
    for path in TEXTS:
        text = path.read_text(encoding="utf-8")
        for m in PATH_LINK.finditer(text):
            page = stems.get(m.group(1))
            if page is None or m.group(2).startswith("."):
                continue
            for pair in filter(None, m.group(2).split("&")):
                name, _, value = pair.partition("=")
                found += 1
                assert name in table.page_parameters(page), f"{path.relative_to(ROOT)}: {m.group(0)} names {name}"
                if name == table.HIDE:
                    for hidden in (h for h in value.split(",") if h not in ("", "...")):   # "...": a placeholder
                        assert hidden == table.SIDEBAR or hidden in table.PARAMETERS, (path.name, m.group(0), hidden)
        for m in QUERY_NAME.finditer(text):
            found += 1
            assert m.group(1) in table.PARAMETERS, f"{path.relative_to(ROOT)}: a link names {m.group(1)}"
    assert found > 20        # the scan reads the examples (it would pass on no text at all)


def test_homes_hide_example_is_built_from_the_table():
    from pages._classroom import hide_example

    assert hide_example() == "/convergence?hide=conv_seed,conv_learning_rate"


def _table_calls():
    """{function: [(file, key pattern)]} of every parameter_widget / parameter_button call in the app, and
    the files calling url_widget directly (an f-string key is a pattern: ``os_loss_{task}`` -> os_loss_\\w+)."""
    import ast

    calls, direct = {"parameter_widget": [], "parameter_button": []}, []
    for path in [ROOT / "app.py", *sorted(ROOT.glob("pages/*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id == "url_widget":
                direct.append(path.name)
            elif node.func.id in calls:
                arg = node.args[0]
                pattern = (re.escape(arg.value) if isinstance(arg, ast.Constant) else
                           "".join(re.escape(v.value) if isinstance(v, ast.Constant) else r"\w+" for v in arg.values))
                calls[node.func.id].append((path.name, pattern))
    return calls, direct


def test_every_widget_drawn_under_a_url_key_has_a_row_and_every_row_is_drawn():
    calls, direct = _table_calls()
    assert direct == ["_parameters.py"], f"url_widget called outside pages/_parameters.py: {direct}"
    for function, kinds in (("parameter_widget", WIDGET_KINDS), ("parameter_button", ("button",))):
        rows = {k for k, row in table.PARAMETERS.items() if row.kind in kinds}
        drawn = set()
        for name, pattern in calls[function]:
            matched = {k for k in rows if re.fullmatch(pattern, k)}
            assert matched, f"{name}: {function}({pattern}) draws no row of kind {kinds}"
            drawn |= matched
        assert rows <= drawn, f"rows no page draws with {function}: {sorted(rows - drawn)}"
    assert len(calls["parameter_widget"]) > 100


def test_a_hidden_control_is_stated_in_words():
    assert table.parameter("conv_n_steps").shown_hidden(2000) == "Boosting steps: 2000"
    assert table.parameter("conv_variants").shown_hidden(["st-gbrt", "gbmort"]) == "Methods: st-gbrt, gbmort"
    assert table.parameter("os_fixed").shown_hidden(True) == "Same projection at every step: on"
    assert table.parameter("cost_show").shown_hidden("here") == "Show: measured on this server"
