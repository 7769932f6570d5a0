"""What a reproduction will cost and what ``--quick`` leaves out, said before it starts.

A user who types ``python -m engine reproduce TARGET`` should know whether to wait, go for a coffee
or leave it overnight, and a ``--quick`` result must not pass for the paper's: :func:`expected_text`
gives both in one line. The times are wall-clock on the 2-core machine this project is developed
on (AMD EPYC, 2026-12-02), measured with every core in use and the machine shared (load 6 to 20):
upper bounds there; an idle machine is faster. Where a size was not measured the text says so.
"""
from __future__ import annotations

__all__ = ["QUICK_CUTS", "QUICK_LEFT_OUT", "EXPECTED_SECONDS", "expected_text", "duration_text"]

# The real-data study's wide (or long) sets: most of a quick run's time, so --quick leaves them
# out unless --datasets names them. Quick estimates (one core, engine.app.page_models.cost):
# delicious 2 960 s, bibtex 330 s, corel5k 270 s, scm20d 220 s; the other twelve 290 s together.
QUICK_LEFT_OUT = ("delicious", "bibtex", "corel5k", "scm20d")

_DELICIOUS_SLICE = "delicious: a 1 000 + 500-row, 100-label slice (the paper: 12 920 + 3 185 rows, 983 labels)"
_PROTOCOL = ("the grid: learning rate {0.5, 0.1} x {2, 4} leaves, k = p, square loss, 100 steps "
             "(the paper: 490 settings, both losses, 10 000 steps)")
QUICK_CUTS = {
    "figure1": "200 steps (the paper: 10 000), 1 000 test samples (4 000)",
    "schemes": f"{_DELICIOUS_SLICE}, 40 steps; friedman1-ind: 300 steps (10 000), 1 000 test samples (4 000)",
    "projection-size": f"{_DELICIOUS_SLICE}, 20-40 steps, q in {{1, 20, 50}}; friedman1-group: q in {{1, 4, 16}} "
                       "(to 64), 100 steps (1 000)",
    "table4": _PROTOCOL,
    "table6": _PROTOCOL,
    "bias-variance": "8 learning sets (the thesis: 100), 500 test samples (2 000), up to 200 steps (2 000), "
                     "3 seeds (5)",
    "forest-table1": "emotions and yeast only (the paper: 6 sets), 10 trees (100), one repeat (3)",
    "compression": "2 runs (the thesis: 50), the sweeps: 1 run, 5-fold CV (10), 3 values each (6)",
    "real-data": "2 splits (the paper: 5), 4 settings (490), 10-tree forests (100), BOOMER with at most 50 "
                 "rules; " + ", ".join(QUICK_LEFT_OUT) + " left out unless named with --datasets",
    "forest-projection-size": f"{_DELICIOUS_SLICE}, 5 trees (the thesis: 100), one repeat (10), 4 values of q (11)",
    "forest-randomization": f"{_DELICIOUS_SLICE}, 5 trees (the thesis: 100), one repeat (10), 3 values of k (7)",
    "forest-schemes": f"{_DELICIOUS_SLICE}, 5 trees (the thesis: 100), one repeat (10), 3 values of q (10)",
}

# (target, size) -> seconds, measured as the module doc says (None: not measured here).
EXPECTED_SECONDS = {
    ("figure1", "quick"): 34, ("projection-size", "quick"): 31, ("schemes", "quick"): 12,
    ("table4", "quick"): 40, ("table6", "quick"): 61, ("bias-variance", "quick"): 28,
    ("forest-table1", "quick"): 10, ("compression", "quick"): 77, ("real-data", "quick"): None,
    ("forest-projection-size", "quick"): 50, ("forest-randomization", "quick"): 43, ("forest-schemes", "quick"): 93,
    # engine/experiments/RESULTS.md
    ("table4", "moderate"): 15.5 * 60, ("forest-randomization", "moderate"): 7.5 * 60,
    ("forest-schemes", "moderate"): 7.5 * 60, ("forest-projection-size", "moderate"): 70 * 60,
    ("compression", "full"): 24.5 * 60,
}


def duration_text(seconds):
    """Seconds as a person reads them: '45 s', '16 min', '2.5 h'."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min" if seconds < 7200 else \
        f"{seconds / 3600:.1f} h"


def expected_text(target, size, datasets=None):
    """One line for stderr before a run: its expected time on the reference machine, and for
    ``--quick`` what it leaves out. ``size``: "quick", "moderate" or "full" ("paper")."""
    size = "full" if size == "paper" else size
    seconds = EXPECTED_SECONDS.get((target, size))
    if seconds is not None and not (target == "real-data" and datasets):
        when = f"about {duration_text(seconds)} on a shared 2-core machine (less when idle)"
    elif size == "full":
        when = "hours: the papers' settings (not measured here; the progress line says the time left)"
    else:
        when = "not measured here (the progress line says the time left)"
    if target == "real-data" and size == "quick" and not datasets:
        when = "about 2 min on 2 idle cores (185 CPU s measured; far longer on a loaded machine)"
    text = f"expected: {when}"
    if size == "quick":
        text += f"\n--quick: {QUICK_CUTS[target]}"
    return text
