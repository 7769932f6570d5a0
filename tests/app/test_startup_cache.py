"""The start-up cache through the pages (AppTest): a fresh server serves the fill's runs, the same as a
fresh computation, and Convergence's Step continues the cached models instead of refitting.

An AppTest store neither reads nor fills the disk cache unless ``RPO_WARM_FILLING=1`` (the fill's
own process), which these tests set, with their own cache folder.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import streamlit as st

from apptest_runs import finished, open_app, page_run, poll

from engine.app.page_models import dataspec, live_convergence
from engine.app.serving.warm_cache import WarmCache
from engine.experiments import BoostingSettings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def filling(tmp_path, monkeypatch):
    monkeypatch.setenv("RPO_WARM_FILLING", "1")
    monkeypatch.setenv("RPO_RUN_CACHE", str(tmp_path / "runs"))
    return WarmCache(tmp_path / "runs")


MEASURED = {"elapsed"}      # wall-clock times: measured, not computed, so they differ between two runs


def same(a, b) -> bool:
    """Equal values, recursively (arrays element by element, NaN equal to NaN), times apart."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if hasattr(a, "equals"):                 # pandas
        return a.equals(b)
    if hasattr(a, "__dict__"):
        return same({k: v for k, v in vars(a).items() if k not in MEASURED},
                    {k: v for k, v in vars(b).items() if k not in MEASURED})
    return a == b


def open_default(page):
    return open_app(page, route="home-first", timeout=120)


def test_the_fill_writes_what_a_fresh_computation_gives(tmp_path, filling):
    """``python -m pages._warm`` (another process) fills the cache with the Bias–variance default view's
    run; the same view computed here, fresh, gives the same key and the same result."""
    env = {**os.environ, "RPO_WARM_FILLING": "1", "RPO_MAX_JOBS": "1", "RPO_RUN_CACHE": str(tmp_path / "filled")}
    out = subprocess.run([sys.executable, "-m", "pages._warm", "--match", "bias_variance: default"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert re.search(r"start-up fill: 1/1 bias_variance: default view: 1 run\(s\) computed", out.stdout), out.stdout
    filled = WarmCache(tmp_path / "filled")
    at = open_default("pages/bias_variance.py")
    done = poll(at, "bv", 120) and finished(at, "bv")
    key = page_run(at, "bv")["job"].key
    assert filled.keys() == [key] and done.status == "done"
    (snap, _), fresh = filled.get(key), done.result
    assert type(snap["result"]) is type(fresh)
    assert same(snap["result"], fresh)
    assert not same({"a": np.array([1.0, 2.0])}, {"a": np.array([1.0, 2.5])})     # the comparison can fail


def test_step_after_a_cached_start_continues_the_kept_models(filling, monkeypatch):
    # a first server computes the default view (and its fill writes it, models included)
    at = open_default("pages/convergence.py")
    done = poll(at, "conv", 120) and finished(at, "conv")
    n = min(c.n_steps for c in done.result.curves.values())
    names = list(done.result.curves)
    key = page_run(at, "conv")["job"].key
    assert key in filling and done.status == "done"
    st.cache_resource.clear()                      # a fresh server (a new store), the same disk
    calls = {"train": 0, "steps": []}
    train, cont = live_convergence.train_curves, live_convergence.continue_curves

    @functools.wraps(train)                         # same name: the same run key
    def counting_train(*args, **kwargs):
        calls["train"] += 1
        return train(*args, **kwargs)

    @functools.wraps(cont)
    def counting_continue(*args, progress=None, **kwargs):
        def counted(fraction=None, message=None, partial=None):
            calls["steps"] += [int(s) for s in re.findall(r"step (\d+)/", message or "")]
            return progress(fraction, message, partial)
        return cont(*args, progress=counted, **kwargs)

    monkeypatch.setattr(live_convergence, "train_curves", counting_train)
    monkeypatch.setattr(live_convergence, "continue_curves", counting_continue)
    at = open_default("pages/convergence.py")
    cached = finished(at, "conv")                   # finished in the page's first script run: from the cache
    assert page_run(at, "conv")["job"].how == "cached" and cached.cached and calls["train"] == 0
    assert not at.button(key="conv_pin").disabled and not at.button(key="conv_step").disabled   # issue 43
    at.button(key="conv_pin").click().run()
    assert len(at.session_state["conv_pins"]) == 1
    assert all(m.n_steps_ == n for m in cached.extra["models"].values())
    at.button(key="conv_step").click().run()
    stepped = poll(at, "conv", 120) and finished(at, "conv")
    assert stepped.extra["kind"] == "step" and calls["train"] == 0            # no refit
    assert calls["steps"] and min(calls["steps"]) > n                          # only steps n+1.. fitted
    assert any("Continued by warm start" in note for note in stepped.result.notes)
    assert all(m.n_steps_ == n + 10 for m in stepped.extra["models"].values())
    # the same as one fresh fit of n + 10 steps (warm start is bit-exact)
    s = done.settings
    assert (s["max_features"], s["loss"]) == ("all", "default")       # the page's None, None
    problem = live_convergence.problem_from_spec(dataspec.friedman_spec(s["problem"]), None, n_test=s["n_test"])
    boosting = BoostingSettings(n + 10, learning_rate=s["learning_rate"], max_leaf_nodes=s["max_leaf_nodes"], q=s["q"])
    longer = train(problem, boosting, names, seed=s["seed"])
    for name in names:
        np.testing.assert_array_equal(stepped.result.curves[name].test_score, longer.curves[name].test_score)
