"""Challenges in the pages: the cards on Home, and the banner a page shows while one is open.

A challenge's link opens its page with ``?challenge=<key>`` plus its starting point; the page then
calls :func:`challenge_banner` with its result object, which runs the challenge's check
(engine/app/page_content/challenges.py) and says whether it is met.
"""

import streamlit as st

from engine.app.page_content.challenges import CHALLENGES, challenges_for, evaluate, start_params
from pages._deeplink import registered_pages
from pages._predict import ask

PREFIXES = {"pages/convergence.py": "conv", "pages/one_step.py": "os", "pages/bias_variance.py": "bv"}   # key prefixes


def challenge_cards():
    """Home: one card per challenge whose page is registered, with a link to its starting point."""
    registered = registered_pages()
    shown = [c for c in CHALLENGES if c.page in registered]
    if not shown:
        return
    st.header("Challenges")
    st.markdown("Questions you answer by playing with the pages. Each link opens the right page at a starting "
                "point; the page checks your result and says when the challenge is met.")
    for row in range(0, len(shown), 3):
        for col, c in zip(st.columns(3), shown[row:row + 3]):
            with col.container(border=True):
                st.markdown(f"**{c.title}**")
                st.markdown(c.question)
                st.page_link(c.page, label="Take the challenge", icon="🎯", query_params=start_params(c),
                             help="Opens the page at the challenge's starting point.")


def _title(challenge, lead: str = "Challenge") -> str:
    """The challenge's title as a sentence's start: "Challenge: X." (no second stop after a "?")."""
    title = challenge.title.rstrip()
    return f"{lead}: {title}" + ("" if title.endswith(("?", "!", ".")) else ".")


def open_challenge(page: str):
    """The challenge of ``page`` the URL names (``?challenge=<key>``), or None."""
    key = st.query_params.get("challenge")
    return next((c for c in challenges_for(page) if c.key == key), None)


def challenge_intro(page: str) -> None:
    """At the top of a page whose challenge is answered further down (Bias–variance's, beside its draws):
    the question where the other pages show theirs, and where to answer it."""
    challenge = open_challenge(page)
    if challenge is not None:
        st.info(f"🎯 **{_title(challenge)}** {challenge.question}  \nThe check is beside the chart it is "
                "about, further down.")


def challenge_banner(page: str, result, pending=None) -> bool:
    """On ``page``: when the URL names one of its challenges, the question and whether ``result`` meets it,
    after the "Predict first" question (pages/_predict.py). True when the page may draw its chart."""
    challenge = open_challenge(page)
    if challenge is None:
        return True
    prefix = PREFIXES.get(page, "challenge")
    if result is None:    # the question first, then the prediction (a chart may be coming)
        st.info(f"🎯 **{_title(challenge)}** {challenge.question}  \n{evaluate(challenge.key, result)[1]}")
        return ask(prefix, f"challenge:{challenge.key}", result, pending=pending)
    if not ask(prefix, f"challenge:{challenge.key}", result, pending=pending):   # before whether it is met
        st.info(f"🎯 **{_title(challenge)}** {challenge.question}")
        return False
    met, message = evaluate(challenge.key, result)
    if met:
        st.success(f"🎯 **{_title(challenge, 'Challenge met')}** {message}")
    else:
        st.info(f"🎯 **{_title(challenge)}** {challenge.question}  \n{message}")
    return True
