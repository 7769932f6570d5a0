"""engine.bench.step_breakdown (``--step-breakdown``) at toy size: the compiled core's phase timers
and the breakdown's bookkeeping. No speed is asserted (the numbers go to engine/bench/RESULTS.md)."""
import json

import numpy as np
import pytest

from engine._core import algorithms as core_steps
from engine.bench import step_breakdown
from engine.bench.__main__ import main
from engine.estimators.registry import make_estimator
from engine.app.page_content.step_costs import step_cost_sentence


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 6))
    Y = (X @ rng.normal(size=(6, 30)) + rng.normal(size=(300, 30))) > 0
    return X, Y


def _fit(X, Y, name, **kw):
    return make_estimator(name, task="multilabel", n_estimators=8, n_jobs=1, random_state=0,
                          **kw).fit(X, Y)


@pytest.mark.parametrize("name, kw", [("gbmort", {}),
                                      ("gbrt-rpo-gaussian", {}),
                                      ("gbrt-relabel-rpo-sparse", dict(n_projections=5)),
                                      ("gbrt-relabel-rpo-gaussian", dict(n_projections=5,
                                                                         leaf_estimation="newton"))])
def test_phases_split_the_training_time(labels, name, kw):
    """Every phase is timed inside a step on one thread: their CPU seconds add up to more than
    nothing and to at most the steps' wall time."""
    X, Y = labels
    core_steps.time_phases(True)
    try:
        model = _fit(X, Y, name, **kw)
        seconds = core_steps.phase_seconds()
    finally:
        core_steps.time_phases(False)
    assert list(seconds) == list(core_steps.PHASE_NAMES)
    assert all(v >= 0 for v in seconds.values())
    assert 0 < sum(seconds.values()) <= model.fit_times_[-1]
    assert seconds["tree"] > 0 and seconds["update and gradient"] > 0


def test_timers_off_add_nothing_and_on_resets(labels):
    X, Y = labels
    core_steps.time_phases(True)
    _fit(X, Y, "gbmort")
    core_steps.time_phases(False)        # resets, then stays off
    _fit(X, Y, "gbmort")
    assert sum(core_steps.phase_seconds().values()) == 0.0


def test_breakdown_rows_and_figure6_ratio(labels):
    X, Y = labels
    settings = step_breakdown.SETTINGS[:3]
    rows = step_breakdown.breakdown(X, Y, steps=3, repeats=1, settings=settings)
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("gbmort", 1, "mean"), ("gbmort", 1, "newton"),
        ("gbrt-relabel-rpo-gaussian", 1, "mean"), ("gbrt-relabel-rpo-gaussian", 1, "newton"),
        ("gbrt-relabel-rpo-gaussian", 20, "mean"), ("gbrt-relabel-rpo-gaussian", 20, "newton")]
    for _, _, _, ms, phases, wall in rows:
        assert ms == pytest.approx(sum(phases.values())) and 0 < ms <= wall * (1 + 1e-9)
    fits, ratio = step_breakdown.figure6_time(X[:200], Y[:200], X[200:], Y[200:], steps=5)
    (t_mort, lrap_mort, _), (t_rpo, lrap_rpo, _) = fits.values()
    assert list(fits) == ["gbmort", "gbrt-relabel-rpo-gaussian"]
    assert ratio == pytest.approx(t_mort / t_rpo) and 0 < lrap_mort <= 1 and 0 < lrap_rpo <= 1


@pytest.mark.slow
def test_command_line_quick_run_writes_what_the_page_reads(tmp_path, capsys):
    assert main(["--step-breakdown", "--quick", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "delicious: n = 1000 training rows, d = 100 labels" in text
    assert "Figure 6 at 10 steps, mean leaves" in text
    result = json.loads((tmp_path / "step_breakdown_delicious.json").read_text())
    assert (result["n"], result["d"], len(result["rows"])) == (1000, 100, 12)
    assert "q = 20 Gaussian projections" in step_cost_sentence(result)


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        main(["--step-breakdown", "--steps", "0"])
    with pytest.raises(SystemExit):
        main(["--step-breakdown", "--scale"])
