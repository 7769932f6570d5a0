"""The method table (engine/methods.py) against what the estimators do, and its readers against it."""
import numpy as np
import pytest

from engine import make_estimator
from engine._core import Strategy
from engine.estimators.registry import BOOSTING_CONFIGS, FOREST_CONFIGS
from engine.methods import (BOOSTING, FORESTS, SCHEMES, boosting_name, columns, forest_names, method_colours,
                            method_of)
from engine.names import BOOSTING_NAMES, FOREST_NAMES, PROJECTIONS
from engine.plotting.common import METHOD_COLORS
from engine.plotting.legend import explain
from engine.projections import draw_projections

D = 5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    return X, X[:, :1] + rng.random((40, D))


@pytest.mark.parametrize("strategy", list(BOOSTING))
def test_a_strategy_row_says_what_its_fit_grows(strategy, data):
    """Trees per step, the projection's rows (split-target columns for a projected strategy) and
    whether q is taken are the row's, read from a fitted model."""
    row = BOOSTING[strategy]
    assert isinstance(getattr(Strategy, row.core_step), int)
    X, Y = data
    q = 3 if row.takes_q else 1
    params = dict(n_estimators=2, n_projections=q) if row.projected else dict(n_estimators=2)
    name = boosting_name(strategy, "gaussian" if row.projected else None)
    model = make_estimator(name, **params).fit(X, Y)
    assert model.trees_.n_trees == 2 * columns(row.trees_per_step, q, D)
    if row.projected:
        assert model.projections_.shape == (2, columns(row.split_columns, q, D), D)
    else:
        assert model.projections_ is None
    if row.projected and not row.takes_q:
        with pytest.raises(ValueError, match="n_projections must be 1"):
            make_estimator(name, n_projections=2).fit(X, Y)
    newton = make_estimator(name, leaf_estimation="newton", **params)
    if row.newton_refusal is None:
        newton.fit(X, Y)
    else:
        with pytest.raises(ValueError, match="leaf_estimation='newton'"):
            newton.fit(X, Y)


def test_every_name_comes_from_a_row_and_back():
    assert set(BOOSTING_NAMES) == set(BOOSTING_CONFIGS)
    assert set(FOREST_NAMES) == set(FOREST_CONFIGS) == set(forest_names())
    for name in BOOSTING_NAMES + FOREST_NAMES:
        row, scheme = method_of(name)
        assert (scheme is not None) == row.projected
        assert explain(name), name
    assert method_of("gbrt-rpo-nothing") is None


def test_boosting_name_refuses_what_no_row_makes():
    """names.boosting_name's old ``else`` gave any unknown strategy Algorithm 4's name."""
    with pytest.raises(ValueError, match="strategy must be one of"):
        boosting_name("projected_twice", "gaussian")
    with pytest.raises(ValueError, match="projection must be one of"):
        boosting_name("projected")


@pytest.mark.parametrize("scheme", PROJECTIONS)
def test_a_scheme_row_draws_its_projections(scheme):
    """The row's draw function is what draw_projections runs, and its dense flag says what it draws."""
    phi = draw_projections(scheme, 200, 2, 64, np.random.default_rng(1))
    same = SCHEMES[scheme].draw(np.random.default_rng(1), 200, 2, 64)
    np.testing.assert_array_equal(phi, same)
    # dense: a third or more of the entries non-zero (Achlioptas 1/3); sparse 1/8 at d = 64, sub-sampling 1/64
    assert ((phi != 0).mean() > 0.25) == SCHEMES[scheme].dense


def test_the_charts_colours_are_the_rows():
    """The colours every chart gave before the table (issue 31) are the rows' now."""
    assert METHOD_COLORS == {"st-gbrt": "#1f77b4", "gbmort": "#d62728", "gbrt-rpo-subsampled": "#2ca02c",
                             "artificial-gbrt": "#7f7f7f"}
    assert set(method_colours()) <= set(BOOSTING_NAMES + FOREST_NAMES)
    assert all(row.kind in FOREST_CONFIGS for row in FORESTS.values() if not row.projected)
