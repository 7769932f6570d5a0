"""engine.bias_variance: the decomposition's identity, eq. 4.28, determinism, backends, errors."""
import json
import threading

import numpy as np
import pytest

from engine.bias_variance import AveragedEstimator, BiasVarianceResult, run_bias_variance

SMALL = dict(n_learning_sets=4, n_train=100, n_test=200, n_outputs=4)


def _rpo(**kw):
    return run_bias_variance("gbrt-rpo-gaussian", param_name="learning_rate", param_values=[0.1, 0.5],
                             n_seeds=2, estimator_params=dict(n_estimators=20), seed=3, **SMALL, **kw)


@pytest.mark.parametrize("structure", ["chain", "group", "ind"])
def test_identity_holds(structure):
    res = run_bias_variance("gbrt-relabel-rpo-gaussian", param_name="n_estimators", param_values=[1, 5, 30],
                            structure=structure, n_seeds=3, estimator_params=dict(n_projections=2),
                            **SMALL)
    assert isinstance(res, BiasVarianceResult)
    assert res.identity_gap < 1e-10
    total = res.noise + res.bias2 + res.var_learning_set + res.var_algorithm
    np.testing.assert_allclose(res.error, total, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res.variance, res.var_learning_set + res.var_algorithm, atol=1e-12)
    assert (res.var_algorithm > 0).all() and (res.var_learning_set > 0).all()
    # Exact noise: noise^2 per output, j * noise^2 along the chain.
    expected = np.arange(1, 5) if structure == "chain" else np.ones(4)
    np.testing.assert_allclose(res.noise_per_output[0], expected)
    # More boosting steps fit better here: bias^2 decreases.
    assert res.bias2[-1] < res.bias2[0]
    # The empirical error on one noisy test draw agrees with the analytic one.
    np.testing.assert_allclose(res.error_noisy_test, res.error, rtol=0.15)
    assert res.slice_curves.shape == (3, 4, res.slice_x.size)
    assert res.slice_mean.shape == (3, res.slice_x.size)


def test_staged_equals_refit():
    """An n_estimators sweep reads stages of one fit; that equals refitting each value."""
    kw = dict(estimator_params=dict(max_leaf_nodes=3), seed=1, **SMALL)
    staged = run_bias_variance("gbmort", param_name="n_estimators", param_values=[2, 7], **kw)
    for k, m in enumerate([2, 7]):
        single = run_bias_variance("gbmort", param_name="max_leaf_nodes", param_values=[3],
                                   estimator_params=dict(n_estimators=m), seed=1, **SMALL)
        np.testing.assert_allclose(staged.error_per_output[k], single.error_per_output[0], rtol=1e-9)
        np.testing.assert_allclose(staged.bias2_per_output[k], single.bias2_per_output[0], rtol=1e-9)


def _averaged(n_models=1, **params):
    return AveragedEstimator("gbrt-rpo-gaussian", n_models=n_models, **params)


def test_averaging_divides_only_the_algorithm_variance():
    """Thesis eq. 4.28: averaging M randomized models divides E_L Var_theta by M.

    Bias^2 and Var_L(E_theta f) are properties of E_theta f, unchanged by
    averaging. With 8 seeds per set the Monte-Carlo error of each term is a
    few per cent, so the tolerances are wide compared with the factor 4.
    """
    res = run_bias_variance(_averaged, param_name="n_models", param_values=[1, 4], structure="group",
                            n_learning_sets=6, n_train=150, n_test=300, n_outputs=4, n_seeds=8,
                            estimator_params=dict(n_estimators=20, learning_rate=0.5), seed=0, n_jobs=2)
    ratio = res.var_algorithm[0] / res.var_algorithm[1]
    assert 2.5 < ratio < 6.0, ratio
    np.testing.assert_allclose(res.bias2[1], res.bias2[0], rtol=0.1)
    # Var_L of the seed average: its estimate includes var_algorithm / n_seeds, so compare loosely.
    np.testing.assert_allclose(res.var_learning_set[1], res.var_learning_set[0], rtol=0.35)
    assert res.identity_gap < 1e-10
    assert res.error[1] < res.error[0]


def test_deterministic_and_n_jobs_invariant():
    a, b, c = _rpo(), _rpo(), _rpo(n_jobs=2)
    for other in (b, c):
        for key in ("error_per_output", "bias2_per_output", "var_learning_set_per_output",
                    "var_algorithm_per_output", "slice_curves", "slice_mean"):
            np.testing.assert_array_equal(getattr(a, key), getattr(other, key))
    d = run_bias_variance("gbrt-rpo-gaussian", param_name="learning_rate", param_values=[0.1, 0.5],
                          n_seeds=2, estimator_params=dict(n_estimators=20), seed=4, **SMALL)
    assert not np.array_equal(a.error, d.error)


def test_dask_equals_joblib():
    distributed = pytest.importorskip("distributed")
    ref = _rpo()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        res = _rpo(client=client)
    np.testing.assert_array_equal(ref.error_per_output, res.error_per_output)
    np.testing.assert_array_equal(ref.var_algorithm_per_output, res.var_algorithm_per_output)
    np.testing.assert_array_equal(ref.slice_curves, res.slice_curves)


def test_stop_returns_partial_and_progress():
    stop = threading.Event()
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        if len(seen) == 2:
            stop.set()

    res = run_bias_variance("gbmort", param_name="n_estimators", param_values=[1, 3], n_learning_sets=6,
                            n_train=50, n_test=50, n_outputs=2, progress=progress, stop=stop)
    assert res.partial and res.n_sets_done == 2 and res.n_learning_sets == 6
    assert seen == [pytest.approx(1 / 6), pytest.approx(2 / 6)]
    assert res.identity_gap < 1e-10
    full = run_bias_variance("gbmort", param_name="n_estimators", param_values=[1, 3], n_learning_sets=6,
                             n_train=50, n_test=50, n_outputs=2)
    assert not full.partial and full.n_sets_done == 6


def test_frame_and_json():
    res = _rpo()
    df = res.to_frame()
    assert list(df["param_value"]) == ["0.1", "0.5"]
    assert {"error", "noise", "bias2", "variance", "var_learning_set", "var_algorithm"} <= set(df.columns)
    data = json.loads(res.to_json())
    assert data["estimator"] == "gbrt-rpo-gaussian" and len(data["bias2_per_output"]) == 2
    assert data["identity_gap"] < 1e-10


@pytest.mark.parametrize("kwargs, word", [
    (dict(estimator="nope"), "estimator"),
    (dict(estimator=3), "estimator"),
    (dict(param_name="n_estimators", param_values=[]), "param_values"),
    (dict(param_name="n_estimators", param_values=[0, 5]), "n_estimators"),
    (dict(param_name="n_estimators", param_values=None), "param_values"),
    (dict(param_name="not_a_param", param_values=[1]), "not_a_param"),
    (dict(param_name="learning_rate", param_values=[2.0]), "learning_rate"),
    (dict(n_learning_sets=1), "n_learning_sets"),
    (dict(n_seeds=0), "n_seeds"),
    (dict(structure="tree"), "structure"),
    (dict(noise=-1.0), "noise"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(backend="spark"), "backend"),
    (dict(estimator_params=dict(random_state=1)), "random_state"),
    (dict(param_name="n_estimators", param_values=[1, 1]), "duplicates"),
])
def test_bad_input(kwargs, word):
    kwargs = {"estimator": "gbmort", **kwargs}
    estimator = kwargs.pop("estimator")
    with pytest.raises(ValueError, match=word):
        run_bias_variance(estimator, **kwargs)


def test_plotting_builders(tmp_path):
    from engine import plotting_bias_variance as pbv
    res = run_bias_variance("gbmort", param_name="n_estimators", param_values=[1, 3, 10], n_learning_sets=3,
                            n_train=50, n_test=50, n_outputs=2)
    fig = pbv.bias_variance_figure(res)
    assert {t.name for t in fig.data} >= {"expected error", "bias²", "variance"}
    assert fig.layout.xaxis.type == "log"
    fig2 = pbv.bias_variance_comparison_figure({"a": res, "b": res})
    assert len(fig2.data) == 6
    fig3 = pbv.slice_curves_figure(res)
    assert len(fig3.data) == 3 + 2


def test_forests_join_the_decomposition():
    """A projected forest by name: refitted per value (no staged_predict), identity holds."""
    r = run_bias_variance("rf-gaussian-per-tree", param_name="n_estimators", param_values=[1, 8],
                             n_learning_sets=3, n_train=80, n_test=150, n_seeds=2, n_outputs=4,
                             estimator_params=dict(n_components=2, min_samples_leaf=3), seed=1)
    assert abs(r.identity_gap) < 1e-10
    assert (r.var_algorithm >= 0).all()
    # Averaging more randomized trees shrinks the algorithm variance.
    assert r.var_algorithm[1] < r.var_algorithm[0]
