"""The estimators' defaults (issue 34) are what their docstrings say, and the papers' names keep
the papers' settings.

The docstring's "Defaults" table and each parameter's "default X" are read and compared with
the signature; ``make_estimator(name)`` is compared with the settings the estimators had before
issue 34 (paper 002's teaching setting), written out here.
"""
import ast
import inspect
import re

import numpy as np
import pytest

from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.early_stopping import stopping_step
from engine.estimators.registry import ESTIMATOR_NAMES, PAPER_BOOSTING_SETTINGS, make_estimator
from engine.names import MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL, PROJECTIONS, SINGLE_TARGET, boosting_name

CLASSES = (MultiOutputBoostingRegressor, MultiLabelBoostingClassifier)

# Chosen by measurement (engine.bench.defaults); a change here is a change of the defaults.
DEFAULTS = dict(strategy="projected_relabel", projection="gaussian", n_projections=1,
                max_leaf_nodes=32, leaf_estimation="auto", l2_regularization=1.0,
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
    # n_iter_no_change: the defaults' 10, not BEFORE's None (unused with early stopping off; with
    # early_stopping=True as an override it stops the fit, where None is refused)
    expected = dict(BEFORE, early_stopping=False, n_iter_no_change=10)
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


@pytest.mark.parametrize("name", ["gbmort", "gbrt-relabel-rpo-gaussian"])
def test_make_estimator_with_early_stopping_true_stops(name):
    """A paper's name with early_stopping=True stops where the rule (n_iter_no_change 10, tol
    1e-4) says on the held-out curve of the same fit without early stopping, and keeps the best
    step. (The papers' settings once set n_iter_no_change=None, and such a fit never stopped.)"""
    rng = np.random.default_rng(0)
    X, Y = rng.uniform(size=(300, 3)), rng.normal(size=(300, 2))       # outputs independent of X
    X_eval, Y_eval = rng.uniform(size=(200, 3)), rng.normal(size=(200, 2))
    kw = dict(n_estimators=300, learning_rate=0.3, random_state=0)
    full = make_estimator(name, **kw).fit(X, Y, eval_set=(X_eval, Y_eval))
    stopped = make_estimator(name, early_stopping=True, **kw).fit(X, Y, eval_set=(X_eval, Y_eval))
    m = stopping_step(full.eval_score_, 10, 1e-4)
    assert stopped.early_stopping_ and stopped.n_steps_run_ == m < 300
    assert stopped.n_steps_ == stopped.best_iteration_ + 1 == int(np.argmax(full.eval_score_[:m])) + 1
    np.testing.assert_array_equal(stopped.predict(X_eval), list(full.staged_predict(X_eval))[stopped.n_steps_ - 1])
