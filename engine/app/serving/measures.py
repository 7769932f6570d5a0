"""What the server measured of its own runs, for its estimates (no streamlit).

A page estimates a run before it starts (a cost model, or the CPU time of a tiny probe fit: the
seconds of one core on an idle machine) and says it as a range: "≈ 12 s, up to 30 s now". Both
ends come from what this server measured, never from the machine's load average (a load made of
nice-19 work, such as the start-up fill or another user's study, barely slows a run of the
server, which runs at normal priority; issue 43 saw "up to 39 min" for runs that took 5-15 s):

* **the estimate** is the page's cost times the page's own calibration: the median ratio of
  measured CPU seconds to estimate over the last ``KEEP`` runs of that page that computed here or
  in the start-up fill (which records its runs in the cache folder, ``measures.jsonl``); 1 before
  any, and only runs with an estimate of at least ``MIN_ESTIMATE`` seconds count;
* **the "up to"** multiplies it by the slowdown of the runs that ended in the last
  ``SLOWDOWN_WINDOW`` seconds (their wall time over their CPU time: how much the server's own
  sharing of cores costs now) and adds the wait in the queue (the run store's part).

A run that waited for another process's computation (the fill's) measured a wait, not a
computation: it is never recorded (it made the earlier "14.6× their CPU time"); nor does a run whose
measured CPU is a small share of its wall time (a forest grows its trees in threads of its own, which
its run's thread does not measure: 0.25 s of CPU in a 46 s run). The fill, one run at a time per
process, records the process's CPU during each run instead.
"""
from __future__ import annotations

import json
import statistics
import threading
from pathlib import Path

__all__ = ["Measures", "SLOWDOWN_WINDOW", "KEEP", "MIN_ESTIMATE", "CALIBRATION_RANGE", "read_records",
           "append_record"]

SLOWDOWN_WINDOW = 120.0     # seconds a finished run's wall/CPU ratio counts for the "up to"
KEEP = 10                   # runs of a page its calibration is the median of
MIN_ESTIMATE = 0.5          # seconds: a shorter estimate's ratio is mostly noise
MIN_CPU = 0.2               # seconds of CPU below which a run's wall/CPU ratio is noise
# A run whose measured CPU is under this share of its wall time computed elsewhere (a forest's trees grow
# in threads of their own, so its run's thread measures almost nothing): neither a slowdown nor a calibration.
MIN_CPU_SHARE = 0.1
CALIBRATION_RANGE = (0.05, 20.0)   # a page's calibration never leaves this range
RECORDS = "measures.jsonl"


def append_record(folder: Path, page: str, estimate: float, elapsed: float, cpu: float) -> None:
    """One line of the fill's measures: the page, its estimate, the run's wall and CPU seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"page": page, "estimate": float(estimate), "elapsed": float(elapsed), "cpu": float(cpu)})
    with open(folder / RECORDS, "a") as f:
        f.write(line + "\n")


def read_records(folder: Path) -> list[dict]:
    """The fill's measures (a damaged line is skipped)."""
    out = []
    try:
        lines = (folder / RECORDS).read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            rec = json.loads(line)
            out.append({k: (str(rec[k]) if k == "page" else float(rec[k])) for k in ("page", "estimate", "elapsed", "cpu")})
        except (ValueError, KeyError, TypeError):
            continue
    return out


def _counts(wall: float, cpu: float) -> bool:
    """Whether a run's CPU seconds measure its computation (enough of them, and most of it in the thread
    measured)."""
    return cpu > MIN_CPU and cpu >= MIN_CPU_SHARE * wall


class Measures:
    """The server's measured runs: ``add`` one as it ends; ``calibration(page)``, ``slowdown(now)``
    and ``typical()`` for the estimates. ``folder``: where the fill records its runs (or None)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._runs: list[tuple[str, float | None, float, float, float]] = []   # page, estimate, wall, cpu, when
        self._disk: tuple[float, list[dict]] = (-1.0, [])                     # (mtime, records)

    def add(self, page: str, estimate: float | None, elapsed: float, cpu: float, when: float) -> None:
        with self._lock:
            self._runs = (self._runs + [(page, estimate, float(elapsed), float(cpu), float(when))])[-200:]

    def _fill_records(self) -> list[dict]:
        if self.folder is None:
            return []
        try:
            mtime = (self.folder / RECORDS).stat().st_mtime
        except OSError:
            return []
        if mtime != self._disk[0]:
            self._disk = (mtime, read_records(self.folder))
        return self._disk[1]

    def calibration(self, page: str | None) -> float:
        """Measured CPU seconds per estimated second of ``page``'s recent runs (1 before any)."""
        if not page:
            return 1.0
        with self._lock:
            own = [(e, c) for p, e, w, c, _ in self._runs if p == page and e and e >= MIN_ESTIMATE and _counts(w, c)]
            disk = [(r["estimate"], r["cpu"]) for r in self._fill_records()
                    if r["page"] == page and r["estimate"] >= MIN_ESTIMATE and _counts(r["elapsed"], r["cpu"])]
        ratios = [c / e for e, c in (disk + own)[-KEEP:]]
        if not ratios:
            return 1.0
        low, high = CALIBRATION_RANGE
        return min(high, max(low, statistics.median(ratios)))

    def slowdown(self, now: float) -> float:
        """Wall time per CPU second of the runs that ended in the last SLOWDOWN_WINDOW seconds (1 when
        none, never below 1)."""
        with self._lock:
            recent = [w / c for _, _, w, c, t in self._runs if now - t <= SLOWDOWN_WINDOW and _counts(w, c)]
        return max(1.0, statistics.median(recent)) if recent else 1.0

    def typical(self, default: float) -> float:
        """The median wall time of the last 20 runs (``default`` before any): a queued run without an
        estimate counts this long in a wait."""
        with self._lock:
            walls = [w for _, _, w, _, _ in self._runs[-20:]]
        return statistics.median(walls) if walls else default
