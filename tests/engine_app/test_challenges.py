"""Every challenge's check (engine/app/page_content/challenges.py) on a result that meets it and one that does not."""

import numpy as np
import pytest

from engine.app.page_models import one_step as os_
from engine.app.page_content.challenges import CHALLENGES, challenges_for, evaluate, start_params
from engine.app.page_models.draws import RunningBiasVariance
from engine.experiments.convergence import ConvergenceResult, Curve
from bias_variance_calls import run_bv, running_bv, running_for_flat


def curve(name, scores):
    s = np.asarray(scores, dtype=float)
    steps = np.arange(1, len(s) + 1)
    return Curve(name=name, label=name, step=steps, n_trees=steps, trees_per_output=steps.astype(float),
                 fit_time=steps * 1e-3, train_score=np.full(len(s), np.nan), test_score=s,
                 train_loss=np.full(len(s), np.nan))


def result(dataset, curves, learning_rate=0.5):
    return ConvergenceResult(experiment="convergence", dataset=dataset, task="regression", metric="macro-r2",
                             n_outputs=16, curves={c.name: c for c in curves}, params={"learning_rate": learning_rate})


def peaked(peak_step, n_steps, drop=0.05):
    steps = np.arange(1, n_steps + 1)
    return 0.8 - drop * ((steps - peak_step) / n_steps) ** 2 * 4 - 0.3 * (steps < peak_step) * (peak_step - steps) / peak_step


@pytest.mark.slow
def test_ind_overfit():
    assert evaluate("ind-overfit", result("friedman1-ind", [curve("st-gbrt", peaked(35, 500))]))[0]
    assert not evaluate("ind-overfit", result("friedman1-ind", [curve("st-gbrt", peaked(298, 500))]))[0]
    assert not evaluate("ind-overfit", result("friedman1-ind", [curve("st-gbrt", peaked(35, 300))]))[0]   # too short
    assert not evaluate("ind-overfit", result("friedman1-chain", [curve("st-gbrt", peaked(35, 500))]))[0]


def test_chain_gbmort():
    win = result("friedman1-chain", [curve("st-gbrt", [0.5, 0.62, 0.61]), curve("gbmort", [0.5, 0.63, 0.62])])
    lose = result("friedman1-chain", [curve("st-gbrt", [0.5, 0.62, 0.61]), curve("gbmort", [0.5, 0.61, 0.6])])
    assert evaluate("chain-gbmort", win)[0] and not evaluate("chain-gbmort", lose)[0]
    # Ahead while both still climb (the starting point: 100 steps) is not a win: the takeaway says "still
    # rising" there, and so does the check.
    climbing = result("friedman1-chain", [curve("st-gbrt", [0.5, 0.6]), curve("gbmort", [0.5, 0.63])])
    met, message = evaluate("chain-gbmort", climbing)
    assert not met and "still rising" in message and "gbmort and st-gbrt" in message
    assert not evaluate("chain-gbmort", result("friedman1-ind", list(win.curves.values())))[0]
    assert not evaluate("chain-gbmort", result("friedman1-chain", [curve("gbmort", [0.9])]))[0]


def test_chain_gbmort_on_its_starting_point_and_trained_longer():
    """The real runs: the starting point (100 steps) does not meet the challenge while both curves climb,
    as the page's takeaway says; trained until both have peaked, the plateaus decide."""
    from engine.app.page_content.takeaways import convergence_takeaway
    from engine.app.page_models.live_convergence import train_curves
    from engine.experiments import BoostingSettings, Problem

    start = {k: v for k, v in CHALLENGES[1].query_params.items()}
    assert CHALLENGES[1].key == "chain-gbmort" and start["conv_problem"] == "chain"
    problem = Problem("friedman1-chain", n_test=1000)

    def run_curves(name, estimators, n_steps):        # the page's live run
        return train_curves(problem, BoostingSettings(n_steps, learning_rate=0.1, max_leaf_nodes=2), estimators)
    short = run_curves("friedman1-chain", start["conv_variants"], n_steps=int(start["conv_n_steps"]))
    met, message = evaluate("chain-gbmort", short)
    rising = [c.name for c in short.curves.values() if c.still_rising]
    assert rising and "Still rising" in convergence_takeaway(short)
    assert not met and "still rising" in message
    long = run_curves("friedman1-chain", start["conv_variants"], n_steps=600)
    a, b = long.curves["gbmort"], long.curves["st-gbrt"]
    assert not a.still_rising and not b.still_rising
    assert evaluate("chain-gbmort", long)[0] == (a.best_score > b.best_score)


@pytest.fixture(scope="module")
def group_rpo():
    return os_.OneStepRun(os_.OneStepSettings(problem="friedman1-group", method="gbrt-rpo", projection="gaussian"))


def test_near_tie(group_rpo):
    # Measured: 92% at step 1, 95% or more first at step 4 (seed 0).
    assert not evaluate("near-tie", group_rpo.view(1))[0]
    met, message = evaluate("near-tie", group_rpo.view(4))
    t = group_rpo.view(4).trees[0]
    assert met == (t.rejected_improvement[0] >= 0.95 * t.improvement[0]) and met, message
    assert not evaluate("near-tie", group_rpo.view(0))[0]


def test_train_up_test_down():
    run = os_.OneStepRun(os_.OneStepSettings(problem="friedman1-chain", method="gbrt-rpo", projection="gaussian"))
    first = next(k for k in range(1, 60) if evaluate("train-up-test-down", run.view(k))[0])
    v = run.view(first)
    assert v.train_after.mean() > v.train_before.mean() and v.test_after.mean() < v.test_before.mean()
    assert not evaluate("train-up-test-down", run.view(1))[0]
    other = os_.OneStepRun(os_.OneStepSettings(problem="friedman1-chain", method="gbmort")).view(first)
    assert not evaluate("train-up-test-down", other)[0]          # not gbrt-rpo


def test_draws_settle():
    running = running_bv("gbmort", n_train=60, n_test=30, estimator_params=dict(n_estimators=5))
    running.draw(3)
    assert not evaluate("draws-settle", running)[0]                # too few draws
    running.history["bias2"] = [5.0, 4.0, 3.0, 2.99, 3.0, 3.01, 3.0, 3.0]
    assert evaluate("draws-settle", running)[0]
    running.history["bias2"] = [5.0, 4.0, 3.0, 2.5, 3.0, 3.2, 3.0, 3.0]
    assert not evaluate("draws-settle", running)[0]


def test_every_challenge_has_a_page_a_start_and_a_check():
    assert 5 <= len(CHALLENGES) <= 8 and len({c.key for c in CHALLENGES}) == len(CHALLENGES)
    for c in CHALLENGES:
        assert c in challenges_for(c.page) and start_params(c)["challenge"] == c.key
        assert evaluate(c.key, None) == (False, "Nothing to check yet.")
    with pytest.raises(ValueError, match="challenge"):
        evaluate("nope", None)
