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


@pytest.mark.parametrize("args, word", [((go.Figure(), {"data": []}, "x"), "pinned"),
                                        ((go.Figure(), go.Figure(), " "), "label")])
def test_bad_arguments_are_named(args, word):
    with pytest.raises(ValueError, match=word):
        overlay_pinned(*args)
