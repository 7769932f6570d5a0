"""engine.experiments.bias_variance: the decomposition's identity, eq. 4.28, determinism, backends, errors."""
import json
import threading

import distributed
import numpy as np
import pytest

from engine.experiments import bias_variance as bv
from engine import make_estimator
from engine.estimators.averaged import AveragedEstimator
from engine.reports.reproduce import averaged_gaussian_rpo
from engine.experiments.bias_variance import DEFAULT_SEEDS, BiasVarianceResult, run_bias_variance
from bias_variance_calls import run_bv, running_bv, running_for_flat

SMALL = dict(n_learning_sets=4, n_train=100, n_test=200, n_outputs=4)


def _rpo(**kw):
    return run_bv("gbrt-rpo-gaussian", param_name="learning_rate", param_values=[0.1, 0.5],
                             n_seeds=2, estimator_params=dict(n_estimators=20), seed=3, **SMALL, **kw)


@pytest.mark.parametrize("structure", ["chain", "group", "ind"])
def test_identity_holds(structure):
    res = run_bv("gbrt-relabel-rpo-gaussian", param_name="n_estimators", param_values=[1, 5, 30],
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
    staged = run_bv("gbmort", param_name="n_estimators", param_values=[2, 7], **kw)
    for k, m in enumerate([2, 7]):
        single = run_bv("gbmort", param_name="max_leaf_nodes", param_values=[3],
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
    res = run_bv(_averaged, param_name="n_models", param_values=[1, 4], structure="group",
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
    d = run_bv("gbrt-rpo-gaussian", param_name="learning_rate", param_values=[0.1, 0.5],
                          n_seeds=2, estimator_params=dict(n_estimators=20), seed=4, **SMALL)
    assert not np.array_equal(a.error, d.error)


@pytest.mark.slow
def test_dask_equals_joblib():
    """Worker processes (so the work is pickled and engine imported there), by client= and
    by backend="dask" with the current client: the same numbers as joblib's in-process run."""
    ref = _rpo()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            by_client = _rpo(client=client)
            by_backend = _rpo(backend="dask")
            workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    for res in (by_client, by_backend):
        assert not res.partial and res.n_sets_done == SMALL["n_learning_sets"]
        for key in ("error_per_output", "bias2_per_output", "var_learning_set_per_output",
                    "var_algorithm_per_output", "slice_curves", "slice_mean"):
            np.testing.assert_array_equal(getattr(ref, key), getattr(res, key))


def test_backend_dask_without_a_client_is_refused_before_work():
    with pytest.raises(ValueError, match="backend='dask' needs"):
        _rpo(backend="dask")


def test_stop_after_two_learning_sets_keeps_them():
    stop = threading.Event()
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        if fraction >= 2 / 6 - 1e-12:
            stop.set()

    res = run_bv("gbmort", param_name="n_estimators", param_values=[1, 3], n_learning_sets=6,
                            n_train=50, n_test=50, n_outputs=2, progress=progress, stop=stop)
    assert res.partial and res.n_sets_done == 2 and res.n_learning_sets == 6
    # progress within each set (after every fit and chunk of steps), never backwards, up to set 2's end
    assert seen == sorted(seen) and seen[-1] == pytest.approx(2 / 6) and len(seen) > 2
    assert any(f == pytest.approx(1 / 6) for f in seen)
    assert res.identity_gap < 1e-10
    full = run_bv("gbmort", param_name="n_estimators", param_values=[1, 3], n_learning_sets=6,
                             n_train=50, n_test=50, n_outputs=2)
    assert not full.partial and full.n_sets_done == 6
    # the two sets kept are the first two sets of the full run
    two = run_bv("gbmort", param_name="n_estimators", param_values=[1, 3], n_learning_sets=2,
                            n_train=50, n_test=50, n_outputs=2)
    np.testing.assert_array_equal(res.error_per_output, two.error_per_output)


@pytest.mark.slow
def test_stop_with_worker_processes_keeps_the_sets_done():
    """On workers the flag is read as each learning set comes back; later sets are cancelled."""
    stop = threading.Event()
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        stop.set()

    res = _rpo(n_jobs=2, progress=progress, stop=stop)
    assert res.partial and res.n_sets_done == 1 and seen == [pytest.approx(1 / SMALL["n_learning_sets"])]
    # the same first set as in-process, stopped at that set's end
    serial_stop = threading.Event()
    one = _rpo(progress=lambda f, m: f >= 1 / SMALL["n_learning_sets"] - 1e-12 and serial_stop.set(),
               stop=serial_stop)
    assert one.n_sets_done == 1
    np.testing.assert_array_equal(res.error_per_output, one.error_per_output)


def _recording(name):
    """A factory that keeps every estimator it builds (in-process runs only)."""
    built = []

    def factory(**params):
        est = make_estimator(name, **params)
        built.append(est)
        return est
    return factory, built


@pytest.mark.parametrize("sweep", [
    dict(param_name="n_estimators", param_values=[10, 5000]),                       # one staged fit
    dict(param_name="learning_rate", param_values=[0.1, 0.2], estimator_params=dict(n_estimators=5000)),
])
def test_stop_on_the_first_report_ends_the_fit_in_progress(sweep):
    """A stop set during the first fit ends it within a chunk of steps, not after 5000 steps
    (counted in steps, not seconds); the unfinished learning set is dropped."""
    factory, built = _recording("gbrt-rpo-gaussian")
    stop = threading.Event()
    seen = []

    def progress(fraction, message):
        seen.append(message)
        stop.set()

    res = run_bv(factory, n_learning_sets=5, n_train=100, n_test=50, n_outputs=4, n_seeds=3,
                            progress=progress, stop=stop, **sweep)
    fitted = [e for e in built if hasattr(e, "n_steps_")]
    assert len(fitted) == 1 and 1 <= fitted[0].n_steps_ <= 16
    assert res.partial and res.n_sets_done == 0 and len(seen) == 1
    assert np.isnan(res.error).all() and res.slice_curves.shape[1] == 0


def test_stop_already_set_does_no_work():
    factory, built = _recording("gbmort")
    stop = threading.Event()
    stop.set()
    res = run_bv(factory, param_name="n_estimators", param_values=[1, 3], n_learning_sets=3,
                            n_train=30, n_test=20, n_outputs=2, stop=stop)
    assert res.partial and res.n_sets_done == 0
    assert not [e for e in built if hasattr(e, "n_steps_")]


def test_averaged_estimator_relays_the_callback_and_stops():
    X = np.random.default_rng(0).random((60, 5))
    Y = X[:, :2] + X[:, 2:4]
    steps = []
    avg = AveragedEstimator("gbrt-rpo-gaussian", n_models=3, n_estimators=40, random_state=0)
    avg.fit(X, Y, callback=lambda n, est: steps.append(n) or False)
    assert len(avg.estimators_) == 3 and steps == sorted(steps) and steps[-1] == 3 * 40
    avg.fit(X, Y, callback=lambda n, est: True)
    assert len(avg.estimators_) == 1 and avg.estimators_[0].n_steps_ < 40


@pytest.mark.parametrize("estimator, extra, seeds", [
    ("gbmort", {}, 1),                                           # deterministic: Var_theta = 0
    ("st-gbrt", {}, 1),
    ("gbrt-rpo-gaussian", {}, DEFAULT_SEEDS),                    # random projections
    ("gbmort", dict(param_name="max_features", param_values=[2, 5]), DEFAULT_SEEDS),  # k < p at 2
    ("gbmort", dict(estimator_params=dict(subsample=0.5)), DEFAULT_SEEDS),                # row sub-sampling
    ("mo-rf", {}, DEFAULT_SEEDS),                                                          # bootstrap
])
def test_default_seeds_follow_the_estimators_randomness(estimator, extra, seeds):
    kw = dict(param_name="n_estimators", param_values=[1, 3], estimator_params={})
    kw.update(extra)
    res = run_bv(estimator, n_learning_sets=2, n_train=40, n_test=30, n_outputs=3, **kw)
    assert res.n_seeds == seeds
    if seeds == 1:
        assert (res.var_algorithm == 0).all()
    else:
        assert (res.var_algorithm > 0).all()
    assert run_bv(estimator, n_learning_sets=2, n_train=40, n_test=30, n_outputs=3, n_seeds=2,
                             **kw).n_seeds == 2


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
    (dict(structure="tree"), "dataset"),
    (dict(noise=-1.0), "noise"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(backend="spark"), "backend"),
    (dict(estimator_params=dict(random_state=1)), "random_state"),
    (dict(param_name="n_estimators", param_values=[1, 1]), "duplicates"),
    # values the data's shapes rule out (q <= d for sub-sampling, max_features <= p)
    (dict(estimator="gbrt-relabel-rpo-subsampled", param_name="n_projections", param_values=[1, 50],
          n_outputs=4), "n_projections=50.*larger than the number of outputs d = 4"),
    (dict(estimator="gbrt-relabel-rpo-subsampled", estimator_params=dict(n_projections=17)),
     "estimator_params.*n_projections"),
    (dict(estimator="rf-subsampled-per-tree", param_name="n_components", param_values=[2, 9], n_outputs=4),
     r"n_components=9.*n_components \(q\) = 9"),
    (dict(param_name="max_features", param_values=[3, 6]), "max_features=6.*exceeds the number of features"),
    (dict(estimator="gbrt-rpo-gaussian", param_name="n_projections", param_values=[1, 2]), "n_projections=2"),
    (dict(estimator=averaged_gaussian_rpo, param_name="n_models", param_values=[2, 0]), "n_models"),
    (dict(progress="yes"), "progress"),
    (dict(stop=object()), "stop"),
    (dict(client=object()), "client"),
])
def test_bad_input(kwargs, word, monkeypatch):
    # Before any work: no test set drawn, no learning set started.
    monkeypatch.setattr(bv, "_test_set", lambda *a, **k: pytest.fail("work started before validation"))
    monkeypatch.setattr(bv, "_run_set", lambda *a, **k: pytest.fail("work started before validation"))
    kwargs = {"estimator": "gbmort", **kwargs}
    estimator = kwargs.pop("estimator")
    with pytest.raises(ValueError, match=word):
        run_bv(estimator, **kwargs)


def test_shape_checks_allow_what_the_data_allows():
    """q = d and max_features = p are fine; on "ind" p = 5 d."""
    for kwargs in (dict(estimator="gbrt-relabel-rpo-subsampled", param_name="n_projections", param_values=[4]),
                   dict(estimator="gbmort", param_name="max_features", param_values=[20], structure="ind")):
        res = run_bv(n_learning_sets=2, n_train=30, n_test=20, n_outputs=4, n_seeds=1,
                                estimator_params=dict(n_estimators=2), **kwargs)
        assert res.n_sets_done == 2


def test_plotting_builders(tmp_path):
    from engine import plotting as pbv
    res = run_bv("gbmort", param_name="n_estimators", param_values=[1, 3, 10], n_learning_sets=3,
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
    r = run_bv("rf-gaussian-per-tree", param_name="n_estimators", param_values=[1, 8],
                             n_learning_sets=3, n_train=80, n_test=150, n_seeds=2, n_outputs=4,
                             estimator_params=dict(n_components=2, min_samples_leaf=3), seed=1)
    assert abs(r.identity_gap) < 1e-10
    assert (r.var_algorithm >= 0).all()
    # Averaging more randomized trees shrinks the algorithm variance.
    assert r.var_algorithm[1] < r.var_algorithm[0]
