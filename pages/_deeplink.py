"""Make a deep link that is a fresh server's first request go through app.py.

Streamlit starts in its legacy ``pages/`` mode (the folder exists next to app.py) until
some run calls ``st.navigation``. So the first request for ``/convergence?...`` on a new
server runs that page file alone, without the app's frame and navigation. Every page
calls :func:`route_through_app` first: when app.py has not run in this session, it calls
``st.navigation`` (the public call that ends the legacy mode for the server) and reruns;
app.py then routes back to the page with the same URL. The browser tests, which each
start a fresh server, open pages by deep link.
"""
from pathlib import Path

import streamlit as st

# Set by app.py on every run (the registered page files); absent only when a page runs alone.
REGISTERED_PAGES_KEY = "app_registered_pages"


def route_through_app(page_file):
    """Call first in every page, with the page's ``__file__``."""
    if REGISTERED_PAGES_KEY not in st.session_state:
        page = f"pages/{Path(page_file).name}"
        st.navigation([st.Page("app.py", default=True), st.Page(page)], position="hidden")
        st.rerun()


def registered_pages() -> tuple:
    """The page files app.py registered (Home's presets link only to these)."""
    return st.session_state.get(REGISTERED_PAGES_KEY, ())


PRESET_GO = "go"   # a Home preset's link carries go=1: run what it promises on this one click


def preset_go() -> bool:
    """True once when the URL carries ``go=1`` (a Home preset's link): the page then starts its run
    without a second click, as if its Run button had been pressed. The parameter is removed at once,
    so a rerun, a reload or a link copied afterwards starts nothing by itself."""
    if PRESET_GO not in st.query_params:
        return False
    value = st.query_params.get(PRESET_GO)
    del st.query_params[PRESET_GO]
    return value == "1"
