"""Command line: reproduce the papers' figures and tables headless.

    python -m engine reproduce TARGET --out results/TARGET [--quick] [--seed 0] [--budget moderate]
    python -m engine reproduce real-data --out results/real-data --budget quick|moderate|paper
        [--datasets emotions,yeast] [--data-dir DIR] [--methods gbmort,mo-rf] [--no-second-order]
        [--backend joblib|dask [--scheduler ADDRESS]] [--n-jobs N] [--refit | --no-refit]

The targets and what each writes are in :mod:`engine.reports.reproduce`
(every target: ``TARGET.csv``, ``TARGET_summary.csv``, ``TARGET.json`` and one
standalone ``TARGET.html``). ``--quick`` runs the same experiments with small
budgets (seconds each). A text progress bar goes to stderr; the written paths to stdout.
Bad arguments are reported (exit status 2) before any work starts. ``real-data``
keeps its finished cells under ``--out``: the same command resumes a stopped
run, and Ctrl-C stops it cleanly (a second Ctrl-C interrupts at once).
"""

from __future__ import annotations

import argparse
import inspect
import signal
import sys
import threading
import time
from pathlib import Path

from engine.reports.expected import duration_text, expected_text
from engine.reports.reproduce import BUDGET_TARGETS, PROTOCOL_BUDGETS, REPRODUCTIONS, SIZED_TARGETS, SIZES

REAL_DATA_OPTIONS = ("datasets", "data_dir", "methods", "second_order", "backend", "scheduler", "n_jobs")


# --------------------------------------------------------------------------
# Progress bar and output helpers
# --------------------------------------------------------------------------


class TextProgress:
    """``progress(fraction, message)`` drawn as one self-overwriting line on a stream."""

    def __init__(self, stream=None, width=30, min_interval=0.1):
        self.stream = stream if stream is not None else sys.stderr
        self.width, self.min_interval = width, min_interval
        self.last_draw = 0.0
        self.started = time.monotonic()
        self.drawn = False
        self.fraction = 0.0

    def __call__(self, fraction, message=""):
        now = time.monotonic()
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        if self.fraction < 1.0 and now - self.last_draw < self.min_interval:
            return
        self.last_draw = now
        fraction, elapsed = self.fraction, now - self.started
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        # what is left at the pace so far, once there is a pace to go by
        left = f"~{duration_text(elapsed * (1 - fraction) / fraction)} left" if 0.02 <= fraction < 1 else ""
        line = f"\r[{bar}] {100 * fraction:5.1f}% {elapsed:6.1f}s {left:>11}  {message[:56]:<56}"
        self.stream.write(line)
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    rep = commands.add_parser("reproduce", help="reproduce a figure or table of the paper",
                              description="Reproduce a figure or table of the paper; writes CSV, JSON and HTML.")
    rep.add_argument("what", choices=list(REPRODUCTIONS), metavar="WHAT",
                     help="one of: " + ", ".join(REPRODUCTIONS))
    rep.add_argument("--out", required=True, type=Path, help="output directory (created if needed)")
    rep.add_argument("--quick", action="store_true", help="small budgets: seconds instead of minutes")
    rep.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rep.add_argument("--budget", choices=PROTOCOL_BUDGETS,
                     help=f"{' / '.join(BUDGET_TARGETS)} only: the hyper-parameter grid and number of steps; "
                          "'full' (= 'paper'), the default, is the paper's; 'moderate' a smaller grid; "
                          "--quick means 'quick'; for " + " / ".join(SIZED_TARGETS) + ": the size of the "
                          "delicious runs (quick: a slice; moderate: reduced; full: the papers' settings)")
    refit = rep.add_mutually_exclusive_group()
    refit.add_argument("--refit", dest="refit", action="store_true", default=None,
                       help=f"{' / '.join(BUDGET_TARGETS)} only: fit the chosen setting again on the whole "
                            "training set before the test")
    refit.add_argument("--no-refit", dest="refit", action="store_false",
                       help="score the model fitted on the 80%% that chose it (the default of the reproductions: "
                            "it matches the paper's Table 4 better, see engine/experiments/RESULTS.md)")
    study = rep.add_argument_group("real-data only")
    study.add_argument("--datasets", type=_names, help="comma-separated data sets: folders of sample_data/ or of "
                                                       "--data-dir (default: every shipped one of the paper's list, "
                                                       "or every one of --data-dir)")
    study.add_argument("--data-dir", type=Path, help="a folder of your own data sets laid out as sample_data/ "
                                                     "(one sub-folder per data set with its meta.json)")
    study.add_argument("--no-second-order", dest="second_order", action="store_false", default=None,
                       help="leave out the extra rows with Newton leaves (outside the paper's eight methods)")
    study.add_argument("--methods", type=_names, help="comma-separated methods (default: the paper's eight, "
                                                      "and BOOMER's two rows when it is installed)")
    study.add_argument("--backend", help="where the cells run: joblib (default) or dask")
    study.add_argument("--scheduler", help="with --backend dask: the address of a dask.distributed scheduler "
                                           "(default: a local cluster of one worker per core)")
    study.add_argument("--n-jobs", type=int, help="joblib workers (default -1: every core)")
    return parser


def _names(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "reproduce":
        parser.print_help(sys.stderr)
        return 2
    if args.seed < 0:
        parser.error("--seed must be >= 0")
    if args.budget is not None and args.what not in BUDGET_TARGETS + SIZED_TARGETS:
        parser.error(f"--budget only applies to {', '.join(BUDGET_TARGETS + SIZED_TARGETS)}")
    if args.what in SIZED_TARGETS and args.budget not in (None, "paper") + SIZES:
        parser.error(f"--budget for {args.what} must be one of {', '.join(SIZES)} (the run's size)")
    if args.budget is not None and args.quick:
        parser.error("--budget and --quick exclude each other")
    if args.refit is not None and args.what not in BUDGET_TARGETS:
        parser.error(f"--refit / --no-refit only apply to {', '.join(BUDGET_TARGETS)}")
    extra = {"budget": args.budget} if args.budget is not None else {}
    if args.refit is not None:
        extra["refit"] = args.refit
    given = [o for o in REAL_DATA_OPTIONS if getattr(args, o) is not None]
    if given and args.what != "real-data":
        parser.error(f"--{given[0].replace('_', '-')} only applies to real-data")
    cluster = None
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous_handler = signal.getsignal(signal.SIGINT) if in_main_thread else None
    try:
        if args.what == "real-data":
            extra, cluster = _real_data_options(args, extra)
        else:
            try:
                args.out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"--out: cannot write to {str(args.out)!r} ({exc.strerror or exc})") from None
    except ValueError as exc:
        print(f"python -m engine reproduce {args.what}: error: {exc}", file=sys.stderr)
        return 2
    size = "quick" if args.quick else (args.budget or "full")
    print(expected_text(args.what, size, datasets=args.datasets), file=sys.stderr)
    if "stop" in inspect.signature(REPRODUCTIONS[args.what]).parameters:
        extra["stop"] = _stop_on_first_interrupt()
    bar = TextProgress()
    try:
        written = REPRODUCTIONS[args.what](args.out, quick=args.quick, seed=args.seed, progress=bar, **extra)
    except KeyboardInterrupt:
        bar.close()
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if cluster is not None:
            cluster.close()
        if in_main_thread:
            signal.signal(signal.SIGINT, previous_handler)
    stopped = "stop" in extra and extra["stop"].is_set()
    bar(bar.fraction if stopped else 1.0, "stopped" if stopped else "done")
    bar.close()
    if stopped:
        print("stopped: the files below hold what finished (flagged partial); the same command resumes",
              file=sys.stderr)
    for path in written:
        print(path)
    return 0


def _stop_on_first_interrupt():
    """A stop event the first Ctrl-C sets (the target finishes the work in progress, writes what is
    done and keeps it for a second run); a second Ctrl-C interrupts at once."""
    stop = threading.Event()

    def first_interrupt(signum, frame):
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("\nstopping after the work in progress (Ctrl-C again to interrupt at once)", file=sys.stderr)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, first_interrupt)
    return stop


def _real_data_options(args, extra):
    """Check every real-data option before any work (ValueError naming the bad one); the keyword
    arguments of the target, and the local dask cluster started for --backend dask (or None)."""
    from engine.experiments.real_data import RealDataSettings, StudyData, StudyExecution
    budget = extra.get("budget") or ("quick" if args.quick else "paper")
    backend = args.backend or "joblib"
    n_jobs = -1 if args.n_jobs is None else args.n_jobs
    if args.scheduler is not None and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    second_order = args.second_order is not False
    StudyData(args.datasets, args.data_dir)
    RealDataSettings(budget=budget, methods=args.methods, seed=args.seed, second_order=second_order)
    StudyExecution(out=args.out, n_jobs=n_jobs)       # its dask cluster, if any, is started below
    client = cluster = None
    if backend == "dask":
        from distributed import Client, LocalCluster
        if args.scheduler is not None:
            client = Client(args.scheduler)
        else:
            cluster = LocalCluster(n_workers=n_jobs if n_jobs > 0 else None, threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
    return dict(extra, datasets=args.datasets, methods=args.methods, backend=backend, n_jobs=n_jobs,
                client=client, data_dir=args.data_dir, second_order=second_order), cluster


if __name__ == "__main__":
    sys.exit(main())
