"""Issue 31: what the charts say, read back from the figures: one colour per method on every chart,
numbers written for people, the "still rising" line clear of the subplot titles."""

import numpy as np
import pytest

from engine import plotting
from engine.experiments import BoostingSettings, Problem, run_convergence, run_projection_size
from engine.formatting import GROUP, fmt_number
from engine.plotting.common import METHOD_COLORS, OTHER_COLORS, series_colors
from engine.plotting.convergence import RISING_NOTE_SHIFT, live_convergence_figure
from curve_calls import run_curves, run_schemes


@pytest.mark.parametrize("value, digits, text", [
    (2100.4, 3, f"2{GROUP}100"), (10020, 3, f"10{GROUP}020"), (6.1875, 2, "6.2"), (6.1875, 3, "6.19"),
    (0.012345, 3, "0.0123"), (5.0, 3, "5"), (3.1e-6, 2, "3.1 × 10⁻⁶"), (-2100.0, 3, f"-2{GROUP}100"),
    (0.0, 3, "0"), (float("nan"), 3, "–"), (None, 3, "–"), (1234567.0, 3, f"1{GROUP}234{GROUP}567"),
])
def test_numbers_for_people(value, digits, text):
    assert fmt_number(value, digits) == text
    assert "e+" not in fmt_number(value, digits) and "e-" not in fmt_number(value, digits)


def test_fmt_number_checks_digits():
    with pytest.raises(ValueError, match="digits"):
        fmt_number(1.0, 0)


def colours_by_name(fig, names):
    """{trace name: line colour} of the traces named in ``names`` (the first of each)."""
    out = {}
    for t in fig.data:
        for n in names:
            if t.name and t.name.startswith(n) and n not in out and t.line is not None and t.line.color:
                out[n] = t.line.color
    return out


@pytest.fixture(scope="module")
def q_sweep():
    return run_projection_size(Problem("friedman1-chain", n_test=200), BoostingSettings(5), q_values=[1, 2, 4],
                               seed=0, timing=False, train_curve=False)


def test_gbmort_has_one_colour_on_both_projections_charts(q_sweep):
    """Figure 6 (score and time against q) and Figure 5 (score against fit time) of one run: gbmort is
    drawn in its own colour on both, the q curves in colours no method owns."""
    size = plotting.projection_size_figure(q_sweep)
    curves = plotting.projection_size_curves_figure(q_sweep)
    gbmort_size = {t.line.color for t in size.data if (t.name or "").startswith("gbmort")}
    gbmort_curves = {t.line.color for t in curves.data if t.name == next(
        c.label for c in q_sweep.convergence().curves.values() if c.name == "gbmort")}
    assert gbmort_size == gbmort_curves == {METHOD_COLORS["gbmort"]}
    q_colours = {t.name: t.line.color for t in curves.data if t.name and t.name.startswith("q") and t.line.color}
    assert len(q_colours) == 3 and len(set(q_colours.values())) == 3          # one colour per q
    assert not set(q_colours.values()) & set(METHOD_COLORS.values())


def test_a_method_keeps_its_colour_whatever_else_is_drawn():
    kw = dict(n_steps=5, n_test=200, seed=0)
    a = run_curves("friedman1-chain", ["gbmort", "st-gbrt"], **kw)
    b = run_curves("friedman1-chain", ["gbrt-rpo-gaussian", "gbmort"], **kw)
    for res in (a, b):
        for fig in (plotting.convergence_figure(res), live_convergence_figure(res)):
            drawn = {t.meta["estimator"] if isinstance(t.meta, dict) and "estimator" in t.meta else t.name: t.line.color
                     for t in fig.data if t.line is not None and t.line.color}
            gbmort = [c for n, c in drawn.items() if "gbmort" in n]
            assert set(gbmort) == {METHOD_COLORS["gbmort"]}
    assert series_colors(["q=1", "gbmort", "q=2"]) == {"q=1": OTHER_COLORS[0], "gbmort": METHOD_COLORS["gbmort"],
                                                       "q=2": OTHER_COLORS[1]}


def test_still_rising_is_said_above_the_subplot_titles():
    """The note sat inside the left panel at its top edge, over the curves' best stars, and a long list
    of methods ran into the subplot titles: it now has a line of its own above them."""
    res = run_curves("friedman1-chain", ["st-gbrt", "gbmort", "gbrt-rpo-subsampled"], n_steps=20, n_test=200,
                          seed=0)
    assert all(c.still_rising for c in res.curves.values())
    fig = live_convergence_figure(res)
    note = [a for a in fig.layout.annotations if (a.text or "").startswith("still rising")]
    titles = [a for a in fig.layout.annotations if a.text in ("against trees per output", "against fit time")]
    assert len(note) == 1 and len(titles) == 2
    (n,) = note
    assert n.yref == "paper" and n.yanchor == "bottom" and n.y >= max(t.y for t in titles)
    assert n.yshift >= RISING_NOTE_SHIFT >= 20                 # a title line (about 16 px) below it
    assert fig.layout.margin.t >= 30 + RISING_NOTE_SHIFT       # and room for it in the top margin
    quiet = run_curves("friedman1-chain", ["gbmort"], n_steps=400, n_test=200, seed=0)
    assert not any((a.text or "").startswith("still rising") for a in live_convergence_figure(quiet).layout.annotations)


def test_tree_gains_are_written_for_people():
    from engine.app.page_models import one_step as os_
    from engine.plotting.trees import tree_figure

    run = os_.OneStepRun(os_.OneStepSettings(problem="friedman1-group", method="gbmort"))
    tree = run.view(1).trees[0]
    assert tree.improvement[0] > 1000                           # the root's SSE decrease: thousands
    texts = [t for tr in tree_figure(tree).data if tr.name == "split" for t in tr.text]
    assert texts and all("e+" not in t for t in texts)
    assert f"gain {fmt_number(tree.improvement[0])}" in texts[0] and GROUP in fmt_number(tree.improvement[0])


def _colour_at(colorscale, position):
    """The colour a plotly colorscale gives at ``position`` in [0, 1] (a step where two stops coincide)."""
    def rgb(h):
        return np.array([int(h[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    for (p0, c0), (p1, c1) in zip(colorscale, colorscale[1:]):
        if p0 <= position <= p1 and p1 > p0:
            t = (position - p0) / (p1 - p0)
            return (1 - t) * rgb(c0) + t * rgb(c1)
    raise AssertionError(position)


def test_dark_cells_are_exactly_the_cells_with_a_star():
    """The key says "dark cells, marked *": every p < 0.05 cell is drawn dark, every other pale."""
    names = ["a", "b", "c", "d"]
    P = np.array([[np.nan, 0.03, 0.2, 1e-5], [0.03, np.nan, 0.049, 0.051], [0.2, 0.049, np.nan, 0.5],
                  [1e-5, 0.051, 0.5, np.nan]])
    signs = [["" if i == j else ">" for j in range(4)] for i in range(4)]
    fig = plotting.benchmark_pvalue_figure(names, P, signs)
    (hm,) = fig.data
    scale = [[float(p), c] for p, c in hm.colorscale]
    for i in range(4):
        for j in range(4):
            if i == j:
                continue
            pos = (hm.z[i][j] - hm.zmin) / (hm.zmax - hm.zmin)
            luminance = _colour_at(scale, min(max(pos, 0), 1)) @ [0.299, 0.587, 0.114] / 255
            starred = hm.text[i][j].endswith("*")
            assert starred == (P[i, j] < 0.05)
            assert (luminance < 0.35) == starred, (P[i, j], luminance)
    assert "e-0" not in " ".join(t for row in hm.text for t in row)    # 1e-5 written for people


def test_the_study_diagrams_name_methods_as_the_tables_do():
    """The real-data diagrams said br-gbrt / br-rf where the ranks table beside them said st-gbrt / st-rf."""
    from engine.reports.real_data import paper_cd_figure

    for task in ("multilabel", "regression"):
        fig = paper_cd_figure(task)
        drawn = {t.name for t in fig.data if "average rank" in (t.hovertemplate or "")}
        assert len(drawn) == 8 and {"st-gbrt", "st-rf"} <= drawn and not {"br-gbrt", "br-rf"} & drawn
    sub = paper_cd_figure("multilabel").layout.title.text
    assert "st-gbrt / st-rf: the paper's br-gbrt / br-rf" in sub


def test_the_study_diagram_draws_each_method_in_its_colour():
    from engine.reports.real_data import paper_cd_figure

    fig = paper_cd_figure("regression")
    drawn = {t.name: t.line.color for t in fig.data if "average rank" in (t.hovertemplate or "")}
    assert drawn["gbmort"] == METHOD_COLORS["gbmort"] and drawn["st-gbrt"] == METHOD_COLORS["st-gbrt"]
    assert drawn["gbrt-rpo-subsampled"] == METHOD_COLORS["gbrt-rpo-subsampled"]
