"""The estimators' defaults (issue 34) are what their docstrings say, and the papers' names keep
the papers' settings.

The docstring's "Defaults" table and each parameter's "default X" are read and compared with
the signature; ``make_estimator(name)`` is compared with the settings the estimators had before
issue 34 (paper 002's teaching setting), written out here.
"""
import ast
import inspect
import re

import pytest

from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.registry import ESTIMATOR_NAMES, PAPER_BOOSTING_SETTINGS, make_estimator
from engine.names import MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL, PROJECTIONS, SINGLE_TARGET, boosting_name

CLASSES = (MultiOutputBoostingRegressor, MultiLabelBoostingClassifier)

# Chosen by measurement (engine.bench.defaults); a change here is a change of the defaults.
DEFAULTS = dict(strategy="projected_relabel", projection="gaussian", n_projections=1,
                max_leaf_nodes=32, leaf_estimation="newton", l2_regularization=1.0,
                learning_rate=0.1, n_estimators=300, early_stopping="auto", n_iter_no_change=10,
                validation_fraction=0.1, tol=1e-4)

# The estimators' signature before issue 34: the papers' teaching setting.
BEFORE = dict(strategy="multi_output", projection="subsample", n_projections=1, learning_rate=0.1,
              n_estimators=100, max_leaf_nodes=2, max_depth=None, min_samples_leaf=1,
              max_features=None, subsample=1.0, leaf_estimation="mean", l2_regularization=1.0,
              validation_fraction=0.1, n_iter_no_change=None, tol=1e-4)


def _signature(cls):
    return {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
            if p.kind is p.KEYWORD_ONLY}


def _documented_table(cls):
    """{parameter: default} from the rows of the docstring's Defaults table."""
    doc = cls.__doc__
    section = doc[doc.index("Defaults\n    --------"):doc.index("Parameters\n    ----------")]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^    ([a-z_0-9]+) {2,}(\S+) {2,}", line)
        if m and m.group(1) != "parameter":
            rows[m.group(1)] = ast.literal_eval(m.group(2))
    return rows


@pytest.mark.parametrize("cls", CLASSES)
def test_the_signature_defaults_are_the_chosen_ones(cls):
    signature = _signature(cls)
    assert {k: signature[k] for k in DEFAULTS} == DEFAULTS


@pytest.mark.parametrize("cls", CLASSES)
def test_the_documented_table_is_the_signature(cls):
    table = _documented_table(cls)
    assert set(table) == set(DEFAULTS)
    signature = _signature(cls)
    assert table == {k: signature[k] for k in table}


@pytest.mark.parametrize("cls", CLASSES)
def test_every_documented_parameter_default_is_the_signature(cls):
    """Each "name : type, default X" line of the Parameters section agrees with the signature."""
    doc = cls.__doc__
    params = doc[doc.index("Parameters\n    ----------"):doc.index("Attributes\n    ----------")]
    params = params.replace("\\\n", "")
    signature = _signature(cls)
    found = {}
    for m in re.finditer(r"^    ([a-z_0-9]+) : [^\n]*?default:? ([^\s,)]+)", params, re.M):
        found[m.group(1)] = ast.literal_eval(m.group(2))
    assert set(DEFAULTS) <= set(found), sorted(set(DEFAULTS) - set(found))
    assert found == {k: signature[k] for k in found}


@pytest.mark.parametrize("task", ["regression", "multilabel"])
@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
def test_make_estimator_names_the_papers_methods_with_their_settings(name, task):
    params = make_estimator(name, task=task).get_params()
    expected = dict(BEFORE, early_stopping=False)
    if name == boosting_name(SINGLE_TARGET):
        expected["strategy"] = SINGLE_TARGET
    elif name == boosting_name(MULTI_OUTPUT):
        expected["strategy"] = MULTI_OUTPUT
    else:
        strategy, projection = next((s, p) for s in (PROJECTED, PROJECTED_RELABEL) for p in PROJECTIONS
                                    if boosting_name(s, p) == name)
        expected.update(strategy=strategy, projection=projection)
    assert {k: params[k] for k in expected} == expected
    assert {k: v for k, v in PAPER_BOOSTING_SETTINGS.items()} == {k: expected[k] for k in PAPER_BOOSTING_SETTINGS}


def test_make_estimator_overrides_win():
    est = make_estimator("gbrt-relabel-rpo-gaussian", n_estimators=7, leaf_estimation="newton",
                         early_stopping=True, n_iter_no_change=4)
    assert (est.n_estimators, est.leaf_estimation, est.early_stopping, est.n_iter_no_change) == \
        (7, "newton", True, 4)
    assert est.max_leaf_nodes == 2 and est.learning_rate == 0.1
