"""The parameter table: a row per URL parameter of every page (the pages' counterpart of engine/methods.py).

Everything the app knows about a page's parameter is read from its row
(:class:`engine.app.page_content.parameters.row.Parameter`): its name, page, widget, label, help,
default, range or options, and how a hidden control is stated. The pages draw their widgets from
the rows (``pages/_parameters.parameter_widget``), ``pages/_params.py`` lists a page's parameters
and writes the notes about a link from them, and every link the app shows (Home's presets and
plan, the challenges, the start-up fill's first views, the examples in the text) is built by
:func:`query` or :func:`link`, which refuse a name the table does not have: a renamed parameter
breaks its links at import, and tests/test_parameter_table.py finds any link typed by hand.

Adding a parameter: one row in its page's module here (``convergence.py`` for pages/convergence.py,
...), and ``parameter_widget("<key>")`` where the page draws it.
"""
from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import urlencode

from engine.app.page_content.parameters.row import KINDS, NUMBER_KINDS, WIDGET_KINDS, Parameter
from engine.app.page_content.parameters import (benchmark, bias_variance, convergence, cost, data, flags,
                                                forests, one_step, projections)

__all__ = ["Parameter", "KINDS", "PARAMETERS", "PREFIXES", "FLAGS", "HIDE", "SIDEBAR", "parameter", "page_rows",
           "page_parameters", "query", "link", "page_path"]

# A page's prefix, the start of every parameter of its own: no setting reaches another page.
PREFIXES = {"pages/convergence.py": "conv", "pages/one_step.py": "os", "pages/forests.py": "fx",
            "pages/bias_variance.py": "bv", "pages/projections.py": "proj", "pages/benchmark.py": "bench",
            "pages/data.py": "data", "pages/cost.py": "cost", "pages/home.py": "home"}
HIDE, SIDEBAR = "hide", "sidebar"    # a teacher's link: ?hide=sidebar,conv_seed (pages/_classroom.py)

PARAMETERS: dict[str, Parameter] = {}
for _module in (convergence, one_step, forests, bias_variance, projections, benchmark, data, cost, flags):
    for _row in _module.ROWS:
        if _row.key in PARAMETERS:
            raise ValueError(f"parameter {_row.key!r} has two rows")
        if _row.page is not None and not _row.key.startswith(PREFIXES[_row.page] + "_"):
            raise ValueError(f"parameter {_row.key!r} of {_row.page} must start with {PREFIXES[_row.page]}_")
        PARAMETERS[_row.key] = _row
# The flags every page reads (the sidebar's switches, a teacher's hide list, a challenge, a preset's go, the data).
FLAGS = tuple(k for k, row in PARAMETERS.items() if row.page is None)


def parameter(key: str) -> Parameter:
    """The row of URL parameter ``key``."""
    if not isinstance(key, str) or key not in PARAMETERS:
        raise ValueError(f"parameter must be a key of the parameter table, got {key!r}")
    return PARAMETERS[key]


def page_rows(page: str) -> tuple[Parameter, ...]:
    """Every row of ``page`` ("pages/convergence.py"), its own first, then the flags."""
    page = _page(page)
    return tuple(r for r in PARAMETERS.values() if r.page == page) + tuple(PARAMETERS[f] for f in FLAGS)


def page_parameters(page: str) -> tuple[str, ...]:
    """Every URL parameter of ``page``: its widgets' keys, then the flags (not its buttons)."""
    return tuple(r.key for r in page_rows(page) if r.kind != "button")


def query(page: str, **params) -> dict:
    """The query parameters of a link to ``page`` (e.g. ``query("pages/convergence.py", problem="chain",
    n_steps=2000)``): each name is a parameter of the page, bare (``n_steps``) or whole (``conv_n_steps``),
    or a flag; a value is checked against the row (an option, a number in range) and written as the URL
    writes it. ``hide`` takes a list of the page's controls (bare or whole) or ``sidebar``."""
    page = _page(page)
    out = {}
    for name, value in params.items():
        row = _row_of(page, name)
        out[row.key] = _hide_value(page, value) if row.key == HIDE else _url_value(row, value)
    return out


def link(page: str, **params) -> str:
    """The link as a path to write after the server's address: ``/convergence?conv_problem=chain``."""
    return page_path(page, query(page, **params))


def page_path(page: str, query_params: dict) -> str:
    """``/<page>?<query>`` of already built query parameters (a preset's): lists repeat their name."""
    text = urlencode(query_params, doseq=True, safe=",")
    return f"/{PurePosixPath(page).stem}" + (f"?{text}" if text else "")


def _page(page: str) -> str:
    page = str(page).replace("\\", "/").removeprefix("./")
    if page not in PREFIXES:
        raise ValueError(f"page must be one of {tuple(PREFIXES)}, got {page!r}")
    return page


def _row_of(page: str, name: str) -> Parameter:
    for key in (f"{PREFIXES[page]}_{name}", name):
        row = PARAMETERS.get(key)
        if row is not None and row.page in (page, None):
            return row
    raise ValueError(f"{page} has no parameter {name!r} (its parameters: {', '.join(page_parameters(page))})")


def _hide_value(page: str, value) -> str:
    names = value.split(",") if isinstance(value, str) else list(value)
    return ",".join(SIDEBAR if n == SIDEBAR else _row_of(page, n.strip()).key for n in names if n.strip())


def _url_value(row: Parameter, value):
    """``value`` as the URL writes it, checked against ``row``."""
    if isinstance(value, (list, tuple)):
        if row.kind != "multiselect":
            raise ValueError(f"{row.key} takes one value, got {value!r}")
        return [_url_value(row, v) for v in value]
    text = str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)
    if row.kind in NUMBER_KINDS:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{row.key} must be a number, got {value!r}") from None
        if not row.low <= number <= row.high:
            raise ValueError(f"{row.key} must be in [{row.low}, {row.high}], got {value!r}")
    elif row.options is not None and row.kind in WIDGET_KINDS:
        spelled = {str(o) for o in row.options} | {str(t) for t in (row.labels or {}).values()}
        if text not in spelled:
            raise ValueError(f"{row.key} must be one of {tuple(map(str, row.options))}, got {value!r}")
    elif row.kind in ("toggle", "checkbox") and text.lower() not in ("true", "false"):
        raise ValueError(f"{row.key} must be true or false, got {value!r}")
    return text
