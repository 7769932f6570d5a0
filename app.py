"""Entry point of the dashboard: page config, navigation and the sidebar frame.

Run with ``streamlit run app.py`` from the repository root. Every page is a file in
``pages/``, registered below with ``st.navigation`` (so Streamlit's legacy
auto-discovery of ``pages/`` is off). Adding a page is one line in ``PAGES``.
"""

from pathlib import Path

import streamlit as st

# The registered page files go in this plain session_state key, so a page (Home's presets)
# can link only to pages that exist (st.page_link to an unregistered file raises an error).
from pages._deeplink import REGISTERED_PAGES_KEY

PAGE_TITLE = "rpo-explorer"
PAPER_URL = "https://arxiv.org/abs/1905.07558"

# (file, title, icon), in sidebar order; the first one is the default page.
# Emoji icons only: ":material/...:" icons make the browser fetch fonts online.
PAGES = [
    ("pages/home.py", "Home", "🏠"),
    ("pages/data.py", "Data", "🧮"),
    ("pages/convergence.py", "Convergence", "📈"),
    ("pages/one_step.py", "One step", "🔬"),
    ("pages/forests.py", "Forests", "🌲"),
    ("pages/bias_variance.py", "Bias–variance", "🎯"),
    ("pages/projections.py", "Projections", "🎲"),
    ("pages/cost.py", "Cost against d", "📐"),
    ("pages/benchmark.py", "Benchmark", "⏱️"),
]


st.set_page_config(page_title=PAGE_TITLE, page_icon="🌳", layout="wide")

navigation = st.navigation(
    [st.Page(path, title=title, icon=icon, default=(i == 0)) for i, (path, title, icon) in enumerate(PAGES)]
)
st.session_state[REGISTERED_PAGES_KEY] = tuple(path for path, _, _ in PAGES)

from pages._classroom import apply_classroom, projector_switch, state_hidden_values  # noqa: E402 - imports the engine's plotting
from pages._predict import predict_switch  # noqa: E402
from pages._params import begin_run, note_unknown, note_unused  # noqa: E402
from pages._url import note_visit, visit_number  # noqa: E402

note_visit(navigation.url_path)     # a page change: its widgets read the URL again, as a pasted link's
begin_run()                         # which URL parameters this run reads (pages/_params.py)
PAGE_FILES = {Path(path).stem if i else "": path for i, (path, _, _) in enumerate(PAGES)}

with st.sidebar:
    st.markdown(f"### {PAGE_TITLE}")
    st.caption("Multi-output tree ensembles with random projections of the output space.")
    st.markdown(f"Paper: [Joly, Wehenkel & Geurts, *Gradient tree boosting with random output projections*]({PAPER_URL})")
    projector_switch()   # the projector view, and below the teacher's link (?hide=...): pages/_classroom.py
    predict_switch()     # "Predict first": questions before the charts' answers (pages/_predict.py)
hidden_line = apply_classroom(PAGE_FILES[navigation.url_path])   # the hidden controls' line, their values after the page

from pages._session import check_settings, open_session  # noqa: E402 - imports the engine: after the navigation is set up

if (bad_setting := check_settings()) is not None:   # RPO_MAX_JOBS & co. (pages/_session.py)
    st.error(f"The server's settings are wrong: {bad_setting}. Fix the variable and restart the server.", icon="⛔")
    st.stop()
from pages._data_choice import sync_data_choice  # noqa: E402

# this browser session's place in the server's run store (its opening is logged)
sync_data_choice(open_session())    # the chosen data: restored from the URL after a reload, named in it
# A note for each parameter of the link the page does not use. Not on Home, which has none: the tests
# (and the start-up fill) open app.py with a page's link, then switch to the page (Streamlit's AppTest).
link_notes = st.empty() if navigation.url_path else None
if link_notes is not None:
    note_unknown(PAGE_FILES[navigation.url_path], visit_number(), link_notes)
navigation.run()        # a page that stops early (st.stop) ends the script here
if link_notes is not None:
    note_unused(PAGE_FILES[navigation.url_path], visit_number(), link_notes)
state_hidden_values(hidden_line, PAGE_FILES[navigation.url_path])
