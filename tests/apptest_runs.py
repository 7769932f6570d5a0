"""Reading a page's background run (pages/_jobs.py) from an AppTest.

Fragments never tick in AppTest, so a test "polls" a run by calling ``at.run()`` until the
page's job has finished (the page harvests it into ``finished`` on its next run).
"""
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def page_run(at, name):
    """The page's run entry (``st.session_state[f"{name}_page_run"]``), or None before any run."""
    key = f"{name}_page_run"
    return at.session_state[key] if key in at.session_state else None


def job_of(at, name):
    """The Job of the page's current run (running or ended), or None before any run."""
    entry = page_run(at, name)
    return None if entry is None else entry["job"]


def finished(at, name):
    """The page's last finished run (a pages._jobs.RunView), or None."""
    entry = page_run(at, name)
    return None if entry is None else entry["finished"]


def poll(at, name, timeout=60.0):
    """Rerun until the page's background job has finished, then once more to draw it."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        job = job_of(at, name)
        if job is None or job.done:
            return at.run()
        time.sleep(0.2)
        at.run()
    raise AssertionError(f"the {name} page's run is still running after {timeout}s")


def open_from_app(page, query=None, timeout=60):
    """An AppTest of app.py run once with the URL ``query`` (as a link opens it), then switched to
    ``page``; fails on an exception in either run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at
