"""Convergence (paper Figure 1): train the boosting variants live and watch their test curves.

Training runs in the page's background run (``pages/_jobs.py``); a fragment polls it about three
times a second and redraws the curves. Every setting is in the URL (widget key = query parameter), its
widget drawn from its row of the parameter table (engine/app/page_content/parameters/convergence.py),
e.g. ``/convergence?conv_problem=ind&conv_learning_rate=0.2&conv_n_steps=2000&conv_seed=3``
(every key starts with ``conv_``: a page's keys are its own, so no setting leaks to another page).

Plain session_state keys of this page: ``conv_page_run`` (its background run, :class:`pages._jobs.PageRun`: settings, job,
the fitted models kept for Step, the last finished result), ``conv_pins`` (pinned runs, overlaid
dashed) and ``conv_frame`` (a redraw counter for unique chart keys). It reads the Data page's ``dataset_spec`` / ``dataset_upload`` when "Data
page" is chosen as the problem.
"""

import copy
import secrets
import string

import streamlit as st

from engine import plotting
from engine.app.page_models import dataspec
from engine.app.page_models import live_convergence as live
from engine.app.page_content import takeaways
from engine.app.page_content.parameters.convergence import LOSSES, MAX_FEATURES, PATIENCE, PROBLEMS, X_AXES
from engine.app.page_content.presets import FIGURE1_PANELS
from engine.app.page_content.predictions import NONE_REACHES
from engine.experiments import BoostingSettings
from engine.formatting import fmt_number
from engine.experiments.timing import Timing
from pages._deeplink import preset_go, route_through_app
from pages._jobs import PageRun, estimate_text, fmt_seconds, shared_figure
from pages._challenges import challenge_banner
from pages._predict import ask, wait_hidden
from pages._tree_strip import MARK_KEY, mark_on_curve, tree_strip
from pages._compare import reset_button
from pages._parameters import parameter_button, parameter_widget
from pages._render import show_chart, show_table
from pages._status import failure, progress_bar

route_through_app(__file__)

PINS_KEY, FRAME_KEY, NOTICE_KEY = "conv_pins", "conv_frame", "conv_notice"
run = PageRun("conv")   # this page's background run (st.session_state["conv_page_run"])
STEP_SIZE = 10          # boosting steps added by the Step button
# The fit-time panel: fits under 2 s are repeated in turns (at most 3 fits, 3 s more each) and drawn as
# their step-wise median, so a stall of the machine during one fit draws no staircase (issue 21).
TIMING = Timing(short_seconds=2.0, max_fits=3, budget_seconds=3.0)
MAX_PINS = 4
WARN_SECONDS, MAX_SECONDS = 15.0, 120.0
POLL_SECONDS = 0.35     # about 3 redraws per second while training
CHART_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

st.session_state.setdefault(PINS_KEY, [])
st.session_state.setdefault(FRAME_KEY, 0)
load_problem = st.cache_data(live.problem_from_spec, show_spinner="Reading the data…", max_entries=8)
draw = st.cache_data(live.draw, show_spinner="Drawing the data…", max_entries=8,
                     hash_funcs=dataspec.CACHE_HASH_FUNCS)       # a sparse X (bibtex) as its arrays
estimate = st.cache_data(live.estimate_seconds, show_spinner=False, max_entries=32, ttl=600,
                         hash_funcs=dataspec.CACHE_HASH_FUNCS)


def new_seed():
    st.session_state["conv_seed"] = secrets.randbelow(100_000)


# --- controls ----------------------------------------------------------------------------------
st.title("Convergence")
intro = st.empty()    # the intro names the score and loss of the data's task: written once the data is known
st.caption("The methods train **one after another**, in the order of the Methods list: a curve starts growing "
           "when the one before it has finished, so each is fitted and timed alone.")

with st.sidebar:
    st.header("Convergence run")
    reset_button("conv")
    own_data = st.session_state.get("dataset_spec", {}).get("source", "friedman") != "friedman"   # an upload, a shipped set
    problem = parameter_widget("conv_problem", index=list(PROBLEMS).index("data") if own_data else 0)
    variants = parameter_widget("conv_variants")
    q = parameter_widget("conv_q")
    learning_rate = parameter_widget("conv_learning_rate")
    max_leaf_nodes = parameter_widget("conv_max_leaf_nodes")
    max_features = parameter_widget("conv_max_features")
    loss = parameter_widget("conv_loss")
    n_steps = parameter_widget("conv_n_steps")
    own_split = problem == "data" and st.session_state.get("dataset_spec", {}).get("source", "friedman") != "friedman"
    n_test = parameter_widget("conv_n_test", disabled=own_split)
    split_note = st.empty()     # the split of a data set that has its own, said where the slider is
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    seed = parameter_widget("conv_seed", where=c1)
    parameter_button("conv_new_seed", where=c2, on_click=new_seed)
    patience = parameter_widget("conv_patience")
    x_axis = parameter_widget("conv_x_axis")

# --- the run: start, stop, step, pin ---------------------------------------------------------------


def current_spec(problem):
    if problem == "data":
        spec = st.session_state.get("dataset_spec", dict(dataspec.DEFAULT_SPEC))
        upload = st.session_state.get("dataset_upload") if spec.get("source") == "upload" else None
        return spec, upload
    return dataspec.friedman_spec(problem), None   # the paper's setting: 300 train, d = 16, uniform


def data_label(problem):
    """The data a run of ``problem`` trains on, in words (the Data page's choice for "data")."""
    if problem == "data":
        return dataspec.describe_spec(current_spec(problem)[0])
    return PROBLEMS[problem] + ", 300 training samples, 16 outputs, uniform inputs"


def boosting_of(s, n_steps=None):
    """The run's BoostingSettings (checked when built: a ValueError naming the setting)."""
    return BoostingSettings(s["n_steps"] if n_steps is None else n_steps, learning_rate=s["learning_rate"],
                            max_leaf_nodes=s["max_leaf_nodes"], max_features=MAX_FEATURES[s["max_features"]],
                            loss=LOSSES[s["loss"]], q=s["q"])


def describe(s, result=None):
    """The settings of a run in one line; with its ``result``, the steps it holds (a Step adds to the
    steps it was started with: 10 000 + 2 Steps = 10 020)."""
    data = s.get("data", PROBLEMS[s["problem"]]).split(",")[0]
    steps = [c.n_steps for c in result.curves.values()] if result is not None and result.curves else [s["n_steps"]]
    n = fmt_number(max(steps)) + ("" if min(steps) == max(steps) else f" (shortest {fmt_number(min(steps))})")
    return (f"{data}, {', '.join(s['variants'])}, {n} steps, μ {s['learning_rate']:g}, {s['max_leaf_nodes']} leaves, "
            f"max_features {s['max_features']}, loss {s['loss']}, q {s['q']}, seed {s['seed']}")


def widget_settings():
    """The run settings as the widgets hold them now."""
    ss = st.session_state
    return {"problem": ss["conv_problem"], "data": data_label(ss["conv_problem"]), "variants": tuple(ss["conv_variants"]), "q": int(ss["conv_q"]),
            "learning_rate": float(ss["conv_learning_rate"]), "max_leaf_nodes": int(ss["conv_max_leaf_nodes"]),
            "max_features": ss["conv_max_features"], "loss": ss["conv_loss"], "n_steps": int(ss["conv_n_steps"]),
            "n_test": int(ss["conv_n_test"]), "seed": int(ss["conv_seed"])}


def changed_with_click(drawn):
    """A control moved just before a click reaches the server with the click, after the button
    was drawn with the old settings (and the old cost check): then run nothing, say so, and let
    the page redraw with the new settings and their estimate."""
    if widget_settings() == drawn:
        return False
    st.session_state[NOTICE_KEY] = "The settings changed as you clicked: check them and press again."
    return True


def start_clicked(drawn):
    if not changed_with_click(drawn):
        train(drawn, *current_spec(drawn["problem"]), drawn["n_steps"])


def step_clicked(drawn):
    if not changed_with_click(drawn):
        train_more(drawn, *current_spec(drawn["problem"]))


def train(s, spec, upload, n_steps, kind="run"):
    """Train every chosen method to n_steps steps in the page's background run."""
    run.stop()
    problem = load_problem(spec, upload, n_test=s["n_test"])
    models = {}   # the fitted estimators, kept (warm-startable) so Step can continue them
    # Once no session holds the finished run, the server's cache keeps its curves and first trees, not
    # the models (live.compact_extra: 70 MB for 10 000 steps of five methods); a Step then refits.
    run.start(live.train_curves, problem, boosting_of(s, n_steps), list(s["variants"]), seed=s["seed"],
              models=models, timing=TIMING, settings=dict(s), extra={"models": models, "kind": kind},
              compact=live.compact_extra)


def status_of(view):
    """The run's status, "stepped" for a finished Step."""
    return "stepped" if view.status == "done" and view.extra.get("kind") == "step" else view.status


def kept(s):
    """The last finished run when it was trained with the settings ``s`` (else None)."""
    done = run.finished
    if done is None or done.result is None or not same_model(done.settings, s):
        return None
    return done


def steps_done(s):
    """Steps of the shortest curve of the kept run when it has the settings ``s``, else 0."""
    done = kept(s)
    return min((c.n_steps for c in done.result.curves.values()), default=0) if done is not None else 0


def can_warm_step(s, problem):
    done = kept(s)
    return (not run.running and done is not None
            and live.can_continue(problem, s["variants"], done.extra.get("models")))


def train_more(s, spec, upload):
    """Step: STEP_SIZE more boosting steps for every variant, in the background. The kept
    (warm-startable) estimators continue where they are, so a Step after a long run costs STEP_SIZE
    steps; otherwise (new settings, artificial-gbrt, multi-label data) a fresh run to the next
    STEP_SIZE steps (the same seed reproduces the steps shown). Too costly a fresh run is refused
    by the disabled button."""
    run.stop()
    problem = load_problem(spec, upload, n_test=s["n_test"])
    if can_warm_step(s, problem):
        done = run.finished
        models = copy.deepcopy(done.extra["models"])   # the kept models may be shared with other sessions
        run.start(live.continue_curves, problem, boosting_of(s), list(s["variants"]), models, n_more=STEP_SIZE,
                  seed=s["seed"], share=False, settings=done.settings, extra={"models": models, "kind": "step"})
        return
    train(s, spec, upload, steps_done(s) + STEP_SIZE, kind="step")


def same_model(a, b):
    keys = ("problem", "data", "variants", "learning_rate", "max_leaf_nodes", "max_features", "loss", "q", "n_test", "seed")
    return all(a.get(k) == b.get(k) for k in keys)


def pin_run():
    done = run.finished
    if done is None or done.result is None or not done.result.curves:
        return
    pins = st.session_state[PINS_KEY]
    used = {p["name"] for p in pins}
    name = next((c for c in string.ascii_uppercase if c not in used), "Z")
    pins.append({"name": name, "label": describe(done.settings, done.result), "settings": dict(done.settings),
                 "result": done.result})
    del pins[:-MAX_PINS]


def clear_pins():
    st.session_state[PINS_KEY] = []


settings = widget_settings()   # = the values the widgets above returned
spec, upload = current_spec(problem)

# --- check the settings and estimate the cost ------------------------------------------------------
# This script's globals live on after its tab closes: the live panel's fragment keeps them, and
# Streamlit keeps a closed tab's session two minutes for a reconnect (server.disconnectedSessionTTL).
# So no data, result or model is held in a global here (a finished run's models: 70 MB for 10 000
# steps of five methods, once per class; the data: a copy per session).
def check(settings, spec, upload):
    """``(error or None, {method: estimated seconds}, whether Step can continue the kept models)`` of
    the settings on their data (drawn once per rerun: the cache hands out a copy per call)."""
    try:
        problem = load_problem(spec, upload, n_test=settings["n_test"])
        boosting = boosting_of(settings)
        live.check_settings(problem, boosting, list(settings["variants"]))
        costs = estimate(problem, boosting, tuple(settings["variants"]), seed=settings["seed"])
        data = draw(problem, settings["seed"])
    except (ValueError, TypeError) as exc:   # TypeError: an input the estimators do not take (a sparse X)
        return str(exc), {}, False, None
    return None, costs, can_warm_step(settings, problem), data


def sample_text(data):
    """The training and test rows of the data a run trains on, read from the data drawn (an upload or a
    shipped set has its own split; the Test samples slider sizes friedman1's test sample only)."""
    if data is None:
        return ""
    X_tr, X_te, info = data.X_train, data.X_test, data.info
    if str(info.get("name", "")).startswith("friedman1"):      # its training rows are in the label already
        return f"; {X_te.shape[0]} test samples"
    return f"; {X_tr.shape[0]} training / {X_te.shape[0]} test samples ({info['split']})"


problem_error, costs, warm_step, drawn = check(settings, spec, upload)
total_cost = sum(costs.values())
task = drawn.task if drawn is not None else "regression"
intro.markdown(
    "How fast does each multi-output boosting method learn, and how good does it get? Each curve is the "
    + ("**test macro-r2** after every boosting step (paper Figure 1: stumps, learning rate 0.1, square loss). "
       if task == "regression" else
       "**test LRAP** (label ranking average precision, 1 is best) after every boosting step: these are 0/1 labels, "
       "so the default loss is the logistic loss (paper section 3.1), with stumps and learning rate 0.1. ")
    + "Pick methods and settings in the sidebar, press **Start** and watch the curves grow; **Pin** a run, "
    "change one knob and run again to overlay the two."
)
if own_split and drawn is not None:
    split_note.caption(f"Test samples here: **{drawn.X_test.shape[0]:,}** of {drawn.X_train.shape[0] + drawn.X_test.shape[0]:,} "
                       f"rows ({drawn.split}); the slider sizes friedman1's test sample only.")
too_costly = total_cost > MAX_SECONDS

run.harvest()
go = preset_go()   # a Home preset's link: train on its one click, as the default view does when small
if (go or not run.started) and problem_error is None and (total_cost <= WARN_SECONDS or (go and not too_costly)):
    train(settings, spec, upload, settings["n_steps"])   # the default view trains by itself
running = run.running

st.caption(f"Data: {settings['data']}{sample_text(drawn)} · seed **{settings['seed']}**.")
if problem_error:
    st.error(f"These settings cannot run: {problem_error}", icon="⚠️")
elif too_costly:
    st.error(f"Too costly for this page: about {total_cost:.0f} s estimated (limit {MAX_SECONDS:.0f} s). "
             "Use fewer steps, fewer methods, smaller trees or fewer test samples.", icon="⏱️")
else:
    detail = ", ".join(f"{k} {v:.1f} s" for k, v in costs.items())
    msg = f"Estimated training time: **{estimate_text(total_cost, run.name)}** ({detail}), from the CPU time of a tiny probe fit."
    (st.warning if total_cost > WARN_SECONDS else st.caption)(msg)

if NOTICE_KEY in st.session_state:
    st.info(st.session_state.pop(NOTICE_KEY), icon="🔁")
b = st.columns([1, 1, 1.2, 1, 1.3, 2.5])
can_run = problem_error is None and not too_costly
b[0].button("Start", type="primary", key="conv_start", disabled=not can_run or running, on_click=start_clicked, args=(settings,),
            help="Train every chosen method in the background; the curves are redrawn while they grow.")
b[1].button("Stop", key="conv_stop", disabled=not running, on_click=run.stop,
            help="Stop training; the curves so far are kept (and can be pinned).")
# Step's cost: STEP_SIZE steps on the kept models (warm start), else a fresh run to done + STEP_SIZE steps.
per_step = total_cost / max(settings["n_steps"], 1)
step_cost = per_step * (STEP_SIZE if warm_step else steps_done(settings) + STEP_SIZE)
step_refused = step_cost > MAX_SECONDS
# A run served from the server's cache after every session that computed it had left: its curves, no models.
models_dropped = not warm_step and not running and kept(settings) is not None and "first_trees" in kept(settings).extra
b[2].button(f"Step +{STEP_SIZE}", key="conv_step", disabled=problem_error is not None or running or step_refused,
            on_click=step_clicked, args=(settings,),
            help=(f"Refused: continuing this run needs a fresh fit of about {step_cost:.0f} s (limit {MAX_SECONDS:.0f} s)."
                  if step_refused else
                  f"Add {STEP_SIZE} boosting steps by a fresh run to {steps_done(settings) + STEP_SIZE} steps "
                  f"(about {step_cost:.0f} s): this run came from the server's cache, which keeps curves, not models."
                  if models_dropped else
                  f"Add {STEP_SIZE} boosting steps to every method, in the background: the kept models continue "
                  "where they are (from 0 when the settings changed)."))
b[3].button("Pin", key="conv_pin", disabled=running or run.finished is None or run.finished.result is None, on_click=pin_run,
            help=f"Keep this run on the chart (dashed) to compare with the next one; up to {MAX_PINS} pins.")
b[4].button("Clear pins", key="conv_clear", disabled=not st.session_state[PINS_KEY], on_click=clear_pins,
            help="Remove every pinned run.")

if models_dropped:
    st.caption(f"This run came from the server's cache, which keeps its curves but not its fitted models: "
               f"Step +{STEP_SIZE} refits every method from step 0"
               + (" (refused: too long)." if step_refused else f" (about {fmt_seconds(step_cost)})."))

def checked_result():
    """The finished run's result when it has the sidebar's settings (a challenge is checked on it). A run
    served from the server's cache has ended before this line: harvest it, or the banner would say
    "Nothing to check yet" beside its chart."""
    done = run.harvest()
    return (done.result if done is not None and not run.running and same_model(done.settings, settings)
            else None)


checked = checked_result()
chart_allowed = challenge_banner("pages/convergence.py", checked, pending=running or checked is not None)   # ?challenge=...
if chart_allowed and "challenge" not in st.query_params and settings["problem"] in FIGURE1_PANELS:   # Figure 1 presets
    chart_allowed = ask("conv", "first", checked, choices=[*settings["variants"], NONE_REACHES],
                        pending=running or checked is not None, about=settings)

# How to read the chart, per problem: the structure of the data and what the paper reports for it.
# What *this* run shows is computed from its curves (engine.app.page_content.takeaways), never written here.
EXPLAIN = {
    "group": f"Every output is the same signal plus its own noise. The paper ({FIGURE1_PANELS['group']}) finds the shared-tree "
             "methods (gbmort, gbrt-rpo) climbing far faster per tree per output than st-gbrt.",
    "chain": "Each output adds noise to the previous one, so all outputs are strongly correlated. The paper "
             f"({FIGURE1_PANELS['chain']}) finds gbmort and gbrt-rpo converging much faster per output than st-gbrt.",
    "ind": f"Each output depends on its own five inputs: nothing is shared. The paper ({FIGURE1_PANELS['ind']}) finds st-gbrt "
           "ending best and gbmort, which forces all outputs to share every split, worst.",
    "data": "If the outputs are correlated, methods that share trees (gbmort, gbrt-rpo) should rise faster per "
            "output than st-gbrt; if they are independent, st-gbrt should end best.",
}


# --- live panel ----------------------------------------------------------------------------------
def current_figure(result, x_axis, patience):
    """The chart of one run alone, without pins or a marked tree: what every student of a class
    sees, built once per (partial) result (``pages._jobs.shared_figure``)."""
    stops = {"current": shared_figure(live.early_stop_steps, result, patience)}
    return plotting.live_convergence_figure(result, [], x_axis, early_stops=stops)


def status_banner(view, status, result, shown):
    """The progress bar and one status line. The same elements in the same order in every frame
    (progress, status, chart, caption): a frame with fewer elements would leave a stale chart of
    an earlier frame on the page."""
    longest = max((c.n_steps for c in result.curves.values()), default=0) if result is not None else 0
    elapsed = view.elapsed
    if status == "running":
        progress_bar(view, prefix="Training… ")
    else:
        st.progress(1.0 if result is not None else 0.0,
                    text="no run on this data yet" if status == "other_data" else f"{status} · {longest} steps")
    if status == "running":
        # the chart's curves lag the bar's step count (a partial result is built at most every 0.5 s):
        # the line says what the chart holds, not a second count of the same steps
        st.info(f"Status: **running** · the chart shows {longest} steps so far (redrawn as the run grows).", icon="⏳")
    elif status == "stopped":
        st.warning(f"Status: **stopped** after {elapsed:.1f} s: the partial curves are kept "
                   f"(longest {longest} steps). Pin them, or press Start for a full run.", icon="⏹️")
    elif status == "done":
        st.success(f"Status: **done** in {elapsed:.1f} s{view.timing_note} ({longest} steps per method).", icon="✅")
    elif status == "stepped":
        st.success(f"Status: **stepped**: {STEP_SIZE} more steps for every method (longest curve {longest} "
                   f"steps). Press Step again to add {STEP_SIZE}.", icon="⏭️")
    elif status == "other_data":
        st.info(f"Status: the last run trained on **{shown['data']}**, not on the data chosen now: its curves "
                "are hidden. Press Start to train on the new data.", icon="🔁")
    elif status == "failed":
        failure(view)
    else:
        st.info("Status: **idle**. Press Start to train." if can_run else
                "Status: **idle**. These settings are refused (see above): change them to train.", icon="▶️")


def live_chart(result, pins, stops, frame):
    """The chart: this session's own picture when it has pins or a marked tree, else the class's
    picture (one figure per (partial) result for every session watching it). Returns the figure."""
    if pins or st.session_state.get(MARK_KEY) is not None:
        fig = plotting.live_convergence_figure(result, [(p["name"], p["result"]) for p in pins], X_AXES[x_axis],
                                               early_stops=stops)
        mark_on_curve(fig, result, X_AXES[x_axis])   # the tree chosen in the strip below
    else:
        fig = shared_figure(current_figure, result, X_AXES[x_axis], PATIENCE[patience])
    show_chart(st, fig, key=f"conv_chart_{frame}", config=CHART_CONFIG)
    return fig


def chart_caption(pins, stops):
    """Under the chart: what the dashed curves and the diamonds are."""
    notes = [f"Pinned **{p['name']}** (dashed): {p['label']}." for p in pins]
    if PATIENCE[patience] is not None and any(v is not None for v in stops["current"].values()):
        notes.append(f"◆ where early stopping (n_iter_no_change = {patience}, tol = 1e-4) would have "
                     "stopped, watching the test curve.")
    st.caption("  \n".join(notes) or "Solid: the current run. Pin it to keep it as a dashed baseline.")


def what_to_look_for(result, shown):
    """Beside the chart: how to read it for this problem, and what this run shows (from its curves)."""
    st.markdown("**What to look for**")
    if result is not None and result.curves:
        st.markdown(EXPLAIN[shown["problem"]])
        st.markdown(takeaways.convergence_takeaway(result, X_AXES[x_axis]))
        timed = takeaways.fit_time_sentence(result)   # from each curve's number of timed fits
        st.markdown(f"**Right panel:** the same curves against seconds of fitting ({timed}; a st-gbrt step "
                    "fits one tree per output). " + takeaways.convergence_time_takeaway(result))
    else:
        st.markdown(EXPLAIN[settings["problem"]] + " Press Start to see what this run finds.")


def results_table(table, frame):
    st.markdown("**Results**: best test score, the step where it is reached, fitting seconds until then, "
                "and the score at the last step. A best step far before the last one means overfitting. "
                "Early stop: the step (and test score) where early stopping would have ended training.")
    show_table(st, table, hide_index=True, key=f"conv_table_{frame}", column_config={
        "estimator": st.column_config.TextColumn("method", width="medium"),   # never cut "gbrt-rpo-subsampled"
        "best_score": st.column_config.NumberColumn("best score", format="%.4f"),
        "best_step": st.column_config.NumberColumn("best step"),
        "best_trees_per_output": st.column_config.NumberColumn("trees/output at best", format="%.0f"),
        "time_to_best": st.column_config.NumberColumn("seconds to best", format="%.3f"),
        "final_score": st.column_config.NumberColumn("final score", format="%.4f"),
        "fit_time": st.column_config.NumberColumn("fit seconds", format="%.3f"),
        "early_stop_step": st.column_config.NumberColumn("early stop step"),
        "early_stop_score": st.column_config.NumberColumn("score at early stop", format="%.4f"),
    })


def downloads(table, result, fig):
    """The finished run's files, made when clicked (callables), not on every redraw of every session."""
    d = st.columns(3)
    d[0].download_button("Results CSV", data=lambda: table.to_csv(index=False) + "\n" + result.to_frame().to_csv(index=False),
                         file_name="convergence.csv", mime="text/csv", on_click="ignore", key="conv_dl_csv",
                         icon="⬇️", help="The results table, then every curve: one row per method and step.")
    d[1].download_button("Curves JSON", data=lambda: result.to_json(), file_name="convergence.json",
                         mime="application/json", on_click="ignore", key="conv_dl_json", icon="⬇️",
                         help="The current run with its settings (engine.experiments.ConvergenceResult.from_json reads it).")
    d[2].download_button("Figure HTML", data=lambda: plotting.standalone_html(fig), file_name="convergence.html",
                         mime="text/html", on_click="ignore", key="conv_dl_html", icon="⬇️",
                         help="The chart as a standalone interactive HTML file (works offline).")


@st.fragment(run_every=run.poll_while(running, POLL_SECONDS))
def live_panel():
    pins = st.session_state[PINS_KEY]
    view = run.view()
    result, status = view.result, status_of(view)
    # A run on other data than the sidebar's is not drawn: its curves would sit under the new problem's
    # words and estimate (the sidebar's other knobs changed: the curves stay, labelled with their settings).
    shown = view.settings
    if shown is not None and shown.get("data") != settings["data"]:
        result, status = None, "other_data"

    if run.changed(view):    # a new chart key only for a new picture: the browser keeps an unchanged one
        st.session_state[FRAME_KEY] += 1
    frame = st.session_state[FRAME_KEY]
    left, right = st.columns([3, 1])
    with left:
        status_banner(view, status, result, shown)
        stops = {name: shared_figure(live.early_stop_steps, res, PATIENCE[patience])   # once per result, too
                 for name, res in [(p["name"], p["result"]) for p in pins] + [("current", result)]}
        fig = live_chart(result, pins, stops, frame)
        if result is not None and shown is not None and not same_model(shown, settings):
            st.warning(f"The solid curves were trained with other settings: **{describe(shown)}**. The sidebar has "
                       "changed since: press Start to train with the new ones.", icon="🔁")
        chart_caption(pins, stops)
    with right:
        what_to_look_for(result, shown)

    table = live.results_table(([(p["name"], p["result"]) for p in pins]) + [("current", result)], stops)
    results_table(table, frame)
    if view.running:
        run.pace()   # a slower redraw period once many more sessions watch (one full rerun)
        return
    if result is not None and result.curves:
        downloads(table, result, fig)
    run.rerun_when_finished()   # one full rerun turns polling off and re-enables the buttons


def trees_of_the_run():
    """The first trees of the finished run (kept without its models by the server's cache once nobody held it)."""
    done = run.finished
    if not running and done is not None and same_model(done.settings, settings):
        tree_strip(done.extra.get("models") or done.extra.get("first_trees"))


if chart_allowed:
    live_panel()
    trees_of_the_run()
else:
    wait_hidden(run, running)   # the page reruns when the hidden run ends
