"""The layout's rules, read from the source: imports only go down the layers, no engine or
page module imports itself back through others (no import cycle), and the compiled core keeps
one concept per module, at most 700 lines a module and 80 a function (the sections at the end;
the same size rules hold for every Python module of engine/ and pages/).

The layers, bottom to top (a module may import from its own layer or any below it):

0. ``engine._core`` (compiled) and ``engine._build`` (the build backend);
1. ``engine.estimators``, ``engine.datasets`` and the shared base modules ``engine.names``,
   ``engine.methods`` (the method table), ``engine.projections``, ``engine.projection_schemes``,
   ``engine.metrics``, ``engine.validation`` (and ``engine`` itself,
   whose ``__init__`` re-exports the estimators);
2. ``engine.experiments``: computes, draws nothing;
3. ``engine.plotting``: draws the experiments' results;
4. ``engine.reports`` and the command line ``engine.__main__``: write files;
5. the app's floors, ``engine.app``: what the pages need that is not UI: ``serving`` (runs served
   to many sessions: jobs, the run store, memory), ``page_content`` (presets, challenges,
   takeaways, defaults) and ``page_models`` (the state a page steps and draws);
6. ``engine.bench``: the benchmarks, which also time the page models as a page uses them (the
   One step page's interactions, the cost pages' default views);
7. the pages (``pages``) and ``app.py``.

Every import counts, also one inside a function: a lazy import still ties the layers.

And the engine never imports a test-only package: Playwright (a test extra) drives Chromium for the
browser tests and the class load tool, both under ``tests/``.
"""
import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS = (
    ("engine._core", 0), ("engine._build", 0),
    ("engine.estimators", 1), ("engine.datasets", 1), ("engine.names", 1), ("engine.projections", 1),
    ("engine.metrics", 1), ("engine.validation", 1), ("engine.methods", 1), ("engine.projection_schemes", 1),
    ("engine.experiments", 2),
    ("engine.plotting", 3),
    ("engine.reports", 4), ("engine.__main__", 4),
    ("engine.app", 5),
    ("engine.bench", 6),
    ("pages", 7), ("app", 7),
    ("engine", 1),      # the package's __init__ (after every engine.<sub> above: first match wins)
)


def layer_of(module):
    """The layer of a dotted module name (None: not one of ours)."""
    for prefix, layer in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def source_modules(root):
    """{dotted name: path} of every Python module of the engine, the pages and app.py under root."""
    paths = sorted((root / "engine").rglob("*.py")) + sorted((root / "pages").glob("*.py"))
    if (root / "app.py").is_file():
        paths.append(root / "app.py")
    modules = {}
    for path in paths:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def raw_imports(path):
    """(imported module, line) of every absolute import in the file, as written."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module, node.lineno))
    return found


def engine_imports_of(root, package):
    """Lines 'module imports package, line n' for every engine module importing ``package``."""
    return [f"{name} imports {module}, line {line}" for name, path in source_modules(root).items()
            if name == "engine" or name.startswith("engine.")
            for module, line in raw_imports(path) if module == package or module.startswith(package + ".")]


def imports_of(name, path, known):
    """(imported module, line) of every import in the file, resolved to our module names.

    ``from engine import plotting`` is the module ``engine.plotting``; ``from engine.x import f``
    is ``engine.x``; relative imports are resolved against the module's package.
    """
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((full if full in known else base, node.lineno))
    return [(module, line) for module, line in found if layer_of(module) is not None]


def import_graph(root):
    """{module: [(imported module, line)]} over our modules (imports of other packages dropped)."""
    modules = source_modules(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def upward_imports(graph):
    """Lines 'a (layer i) imports b (layer j > i), line n'."""
    return [f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)}), line {line}"
            for name, targets in graph.items() for target, line in targets
            if layer_of(target) > layer_of(name)]


def import_cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    edges = {name: sorted({t for t, _ in targets if t in graph and t != name}) for name, targets in graph.items()}
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return cycles


# ---------------------------------------------------------------- the repository

def test_every_module_has_a_layer():
    modules = source_modules(ROOT)
    assert {"engine.bench.scale", "engine.reports.reproduce", "engine.experiments.published", "app",
            "pages.benchmark"} <= set(modules)
    assert [m for m in modules if layer_of(m) is None] == []


def test_no_module_imports_from_a_layer_above_it():
    assert upward_imports(import_graph(ROOT)) == []


def test_no_import_cycle_between_modules():
    assert import_cycles(import_graph(ROOT)) == []


def test_no_engine_module_imports_playwright():
    assert engine_imports_of(ROOT, "playwright") == []


# The app's packages, and where in the engine each may be imported (README, "Dependencies").
APP_PACKAGES = {"streamlit": (), "plotly": ("engine.plotting", "engine.reports", "engine.bench"),
                "xgboost": ("engine.experiments.time_to_accuracy", "engine.experiments.peers", "engine.bench")}


def app_package_imports(root):
    """Lines for every engine import of an app package outside the places APP_PACKAGES allows."""
    return [line for package, allowed in APP_PACKAGES.items() for line in engine_imports_of(root, package)
            if not any(line.startswith(prefix + " ") or line.startswith(prefix + ".") for prefix in allowed)]


def test_the_library_never_imports_the_apps_packages():
    """The estimators, data sets and experiments run without streamlit, plotly or xgboost: making
    them an extra is then a pyproject edit, not a refactoring. engine/ never imports streamlit."""
    assert app_package_imports(ROOT) == []


# ---------------------------------------------------------------- the checks catch a planted fault

def _plant(root, files):
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def small_tree(tmp_path):
    _plant(tmp_path, {
        "engine/__init__.py": "",
        "engine/validation.py": "import numpy\n",
        "engine/experiments/__init__.py": "from engine.experiments.runner import run\n",
        "engine/experiments/runner.py": "from engine.validation import check_int\n",
        "engine/plotting/__init__.py": "from engine.experiments import runner\n",
        "pages/home.py": "from engine import plotting\n",
    })
    return tmp_path


def test_a_clean_tree_passes(small_tree):
    graph = import_graph(small_tree)
    assert ("engine.plotting", 1) in graph["pages.home"]
    assert ("engine.experiments.runner", 1) in graph["engine.plotting"]
    assert upward_imports(graph) == []
    assert import_cycles(graph) == []


def test_an_upward_import_is_found_even_inside_a_function(small_tree):
    _plant(small_tree, {"engine/experiments/runner.py": """\
        from engine.validation import check_int


        def run():
            from engine.plotting import figure
            return figure
        """})
    assert upward_imports(import_graph(small_tree)) == [
        "engine.experiments.runner (layer 2) imports engine.plotting (layer 3), line 5"]


def test_a_relative_upward_import_is_found(small_tree):
    _plant(small_tree, {"engine/experiments/runner.py": "from ..plotting import figure\n"})
    assert upward_imports(import_graph(small_tree)) == [
        "engine.experiments.runner (layer 2) imports engine.plotting (layer 3), line 1"]


def test_a_cycle_within_a_layer_is_found(small_tree):
    _plant(small_tree, {"engine/experiments/a.py": "from engine.experiments.b import g\n",
                        "engine/experiments/b.py": "def g():\n    from engine.experiments import a\n"})
    graph = import_graph(small_tree)
    assert upward_imports(graph) == []
    assert import_cycles(graph) == [["engine.experiments.a", "engine.experiments.b"]]


# ---------------------------------------------------------------- the compiled core by concept (issue 30)
#
# One concept per module of engine/_core, and functions a reader can hold in view: no module
# (.pyx, .pxd, .h, .py) over MAX_MODULE_LINES lines, no function over MAX_FUNCTION_LINES, and
# ``boost`` (the loop's one entry point) takes a few typed objects, not dozens of keywords.

CORE = ROOT / "engine" / "_core"
CORE_SUFFIXES = (".pyx", ".pxd", ".h", ".py")
MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80
MAX_BOOST_PARAMETERS = 12

# A function definition: def, or cdef / cpdef followed by a C signature (not a class, struct,
# enum, extern block, type or variable declaration).
_DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kw>def|cdef|cpdef)[ \t]+(?P<rest>.*)$")
_NOT_FUNCTIONS = re.compile(r"^(?:public[ \t]+|readonly[ \t]+)*(?:class|struct|union|enum|extern|"
                            r"ctypedef|fused|packed)\b")


def _code_lines(text):
    """The lines of a source text with the inside of triple-quoted strings blanked, so that a
    docstring's example code is not taken for a definition."""
    out, quote = [], None
    for line in text.splitlines():
        kept, i = [], 0
        while i < len(line):
            if quote is None:
                hits = [(line.find(q, i), q) for q in ('"""', "'''") if line.find(q, i) >= 0]
                hash_at = line.find("#", i)
                if not hits or (0 <= hash_at < min(hits)[0]):
                    kept.append(line[i:])
                    break
                at, quote = min(hits)
                kept.append(line[i:at] + "''")
                i = at + 3
            else:
                end = line.find(quote, i)
                if end < 0:
                    break
                quote, i = None, end + 3
        out.append("".join(kept) if kept or quote is None else "")
    return out


def _signature_end(lines, start):
    """(index of the line that closes the signature begun at ``start``, whether it ends in ':')."""
    depth = 0
    for k in range(start, len(lines)):
        code = lines[k].split("#", 1)[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0:
            return k, code.rstrip().endswith(":")
    return len(lines) - 1, False


def function_lengths(text):
    """[(name, first line, length)] of every function or method with a body in a Cython or
    Python source; a length counts the physical lines from the def / cdef / cpdef line to the
    last non-blank line of the body (comments and docstrings included)."""
    lines = _code_lines(text)
    found = []
    for start, line in enumerate(lines):
        match = _DEF.match(line)
        if match is None:
            continue
        rest = match["rest"]
        if match["kw"] != "def":
            paren, equals = rest.find("("), rest.find("=")
            if _NOT_FUNCTIONS.match(rest) or paren < 0 or 0 <= equals < paren:
                continue
        end, has_body = _signature_end(lines, start)
        if not has_body:
            continue                    # a .pxd declaration or a variable: no body
        indent = len(match["indent"].expandtabs())
        last = end
        for k in range(end + 1, len(lines)):
            if not lines[k].strip():
                continue
            if len(lines[k]) - len(lines[k].lstrip()) <= indent:
                break
            last = k
        name = re.match(r"[^(]*?([A-Za-z_]\w*)[ \t]*\(", rest)
        found.append((name.group(1) if name else rest[:30], start + 1, last - start + 1))
    return found


def c_function_lengths(text):
    """[(name, first line, length)] of every function defined in a C header: from the first line
    of its signature to its closing brace (comments blanked; a struct or an initialiser at file
    scope has no parenthesis before its brace and is not counted)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    found, depth, start, head, directive = [], 0, None, "", False
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        if directive or code.lstrip().startswith("#"):    # a preprocessor line and its continuations
            directive = code.rstrip().endswith("\\")
            continue
        if depth == 0 and start is None:
            if not code.strip():
                head = ""
                continue
            if not head:
                first = number
            head += code + " "
            if "{" in code and "(" in head.split("{", 1)[0] and "=" not in head.split("(", 1)[0]:
                start = first
                name = re.search(r"(\w+)[ \t]*\(", re.sub(r"__attribute__\s*\(\(.*?\)\)", "", head))
            elif ";" in code or "}" in code:
                head = ""
        depth += code.count("{") - code.count("}")
        if start is not None and depth == 0:
            found.append((name.group(1), start, number - start + 1))
            start, head = None, ""
    return found


def core_sources():
    return sorted(p for p in CORE.iterdir() if p.suffix in CORE_SUFFIXES)


def test_no_core_module_is_over_the_line_limit():
    long = {p.name: n for p in core_sources()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"engine/_core modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_core_function_is_over_the_line_limit():
    long = [f"{p.name}:{line} {name} ({n} lines)" for p in core_sources()
            for name, line, n in (c_function_lengths if p.suffix == ".h" else function_lengths)(
                p.read_text(encoding="utf-8"))
            if n > MAX_FUNCTION_LINES]
    assert long == [], f"engine/_core functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_boost_takes_a_few_typed_objects():
    from engine import _core

    parameters = inspect.signature(_core.boost).parameters
    assert len(parameters) <= MAX_BOOST_PARAMETERS, list(parameters)


def test_the_function_parser_measures_cython_and_python_definitions():
    body = "\n".join(f"    x{k} = {k}" for k in range(88))
    text = textwrap.dedent('''\
        """A module docstring that shows code:

        def not_a_function(x):
            return x
        """
        from libc.math cimport exp

        cdef struct Pair:
            double a

        cdef inline double small(double x,
                                 double y) noexcept nogil:
            cdef double* p = <double*> malloc(3 * sizeof(double))
            cdef double z[4]
            return x + y


        cdef double declared(double x) noexcept nogil

        cdef class Holder:
            cdef double value

            cpdef double method(self, double x) except? -1:
                """One line."""

                return x

        ''') + "def huge():\n" + body + "\n\n    return 0\n\n\nx = huge()\n"
    assert function_lengths(text) == [("small", 11, 5), ("method", 23, 4), ("huge", 28, 91)]
    assert [name for name, _, n in function_lengths(text) if n > MAX_FUNCTION_LINES] == ["huge"]


def test_the_c_function_parser_measures_header_functions():
    body = "\n".join(f"    x += {k};" for k in range(85))
    text = ("/* A header. static int fake(void) { */\n#include <math.h>\n"
            "#define TWICE(x) \\\n    ((x) + (x))\n"
            "static const double C[2] = {1.0, 2.0};\n"
            "typedef struct { double a; } pair;\n\n"
            "static inline double\nsmall(double x, double y)\n{\n    return x + y;\n}\n\n"
            "static int huge(int x)\n{\n" + body + "\n    return x;\n}\n")
    assert c_function_lengths(text) == [("small", 8, 5), ("huge", 14, 89)]


# ---------------------------------------------------------------- the size rules everywhere (issue 41)
#
# The floors above the core keep the core's rules: no Python module of engine/ or pages/ over
# MAX_MODULE_LINES lines, no function or method over MAX_FUNCTION_LINES (measured as in the core:
# from the def line to the last line of its body, decorators not counted).

def python_sources(root):
    """Every Python module of engine/ (the core's .py files included) and pages/."""
    return sorted((root / "engine").rglob("*.py")) + sorted((root / "pages").rglob("*.py"))


def long_modules(root):
    """{path relative to root: lines} of the Python modules over MAX_MODULE_LINES."""
    return {str(p.relative_to(root)): n for p in python_sources(root)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}


def long_functions(root):
    """['path:line name (n lines)'] of the Python functions over MAX_FUNCTION_LINES."""
    return [f"{p.relative_to(root)}:{line} {name} ({n} lines)" for p in python_sources(root)
            for name, line, n in function_lengths(p.read_text(encoding="utf-8")) if n > MAX_FUNCTION_LINES]


def test_no_engine_or_page_module_is_over_the_line_limit():
    assert long_modules(ROOT) == {}, f"modules over {MAX_MODULE_LINES} lines"


def test_no_engine_or_page_function_is_over_the_line_limit():
    assert long_functions(ROOT) == [], f"functions over {MAX_FUNCTION_LINES} lines"


def test_a_long_module_and_a_long_function_are_found(small_tree):
    body = "\n".join(f"    x{k} = {k}" for k in range(MAX_FUNCTION_LINES))
    _plant(small_tree, {"engine/experiments/runner.py": "@decorated\ndef run():\n" + body + "\n",
                        "pages/home.py": "x = 1\n" * (MAX_MODULE_LINES + 1)})
    assert long_modules(small_tree) == {"pages/home.py": MAX_MODULE_LINES + 1}
    assert long_functions(small_tree) == [f"engine/experiments/runner.py:2 run ({MAX_FUNCTION_LINES + 1} lines)"]
    _plant(small_tree, {"engine/experiments/runner.py": "def run():\n" + body[:body.rfind("\n")] + "\n",
                        "pages/home.py": "x = 1\n" * MAX_MODULE_LINES})
    assert long_modules(small_tree) == {} and long_functions(small_tree) == []


# ---------------------------------------------------------------- one best-first loop (issue 30)

FRONTIER_CALL = re.compile(r"\b(frontier_pop|frontier_push|leaves_append)\s*\(")


def frontier_callers(core):
    """{file name: [line]} of the compiled-core sources that call the frontier's functions
    (frontier.pxd: pop, push, append a leaf), their definitions and comments left out."""
    found = {}
    for path in sorted(core.iterdir()):
        if path.suffix not in (".pyx", ".pxd", ".pxi", ".h"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if FRONTIER_CALL.search(code) and not re.match(r"\s*cdef\b", code):
                found.setdefault(path.name, []).append(number)
    return found


def test_the_best_first_loop_is_written_once():
    # Only the skeleton (Grower.grow and its helpers) pops, pushes or appends: a grower that
    # grew its own loop again would have to call them.
    assert list(frontier_callers(ROOT / "engine" / "_core")) == ["grower_base.pyx"]


def test_a_second_best_first_loop_is_found(tmp_path):
    _plant(tmp_path, {
        "frontier.pxd": """\
            cdef inline NodeRecord frontier_pop(NodeRecord* heap, intp_t* size) noexcept nogil:
                # frontier_pop(...) in a comment is no call
                return heap[0]
            """,
        "grower_base.pyx": "        parent = frontier_pop(self.frontier, &self.frontier_size)\n",
        "grower.pyx": "# no loop here\n",
    })
    assert frontier_callers(tmp_path) == {"grower_base.pyx": [1]}
    _plant(tmp_path, {"hist_grower.pyx": "    while n > 0:\n        rec = frontier_pop (self.frontier, &n)\n"})
    assert frontier_callers(tmp_path) == {"grower_base.pyx": [1], "hist_grower.pyx": [2]}


def test_an_app_package_in_the_library_is_found(small_tree):
    _plant(small_tree, {"engine/validation.py": "import plotly.graph_objects as go\n",
                        "engine/plotting/figures.py": "import plotly\n",
                        "engine/app/jobs.py": "def f():\n    import streamlit\n"})
    assert sorted(app_package_imports(small_tree)) == ["engine.app.jobs imports streamlit, line 2",
                                                       "engine.validation imports plotly.graph_objects, line 1"]


def test_an_engine_import_of_playwright_is_found(small_tree):
    _plant(small_tree, {"engine/bench/load.py": "def run():\n    from playwright.async_api import async_playwright\n",
                        "pages/browse.py": "import playwright\n"})
    assert engine_imports_of(small_tree, "playwright") == ["engine.bench.load imports playwright.async_api, line 2"]
