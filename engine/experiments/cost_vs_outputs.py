"""Seconds per boosting step against the number of outputs d: paper 002's cost argument, measured.

Why it matters (paper 002, section 3.2): gbrt-rpo fits its tree "on the projection of the current
residuals according to φm, reducing dimensionality from d outputs to a single output", and random
projections "strongly reduce the size of the output space" (section 3.3); section 4.1.2 adds that
"the computing time of one boosting iteration is thus different between the approaches" (st-gbrt
fits one tree per output and step). In numbers, for a step on n samples and p inputs:

* st-gbrt grows d single-output trees: about d times one tree, O(d · n p log n);
* gbmort grows one tree whose split search sums all d residual columns at every candidate
  threshold: O(n p d) on top of the sorting;
* gbrt-rpo (q = 1) and gbrt-relabel-rpo (q projections) grow one tree on q columns: O(n p q),
  whatever d. What every method still pays per output is O(n d) (or O(n d q) for the projection):
  the gradient, the projection, the relabelled leaves, the line search and the update.

So gbmort's and st-gbrt's time per step grows about in proportion to d (a log–log slope near 1),
the projected methods' much more slowly until their O(n d) part dominates. This module measures
it on Friedman1-style data: x uniform on [0, 1]^p, y_j = f(x_1..x_5) + N(0, 1) for every output
j (paper 002's f, the group structure; the other p − 5 inputs are noise).

How a time is measured (:func:`run_cost_vs_outputs`), one method and one d at a time:

* one thread (``n_jobs=1`` and threadpoolctl's limit for numpy's BLAS);
* one untimed warm-up fit of ``min_steps`` steps on the same data, which also estimates a step;
* ``repeats`` timed fits of k steps, k chosen so a fit lasts about ``target_seconds`` (at least
  ``min_steps``); a fit's time is the **CPU time of the fitting thread** (``time.thread_time``)
  over the whole ``fit`` (its input checks and presorting, shared by the k steps, included):
  unlike wall-clock time it does not count the moments another process held the core, which on a
  shared machine (load 8 on 2 cores while this was written) inflated wall-clock steps up to 4×;
* the time per step is the **median** over the repeats of (fit time / k); the fastest and
  slowest fits are kept for the chart's bars.

``python -m engine.experiments.cost_vs_outputs`` measures into ``results/cost_vs_outputs.json`` (never
into the repository: the page would show one machine's numbers as the shipped ones);
``--refresh-shipped`` regenerates the measurement the app ships, ``sample_data/cost_vs_outputs.json``
(with the machine, its load and the engine version in the file).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from engine.datasets.friedman import friedman1
from engine.estimators.registry import make_estimator
from engine.experiments.engine_version import engine_version
from engine.experiments.runner import JsonResult, Runner, check_callbacks, from_list, to_list
from engine.experiments.settings import check_kind, check_seed
from engine.validation import check_in_interval, check_int

__all__ = ["METHODS", "CostMethod", "CostSettings", "CostVsOutputsResult", "loglog_slope", "run_cost_vs_outputs",
           "load_shipped", "SHIPPED_PATH", "LIVE_SETTINGS", "SHIPPED_SETTINGS", "estimate_seconds"]

SHIPPED_PATH = Path(__file__).resolve().parents[2] / "sample_data" / "cost_vs_outputs.json"
DEFAULT_OUT = Path("results") / "cost_vs_outputs.json"    # relative to the working directory; git ignores results/


@dataclass(frozen=True)
class CostMethod:
    """One curve: a paper method (its name in engine.names) with q projections."""

    label: str
    estimator: str
    q: int = 1


# The larger q: 16 (paper 002, Figure 6, finds gbmort's score from q = 20 on delicious's 983 labels).
METHODS = (
    CostMethod("st-gbrt", "st-gbrt"),
    CostMethod("gbmort", "gbmort"),
    CostMethod("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1),
    CostMethod("gbrt-relabel-rpo, q = 1", "gbrt-relabel-rpo-gaussian", 1),
    CostMethod("gbrt-relabel-rpo, q = 16", "gbrt-relabel-rpo-gaussian", 16),
)

def loglog_slope(d_values, seconds) -> float:
    """Least-squares slope of log(seconds) against log(d) over the finite, positive points: the
    exponent a of seconds ≈ c · d^a. NaN with fewer than two such points (or a single d)."""
    d = np.asarray(d_values, dtype=np.float64)
    s = np.asarray(seconds, dtype=np.float64)
    if d.shape != s.shape:
        raise ValueError(f"d_values and seconds must have the same shape, got {d.shape} and {s.shape}")
    ok = np.isfinite(d) & np.isfinite(s) & (d > 0) & (s > 0)
    if ok.sum() < 2 or np.ptp(np.log(d[ok])) == 0:
        return float("nan")
    x, y = np.log(d[ok]), np.log(s[ok])
    x = x - x.mean()
    return float(np.dot(x, y - y.mean()) / np.dot(x, x))


def friedman_like(n_samples, n_outputs, n_features, rng):
    """X uniform (n, p); every output is f(x_1..x_5) + N(0, 1) (paper 002's f, group structure)."""
    X = rng.uniform(size=(n_samples, n_features))
    return X, friedman1(X[:, :5])[:, None] + rng.normal(size=(n_samples, n_outputs))


def machine() -> dict:
    """What the numbers were measured on: CPU model, cores, load average, versions, date."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "load_average": _load(), "system": platform.platform(terse=True),
            "python": platform.python_version(), "numpy": np.__version__, "engine": engine_version(),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def _load():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


@dataclass
class CostVsOutputsResult(JsonResult):
    """Seconds per boosting step of every method at every d (NaN where not measured).

    ``seconds[label][i]`` is the median over the timed fits at ``d_values[i]``; ``low`` / ``high``
    the fastest and slowest fit, ``steps`` the steps of each timed fit there. ``settings``: how it
    was measured; ``machine``: where (see :func:`machine`); ``complete``: False after a stop.
    """

    d_values: list
    methods: list
    seconds: dict
    low: dict
    high: dict
    steps: dict
    settings: dict
    machine: dict = field(default_factory=dict)
    complete: bool = True
    elapsed: float = 0.0

    @property
    def labels(self) -> list:
        return [m.label for m in self.methods]

    def method(self, label) -> CostMethod:
        return next(m for m in self.methods if m.label == label)

    def measured(self, label) -> np.ndarray:
        """The d values where ``label`` has a time."""
        return np.asarray(self.d_values)[np.isfinite(self.seconds[label])]

    def slope(self, label, d_min=None) -> float:
        """Fitted log–log slope of ``label``'s curve (over d >= d_min when given)."""
        d = np.asarray(self.d_values, dtype=float)
        s = np.where(d >= (d_min or 0), np.asarray(self.seconds[label], dtype=float), np.nan)
        return loglog_slope(d, s)

    def slopes(self, d_min=None) -> dict:
        return {label: self.slope(label, d_min) for label in self.labels}

    @property
    def upper_half(self):
        """The smallest d of the upper half of the d values (where a cost proportional to d shows)."""
        return int(sorted(self.d_values)[len(self.d_values) // 2])

    def largest_common_d(self, a, b):
        """The largest d where both methods have a time (None if there is none)."""
        both = np.isfinite(self.seconds[a]) & np.isfinite(self.seconds[b])
        return int(np.asarray(self.d_values)[both].max()) if both.any() else None

    def ratio(self, a, b, d=None) -> float:
        """seconds per step of ``a`` / those of ``b`` at ``d`` (default: the largest d both have)."""
        d = self.largest_common_d(a, b) if d is None else d
        if d is None or d not in self.d_values:
            return float("nan")
        i = list(self.d_values).index(d)
        return float(self.seconds[a][i] / self.seconds[b][i])

    def to_frame(self):
        import pandas as pd
        rows = [{"method": m.label, "estimator": m.estimator, "q": m.q, "d": d,
                 "seconds_per_step": self.seconds[m.label][i], "fastest": self.low[m.label][i],
                 "slowest": self.high[m.label][i], "steps_per_fit": self.steps[m.label][i]}
                for m in self.methods for i, d in enumerate(self.d_values)]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {"d_values": [int(d) for d in self.d_values],
                "methods": [{"label": m.label, "estimator": m.estimator, "q": m.q} for m in self.methods],
                **{key: {label: to_list(v) for label, v in getattr(self, key).items()}
                   for key in ("seconds", "low", "high")},
                "steps": {label: [int(k) for k in v] for label, v in self.steps.items()},
                "settings": dict(self.settings), "machine": dict(self.machine), "complete": bool(self.complete),
                "elapsed": float(self.elapsed)}

    @classmethod
    def from_dict(cls, data) -> "CostVsOutputsResult":
        return cls(d_values=[int(d) for d in data["d_values"]],
                   methods=[CostMethod(m["label"], m["estimator"], int(m["q"])) for m in data["methods"]],
                   **{key: {label: from_list(v) for label, v in data[key].items()} for key in ("seconds", "low", "high")},
                   steps={label: [int(k) for k in v] for label, v in data["steps"].items()},
                   settings=dict(data["settings"]), machine=dict(data.get("machine", {})),
                   complete=bool(data.get("complete", True)), elapsed=float(data.get("elapsed", 0.0)))


@dataclass(frozen=True)
class CostSettings:
    """What a measurement times and how, checked when built (a ValueError naming the argument).

    d_values : the numbers of outputs d, at least two distinct integers in [1, 5000] (kept sorted)
    n_samples, n_features : the training rows n (10 to 10**6) and inputs p (5 to 1000) of the data
    max_leaf_nodes : leaves of every tree (2 to 256)
    repeats : timed fits per method and d (1 to 50)
    target_seconds : the CPU seconds a timed fit aims at, in (0, 60]
    min_steps : steps of the untimed warm-up, and of a timed fit at least (1 to 1000)
    methods : the curves, :class:`CostMethod` (default: :data:`METHODS`)

    The defaults are the page's "measure here" run, which must stay a few seconds on a shared
    2-core server (:data:`LIVE_SETTINGS`).
    """

    d_values: tuple = (4, 16, 64, 256, 1000)
    n_samples: int = 1000
    n_features: int = 10
    max_leaf_nodes: int = 8
    repeats: int = 3
    target_seconds: float = 0.03
    min_steps: int = 2
    methods: tuple = METHODS

    def __post_init__(self):
        try:
            d_values = tuple(sorted({int(d) for d in self.d_values}))
        except (TypeError, ValueError):
            raise ValueError(f"d_values must be positive integers, got {self.d_values!r}") from None
        if len(d_values) < 2 or d_values[0] < 1 or d_values[-1] > 5000:
            raise ValueError(f"d_values must hold at least two distinct integers in [1, 5000], got {list(d_values)}")
        object.__setattr__(self, "d_values", d_values)
        for name, low, high in (("n_samples", 10, 10**6), ("n_features", 5, 1000), ("max_leaf_nodes", 2, 256),
                                ("repeats", 1, 50), ("min_steps", 1, 1000)):
            if check_int(getattr(self, name), name, low) > high:
                raise ValueError(f"{name} must be at most {high}, got {getattr(self, name)}")
        check_in_interval(self.target_seconds, "target_seconds", 0.0, 60.0, low_open=True)
        methods = tuple(self.methods) if isinstance(self.methods, (list, tuple)) else ()
        if not methods or not all(isinstance(m, CostMethod) for m in methods):
            raise ValueError(f"methods must be a non-empty sequence of CostMethod, got {self.methods!r}")
        for m in methods:
            make_estimator(m.estimator, n_projections=m.q)   # a ValueError naming a bad estimator name or q
        object.__setattr__(self, "methods", methods)

    def params(self, seed) -> dict:
        """How a result was measured (its ``settings``), with the run's seed."""
        return dict(d_values=list(self.d_values), n_samples=self.n_samples, n_features=self.n_features,
                    max_leaf_nodes=self.max_leaf_nodes, repeats=self.repeats, target_seconds=self.target_seconds,
                    min_steps=self.min_steps, seed=seed, threads=1, data="friedman1-like group")


# The page's "measure here" run and the shipped measurement (regenerated by the command above).
LIVE_SETTINGS = CostSettings()
SHIPPED_SETTINGS = CostSettings(d_values=(4, 8, 16, 32, 64, 128, 256, 512, 1000), n_samples=2000, repeats=5,
                                target_seconds=0.1)


def _time_one(method, X, Y, settings, seed):
    """(median, fastest, slowest) CPU seconds per step and steps per timed fit of one method on (X, Y)."""
    min_steps = settings.min_steps

    def cpu_seconds(k):
        model = make_estimator(method.estimator, n_projections=method.q, n_estimators=k,
                               max_leaf_nodes=settings.max_leaf_nodes, n_jobs=1, random_state=seed)
        started = time.thread_time()
        model.fit(X, Y)
        return time.thread_time() - started

    per_step = max(cpu_seconds(min_steps) / min_steps, 1e-7)      # the warm-up: untimed, an estimate
    k = int(max(min_steps, min(10_000, math.ceil(settings.target_seconds / per_step))))
    per = np.array([cpu_seconds(k) / k for _ in range(settings.repeats)])
    return float(np.median(per)), float(per.min()), float(per.max()), k


def run_cost_vs_outputs(settings=LIVE_SETTINGS, *, seed=0, progress=None, stop=None) -> CostVsOutputsResult:
    """Measure seconds per boosting step of every method at every d (see the module docstring), as
    ``settings`` (a :class:`CostSettings`) say; ``seed`` draws the data and seeds every model.

    d runs from small to large, every method at one d before the next d, so a stop keeps whole
    columns of small d (the result then has ``complete=False`` and NaN where nothing was measured).
    """
    check_kind(settings, "settings", CostSettings)
    check_seed(seed)
    check_callbacks(progress, stop)
    from threadpoolctl import threadpool_limits

    methods, d_values = list(settings.methods), settings.d_values
    n_samples, n_features = settings.n_samples, settings.n_features
    nan = {m.label: np.full(len(d_values), np.nan) for m in methods}
    seconds, low, high = ({k: v.copy() for k, v in nan.items()} for _ in range(3))
    steps = {m.label: [0] * len(d_values) for m in methods}
    runner = Runner(progress, stop, len(d_values) * len(methods))
    about = machine()
    started, complete, done = time.perf_counter(), True, 0
    with threadpool_limits(1):
        for i, d in enumerate(d_values):
            X, Y = friedman_like(n_samples, d, n_features, np.random.default_rng(seed))
            for m in methods:
                if runner.stopped():
                    complete = False
                    break
                runner.report(done, f"d = {d}: {m.label}")
                seconds[m.label][i], low[m.label][i], high[m.label][i], steps[m.label][i] = _time_one(
                    m, X, Y, settings, seed)
                done += 1
            if not complete:
                break
    about["load_average_after"] = _load()
    runner.finish(complete)
    return CostVsOutputsResult(d_values=list(d_values), methods=methods, seconds=seconds, low=low, high=high,
                               steps=steps, settings=settings.params(seed), machine=about, complete=complete,
                               elapsed=time.perf_counter() - started)


def estimate_seconds(reference: CostVsOutputsResult, settings: CostSettings) -> float:
    """The wall-clock seconds of a run with ``settings``, scaled from a finished measurement
    (``reference``, e.g. the shipped one): per method and d, a warm-up of ``min_steps`` steps plus
    ``repeats`` fits of about ``target_seconds`` (longer when ``min_steps`` steps take longer), the
    reference's step time scaled by n_samples / its n; a d it lacks takes the log–log fit of its curve."""
    s = settings
    scale = s.n_samples / reference.settings["n_samples"]
    total = 0.0
    for label in reference.labels:
        d_ref = np.asarray(reference.d_values, dtype=float)
        s_ref = np.asarray(reference.seconds[label], dtype=float)
        ok = np.isfinite(s_ref) & (s_ref > 0)
        if ok.sum() < 2:
            continue
        a, b = np.polyfit(np.log(d_ref[ok]), np.log(s_ref[ok]), 1)
        for d in s.d_values:
            step = float(np.exp(b) * d ** a) * scale
            total += s.min_steps * step + s.repeats * max(s.target_seconds, s.min_steps * step)
    return total * 1.3 + 0.1 * len(s.d_values)   # data generation and model set-up


def load_shipped(path=SHIPPED_PATH) -> CostVsOutputsResult:
    """The measurement shipped with the app (FileNotFoundError naming the command when absent)."""
    path = Path(path)
    if not path.is_file():
        option = "--refresh-shipped" if path == SHIPPED_PATH else f"--out {path}"
        raise FileNotFoundError(f"{path} is missing: python -m engine.experiments.cost_vs_outputs {option}")
    return CostVsOutputsResult.from_json(path.read_text(encoding="utf-8"))


def main(argv=None) -> int:
    """Measure with the shipped settings (or ``--quick``'s small ones) and write the JSON file."""
    parser = argparse.ArgumentParser(prog="python -m engine.experiments.cost_vs_outputs",
                                     description="Seconds per boosting step against the number of outputs d.")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON file to write (default {DEFAULT_OUT})")
    out.add_argument("--refresh-shipped", dest="out", action="store_const", const=SHIPPED_PATH,
                     help=f"overwrite the measurement the app ships ({SHIPPED_PATH.relative_to(SHIPPED_PATH.parents[1])}) "
                          "instead: the Cost page then shows this machine's numbers")
    parser.add_argument("--quick", action="store_true", help="the page's small live settings instead of the shipped ones")
    parser.add_argument("--d-values", type=lambda s: [int(v) for v in s.split(",")], default=None,
                        help="comma-separated d values (default: the settings')")
    parser.add_argument("--n-samples", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    chosen = {key: getattr(args, key) for key in ("d_values", "n_samples", "repeats") if getattr(args, key) is not None}
    try:
        settings = replace(LIVE_SETTINGS if args.quick else SHIPPED_SETTINGS, **chosen)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if SHIPPED_PATH.is_file():
        print(f"expected: about {estimate_seconds(load_shipped(), settings):.0f} s (scaled from the shipped "
              f"measurement); writing {args.out}", file=sys.stderr)
    try:
        result = run_cost_vs_outputs(settings, progress=lambda f, m: print(f"\r{100 * f:5.1f}% {m:<50}", end="",
                                                                            file=sys.stderr))
    except ValueError as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(json.loads(result.to_json()), indent=1) + "\n", encoding="utf-8")
    for label, slope in result.slopes().items():
        print(f"{label:<28} slope {slope:5.2f}   at d = {result.d_values[-1]}: "
              f"{result.seconds[label][-1] * 1e3:8.3f} ms per step")
    print(f"wrote {args.out} ({result.elapsed:.0f} s, load {result.machine['load_average']} -> "
          f"{result.machine['load_average_after']} on {result.machine['cores']} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
