"""The background jobs of this browser session (engine.dashboard.jobs.JobGroup), stopped when it ends.

``st.cache_resource(scope="session")`` keeps one JobGroup per session; Streamlit drops it
when the session disconnects and then calls ``on_release``, which asks every job of that
session to stop. So a closed tab does not leave a run computing for nobody. (A dropped
network connection counts as a disconnect too: the run is then stopped and keeps its
partial result, as with the Stop button.) Each page uses its own slot, so a new Start on a
page stops that page's previous run.
"""
import streamlit as st

from engine.dashboard.jobs import JobGroup


def _release(group: JobGroup) -> None:
    group.stop_all()   # no waiting: this may run on the server's thread


@st.cache_resource(scope="session", on_release=_release, show_spinner=False)
def session_jobs() -> JobGroup:
    return JobGroup()
