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
from pathlib import Path

import pytest

# "Predict first" (pages/_predict.py) hides a chart until its question is answered; the suite's other
# tests read the charts directly: off, as the app's default, whatever the developer's shell says
# (servers started by tests inherit it); tests of the questions turn it on with ?predict=true.
os.environ["RPO_PREDICT_FIRST"] = "off"

# --- the fast tier -----------------------------------------------------------------------
# `python -m pytest -m "not slow"` is what a developer runs while working (about 2 minutes on 2
# cores); CI and the README's command run everything. A test is slow when it took more than about
# 2 s on 2 cores (measured with --durations=0): such tests carry @pytest.mark.slow where they are
# written, and every test of tests/browser is slow as a whole (each drives a live server and Chromium):
SLOW_FOLDERS = ("browser",)
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = Path(item.path).resolve().relative_to(TESTS).parts
        if len(parts) > 1 and parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)


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
