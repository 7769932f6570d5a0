"""The run store of a class on one server: run keys, the bounded cache, sharing, the fair queue."""

import logging
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

from engine.app.serving.limits import Limits, limits_from_env
from engine.app.serving.result_cache import ResultCache
from engine.app.serving.run_key import run_key
from engine.app.serving.runstore import LOG_NAME, RunStore, ordinal

SETTINGS = dict(problem="friedman1-group", variants=("st-gbrt", "gbmort"), q=1, learning_rate=0.1, max_leaf_nodes=2,
                max_features="all", loss="default", n_steps=1000, n_test=1000, seed=0)


@pytest.fixture
def runs_log(caplog):
    """caplog of the run store's logger, also once Streamlit's get_logger has stopped it from
    propagating (any test module importing pages._session does so, at collection)."""
    logger = logging.getLogger(LOG_NAME)
    caplog.set_level("INFO", logger=LOG_NAME)
    own = not logger.propagate              # else the root's handler (caplog's) sees the records already
    if own:
        logger.addHandler(caplog.handler)
    yield caplog
    if own:
        logger.removeHandler(caplog.handler)


def target(*args, progress=None, stop=None, **kwargs):
    return args, kwargs


def other_target(*args, progress=None, stop=None, **kwargs):
    return args, kwargs


# --- run keys ---------------------------------------------------------------------------------------

def test_a_change_of_any_setting_changes_the_key():
    base = run_key("conv", target, **SETTINGS)
    changed = {"problem": "friedman1-ind", "variants": ("st-gbrt",), "q": 2, "learning_rate": 0.2,
               "max_leaf_nodes": 4, "max_features": "sqrt", "loss": "absolute_error", "n_steps": 2000,
               "n_test": 500, "seed": 1}
    assert set(changed) == set(SETTINGS)
    keys = {base}
    for name, value in changed.items():
        keys.add(run_key("conv", target, **{**SETTINGS, name: value}))
    assert len(keys) == 1 + len(changed)
    # and the page, the function, the positional arguments and the types count too
    assert run_key("proj", target, **SETTINGS) != base
    assert run_key("conv", other_target, **SETTINGS) != base
    assert run_key("conv", target, 1, **SETTINGS) != base
    assert run_key("conv", target, **{**SETTINGS, "q": 1.0}) != base
    assert run_key("conv", target, **{**SETTINGS, "variants": ["st-gbrt", "gbmort"]}) != base   # list vs tuple


def test_the_same_settings_in_another_order_give_the_same_key():
    reordered = dict(reversed(list(SETTINGS.items())))
    assert run_key("conv", target, **reordered) == run_key("conv", target, **SETTINGS)
    nested_a = {"runs": {"a": {"x": 1, "y": [1, 2]}, "b": {}}}
    nested_b = {"runs": {"b": {}, "a": {"y": [1, 2], "x": 1}}}
    assert run_key("bv", target, nested_a) == run_key("bv", target, nested_b)


def test_data_count_by_content_not_identity():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    assert run_key("p", target, X) == run_key("p", target, X.copy())
    Y = X.copy()
    Y[7, 2] += 1e-12
    assert run_key("p", target, X) != run_key("p", target, Y)
    assert run_key("p", target, X) != run_key("p", target, X.astype(np.float32))
    S = sp.random(20, 50, density=0.1, random_state=1, format="csr")
    assert run_key("p", target, S) == run_key("p", target, S.tocsc())
    T = S.copy()
    T.data[0] += 1
    assert run_key("p", target, S) != run_key("p", target, T)


def test_run_key_refuses_bad_input():
    with pytest.raises(ValueError, match="page"):
        run_key("", target)
    with pytest.raises(ValueError, match="target"):
        run_key("conv", 3)
    with pytest.raises(TypeError, match="cannot hash"):
        run_key("conv", target, threading.Lock())


# --- settings and the cache -------------------------------------------------------------------------

def test_limits_from_env():
    lim = limits_from_env({"RPO_MAX_JOBS": "3", "RPO_CACHE_ENTRIES": "10", "RPO_CACHE_MB": "5", "RPO_IDLE_MINUTES": "2"})
    assert (lim.max_jobs, lim.max_entries, lim.max_bytes, lim.idle_seconds) == (3, 10, 5 << 20, 120.0)
    assert limits_from_env({}).max_jobs >= 1
    for bad in ("0", "-1", "2.5", "two", "1e3"):
        with pytest.raises(ValueError, match="RPO_MAX_JOBS must be a positive integer"):
            limits_from_env({"RPO_MAX_JOBS": bad})
    with pytest.raises(ValueError, match="RPO_CACHE_MB"):
        limits_from_env({"RPO_CACHE_MB": "0"})


def test_cache_keeps_at_most_max_entries_least_recently_used_out():
    cache = ResultCache(max_entries=3, max_bytes=10_000)
    for k in "abc":
        cache.put(k, k.upper(), 10)
    assert cache.get("a") == "A"          # a is now the most recently used
    cache.put("d", "D", 10)
    assert "b" not in cache and all(k in cache for k in "acd")
    assert len(cache) == 3 and cache.nbytes == 30


def test_cache_keeps_at_most_max_bytes():
    cache = ResultCache(max_entries=100, max_bytes=100)
    cache.put("a", 1, 40)
    cache.put("b", 2, 40)
    cache.put("c", 3, 40)                 # 120 > 100: a goes
    assert "a" not in cache and cache.nbytes == 80
    assert not cache.put("huge", 4, 101)  # larger than the whole cache: not kept, nothing evicted
    assert "huge" not in cache and len(cache) == 2
    cache.put("b", 5, 10)                 # replacing an entry updates the bytes
    assert cache.nbytes == 50 and cache.get("b") == 5


# --- sharing ----------------------------------------------------------------------------------------

class Gate:
    """A controllable target: counts its calls, runs until released."""

    def __init__(self):
        self.calls = 0
        self.release = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, value, *, progress=None, stop=None, fail=False):
        with self.lock:
            self.calls += 1
        progress(0.5, "half", partial=lambda: ("partial", value))
        while not self.release.wait(0.005):
            if stop.is_set():
                return ("stopped", value)
        if fail:
            raise RuntimeError(f"bad value {value}")
        return ("result", value)


def wait_for(cond, timeout=5.0):
    deadline = time.perf_counter() + timeout
    while not cond():
        assert time.perf_counter() < deadline, "timed out"
        time.sleep(0.005)


def test_identical_runs_are_computed_once_and_then_served_from_the_cache():
    store = RunStore(Limits(max_jobs=2))
    gate = Gate()
    tickets = [store.request(f"s{i}", "page", gate, 7) for i in range(5)]
    wait_for(lambda: gate.calls == 1)
    assert tickets[0].snapshot()["shared"] == 5
    gate.release.set()
    for t in tickets:
        assert t.wait(5)
        assert t.snapshot()["result"] == ("result", 7)
    wait_for(lambda: len(store.cache) == 1)
    later = store.request("s9", "page", gate, 7)
    assert later.done and later.cached and later.snapshot()["result"] == ("result", 7)
    assert gate.calls == 1 and store.started == 1
    fresh_seed = store.request("s9", "page", gate, 8)      # another argument: another run
    assert fresh_seed.wait(5) and gate.calls == 2


def test_a_failure_is_shown_to_every_session_and_not_cached():
    store = RunStore(Limits(max_jobs=2))
    gate = Gate()
    a = store.request("a", "page", gate, 1, fail=True)
    b = store.request("b", "page", gate, 1, fail=True)
    gate.release.set()
    for t in (a, b):
        assert t.wait(5)
        snap = t.snapshot()
        assert snap["status"] == "failed" and "bad value 1" in snap["error"]
    wait_for(lambda: store.status()["running"] == 0)
    assert len(store.cache) == 0
    again = store.request("c", "page", gate, 1, fail=True)
    assert again.wait(5) and gate.calls == 2 and again.snapshot()["status"] == "failed"


def test_a_shared_run_stops_only_when_the_last_session_leaves(runs_log):
    caplog = runs_log
    store = RunStore(Limits(max_jobs=1))
    gate = Gate()
    a = store.request("a", "page", gate, 1)
    b = store.request("b", "page", gate, 1)
    wait_for(lambda: gate.calls == 1)
    a.stop(timeout=0.5)
    assert a.done and a.snapshot()["status"] == "stopped"
    assert b.running and not b._run.job.stop_requested
    assert "nobody watches" not in caplog.text
    store.leave("b")                       # the last watcher's tab closes
    assert b.wait(5) and b.snapshot()["status"] == "stopped"
    assert caplog.text.count("stopped: nobody watches it") == 1     # the class load tool counts these
    wait_for(lambda: f"run {b.key[:8]} ended (stopped)" in caplog.text)     # logged once the job's thread ends
    assert "watched by 0 sessions" in caplog.text
    assert len(store.cache) == 0           # a stopped run is not a result


# --- the queue --------------------------------------------------------------------------------------

def test_at_most_max_jobs_run_and_the_rest_wait_first_in_first_out():
    store = RunStore(Limits(max_jobs=2))
    gates = [Gate() for _ in range(5)]
    tickets = [store.request(f"s{i}", "page", g, i, estimate=10.0) for i, g in enumerate(gates)]
    wait_for(lambda: gates[0].calls == 1 and gates[1].calls == 1)
    assert store.status()["running"] == 2 and store.status()["queued"] == 3
    snaps = [t.snapshot() for t in tickets]
    assert [s["queued"] for s in snaps] == [0, 0, 1, 2, 3]
    assert snaps[2]["status"] == "running" and snaps[2]["fraction"] == 0.0
    assert snaps[4]["message"].startswith("waiting: 3rd in line, about")
    # the wait estimate: the work ahead shared by the two slots (20 s running + 20 s queued) / 2
    assert 15 <= float(snaps[4]["message"].split("about ")[1].split(" s")[0]) <= 20
    order = []
    for i in range(5):
        running = [j for j, g in enumerate(gates) if g.calls and not g.release.is_set()]
        order.append(min(running))
        gates[min(running)].release.set()
        tickets[min(running)].wait(5)
        time.sleep(0.02)
    assert order == [0, 1, 2, 3, 4]        # started in the order asked


def test_one_session_holds_at_most_one_running_job():
    store = RunStore(Limits(max_jobs=4))
    g1, g2, g3 = Gate(), Gate(), Gate()
    first = store.request("greedy", "conv", g1, 1)
    second = store.request("greedy", "proj", g2, 2)       # another page, same session: waits
    other = store.request("polite", "conv", g3, 3)         # another session: starts at once
    wait_for(lambda: g1.calls == 1 and g3.calls == 1)
    time.sleep(0.05)
    assert g2.calls == 0 and second.snapshot()["queued"] == 1
    g1.release.set()
    wait_for(lambda: g2.calls == 1)
    g2.release.set()
    g3.release.set()
    assert second.wait(5) and other.wait(5) and first.wait(5)


def test_a_session_that_leaves_while_queued_leaves_the_queue(runs_log):
    caplog = runs_log
    store = RunStore(Limits(max_jobs=1))
    g1, g2, g3 = Gate(), Gate(), Gate()
    store.request("a", "page", g1, 1)
    gone = store.request("b", "page", g2, 2)
    third = store.request("c", "page", g3, 3)
    wait_for(lambda: g1.calls == 1)
    assert third.snapshot()["queued"] == 2
    store.leave("b")
    assert gone.done and gone.snapshot()["status"] == "stopped"
    assert caplog.text.count("left the queue: nobody waits for it") == 1
    assert third.snapshot()["queued"] == 1
    g1.release.set()
    wait_for(lambda: g3.calls == 1)
    assert g2.calls == 0                   # the departed session's run never computed
    g3.release.set()
    assert third.wait(5)
    assert store.status() == {**store.status(), "running": 0, "queued": 0, "started": 2}


def test_private_runs_are_neither_shared_nor_cached():
    store = RunStore(Limits(max_jobs=2))
    gate = Gate()
    gate.release.set()
    a = store.request("a", "page", gate, 1, share=False)
    b = store.request("b", "page", gate, 1, share=False)
    assert a.wait(5) and b.wait(5)
    assert gate.calls == 2 and len(store.cache) == 0


def test_extra_of_the_first_session_is_the_one_every_session_sees():
    store = RunStore(Limits(max_jobs=1))
    gate = Gate()
    a = store.request("a", "page", gate, 1, extra={"models": "of a"})
    b = store.request("b", "page", gate, 1, extra={"models": "of b"})
    gate.release.set()
    assert a.wait(5) and b.wait(5)
    wait_for(lambda: len(store.cache) == 1)
    c = store.request("c", "page", gate, 1, extra={"models": "of c"})
    assert a.extra == b.extra == c.extra == {"models": "of a"}


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]


def test_estimate_range_is_the_estimate_on_an_idle_server_and_wider_when_busy():
    store = RunStore(Limits(max_jobs=1))
    assert store.estimate_range(12.0) == (12.0, 12.0, "")
    gate = Gate()
    store.request("a", "page", gate, 1, estimate=30.0)
    wait_for(lambda: gate.calls == 1)
    low, high, why = store.estimate_range(12.0)
    # every slot is taken: the run waits for the one computing (about 30 s left) before its 12 s
    assert low == 12.0 and 12.0 + 25.0 <= high <= 12.0 * 1.5 + 30.0 and "1 run computing now" in why
    gate.release.set()
    store.drain()


def test_a_session_that_starts_again_and_again_holds_only_its_current_tickets():
    store = RunStore(Limits(max_jobs=2))
    gate = Gate()
    gate.release.set()
    ticket = None
    for i in range(20):
        if ticket is not None:
            ticket.stop()                  # what a page does before its next run
        ticket = store.request("s", "page", gate, i % 3)   # cache hits after the first three
        ticket.wait(5)
    assert len(store._tickets["s"]) == 1   # the replaced tickets (and their results) are let go
    store.leave("s")
    assert store.status()["sessions"] == 0


def test_cache_drops_the_runs_nobody_asked_for_in_a_while():
    now = [0.0]
    cache = ResultCache(max_entries=10, max_bytes=10_000, clock=lambda: now[0])
    cache.put("a", "A", 100)
    now[0] = 10.0
    cache.put("b", "B", 200)
    now[0] = 20.0
    assert cache.get("a") == "A"            # asked for again: "a" is now the recent one
    now[0] = 45.0
    assert cache.expire(30.0) == 1          # "b" was last used at 10 s, "a" at 20 s
    assert "b" not in cache and "a" in cache and cache.nbytes == 100
    now[0] = 100.0
    assert cache.expire(30.0) == 1 and len(cache) == 0 and cache.nbytes == 0
    assert cache.expire(30.0) == 0
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="idle_seconds"):
            cache.expire(bad)


# --- what the cache keeps once nobody holds a run ---------------------------------------------------

class Models:
    """Stands for a run's fitted models: big, weak-referenceable."""

    def __init__(self, nbytes):
        self.data = np.ones(nbytes // 8)


def keep_first(extra):
    """A compact form: the models' first bytes only (as the Convergence page keeps first trees)."""
    return {"kind": extra["kind"], "first": extra["models"].data[:10].copy()}


@pytest.mark.slow
def test_a_cached_run_drops_its_models_once_no_session_holds_it():
    import gc
    import weakref

    store = RunStore(Limits(max_jobs=1, max_bytes=64 << 20))
    gate = Gate()
    models = Models(8 << 20)
    gone = weakref.ref(models)
    a = store.request("a", "page", gate, 1, extra={"models": models, "kind": "run"}, compact=keep_first)
    b = store.request("b", "page", gate, 1, extra={"models": Models(8), "kind": "run"}, compact=keep_first)
    del models
    gate.release.set()
    assert a.wait(5) and b.wait(5)
    wait_for(lambda: len(store.cache) == 1)
    assert store.cache.nbytes > 8 << 20              # the models count in the cache's bytes
    c = store.request("c", "page", gate, 1, compact=keep_first)
    assert c.cached and c.extra["models"] is a.extra["models"]   # sessions hold it: a hit gets the models
    store.leave("a")
    b.stop()
    assert store.cache.nbytes > 8 << 20              # c still holds the run
    store.leave("c")                                 # the last one leaves: the cache keeps the compact form
    assert store.cache.nbytes < 1 << 20
    d = store.request("d", "page", gate, 1, compact=keep_first)
    assert d.cached and d.snapshot()["result"] == ("result", 1) and gate.calls == 1   # the result, at once
    assert "models" not in d.extra and d.extra["kind"] == "run" and d.extra["first"].tolist() == [1.0] * 10
    del a, b, c
    # the runs' threads may still be finishing their bookkeeping (the "ended" log line) with the run in hand
    deadline = time.perf_counter() + 5
    while gc.collect() is not None and gone() is not None and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert gone() is None, "the cache still holds the models"


def test_compaction_waits_for_every_holder_and_spares_runs_without_a_compact_form():
    store = RunStore(Limits(max_jobs=2))
    gate = Gate()
    gate.release.set()
    a = store.request("a", "page", gate, 1, extra={"models": Models(1 << 20), "kind": "run"}, compact=keep_first)
    plain = store.request("a", "other", gate, 1, extra={"models": Models(1 << 20), "kind": "run"})
    assert a.wait(5) and plain.wait(5)
    wait_for(lambda: len(store.cache) == 2)
    store.leave("a")                                  # nobody holds either run now
    # compacted by the last one to let go: this leave, or the run's own thread as it ends
    wait_for(lambda: "models" not in store.cache.peek(a.key)[1])
    hit = store.request("z", "page", gate, 1)
    assert "models" not in hit.extra and hit.extra["first"].shape == (10,)
    assert "models" in store.request("z", "other", gate, 1).extra     # no compact form: kept whole
    # a run whose every session left before it ended is compacted as it is cached
    slow = Gate()
    e = store.request("e", "page", slow, 2, extra={"models": Models(1 << 20), "kind": "run"}, compact=keep_first)
    wait_for(lambda: slow.calls == 1)
    with store._lock:                                # the session leaves at the very moment the run ends:
        store._tickets.pop("e")                      # (its ticket forgotten, the run not stopped)
    slow.release.set()
    assert e.wait(5)
    wait_for(lambda: len(store.cache) == 3)
    wait_for(lambda: "models" not in store.cache.peek(e.key)[1])    # on the run's thread, just after it is cached


def test_a_compact_function_that_fails_drops_the_entry_not_the_session():
    def broken(extra):
        raise RuntimeError("no")

    store = RunStore(Limits(max_jobs=1))
    gate = Gate()
    gate.release.set()
    a = store.request("a", "page", gate, 1, extra={"kind": "run"}, compact=broken)
    assert a.wait(5)
    wait_for(lambda: len(store.cache) == 1)
    store.leave("a")                                 # no exception here
    assert len(store.cache) == 0 and store.cache.nbytes == 0
    with pytest.raises(ValueError, match="compact"):
        store.request("a", "page", gate, 1, compact="keep")


def test_cache_replace_keeps_the_place_and_counts_the_new_bytes():
    cache = ResultCache(max_entries=3, max_bytes=1000)
    cache.put("a", "A", 500)
    cache.put("b", "B", 100)
    assert not cache.replace("a", "not the value", "a", 10)
    assert cache.replace("a", "A", "a", 10) and cache.nbytes == 110 and cache.peek("a") == "a"
    cache.put("c", "C", 10)
    cache.put("d", "D", 10)                          # four entries: the least recently used ("a") goes
    assert "a" not in cache and list(cache._items) == ["b", "c", "d"]


def test_watching_counts_the_sessions_of_runs_in_flight():
    store = RunStore(Limits(max_jobs=1))
    gates = [Gate(), Gate()]
    for owner in ("a", "b", "c"):
        store.request(owner, "page", gates[0], 1)          # three sessions watch one running run
    store.request("d", "page", gates[1], 2)               # one waits in line behind it
    wait_for(lambda: gates[0].calls == 1)
    assert store.watching() == 4
    store.leave("a")
    assert store.watching() == 3
    gates[0].release.set()
    gates[1].release.set()
    wait_for(lambda: store.status()["running"] == 0 and not store.status()["queued"])
    assert store.watching() == 0                          # finished runs are not watched live


def test_estimates_come_from_the_runs_measured_here_not_the_load_average():
    """A page's estimate is scaled by what its runs measured against their estimates; the "up to"
    by the wall/CPU ratio of recent runs; a run that only waited (no CPU) is not a measure."""
    from engine.app.serving.measures import Measures
    clock = [1000.0]
    m = Measures()
    assert m.calibration("proj") == 1.0 and m.slowdown(clock[0]) == 1.0
    for _ in range(3):
        m.add("proj", 60.0, 12.0, 10.0, clock[0])       # estimated 60 s, took 10 s of CPU, 12 s of wall
    assert m.calibration("proj") == pytest.approx(10 / 60) and m.calibration("conv") == 1.0
    assert m.slowdown(clock[0]) == pytest.approx(1.2)
    assert m.slowdown(clock[0] + 10_000) == 1.0          # old measures no longer count
    m.add("proj", 60.0, 300.0, 0.01, clock[0])           # a wait, not a computation: too little CPU
    assert m.slowdown(clock[0]) == pytest.approx(1.2)
    store = RunStore(Limits(max_jobs=2), clock=lambda: clock[0])
    store.measures = m
    low, high, why = store.estimate_range(60.0, "proj")
    assert low == pytest.approx(10.0) and high == pytest.approx(12.0) and "1.2×" in why
    # the calibration stays within its range whatever was measured
    for _ in range(10):
        m.add("odd", 1.0, 1e6, 1e6, clock[0])
    assert m.calibration("odd") == 20.0


def test_busy_counts_runs_computing_at_once_never_the_load_average():
    store = RunStore(Limits(max_jobs=2))
    gates = [Gate(), Gate()]
    tickets = [store.request(o, "page", g, i) for i, (o, g) in enumerate(zip("ab", gates))]
    wait_for(lambda: all(g.calls == 1 for g in gates))
    for g in gates:
        g.release.set()
    assert all(t.wait(10) for t in tickets)
    assert [t.snapshot()["busy"] for t in tickets] == [2, 2]


def test_a_run_computing_in_other_threads_is_not_a_measure():
    """A forest's trees grow in threads of their own: its run's thread measures 0.25 s of CPU in 46 s.
    Counted, that ratio would make every "up to" 180 times the estimate."""
    from engine.app.serving.measures import Measures
    m = Measures()
    m.add("fx", 5.0, 46.0, 0.25, 0.0)
    assert m.slowdown(0.0) == 1.0 and m.calibration("fx") == 1.0
    m.add("fx", 5.0, 12.0, 10.0, 0.0)
    assert m.slowdown(0.0) == pytest.approx(1.2) and m.calibration("fx") == pytest.approx(2.0)
