"""Legend captions (engine.plotting.legend): every entry the app's figures draw is explained, on
figures built from small real runs and on the names the builders use."""
import plotly.graph_objects as go
import pytest

from engine import plotting
from engine.experiments import BoostingSettings, Problem, run_convergence, run_projection_size
from engine.experiments.forests import FOREST_REF, PER_TREE, SCHEME_LABELS, SHARED, SINGLE_TREE, TREE_REF
from engine.names import BOOSTING_NAMES, FOREST_NAMES
from engine.plotting.bias_variance import COMPONENTS
from engine.plotting.legend import explain, legend_caption, legend_entries, unexplained
from curve_calls import run_curves, run_schemes
from bias_variance_calls import run_bv, running_bv, running_for_flat


def test_the_projections_sweep_legend_is_explained():
    res = run_projection_size(Problem("friedman1-chain", n_outputs=4, n_test=200), BoostingSettings(5),
                              q_values=[1, 2], projection="gaussian", seed=0)
    for fig in (plotting.projection_size_figure(res), plotting.projection_size_curves_figure(res)):
        assert legend_entries(fig) and unexplained(fig) == []
    # The budget line: without gbmort the budget (the shortest total fit time of the runs) is one
    # q's own total, so that q has a score within it whatever the machine's timing. With gbmort,
    # a loaded machine can make gbmort's whole fit shorter than every q's first scored step: then
    # no q has a score within the budget and the line is (rightly) not drawn (CI, once).
    res = run_projection_size(Problem("friedman1-chain", n_outputs=4, n_test=200), BoostingSettings(5),
                              q_values=[1, 2], projection="gaussian", seed=0, include_gbmort=False)
    fig = plotting.projection_size_figure(res)
    assert unexplained(fig) == []
    budget = next(n for n in legend_entries(fig) if "within" in n)
    caption = legend_caption(fig)
    seconds = budget.removeprefix("relabel-rpo, within ").removesuffix(" s")      # as the chart prints it
    from engine.formatting import fmt_number
    assert seconds == fmt_number(res.time_budget)
    assert f"**{budget}**: gbrt-relabel-rpo's best test score within the first {seconds} s" in caption
    assert "the shortest total fit time of all the models" in caption


def test_the_convergence_legends_are_explained_with_pinned_runs():
    res = run_curves("friedman1-chain", ["st-gbrt", "gbmort", "gbrt-rpo-subsampled", "gbrt-relabel-rpo-gaussian",
                                              "artificial-gbrt"], n_steps=5, n_test=200, n_outputs=4)
    for fig in (plotting.convergence_figure(res), plotting.live_convergence_figure(res, pinned=[("pin 1", res)])):
        assert unexplained(fig) == [], legend_entries(fig)
    live = plotting.live_convergence_figure(res, pinned=[("pin 1", res)])
    assert "pin 1 · gbmort" in legend_entries(live)
    caption = legend_caption(live)
    assert "**pin 1 · …**: the kept run “pin 1” (dashed), the same entries as the current run" in caption
    assert caption.count("pin 1") == 2 and "**gbmort**: one multi-output tree per step" in caption


def test_the_bias_variance_stack_and_a_pinned_copy_are_explained_once_each():
    """Seen on the page: the stack's "noise σ²" and the two variance parts had no meaning, and of a
    pinned run only its first entry was listed."""
    from engine.experiments.bias_variance import run_bias_variance
    res = run_bv("gbmort", param_name="n_estimators", param_values=[2, 7], n_learning_sets=3, n_train=80,
                            n_test=100, n_outputs=3, seed=0)
    fig = plotting.bias_variance_stacked_figure({"gbmort": res})
    names = legend_entries(fig)
    assert len(names) == 5 and unexplained(fig) == [], names
    pinned = plotting.overlay_pinned(fig, plotting.bias_variance_stacked_figure({"gbmort": res}), "seed = 3")
    assert legend_entries(pinned) == [f"pinned · {n}" for n in names] + names
    caption = legend_caption(pinned)
    assert caption.count("the kept run") == 1 and all(f"**{n}**: " in caption for n in names)


@pytest.mark.parametrize("name", list(BOOSTING_NAMES) + list(FOREST_NAMES) + [
    SINGLE_TREE, SHARED, PER_TREE, TREE_REF, FOREST_REF, *SCHEME_LABELS.values(),
    f"{SHARED}, M = 10", *[label for _, label, _, _ in COMPONENTS], "bias² (gbmort)", "learning set 3",
    "mean over 20 sets", "Bayes E[y₁|x]", "ours: mean ± std", "paper (Table 6)", "gbmort (q → ∞)", "q=4",
    "relabel-rpo fit time", "constant model (step 0)", "gbrt-relabel-rpo-gaussian (train)", "train", "test"])
def test_every_name_the_builders_draw_has_a_meaning(name):
    assert explain(name)


def test_unknown_entries_are_reported_and_figures_can_explain_their_own():
    fig = go.Figure([go.Scatter(x=[1], y=[1], name="mystery"), go.Scatter(x=[1], y=[2], name="gbmort"),
                     go.Scatter(x=[1], y=[3], name="gbmort", showlegend=False),
                     go.Scatter(x=[1], y=[4], name="hidden", showlegend=False)])
    assert legend_entries(fig) == ["mystery", "gbmort"]
    assert unexplained(fig) == ["mystery"]
    fig.update_layout(meta={"legend": {"mystery": "a line of its own"}})
    assert unexplained(fig) == [] and "**mystery**: a line of its own" in legend_caption(fig)
    fig.update_layout(meta={"legend_explained": True})
    assert legend_caption(fig) == ""
    assert legend_entries(go.Figure([go.Scatter(x=[1], y=[1], name="alone")])) == []   # no legend drawn
    heatmaps = go.Figure([go.Heatmap(z=[[1]], name="chain"), go.Heatmap(z=[[2]], name="group")])
    assert legend_entries(heatmaps) == [] and legend_caption(heatmaps) == ""              # not in a legend
    assert legend_entries(plotting.output_correlation_figure(n_outputs=4)) == []
