"""The class load tool's own helpers (tests/load/classroom_tools.py, classroom_visits.py): reading the server's log
(the lines the run store really writes, in its own formats), keeping the browsers' autogroups at a low priority
(Linux /proc), and its command line."""

import logging
import os
import subprocess
import threading
import time

import pytest

from engine.app.serving import runstore as rs
from engine.app.serving.limits import Limits
from engine.app.serving.runstore import RunStore, short_key
from load import classroom
from load import classroom_tools as tools
from load.classroom_visits import closed_runs, run_events


def test_server_times_reads_asks_and_results_from_the_log(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "2026-11-25 05:36:40.000 run conv: session-3 asked: new run [run aaaaaaaa]\n"
        "2026-11-25 05:36:41.500 run conv: session-4 asked: attached to the run in flight, shared by 2 sessions "
        "[run aaaaaaaa]\n"
        "2026-11-25 05:36:41.600 run conv: session-4 asked: from the cache [run aaaaaaaa]\n"    # a later ask: not the first
        "2026-11-25 05:36:42.000 run conv: session-5 asked: from the cache [run aaaaaaaa]\n"
        "2026-11-25 05:37:03.000 run conv: session-3 done after 23.0 s (shared by 2 sessions; "
        "the run's thread had 20.9 s of CPU)\n"
        "2026-11-25 05:37:05.500 run conv: session-4 done after 23.0 s (shared by 2 sessions; "
        "the run's thread had 20.9 s of CPU)\n"
        "2026-11-25 05:37:06.000 run conv: session-4 done after 99.0 s (alone; the run's thread had 98.0 s of CPU)\n")
    since = tools.log_time("2026-11-25 05:36:00.000")
    times, run_seconds, served = tools.server_times(str(log), since)
    assert times == pytest.approx([23.0, 24.0])          # session-5 has no result
    assert run_seconds == 99.0                            # the longest run any of them reports
    assert served == {"computed": 1, "attached live": 1, "from the cache": 1}
    assert tools.server_times(str(log), since + 3600) == ([], None, {})


def test_lower_browser_groups_renices_the_autogroups_of_named_children_only():
    own = "/proc/self/autogroup"
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)      # a session, so an autogroup, of its own
    try:
        deadline = time.monotonic() + 5
        while tools._descendants(os.getpid(), "sleep") != [child.pid] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert tools._descendants(os.getpid(), "sleep") == [child.pid]
        assert tools.lower_browser_groups(os.getpid(), 19, name="no-such-command") == []
        if not os.path.exists(own):              # a kernel without autogroups: nothing to lower
            assert tools.lower_browser_groups(os.getpid(), 19, name="sleep") == []
            return
        before = open(own).read()
        assert tools.lower_browser_groups(os.getpid(), 19, name="sleep") == [19]
        with open(f"/proc/{child.pid}/autogroup") as f:
            assert f.read().split()[-2:] == ["nice", "19"]
        assert open(own).read() == before        # the caller's own group is left alone
    finally:
        child.kill()
        child.wait()


def test_server_times_keeps_the_runs_of_one_page_apart(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "2026-11-25 05:36:40.000 run bv: session-3 asked: new run [run aaaaaaaa]\n"
        "2026-11-25 05:36:41.000 run conv: session-3 asked: from the cache [run bbbbbbbb]\n"
        "2026-11-25 05:36:50.000 run bv: session-3 done after 10.0 s (alone; the run's thread had 9.9 s of CPU)\n"
        "2026-11-25 05:36:51.000 run conv: session-3 done after 2.0 s (from the cache; the run's thread had 1.9 s of CPU)\n")
    since = tools.log_time("2026-11-25 05:36:00.000")
    assert tools.server_times(str(log), since, run="bv") == ([10.0], 10.0, {"computed": 1})
    assert tools.server_times(str(log), since) == ([10.0], 2.0, {"from the cache": 1})


def test_the_command_line_checks_its_input_and_the_bench_says_where_the_tool_went(capsys):
    from engine.bench.__main__ import main as bench_main

    assert bench_main(["--classroom", "--sessions", "3"]) == 2
    assert "python tests/load/classroom.py" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        classroom.main(["--scenarios", "lecture"])
    with pytest.raises(SystemExit):
        classroom.main(["--sessions", "0"])
    for bad, named in (({"scenarios": ["class", "lecture"]}, "scenarios"), ({"scenarios": "class"}, "scenarios"),
                       ({"scenarios": []}, "scenarios"), ({"tour_sessions": 1}, "tour_sessions"),
                       ({"sessions": [0]}, "sessions"), ({"preset": "/forests?x=1"}, "preset")):
        with pytest.raises(ValueError, match=named):
            classroom.run(**bad)


def test_closed_runs_tells_what_became_of_each_closed_tabs_run(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("\n".join([
        "2026-11-25 06:09:35.170 run conv: session-1 asked: new run [run aaaaaaaa]",
        "2026-11-25 06:09:36.000 run conv: session-2 asked: new run [run bbbbbbbb]",
        "2026-11-25 06:09:37.000 run conv: session-3 asked: new run [run cccccccc]",
        "2026-11-25 06:09:38.000 run conv: session-4 asked: new run [run dddddddd]",
        "2026-11-25 06:09:38.500 run conv: session-5 asked: attached to the run in flight, shared by 2 sessions "
        "[run dddddddd]",
        "2026-11-25 06:09:39.000 run conv: session-6 asked: new run [run eeeeeeee]",
        "2026-11-25 06:09:45.000 run bbbbbbbb stopped: nobody watches it",
        "2026-11-25 06:09:45.001 session-2 closed",
        "2026-11-25 06:09:46.000 run cccccccc left the queue: nobody waits for it",
        "2026-11-25 06:09:46.001 session-3 closed",
        "2026-11-25 06:09:47.000 session-4 closed",                # session-5 still watches dddddddd
        "2026-11-25 06:09:50.000 run bbbbbbbb ended (stopped) after 14.0 s, watched by 0 sessions",
        "2026-11-25 06:09:58.000 run aaaaaaaa ended (done) after 22.8 s, watched by 1 sessions",
        "2026-11-25 06:09:59.000 session-1 closed",                # after its run ended: nothing to stop
        "2026-11-25 06:09:59.500 session-6 closed",
        "2026-11-25 06:10:20.000 run eeeeeeee ended (done) after 41.0 s, watched by 0 sessions",   # the failure
        "2026-11-25 06:10:21.000 session-7 closed",                # never asked for a run
        "2026-11-25 06:10:22.000 run conv: session-5 done after 30.0 s (shared by 2 sessions; the run's thread had "
        "29.0 s of CPU)",
        "2026-11-25 06:10:23.000 session-5 closed",                # after its result: not counted
    ]) + "\n")
    events = run_events(str(log), tools.log_time("2026-11-25 06:00:00.000"))
    assert events["asked"] == {"session-1": "aaaaaaaa", "session-2": "bbbbbbbb", "session-3": "cccccccc",
                               "session-4": "dddddddd", "session-5": "dddddddd", "session-6": "eeeeeeee"}
    assert closed_runs(events) == {"stopped": 1, "taken out of the queue": 1, "ended before the tab closed": 1,
                                   "still watched by others": 1, "kept computing": 1, "for nobody": 1}
    later = run_events(str(log), tools.log_time("2026-11-25 06:10:00.000"))
    assert later["asked"] == {} and set(later["closed"]) == {"session-7", "session-5"} and later["drawn"] == {"session-5"}


# --- the lines the real writers write ---------------------------------------------------------------

def streamlit_lines(records):
    """The records as the server's log holds them: Streamlit's message format (its config's
    ``logger.messageFormat``), milliseconds after a dot."""
    from streamlit import config

    form = logging.Formatter(config.get_option("logger.messageFormat"))
    form.default_msec_format = "%s.%03d"
    return [form.format(r) for r in records]


def test_the_tool_reads_the_lines_the_run_store_writes(tmp_path):
    def blocked(x, *, progress, stop):
        while not stop.wait(0.01):
            progress(None, "working")
        return x

    records = []
    handler = logging.Handler(logging.INFO)
    handler.emit = records.append
    logger = logging.getLogger(rs.LOG_NAME)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    since = time.time() - 1
    try:
        store = RunStore(Limits(max_jobs=1))
        running = store.request("session-1", "conv", blocked, 1)
        queued = store.request("session-2", "conv", blocked, 2)          # waits behind the first
        deadline = time.monotonic() + 5
        while not running.running and time.monotonic() < deadline:
            time.sleep(0.01)
        store.leave("session-2")                                          # left the queue: nobody waits
        store.leave("session-1")                                          # stopped: nobody watches
        assert running.wait(5)
        while not any("ended" in r.getMessage() for r in records) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    lines = streamlit_lines(records)
    log = tmp_path / "server.log"
    log.write_text("\n".join(lines + [lines[-1][:24] + rs.SESSION_CLOSED % {"session": "session-1"}]) + "\n")
    events = run_events(str(log), since)
    assert set(events["stopped"]) == {short_key(running.key)}, lines
    assert set(events["left"]) == {short_key(queued.key)}, lines
    assert events["ended"][short_key(running.key)][1:] == ("stopped", 0), lines
    assert set(events["closed"]) == {"session-1"}
    assert all(tools.line_pattern(rs.RUN_ASKED).match(line) is None for line in lines)     # no false match


def test_line_pattern_names_every_field_of_a_format():
    line = "2026-11-25 06:09:58.000 " + rs.RUN_ENDED % {"key": "aaaaaaaa", "status": "done", "seconds": 22.84,
                                                       "watchers": 3}
    m = tools.RUN_ENDED.match(line)
    assert m is not None and (m["key"], m["status"], m["seconds"], m["watchers"]) == ("aaaaaaaa", "done", "22.8", "3")
    asked = "2026-11-25 06:09:58.000 " + rs.RUN_ASKED % {
        "page": "conv", "session": "session-4", "key": "bbbbbbbb",
        "how": rs.ASKED_HOW["attached"].format(shared=3)}
    m = tools.SERVER_ASKED.match(asked)
    assert m is not None and tools.how_served(m["how"]) == "attached" and m["key"] == "bbbbbbbb"
    assert {tools.how_served(phrase.format(shared=2)) for phrase in rs.ASKED_HOW.values()} == set(rs.ASKED_HOW)
    assert set(tools.HOW) == set(rs.ASKED_HOW)
