"""engine.plotting: formulas behind the Home figure and the figure itself (no streamlit)."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from engine import plotting


def test_friedman1_variance_matches_monte_carlo():
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(400_000, 5))
    f = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3] + 5 * x[:, 4]
    assert plotting.friedman1_variance() == pytest.approx(f.var(), rel=0.01)
    assert plotting.friedman1_variance() == pytest.approx(23.83, abs=0.01)


@pytest.mark.parametrize("structure", plotting.STRUCTURES)
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
    assert [t.name for t in fig.data] == list(plotting.STRUCTURES)
    for trace, structure in zip(fig.data, plotting.STRUCTURES):
        np.testing.assert_allclose(np.asarray(trace.z), plotting.friedman1_output_correlation(structure, 16))
        assert trace.coloraxis == "coloraxis"  # one shared colour scale
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0.0, 1.0)
    assert len(fig.layout.annotations) == 3  # subplot titles
    json.loads(fig.to_json())  # serialisable, as st.plotly_chart needs
