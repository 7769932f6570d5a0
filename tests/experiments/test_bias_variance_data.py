"""engine.experiments.bias_variance_data: bias–variance over learning sets drawn from a data set's rows."""
import numpy as np
import pytest

from engine.datasets import Dataset
from engine.estimators.registry import make_estimator
from engine.experiments.bias_variance_data import DataBiasVarianceSettings, run_bias_variance_on_data
from engine.experiments.problems import Problem

SMALL = dict(n_estimators=5, max_leaf_nodes=4)


def regression(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    Y = np.column_stack([X[:, 0] + X[:, 1], X[:, 2] * 2]) + 0.2 * rng.normal(size=(n, 2))
    return Dataset(name="mine", X=X, Y=Y, feature_names=list("abc"), target_names=["t1", "t2"], task="regression")


def test_disjoint_sets_never_share_a_row_nor_a_test_row():
    test, sets, n_train, n_test = DataBiasVarianceSettings(n_learning_sets=4).sets(100, seed=3)
    assert n_test == 50 and n_train == 12 and len(sets) == 4
    rows = np.concatenate(sets)
    assert len(np.unique(rows)) == 48 and not set(rows) & set(test)
    test_b, boot, n_b, _ = DataBiasVarianceSettings("bootstrap", n_learning_sets=4).sets(100, seed=3)
    assert n_b == 50 and all(len(s) == 50 for s in boot) and not set(np.concatenate(boot)) & set(test_b)
    assert any(len(np.unique(s)) < 50 for s in boot)          # with replacement
    np.testing.assert_array_equal(test, test_b)               # the same test rows for both schemes


@pytest.mark.parametrize("kwargs, match", [
    (dict(scheme="halves"), "scheme"), (dict(n_learning_sets=1), "n_learning_sets"), (dict(n_train=1), "n_train"),
    (dict(n_test=0), "n_test"), (dict(n_seeds=0), "n_seeds"), (dict(estimator_params=[1]), "estimator_params"),
    (dict(estimator_params=dict(random_state=1)), "random_state"),
])
def test_bad_settings_are_named_when_built(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataBiasVarianceSettings(**kwargs)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_train=20), "need 80 rows; the pool has 50"), (dict(n_test=99), "too few"),
    (dict(n_learning_sets=30), "would have 1 row"),
])
def test_what_the_rows_cannot_give_is_a_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataBiasVarianceSettings(**dict(dict(n_learning_sets=4), **kwargs)).sets(100)


def test_the_terms_are_the_brute_force_ones_and_add_up_to_the_error():
    ds = regression()
    settings = DataBiasVarianceSettings(n_learning_sets=3, n_seeds=2, estimator_params=SMALL)
    res = run_bias_variance_on_data(ds, settings, ["gbrt-rpo-gaussian", "gbmort"], seed=1)
    test, sets, _, _ = settings.sets(ds.n_samples, seed=1)
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
    settings = DataBiasVarianceSettings("bootstrap", n_learning_sets=2, n_train=40, estimator_params=dict(n_estimators=5))
    res = run_bias_variance_on_data(ds, settings, ["mo-rf"], seed=0)
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

    settings = DataBiasVarianceSettings(n_learning_sets=4, estimator_params=SMALL)
    res = run_bias_variance_on_data(regression(), settings, ["gbmort"], progress=progress, stop=stop)
    assert res.partial and res.n_sets_done == 2 and res.n_learning_sets == 4


@pytest.mark.parametrize("args, kwargs, match", [
    ((regression(), DataBiasVarianceSettings(), ["nope"]), {}, "estimators"),
    ((regression(), DataBiasVarianceSettings(), []), {}, "estimators"),
    ((regression(), dict(n_learning_sets=2), ["gbmort"]), {}, "settings"),
    (("friedman1-chain", DataBiasVarianceSettings(), ["gbmort"]), {}, "problem"),
    ((regression(), DataBiasVarianceSettings(), ["gbmort"]), dict(seed=-1), "seed"),
    ((regression(), DataBiasVarianceSettings(estimator_params=dict(max_leaf_nodes=1)), ["gbmort"]), {}, "max_leaf_nodes"),
    ((regression(), DataBiasVarianceSettings(n_learning_sets=60), ["gbmort"]), {}, "would have 1 row"),
    ((regression(), DataBiasVarianceSettings(), ["gbmort"]), dict(progress=3), "progress"),
])
def test_bad_arguments_are_named_before_any_fit(args, kwargs, match, monkeypatch):
    import engine.experiments.bias_variance_data as bvd
    monkeypatch.setattr(bvd, "_scores", lambda *a: pytest.fail("fitted before the checks"))
    with pytest.raises(ValueError, match=match):
        run_bias_variance_on_data(*args, **kwargs)


def test_a_shipped_set_by_name_is_its_problem():
    res = run_bias_variance_on_data(Problem("flags"), DataBiasVarianceSettings(n_learning_sets=2, estimator_params=SMALL),
                                    ["gbmort"], seed=2)
    assert res.dataset == "flags" and res.task == "multilabel" and res.n_sets_done == 2
