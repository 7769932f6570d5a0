"""Make a deep link that is a fresh server's first request go through app.py.

Streamlit starts in its legacy ``pages/`` mode (the folder exists next to
app.py) until some run calls ``st.navigation``. So the first request for
``/convergence?...`` on a new server runs that page file alone, without the
app's frame and navigation. Every page calls :func:`route_through_app` first:
it leaves the legacy mode and reruns, and app.py then routes back to the page
with the same URL. It relies on one private Streamlit name (checked by the
browser tests, which each start a fresh server).
"""
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def route_through_app():
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
