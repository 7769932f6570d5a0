"""Where a boosting step's time goes, in one sentence: why Figure 6's 7x does or does not appear.

Paper 002 (Figure 6, delicious) says gbrt-relabel-rpo with q = 20 computes about 7 times
faster than gbmort. A projection only shrinks the split search (q columns instead of d); the
gradient and loss over the n x d scores, the line searches and the projection itself are paid
by every step. The sentence is computed from a step breakdown measured by
``python -m engine.bench --step-breakdown --out DIR`` (the compiled core's phase timers), as
a dict: ``{"dataset", "n", "d", "rows": [{"method", "q", "leaves", "ms", "phases"}], ...}``;
``MEASURED`` is the one shipped with the engine (machine, date and load inside), which a page
can show without running anything.
"""
from __future__ import annotations

import json
from pathlib import Path

from engine.names import LEAF_ESTIMATIONS, MULTI_OUTPUT, PROJECTED_RELABEL, boosting_name

__all__ = ["MEASURED", "PAPER_RATIO", "measured_step_breakdown", "step_cost_sentence"]

MEASURED = Path(__file__).with_name("step_breakdown_delicious.json")
PAPER_RATIO = 7.0           # Figure 6: "computing times reduced by a factor 7 at q = 20"
REFERENCE = boosting_name(MULTI_OUTPUT)                    # gbmort
PROJECTED = boosting_name(PROJECTED_RELABEL, "gaussian")    # gbrt-relabel-rpo-gaussian


def measured_step_breakdown(path=MEASURED) -> dict:
    """The shipped step breakdown (or the one at ``path``)."""
    return json.loads(Path(path).read_text())


def _row(breakdown, method, q, leaves):
    for row in breakdown.get("rows", ()):
        if row["method"] == method and row["q"] == q and row["leaves"] == leaves:
            return row
    raise ValueError(f"breakdown has no row for {method} with q = {q} and {leaves} leaves")


def step_cost_sentence(breakdown: dict, q: int = 20, leaves: str = "mean") -> str:
    """Markdown: a q-projection relabel step against a gbmort step, and where the time goes."""
    if leaves not in LEAF_ESTIMATIONS:
        raise ValueError(f"leaves must be one of {LEAF_ESTIMATIONS}, got {leaves!r}")
    ref, rpo = _row(breakdown, REFERENCE, 1, leaves), _row(breakdown, PROJECTED, q, leaves)
    if not (ref["ms"] > 0 and rpo["ms"] > 0):
        raise ValueError("breakdown: step times must be positive")
    ratio = ref["ms"] / rpo["ms"]
    shared = rpo["phases"]["update and gradient"] + rpo["phases"]["rho"]
    paid = "the gradient and loss" + (" and the line searches" if leaves == "mean" else "")
    verdict = ("as the paper's" if ratio >= 0.8 * PAPER_RATIO
               else f"not the paper's {PAPER_RATIO:.0f}×")
    return (f"On {breakdown.get('dataset', 'this data set')} (n = {breakdown['n']:,}, "
            f"d = {breakdown['d']:,}, {leaves} leaves, one thread), a gbrt-relabel-rpo step with "
            f"q = {q} Gaussian projections takes {rpo['ms']:.0f} ms against gbmort's "
            f"{ref['ms']:.0f} ms: {ratio:.1f}× faster, {verdict}. Its tree costs "
            f"{rpo['phases']['tree']:.0f} ms instead of {ref['phases']['tree']:.0f} ms "
            f"({ref['phases']['tree'] / max(rpo['phases']['tree'], 1e-9):.0f}× less), but "
            f"{paid} over all {breakdown['d']:,} outputs ({shared:.0f} ms) are paid by every "
            f"step, and the projection adds {rpo['phases']['split targets']:.0f} ms.")
