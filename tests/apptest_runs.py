"""Opening the app in an AppTest, and reading a page's background run (pages/_jobs.py) from it.

Every app test opens its session here: :func:`app_test` is the one place that makes an AppTest of
app.py (a new browser session), :func:`open_app` opens a page the way a test means it (by its own
link, through Home's link, or after a visit to Home). Fragments never tick in AppTest, so a test
"polls" a run by calling ``at.run()`` until the page's job has finished (the page harvests it into
``finished`` on its next run).
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


def _put(at, query=None, state=None):
    """``at`` with the URL query ``query`` (a list value for a multiselect, any other value as its
    text) and the session state ``state`` set."""
    for key, value in (query or {}).items():
        at.query_params[key] = value if isinstance(value, list) else str(value)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at


def app_test(query=None, *, timeout=60):
    """A new session of app.py (a new browser tab), not run yet, its URL carrying ``query``."""
    return _put(AppTest.from_file(APP, default_timeout=timeout), query)


ROUTES = ("link", "home-link", "home-first")


def open_app(page=None, query=None, *, route="link", state=None, timeout=60):
    """A new session of app.py opened on ``page`` (None: Home) with the URL query ``query``, run
    until the page is drawn; fails on an exception. ``state`` is put in the session state before
    the page's run (e.g. the Data page's upload). ``route`` is how the visitor got there:

    * "link": the page's own link (``/convergence?conv_problem=...``) in a new tab: one run;
    * "home-link": a link to Home carrying the query, then the page (the query as Home left it);
    * "home-first": Home visited first (no query), then the page opened with the query.
    """
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, got {route!r}")
    at = app_test(None if route == "home-first" else query, timeout=timeout)
    if page is not None and route == "link":
        at.switch_page(page)
    elif page is not None:
        at.run()
        at.switch_page(page)
        _put(at, query if route == "home-first" else None)
    _put(at, state=state).run()
    assert not at.exception, at.exception
    return at
