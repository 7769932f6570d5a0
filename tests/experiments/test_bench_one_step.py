"""The teaching-interactions benchmark (engine/bench/one_step.py) runs and reports every interaction."""

import io

import pytest

from engine.bench import one_step
from engine.bench.__main__ import main
from engine.app.page_models.one_step import METHODS


@pytest.mark.slow
def test_interactions_table_covers_every_method_and_interaction():
    out = io.StringIO()
    rows, ok = one_step.run(repeats=1, out=out)
    seen = {(p, m, what) for p, m, what, _ in rows}
    for problem in one_step.PROBLEMS:
        for method in METHODS:
            for what in ("first view", "Step", "Back", "shared link at step 50"):
                assert (problem, method, what) in seen
    for name in one_step.DRAWS:
        assert ("friedman1-group n=300", name, "Draw 1") in seen
    assert all(seconds > 0 for *_, seconds in rows)
    assert "slowest:" in out.getvalue() and ok == (max(s for *_, s in rows) <= one_step.TARGET_SECONDS)


@pytest.mark.slow
def test_command_line_flag_runs_it(capsys):
    assert main(["--interactions", "--repeats", "1"]) in (0, 1)
    assert "Teaching interactions" in capsys.readouterr().out
