"""The scikit-learn reference rows of the benchmark protocol take a sparse X (bibtex, corel5k).

Oracle: the same reference fitted on the dense copy of X. scikit-learn's forests grow the same
trees on CSR and dense input; its gradient boosting's sparse splitter may break ties between
equally good splits differently, so there only the shapes and the scores' range are checked.
"""

import numpy as np
import pytest
from scipy import sparse

from engine.experiments.model_selection import make_method


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sparse.random(120, 30, density=0.1, format="csr", random_state=1, data_rvs=lambda k: rng.integers(1, 4, k))
    Y = (rng.random((120, 5)) < 0.3).astype(float)
    Y[:, 0] = (X[:, 0].toarray().ravel() > 0)          # one label the inputs explain
    return X, Y


@pytest.mark.parametrize("name", ["sklearn-rf", "sklearn-st-rf"])
def test_reference_forests_on_csr_equal_the_dense_fit(data, name):
    X, Y = data
    a = make_method(name, "multilabel", None, Y.shape[1], dict(n_estimators=3, random_state=0)).fit(X[:80], Y[:80])
    b = make_method(name, "multilabel", None, Y.shape[1], dict(n_estimators=3, random_state=0)).fit(
        X[:80].toarray(), Y[:80])
    np.testing.assert_array_equal(a.decision_function(X[80:]), b.decision_function(X[80:].toarray()))


def test_reference_gb_on_csr(data):
    X, Y = data
    est = make_method("sklearn-gb", "multilabel", None, Y.shape[1], dict(n_estimators=5, random_state=0))
    est.fit(X[:80], Y[:80])
    scores = est.decision_function(X[80:])
    assert scores.shape == (40, 5) and np.isfinite(scores).all()
    steps, lraps = est.validation_curve(X[80:], Y[80:], checkpoints=[1, 5])
    assert list(steps) == [1, 5] and np.all((lraps > 0) & (lraps <= 1))
