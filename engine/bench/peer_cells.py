"""Cached cells of the defaults study: each (system, data set) fit is measured once and kept.

``python -m engine.bench --defaults`` compares the estimators' defaults with XGBoost's and
LightGBM's on the 24 shipped sets, and CatBoost's full default fit (hours of CPU on the wide
label sets) on bibtex and corel5k. A stop (Ctrl-C, a killed session, a reboot) must lose at most
the cell that was running, so every finished cell is a small JSON file under
``results/defaults/`` (git ignores ``results/``), written atomically, and read back instead of
fitting again. A CatBoost fit also snapshots its own progress (CatBoost's ``save_snapshot``)
every :data:`SNAPSHOT_SECONDS`, so a stopped fit resumes at its last snapshot; since the
training continues from the snapshot exactly (tested on a toy: the same raw scores), the model
is the uninterrupted fit's.

Time is **process CPU seconds** (``time.process_time``, one thread): on this shared machine wall
time moves with the other engineers' load, CPU time much less. A fit under
:data:`MIN_CPU_SECONDS` is repeated and its median kept. Wall seconds and the load average are
kept beside it. A resumed CatBoost fit's CPU time is the sum over its iterations of
each iteration's CPU time in the run that kept it (the last run's setup is counted, an earlier
run's setup and the iterations it lost after its last snapshot are not): an estimate of an
uninterrupted fit's, said so in the cell (``resumed_runs``).

An engine cell's key includes its parameters, so a change of the defaults is measured again; a
peer's includes its library version.
"""
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

RESULTS_DIR = Path(__file__).resolve().parents[2] / "results" / "defaults"
SNAPSHOT_SECONDS = 120


def _load():
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def cell_path(system, name, key="", root=None):
    """results/defaults/<system>/<data set>[-<key digest>].json"""
    digest = hashlib.blake2b(key.encode(), digest_size=6).hexdigest() if key else ""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in system)
    root = RESULTS_DIR if root is None else Path(root)
    return root / safe / (f"{name}-{digest}.json" if digest else f"{name}.json")


def read_cell(path):
    """The cached cell at ``path``, or None."""
    try:
        return json.loads(Path(path).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def write_cell(path, cell):
    """Write atomically (a stop mid-write leaves no half cell)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cell, indent=1, sort_keys=True))
    os.replace(tmp, path)


def cached(path, compute):
    """The cell at ``path``, computing and writing it first when absent. ``compute()`` returns a
    dict or None (a peer not installed: nothing is written)."""
    cell = read_cell(path)
    if cell is None:
        cell = compute()
        if cell is not None:
            write_cell(path, cell)
    return cell


# A fit shorter than this is repeated until its fits add up to it (at most MAX_REPEATS), and
# its time is the median: a single 20 ms fit on a loaded machine is mostly noise.
MIN_CPU_SECONDS = 1.0
MAX_REPEATS = 15


def timed(fit, min_cpu=None, max_repeats=MAX_REPEATS):
    """Run ``fit()`` (returning a dict, the same each time: seeded) and add its CPU and wall
    seconds (medians over the repeats) and the load around it."""
    min_cpu = MIN_CPU_SECONDS if min_cpu is None else min_cpu
    load, cpus, walls, cell = _load(), [], [], None
    while not cpus or (sum(cpus) < min_cpu and len(cpus) < max_repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        result = fit()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
        if result is None:
            return None
        cell = cell or result
    cell.update(cpu_seconds=float(np.median(cpus)), wall_seconds=float(np.median(walls)),
                repeats=len(cpus), load_before=load, load_after=_load(),
                finished=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    return cell


# ---------------------------------------------------------------- CatBoost's full default fit

class _IterationClock:
    """A CatBoost callback that appends each iteration's CPU seconds to a log (one JSON line per
    iteration: run, iteration, seconds since the previous iteration of the run)."""

    def __init__(self, log_path, progress=None):
        self.log_path = Path(log_path)
        self.run = time.strftime("%Y%m%dT%H%M%S")
        self.last = time.process_time()
        self.progress = progress

    def after_iteration(self, info):
        now = time.process_time()
        with self.log_path.open("a") as log:
            log.write(json.dumps({"run": self.run, "it": int(info.iteration),
                                  "cpu": now - self.last}) + "\n")
        if self.progress is not None and info.iteration % 25 == 0:
            print(f"    CatBoost iteration {info.iteration}: {now - self.last:.1f} CPU s",
                  file=self.progress, flush=True)
        self.last = now
        return True


def resumed_cpu_seconds(log_path):
    """(CPU seconds, runs) from an iteration log: each iteration's time in the last run that
    reached it."""
    per_iteration, runs = {}, []
    for line in Path(log_path).read_text().splitlines():
        entry = json.loads(line)
        per_iteration[entry["it"]] = entry["cpu"]
        if entry["run"] not in runs:
            runs.append(entry["run"])
    return float(sum(per_iteration.values())), len(runs)


def catboost_full_fit(problem, work_dir, progress=None):
    """CatBoost's default fit (``MultiLogloss`` / ``MultiRMSE``, one thread, seed 0, no budget),
    resumable from its snapshot in ``work_dir``; a cell dict, or None when not installed.

    A label with one class in the training rows is left out of the fit and scored at its clipped
    log-odds, as :func:`engine.bench.defaults.catboost_default` does (MultiLogloss refuses it).
    """
    try:
        import catboost
    except ImportError:
        return None
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    from engine.bench.defaults import catboost_plan
    model, Y, raw, fitted = catboost_plan(
        problem, catboost, save_snapshot=True, snapshot_file=str(work_dir / "fit.cbsnapshot"),
        snapshot_interval=SNAPSHOT_SECONDS, train_dir=str(work_dir / "train"))
    log_path = work_dir / "iterations.jsonl"
    wall = time.perf_counter()
    load = _load()
    model.fit(problem.X, Y, callbacks=[_IterationClock(log_path, progress)])
    cpu, runs = resumed_cpu_seconds(log_path)
    raw[:, fitted] = np.asarray(model.predict(problem.X_test, prediction_type="RawFormulaVal")
                                ).reshape(len(raw), -1)
    return {"system": "CatBoost", "data": problem.name, "split": problem.split,
            "score": problem.score(raw), "cpu_seconds": cpu, "rounds": int(model.tree_count_),
            "labels_left_out": int((~fitted).sum()), "resumed_runs": runs,
            "wall_seconds_last_run": time.perf_counter() - wall, "load_before": load,
            "load_after": _load(), "version": catboost.__version__,
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def catboost_cell(name, progress=None, root=None):
    """CatBoost's cached full default fit on the shipped set ``name`` (fitting it if absent)."""
    from engine.bench.problems import load_problem
    path = cell_path("CatBoost-full", name, root=root)

    def compute():
        return catboost_full_fit(load_problem(name), path.with_suffix(".work"), progress)

    return cached(path, compute)


if __name__ == "__main__":       # python -m engine.bench.peer_cells catboost bibtex corel5k
    if sys.argv[1:2] != ["catboost"]:
        sys.exit("usage: python -m engine.bench.peer_cells catboost DATASET [DATASET ...]")
    for dataset in sys.argv[2:]:
        print(dataset, catboost_cell(dataset, progress=sys.stderr), flush=True)
