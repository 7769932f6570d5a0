"""Every ``--quick`` of ``python -m engine reproduce`` and ``python -m engine.bench`` finishes within
three minutes on a 2-core machine and says what it left out (issue 45: a user who asks for quick
gets minutes, not half an hour).

Each command runs as a user runs it, in a subprocess. The limit is on the command's CPU seconds
(its own and its workers', which the subprocess waits for) over the cores it may use: on a shared
machine (this project's often runs at load 10 or more) wall-clock time would measure the other
jobs; on the idle 2-core CI machine the two agree. A hang still fails: the wall-clock timeout.
"""
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.reports.reproduce import REPRODUCTIONS

ROOT = Path(__file__).resolve().parents[2]
LIMIT_SECONDS = 180
CORES = min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
HANG_SECONDS = 40 * 60          # only a hang: a loaded machine may take ten times the CPU time
BENCH_QUICK = [["--quick"], ["--multilabel", "--quick"], ["--defaults", "--quick"],
               ["--step-breakdown", "--quick"], ["--scale", "--quick"], ["--interactions", "--quick"],
               ["--logistic-step", "--quick"], ["--gil", "--quick"], ["--pages", "--quick"],
               ["--extreme", "--quick"]]


def _cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(args, cwd):
    """(completed process, CPU seconds, wall seconds) of ``python -m <args>``."""
    cpu, wall = _cpu_of_children(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_SECONDS, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc, _cpu_of_children() - cpu, time.perf_counter() - wall


@pytest.mark.slow
@pytest.mark.timeout(HANG_SECONDS + 60)
@pytest.mark.parametrize("target", list(REPRODUCTIONS))
def test_every_reproduce_quick_ends_within_three_minutes_and_says_what_it_cut(target, tmp_path):
    proc, cpu, wall = run_timed(["engine", "reproduce", target, "--quick", "--out", str(tmp_path)], ROOT)
    print(f"reproduce {target} --quick: {cpu:.0f} CPU s, {wall:.0f} s wall")      # shown by -rP
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "--quick: " in proc.stderr and "expected: " in proc.stderr
    assert cpu / CORES <= LIMIT_SECONDS, f"{cpu:.0f} CPU s ({wall:.0f} s wall)"


@pytest.mark.slow
@pytest.mark.timeout(HANG_SECONDS + 60)
@pytest.mark.parametrize("mode", BENCH_QUICK, ids=lambda m: " ".join(m))
def test_every_bench_quick_ends_within_three_minutes_and_says_what_it_cut(mode, tmp_path):
    pytest.importorskip("lightgbm", reason="the bench extra (pip install -e '.[bench]') is not installed")
    proc, cpu, wall = run_timed(["engine.bench", *mode], tmp_path)
    print(f"bench {' '.join(mode)}: {cpu:.0f} CPU s, {wall:.0f} s wall")          # shown by -rP
    assert proc.returncode in (0, 1), proc.stderr[-3000:]      # 1: a speed target missed, not a failure here
    assert "--quick: " in proc.stdout + proc.stderr
    assert cpu / CORES <= LIMIT_SECONDS, f"{cpu:.0f} CPU s ({wall:.0f} s wall)"
