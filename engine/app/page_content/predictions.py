"""Predict, then reveal: questions a page asks before it draws a chart's answer (no streamlit).

Each :class:`Question` has a text, its choices (fixed, or read from the page's settings, such as
the methods chosen) and ``answer(result)``: the right choice computed from the result the chart
draws, or None when that result cannot answer it (a run without the method asked about). The
page keeps the student's choice and shows it next to this answer (pages/_predict.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from engine.app.page_content.challenges import evaluate

__all__ = ["Question", "QUESTIONS", "NONE_REACHES", "REACH_SCORE", "question", "first_to_reach",
           "smallest_q_faster", "flattest_cost", "challenge_met"]

REACH_SCORE = 0.5        # the test macro-r2 of the Convergence question (Figure 1 curves end near 0.6)
NONE_REACHES = "none of them"
YES, NO = "yes", "no"


@dataclass(frozen=True)
class Question:
    key: str
    text: str
    answer: Callable            # answer(result) -> one of the choices, or None
    choices: tuple = ()         # () : the page passes them (the methods of its run)


def first_to_reach(result, score=REACH_SCORE):
    """The method whose test score first reaches ``score``, counted in trees per output (the
    Convergence chart's x axis; ties go to the method listed first), else NONE_REACHES."""
    curves = getattr(result, "curves", None)
    if not curves:
        return None
    when = {}
    for name, c in curves.items():
        hit = np.flatnonzero(np.asarray(c.test_score) >= score)
        if hit.size:
            when[name] = float(np.asarray(c.trees_per_output)[hit[0]])
    return min(when, key=when.get) if when else NONE_REACHES


def smallest_q_faster(result):
    """Whether gbrt-relabel-rpo with the smallest q fits faster than gbmort (Projections, q sweep)."""
    q = getattr(result, "q_values", None)
    if q is None or len(q) == 0 or not np.isfinite(result.gbmort_fit_time):
        return None
    t = float(np.asarray(result.fit_time)[int(np.argmin(q))])
    return None if not np.isfinite(t) else (YES if t < result.gbmort_fit_time else NO)


def flattest_cost(result):
    """The method whose seconds per step grow most slowly with d (smallest fitted log–log slope)."""
    slopes = {k: v for k, v in result.slopes().items() if np.isfinite(v)}
    return min(slopes, key=slopes.get) if slopes else None


def challenge_met(key):
    """The answer of a challenge's question: whether ``result`` meets challenge ``key``."""
    def answer(result):
        return None if result is None else (YES if evaluate(key, result)[0] else NO)
    return answer


QUESTIONS = {q.key: q for q in (
    Question("first", f"Which method will first reach a test macro-r2 of {REACH_SCORE} (counting trees per output)?",
             first_to_reach),
    Question("q_faster", "Will the smallest q fit faster than gbmort here?", smallest_q_faster, (YES, NO)),
    Question("flattest", "Which method's seconds per step will grow most slowly with d (smallest slope)?",
             flattest_cost),
)}


def question(key: str) -> Question:
    """The question ``key``; ``challenge:<key>`` asks whether the run meets that challenge."""
    if isinstance(key, str) and key.startswith("challenge:"):
        c = key.split(":", 1)[1]
        evaluate(c, None)   # ValueError naming the challenge when it does not exist
        return Question(key, "Will this run meet the challenge?", challenge_met(c), (YES, NO))
    if key not in QUESTIONS:
        raise ValueError(f"question must be one of {tuple(QUESTIONS)} or 'challenge:<key>', got {key!r}")
    return QUESTIONS[key]
