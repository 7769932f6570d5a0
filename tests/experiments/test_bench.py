"""engine.bench (teaching, scale, the command line) at toy sizes: the tables it prints, its exactness check,
its exit status.

No timing is asserted (speed is what ``python -m engine.bench`` reports);
these tests hold the benchmark's bookkeeping and its single-output check.
"""
import io

import numpy as np
import pytest

from engine.bench import teaching as bench
from engine.bench.__main__ import main
from engine.datasets import make_friedman1_multioutput
from engine.estimators.forest import ProjectedForestRegressor
from engine.estimators.registry import make_estimator


@pytest.mark.slow
def test_boosting_table_rows_and_single_output_check():
    out = io.StringIO()
    rows, diff = bench.run(n_trees=32, sklearn_trees=16, repeats=1, out=out, check_steps=30)
    text = out.getvalue()
    assert "| problem | estimator | ms per 1000 stumps | sklearn GB / this | sklearn HGB / this |" in text
    assert "best of 1 fits each" in text
    expected = [(label, name) for label, _ in bench.PROBLEMS
                for name in bench.STRATEGY_NAMES + (
                    "sklearn GradientBoostingRegressor per output",
                    "sklearn HistGradientBoostingRegressor per output")]
    assert [(r[0], r[1]) for r in rows] == expected
    for label, name, ms, r_gb, r_hgb in rows:
        assert ms > 0 and np.isfinite(ms)
        assert f"| {label} | {name} | {ms:.1f} |" in text
    gb_rows = [r for r in rows if r[1].startswith("sklearn Gradient")]
    assert all(r[3] == 1.0 for r in gb_rows)
    # st-gbrt with one output is scikit-learn's GradientBoostingRegressor
    assert diff < 1e-8
    assert "30 stumps: max |prediction difference|" in text


@pytest.mark.parametrize("ratio, text", [(0.23, "0.23x"), (0.5, "0.50x"), (1.0, "1.0x"), (9.94, "9.9x"),
                                         (12.4, "12x"), (250.0, "250x")])
def test_a_ratio_below_one_is_not_printed_as_zero(ratio, text):
    assert bench.ratio_text(ratio) == text


def test_forest_table_rows():
    out = io.StringIO()
    rows = bench.run_forests(n_trees=2, repeats=1, out=out)
    text = out.getvalue()
    d = 174   # cal500's labels
    labels = [r[0] for r in rows]
    assert labels == [f"q = d = {d} (no projection)", f"gaussian, q = d = {d}", "gaussian, q = 1",
                      "gaussian, q = 4", "gaussian, q = 16", "subsample, q = 1", "subsample, q = 4",
                      f"sklearn RandomForestRegressor (q = d = {d})"]
    assert "| forest | ms per tree | sklearn RF / this |" in text
    for label, ms, ratio in rows:
        assert ms > 0 and ratio > 0
        assert f"| {label} | {ms:.2f} |" in text


def test_compression_rows():
    out = io.StringIO()
    rows = bench.run_compression(n_trees=3, repeats=1, out=out, cv=2)
    text = out.getvalue()
    assert [r[0] for r in rows] == ["grow the forest", "node indicators + forward stagewise path to its end",
                                    "CompressedForestRegressor.fit, 2-fold CV"]
    assert "| step | seconds | |" in text and "target: the path under 10 s" in text
    for what, seconds, detail in rows:
        assert seconds > 0 and f"| {what} | {seconds:.3f} |" in text
    assert "3 forests and paths" in rows[2][2] and "3 extra trees" in rows[0][2]


@pytest.mark.parametrize("diff, ratio, status", [(0.0, 1.0, 0), (3e-9, 0.96, 0), (2e-8, 1.0, 1),
                                                 (float("nan"), 1.0, 1), (0.0, 0.94, 1), (0.0, float("nan"), 1)])
def test_exit_status_follows_the_single_output_and_missing_target_checks(monkeypatch, capsys, diff, ratio,
                                                                          status):
    calls = []
    monkeypatch.setattr(bench, "run", lambda *a, **k: calls.append("run") or ([], diff))
    monkeypatch.setattr(bench, "run_forests", lambda *a, **k: calls.append("forests") or [])
    monkeypatch.setattr(bench, "run_compression", lambda *a, **k: calls.append("compression") or [])
    monkeypatch.setattr(bench, "run_missing_targets",
                        lambda *a, **k: calls.append("missing") or [("gbmort", 0.8, 0.8 * ratio, ratio)])
    assert main(["--quick"]) == status
    assert calls == ["run", "forests", "compression", "missing"]
    assert ("FAILED" in capsys.readouterr().err) == bool(status)
    calls.clear()
    main(["--missing-only"])
    assert calls == ["missing"]


def test_missing_target_rows():
    out = io.StringIO()
    rows = bench.run_missing_targets(out=out, n_steps=20)
    text = out.getvalue()
    assert [r[0] for r in rows] == list(bench.MISSING_NAMES)
    assert "30% of Y's entries missing at random" in text
    for name, full, holed, ratio in rows:
        assert 0 < holed and 0 < full and ratio == pytest.approx(holed / full)
        assert f"| {name} | {full:.4f} | {holed:.4f} | {ratio:.3f} |" in text


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        main(["--repeats", "0"])


# ---------------------------------------------------------------- TreeStore.predict

def test_treestore_predict_rebuilds_the_boosting_prediction():
    X, Y, _ = make_friedman1_multioutput("group", n_samples=120, n_outputs=4, random_state=0)
    X_new, _, _ = make_friedman1_multioutput("group", n_samples=50, n_outputs=4, random_state=1)
    model = make_estimator("gbmort", n_estimators=15, max_leaf_nodes=4, learning_rate=0.3,
                           random_state=0).fit(X, Y)
    F = np.tile(model.init_, (len(X_new), 1))
    for m in range(model.trees_.n_trees):
        F += model.learning_rate * model.rho_[m] * model.trees_.predict(X_new, m)
    np.testing.assert_allclose(F, model.predict(X_new), rtol=1e-12, atol=1e-12)


def test_treestore_predict_rebuilds_the_forest_prediction():
    X, Y, _ = make_friedman1_multioutput("ind", n_samples=100, n_outputs=3, random_state=0)
    forest = ProjectedForestRegressor(n_estimators=5, projection="gaussian", n_components=2,
                                      random_state=0).fit(X, Y)
    mean = np.mean([store.predict(X, 0) for store in forest.estimators_], axis=0)
    np.testing.assert_allclose(mean, forest.predict(X), rtol=1e-12, atol=1e-12)
    store = forest.estimators_[0]
    leaves = store.apply(X)[:, 0]
    np.testing.assert_array_equal(store.predict(X, 0), store.value[leaves])


def test_treestore_predict_bad_input():
    X, Y, _ = make_friedman1_multioutput("group", n_samples=60, n_outputs=2, random_state=0)
    store = make_estimator("gbmort", n_estimators=3).fit(X, Y).trees_
    with pytest.raises(ValueError, match="tree"):
        store.predict(X, 3)
    with pytest.raises(ValueError, match="tree"):
        store.predict(X, -1)
    with pytest.raises(TypeError, match="tree"):
        store.predict(X, 1.0)
    with pytest.raises(ValueError, match="X"):
        store.predict(X[0], 0)
    assert store.predict(X[:0], 0).shape == (0, 2)


# ---------------------------------------------------------------- --scale at toy size

@pytest.mark.slow
def test_scale_benchmark_tables_at_toy_size():
    """Every table of ``python -m engine.bench --scale``, with the real peers (the bench extra)."""
    pytest.importorskip("lightgbm", reason="the bench extra (pip install -e '.[bench]') is not installed")
    pytest.importorskip("xgboost", reason="the bench extra (pip install -e '.[bench]') is not installed")
    from engine.bench import scale as bench_scale
    out = io.StringIO()
    res = bench_scale.run(steps=2, repeats=1, out=out, sizes=(300,), outputs=(3,), datasets=("bibtex",),
                          threads_n=400, accuracy_n=300, accuracy_steps=3, dataset_rows=150)
    text = out.getvalue()
    for title in ("## Friedman1-like", "## Multi-label data sets", "## Forests", "## Threads", "## Memory",
                  "## Accuracy"):
        assert title in text
    assert len(res["forests"]["bibtex"]) == 3 and all(ms > 0 for ms in res["forests"]["bibtex"].values())
    rows = res["friedman"][(300, 3)]
    for name in bench_scale.STRATEGIES:
        assert rows[(name, "hist")] > 0 and rows[(name, "exact")] > 0
    assert "not installed" not in text
    assert all(ms is not None and ms > 0 for ms in rows.values())
    data_rows = res["datasets"]["bibtex"]
    assert all(ms is not None and ms > 0 for ms in data_rows.values())
    assert data_rows[("st-gbrt, 8 leaves", "hist")] > 0 and data_rows[("st-gbrt, 8 leaves", "exact")] > 0
    assert any(label.startswith("XGBoost one_output_per_tree, depth 3") for label, _ in data_rows)
    assert "| bibtex | 150 x 1836" in text
    for one, two in res["threads"].values():
        assert one > 0 and two > 0
    for sparse_mb, dense_mb in res["memory"].values():
        assert 0 < sparse_mb < dense_mb          # the dense fit holds n x p numbers
    for hist, exact in res["accuracy"].values():
        assert -1 < hist <= 1 and -1 < exact <= 1


@pytest.mark.slow
def test_scale_reports_a_missing_peer(monkeypatch):
    import builtins

    from engine.bench import scale as bench_scale
    real_import = builtins.__import__

    def no_lightgbm(name, *args, **kwargs):
        if name == "lightgbm":
            raise ImportError("no lightgbm")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_lightgbm)
    out = io.StringIO()
    rows = bench_scale.run_friedman(sizes=(200,), outputs=(2,), steps=2, out=out, exact_max_n=0)
    assert rows[(200, 2)][("LightGBM, per tree (one output)", "hist")] is None
    assert rows[(200, 2)][("gbmort", "hist")] > 0
    assert "LightGBM: not installed (pip install -e '.[bench]')" in out.getvalue()


def test_scale_command_line(monkeypatch):
    from engine.bench import scale as bench_scale
    calls = []
    monkeypatch.setattr(bench_scale, "run", lambda **k: calls.append(k))
    assert main(["--scale", "--steps", "7"]) == 0
    assert calls == [{"steps": 7, "repeats": 1}]
    with pytest.raises(SystemExit):
        main(["--scale", "--steps", "0"])


@pytest.mark.parametrize("mode, peer", [("--scale", "lightgbm"), ("--defaults", "catboost"),
                                        ("--multilabel", "lightgbm")])
def test_a_mode_without_the_bench_extra_fails_at_once_naming_it(monkeypatch, capsys, mode, peer):
    import importlib.util

    from engine.bench import defaults as bench_defaults
    from engine.bench import multilabel as bench_multilabel
    from engine.bench import scale as bench_scale
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == peer else real_find_spec(name, *a))
    for module in (bench_scale, bench_defaults, bench_multilabel):     # nothing may start
        monkeypatch.setattr(module, "run", lambda **k: pytest.fail("the benchmark started"))
    assert main([mode]) == 2
    err = capsys.readouterr().err
    assert peer in err and '.[bench]' in err
