"""Adding a method is one row: a toy strategy and a toy scheme, registered in the method table
before anything reads it, reach the registry, the estimators, the legend, the cost model and every
page that lists methods, with no other file edited.

The toy strategy "gbrt-toy-rpo" runs Algorithm 4's compiled step (``core_step="PROJECTED_RELABEL"``)
under a name of its own; the toy scheme "toy" draws +-1/sqrt(q) or 0 entries with a draw function
written here. Both are registered in a fresh interpreter, between loading ``engine.methods`` and
running the package's ``__init__`` (every layer above reads the table once, when it loads: the
rows are then exactly as if they had been written in engine/methods.py).
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent('''
    import importlib.util, os, sys
    from pathlib import Path
    import numpy as np

    ROOT = Path.cwd()
    spec = importlib.util.spec_from_file_location("engine", ROOT / "engine" / "__init__.py",
                                                  submodule_search_locations=[str(ROOT / "engine")])
    engine = importlib.util.module_from_spec(spec)
    sys.modules["engine"] = engine
    from engine import methods     # the table alone: nothing above it has loaded yet

    def draw_toy(rng, n_draws, q, d):
        return rng.choice([-1.0, 0.0, 1.0], size=(n_draws, q, d)) / np.sqrt(q)

    methods.register(methods.BoostingRow(
        "toy_relabel", "gbrt-toy-rpo", "a toy row (tests)", "PROJECTED_RELABEL", projected=True, takes_q=True,
        split_columns="q", trees_per_step="1", description="the toy strategy: Algorithm 4's step under another name",
        cost_columns=(0, 1, 0.5)))
    methods.register(methods.SchemeRow("toy", "toyed", "toy ±1", "toy ±1 entries", "±1/√q or 0", draw_toy,
                                       dense=True, step_cost=1e-10))
    spec.loader.exec_module(engine)    # the package, and every layer it loads, now reads the toy rows

    # --- the registry and the estimators
    from engine.estimators.registry import ALL_NAMES, make_estimator
    from engine.estimators.boosting import STRATEGY_CODES
    new = {"gbrt-toy-rpo-gaussian", "gbrt-toy-rpo-toyed", "gbrt-relabel-rpo-toyed", "gbrt-rpo-toyed",
           "rf-toyed-shared", "rf-toyed-per-tree"}
    assert new <= set(ALL_NAMES), new - set(ALL_NAMES)
    assert "toy_relabel" in STRATEGY_CODES
    rng = np.random.default_rng(0)
    X, Y = rng.random((60, 4)), rng.random((60, 6))
    toy = make_estimator("gbrt-toy-rpo-gaussian", n_projections=2, n_estimators=5, random_state=0).fit(X, Y)
    alg4 = make_estimator("gbrt-relabel-rpo-gaussian", n_projections=2, n_estimators=5, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(toy.predict(X), alg4.predict(X))      # Algorithm 4's step, run as the toy
    drawn = make_estimator("gbrt-relabel-rpo-toyed", n_projections=2, n_estimators=5).fit(X, Y).projections_
    assert set(np.round(np.unique(drawn) * np.sqrt(2), 12)) <= {-1.0, 0.0, 1.0} and drawn.shape == (5, 2, 6)
    make_estimator("rf-toyed-per-tree", n_estimators=3, n_components=2).fit(X, Y)

    # --- the experiments: the toy strategy takes q, every scheme sweep includes the toy scheme
    import inspect
    from engine.experiments.convergence import run_projection_schemes
    from engine.experiments.forests import run_forest_schemes
    from engine.experiments.settings import BoostingSettings
    assert BoostingSettings(10, q=3).model_kwargs("gbrt-toy-rpo-toyed")["n_projections"] == 3
    for run in (run_projection_schemes, run_forest_schemes):
        assert "toy" in inspect.signature(run).parameters["schemes"].default, run

    # --- the legend and the colours
    from engine.plotting.legend import explain
    assert "toy strategy" in explain("gbrt-toy-rpo-toyed") and "toy ±1 entries" in explain("gbrt-toy-rpo-toyed")
    assert "toy ±1 entries" in explain("toy ±1") and "toy ±1 entries" in explain("rf-toyed-shared")

    # --- the cost model: the toy strategy costs what its coefficients say (Algorithm 4's here)
    from engine.app.page_models import cost
    kw = dict(task="regression", n_steps=20, n_train=300, n_test=100, n_outputs=16, n_features=10)
    assert (cost.estimate_projection_seconds(models=[("toy_relabel", 4)], projection="gaussian", **kw)
            == cost.estimate_projection_seconds(models=[("projected_relabel", 4)], projection="gaussian", **kw))
    assert (cost.estimate_projection_seconds(models=[("projected_relabel", 4)], projection="toy", **kw)
            < cost.estimate_projection_seconds(models=[("projected_relabel", 4)], projection="gaussian", **kw))
    from engine.experiments import Problem
    from engine.experiments.bias_variance import BiasVarianceSettings
    small = Problem("friedman1-group", n_train=100, n_test=100, n_outputs=8)
    bv = dict(param_name="n_estimators", param_values=[10], n_learning_sets=2, n_seeds=1,
              estimator_params={"n_projections": 3})
    assert (cost.estimate_bias_variance_seconds(small, BiasVarianceSettings("gbrt-toy-rpo-toyed", **bv))
            == cost.estimate_bias_variance_seconds(small, BiasVarianceSettings("gbrt-relabel-rpo-toyed", **bv)))

    # --- every page that lists methods
    sys.path.insert(0, str(ROOT / "tests"))
    from apptest_runs import open_app

    def options(at, kind, key):
        return list(getattr(at, kind)(key=key).options)

    at = open_app("pages/one_step.py", {"os_method": "gbrt-toy-rpo", "os_scheme": "toy", "os_q": "3",
                                        "os_step": "2"}, route="home-link")
    assert "gbrt-toy-rpo" in options(at, "radio", "os_method") and "toy" in options(at, "selectbox", "os_scheme")
    assert not at.error, [e.value for e in at.error]
    assert any("gbrt-toy-rpo" in c.value for c in at.caption)          # the toy fitted and shown, step 2
    at = open_app("pages/projections.py", {"proj_experiment": "schemes", "proj_dataset": "delicious",
                                           "proj_n_steps": "2000"}, route="home-link")
    assert "gbrt-toy-rpo" in options(at, "radio", "proj_algorithm") and "toy" in options(at, "multiselect", "proj_schemes")
    at = open_app("pages/projections.py", {"proj_experiment": "size", "proj_dataset": "delicious",
                                           "proj_n_steps": "2000"}, route="home-link")
    assert "toy" in options(at, "selectbox", "proj_projection")
    at = open_app("pages/convergence.py", {"conv_variants": ["gbrt-toy-rpo-toyed"], "conv_n_steps": "100",
                                           "conv_n_test": "500"}, route="home-link")
    assert {"gbrt-toy-rpo-toyed", "gbrt-relabel-rpo-toyed"} <= set(options(at, "multiselect", "conv_variants"))
    at = open_app("pages/bias_variance.py", {"bv_estimator": "rf-toyed-shared", "bv_n_learning_sets": "2"}, route="home-link")
    assert {"gbrt-toy-rpo-toyed", "rf-toyed-per-tree"} <= set(options(at, "selectbox", "bv_estimator"))
    at = open_app("pages/forests.py", {"fx_exp": "schemes", "fx_q": "1", "fx_trees": "2"}, route="home-link")
    assert "toy" in options(at, "multiselect", "fx_schemes")
    at = open_app("pages/benchmark.py", route="home-link")
    assert {"gbrt-toy-rpo-toyed", "rf-toyed-shared"} <= set(options(at, "multiselect", "bench_estimators"))
    print("TOY ROWS FOUND", flush=True)
    os._exit(0)     # the pages' background runs are not waited for
''')


@pytest.mark.slow      # about a minute: seven page openings in a fresh interpreter
def test_a_toy_strategy_and_a_toy_scheme_need_one_row_each():
    env = dict(os.environ, RPO_PREDICT_FIRST="off", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "TOY ROWS FOUND" in done.stdout, done.stderr[-4000:]
