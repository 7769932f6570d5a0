"""The layout's two rules, read from the source with ``ast``: imports only go down the layers,
and no engine or page module imports itself back through others (no import cycle).

The layers, bottom to top (a module may import from its own layer or any below it):

0. ``engine._core`` (compiled) and ``engine._build`` (the build backend);
1. ``engine.estimators``, ``engine.datasets`` and the shared base modules ``engine.names``,
   ``engine.projections``, ``engine.metrics``, ``engine.validation`` (and ``engine`` itself,
   whose ``__init__`` re-exports the estimators);
2. ``engine.experiments``: computes, draws nothing;
3. ``engine.plotting``: draws the experiments' results;
4. ``engine.reports`` and the command line ``engine.__main__``: write files;
5. what the pages need that is not UI: ``engine.serving`` (runs served to many sessions: jobs,
   the run store, memory), ``engine.page_content`` (presets, challenges, takeaways, defaults) and
   ``engine.page_models`` (the state a page steps and draws);
6. ``engine.bench``: the benchmarks, which also time the page models as a page uses them (the
   One step page's interactions, the cost pages' default views);
7. the pages (``pages``) and ``app.py``.

Every import counts, also one inside a function: a lazy import still ties the layers.

And the engine never imports a test-only package: Playwright (a test extra) drives Chromium for the
browser tests and the class load tool, both under ``tests/``.
"""
import ast
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS = (
    ("engine._core", 0), ("engine._build", 0),
    ("engine.estimators", 1), ("engine.datasets", 1), ("engine.names", 1), ("engine.projections", 1),
    ("engine.metrics", 1), ("engine.validation", 1),
    ("engine.experiments", 2),
    ("engine.plotting", 3),
    ("engine.reports", 4), ("engine.__main__", 4),
    ("engine.serving", 5), ("engine.page_content", 5), ("engine.page_models", 5),
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


def test_an_engine_import_of_playwright_is_found(small_tree):
    _plant(small_tree, {"engine/bench/load.py": "def run():\n    from playwright.async_api import async_playwright\n",
                        "pages/browse.py": "import playwright\n"})
    assert engine_imports_of(small_tree, "playwright") == ["engine.bench.load imports playwright.async_api, line 2"]
