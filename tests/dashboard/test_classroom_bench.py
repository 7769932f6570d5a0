"""The classroom bench's own helpers (engine/bench/classroom.py): reading the server's log, and
keeping the browsers' autogroups at a low priority (Linux /proc)."""

import os
import subprocess
import time

import pytest

from engine.bench import classroom


def test_server_times_reads_asks_and_results_from_the_log(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "2026-11-25 05:36:40.000 run conv: session-3 asked: new run\n"
        "2026-11-25 05:36:41.500 run conv: session-4 asked: attached\n"
        "2026-11-25 05:36:41.600 run conv: session-4 asked: from the cache\n"      # a later ask: not the first
        "2026-11-25 05:36:42.000 run conv: session-5 asked: from the cache\n"
        "2026-11-25 05:37:03.000 run conv: session-3 done after 23.0 s (shared by 2 sessions; "
        "the run's thread had 20.9 s of CPU)\n"
        "2026-11-25 05:37:05.500 run conv: session-4 done after 23.0 s (shared by 2 sessions; "
        "the run's thread had 20.9 s of CPU)\n"
        "2026-11-25 05:37:06.000 run conv: session-4 done after 99.0 s (a later run)\n")
    since = classroom.log_time("2026-11-25 05:36:00.000")
    times, run_seconds, served = classroom.server_times(str(log), since)
    assert times == pytest.approx([23.0, 24.0])          # session-5 has no result
    assert run_seconds == 99.0                            # the longest run any of them reports
    assert served == {"computed": 1, "attached live": 1, "from the cache": 1}
    assert classroom.server_times(str(log), since + 3600) == ([], None, {})


def test_lower_browser_groups_renices_the_autogroups_of_named_children_only():
    own = "/proc/self/autogroup"
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)      # a session, so an autogroup, of its own
    try:
        deadline = time.monotonic() + 5
        while classroom._descendants(os.getpid(), "sleep") != [child.pid] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert classroom._descendants(os.getpid(), "sleep") == [child.pid]
        assert classroom.lower_browser_groups(os.getpid(), 19, name="no-such-command") == []
        if not os.path.exists(own):              # a kernel without autogroups: nothing to lower
            assert classroom.lower_browser_groups(os.getpid(), 19, name="sleep") == []
            return
        before = open(own).read()
        assert classroom.lower_browser_groups(os.getpid(), 19, name="sleep") == [19]
        with open(f"/proc/{child.pid}/autogroup") as f:
            assert f.read().split()[-2:] == ["nice", "19"]
        assert open(own).read() == before        # the caller's own group is left alone
    finally:
        child.kill()
        child.wait()


def test_server_times_keeps_the_runs_of_one_page_apart(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(
        "2026-11-25 05:36:40.000 run bv: session-3 asked: new run\n"
        "2026-11-25 05:36:41.000 run conv: session-3 asked: from the cache\n"
        "2026-11-25 05:36:50.000 run bv: session-3 done after 10.0 s (alone)\n"
        "2026-11-25 05:36:51.000 run conv: session-3 done after 2.0 s (from the cache)\n")
    since = classroom.log_time("2026-11-25 05:36:00.000")
    assert classroom.server_times(str(log), since, run="bv") == ([10.0], 10.0, {"computed": 1})
    assert classroom.server_times(str(log), since) == ([10.0], 2.0, {"from the cache": 1})


def test_the_command_line_offers_the_bench_scenarios_and_checks_its_input():
    from engine.bench import __main__ as cli

    assert cli.CLASSROOM_SCENARIOS == classroom.SCENARIOS
    for bad, named in (({"scenarios": ["class", "lecture"]}, "scenarios"), ({"scenarios": "class"}, "scenarios"),
                       ({"scenarios": []}, "scenarios"), ({"tour_sessions": 1}, "tour_sessions"),
                       ({"sessions": [0]}, "sessions"), ({"preset": "/forests?x=1"}, "preset")):
        with pytest.raises(ValueError, match=named):
            classroom.run(**bad)
