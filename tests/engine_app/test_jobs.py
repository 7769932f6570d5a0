"""engine.app.serving.jobs: the background job runner (threads only, no streamlit)."""

import threading
import time

import pytest

from engine.app.serving.jobs import STATUSES, Job


def counting(n, *, progress, stop, step=0.01, offset=0):
    curve = []
    for i in range(n):
        if stop.is_set():
            break
        time.sleep(step)
        curve.append(offset + i)
        progress((i + 1) / n, f"step {i + 1}/{n}", partial=list(curve))
    return curve


def test_runs_to_done_and_reports_progress():
    seen = []
    job = Job(counting, 20, step=0.01)
    assert job.status == "running"
    while job.running:
        seen.append(job.fraction)
        time.sleep(0.005)
    assert job.wait(5)
    assert job.status == "done" and job.status in STATUSES
    assert job.result == list(range(20))
    assert job.fraction == 1.0 and job.message == "done" and job.error is None
    assert any(0 < f < 1 for f in seen), seen  # intermediate progress was visible
    assert seen == sorted(seen)
    assert job.partial == list(range(20))
    assert 0.15 < job.elapsed < 5


def test_elapsed_is_frozen_after_the_end():
    job = Job(counting, 2, step=0.0)
    job.wait(5)
    e = job.elapsed
    time.sleep(0.05)
    assert job.elapsed == e


def test_stop_is_prompt_and_keeps_the_partial_result():
    job = Job(counting, 10_000, step=0.005)
    while job.fraction == 0:
        time.sleep(0.005)
    t0 = time.perf_counter()
    assert job.stop(timeout=2)
    assert time.perf_counter() - t0 < 0.5
    assert job.status == "stopped" and job.stop_requested
    assert 0 < len(job.result) < 10_000
    assert job.result == list(range(len(job.result)))
    assert 0 < job.fraction < 1
    assert job.error is None


def test_progress_returns_true_after_stop():
    def loop(*, progress, stop):
        i = 0
        while not progress(None, f"iteration {i}"):
            i += 1
            time.sleep(0.001)
        return i

    job = Job(loop)
    time.sleep(0.05)
    job.stop(timeout=2)
    assert job.status == "stopped" and job.result > 0


def test_exception_is_captured_as_text():
    def boom(x, *, progress, stop):
        progress(0.5, "half way")
        raise ZeroDivisionError(f"bad {x}")

    job = Job(boom, 7)
    assert job.wait(5)
    assert job.status == "failed"
    assert "ZeroDivisionError: bad 7" in job.error and "Traceback" in job.error
    assert job.result is None
    assert job.fraction == 0.5


def test_fraction_is_clamped():
    def odd(*, progress, stop):
        progress(3.0)
        a = progress.__self__.fraction
        progress(float("nan"))
        b = progress.__self__.fraction
        progress(-1)
        return a, b, progress.__self__.fraction

    job = Job(odd)
    job.wait(5)
    assert job.result == (1.0, 1.0, 0.0)


def test_two_jobs_are_independent():
    a = Job(counting, 10_000, step=0.002)
    b = Job(counting, 10, step=0.01, offset=100)
    assert b.wait(5)
    assert a.running  # finishing b did not touch a
    a.stop(timeout=2)
    assert b.status == "done" and b.result == list(range(100, 110))
    assert a.status == "stopped" and a.result[0] == 0
    assert b.stop_requested is False


@pytest.mark.slow
def test_snapshot_is_consistent_from_another_thread():
    job = Job(counting, 200, step=0.001)
    errors = []

    def poll():
        try:
            while job.running:
                s = job.snapshot()
                assert set(s) >= {"status", "fraction", "message", "partial", "result", "error", "elapsed"}
                if s["partial"] is not None:
                    assert s["fraction"] >= len(s["partial"]) / 200 - 1e-12
        except AssertionError as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=poll) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert job.wait(5) and errors == []
    assert "done" in repr(job)


def test_target_must_be_callable():
    with pytest.raises(TypeError, match="callable"):
        Job(42)

