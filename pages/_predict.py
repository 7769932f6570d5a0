"""Predict, then reveal: a page asks a question before drawing a chart whose result answers it.

``ask(prefix, question_id, result, ...)`` draws the question (a radio with nothing chosen) and
returns whether the page may draw the chart: yes once the student has answered (the chart then
shows the answer), after "Reveal", when nothing is to be revealed yet, or when the sidebar's
"Predict first" switch (app.py, ``?predict=true`` in the URL turns it on) is off. Once a result is shown,
the prediction is locked for that result and compared with the answer computed from it
(engine/app/page_content/predictions.py). Session keys: ``<prefix>_predict_<id>`` (the choice),
``<prefix>_locked_<id>`` (the result the choice is locked for), ``<prefix>_revealed_<id>`` (Reveal pressed: this question's charts stay shown).
"""
from __future__ import annotations

import os

import streamlit as st

from engine.app.page_content.predictions import question
from pages._parameters import parameter_widget

TOGGLE_KEY = "predict"
# The switch's default on this server: off (unset) or on. Off by default: a practitioner or a
# researcher sees every chart at once, and the pages' first views (the start-up cache, bench
# --pages) are drawn charts; a class gets the questions from the teacher's links (?predict=true)
# or from a server started with RPO_PREDICT_FIRST=on.
DEFAULT_ENV = "RPO_PREDICT_FIRST"


def predict_default() -> bool:
    """The switch's default from the server's ``RPO_PREDICT_FIRST`` (on / off; unset: off)."""
    value = os.environ.get(DEFAULT_ENV, "off").strip().lower()
    if value not in ("on", "off"):
        raise ValueError(f"{DEFAULT_ENV} must be on or off, got {value!r}")
    return value == "on"


def _default() -> bool:
    """The switch's default; off when the variable is wrong (app.py's check_settings then stops the page, naming it)."""
    try:
        return predict_default()
    except ValueError:
        return False


def predict_switch():
    """The sidebar switch (app.py draws it on every page); bound to the URL, off by default."""
    parameter_widget("predict", default=_default())


def predicting() -> bool:
    return bool(st.session_state.get(TOGGLE_KEY, _default()))


def ask(prefix: str, question_id: str, result, *, choices=(), pending=None, about=None) -> bool:
    """Ask ``question_id`` before the chart of ``result``; True when the chart may be drawn.
    ``choices``: the page's choices when the question has none of its own (the run's methods).
    ``pending``: whether a result is coming or shown (default: ``result is not None``).
    ``about``: what the question is asked about (the settings that can change its answer: problem,
    data set, methods...); when it changes, the earlier answer and Reveal are dropped and the question
    is asked again before the new chart (the answer belongs to one question, not to the session)."""
    if not predicting():
        return True
    q = question(question_id)
    options = list(q.choices or choices)
    slug = question_id.replace(":", "_").replace("-", "_")
    key, lock, shown, topic = (f"{prefix}_{k}_{slug}" for k in ("predict", "locked", "revealed", "about"))
    new_question(topic, about, (key, lock, shown))
    token = None if result is None else id(result)
    answered = st.session_state.get(key)
    if answered is not None and answered not in options:     # the choices changed (other methods)
        st.session_state[key] = answered = None
    locked = token is not None and answered is not None and st.session_state.get(lock) == token
    if locked:
        # Streamlit (1.67) drops a disabled widget's value that came from the browser in this same
        # interaction. An answer clicked just as the run ended is locked by the page's rerun within that
        # interaction (the polling fragment's), and would be lost: set through the Session State API,
        # the value stands.
        st.session_state[key] = answered
    with st.container(border=True, key=f"{prefix}_ask_{slug}"):
        choice = st.radio(f"🤔 **Predict first:** {q.text}", options, index=None, key=key, horizontal=True,
                          disabled=locked, help="Your answer is kept in this session and compared with the result.")
        if choice is not None and token is not None:
            st.session_state[lock] = token
            right = q.answer(result)
            if right is None:
                st.caption(f"You predicted **{choice}**: this result cannot answer the question.")
            else:
                ok = choice == right
                (st.success if ok else st.warning)(f"You predicted **{choice}** — the result: **{right}** "
                                                   f"({'right' if ok else 'wrong'}).", icon="✅" if ok else "❌")
            return True
        if choice is not None or st.session_state.get(shown):
            return True
        if not (result is not None if pending is None else pending):
            return True
        st.caption("The chart is hidden until you answer.")
        st.button("Reveal", key=f"{prefix}_reveal_{slug}", on_click=st.session_state.__setitem__, args=(shown, True),
                  help="Show the chart without predicting.")
        return False


def new_question(topic: str, about, keys) -> None:
    """When ``about`` differs from what the question in ``topic`` was last asked about, forget its
    answer (the session keys ``keys``): the same question about something else is a new question."""
    if about is None:
        return
    mark = repr(about)
    if st.session_state.get(topic, mark) != mark:
        for k in keys:
            st.session_state.pop(k, None)
    st.session_state[topic] = mark


def wait_hidden(run, drawn_running, every=0.5):
    """While a chart is hidden behind a question: poll the page's background run and rerun the page
    when it ends (its buttons are drawn for a running run until then)."""
    @st.fragment(run_every=run.poll_while(drawn_running, every))
    def _poll():
        run.rerun_when_finished()
    _poll()
