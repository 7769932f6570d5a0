"""The README's promises a newcomer acts on: its two set-up commands, the test command CI runs,
and every repository path it (and the RESULTS.md files it links) names."""
import importlib
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README, ROOT / "engine" / "experiments" / "RESULTS.md", ROOT / "engine" / "bench" / "RESULTS.md"]
# A repository path: starts at one of the repository's top-level entries.
PATH = re.compile(r"(?<![\w./-])((?:engine|pages|tests|sample_data|\.github|\.ci)/[\w./<>-]*[\w/]|app\.py|pyproject\.toml)")
MODULE = re.compile(r"`(engine(?:\.\w+)+)")


def readme_test_command():
    """The lines between the test-command markers, without the markers and the code fence
    (what ``.ci/run`` does with sed and grep)."""
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- test-command -->", 1)[1].split("<!-- /test-command -->", 1)[0]
    return "\n".join(line for line in block.strip().splitlines() if not line.startswith("```"))


def test_the_test_command_is_the_one_ci_reads():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extraction = next(line for line in script.splitlines() if line.startswith("command=$("))
    ci_command = subprocess.run(["bash", "-c", f"{extraction} && printf %s \"$command\""], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    assert ci_command == readme_test_command()
    assert 'bash -euo pipefail -c "$command"' in script       # and CI runs what it read


def test_the_test_command_installs_and_runs_what_exists():
    command = readme_test_command()
    assert command.startswith('python -m pip install -e ".[test,bench]"') and command.endswith("python -m pytest")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for extra in ("test", "bench"):
        assert re.search(rf"^{extra} = \[", pyproject, re.M), extra
    for script in re.findall(r"sh (\S+\.sh)", command):
        assert (ROOT / script).is_file(), script


def test_the_app_command_and_the_no_recompile_advice():
    text = README.read_text(encoding="utf-8")
    assert "```\npython -m pip install -e . && streamlit run app.py\n```" in text
    assert "After the first install, `streamlit run app.py` is enough" in text
    assert (ROOT / "app.py").is_file()


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_named_exists(document):
    text = document.read_text(encoding="utf-8")
    paths = sorted(set(PATH.findall(text)))
    assert paths, "no path found: the pattern is wrong"
    missing = [p for p in paths if "<" not in p and not (ROOT / p).exists()]
    assert missing == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_engine_name_named_exists(document):
    """`engine.x.y` in backquotes: a module, or a name in one."""
    missing = []
    for name in sorted(set(MODULE.findall(document.read_text(encoding="utf-8")))):
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                obj = getattr(obj, attr, None)
            break
        if obj is None:
            missing.append(name)
    assert missing == []


def test_the_readme_stays_short_and_links_the_results():
    text = README.read_text(encoding="utf-8")
    # 15 500 until the command list gave times (issue 45), 16 000 until the ranking example (issue 44)
    assert len(text.encode("utf-8")) <= 16_600
    assert "(engine/experiments/RESULTS.md)" in text and "(engine/bench/RESULTS.md)" in text
    for document in DOCUMENTS[1:]:
        head = document.read_text(encoding="utf-8")[:1500]
        assert "python -m engine" in head and "2-core" in head and "2026-" in head   # command, machine, date


@pytest.mark.slow
def test_the_python_examples_run_and_say_what_they_print():
    """Every ```python block of the README runs; a trailing ``# 0.83`` comment is its value."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        *body, last = block.strip().splitlines()
        namespace = {}
        exec("\n".join(body), namespace)                    # noqa: S102 - the README's own code
        expression, _, comment = last.partition("#")
        value = eval(expression, namespace)                 # noqa: S307
        number = re.match(r"\s*(\d+\.\d+)", comment)
        if number:
            assert round(float(value), 2) == float(number.group(1))

