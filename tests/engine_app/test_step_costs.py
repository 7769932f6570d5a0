"""The Projections page's sentence on where a step's time goes (engine/app/page_content/step_costs.py):
computed from a step breakdown, so it flips with the numbers."""
import pytest

from engine.app.page_content.step_costs import (MEASURED, measured_step_breakdown,
                                            step_cost_sentence)

PHASES = ("split targets", "tree", "leaves", "rho", "update and gradient")


def _breakdown(mort_ms, rpo_ms, mort_tree, rpo_tree, shared, projection):
    def row(method, q, ms, tree, proj):
        rest = ms - tree - proj
        phases = dict(zip(PHASES, (proj, tree, 0.0, rest / 3, 2 * rest / 3)))
        return {"method": method, "q": q, "leaves": "mean", "ms": ms, "phases": phases}
    rows = [row("gbmort", 1, mort_ms, mort_tree, 0.0),
            row("gbrt-relabel-rpo-gaussian", 20, rpo_ms, rpo_tree, projection)]
    rows[1]["phases"]["rho"], rows[1]["phases"]["update and gradient"] = shared / 4, 3 * shared / 4
    return {"dataset": "delicious", "n": 12920, "d": 983, "rows": rows}


def test_sentence_says_the_measured_numbers_and_the_verdict():
    slow = step_cost_sentence(_breakdown(320.0, 200.0, 125.0, 6.0, 180.0, 14.0))
    assert "takes 200 ms against gbmort's 320 ms: 1.6× faster, not the paper's 7×" in slow
    assert "costs 6 ms instead of 125 ms (21× less)" in slow
    assert "line searches over all 983 outputs (180 ms)" in slow
    assert "projection adds 14 ms" in slow
    fast = step_cost_sentence(_breakdown(700.0, 100.0, 650.0, 10.0, 80.0, 5.0))
    assert "7.0× faster, as the paper's" in fast


def test_newton_leaves_have_no_line_search():
    b = _breakdown(320.0, 200.0, 125.0, 6.0, 180.0, 14.0)
    for row in b["rows"]:
        row["leaves"] = "newton"
    text = step_cost_sentence(b, leaves="newton")
    assert "line search" not in text and "the gradient and loss over all 983" in text


def test_refuses_what_it_cannot_describe():
    b = _breakdown(320.0, 200.0, 125.0, 6.0, 180.0, 14.0)
    with pytest.raises(ValueError, match="q = 5"):
        step_cost_sentence(b, q=5)
    with pytest.raises(ValueError, match="leaves"):
        step_cost_sentence(b, leaves="median")
    b["rows"][1]["ms"] = 0.0
    with pytest.raises(ValueError, match="positive"):
        step_cost_sentence(b)


def test_the_shipped_measurement_gives_both_sentences():
    measured = measured_step_breakdown()
    assert MEASURED.exists() and measured["d"] == 983 and measured["n"] == 12920
    for leaves in ("mean", "newton"):
        text = step_cost_sentence(measured, leaves=leaves)
        rpo = next(r for r in measured["rows"]
                   if r["method"] == "gbrt-relabel-rpo-gaussian" and r["q"] == 20
                   and r["leaves"] == leaves)
        assert f"takes {rpo['ms']:.0f} ms" in text
