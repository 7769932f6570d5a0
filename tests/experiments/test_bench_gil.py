"""engine.bench.gil: the pages' default runs beside a busy Python thread (the bench's parts;
the measurement itself is `python -m engine.bench --gil`)."""
import dataclasses
import inspect
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.bench import gil
from engine.bench import pages as bench_pages
from engine.experiments import BoostingSettings
from engine.experiments import forests as fe

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"proj": (str(ROOT / "pages/projections.py"), bench_pages.projections_default, "run_projection_size"),
         "fx": (str(ROOT / "pages/forests.py"), bench_pages.forests_default, "run_sweep")}


def _bound(target, args, kwargs):
    """Every argument of a call, defaults filled in (leaf_estimation None is the papers' mean)."""
    bound = inspect.signature(target).bind(*args, **kwargs)
    bound.apply_defaults()
    out = dict(bound.arguments)
    if out.get("leaf_estimation") is None and "leaf_estimation" in out:
        out["leaf_estimation"] = "mean"
    boosting = out.get("boosting")
    if isinstance(boosting, BoostingSettings) and boosting.leaf_estimation is None:
        out["boosting"] = dataclasses.replace(boosting, leaf_estimation="mean")
    for k in ("progress", "stop"):
        out.pop(k, None)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PAGES))
def test_the_bench_runs_what_the_page_runs_by_default(monkeypatch, name):
    import pages._jobs as jobs

    path, default_run, target_name = PAGES[name]
    asked = {}
    monkeypatch.setattr(jobs.PageRun, "start", lambda self, target, *a, settings=None, extra=None, estimate=None,
                        **kw: asked.setdefault(self.name, (target, a, kw)))
    at = AppTest.from_file(path, default_timeout=60)
    at.session_state["app_registered_pages"] = ()
    at.run()
    target, args, kwargs = asked[name]
    assert target.__name__ == target_name

    called = {}
    module = bench_pages if name == "proj" else fe
    monkeypatch.setattr(module, target_name, lambda *a, **kw: called.setdefault("call", (a, kw)))
    default_run()
    assert _bound(target, *called["call"]) == _bound(target, args, kwargs)


def test_timed_runs_beside_busy_threads_and_python_cost_restores_the_interval():
    before = sys.getswitchinterval()
    assert gil.timed(lambda: time.sleep(0.05), 1) >= 0.05
    assert gil.timed(lambda: None, 0) >= 0.0
    assert gil.python_cost(0.0001, steps=2000) > 0
    assert sys.getswitchinterval() == pytest.approx(before, rel=0.02)     # kept in whole microseconds


@pytest.mark.parametrize("bad", [{"intervals": ()}, {"intervals": (0.0,)}, {"intervals": (1.0,)}, {"repeats": 0}])
def test_bad_arguments_are_refused(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        gil.run(**bad)
