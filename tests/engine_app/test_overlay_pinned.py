"""engine.plotting.overlay_pinned: a pinned run's traces drawn behind the current ones (issue 32)."""

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from engine.plotting import overlay_pinned


def two_panel(y):
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=[1, 2], y=y, name="a", stackgroup="s", line={"color": "red"}), row=1, col=1)
    fig.add_trace(go.Scatter(x=[1, 2], y=y, name="b", line={"color": "blue"}), row=1, col=2)
    fig.add_trace(go.Bar(x=[1, 2], y=y, name="c"), row=1, col=2)
    return fig


def test_pinned_traces_go_behind_keep_axes_and_colours_and_never_stack_with_the_current_run():
    current, pinned = two_panel([1, 2]), two_panel([3, 4])
    out = overlay_pinned(current, pinned, "seed = 3")
    assert [t.name for t in out.data] == ["pinned · a", "pinned · b", "pinned · c", "a", "b", "c"]
    assert [t.xaxis for t in out.data[:3]] == [t.xaxis for t in pinned.data]
    assert [list(t.y) for t in out.data[:3]] == [[3, 4]] * 3
    a, b, c = out.data[:3]
    assert a.line.dash == b.line.dash == "dash" and a.line.color == "red" and b.line.color == "blue"
    assert a.stackgroup == "pinned s" and a.fill == "none" and out.data[3].stackgroup == "s"
    assert all(t.legendgroup == "pinned" and t.legendgrouptitle.text == "pinned: seed = 3" and t.opacity == 0.45
               for t in (a, b, c))
    assert [t.name for t in current.data] == ["a", "b", "c"] and current.data[0].line.dash is None  # unchanged


def test_traces_out_of_the_legend_stay_out_of_it_when_pinned():
    """A band without a name and a curve the chart keeps out of its legend are not listed as
    "pinned · scatter" (seen on the Projections page's gbmort band)."""
    fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], name="a"),
                     go.Scatter(x=[1, 2, 2, 1], y=[0, 0, 1, 1], fill="toself", showlegend=False),
                     go.Scatter(x=[1, 2], y=[3, 4], name="fit time", showlegend=False)])
    out = overlay_pinned(fig, go.Figure(fig), "seed = 3")
    assert [(t.name, t.showlegend) for t in out.data[:3]] == [("pinned · a", True), ("pinned", False),
                                                              ("pinned · fit time", False)]


@pytest.mark.parametrize("args, word", [((go.Figure(), {"data": []}, "x"), "pinned"),
                                        ((go.Figure(), go.Figure(), " "), "label")])
def test_bad_arguments_are_named(args, word):
    with pytest.raises(ValueError, match=word):
        overlay_pinned(*args)


def test_a_legend_under_the_plot_grows_downwards_with_room_for_the_pinned_rows():
    """Anchored by its bottom (plotly's default below the plot), the pinned group's rows pushed the
    legend up over the x-axis titles (seen on Bias–variance and Projections)."""
    fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], name="a"), go.Scatter(x=[1, 2], y=[2, 3], name="b")],
                    layout={"legend": {"orientation": "h", "y": -0.2}, "height": 400, "margin": {"b": 60}})
    out = overlay_pinned(fig, go.Figure(fig), "seed = 3")
    assert out.layout.legend.yanchor == "top" and out.layout.legend.y == -0.2
    assert out.layout.height == 400 + 3 * 20 and out.layout.margin.b == 60 + 3 * 20   # title + 2 rows
    side = go.Figure(fig).update_layout(legend_orientation="v", legend_y=1)
    assert overlay_pinned(side, go.Figure(side), "x").layout.height == 400           # a side legend: unchanged
