"""The answers of the Predict first questions (engine/app/page_content/predictions.py) on real small results,
each against a plain recomputation from the result's arrays."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engine.experiments import BoostingSettings, Problem, run_convergence, run_projection_size
from engine.experiments.cost_vs_outputs import load_shipped
from engine.app.page_content import predictions as pr
from engine.app.page_content.challenges import CHALLENGES, evaluate
from curve_calls import run_curves, run_schemes


@pytest.fixture(scope="module")
def chain():
    return run_curves("friedman1-chain", ["st-gbrt", "gbmort", "gbrt-rpo-gaussian"], n_steps=80,
                           learning_rate=0.3, n_test=300, seed=1)


def test_first_to_reach_is_the_earliest_crossing_in_trees_per_output(chain):
    for score in (0.2, 0.4, 0.5):
        crossings = {}
        for name, c in chain.curves.items():
            for x, s in zip(c.trees_per_output, c.test_score):
                if s >= score:
                    crossings[name] = x
                    break
        assert crossings, f"no method reached {score}: the test needs a result that answers"
        assert pr.first_to_reach(chain, score) == min(crossings, key=crossings.get)
    best = max(c.best_score for c in chain.curves.values())
    assert pr.first_to_reach(chain, best + 0.01) == pr.NONE_REACHES
    assert pr.first_to_reach(None) is None


def test_smallest_q_faster_compares_its_fit_time_with_gbmort():
    res = run_projection_size(Problem("friedman1-chain", n_test=200), BoostingSettings(20), q_values=[4, 1, 2],
                              seed=0, train_curve=False)
    t1 = float(res.fit_time[list(res.q_values).index(1)])
    assert pr.smallest_q_faster(res) == ("yes" if t1 < res.gbmort_fit_time else "no")
    slower = dataclasses.replace(res, gbmort_fit_time=t1 / 2)
    faster = dataclasses.replace(res, gbmort_fit_time=t1 * 2)
    assert (pr.smallest_q_faster(slower), pr.smallest_q_faster(faster)) == ("no", "yes")
    assert pr.smallest_q_faster(dataclasses.replace(res, gbmort_fit_time=float("nan"))) is None


def test_flattest_cost_is_the_smallest_least_squares_slope_of_the_shipped_measurement():
    res = load_shipped()
    slopes = {}
    for label in res.labels:
        t = np.asarray(res.seconds[label], float)
        d = np.asarray(res.d_values, float)[np.isfinite(t)]
        slopes[label] = np.polyfit(np.log(d), np.log(t[np.isfinite(t)]), 1)[0]
    assert pr.flattest_cost(res) == min(slopes, key=slopes.get)
    assert pr.flattest_cost(res) in res.labels


def test_challenge_question_answers_with_the_challenge_check(chain):
    q = pr.question("challenge:chain-gbmort")
    assert q.choices == ("yes", "no")
    assert q.answer(chain) == ("yes" if evaluate("chain-gbmort", chain)[0] else "no")
    assert q.answer(None) is None
    assert all(pr.question(f"challenge:{c.key}").answer(None) is None for c in CHALLENGES)


@pytest.mark.parametrize("bad", ["nope", "challenge:nope", None, 3])
def test_unknown_questions_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="question|challenge"):
        pr.question(bad)
