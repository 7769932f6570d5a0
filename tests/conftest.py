"""Fixtures every test folder shares: AppTest isolation (caches, the main module).

The tests are grouped by what they test: ``core/`` (the compiled core), ``estimators/``,
``data/`` (datasets and metrics), ``experiments/`` (experiments, reproduce, bench, plotting),
``engine_app/`` (the app's floors in ``engine.app``: serving, page content,
page models), ``app/`` (pages through AppTest) and ``browser/`` (the live app in
headless Chromium, with its own fixtures). ``load/`` is the class load tool (``python
tests/load/classroom.py``: many browser sessions on one server) with its own tests. ``oracles/``
holds the independent brute-force references the engine is compared with (and their own tests).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

# "Predict first" (pages/_predict.py) hides a chart until its question is answered; the suite's other
# tests read the charts directly: off, as the app's default, whatever the developer's shell says
# (servers started by tests inherit it); tests of the questions turn it on with ?predict=true.
os.environ["RPO_PREDICT_FIRST"] = "off"

# --- the fast tier -----------------------------------------------------------------------
# `python -m pytest -m "not slow"` is what a developer runs while working (about 2 minutes on 2
# cores); CI and the README's command run everything. A test is slow when it took more than about
# 0.3 s of CPU (measured 2026-12-02, per test, on the shared 2-core machine): such tests carry
# @pytest.mark.slow where they are written. Two folders are slow as a whole: browser/ (a live
# server and Chromium per test) and app/ (AppTest runs the app's script for every test: 99 of the
# 105 measured took 0.5 s of CPU or more, 37 of them over 2 s; together they would take the tier's
# whole budget). While working on a page, run its file: `python -m pytest tests/app/test_<page>.py`.
SLOW_FOLDERS = ("browser", "app")
TESTS = Path(__file__).resolve().parent


# --- parallel runs -------------------------------------------------------------------------
# The suite runs on every core (pytest-xdist, ``--dist loadgroup`` in pyproject.toml): each test goes to
# whichever worker is free, except that a file with a module-scoped fixture (a trained model, a study's
# run) keeps its tests on one worker, so the fixture is computed once, not once per worker.
_MODULE_FIXTURE = re.compile(r"""scope=["']module["']""")


@lru_cache(maxsize=None)
def _has_module_fixture(path: Path) -> bool:
    return bool(_MODULE_FIXTURE.search(path.read_text(encoding="utf-8")))


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path).resolve()
        parts = path.relative_to(TESTS).parts
        if len(parts) > 1 and parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
        if _has_module_fixture(path):
            item.add_marker(pytest.mark.xdist_group(path.relative_to(TESTS).as_posix()))


# --- AppTest ----------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """st.cache_data / st.cache_resource are process-global: AppTests would share them."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(autouse=True)
def _keep_the_main_module():
    """An AppTest installs the page script it runs as ``sys.modules["__main__"]`` (Streamlit's script
    runner does so). A later test that spawns processes (dask's LocalCluster, a process pool) would
    then run that page in every child at start-up: put the real one back."""
    import sys

    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main
