"""The first trees of a run, side by side, linked to its curve (used by the Convergence page).

:func:`tree_strip` draws the first trees of one kept model as small drawings, each with a
button that marks its step on the curve; the mark lives in ``st.session_state[MARK_KEY]`` as
``(method, step)``, and :func:`mark_on_curve` adds it to the curve figure.
"""

import streamlit as st

from engine.app.page_models.one_step import STRIP_TREES, FirstTrees, first_trees
from engine.methods import BOOSTING
from engine.plotting.trees import mark_step, tree_figure
from pages._jobs import shared_figure
from pages._parameters import parameter_widget
from pages._render import show_chart

MARK_KEY = "conv_tree_mark"
CONFIG = {"displaylogo": False, "displayModeBar": False}


def _mark(method, step):
    st.session_state[MARK_KEY] = None if st.session_state.get(MARK_KEY) == (method, step) else (method, step)


def mark_on_curve(fig, result, x):
    """Mark the chosen tree's step on the current run's curve (when that method is in ``result``)."""
    mark = st.session_state.get(MARK_KEY)
    if mark is None or result is None or mark[0] not in result.curves:
        return
    mark_step(fig, result.curves[mark[0]], mark[1], x)


def strip_figures(model, output, feature_names):
    """``[(step, figure)]``: the drawings of ``model``'s first trees (of one output for st-gbrt)."""
    return [(step, tree_figure(tree, feature_names=feature_names, compact=True, title=f"step {step}", height=300))
            for step, tree in first_trees(model, STRIP_TREES, output)]


def tree_strip(models: dict, feature_names=None):
    """The strip, for the models of a finished run (``{method: fitted estimator}``, or the
    :class:`FirstTrees` the server's cache kept of them)."""
    models = {name: m for name, m in (models or {}).items()
              if getattr(m, "trees_", None) is not None or isinstance(m, FirstTrees)}
    st.subheader("The first trees, side by side")
    if not models:
        st.caption("The first trees appear here when a run of the boosting methods has finished.")
        return
    c = st.columns([2, 1, 3])
    method = parameter_widget("conv_strip_method", where=c[0], options=list(models))
    model = models[method]
    output = 0
    if BOOSTING[model.strategy].trees_per_step == "d":      # st-gbrt: one tree per output and step
        output = parameter_widget("conv_strip_output", where=c[1], options=range(model.n_outputs_), format_func=lambda j: f"y{j + 1}")
    c[2].caption("Split: feature ≤ threshold; leaf: its training samples. Click **step k** to mark that step "
                 "on the curve above (click again to clear).")
    drawings = shared_figure(strip_figures, model, output, feature_names)   # once for every session of the run
    mark = st.session_state.get(MARK_KEY)
    for row in range(0, len(drawings), 4):
        cols = st.columns(4)
        for col, (step, fig) in zip(cols, drawings[row:row + 4]):
            with col:
                show_chart(st, fig, config=CONFIG, key=f"conv_strip_{method}_{output}_{step}")
                chosen = mark == (method, step)
                st.button(f"{'✓ ' if chosen else ''}step {step}", key=f"conv_strip_mark_{step}",
                          on_click=_mark, args=(method, step), type="primary" if chosen else "secondary",
                          use_container_width=True, help=f"Mark step {step} on the curve above (click again to clear).")
