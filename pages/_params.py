"""Every page's URL parameters, and a note naming each parameter of a link the page does not use.

Before the page prefixes (conv_, os_, fx_, bv_, proj_, bench_, data_, cost_) a link's parameters had
other names; a link written then, or a typo, or a parameter of another mode of the page (a Forests
experiment's, a Data source's) was ignored without a word, and the address bar kept it. Now:

* :func:`page_parameters` lists a page's parameters: the key of every URL-bound widget
  (:func:`pages._url.url_widget`) in the page's file and in the helper modules of its prefix,
  read from their source (so a widget added to a page is listed with nothing else to change; a key
  written as an f-string, e.g. ``os_loss_{task}``, counts with each value of its placeholder that
  :data:`PLACEHOLDERS` names), plus the flags every page reads (:data:`FLAGS`).
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

from engine.app.page_content.challenges import challenges_for
from engine.names import LOSSES

PAGES_DIR = Path(__file__).resolve().parent
# A page's prefix (the start of every parameter of its own): pages/<file>.py -> prefix.
PREFIXES = {"convergence": "conv", "one_step": "os", "forests": "fx", "bias_variance": "bv", "projections": "proj",
            "benchmark": "bench", "data": "data", "cost": "cost", "home": "home"}
# The flags every page reads (app.py's sidebar, pages/_classroom.py, pages/_challenges.py, a preset's go, the
# data choice of pages/_data_choice.py).
FLAGS = ("predict", "projector", "hide", "challenge", "go", "data")
# The values an f-string key's placeholder takes (one_step's and projections' loss, one per task).
PLACEHOLDERS = {"task": tuple(LOSSES)}
READ_KEY = "app_params_read"       # the parameters url_widget read in this script run
NOTES_KEY = "app_param_notes"      # (visit, notes) of this visit's unused parameters

_CALL = re.compile(r"url_widget\(")
_KEY = re.compile(r'\bkey=(f?)"([^"]+)"')


def _call_text(source: str, start: int) -> str:
    depth = 0
    for i in range(start, min(len(source), start + 4000)):
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        if depth == 0 and source[i] == ")":
            return source[start:i]
    return source[start:start + 4000]


def _expand(key: str, is_f: bool) -> list[str]:
    if not is_f:
        return [key]
    names = [key]
    for slot, values in PLACEHOLDERS.items():
        names = [n.replace("{" + slot + "}", v) for n in names for v in values]
    return [n for n in names if "{" not in n]


@lru_cache(maxsize=None)
def _all_widget_keys() -> tuple[str, ...]:
    """The key of every URL-bound widget in pages/ (read from the source)."""
    keys = []
    for path in sorted(PAGES_DIR.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for m in _CALL.finditer(source):
            found = _KEY.search(_call_text(source, m.end() - 1))
            if found:
                keys += _expand(found.group(2), bool(found.group(1)))
    return tuple(dict.fromkeys(keys))


@lru_cache(maxsize=None)
def all_controls() -> tuple[str, ...]:
    """Every widget key written in pages/ (a teacher's link may hide any control, URL-bound or not:
    Convergence's New seed button too); an f-string key with each value of its placeholder."""
    keys = []
    for path in sorted(PAGES_DIR.glob("*.py")):
        for m in _KEY.finditer(path.read_text(encoding="utf-8")):
            keys += _expand(m.group(2), bool(m.group(1)))
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
    prefix = prefix_of(page)
    own = [k for k in _all_widget_keys() if k.startswith(prefix + "_")]
    return tuple(own) + FLAGS


def owner_page(name: str) -> str | None:
    """The page whose parameter ``name`` is (its file stem), or None."""
    for stem, prefix in PREFIXES.items():
        if name.startswith(prefix + "_") and name in _all_widget_keys():
            return stem
    return None


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
    """Call at the top of every script run (app.py): nothing read yet."""
    st.session_state[READ_KEY] = set()


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
        return (f"This page does not use {name} with its current settings (its control is not shown): "
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
