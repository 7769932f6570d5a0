"""engine.app.page_models.cost.estimate_projection_seconds: the parts of a projection run's cost, as properties.

The unit costs are rough (machine dependent); what must hold is how the estimate moves with the
size of each part of the work.
"""

import pytest

from engine.app.page_models.cost import estimate_projection_seconds
from engine.experiments import problem_size
from engine.experiments.timing import Timing

WIDE = problem_size("synthetic-delicious-shape")


def cost(models=(("projected_relabel", 1),), **kw):
    args = dict(WIDE, models=list(models), n_steps=100, loss="squared_error", n_eval_points=8, train_curve=False)
    args.update(kw)
    return estimate_projection_seconds(**args)


def test_grows_with_every_part_of_the_work():
    assert cost(n_steps=200) > cost(n_steps=100)
    assert cost(models=[("projected_relabel", 20)]) > cost(models=[("projected_relabel", 1)])
    assert cost(models=[("multi_output", None)]) > cost(models=[("projected_relabel", 20)])
    assert cost(loss="logistic") > cost(loss="squared_error")
    assert cost(train_curve=True) > cost(train_curve=False)
    assert cost(n_eval_points=60) > cost(n_eval_points=8)
    assert cost(max_leaf_nodes=8) > cost(max_leaf_nodes=2)
    assert cost(nnz_per_row=200) > cost(nnz_per_row=48)
    assert cost(projection="subsample", models=[("projected_relabel", 20)]) < cost(models=[("projected_relabel", 20)])
    two = cost(models=[("projected_relabel", 1), ("multi_output", None)])
    assert two == pytest.approx(cost(models=[("projected_relabel", 1)]) + cost(models=[("multi_output", None)]))


def test_a_dense_x_counts_every_feature():
    dense = dict(WIDE, nnz_per_row=None)
    assert cost(**dense) > cost()          # 500 stored values per row instead of about 48


def test_timing_adds_repeats_of_short_fits_only():
    small = dict(problem_size("friedman1-chain", n_test=1000), models=[("projected_relabel", 1)], n_steps=100)
    base = estimate_projection_seconds(**small)
    timed = estimate_projection_seconds(**small, timing=Timing())
    assert base < timed <= base + Timing().budget_seconds
    # a long fit is not repeated
    assert cost(timing=Timing()) == cost()


def test_unknown_model_kind():
    with pytest.raises(ValueError, match="models"):
        cost(models=[("gbmort", None)])


@pytest.mark.slow
def test_forest_sweep_estimate_grows_with_what_the_sweep_fits():
    """Issue 33: the Forests page's estimate of its delicious views (the gate's
    engine.app.page_models.cost.estimate_forest_sweep_seconds of the sweep's plan, as the page makes it)."""
    from engine.app.page_models.cost import estimate_forest_sweep_seconds
    from engine.experiments.forests import plan_sweep
    from engine.experiments.settings import ForestSettings

    def forest(experiment="projection-size", dataset="delicious", n_estimators=10, q_values=(1, 25), n_repeats=1,
               **kw):
        kw = {"include_single_tree": False, **kw} if experiment == "projection-size" else kw
        settings = ForestSettings(n_estimators=n_estimators, q_values=tuple(q_values), n_repeats=n_repeats)
        timed = experiment == "projection-size"
        return estimate_forest_sweep_seconds(plan_sweep(experiment, dataset, settings, **kw), timing=timed)

    assert forest(n_estimators=20) > forest()
    assert forest(n_repeats=2) > 1.5 * forest()
    assert forest(q_values=[1, 25, 200]) > forest()
    assert forest(include_single_tree=True) > forest()
    assert forest(include_shared=False) < forest()
    assert forest("schemes", schemes=["gaussian", "achlioptas", "sparse", "subsample"]) > forest("schemes", schemes=["gaussian"])
    assert forest("randomization", max_features_values=[2, 22, 100]) > forest("randomization", max_features_values=[2])
    assert forest("randomization") > 0                          # the default k grid
    # the page's rule: the delicious views wait for Run (over 20 s), the emotions default runs at once
    small = forest(dataset="emotions", q_values=[1, 2, 3, 6])
    assert small < 20 < forest(q_values=[1, 25, 200], include_single_tree=True)
    with pytest.raises(ValueError, match="experiment must be one of"):
        forest("variance")
