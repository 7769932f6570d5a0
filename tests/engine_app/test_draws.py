"""Running bias–variance (engine/app/page_models/draws.py) against the batch decomposition."""

import numpy as np
import pytest

from engine.app.page_models.draws import MAX_DRAWS, RunningBiasVariance, RunningForestBiasVariance, running_for
from engine.experiments.bias_variance import run_bias_variance
from engine.experiments.forest_variance import BV_TERMS, VarianceSplitSettings, run_forest_bias_variance
from engine.experiments.problems import Problem
from engine.experiments.settings import ForestSettings
from engine.plotting.draws import forest_draws_figure
from bias_variance_calls import run_bv, running_bv, running_for_flat

TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "variance", "error", "error_noisy_test")


@pytest.mark.parametrize("estimator,params", [
    ("gbrt-rpo-gaussian", dict(n_estimators=30, max_leaf_nodes=4)),
    ("rf-gaussian-per-tree", dict(n_estimators=5)),
])
def test_running_after_k_draws_equals_the_batch_decomposition_of_the_same_k_fits(estimator, params):
    kw = dict(structure="chain", n_train=60, n_test=40, n_seeds=3, estimator_params=params, seed=4)
    running = running_bv(estimator, **kw)
    running.draw(1)
    running.draw(3)                                    # 1 + 3 draws, in two clicks
    for k, n_drawn in ((4, 4),):
        batch = run_bv(estimator, n_learning_sets=k, **kw)
        mine = running.result()
        assert mine.n_sets_done == batch.n_sets_done == n_drawn
        for term in TERMS:
            np.testing.assert_array_equal(getattr(mine, f"{term}_per_output" if term != "error_noisy_test" else term),
                                          getattr(batch, f"{term}_per_output" if term != "error_noisy_test" else term))
        np.testing.assert_array_equal(mine.slice_mean, batch.slice_mean)
        np.testing.assert_array_equal(mine.slice_curves[:, :4], batch.slice_curves[:, :4])
    # The history's last entry is the current result; its first the result after one draw.
    assert running.history["bias2"][-1] == float(running.result().bias2[0])
    one = run_bv(estimator, n_learning_sets=2, **kw)   # 2 sets: the first one's draw is shared
    assert running.history["error"][1] == pytest.approx(float(one.error[0]), rel=0, abs=0)
    assert mine.identity_gap < 1e-10


def test_draws_validate_their_input():
    with pytest.raises(ValueError, match="estimator"):
        running_bv("nope")
    with pytest.raises(ValueError, match="dataset"):
        running_bv("gbmort", structure="tree")
    running = running_bv("gbmort", n_train=30, n_test=10, estimator_params=dict(n_estimators=3))
    with pytest.raises(ValueError, match="n"):
        running.draw(0)
    assert running.n_draws == 0 and running.result() is None


# --- projected trees and forests (paper 003, Appendix C) ----------------------------------------------

SPLIT = dict(n_projections=3, n_tree_seeds=2, n_forest_seeds=2)


def split(**kw):
    """The draws' grid: small, with ``kw`` changed."""
    return VarianceSplitSettings(**{**SPLIT, **kw})


def problem(structure="group", n_train=60, n_test=30, n_outputs=5, noise=1.0):
    return Problem(f"friedman1-{structure}", n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise)


def forest(q=1, projection="gaussian", n_estimators=4, max_features=1.0):
    return ForestSettings(n_estimators=n_estimators, max_features=max_features, projection=projection, q_values=(q,))


def small_draws(structure="group", *, n_train=30, n_test=10, n_outputs=3, noise=1.0, q=1, projection="gaussian",
                n_estimators=2, seed=0, shown="alg2", **grid):
    return RunningForestBiasVariance(problem(structure, n_train, n_test, n_outputs, noise),
                                     forest(q, projection, n_estimators), VarianceSplitSettings(**grid), seed=seed,
                                     shown=shown)


@pytest.mark.parametrize("structure,q,include_forests", [("chain", 2, True), ("ind", 1, False)])
def test_running_forest_after_k_draws_equals_the_batch_run_over_k_learning_sets(structure, q, include_forests):
    running = RunningForestBiasVariance(problem(structure), forest(q), split(include_forests=include_forests), seed=7)
    assert running.result() is None and running.n_draws == 0
    running.draw(1)
    after_one = running.terms()
    running.draw(2)                                   # 1 + 2 draws, in two clicks
    for k, n_drawn in ((3, 3),):
        batch = run_forest_bias_variance(problem(structure), forest(q),
                                         split(n_learning_sets=k, include_forests=include_forests), seed=7)
        mine = running.result()
        assert mine.n_learning_sets_done == batch.n_learning_sets_done == n_drawn
        assert set(mine.terms) == set(batch.terms) == set(BV_TERMS)
        for term in BV_TERMS:
            np.testing.assert_allclose(mine.terms[term], batch.terms[term], rtol=1e-12, atol=0, equal_nan=True,
                                       err_msg=term)
        assert mine.params == batch.params and mine.notes == batch.notes
    # The split is measured, and it adds up (the nested grid's exact identity).
    t = running.terms()
    assert t["var_projection"] > 0 and t["var_tree"] > 0
    assert abs(t["var_algorithm"] - t["var_projection"] - t["var_tree"]) < 1e-10
    # The history: one entry per draw, the last is now, the second equals the batch over 2 sets.
    assert all(len(v) == 3 for v in running.history.values())
    assert running.history["var_tree"][-1] == t["var_tree"] and running.history["bias2"][0] == after_one["bias2"]
    two = run_forest_bias_variance(problem(structure), forest(q), split(n_learning_sets=2, include_forests=include_forests),
                                   seed=7)
    for term in ("bias2", "var_learning_set", "var_projection", "var_tree", "error"):
        assert running.history[term][1] == pytest.approx(float(two.terms[term][0]), rel=1e-12)
    # One draw: no spread over learning sets yet (0), and the error is still the sum of its terms.
    assert after_one["var_learning_set"] == 0 and after_one["error"] == pytest.approx(
        after_one["noise"] + after_one["bias2"] + after_one["var_algorithm"])
    if include_forests:
        M = 4
        # Appendix C.2's split of each forest's algorithm variance, from the corrected single-tree terms
        assert t["alg1_projection_part"] == pytest.approx(t["var_projection_corrected"])
        assert t["alg2_projection_part"] == pytest.approx(t["var_projection_corrected"] / M)
        assert t["alg1_tree_part"] == t["alg2_tree_part"] == pytest.approx(t["var_tree_corrected"] / M)
        assert t["alg1_projection_part"] + t["alg1_tree_part"] == pytest.approx(t["alg1_var_algorithm_predicted"])
        assert t["alg2_variance"] == t["alg2_var_learning_set"] + t["alg2_var_algorithm"]
        # One slice curve per draw and kind, and the Bayes model along x1.
        assert [len(running.slice_curves[k]) for k in ("alg1", "alg2")] == [3, 3]
        assert running.slice_mean("alg2").shape == running.slice_x.shape == running.slice_bayes.shape
    else:
        assert running.slice_curves == {} and np.isnan(t["alg1_var_algorithm"])


@pytest.mark.parametrize("kwargs,word", [
    (dict(structure="tree"), "dataset"),
    (dict(projection="haar"), "projection"),
    (dict(q=[1, 2]), "q"),
    (dict(q=0), "q"),
    (dict(projection="subsample", q=9, n_outputs=4), "q"),
    (dict(n_estimators=0), "n_estimators"),
    (dict(n_projections=1), "n_projections"),
    (dict(n_tree_seeds=1), "n_tree_seeds"),
    (dict(n_forest_seeds=1), "n_forest_seeds"),
    (dict(bootstrap="yes"), "bootstrap"),
    (dict(include_forests="no"), "include_forests"),
    (dict(n_learning_sets=1), "n_learning_sets"),
    (dict(n_train=1), "n_train"),
    (dict(noise=-1.0), "noise"),
    (dict(seed=-1), "seed"),
])
def test_running_forest_rejects_bad_input_naming_the_argument(kwargs, word):
    with pytest.raises(ValueError, match=word):
        small_draws(**kwargs)


def test_running_forest_draw_count_is_checked():
    running = small_draws()
    with pytest.raises(ValueError, match="n"):
        running.draw(0)
    with pytest.raises(ValueError, match="at most"):
        running.draw(MAX_DRAWS + 1)
    assert running.n_draws == 0 and running.result() is None and running.history == {}


def test_running_for_picks_the_forest_draws_for_projected_forests_only():
    page = dict(structure="group", n_train=30, n_test=10, n_seeds=2, n_outputs=4, seed=1)
    shared = running_for_flat("rf-subsampled-shared", estimator_params=dict(n_estimators=3, n_components=2), **page)
    assert isinstance(shared, RunningForestBiasVariance)
    assert (shared.shown, shared.q, shared.settings["projection"], shared.settings["n_estimators"]) == (
        "alg1", 2, "subsample", 3)
    per_tree = running_for_flat("rf-gaussian-per-tree", estimator_params=dict(max_features=0.5), **page)
    assert per_tree.shown == "alg2" and per_tree.q == 1 and per_tree.settings["max_features"] == 0.5  # q = ln 4
    for name, params in (("gbmort", dict(n_estimators=3)), ("mo-rf", dict(n_estimators=3)),
                         ("rf-gaussian-per-tree", dict(n_estimators=3, max_leaf_nodes=4))):
        assert isinstance(running_for_flat(name, estimator_params=params, **page), RunningBiasVariance), name
    with pytest.raises(ValueError, match="q"):
        running_for_flat("rf-subsampled-shared", estimator_params=dict(n_components=9), **page)


def test_forest_draws_figure_checks_its_kind():
    running = small_draws()
    assert len(forest_draws_figure(running, "alg1").data) == 0          # nothing drawn yet: no traces
    running.draw(1)
    fig = forest_draws_figure(running, "alg2")
    assert {t.meta["term"] for t in fig.data if t.meta} >= {"alg2_projection_part", "alg2_tree_part",
                                                           "alg2_var_algorithm", "alg2_bias2", "noise"}
    with pytest.raises(ValueError, match="kind"):
        forest_draws_figure(running, "tree")
    no_forests = small_draws(include_forests=False).draw(1)
    with pytest.raises(ValueError, match="kind"):
        forest_draws_figure(no_forests, "alg1")
    with pytest.raises(ValueError, match="shown"):
        small_draws(shown="alg3")
