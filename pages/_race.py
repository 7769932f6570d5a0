"""The Projections page's race: the engine against XGBoost on bibtex, corel5k or the data chosen on
the Data page (an upload too), test score against fit seconds (engine.experiments.time_to_accuracy),
with the engine's defaults as a third racer, in its own background run with a Stop button.

It offers the papers' leaves and the second-order ones. XGBoost comes with the app's own
dependencies; where it is missing all the same, the section says so with the package to install, and
the race runs the engine alone. Whether XGBoost raced is one of the race's settings (an argument of
the run, so part of the run store's key): a race run before XGBoost was installed is not served
as the race with XGBoost, and the page says when the race shown lacks a peer it could have now.
napkinXC's probabilistic label trees (PLT, what a practitioner fits first on hundreds of labels) race
too where napkinXC is installed (the bench extra, not the app's), by the same rule: one point, its fit.
"""
import dataclasses

import streamlit as st

from engine import plotting
from engine.experiments.problems import Problem
from engine.experiments.time_to_accuracy import (RACE_BOOSTING, RACE_DATASETS, RaceSettings, plt_installed,
                                                 run_time_to_accuracy, xgboost_installed, xgboost_missing_note)
from pages._data_choice import SPEC_KEY, chosen_dataset
from pages._jobs import PageRun
from pages._status import failure, run_status
from pages._parameters import parameter_widget
from pages._render import show_chart

run = PageRun("proj_race")
CHART_CONFIG = {"displaylogo": False}


DATA_PAGE = "data"      # the race's data option: the Data page's choice


def _settings(with_xgboost, with_plt):
    c0, c1, c2, c3, c4 = st.columns([1.2, 1, 1, 1, 1])
    options = [*RACE_DATASETS, DATA_PAGE]
    upload = st.session_state.get(SPEC_KEY, {}).get("source") == "upload"
    dataset = parameter_widget("proj_race_dataset", where=c0, options=options,
                               default=DATA_PAGE if upload else RACE_DATASETS[0])
    settings = dict(dataset=dataset, with_xgboost=with_xgboost, with_plt=with_plt)
    if dataset == DATA_PAGE:
        data, words = chosen_dataset()
        settings["data"] = words
        st.caption(f"Data: **{words}**." if data is not None else f"The Data page's choice cannot race: {words}.")
    settings["with_defaults"] = parameter_widget("proj_race_defaults", where=c1)
    settings["leaf_estimation"] = parameter_widget("proj_race_leaves", where=c2)
    b = RACE_BOOSTING
    settings["n_steps"] = parameter_widget("proj_race_steps", where=c3,
                                           help=f"gbrt-relabel-rpo-gaussian, q = {b.q}, {b.max_leaf_nodes} leaves, "
                                                f"learning rate {b.learning_rate}.")
    settings["xgboost_rounds"] = parameter_widget("proj_race_rounds", where=c4, disabled=not with_xgboost)
    return settings


def leaf_widget(loss_key):
    """The Projections sidebar's leaf estimation for the q sweep, or None (no widget) with the
    absolute loss: Newton leaves need a second derivative."""
    if st.session_state.get(loss_key) == "absolute_error":
        return None
    return parameter_widget("proj_leaf_estimation")


def _arguments(settings):
    """The race of the controls' ``settings``: (its problem, the engine's boosting settings, its peers),
    or None when the Data page has no choice to race; a ValueError names what cannot race."""
    problem = settings["dataset"]
    if problem == DATA_PAGE:
        data, _ = chosen_dataset()
        if data is None:
            return None
        problem = dataclasses.replace(data, name=f"{data.name} (Data page)")
    boosting = dataclasses.replace(RACE_BOOSTING, n_steps=settings["n_steps"], leaf_estimation=settings["leaf_estimation"])
    race = RaceSettings(xgboost_rounds=settings["xgboost_rounds"], with_xgboost=settings["with_xgboost"],
                        with_plt=settings["with_plt"], with_defaults=settings["with_defaults"])
    return Problem.of(problem), boosting, race


def _start(arguments, settings):
    run.start(run_time_to_accuracy, *arguments, settings=settings)


def race_section():
    """An expander with the race's controls, its run and its chart."""
    with st.expander("Against XGBoost: test score against fit seconds on bibtex, corel5k or your data",
                     expanded=st.session_state.get(SPEC_KEY, {}).get("source") == "upload"):
        with_xgboost, with_plt = xgboost_installed(), plt_installed()
        if not with_xgboost:
            st.info(xgboost_missing_note(), icon="ℹ️")
        st.caption("napkinXC's probabilistic label trees (PLT, its defaults, one point: its fit) race too"
                   + (": napkinXC is installed." if with_plt else
                      " where napkinXC is installed (the bench extra: `pip install napkinxc`); it is not here."))
        settings = _settings(with_xgboost, with_plt)
        try:        # every argument checked here, by building the race's settings
            arguments = _arguments(settings)
        except ValueError as exc:
            arguments = None
            st.error(f"This race cannot run: {exc}.", icon="⚠️")
        c1, c2, _ = st.columns([2, 1, 3])
        c1.button("Run the race", key="proj_race_run", type="primary", disabled=run.running or arguments is None,
                  on_click=_start, args=(arguments, settings),
                  help="Fits both on one thread in the background (tens of seconds).")
        c2.button("Stop", key="proj_race_stop", disabled=not run.running, on_click=run.stop,
                  help="Stop the race: the engine's curve ends where it stopped, XGBoost is then not fitted.")
        run_status(run, run.poll_every(0.5))
        done = run.finished
        if done is None:
            return
        if done.result is None and done.status == "failed":
            failure(done, "The race")
            return
        if done.result is None:
            st.warning("The race was stopped before its first curve: nothing to draw.", icon="⏹️")
            return
        res = done.result
        lacking = [name for name, now in (("XGBoost", with_xgboost), ("napkinXC's PLT", with_plt))
                   if now and not res.params.get(f"with_{'xgboost' if name == 'XGBoost' else 'plt'}", False)]
        if lacking:
            st.warning(f"This race ran without {' and '.join(lacking)} (not installed then): press **Run the "
                       f"race** for the race with {' and '.join(lacking)}.", icon="🔁")
        elif done.settings != settings:
            st.caption("Showing the last race; its settings differ from the controls above.")
        show_chart(st, plotting.time_to_accuracy_figure(res), key="proj_race_chart", config=CHART_CONFIG)
        metric = res.params.get("metric", "LRAP")
        best = "; ".join(f"{label}: best {metric} {score:.3f} at {seconds:.1f} s"
                         for label, (score, seconds) in res.best().items())
        st.caption(f"{best}. " + " ".join(res.notes))
