"""The Bias–variance page on the Data page's choice when it is not Friedman1 (an upload, a shipped set).

There is no generator to draw fresh learning sets from and no Bayes model: the learning sets come
from the data's own rows, disjoint subsamples or bootstrap samples, and the test rows' observed
outputs stand in for E[y | x], so bias² and noise are one term
(:mod:`engine.experiments.bias_variance_data` says how, exactly). Its own widgets (``bv_data_*``, in the
URL), its own background run and Stop, a stacked bar per method.
"""
from __future__ import annotations

import streamlit as st

from engine import plotting
from engine.app.page_models import dataspec
from engine.experiments.bias_variance_data import DataBiasVarianceSettings, run_bias_variance_on_data
from engine.experiments.problems import Problem
from pages._data_choice import SPEC_KEY, chosen_dataset
from pages._jobs import PageRun
from pages._render import show_chart, show_table
from pages._parameters import parameter_widget

run = PageRun("bv_data")


def _controls():
    with st.sidebar:
        st.header("Bias–variance on your data")
        methods = parameter_widget("bv_data_methods")
        scheme = parameter_widget("bv_data_scheme")
        n_sets = parameter_widget("bv_data_sets")
        steps = parameter_widget("bv_data_steps")
        leaves = parameter_widget("bv_data_leaves")
        seeds = parameter_widget("bv_data_seeds")
        seed = parameter_widget("bv_data_seed")
    return dict(methods=list(methods), scheme=scheme, n_sets=int(n_sets), steps=int(steps), leaves=int(leaves),
                seeds=int(seeds), seed=int(seed))


def bias_variance_on_data() -> None:
    """The whole page on the chosen data set (the caller stops after it)."""
    ds, words = chosen_dataset()
    if ds is None:
        st.caption(f"Data: **{dataspec.describe_spec(st.session_state[SPEC_KEY])}**, the Data page's choice.")
        st.error(f"{words[0].upper()}{words[1:]}.", icon="📤")
        return
    st.caption(f"Data: **{words}**, the Data page's choice. Learning sets are drawn from its own rows.")
    st.markdown(
        "Train each method on several **learning sets drawn from your rows** and test them on rows none of "
        "them saw. Without a generator, E[y | x] is unknown, so **bias² and noise are one term** here; the "
        "**variance** splits, as on Friedman1, into the part due to the learning set and the part due to the "
        "algorithm's own randomness. **disjoint** sets are independent but each is a part of the data; "
        "**bootstrap** sets are full-size but overlap, which makes the learning-set variance smaller.")
    s = _controls()
    try:
        if not s["methods"]:
            raise ValueError("choose at least one method")
        _, _, n_train, n_test = _settings(s).sets(ds.n_samples, seed=s["seed"])
    except ValueError as exc:
        st.warning(f"These settings cannot run: {exc}.", icon="⚠️")
        return
    st.caption(f"{s['n_sets']} {s['scheme']} learning sets of **{n_train:,}** rows; **{n_test:,}** test rows "
               f"(of {ds.n_samples:,}); {s['seeds']} model(s) per set: {s['n_sets'] * s['seeds'] * len(s['methods'])} fits.")
    c1, c2, _ = st.columns([1, 1, 4])
    c1.button("Run", key="bv_data_run", type="primary", disabled=run.running, on_click=_start, args=(ds, words, s),
              help="Fit every method on every learning set in the background; Stop keeps the sets done.")
    c2.button("Stop", key="bv_data_stop", disabled=not run.running, on_click=run.stop,
              help="End the run; the learning sets already done are kept and shown.")
    _results(dict(s, data=words))


def _settings(s):
    """The decomposition's settings from the controls' values (a ValueError names a bad one)."""
    return DataBiasVarianceSettings(scheme=s["scheme"], n_learning_sets=s["n_sets"], n_seeds=s["seeds"],
                                    estimator_params=dict(n_estimators=s["steps"], max_leaf_nodes=s["leaves"]))


def _start(ds, words, s):
    run.start(run_bias_variance_on_data, Problem.of(ds), _settings(s), s["methods"], seed=s["seed"],
              settings=dict(s, data=words))


@st.fragment(run_every=run.poll_every(0.5))
def _results(settings):
    view = run.view()
    if view.running:
        st.progress(view.fraction, text=f"{view.message or 'starting'} · {view.elapsed:.0f} s")
        return
    run.rerun_when_finished()
    done = run.finished
    if done is None:
        st.info("Press **Run** to decompose the chosen methods' test error on this data.", icon="▶️")
        return
    if done.result is None:
        st.error(f"The run did not finish: {(done.error or 'stopped').strip().splitlines()[-1]}", icon="⚠️")
        return
    res = done.result
    if done.settings != settings:
        st.caption(f"Showing the last run, on **{done.settings.get('data')}**; its settings differ from the sidebar's.")
    show_chart(st, plotting.data_bias_variance_figure(res), key="bv_data_chart", config={"displaylogo": False})
    rows = [dict(method=m, error=e, bias2_noise=b, learning_set_variance=l, algorithm_variance=a)
            for m, e, b, l, a in zip(res.estimators, res.error, res.bias2_noise, res.learning_set_variance,
                                     res.algorithm_variance)]
    show_table(st, rows, key="bv_data_table", hide_index=True)
    low = min(range(len(rows)), key=lambda i: rows[i]["error"])
    share = [r["learning_set_variance"] + r["algorithm_variance"] for r in rows]
    st.caption(f"{'Partial: ' if res.partial else ''}{res.n_sets_done} of {res.n_learning_sets} learning sets. "
               f"Lowest expected error: **{rows[low]['method']}** ({rows[low]['error']:.4g}); variance is "
               + ", ".join(f"{r['method']} {v / r['error']:.0%}" for r, v in zip(rows, share)) + " of the error.")
