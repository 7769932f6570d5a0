"""Shared fixtures: AppTest cache isolation, a real Streamlit server, a headless Chromium.

Browser tests (marked ``browser``) need Debian's chromium at /usr/bin/chromium (or
$CHROMIUM_PATH); run ``sh tests/install_browser.sh`` first. They fail, never skip, when it
is missing. Screenshots go to a temporary folder, or to $SCREENSHOT_DIR when set; the path
is printed at the end of the run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
APP_PATH = REPO_ROOT / "app.py"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# Flags verified on this kind of machine (STREAMLIT.md section 3b): no sandbox as root, no GPU,
# and nothing that phones home (component updates, sync, background networking, QUIC).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1280, "height": 2200}  # tall: Streamlit scrolls inside its own container

_screenshot_dir_key = pytest.StashKey[Path]()


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a real headless Chromium against a live server")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    path = config.stash.get(_screenshot_dir_key, None)
    if path is not None:
        terminalreporter.write_line(f"screenshots: {path}")


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


# --- live server ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200 and r.read().strip() == b"ok":
                    return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not healthy after {timeout}s")


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """Base URL of `streamlit run app.py` on a free port of 127.0.0.1, for the whole session."""
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    cmd = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            cmd, cwd=REPO_ROOT, stdout=fh, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
        try:
            try:
                seconds = _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc)
            except (RuntimeError, TimeoutError) as exc:
                raise RuntimeError(f"{exc}\n--- streamlit log ---\n{log.read_text()[-3000:]}") from exc
            print(f"\n[timing] streamlit healthy after {seconds:.2f}s")
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


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
    request.config.stash[_screenshot_dir_key] = path
    print(f"\n[screenshots] {path}")
    return path


# --- reading charts in the browser ----------------------------------------------------------------

_CHART_JS = """([index, summary, condition]) => {
    const els = document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot');
    const el = els[index < 0 ? els.length + index : index];
    if (!el || !el._fullData) return null;
    const value = (new Function('el', 'data', 'return (' + summary + ')(el, data);'))(el, el._fullData);
    const ok = (new Function('value', 'return (' + condition + ')(value);'))(value);
    return ok ? {value: value} : null;
}"""


def wait_for_chart(page, summary="(el, data) => data.map(t => t.name)", condition="v => v.length > 0", *,
                   index=0, timeout=30_000):
    """Poll plotly.js until chart ``index`` holds what ``condition`` expects; return ``summary``.

    Streamlit sends a figure before plotly.js has drawn it, so a one-shot read just after the
    page went idle can see an empty or stale chart (a flaky CI failure). ``summary`` maps the
    plot's DOM node and its ``_fullData`` to plain JSON; ``condition`` says when it is ready.
    On timeout the error names the last value seen.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        handle = page.wait_for_function(_CHART_JS, arg=[index, summary, condition], timeout=timeout, polling=200)
    except PlaywrightTimeout:
        last = page.evaluate(_CHART_JS.replace("return ok ? {value: value} : null;", "return {value: value};"),
                             [index, summary, condition])
        raise AssertionError(f"chart {index} never satisfied {condition} within {timeout} ms; last seen: {last}") from None
    return handle.json_value()["value"]
