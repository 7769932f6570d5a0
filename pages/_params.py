"""Every page's URL parameters, and a note naming each parameter of a link the page does not use.

Before the page prefixes (conv_, os_, fx_, bv_, proj_, bench_, data_, cost_) a link's parameters had
other names; a link written then, or a typo, or a parameter of another mode of the page (a Forests
experiment's, a Data source's) was ignored without a word, and the address bar kept it. Now:

* :func:`page_parameters` lists a page's parameters: its rows of the parameter table
  (engine/app/page_content/parameters), the widgets it draws from them and the flags every page reads.
* :func:`note_unused` (app.py, after the page) names every parameter of the URL that this run of
  the page did not read, with a did-you-mean (``n_steps`` -> ``conv_n_steps``): a parameter of the
  page whose control is not shown with the current settings, one of another page, an unknown
  name, a challenge the page does not have. Such a parameter leaves the address bar (it holds
  the values the page uses); the note stays for the visit. A parameter of the page is kept while the
  page's run is in flight (some controls appear only with a result, e.g. Bias–variance's slice).
"""
from __future__ import annotations

import difflib
import re
from functools import lru_cache
from pathlib import Path

import streamlit as st

from engine.app.page_content import parameters as table
from engine.app.page_content.challenges import challenges_for
from pages._parameters import SHOWN_KEY

PAGES_DIR = Path(__file__).resolve().parent
# A page's prefix (the start of every parameter of its own): pages/<file>.py -> prefix.
PREFIXES = {Path(page).stem: prefix for page, prefix in table.PREFIXES.items()}
FLAGS = table.FLAGS     # the flags every page reads (the sidebar's switches, hide, challenge, go, data)
READ_KEY = "app_params_read"       # the parameters url_widget read in this script run
NOTES_KEY = "app_param_notes"      # (visit, notes) of this visit's unused parameters

_KEY = re.compile(r'\bkey="([^"]+)"')


@lru_cache(maxsize=None)
def all_controls() -> tuple[str, ...]:
    """Every control a teacher's link may hide: the table's widgets and buttons, and every other widget
    key written in pages/ (a page's Pin, its data buttons...)."""
    keys = [k for k, row in table.PARAMETERS.items() if row.kind != "flag"]
    for path in sorted(PAGES_DIR.glob("*.py")):
        keys += _KEY.findall(path.read_text(encoding="utf-8"))
    return tuple(dict.fromkeys(keys))


def page_controls(page: str) -> tuple[str, ...]:
    """The widget keys of ``page`` (its prefix's), URL-bound or not."""
    return tuple(k for k in all_controls() if k.startswith(prefix_of(page) + "_"))


def control_guess(name: str, page: str) -> str | None:
    """The control of ``page`` a ``hide`` list most likely meant by ``name`` (an older link's name)."""
    return _guess(name, page, page_controls(page))


def prefix_of(page: str) -> str:
    """The prefix of ``page`` ("pages/convergence.py" or "convergence" -> "conv")."""
    return PREFIXES.get(Path(page).stem, Path(page).stem)


def page_parameters(page: str) -> tuple[str, ...]:
    """Every URL parameter of ``page`` (a page file, "pages/convergence.py"), its flags last."""
    return table.page_parameters(_file(page)) if _file(page) in table.PREFIXES else FLAGS


def owner_page(name: str) -> str | None:
    """The page whose parameter ``name`` is (its file stem), or None."""
    row = table.PARAMETERS.get(name)
    return Path(row.page).stem if row is not None and row.page is not None and row.kind != "button" else None


def _file(page: str) -> str:
    return f"pages/{Path(page).stem}.py"


def did_you_mean(name: str, page: str) -> str | None:
    """The parameter of ``page`` a link most likely meant by ``name``."""
    return _guess(name, page, page_parameters(page))


def _guess(name: str, page: str, names) -> str | None:
    """Of ``names``: the page's prefix added to ``name`` (an older link's name), else the closest one."""
    prefixed = f"{prefix_of(page)}_{name}"
    if prefixed in names:
        return prefixed
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return close[0] if close else None


def begin_run() -> None:
    """Call at the top of every script run (app.py): nothing read yet, no value shown yet."""
    st.session_state[READ_KEY] = set()
    st.session_state[SHOWN_KEY] = {}


def _page_busy() -> bool:
    """Whether a page run of this session is in flight (controls drawn with its result may follow)."""
    entries = [v for k, v in st.session_state.items() if str(k).endswith("_page_run") and isinstance(v, dict)]
    return any(e.get("job") is not None and e["job"].running for e in entries)


def _short(value: str, limit: int = 60) -> str:
    return value if len(value) <= limit else value[:limit] + f"… ({len(value)} characters)"


def _note(name: str, value: str, page: str) -> str:
    title = Path(page).stem
    own = name in page_parameters(page)
    if own:
        label = table.PARAMETERS[name].label if name in table.PARAMETERS else ""
        control = f"its control, {label}," if label else "its control"
        return (f"This page does not use {name} with its current settings ({control} is not shown): "
                f"the link's “{_short(value)}” is ignored.")
    elsewhere = owner_page(name)
    guess = did_you_mean(name, page)
    text = f"This page does not know the link's {name} = “{_short(value)}”"
    if elsewhere is not None and elsewhere != title:
        text += f" (a parameter of the {elsewhere.replace('_', ' ')} page)"
    return text + (f"; did you mean {guess}?" if guess else "; it is ignored.")


def _challenge_note(value: str, page: str) -> str | None:
    keys = [c.key for c in challenges_for(page)]
    if value in keys:
        return None
    listed = f" (its challenges: {', '.join(keys)})" if keys else ""
    return f"This page has no challenge “{_short(value)}”{listed}: the link's challenge is ignored."


def _collect(page: str, visit: int, names, where) -> None:
    """Note each of ``names`` (URL parameters) as unused, take it out of the address bar, keep the note for
    the visit, and draw this visit's notes in ``where``."""
    kept_visit, notes = st.session_state.get(NOTES_KEY, (None, []))
    notes = list(notes) if kept_visit == visit else []
    for name in names:
        value = ", ".join(st.query_params.get_all(name))
        text = _challenge_note(value, page) if name == "challenge" else _note(name, value, page)
        if text is None:
            continue
        notes.append(text)
        try:
            del st.query_params[name]
        except Exception:  # noqa: BLE001 - bound to a widget of another page: Streamlit removes it itself
            pass
    notes = list(dict.fromkeys(notes))
    st.session_state[NOTES_KEY] = (visit, notes)
    with where.container():      # drawn again in place (the page's own notes come below)
        for text in notes:
            st.warning(text, icon="🔗")


def note_unknown(page: str, visit: int, where) -> None:
    """Call before the page runs (app.py): name every URL parameter that is none of the page's (an old
    or mistyped name, another page's, a challenge the page does not have). Before, because a page that
    stops early (st.stop) draws nothing after it."""
    own = set(page_parameters(page))
    unknown = [n for n in st.query_params if n not in own or n == "challenge"]
    _collect(page, visit, unknown, where)


def note_unused(page: str, visit: int, where) -> None:
    """Call after the page ran to its end (app.py): name each parameter of the page that this run did
    not read (its control is not shown with the current settings); kept while the page's run is in
    flight (some controls appear with its result)."""
    if _page_busy():
        return
    read = st.session_state.get(READ_KEY, set())
    unused = [n for n in st.query_params if n in page_parameters(page) and n not in read and n not in FLAGS]
    if unused:
        _collect(page, visit, unused, where)
