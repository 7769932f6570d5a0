"""One status banner for every page's background run (pages/_jobs.py): the progress bar while it
computes, with Stop beside it where the page puts it there, and the message of a run that failed.

Every page that runs something says these the same way, so a student who learnt one page reads the
others. What a page says around a finished or stopped run stays its own: what was finished (curves,
learning sets, values of d, repeats) differs from page to page.
"""

import streamlit as st

from pages._jobs import estimate_text


def progress_bar(view, estimate=None, page=None, *, prefix="", where=st):
    """The running run's progress: its message and seconds so far, and with ``estimate`` the
    estimate as this server's measurements of ``page``'s runs make it (pages._jobs.estimate_text)."""
    text = f"{prefix}{view.message} · {view.elapsed:.1f} s"
    if estimate is not None:
        text += f" (estimated {estimate_text(estimate, page)})"
    where.progress(view.fraction, text=text)


def failure(view, what="The run"):
    """A failed run: the last line of its error, the traceback folded away under it."""
    lines = (view.error or "").strip().splitlines()
    st.error(f"{what} failed: {lines[-1] if lines else 'unknown error'}", icon="⚠️")
    if lines:
        with st.expander("Traceback"):
            st.code(view.error)


def run_status(run, run_every, *, estimate=None, stop_key=None, stop_help=None):
    """The polling fragment of a page whose full script draws the finished result: the progress bar
    (with Stop beside it when ``stop_key`` is given) while ``run`` computes; once it has ended, one
    full rerun redraws the page around its result. ``run_every``: the page's
    ``run.poll_while(...)`` or ``run.poll_every(...)``."""

    @st.fragment(run_every=run_every)
    def status():
        view = run.view()
        if view.running and stop_key is None:
            progress_bar(view, estimate, run.name)
        elif view.running:
            bar, stop = st.columns([5, 1], vertical_alignment="bottom")
            progress_bar(view, estimate, run.name, where=bar)
            stop.button("Stop", key=stop_key, on_click=run.stop, help=stop_help)
        run.rerun_when_finished()

    status()
