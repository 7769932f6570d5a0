"""One step: a boosting step taken apart, from the residuals to the update of F.

The page computes nothing itself: :class:`engine.app.page_models.one_step.OneStepRun` holds a model stepped
with warm start and reads any step back from it; engine/plotting/one_step.py and trees.py draw it.
Every setting and the step number are in the URL (widget key = query parameter; the widgets are drawn
from engine/app/page_content/parameters/one_step.py), e.g.
``/one_step?os_problem=friedman1-ind&os_method=gbmort&os_step=7``: a fresh session refits the same
k steps (same seed, same model) and shows the same picture.

Plain session_state keys: ``os_run`` (the run of the current settings, its model kept so Back and
Step re-read steps instead of refitting), ``os_playing`` / ``os_last_tick`` (Play).
"""

import time

import streamlit as st

from engine.formatting import fmt_number
from engine.app.page_models import one_step as os_
from engine.app.page_content.parameters.one_step import RELABELLED
from engine.plotting import one_step as figs
from engine.plotting.trees import tree_figure
from pages._challenges import challenge_banner
from pages._deeplink import route_through_app
from pages._compare import reset_button
from pages._data_choice import chosen_dataset
from pages._parameters import parameter_widget
from pages._render import show_chart

route_through_app(__file__)

RUN_KEY, PLAY_KEY, TICK_KEY = "os_run", "os_playing", "os_last_tick"
PLAY_SECONDS = 1.0
CHART_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

st.session_state.setdefault(PLAY_KEY, False)
load_problem = st.cache_data(os_.load_problem, show_spinner="Drawing the data…", max_entries=8)


def _move(delta):
    st.session_state["os_step"] = min(max(st.session_state.get("os_step", 0) + delta, 0), os_.MAX_STEPS)


def _reset():
    st.session_state["os_step"] = 0
    st.session_state[PLAY_KEY] = False


def _toggle_play():
    st.session_state[PLAY_KEY] = not st.session_state[PLAY_KEY]
    st.session_state[TICK_KEY] = time.monotonic()


# Play: the ticker fragment below asks for a full rerun about once a second; the step advances
# here, before the step widget exists (a widget's value can only be set before it is drawn).
if st.session_state.pop("os_tick_pending", False) and st.session_state[PLAY_KEY]:
    _move(1)
    st.session_state[TICK_KEY] = time.monotonic()
    if st.session_state.get("os_step", 0) >= os_.MAX_STEPS:
        st.session_state[PLAY_KEY] = False

def data_page_choice():
    """``(Dataset or None, words)`` of the Data page's choice when it is an upload or a shipped set; the
    words say why when it cannot load; ``(None, "")`` for Friedman1 (this page's own problems)."""
    return chosen_dataset() if st.session_state.get("dataset_spec", {}).get("source", "friedman") != "friedman" else (None, "")


st.title("One step")
st.markdown(
    "What happens inside **one boosting step**, in the order the algorithm runs it: the residuals G, the "
    "random projection, the target the tree is grown on, the tree itself, its leaf values, the weight ρ "
    "of every output, and what the step changed. Press **Step** and watch one more tree join the model."
)

with st.sidebar:
    st.header("Step settings")
    reset_button("os", label="Default settings")
    chosen, chosen_words = data_page_choice()
    problems = list(os_.PROBLEMS) + ([os_.DATA] if chosen_words else [])
    problem = parameter_widget("os_problem", options=problems, index=problems.index(os_.DATA) if os_.DATA in problems else 0)
    n_train = parameter_widget("os_n_train")
    method = parameter_widget("os_method")
    projected = os_.method_row(method).projected
    relabel = parameter_widget("os_relabel", disabled=method not in RELABELLED)
    method_name = RELABELLED[method] if relabel and method in RELABELLED else method
    takes_q = os_.method_row(method_name).takes_q
    q = parameter_widget("os_q", disabled=not takes_q)
    scheme = parameter_widget("os_scheme", disabled=not projected)
    fixed = parameter_widget("os_fixed", disabled=not projected)
    task = ("regression" if problem in os_.FRIEDMAN_PROBLEMS else "multilabel" if problem != os_.DATA
            else chosen.task if chosen is not None else "regression")
    loss = parameter_widget(f"os_loss_{task}")
    leaf_estimation = parameter_widget("os_leaves")
    learning_rate = parameter_widget("os_learning_rate")
    max_leaf_nodes = parameter_widget("os_leaves_per_tree")
    seed = parameter_widget("os_seed")

settings = os_.OneStepSettings(
    problem=problem, n_train=int(n_train), method=method_name, loss=loss, projection=scheme,
    q=int(q) if takes_q else 1, fixed_projection=bool(fixed and projected),
    learning_rate=float(learning_rate), max_leaf_nodes=int(max_leaf_nodes), leaf_estimation=leaf_estimation,
    seed=int(seed),
)  # fmt: skip

c = st.columns([1, 1, 1, 1, 1, 2], vertical_alignment="bottom")
c[0].button("◀ Back", key="os_back", on_click=_move, args=(-1,), use_container_width=True,
            help="Show the previous step again (the model is kept: nothing is refitted, no new randomness).")
c[1].button("Step ▶", key="os_step_one", on_click=_move, args=(1,), type="primary", use_container_width=True,
            help="Show the next boosting step (fitted now with warm start if it is new).")
c[2].button("Step ×10", key="os_step_ten", on_click=_move, args=(10,), use_container_width=True,
            help="Jump 10 steps ahead.")
c[3].button("Pause" if st.session_state[PLAY_KEY] else "Play", key="os_play", on_click=_toggle_play,
            use_container_width=True, help="Advance about one step a second until Pause.")
c[4].button("Reset", key="os_reset", on_click=_reset, use_container_width=True,
            help="Back to step 0, the constant model.")
step = int(parameter_widget("os_step", where=c[5]))

if problem == os_.DATA:
    st.caption(f"Data: **{chosen_words}**, the Data page's choice.")
try:
    run = st.session_state.get(RUN_KEY)
    data_key = chosen_words if problem == os_.DATA else None     # another upload: another run
    if run is None or run.settings != settings or st.session_state.get(f"{RUN_KEY}_data") != data_key:
        if problem == os_.DATA and chosen is None:
            raise ValueError(chosen_words)
        run = os_.OneStepRun(settings, data=load_problem(problem, int(n_train), int(seed),
                                                         dataset=chosen if problem == os_.DATA else None))
        st.session_state[RUN_KEY], st.session_state[f"{RUN_KEY}_data"] = run, data_key
    view = run.view(step)
except ValueError as exc:
    st.error(f"These settings cannot run: {exc}")
    st.stop()

info = run.info
st.caption(f"{info['description']} · {info['split']} · {method_name}, {run.loss}, μ = {learning_rate:g}, "
           f"{max_leaf_nodes} leaves · model fitted up to step {run.n_steps}")

if not challenge_banner("pages/one_step.py", view):   # hidden behind its Predict first question
    st.stop()

if view.step == 0:
    st.info("Step 0: the model is the constant ρ₀ (the best constant per output). Press **Step** to grow the first tree.")
    show_chart(st, figs.gradient_figure(view), config=CHART_CONFIG, key="os_gradient")
else:
    tree_index = 0
    if os_.method_row(method_name).trees_per_step == "d":     # st-gbrt
        d = view.gradient.shape[1]
        tree_index = parameter_widget("os_tree_output", options=range(d), format_func=lambda j: f"y{j + 1}")
    tree = view.trees[tree_index]
    root = tree.feature[0]
    feature_names = [f"x{i + 1}" for i in range(run.X.shape[1])]
    gained = int(((view.train_after - view.train_before) > figs.NO_GAIN).sum())
    d = len(view.rho)
    if root >= 0:
        rejected = ("" if tree.rejected_feature[0] < 0 else
                    f"; the best split on another feature, {feature_names[tree.rejected_feature[0]]} ≤ "
                    f"{fmt_number(tree.rejected_threshold[0])}, would have removed {fmt_number(tree.rejected_improvement[0])}")
        split_text = (f"The root split is **{feature_names[root]} ≤ {fmt_number(tree.threshold[0])}**, which removes "
                      f"{fmt_number(tree.improvement[0])} of the targets' squared error{rejected}.")
    else:
        split_text = "The tree has no split (the targets are constant)."
    st.markdown(
        f"**Step {view.step}.** {split_text} Mean train {view.score_name} "
        f"{view.train_before.mean():.4f} → {view.train_after.mean():.4f}, test "
        f"{view.test_before.mean():.4f} → {view.test_after.mean():.4f}; {gained} of {d} outputs improved on the training set."
    )

    st.subheader("1 · Residuals and what the tree is grown on")
    st.caption("Rows are the training samples, sorted by the root split's feature "
               f"({feature_names[view.trees[0].feature[0]] if view.trees[0].feature[0] >= 0 else 'none'}), "
               "so the split shows as a change of colour between the top and bottom rows.")
    left, right = st.columns([3, 2])
    show_chart(left, figs.gradient_figure(view), config=CHART_CONFIG, key="os_gradient")
    show_chart(right, figs.targets_figure(view, tree_index), config=CHART_CONFIG, key="os_targets")
    if view.projection is not None:
        show_chart(st, figs.projection_figure(view), config=CHART_CONFIG, key="os_projection")

    st.subheader("2 · The tree")
    st.caption("Read from the fitted model's tree store. Each split: feature ≤ threshold, its gain (the decrease "
               "of the squared error of the split targets) and the best split on another feature that was rejected. "
               "Each leaf: its training samples and its stored value.")
    show_chart(st, tree_figure(tree, feature_names=feature_names), config=CHART_CONFIG, key="os_tree")
    show_chart(st, figs.leaf_values_figure(view, tree_index), config=CHART_CONFIG, key="os_leaf_values")

    st.subheader("3 · Weights ρ and the update")
    left, right = st.columns(2)
    show_chart(left, figs.rho_figure(view), config=CHART_CONFIG, key="os_rho")
    show_chart(right, figs.score_change_figure(view), config=CHART_CONFIG, key="os_scores")
    show_chart(st, figs.update_figure(view), config=CHART_CONFIG, key="os_update")


def _ticker():
    """While playing, ask for a full rerun about once a second (the step advances at the page's top)."""
    if st.session_state[PLAY_KEY] and time.monotonic() - st.session_state.get(TICK_KEY, 0.0) >= 0.9 * PLAY_SECONDS:
        st.session_state[TICK_KEY] = time.monotonic()
        st.session_state["os_tick_pending"] = True
        st.rerun()


st.fragment(run_every=PLAY_SECONDS if st.session_state[PLAY_KEY] else None)(_ticker)()
