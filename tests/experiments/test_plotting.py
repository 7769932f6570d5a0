"""engine.plotting: formulas behind the Home figure and the figure itself (no streamlit)."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from engine import plotting
from engine.names import STRUCTURES


def test_friedman1_variance_matches_monte_carlo():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(400_000, 5))
    f = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3] + 5 * x[:, 4]
    assert plotting.friedman1_variance() == pytest.approx(f.var(), rel=0.01)
    assert plotting.friedman1_variance() == pytest.approx(23.83, abs=0.01)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_correlation_is_a_correlation_matrix(structure):
    c = plotting.friedman1_output_correlation(structure, n_outputs=7)
    assert c.shape == (7, 7)
    np.testing.assert_allclose(c, c.T)
    np.testing.assert_allclose(np.diag(c), 1.0)
    assert np.all(np.linalg.eigvalsh(c) > 0)


def test_correlation_values_follow_the_generators():
    v = 4.0
    group = plotting.friedman1_output_correlation("group", 5, var_f=v)
    np.testing.assert_allclose(group[~np.eye(5, dtype=bool)], v / (v + 1))
    np.testing.assert_allclose(plotting.friedman1_output_correlation("ind", 5, var_f=v), np.eye(5))
    chain = plotting.friedman1_output_correlation("chain", 5, var_f=v)
    assert chain[0, 1] == pytest.approx((v + 1) / np.sqrt((v + 1) * (v + 2)))
    assert np.all(np.diff(chain[0]) < 0)  # correlation with y1 fades along the chain


def test_correlation_matches_simulated_chain():
    rng = np.random.default_rng(1)
    n, d = 200_000, 4
    x = rng.uniform(size=(n, 5))
    f = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3] + 5 * x[:, 4]
    y = f[:, None] + np.cumsum(rng.standard_normal((n, d)), axis=1)
    np.testing.assert_allclose(np.corrcoef(y.T), plotting.friedman1_output_correlation("chain", d), atol=0.01)


def test_bad_arguments():
    with pytest.raises(ValueError, match="structure"):
        plotting.friedman1_output_correlation("tree")
    with pytest.raises(ValueError, match="n_outputs"):
        plotting.friedman1_output_correlation("chain", 0)


def test_output_correlation_figure():
    fig = plotting.output_correlation_figure(n_outputs=16)
    assert isinstance(fig, go.Figure)
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    assert [t.name for t in fig.data] == list(STRUCTURES)
    for trace, structure in zip(fig.data, STRUCTURES):
        np.testing.assert_allclose(np.asarray(trace.z), plotting.friedman1_output_correlation(structure, 16))
        assert trace.coloraxis == "coloraxis"  # one shared colour scale
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0.0, 1.0)
    assert len(fig.layout.annotations) == 3  # subplot titles
    json.loads(fig.to_json())  # serialisable, as st.plotly_chart needs


# --- Data page figures ----------------------------------------------------------------------

from engine.datasets import make_friedman_dataset  # noqa: E402


def test_empirical_correlation_matches_numpy_and_blanks_constant_columns():
    rng = np.random.default_rng(0)
    Y = rng.standard_normal((50, 4))
    Y[:, 1] += Y[:, 0]
    corr, constant = plotting.empirical_output_correlation(Y)
    np.testing.assert_allclose(corr, np.corrcoef(Y.T), atol=1e-12)
    assert not constant.any()
    Y[:, 2] = 1.0
    corr, constant = plotting.empirical_output_correlation(Y)
    assert constant.tolist() == [False, False, True, False]
    assert np.isnan(corr[2]).all() and np.isnan(corr[:, 2]).all()
    assert corr[0, 0] == 1.0
    with pytest.raises(ValueError, match="2-D"):
        plotting.empirical_output_correlation(np.zeros(5))


@pytest.mark.parametrize("structure", STRUCTURES)
def test_data_correlation_figure_on_friedman(structure):
    ds = make_friedman_dataset(structure, n_samples=2000, n_outputs=6, random_state=0)
    fig = plotting.data_correlation_figure(ds.Y, ds.target_names)
    (trace,) = fig.data
    assert trace.type == "heatmap" and list(trace.x) == ds.target_names
    z = np.asarray(trace.z, dtype=float)
    np.testing.assert_allclose(z, plotting.friedman1_output_correlation(structure, 6), atol=0.06)
    assert (trace.zmin, trace.zmax) == (0.0, 1.0)  # nothing negative: sequential scale
    assert fig.layout.meta["n_outputs"] == 6 and fig.layout.meta["diverging"] is False
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "category"
    json.loads(fig.to_json())


def test_data_correlation_figure_diverges_with_negative_correlation_and_numeric_names():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(200)
    Y = np.column_stack([a, -a + 0.1 * rng.standard_normal(200), rng.standard_normal(200)])
    fig = plotting.data_correlation_figure(Y, ["25400", "29600", "30400"])
    (trace,) = fig.data
    assert (trace.zmin, trace.zmax) == (-1.0, 1.0) and fig.layout.meta["diverging"] is True
    assert list(trace.x) == ["25400", "29600", "30400"] and fig.layout.xaxis.type == "category"
    json.loads(fig.to_json())


def test_data_correlation_figure_checks_names():
    with pytest.raises(ValueError, match="names"):
        plotting.data_correlation_figure(np.zeros((3, 2)) + np.arange(3)[:, None], ["a"])


def test_default_bayes_outputs():
    assert plotting.default_bayes_outputs(16) == [0, 7, 15]
    assert plotting.default_bayes_outputs(16, 4) == [0, 7, 15, 16]
    assert plotting.default_bayes_outputs(1) == [0]
    assert plotting.default_bayes_outputs(2, 1) == [0, 1, 2]


def test_outputs_vs_bayes_figure_shows_the_chain_noise_growing():
    ds = make_friedman_dataset("chain", n_samples=3000, n_outputs=16, n_noisy_outputs=2, random_state=1)
    outputs = plotting.default_bayes_outputs(16, 2)
    fig = plotting.outputs_vs_bayes_figure(ds.Y, ds.bayes, ds.target_names, outputs, max_points=500)
    points = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in points] == ["y1", "y8", "y16", "noise1"]
    assert all(len(t.x) == 500 for t in points)  # subsampled
    sds = fig.layout.meta["noise_sd"]
    assert sds[0] == pytest.approx(1.0, abs=0.1) and sds[2] == pytest.approx(4.0, abs=0.3)  # sd sqrt(j)
    assert np.ptp(np.asarray(points[3].x)) == 0  # noisy output: constant Bayes prediction
    assert sum(t.showlegend is not False for t in fig.data if t.mode == "lines") == 1
    with pytest.raises(ValueError, match="outputs"):
        plotting.outputs_vs_bayes_figure(ds.Y, ds.bayes, ds.target_names, [99])
    with pytest.raises(ValueError, match="shape"):
        plotting.outputs_vs_bayes_figure(ds.Y, ds.bayes[:, :3], ds.target_names)


def test_target_distribution_figure_regression_and_multilabel():
    rng = np.random.default_rng(2)
    Y = rng.standard_normal((100, 14))
    names = [f"t{i}" for i in range(14)]
    fig = plotting.target_distribution_figure(Y, names, "regression", max_panels=12)
    assert [t.type for t in fig.data] == ["histogram"] * 12
    assert "12 of 14" in fig.layout.title.text
    np.testing.assert_allclose(np.asarray(fig.data[3].x), Y[:, 3])
    L = (rng.random((200, 5)) < [0.1, 0.5, 0.9, 0.0, 0.3]).astype(float)
    fig = plotting.target_distribution_figure(L, list("abcde"), "multilabel")
    (bar,) = fig.data
    assert bar.type == "bar" and list(bar.x) == list("abcde")
    np.testing.assert_allclose(np.asarray(bar.y), L.mean(axis=0))
    with pytest.raises(ValueError, match="task"):
        plotting.target_distribution_figure(Y, names, "ranking")
    json.loads(fig.to_json())


def test_correlation_frame_and_standalone_html():
    from engine.plotting import correlation_frame, standalone_html

    rng = np.random.default_rng(0)
    Y = rng.normal(size=(50, 3))
    Y[:, 2] = 1.0                                      # a constant output: no correlation
    frame = correlation_frame(Y, ["a", "b", "c"])
    assert list(frame.index) == list(frame.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(frame.to_numpy()[:2, :2], np.corrcoef(Y[:, :2], rowvar=False), atol=1e-12)
    assert np.isnan(frame.to_numpy()[2]).all()
    with pytest.raises(ValueError, match="target_names"):
        correlation_frame(Y, ["a", "b"])
    html = standalone_html(go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="tracename")))
    assert "tracename" in html and "<script src=" not in html   # plotly.js embedded, no CDN


@pytest.mark.parametrize("values, expected", [
    ([1, 300], [1, 2, 5, 10, 20, 50, 100, 200, 500]),          # 1-2-5 up to three decades
    ([0.15, 0.6], [0.1, 0.2, 0.5, 1]),
    ([3e-4, 2.5], [1e-4, 1e-3, 1e-2, 0.1, 1, 10]),            # one per decade beyond
    ([5, 5], [5]),
])
def test_log_ticks_label_in_full_and_span_the_values(values, expected):
    ticks = plotting.log_ticks(values)
    np.testing.assert_allclose(ticks["tickvals"], expected)
    assert ticks["ticktext"] == [f"{t:g}" for t in ticks["tickvals"]]
    assert plotting.log_ticks([0, -1, np.nan]) == {}


def test_every_log_axis_of_a_figure_gets_full_labels():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=np.arange(1, 301), y=np.linspace(0.1, 0.7, 300)), row=1, col=1)
    fig.add_trace(go.Scatter(x=[0.002, 0.9], y=[0.1, 0.6]), row=1, col=2)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", tickvals=[0.1, 1], row=1, col=2)   # explicit ticks are kept
    plotting.label_log_axes(fig)
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "5", "10", "20", "50", "100", "200", "500"]
    assert list(fig.layout.xaxis2.ticktext)[0] == "0.002" and list(fig.layout.xaxis2.ticktext)[-1] == "1"
    assert fig.layout.yaxis.tickvals is None                        # linear axis untouched
    assert list(fig.layout.yaxis2.tickvals) == [0.1, 1]


def test_a_swept_whole_number_x_axis_gets_a_tick_at_each_value():
    fig = go.Figure(go.Scatter(x=[1, 2, 4, 16], y=[0.5, 0.6, 0.7, 0.71]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    plotting.label_log_axes(fig)
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "4", "16"]
    assert list(fig.layout.yaxis.ticktext) == ["0.5", "1"]              # y: never the data values
    many = go.Figure(go.Scatter(x=np.arange(1, 40), y=np.arange(1, 40)))
    many.update_xaxes(type="log")
    assert list(plotting.label_log_axes(many).layout.xaxis.ticktext) == ["1", "2", "5", "10", "20", "50"]


def test_correlation_of_many_mostly_zero_outputs_equals_the_dense_formula():
    # the sparse shortcut (d > 200, under 10 % non-zero) against numpy's corrcoef
    rng = np.random.default_rng(0)
    Y = (rng.random((500, 260)) < 0.03).astype(float)
    Y[:, 5] = 0.0                                   # a constant label
    corr, constant = plotting.empirical_output_correlation(Y)
    keep = ~constant
    assert constant.tolist() == [j == 5 for j in range(260)]
    np.testing.assert_allclose(corr[np.ix_(keep, keep)], np.corrcoef(Y[:, keep], rowvar=False), atol=1e-12)
    assert np.isnan(corr[5]).all() and np.isnan(corr[:, 5]).all()


def test_correlation_heatmap_of_a_wide_label_set_shows_the_most_variable_outputs():
    rng = np.random.default_rng(1)
    freq = np.linspace(0.001, 0.5, 500)
    Y = (rng.random((400, 500)) < freq).astype(float)
    names = [f"tag{j}" for j in range(500)]
    fig = plotting.data_correlation_figure(Y, names, max_outputs=100)
    heat = fig.data[0]
    assert len(heat.x) == len(heat.y) == 100 and np.asarray(heat.z).shape == (100, 100)
    shown = [int(name[3:]) for name in heat.x]
    assert shown == sorted(shown) and min(shown) >= 350         # the labels nearest one half, in order
    assert fig.layout.meta["n_outputs"] == 500 and fig.layout.meta["n_shown"] == 100
    corr, _ = plotting.empirical_output_correlation(Y)
    off = corr[~np.eye(500, dtype=bool)]
    assert fig.layout.meta["mean_abs_corr"] == pytest.approx(np.abs(off[np.isfinite(off)]).mean())
    assert "(all 500); shown: the 100 most variable outputs" in fig.layout.title.text
    small = plotting.data_correlation_figure(Y[:, :50], names[:50], max_outputs=100)
    assert len(small.data[0].x) == 50 and "most variable" not in small.layout.title.text
