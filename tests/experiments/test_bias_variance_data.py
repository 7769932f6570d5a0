"""engine.experiments.bias_variance_data: bias–variance over learning sets drawn from a data set's rows."""
import numpy as np
import pytest

from engine.datasets import Dataset
from engine.estimators.registry import make_estimator
from engine.experiments.bias_variance_data import learning_sets, run_bias_variance_on_data

SMALL = dict(n_estimators=5, max_leaf_nodes=4)


def regression(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    Y = np.column_stack([X[:, 0] + X[:, 1], X[:, 2] * 2]) + 0.2 * rng.normal(size=(n, 2))
    return Dataset(name="mine", X=X, Y=Y, feature_names=list("abc"), target_names=["t1", "t2"], task="regression")


def test_disjoint_sets_never_share_a_row_nor_a_test_row():
    test, sets, n_train, n_test = learning_sets(100, "disjoint", 4, seed=3)
    assert n_test == 50 and n_train == 12 and len(sets) == 4
    rows = np.concatenate(sets)
    assert len(np.unique(rows)) == 48 and not set(rows) & set(test)
    test_b, boot, n_b, _ = learning_sets(100, "bootstrap", 4, seed=3)
    assert n_b == 50 and all(len(s) == 50 for s in boot) and not set(np.concatenate(boot)) & set(test_b)
    assert any(len(np.unique(s)) < 50 for s in boot)          # with replacement
    np.testing.assert_array_equal(test, test_b)               # the same test rows for both schemes


@pytest.mark.parametrize("kwargs, match", [
    (dict(scheme="halves"), "scheme"), (dict(n_learning_sets=1), "n_learning_sets"),
    (dict(n_train=20), "need 80 rows; the pool has 50"), (dict(n_test=99), "too few"),
])
def test_what_the_rows_cannot_give_is_a_value_error(kwargs, match):
    args = dict(n_rows=100, scheme="disjoint", n_learning_sets=4) | kwargs
    with pytest.raises(ValueError, match=match):
        learning_sets(**args)


def test_the_terms_are_the_brute_force_ones_and_add_up_to_the_error():
    ds = regression()
    res = run_bias_variance_on_data(ds, ["gbrt-rpo-gaussian", "gbmort"], n_learning_sets=3, n_seeds=2,
                                    estimator_params=SMALL, seed=1)
    test, sets, _, _ = learning_sets(ds.n_samples, "disjoint", 3, seed=1)
    seeds = np.random.SeedSequence(1).generate_state(6).reshape(3, 2)
    for e, name in enumerate(res.estimators):
        F = np.array([[make_estimator(name, random_state=int(seeds[k, s]), **SMALL).fit(ds.X[rows], ds.Y[rows])
                       .predict(ds.X[test]) for s in range(2)] for k, rows in enumerate(sets)])
        y = ds.Y[test]
        mean = F.mean(axis=(0, 1))
        assert res.error[e] == pytest.approx(np.mean((F - y) ** 2), rel=1e-12)
        assert res.bias2_noise[e] == pytest.approx(np.mean((mean - y) ** 2), rel=1e-12)
        set_means = F.mean(axis=1)
        assert res.learning_set_variance[e] == pytest.approx(np.mean((set_means - mean) ** 2), rel=1e-12)
        assert res.error[e] == pytest.approx(res.bias2_noise[e] + res.variance[e], rel=1e-10)
    assert res.algorithm_variance[1] == 0.0 < res.algorithm_variance[0]     # gbmort is deterministic here


def test_labels_are_decomposed_on_their_probabilities():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 3))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(160, 3)) > 0).astype(float)
    ds = Dataset(name="labels", X=X, Y=Y, feature_names=list("abc"), target_names=["l1", "l2", "l3"], task="multilabel")
    res = run_bias_variance_on_data(ds, ["mo-rf"], scheme="bootstrap", n_learning_sets=2, n_train=40,
                                    estimator_params=dict(n_estimators=5), seed=0)
    assert res.task == "multilabel" and res.n_train == 40 and 0 < res.error[0] < 0.25   # a Brier score, better than 0.5
    assert res.error[0] == pytest.approx(res.bias2_noise[0] + res.variance[0], rel=1e-10)


def test_a_stop_keeps_the_sets_done():
    import threading

    stop = threading.Event()
    calls = []

    def progress(fraction, message=None, **_):
        calls.append(message)
        if len(calls) == 2:     # after the second learning set's fit
            stop.set()

    res = run_bias_variance_on_data(regression(), ["gbmort"], n_learning_sets=4, estimator_params=SMALL,
                                    progress=progress, stop=stop)
    assert res.partial and res.n_sets_done == 2 and res.n_learning_sets == 4
    with pytest.raises(ValueError, match="estimators"):
        run_bias_variance_on_data(regression(), ["nope"])
