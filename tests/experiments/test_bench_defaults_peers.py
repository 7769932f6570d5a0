"""The defaults against XGBoost and LightGBM on every shipped set (engine.bench.defaults_peers)
and the cached cells (engine.bench.peer_cells): bookkeeping only, with stand-in fits; the real
numbers are in engine/bench/RESULTS.md."""
import json

import pytest

from engine.bench import defaults_peers as dp
from engine.bench import peer_cells as pc


def _fits(calls, scores):
    def fit(system):
        def run(problem):
            calls.append((problem.name, system))
            return {"score": scores[system], "rounds": 1}
        return run
    return {system: fit(system) for system in dp.SYSTEMS}


@pytest.mark.slow
def test_cells_are_fitted_once_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(pc, "MIN_CPU_SECONDS", 0.0)       # one fit per cell here
    calls = []
    fits = _fits(calls, {"engine": 0.80, "XGBoost": 0.79, "LightGBM": 0.78})
    cells = dp.run_cells(["emotions", "enb"], fits=fits, root=tmp_path)
    assert calls == [(n, s) for n in ("enb", "emotions") for s in dp.SYSTEMS]      # cheapest first
    assert cells["emotions", "engine"]["score"] == 0.80 and cells["enb", "XGBoost"]["cpu_seconds"] >= 0
    again = dp.run_cells(["emotions", "enb"], fits=fits, root=tmp_path)
    assert len(calls) == 6 and again == cells                # nothing fitted twice
    # a change of the engine's defaults is another key: measured again
    monkeypatch.setattr(dp, "cell_key", lambda system, task: "other" if system == "engine" else "same")
    dp.run_cells(["emotions"], fits=fits, root=tmp_path)
    assert calls[6:] == [("emotions", "engine"), ("emotions", "XGBoost"), ("emotions", "LightGBM")]


def test_a_cell_is_written_atomically_and_a_broken_one_is_recomputed(tmp_path):
    path = pc.cell_path("XGBoost", "emotions", "1.0", tmp_path)
    pc.write_cell(path, {"score": 1.0})
    assert json.loads(path.read_text()) == {"score": 1.0} and not list(path.parent.glob("*.tmp"))
    path.write_text("{half")
    assert pc.cached(path, lambda: {"score": 2.0}) == {"score": 2.0}


@pytest.mark.parametrize("engine, peer, expected", [
    ({"score": 0.600, "cpu_seconds": 5.0}, {"score": 0.604, "cpu_seconds": 10.0}, True),
    ({"score": 0.598, "cpu_seconds": 5.0}, {"score": 0.604, "cpu_seconds": 10.0}, False),   # score
    ({"score": 0.700, "cpu_seconds": 5.1}, {"score": 0.604, "cpu_seconds": 10.0}, False),   # time
    ({"score": 0.700, "cpu_seconds": 1.0}, {"score": 0.604, "cpu_seconds": 10.0, "stopped": True}, None),
    (None, {"score": 0.6, "cpu_seconds": 1.0}, None),
])
def test_the_target(engine, peer, expected):
    assert dp.met(engine, peer) is expected


def test_the_table_counts_the_sets_met():
    cell = lambda score, seconds: {"score": score, "cpu_seconds": seconds}   # noqa: E731
    cells = {("a", "engine"): cell(0.9, 1.0), ("a", "XGBoost"): cell(0.9, 3.0), ("a", "LightGBM"): None,
             ("b", "engine"): cell(0.5, 1.0), ("b", "XGBoost"): cell(0.9, 3.0), ("b", "LightGBM"): None}
    text, count = dp.table(cells, ["a", "b"])
    assert count == 1 and "**1 of 2** sets (2 decided)" in text
    rows = [line for line in text.splitlines() if line.startswith("| a ") or line.startswith("| b ")]
    assert rows[0].endswith("| yes |") and rows[1].endswith("| **no** |") and "-0.4000" in rows[1]


def test_a_resumed_catboost_fit_counts_each_iteration_once(tmp_path):
    """Run 1 reached iteration 3 and was stopped; its snapshot kept iteration 2; run 2 redid 3 and
    went on: each iteration's CPU time is the last run's."""
    log = tmp_path / "iterations.jsonl"
    lines = [("r1", 1, 5.0), ("r1", 2, 1.0), ("r1", 3, 1.0), ("r2", 3, 4.0), ("r2", 4, 1.0)]
    log.write_text("".join(json.dumps({"run": r, "it": i, "cpu": c}) + "\n" for r, i, c in lines))
    assert pc.resumed_cpu_seconds(log) == (11.0, 2)


def test_catboost_rows_say_what_is_not_fitted(tmp_path):
    pc.write_cell(pc.cell_path("CatBoost-full", "bibtex", root=tmp_path),
                  {"score": 0.5, "cpu_seconds": 9000.0, "rounds": 1000, "resumed_runs": 2})
    text = dp.catboost_rows(("bibtex", "corel5k"), root=tmp_path)
    assert "| bibtex | — | 0.5000 (9000.0 s) | 1000 | 2 | undecided |" in text
    assert "| corel5k | — | not fitted" in text


def test_a_short_fit_is_repeated_and_its_median_kept():
    calls = []
    cell = pc.timed(lambda: calls.append(1) or {"score": 0.5}, min_cpu=0.05, max_repeats=4)
    assert cell["repeats"] == len(calls) == 4 and cell["score"] == 0.5    # too short: every repeat
    calls.clear()
    busy = lambda: calls.append(sum(range(200_000))) or {"score": 0.5}   # noqa: E731
    cell = pc.timed(busy, min_cpu=0.0, max_repeats=4)
    assert cell["repeats"] == len(calls) == 1 and cell["cpu_seconds"] > 0
