"""Many labels against the extreme-classification peers: ``python -m engine.bench --extreme``.

For a data set with hundreds of labels a practitioner reaches first for a label-tree
classifier and measures precision at k. On bibtex, corel5k and delicious (Mulan's standard
split), every fit on one thread, in one run:

* **napkinXC's PLT** (probabilistic label trees, its defaults: hierarchical 2-means tree,
  liblinear logistic nodes, exact search) and **Omikuji** with its defaults (Parabel's
  settings: balanced 2-means, 3 trees) and with Bonsai's (regular k-means, k = 100, depth 3, as
  Omikuji's README runs it); both on L2-normalised rows, the convention of their field (PLT
  normalises again itself, ``norm=True``); ``seed=0`` for PLT;
* **the engine's default fit**, ``MultiLabelBoostingClassifier(random_state=0, n_jobs=1)`` on
  the rows as shipped (trees do not need the normalisation; early stopping as its defaults say).

Per system: fit **process CPU seconds** (``time.process_time``: the machine is shared, and a
process's CPU time is what its fit costs whatever else runs; one thread each), P@1, P@3, P@5,
nDCG@5 (over the test rows with at least one label, :func:`engine.metrics.precision_at_k`),
LRAP (every row, eq. 25) and the test binary cross-entropy where the system gives
probabilities (the engine: 1 / (1 + exp(-2 f)); PLT: its label probabilities, every label
returned; Omikuji's scores come from hinge-loss nodes and its beam search leaves most labels
unscored, so it gets none). Then the engine's time to reach each peer's P@1 and P@5: the CPU
seconds of its fit up to the first step whose staged test P@k reaches the peer's (process CPU
read at each chunk of the compiled loop, spread over the chunk's steps by the loop's own step
clock; held-out scoring and set-up included, since the fit pays them), and where the default
fit's CPU time goes (the compiled loop's phase timers, ms per step). The target (issue 46):
the default fit at or above the best peer on P@1, P@3 and P@5 in no more CPU seconds than the
faster peer; a miss is printed as missed, with its numbers.

Omikuji's Python binding trains from a file only: its training file is written once per data
set (not timed) and its time counts parsing it, which its users pay too (a few hundredths of
a second here; printed).
"""
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from engine._core import algorithms as _core_steps
from engine.bench.problems import MISSING, StagedRanking, describe, load_problem
from engine.experiments.label_trees import OMIKUJI_SETTINGS, l2_rows, omikuji_fit, plt_fit, write_xmc_file

DATASETS = ("bibtex", "corel5k", "delicious")
METRICS = ("P@1", "P@3", "P@5", "nDCG@5", "LRAP", "cross-entropy")


# ---------------------------------------------------------------- scores of one prediction

def engine_probability(F):
    """The classifier's positive probability 1 / (1 + exp(-2 F)) (logistic loss on -1/+1 labels)."""
    return 0.5 * (1.0 + np.tanh(F))


# ---------------------------------------------------------------- the peers

@dataclass
class Row:
    """One system's fit: CPU seconds and its test scores (``METRICS``)."""

    system: str
    cpu_seconds: float
    scores: dict
    notes: list = field(default_factory=list)


def peer_rows(problem, scorer, progress=None):
    """(rows of PLT and Omikuji's two settings, missing peers)."""
    X, X_test = l2_rows(problem.X), l2_rows(problem.X_test)
    d = problem.Y.shape[1]
    rows, missing = [], []
    try:
        seconds, P = plt_fit(X, problem.Y, X_test)
    except ImportError:
        missing.append("napkinXC")
    else:
        rows.append(Row("napkinXC PLT, defaults", seconds, scorer(P, P)))
        _say(progress, f"  {problem.name}: PLT {seconds:.2f} CPU s")
    try:
        import omikuji  # noqa: F401
    except ImportError:
        missing.append("Omikuji")
        return rows, missing
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train.txt")
        write_xmc_file(path, X, problem.Y)
        for setting in OMIKUJI_SETTINGS:
            seconds, S = omikuji_fit(path, X_test, d, setting)
            name = "defaults" if setting == "Parabel" else "Bonsai's settings (unbalanced, k 100, depth 3)"
            rows.append(Row(f"Omikuji {setting}, {name}", seconds, scorer(S),
                            ["time includes parsing its training file"]))
            _say(progress, f"  {problem.name}: Omikuji {setting} {seconds:.2f} CPU s")
    return rows, missing


# ---------------------------------------------------------------- the engine's default fit

@dataclass
class StagedFit:
    """The engine's default fit: CPU seconds to each step, staged P@1 and P@5, the final scores."""

    row: Row
    cpu: np.ndarray
    p1: np.ndarray
    p5: np.ndarray
    phases: dict = field(default_factory=dict)     # CPU ms per step run, by the compiled loop's phases

    def seconds_to(self, metric, level):
        values = self.p1 if metric == "P@1" else self.p5
        reached = np.flatnonzero(values >= level)
        return float(self.cpu[reached[0]]) if reached.size else None


def step_cpu_seconds(marks, step_clock):
    """CPU seconds from the start of fit to the end of each of the ``len(step_clock)`` steps kept.

    ``marks``: (steps done, process CPU since the start of fit, the loop's step clock then) at
    the end of each chunk of the compiled loop; inside a chunk the CPU time is spread over its
    steps in proportion to the step clock (``fit_times_``), so the first step carries the set-up.
    """
    n = len(step_clock)
    cpu = np.full(n, np.nan)
    done, spent, clock_at = 0, 0.0, 0.0
    for steps, cpu_at, clock_end in marks:
        upto = min(steps, n)
        if upto > done:
            width = clock_end - clock_at
            part = (np.asarray(step_clock[done:upto]) - clock_at) / width if width > 0 else 1.0
            cpu[done:upto] = spent + (cpu_at - spent) * part
            done = upto
        spent, clock_at = cpu_at, clock_end
    return cpu


def engine_default_fit(problem, scorer, params=None):
    """:class:`StagedFit` of ``MultiLabelBoostingClassifier(**params)`` (defaults: params None),
    seed 0, one thread."""
    from engine.estimators import MultiLabelBoostingClassifier
    model = MultiLabelBoostingClassifier(**(params or {}))
    model.set_params(random_state=0, n_jobs=1)
    marks = []
    _core_steps.time_phases(True)           # a clock read per phase and step: noise beside a step
    try:
        start = time.process_time()
        model.fit(problem.X, problem.Y, callback=lambda n, est: marks.append(
            (n, time.process_time() - start, float(est.fit_times_[-1]))) and False)
        total = time.process_time() - start
        seconds = _core_steps.phase_seconds()
    finally:
        _core_steps.time_phases(False)
    kept = model.n_steps_
    cpu = step_cpu_seconds(marks, model.fit_times_)
    p1, p5 = [], []
    for F in model.staged_decision_function(problem.X_test):
        ranking = scorer.ranking(F)
        p1.append(ranking["P@1"])
        p5.append(ranking["P@5"])
    F = model.decision_function(problem.X_test)
    run = getattr(model, "n_steps_run_", kept)
    notes = [f"{kept} steps kept" + (f" of {run} run (early stopping)" if run != kept else "")]
    phases = {name: 1000.0 * value / run for name, value in seconds.items()}
    phases["the rest (set-up, Python)"] = 1000.0 * (total - sum(seconds.values())) / run
    return StagedFit(Row("engine MultiLabelBoostingClassifier(), defaults", total,
                         scorer(F, engine_probability(F)), notes),
                     cpu, np.array(p1), np.array(p5), phases)


# ---------------------------------------------------------------- one data set, the table

def run_problem(problem, progress=None):
    """dict(rows, engine (StagedFit), missing, target) of one data set."""
    scorer = StagedRanking(problem.Y_test)
    rows, missing = peer_rows(problem, scorer, progress)
    fit = engine_default_fit(problem, scorer)
    _say(progress, f"  {problem.name}: engine defaults {fit.row.cpu_seconds:.2f} CPU s")
    return dict(rows=rows + [fit.row], engine=fit, missing=missing, target=target(rows, fit.row))


def target(peers, engine_row):
    """Issue 46's target: the engine at or above the best peer on P@1, P@3, P@5 in no more CPU
    seconds than the faster peer; None without peers."""
    if not peers:
        return None
    best = {k: max(r.scores[k] for r in peers) for k in ("P@1", "P@3", "P@5")}
    fastest = min(peers, key=lambda r: r.cpu_seconds)
    quality = all(engine_row.scores[k] >= v for k, v in best.items())
    ratio = engine_row.cpu_seconds / fastest.cpu_seconds
    return dict(met=quality and ratio <= 1.0, quality=quality, best=best, fastest=fastest, ratio=ratio)


def _fmt(value, digits=4):
    return "—" if value is None else f"{value:.{digits}f}"


def print_table(problem, result, out):
    print(f"\n## {describe(problem)}; P@k and nDCG@5 over the {int(StagedRanking(problem.Y_test).labelled.sum())} "
          "test rows with a label", file=out)
    print("| system | fit CPU s | " + " | ".join(METRICS) + " | notes |", file=out)
    print("|---|---:|" + "---:|" * len(METRICS) + "---|", file=out)
    for r in result["rows"]:
        print(f"| {r.system} | {r.cpu_seconds:.2f} | " + " | ".join(_fmt(r.scores[m]) for m in METRICS)
              + f" | {'; '.join(r.notes)} |", file=out)
    for peer in result["missing"]:
        print(f"\n{peer}: {MISSING}", file=out)
    fit = result["engine"]
    peers = result["rows"][:-1]
    if peers:
        print("\nEngine defaults' CPU seconds to reach each peer's P@1 and P@5 (— never, within its fit):\n",
              file=out)
        print("| peer | its fit CPU s | its P@1 | engine s to its P@1 | its P@5 | engine s to its P@5 |",
              file=out)
        print("|---|---:|---:|---:|---:|---:|", file=out)
        for r in peers:
            print(f"| {r.system} | {r.cpu_seconds:.2f} | {r.scores['P@1']:.4f} | "
                  f"{_fmt(fit.seconds_to('P@1', r.scores['P@1']), 2)} | {r.scores['P@5']:.4f} | "
                  f"{_fmt(fit.seconds_to('P@5', r.scores['P@5']), 2)} |", file=out)
    print(f"\n{target_text(result['target'], fit.row)}", file=out)
    print("\nwhere the default fit's CPU time goes, ms per step run (the compiled loop's phase timers; "
          "the rest: set-up, binning, Python): " + ", ".join(f"{k} {v:.1f}" for k, v in fit.phases.items()),
          file=out)


def print_curves_precision(problem, curves, peers, out):
    """``--multilabel``'s curves (engine.bench.multilabel.Curve) beside the peers: each one's final test
    P@1 and P@5 and its fit seconds (the curves' wall clock) to reach the best peer's."""
    if not peers:
        return
    best = {k: max(r.scores[f"P@{k}"] for r in peers) for k in (1, 5)}
    print(f"\n### {problem.name}: every curve's final test P@1 and P@5, and its fit seconds to reach the "
          f"best extreme-classification peer's (P@1 {best[1]:.4f}, P@5 {best[5]:.4f}; — never)\n", file=out)
    print("| system | loss | leaf values | tree | lr | P@1 | P@5 | s to P@1 | s to P@5 |", file=out)
    print("|---|---|---|---|---:|---:|---:|---:|---:|", file=out)
    for c in curves:
        if c.precision is None:
            continue
        p1, p5 = c.precision[-1]
        note = "" if c.comparable else " (sampled labels)"
        print(f"| {c.system}{note} | {c.loss} | {c.leaves} | {c.tree} | {c.learning_rate:g} | {p1:.4f} | "
              f"{p5:.4f} | {_fmt(c.seconds_to_precision(1, best[1]), 2)} | "
              f"{_fmt(c.seconds_to_precision(5, best[5]), 2)} |", file=out)


def target_text(t, engine_row):
    if t is None:
        return "target: not checked (no peer installed)"
    worse = [k for k, v in t["best"].items() if engine_row.scores[k] < v]
    quality = ("at or above the best peer on P@1, P@3, P@5" if t["quality"] else
               "below the best peer on " + ", ".join(f"{k} ({engine_row.scores[k]:.4f} < {t['best'][k]:.4f})"
                                                      for k in worse))
    return (f"target (defaults at or above the best peer on P@1, P@3, P@5 in at most the faster peer's "
            f"CPU time): {'met' if t['met'] else 'MISSED'}: {quality}; {engine_row.cpu_seconds:.2f} CPU s, "
            f"{t['ratio']:.2f} x {t['fastest'].system}'s {t['fastest'].cpu_seconds:.2f} s")


def _say(progress, text):
    if progress is not None:
        print(text, file=progress, flush=True)


def run(datasets=DATASETS, quick=False, out=sys.stdout, progress=sys.stderr):
    """Print every data set's table; returns {data set: run_problem's dict}. ``quick``: a slice
    of 300 training rows, 200 test rows and the 20 most frequent labels."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# python -m engine.bench --extreme{' --quick' if quick else ''} (one thread, process CPU "
          f"seconds; load average at start {load:.2f}, {os.cpu_count()} cores)", file=out)
    results = {}
    for name in datasets:
        problem = (load_problem(name, 300, 200, 20) if quick else load_problem(name))
        _say(progress, describe(problem))
        results[name] = run_problem(problem, progress)
        print_table(problem, results[name], out)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average at the end {load:.2f}", file=out)
    return results
