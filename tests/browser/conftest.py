"""Fixtures of the browser tests: a live ``streamlit run app.py``, headless Debian chromium.

Browser tests need Debian's chromium at /usr/bin/chromium (or $CHROMIUM_PATH); run
``sh tests/install_browser.sh`` first. They fail, never skip, when it is missing.
Screenshots go to a temporary folder, or to $SCREENSHOT_DIR when set; the path is
printed at the end of the run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser.live_app import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, streamlit_app


SCREENSHOT_DIR_KEY = pytest.StashKey[Path]()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    path = config.stash.get(SCREENSHOT_DIR_KEY, None)
    if path is not None:
        terminalreporter.write_line(f"screenshots: {path}")


# --- live server ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """Base URL of `streamlit run app.py` on a free port of 127.0.0.1, for the whole session."""
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    # The real-data study keeps finished cells on disk; a fresh folder per session, so the
    # browser test computes them with this build instead of reading an earlier run's.
    cells = tmp_path_factory.mktemp("real-data-cells")
    # no start-up fill and an empty run cache (engine/app/serving/warm_cache.py): every run computes here
    env = {"RPO_REAL_DATA_CACHE": str(cells), "RPO_WARM": "0", "RPO_RUN_CACHE": str(cells / "runs")}
    try:
        with streamlit_app(log, env) as (base, _, seconds):
            print(f"\n[timing] streamlit healthy after {seconds:.2f}s")
            yield base
    except (RuntimeError, TimeoutError) as exc:
        raise RuntimeError(f"{exc}\n--- streamlit log ---\n{log.read_text()[-3000:]}") from exc


@pytest.fixture
def fresh_server(tmp_path):
    """Base URL of a server of the test's own, started for it: its first request is the test's (a
    fresh server, as a teacher starts it before a class). Stopped after the test."""
    # no start-up fill, an empty run cache of its own: a fresh server computes
    env = {"RPO_REAL_DATA_CACHE": str(tmp_path / "cells"), "RPO_WARM": "0", "RPO_RUN_CACHE": str(tmp_path / "runs")}
    with streamlit_app(tmp_path / "streamlit.log", env) as (base, _, _):
        yield base


# --- browser ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium through Playwright. Fails (never skips) if it is missing."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: run `sh tests/install_browser.sh` (or set CHROMIUM_PATH)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def browser_page(browser):
    """A fresh page in a fresh context, i.e. a new Streamlit session with empty session_state."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    # Assertions wait as long as actions do: on a loaded 2-core CI machine a page's sidebar can
    # take more than expect()'s default 5 s to render after a navigation (seen: a preset's radio).
    expect.set_options(timeout=30_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def request_log(browser_page):
    """Every URL the page requests (HTTP and WebSocket), recorded from before navigation."""
    urls: list[str] = []
    browser_page.on("request", lambda request: urls.append(request.url))
    browser_page.on("websocket", lambda ws: urls.append(ws.url))
    return urls


@pytest.fixture(scope="session")
def screenshot_dir(request, tmp_path_factory):
    """Folder for screenshots: $SCREENSHOT_DIR if set (kept), else a pytest temp folder."""
    env = os.environ.get("SCREENSHOT_DIR")
    if env:
        path = Path(env).resolve()
        path.mkdir(parents=True, exist_ok=True)
    else:
        path = tmp_path_factory.mktemp("screenshots")
    request.config.stash[SCREENSHOT_DIR_KEY] = path
    print(f"\n[screenshots] {path}")
    return path


