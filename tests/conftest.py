"""Fixtures every test folder shares: AppTest cache isolation.

The tests are grouped by what they test: ``core/`` (the compiled core), ``estimators/``,
``data/`` (datasets and metrics), ``experiments/`` (experiments, reproduce, bench, plotting),
``dashboard/`` (the pages' engine-side services), ``app/`` (pages through AppTest) and
``browser/`` (the live app in headless Chromium, with its own fixtures). ``oracles/`` holds
the independent brute-force references the engine is compared with (and their own tests).
"""

from __future__ import annotations

import pytest

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
