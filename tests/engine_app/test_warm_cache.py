"""The start-up cache of first views (engine/app/serving/warm_cache.py) and the run store reading it."""

import json
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from engine.app.page_content.first_views import MORE_VIEWS, first_views
from engine.app.page_content.presets import PRESETS
from engine.app.serving.run_key import run_key
from engine.app.serving.runstore import RunStore
from engine.app.serving.warm_cache import WarmCache, await_warm, cache_root, fill_enabled

CALLS = []


def fit(n, *, progress=None, stop=None, models=None):
    """A run whose page keeps models in ``extra`` (as Convergence does): counted per call."""
    CALLS.append(n)
    if models is not None:
        models["m"] = np.arange(n)
    return {"curve": np.arange(n) * 0.5}


@pytest.fixture(autouse=True)
def _no_calls():
    CALLS.clear()


def request_done(store, owner="s1", n=5, **kw):
    models = {}
    ticket = store.request(owner, "conv", fit, n, models=models, extra={"models": models}, **kw)
    assert ticket.wait(10)
    if store.persist:       # the store writes the file just after the run has ended
        deadline = time.monotonic() + 10
        while ticket.key not in store.warm and time.monotonic() < deadline:
            time.sleep(0.01)
    return ticket


# --- the files ------------------------------------------------------------------------------------

def test_put_get_round_trip_and_the_engine_version_folder(tmp_path):
    warm = WarmCache(tmp_path, version="1.0+src-a")
    key = "ab" * 32
    assert warm.get(key) is None and key not in warm
    warm.put(key, ({"result": [1, 2]}, {"models": {"m": np.ones(3)}}))
    snap, extra = warm.get(key)
    assert snap == {"result": [1, 2]} and np.array_equal(extra["models"]["m"], np.ones(3))
    assert warm.keys() == [key]
    # another engine version never reads it
    assert WarmCache(tmp_path, version="1.0+src-b").get(key) is None
    assert (tmp_path / "1.0+src-a" / f"{key}.pkl").exists()


def test_a_damaged_file_is_not_trusted_and_removed(tmp_path):
    warm = WarmCache(tmp_path, version="v")
    key = "cd" * 32
    warm.put(key, {"result": 1})
    path = tmp_path / "v" / f"{key}.pkl"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert warm.get(key) is None and warm.n_corrupt == 1 and not path.exists()


def test_keys_and_settings_are_checked():
    with pytest.raises(ValueError, match="key"):
        WarmCache("/tmp", version="v").get("../etc/passwd")
    assert fill_enabled({}) and fill_enabled({"RPO_WARM": "1"}) and not fill_enabled({"RPO_WARM": "0"})
    with pytest.raises(ValueError, match="RPO_WARM"):
        fill_enabled({"RPO_WARM": "yes"})
    assert str(cache_root({"RPO_RUN_CACHE": "/x/y"})) == "/x/y"
    assert str(cache_root({"XDG_CACHE_HOME": "/c"})) == "/c/rpo-explorer/runs"


# --- the run store reading it ---------------------------------------------------------------------

def test_a_fresh_store_serves_the_fill_s_run_without_computing_it(tmp_path):
    filler = RunStore(warm=WarmCache(tmp_path, version="v"), persist=True)
    first = request_done(filler)
    assert first.how == "new" and CALLS == [5]
    fresh = RunStore(warm=WarmCache(tmp_path, version="v"))        # a fresh server, same disk
    ticket = request_done(fresh)
    assert ticket.how == "cached" and CALLS == [5]                  # not computed again
    assert np.array_equal(ticket.result["curve"], np.arange(5) * 0.5)
    assert np.array_equal(ticket.extra["models"]["m"], np.arange(5))   # the models too (Step continues them)
    # other arguments: another key, computed
    assert request_done(fresh, n=6).how == "new" and CALLS == [5, 6]


def test_a_run_compacted_in_memory_comes_back_whole_from_disk(tmp_path):
    request_done(RunStore(warm=WarmCache(tmp_path, version="v"), persist=True), owner="f")
    store = RunStore(warm=WarmCache(tmp_path, version="v"))
    drop_models = lambda extra: {k: v for k, v in extra.items() if k != "models"}   # noqa: E731
    ticket = request_done(store, compact=drop_models)
    ticket.stop()                                   # nobody holds it: the memory keeps it without models
    snap, extra = store.cache.peek(run_key("conv", fit, 5, models={}))
    assert "models" not in extra
    again = request_done(store, owner="s2", compact=drop_models)
    assert again.how == "cached" and "m" in again.extra["models"] and CALLS == [5]


def mark_by_another_process(warm, key, fraction=0.4, message="step 4/10"):
    """A live process (a sleeping child) stands for the fill computing ``key``; the child's Popen."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    warm.folder.mkdir(parents=True, exist_ok=True)
    (warm.folder / f"{key}.pending").write_text(json.dumps({"pid": other.pid, "fraction": fraction,
                                                            "message": message}))
    return other


def test_a_request_during_the_fill_waits_for_it_instead_of_computing(tmp_path):
    warm = WarmCache(tmp_path, version="v")
    key = run_key("conv", fit, 7, models={})
    other = mark_by_another_process(warm, key)
    store = RunStore(warm=warm)
    models = {}
    tickets = [store.request(s, "conv", fit, 7, models=models, extra={"models": models}) for s in ("a", "b")]
    assert [t.how for t in tickets] == ["new", "attached"]
    time.sleep(0.6)
    assert "start-up fill" in tickets[0].snapshot()["message"] and not tickets[0].done
    threading.Timer(0.3, lambda: warm.put(key, ({"result": "the fill's"}, {"models": {"m": 1}}))).start()
    assert all(t.wait(10) for t in tickets)
    other.kill()
    assert [t.result for t in tickets] == ["the fill's"] * 2 and tickets[1].extra["models"] == {"m": 1}
    assert CALLS == []


def test_a_marker_of_a_dead_fill_is_ignored(tmp_path):
    warm = WarmCache(tmp_path, version="v")
    key = run_key("conv", fit, 4, models={})
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / f"{key}.pending").write_text(f'{{"pid": {dead.pid}, "fraction": 0.1, "message": ""}}')
    assert warm.pending(key) is None
    assert request_done(RunStore(warm=warm), n=4).result["curve"].shape == (4,) and CALLS == [4]


def test_await_warm_computes_when_the_fill_gives_up(tmp_path):
    warm = WarmCache(tmp_path, version="v")
    extra = {}
    stop = threading.Event()
    out = await_warm(warm, "ef" * 32, extra, fit, 3, progress=lambda *a, **k: False, stop=stop, models=extra)
    assert CALLS == [3] and out["curve"].shape == (3,)


# --- which views the fill opens -------------------------------------------------------------------

def test_every_preset_and_every_page_default_is_a_first_view():
    pages = ["pages/home.py", "pages/convergence.py", "pages/forests.py", "pages/projections.py",
             "pages/benchmark.py", "pages/bias_variance.py"]
    views = first_views(pages)
    marks = [(v["page"], v["query_params"]) for v in views]
    assert marks[:len(pages)] == [(p, {}) for p in pages]
    for preset in PRESETS + MORE_VIEWS:
        assert ((preset["page"], preset["query_params"]) in marks) == (preset["page"] in pages)
    # a preset added to the list is covered with nothing else to change
    extra = {"label": "new", "page": "pages/forests.py", "query_params": {"fx_q": "2"}}
    assert ("pages/forests.py", {"fx_q": "2"}) in [(v["page"], v["query_params"])
                                                  for v in first_views(pages, presets=PRESETS + [extra])]
    assert len(first_views(pages + pages)) == len(views)


def test_prune_removes_other_versions_unused_for_a_week(tmp_path):
    import os
    old, recent, mine = (WarmCache(tmp_path, version=v) for v in ("old", "recent", "mine"))
    for cache in (old, recent, mine):
        cache.put("ab" * 32, 1)
    week_ago = time.time() - 8 * 86400
    os.utime(old.folder, (week_ago, week_ago))
    os.utime(mine.folder, (week_ago, week_ago))
    assert mine.prune() == ["old"]
    assert not old.folder.exists() and recent.get("ab" * 32) == 1 and mine.get("ab" * 32) == 1


def test_the_fill_process_runs_at_nice_19_logs_its_own_lines_and_stops():
    from engine.app.serving.warm_cache import StartupFill

    lines = []
    code = "import time; print('noise'); print('start-up fill: 1/2 a view', flush=True); time.sleep(60)"
    fill = StartupFill([sys.executable, "-c", code], lines.append).start()
    try:
        deadline = time.monotonic() + 20
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines == ["start-up fill: 1/2 a view"]               # its pages' other lines are not logged
        nice = int(open(f"/proc/{fill.process.pid}/stat").read().rsplit(")", 1)[1].split()[16])
        assert nice == 19 and fill.running
    finally:
        t0 = time.monotonic()
        fill.stop()
    assert not fill.running and time.monotonic() - t0 < 5


# --- the fill and the server never compute one run twice (issue 43) -------------------------------

RELEASE = threading.Event()


def gated_fit(n, *, progress=None, stop=None, models=None):
    """``fit``, held until RELEASE is set (a run still computing while the other side asks)."""
    RELEASE.wait(10)
    return fit(n, models=models)


def test_the_fill_leaves_a_run_a_student_computes_and_the_server_writes_it_for_the_fill(tmp_path):
    RELEASE.clear()
    server = RunStore(warm=WarmCache(tmp_path, version="v"))              # a student asks first
    filler = RunStore(warm=WarmCache(tmp_path, version="v"), persist=True)
    models = {}
    student = server.request("s1", "conv", gated_fit, 8, models=models, extra={"models": models})
    fills = filler.request("fill", "conv", gated_fit, 8, models={}, extra={"models": {}})
    assert student.how == "new" and not student.awaited
    assert fills.awaited                      # the fill waits for the student's run instead of computing it
    RELEASE.set()
    assert student.wait(10) and fills.wait(10)
    assert CALLS == [8]                       # computed once, by the server
    key = student.key
    assert key in WarmCache(tmp_path, version="v")     # the server wrote it because the fill wanted it
    assert fills.result["curve"].shape == (8,) and fills.extra["models"]["m"].shape == (8,)
    assert not list((tmp_path / "v").glob("*.pending")) and not list((tmp_path / "v").glob("*.wanted"))


def test_a_server_run_nobody_waits_for_is_not_written_to_disk(tmp_path):
    request_done(RunStore(warm=WarmCache(tmp_path, version="v")))
    deadline = time.monotonic() + 10          # the marker goes just after the run has ended
    while list((tmp_path / "v").glob("*.pending")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not list((tmp_path / "v").glob("*.pending"))
    assert WarmCache(tmp_path, version="v").keys() == [] and CALLS == [5]


def test_a_server_run_that_ends_before_the_fill_reaches_it_is_not_computed_again(tmp_path):
    """The race the fresh-server browser test caught: a student's run ended before the fill asked for
    it, so nobody wanted it, no file was written, and the fill found no marker and computed it again.
    While the fill runs, the server writes every run it computes."""
    server = RunStore(warm=WarmCache(tmp_path, version="v"))
    server.fill_running = lambda: True
    first = request_done(server)
    deadline = time.monotonic() + 10          # the file is written, then the marker goes
    while list((tmp_path / "v").glob("*.pending")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert WarmCache(tmp_path, version="v").keys() == [first.key]
    filler = RunStore(warm=WarmCache(tmp_path, version="v"), persist=True)
    later = request_done(filler, owner="fill")
    assert later.how == "cached" and CALLS == [5]      # served from the server's file, computed once


def test_of_two_processes_claiming_a_run_one_computes_it(tmp_path):
    warm = WarmCache(tmp_path, version="v")
    key = "ab" * 32
    other = mark_by_another_process(warm, key)
    assert not warm.claim(key)                # a live process computes it
    other.kill()
    other.wait()
    assert warm.claim(key) and warm.claim(key)     # a dead one's marker is taken over; ours stays ours
    warm.end(key)
    assert warm.pending(key) is None


def test_the_fill_records_its_runs_for_the_server_s_estimates(tmp_path):
    from engine.app.serving.measures import read_records
    filler = RunStore(warm=WarmCache(tmp_path, version="v"), persist=True)
    request_done(filler, estimate=2.0)
    deadline = time.monotonic() + 10
    while not read_records(filler.warm.folder) and time.monotonic() < deadline:
        time.sleep(0.01)
    (record,) = read_records(filler.warm.folder)
    assert record["page"] == "conv" and record["estimate"] == 2.0 and record["cpu"] >= 0
    filler.warm.record("conv", 2.0, 1.2, 1.0)         # a run that computed: 1 s of CPU against 2 estimated
    server = RunStore(warm=WarmCache(tmp_path, version="v"))
    assert server.measures.calibration("conv") == pytest.approx(0.5)     # the tiny run does not count
    assert server.estimate_range(100.0, "conv")[0] == pytest.approx(50.0)
    assert server.estimate_range(100.0, "other page")[0] == 100.0
