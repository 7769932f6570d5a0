"""A small class on one server: 8 AppTest sessions of the Convergence page, two distinct runs.

Every AppTest is a browser session of the same process (the same run store, the same caches),
as 8 students on one server. Four open the group preset and four the chain preset, alternating;
the server computes at most one run at a time (``RPO_MAX_JOBS=1``). The test counts the engine's
training calls and checks that every session gets its result, that the runs start in the order
asked (the second waits first in line, no one waits behind a later request), and that the
results' memory is freed once the sessions and the cache are gone.
"""

from __future__ import annotations

import functools
import gc
import logging
import sys
import time
import weakref

import pytest

from apptest_runs import finished, job_of, open_app

from engine.app.page_models import live_convergence as live
from engine.app.serving.memory import release_memory, resident_mb
from load.classroom_tools import SERVER_ASKED, SERVER_DONE, how_served
from pages._session import SWITCH_INTERVAL

PAGE = "pages/convergence.py"
QUERY = {"conv_n_steps": "200", "conv_n_test": "500", "conv_variants": ["st-gbrt", "gbmort"]}


def open_session(problem):
    return open_app(PAGE, {**QUERY, "conv_problem": problem}, route="home-link")


def check_results(sessions, problems):
    """Every session's run is done and complete, one shared result per problem; weak references to them."""
    results = [finished(at, "conv") for at in sessions]
    assert all(r.status == "done" and r.result is not None and r.result.complete for r in results)
    for problem in ("group", "chain"):
        mine = [r.result for r, p in zip(results, problems) if p == problem]
        assert all(m is mine[0] for m in mine), "the sessions of one run share one result"
    assert results[0].result.dataset != results[1].result.dataset
    return [weakref.ref(r.result) for r in results[:2]]


def test_eight_sessions_compute_two_runs_once_each_in_order(monkeypatch):
    import streamlit as st

    monkeypatch.setenv("RPO_MAX_JOBS", "1")
    warm = open_session("ind")        # imports, estimates: not what this test measures
    job_of(warm, "conv").wait(60)
    del warm
    st.cache_resource.clear()
    release_memory()
    rss_before = resident_mb()

    calls = []
    real = live.train_curves

    @functools.wraps(real)
    def counting(problem, boosting, estimators, **kwargs):
        calls.append(problem.dataset)
        return real(problem, boosting, estimators, **kwargs)

    monkeypatch.setattr(live, "train_curves", counting)
    records = []                     # the server's log lines of runs asked for and finished (read by the class load tool)
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("rpo.runs").addHandler(handler)

    problems = ["group", "chain"] * 4
    sessions, first_seen = [], []
    for problem in problems:
        at = open_session(problem)
        sessions.append(at)
        first_seen.append(job_of(at, "conv").snapshot())

    # Two runs asked for, in this order; the chain run waited first in line behind the group run
    # (unless the group run had already ended when the first chain session arrived).
    assert first_seen[1]["queued"] in (0, 1)
    assert max(s["queued"] for s in first_seen) <= 1, "no session waits behind more than one distinct run"
    if first_seen[1]["queued"]:
        assert first_seen[1]["message"].startswith("waiting: 1st in line")

    deadline = time.perf_counter() + 120
    for at in sessions:
        while job_of(at, "conv").running:
            assert time.perf_counter() < deadline, "a session never got its result"
            time.sleep(0.1)
        at.run()
        assert not at.exception, at.exception

    assert calls == ["friedman1-group", "friedman1-chain"], calls    # computed once each, first come first served
    # The server's run store shortens Python's GIL switch interval (pages/_session.py says why).
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL) and SWITCH_INTERVAL < 0.005
    store = job_of(sessions[0], "conv")._store
    refs = check_results(sessions, problems)
    assert store.started == 2 and store.status()["running"] == 0 and len(store.cache) == 2

    # A later visitor is served from the cache at once: no new engine call.
    late = open_session("chain")
    assert job_of(late, "conv").cached and finished(late, "conv").status == "done"
    assert calls == ["friedman1-group", "friedman1-chain"]

    # One log line per page and run asked for, one per finished run, in the server's format, which the
    # load tool parses (its session names are one per browser tab on a server; AppTests in one process
    # share one).
    logging.getLogger("rpo.runs").removeHandler(handler)
    form = logging.Formatter("%(asctime)s %(message)s")      # Streamlit's default log format
    form.default_msec_format = "%s.%03d"
    lines = [form.format(r) for r in records if r.getMessage().startswith("run conv:")]
    done = [m for m in map(SERVER_DONE.match, lines) if m]
    asked = [how_served(m["how"]) for m in map(SERVER_ASKED.match, lines) if m]
    assert len(done) == len(asked) == 9 and len(lines) == 18, lines
    assert asked[:2] == ["new", "new"] and asked.count("new") == 2, asked   # two runs computed
    assert set(asked[2:-1]) <= {"attached", "cached"} and asked[-1] == "cached", asked
    assert "(from the cache;" in lines[-1], lines                 # the late visitor

    # The sessions close (Streamlit releases their session resources), then the server's cache goes:
    # nothing is left holding the results.
    del late, sessions, at, first_seen
    st.cache_resource.clear()
    gc.collect()
    assert len(store.cache) == 0 and store.status()["sessions"] == 0
    assert all(ref() is None for ref in refs), "a result outlived its sessions and the cache"
    release_memory()
    assert resident_mb() - rss_before < 100


def test_a_shared_result_has_one_figure_for_every_session():
    from pages import _jobs

    builds = []

    class Result:       # stands for a ConvergenceResult (weak-referenceable)
        pass

    def build(result, axis, early_stops=None):
        builds.append(axis)
        return {"axis": axis}

    a, b = Result(), Result()
    first = _jobs.shared_figure(build, a, "step", early_stops={"current": {}})
    assert _jobs.shared_figure(build, a, "step", early_stops={"current": {}}) is first   # a second session
    assert builds == ["step"]
    _jobs.shared_figure(build, a, "trees", early_stops={"current": {}})                  # other arguments
    _jobs.shared_figure(build, b, "step", early_stops={"current": {}})                   # another result
    assert builds == ["step", "trees", "step"]
    n = len(_jobs._figures)
    del a
    gc.collect()
    assert len(_jobs._figures) == n - 2        # the figures go with their result
