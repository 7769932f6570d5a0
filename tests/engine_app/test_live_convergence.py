"""The Convergence page's live run (engine.app.page_models.live_convergence): the experiment's curves,
growing, with the models kept to continue; its problem from a Data-page spec, an upload included."""
import numpy as np
import pytest

from curve_calls import run_curves
from engine.app.page_models import dataspec
from engine.app.page_models import live_convergence as live
from engine.datasets import Dataset
from engine.experiments import BoostingSettings, Problem


def test_a_live_run_reports_growing_curves_and_keeps_its_models():
    """One fit per regression model (the test curves of the plain run, no train curve), partial results
    while the curves grow, the fitted models kept warm-startable; artificial-gbrt measured in full."""
    problem = Problem("friedman1-chain", n_test=300)
    partials, models = [], {}
    result = live.train_curves(problem, BoostingSettings(60), ["gbmort", "artificial-gbrt"], seed=1, models=models,
                               progress=lambda f, m, partial=None: partials.append(partial))
    plain = run_curves("friedman1-chain", ["gbmort", "artificial-gbrt"], n_steps=60, n_test=300, seed=1)
    for name in ("gbmort", "artificial-gbrt"):
        np.testing.assert_allclose(result.curves[name].test_score, plain.curves[name].test_score)
    assert np.isnan(result.curves["gbmort"].train_score).all()
    assert np.isfinite(plain.curves["gbmort"].train_score).all()
    assert np.isfinite(result.curves["artificial-gbrt"].train_score).all()
    assert set(models) == {"gbmort"} and models["gbmort"].warm_start and models["gbmort"].n_steps_ == 60
    grown = [p for p in partials if p is not None]
    assert grown and grown[0].curves and not grown[0].complete and partials[-1] is not None and partials[-1].complete
    assert result.params["n_test"] == 300 and result.params["q"] == 1 and result.dataset == "friedman1-chain"
    # continued by warm start: the same curves as one longer run
    more = live.continue_curves(problem, BoostingSettings(60), ["gbmort"], models, n_more=20, seed=1)
    longer = live.train_curves(problem, BoostingSettings(80), ["gbmort"], seed=1)
    np.testing.assert_array_equal(more.curves["gbmort"].test_score, longer.curves["gbmort"].test_score)


def test_a_live_run_checks_everything_before_drawing(monkeypatch):
    monkeypatch.setattr(Problem, "draw", lambda *a, **k: pytest.fail("data drawn before validation"))
    problem = Problem("friedman1-chain", n_test=300)
    with pytest.raises(ValueError, match="models"):
        live.train_curves(problem, BoostingSettings(5), ["gbmort"], models=[])
    with pytest.raises(ValueError, match="max_features"):
        live.train_curves(problem, BoostingSettings(5, max_features=999), ["gbmort"])
    with pytest.raises(ValueError, match="q"):
        live.check_settings(problem, BoostingSettings(5, q=17), ["gbrt-relabel-rpo-subsampled"])
    assert live.check_settings(problem, BoostingSettings(5), "gbmort") == ["gbmort"]


def test_an_upload_is_a_problem_split_by_the_seed():
    rng = np.random.default_rng(0)
    ds = Dataset("mine", rng.random((40, 3)), rng.random((40, 2)), ["a", "b", "c"], ["y1", "y2"])
    problem = Problem.of(ds)
    assert problem.shape() == ("regression", 2) and problem.size()["n_train"] == 20
    a, b = problem.draw(3), problem.draw(3)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert a.X_train.shape == (20, 3) and "seed 3" in a.split and a.name == "mine"
    # artificial-gbrt knows the Friedman1 structures only, whatever an upload is named
    named = Problem("friedman1-chain", data=ds)
    with pytest.raises(ValueError, match="artificial-gbrt"):
        live.check_settings(named, BoostingSettings(5), ["artificial-gbrt"])
    tiny = Dataset("tiny", rng.random((3, 2)), rng.random((3, 1)), ["a", "b"], ["y"])
    with pytest.raises(ValueError, match="rows"):
        Problem.of(tiny)
    spec = dataspec.friedman_spec("group")
    assert live.problem_from_spec(spec, n_test=200) == Problem("friedman1-group", n_train=int(spec["n_samples"]),
                                                               n_test=200, n_outputs=int(spec["n_outputs"]))
