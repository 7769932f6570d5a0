"""Teaching in a room: the projector view and the teacher's link, both kept in the URL.

* **Projector view** (``?projector=true``, a switch in the sidebar of every page): charts are
  drawn with every font 1.5 times larger, data frames as plain tables whose cells wrap
  (pages/_render.py, where every chart and data frame is rendered), and this module's CSS makes
  page text, captions and tables larger.
* **Teacher's link** (``?hide=...``): a comma-separated list of what to hide, ``sidebar`` for the
  whole sidebar (navigation included) or widget keys, the names a page's settings already have in
  its URL (``?hide=conv_seed,conv_learning_rate`` on Convergence). Hidden widgets keep their values (the
  link's or the defaults), so a class sees only the knob of the exercise. Hiding is CSS on
  Streamlit's ``st-key-<key>`` class of a keyed widget, so it works on every page without the
  page's help. The session keeps the list while it moves to other pages; ``?hide=`` (empty)
  clears it. Home's "For teachers" section links three of them (engine/app/page_content/presets.py).
"""
from __future__ import annotations

import re

import streamlit as st

from engine.app.page_content.parameters import link, page_path
from pages._params import all_controls, control_guess, page_controls
from pages._parameters import SHOWN_KEY, parameter_widget

from pages._render import projector_on
HIDE_PARAM = "hide"
HIDE_STATE = "teacher_hide"     # the list this session's teacher's link asked for (survives page changes)
SIDEBAR = "sidebar"
KEY_RE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
RESET_SELECTOR = '[class*="_reset_all"]'   # every page's Reset of its settings (class st-key-<prefix>_reset_all)

SIDEBAR_CSS = ('section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], '
               '[data-testid="stExpandSidebarButton"] { display: none !important; }')
PROJECTOR_CSS = """
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 1.35rem; line-height: 1.45; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p { font-size: 1.15rem !important; }
[data-testid="stTable"] { overflow-x: visible !important; }
[data-testid="stTable"] table { font-size: 1.3rem; table-layout: auto; width: 100%; }
[data-testid="stTable"] th, [data-testid="stTable"] td { white-space: normal !important;
  overflow-wrap: anywhere; word-break: normal; }
"""


def projector_switch():
    """The sidebar switch (app.py draws it on every page); bound to the URL."""
    parameter_widget("projector")


def parse_hide(value: str) -> tuple[list[str], list[str]]:
    """``(names, refused)`` of a ``hide`` value: ``sidebar`` or widget keys (letters, digits, _ and -)."""
    names, refused = [], []
    for token in (t.strip() for t in str(value).split(",")):
        if token:
            (names if KEY_RE.match(token) else refused).append(token)
    return list(dict.fromkeys(names)), refused


def hidden_names() -> tuple[list[str], list[str]]:
    """What this session's teacher's link hides (and the tokens refused): from the URL, else from
    the session (a page change drops the URL's parameters: the list goes back into it)."""
    if HIDE_PARAM in st.query_params:
        names, refused = parse_hide(st.query_params.get(HIDE_PARAM, ""))
        st.session_state[HIDE_STATE] = names
        return names, refused
    names = st.session_state.get(HIDE_STATE) or []
    if names:
        st.query_params[HIDE_PARAM] = ",".join(names)
    return names, []


def sidebar_hidden() -> bool:
    """Whether this session's teacher's link hides the whole sidebar (a page then does not point to it)."""
    return SIDEBAR in (st.session_state.get(HIDE_STATE) or [])


def hide_css(names) -> str:
    """CSS hiding the whole sidebar (``sidebar``) and every widget whose key is named."""
    rules = [SIDEBAR_CSS] if SIDEBAR in names else []
    keys = [n for n in names if n != SIDEBAR]
    if keys:
        # A page's Reset (pages/_compare.py, key <prefix>_reset_all) would put the hidden controls back to
        # their defaults, silently: a link that hides controls hides it too.
        rules.append(", ".join([f".st-key-{k}" for k in keys] + [RESET_SELECTOR]) + " { display: none !important; }")
    return "\n".join(rules)


def apply_classroom(page: str | None = None):
    """Call in app.py on every run, before the page (``page``: its file): this session's CSS and the
    notes, one naming each ``hide`` name that is no control of any page (with a did-you-mean for this
    page's: ``seed`` -> ``conv_seed``). Returns the sidebar's line about the hidden controls (None: none),
    which :func:`state_hidden_values` completes after the page with their values."""
    names, refused = hidden_names()
    css = "\n".join(filter(None, [PROJECTOR_CSS if projector_on() else "", hide_css(names)]))
    if css:
        st.html(f"<style>{css}</style>")
    if refused:
        st.warning(f"The link's {HIDE_PARAM} = “{', '.join(refused)}” is not a widget key (letters, digits, _ "
                   "and - only): nothing hidden for it" + (f"; hiding {', '.join(names)}." if names else "."),
                   icon="🙈")
    unknown = [n for n in names if n != SIDEBAR and n not in all_controls()]
    for name in unknown:
        guess = control_guess(name, page) if page else None
        st.warning(f"The link's {HIDE_PARAM} names “{name}”, which is no control of this app: nothing hidden for it"
                   + (f"; did you mean {guess}?" if guess else "."), icon="🙈")
    shown_here = [n for n in names if page and n in page_controls(page)]
    if not shown_here or SIDEBAR in names:
        return None
    line = st.sidebar.empty()
    line.caption(_hidden_line(shown_here))
    return line


def _hidden_line(hidden, values=()) -> str:
    return (f"🎓 Teacher's link: {len(hidden)} control{'s' if len(hidden) > 1 else ''} of this page hidden (they keep "
            "the link's values; Reset is hidden too)" + (f": {'; '.join(values)}." if values else "."))


def state_hidden_values(line, page: str) -> None:
    """Call after the page ran (app.py) with :func:`apply_classroom`'s line: the values of the hidden controls
    the page drew, each as its row of the parameter table states it ("Boosting steps: 2000"), so a class
    that does not see a control still reads its value. A page that stopped early keeps the plain line."""
    if line is None:
        return
    hidden = [n for n in st.session_state.get(HIDE_STATE) or [] if n in page_controls(page)]
    drawn = st.session_state.get(SHOWN_KEY, {})
    values = [drawn[n] for n in hidden if n in drawn]
    if values:
        line.caption(_hidden_line(hidden, values))


def link_url(link: dict) -> str:
    """The link as a path to paste after the server's address: ``/convergence?conv_problem=chain&hide=...``."""
    return page_path(link["page"], link["query_params"])


def hide_example(page: str = "pages/convergence.py", names=("seed", "learning_rate")) -> str:
    """Home's example of a ``hide`` link, built from the parameter table (never typed): a renamed
    parameter changes the example with it, a removed one is an error."""
    return link(page, hide=names)


def teacher_section(links, registered):
    """Home's "For teachers": the projector view, the ``hide`` parameter, and one link per act of a class."""
    st.header("For teachers")
    st.markdown(
        "**Projector view.** The sidebar's *Projector view* switch enlarges chart, tree and table text and wraps "
        "tables; it stays in the URL (`?projector=true`), so a link can open with it.\n\n"
        "**A teacher's link** hides what would distract a class: add `hide=` and a comma-separated list to any "
        "page's URL, `sidebar` for the whole sidebar or the names of the controls, which are the names the "
        f"page's settings have in its URL (`{hide_example()}`). Hidden controls keep the link's values (the "
        "page's Reset is hidden with them); the session keeps hiding them on other pages until a link with an "
        "empty `hide=`.\n\n"
        "**A 45-minute class on “why project the outputs?”**, one link per act (open one, then copy the "
        "address bar, or paste the path after this server's address):"
    )
    for link in links:
        if link["page"] not in registered:
            continue
        st.page_link(link["page"], label=f"{link['label']} ({link['minutes']} min)", icon="🎓",
                     query_params=link["query_params"], help=link["description"])
        st.caption(link["description"])
        st.code(link_url(link), language=None, wrap_lines=True)
