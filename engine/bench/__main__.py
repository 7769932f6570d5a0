"""Command line of the benchmarks.

    python -m engine.bench [--trees 2000] [--repeats 3] [--quick] [--missing-only]
    python -m engine.bench --scale [--steps 50] [--repeats 1]
    python -m engine.bench --interactions [--repeats 3]
    python -m engine.bench --pages
    python -m engine.bench --gil [--repeats 1]
    python -m engine.bench --multilabel [--quick] [--out DIR] [--datasets bibtex corel5k delicious scm20d]
    python -m engine.bench --logistic-step [--repeats 3]
    python -m engine.bench --defaults [--quick]
    python -m engine.bench --step-breakdown [--quick] [--steps 10] [--repeats 2] [--out DIR]
    python -m engine.bench --extreme [--quick] [--datasets bibtex corel5k delicious]

The default run is :mod:`engine.bench.teaching` (exit status 1 when single-output
st-gbrt departs from scikit-learn or a missing-targets ratio falls below its
target); ``--scale`` runs :mod:`engine.bench.scale` instead, ``--interactions``
:mod:`engine.bench.one_step` (the teaching interactions against their 1 s target),
``--pages`` :mod:`engine.bench.first_views` (every page's and preset's first view on a fresh
server, cold and warm; exit status 1 above 5 s warm) then :mod:`engine.bench.pages` (the cost
pages' default views: q = 1 against the unprojected reference, exit status 1 above 1/3), ``--gil`` :mod:`engine.bench.gil` (those
runs beside a busy Python thread), ``--multilabel``
:mod:`engine.bench.multilabel` (time to accuracy next to XGBoost, and "defaults against
defaults": each system's default fit; ``--quick`` then fits a small slice, ``--out DIR`` writes its figure), ``--logistic-step``
:mod:`engine.bench.logistic_step` (a logistic step against a square step, exit status 1
above 1.5), ``--defaults`` :mod:`engine.bench.defaults` (the estimators' defaults: the study, and
defaults against XGBoost's, CatBoost's and LightGBM's; exit status 1 when a target is missed;
then :mod:`engine.bench.defaults_peers`, the 24 shipped sets against XGBoost's and LightGBM's
defaults, each cell cached under results/defaults/ so a stopped run resumes),
``--step-breakdown`` :mod:`engine.bench.step_breakdown` (where a step's time goes on delicious,
and Figure 6's time claim), ``--extreme`` :mod:`engine.bench.extreme` (the default fit against
napkinXC's PLT and Omikuji on bibtex, corel5k and delicious: P@k, nDCG@5, LRAP, cross-entropy,
process CPU seconds; also a section of ``--multilabel``).

A class of browser sessions on one server is a test tool (it drives Chromium through Playwright,
a test extra): ``python tests/load/classroom.py`` from the repository's root, with the options
``--classroom`` had here.
"""
import argparse
import importlib.util
import sys

from engine.bench import (defaults, defaults_peers, extreme, first_views, gil, logistic_step, multilabel,
                          one_step, pages, scale, step_breakdown, teaching)

CLASSROOM_MOVED = ("--classroom moved to the tests (it drives Chromium through Playwright, a test extra): "
                   "run `python tests/load/classroom.py --help` from the repository's root; same options, same output")


# What --quick leaves out, per mode (printed first: a quick run's numbers must not pass for the
# benchmark's). Every --quick ends within 3 minutes on 2 cores (tests/experiments/test_quick_commands.py).
QUICK_CUTS = {
    "teaching": "320 engine trees (the benchmark: 2 000), 160 scikit-learn trees (1 000), 4-tree forests (20), "
                "a 10-tree compressed forest (100) with 3-fold CV (10), one repeat (3)",
    "scale": "Friedman1-like n = 2 000 and 20 000 (to 100 000), d = 16 (and 128), bibtex only, its first 2 000 "
             "rows, 10 steps (50); threads at n = 20 000 (100 000), accuracy at n = 5 000 with 50 steps (20 000, 200)",
    "multilabel": "300 training rows, 200 test rows, 20 labels, 5 steps at learning rate 0.3 (the grid: up to 300), "
                  "peers 5 rounds (100), the default fits stopped at 20 s",
    "defaults": "the first 300 rows of three data sets (every shipped one), two candidates, bibtex only against "
                "the peers, 20 labels, peers stopped at 20 s (1 800 s)",
    "step-breakdown": "delicious's first 1 000 rows and 100 labels (12 920, 983), 3 steps (10), one repeat (2), "
                      "Figure 6 at 10 steps (100)",
    "interactions": "one repeat (the best of 3)",
    "logistic-step": "bibtex only (and corel5k), 10 steps (30), one repeat (3)",
    "gil": "the Projections page's run only (and the Forests page's), the server's switch interval only (and "
           "Python's 5 ms)",
    "extreme": "300 training rows, 200 test rows, the 20 most frequent labels of each set (the benchmark: "
               "every row and label)",
    "pages": "only the cost pages' q = 1 against the reference, no first views (every page's default run on a "
             "fresh server took more than 6 CPU minutes cold; the warm ones wait for the start-up fill)",
}
# What a full run of each mode costs on this project's shared 2-core machine (issue 45's runs and
# engine/bench/RESULTS.md), said before it starts; None: not measured here.
EXPECTED = {"teaching": "about 2 min", "scale": "more than 10 min", "multilabel": "more than 10 min",
            "defaults": "more than 10 min (each peer's default fit may take its 1 800 s budget)",
            "pages": "about 20 min (the warm views wait for the start-up fill, about 18 min)",
            "step-breakdown": None, "interactions": None, "logistic-step": None, "gil": None, "extreme": None}


def expected_text(mode, quick):
    """The line printed before a run: its expected time, and with --quick what it leaves out."""
    if quick:
        return f"expected: within 3 min on 2 cores\n--quick: {QUICK_CUTS[mode]}"
    return f"expected: {EXPECTED[mode] or 'not measured here'} (a shared 2-core machine; --quick: within 3 min)"


# The peers a mode races that the app does not install (the bench extra): refused before any work,
# instead of a table of "not installed" rows minutes later.
BENCH_EXTRA_PEERS = {"scale": ("lightgbm",), "multilabel": ("lightgbm", "napkinxc", "omikuji"),
                     "defaults": ("catboost", "lightgbm"), "extreme": ("napkinxc", "omikuji")}


def missing_bench_extra(mode):
    """The error message when ``mode`` needs a peer of the bench extra that is not installed, else None."""
    missing = [name for name in BENCH_EXTRA_PEERS.get(mode, ()) if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (f"--{mode} races {' and '.join(missing)}, not installed: install the bench extra first, "
            "`python -m pip install -e \".[bench]\"` from the repository's root")


def build_parser():
    """The command line: one flag per benchmark (none: the teaching benchmark) and their sizes."""
    parser = argparse.ArgumentParser(prog="python -m engine.bench",
                                     description="Speed of the engine next to its peers, measured in one run. "
                                                 "The results are tables printed on stdout (progress on stderr); "
                                                 "only --multilabel and --step-breakdown also write files, "
                                                 "and only when given --out DIR.")
    parser.add_argument("--trees", type=int, default=2000, help="trees per engine fit (default 2000)")
    parser.add_argument("--sklearn-trees", type=int, default=1000,
                        help="trees per scikit-learn fit (default 1000)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="best of this many fits (default 3; 1 with --scale)")
    parser.add_argument("--forest-trees", type=int, default=20,
                        help="trees per forest fit (default 20)")
    parser.add_argument("--compression-trees", type=int, default=100,
                        help="trees of the compressed forest (default 100, the thesis's M)")
    parser.add_argument("--quick", action="store_true",
                        help="every mode: a smoke run within 3 minutes on 2 cores (fewer trees, steps, rows, labels "
                             "or repeats); it says first what it leaves out")
    parser.add_argument("--missing-only", action="store_true",
                        help="only the missing-targets comparison (no timings)")
    parser.add_argument("--scale", action="store_true",
                        help="the research-size benchmark (engine.bench.scale) instead")
    parser.add_argument("--steps", type=int, default=50, help="--scale: boosting steps per fit (default 50)")
    parser.add_argument("--interactions", action="store_true",
                        help="time the One step page's interactions and the tree strip (engine.bench.one_step)")
    parser.add_argument("--gil", action="store_true",
                        help="the cost pages' default runs beside a busy Python thread, at GIL switch intervals of "
                        "5 and 0.1 ms (engine.bench.gil) instead")
    parser.add_argument("--pages", action="store_true",
                        help="first views of every page and preset on a fresh server, cold and warm "
                        "(engine.bench.first_views), then the cost pages' q = 1 against the reference (engine.bench.pages)")
    parser.add_argument("--multilabel", action="store_true",
                        help="time to accuracy on bibtex, corel5k, delicious and scm20d next to XGBoost, "
                             "and each system's default fit (engine.bench.multilabel) instead")
    parser.add_argument("--logistic-step", action="store_true",
                        help="a logistic-loss step against a square-loss step on bibtex and corel5k "
                             "(engine.bench.logistic_step) instead")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="only --multilabel and --step-breakdown (the other modes print to stdout only): "
                             "--multilabel: write the score-against-seconds figure to DIR/multilabel.html; "
                             "--step-breakdown: write DIR/step_breakdown_delicious.json")
    parser.add_argument("--datasets", nargs="+", default=list(multilabel.DATASETS),
                        choices=multilabel.DATASETS, help="--multilabel: the data sets (default: all four)")
    parser.add_argument("--defaults", action="store_true",
                        help="the defaults study and defaults against defaults (engine.bench.defaults) instead")
    parser.add_argument("--step-breakdown", action="store_true",
                        help="where a boosting step's time goes on delicious, and Figure 6's time claim "
                             "(engine.bench.step_breakdown; --steps default 10 there) instead")
    parser.add_argument("--extreme", action="store_true",
                        help="the default fit against napkinXC's PLT and Omikuji (Parabel, Bonsai) on bibtex, "
                             "corel5k and delicious: precision at k, process CPU seconds (engine.bench.extreme)")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--classroom" in argv:
        print(CLASSROOM_MOVED, file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    if sum((args.scale, args.multilabel, args.logistic_step, args.interactions, args.pages, args.gil,
            args.defaults, args.step_breakdown, args.extreme)) > 1:
        parser.error("--scale, --multilabel, --logistic-step, --interactions, --pages, --gil, --defaults, "
                     "--step-breakdown and --extreme are separate benchmarks: choose one")
    mode = next((m for m in QUICK_CUTS if m != "teaching" and getattr(args, m.replace("-", "_"))), "teaching")
    print(expected_text(mode, args.quick), file=sys.stderr, flush=True)
    for extra_mode in BENCH_EXTRA_PEERS:
        message = missing_bench_extra(extra_mode) if getattr(args, extra_mode) else None
        if message:
            print(f"python -m engine.bench: error: {message}", file=sys.stderr)
            return 2
    return run_teaching(args, parser) if mode == "teaching" else run_mode(mode, args, parser, argv)


def run_mode(mode, args, parser, argv):
    """One of the separate benchmarks (every mode but the teaching one); its exit status."""
    if mode == "extreme":
        chosen = "--datasets" in argv
        names = tuple(args.datasets) if chosen else extreme.DATASETS
        wrong = [name for name in names if name not in extreme.DATASETS]
        if wrong:
            parser.error(f"--extreme runs on {', '.join(extreme.DATASETS)} (multi-label), not {', '.join(wrong)}")
        extreme.run(datasets=names, quick=args.quick)
        return 0
    if mode == "step-breakdown":
        steps = 10 if "--steps" not in argv else args.steps
        if steps < 1 or (args.repeats is not None and args.repeats < 1):
            parser.error("--steps and --repeats must be >= 1")
        step_breakdown.run(steps=steps, repeats=args.repeats or 2, quick=args.quick, out_dir=args.out)
        return 0
    if mode == "defaults":      # then the 24 sets against XGBoost and LightGBM, cached cell by cell
        return defaults.run(quick=args.quick) | (0 if args.quick else defaults_peers.run())
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if mode == "interactions":
        return 0 if one_step.run(repeats=args.repeats or (1 if args.quick else 3))[1] else 1
    if mode == "gil":
        gil.run(repeats=args.repeats or 1, **(dict(intervals=gil.INTERVALS[1:], runs=("Projections",))
                                              if args.quick else {}))
        return 0
    if mode == "pages":
        return pages.run() if args.quick else first_views.run() | pages.run()
    if mode == "logistic-step":
        quick = dict(datasets=logistic_step.DATASETS[:1], steps=10) if args.quick else {}
        return 0 if logistic_step.run(repeats=args.repeats or (1 if args.quick else 3), **quick)[1] else 1
    if mode == "multilabel":
        multilabel.run(datasets=tuple(args.datasets), quick=args.quick, html_dir=args.out)
        return 0
    if mode == "scale":
        if args.steps < 1:
            parser.error("--steps and --repeats must be >= 1")
        quick = dict(sizes=(2_000, 20_000), outputs=(16,), datasets=("bibtex",), dataset_rows=2_000,
                     threads_n=20_000, accuracy_n=5_000, accuracy_steps=50) if args.quick else {}
        steps = 10 if args.quick and "--steps" not in argv else args.steps
        scale.run(steps=steps, repeats=args.repeats or 1, **quick)
        return 0
    raise AssertionError(f"no benchmark {mode!r}")     # QUICK_CUTS names every mode


def run_teaching(args, parser):
    """The default benchmark (engine.bench.teaching); exit status 1 when single-output st-gbrt
    departs from scikit-learn or a missing-targets ratio falls below its target."""
    args.repeats = 3 if args.repeats is None else args.repeats
    if args.quick:
        args.trees, args.sklearn_trees, args.repeats, args.forest_trees = 320, 160, 1, 4
        args.compression_trees = 10
    for name in ("trees", "sklearn_trees", "repeats", "forest_trees", "compression_trees"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    status = 0
    if not args.missing_only:
        _, diff = teaching.run(args.trees, args.sklearn_trees, args.repeats)
        teaching.run_forests(args.forest_trees, args.repeats)
        teaching.run_compression(args.compression_trees, args.repeats, cv=3 if args.quick else 10)
        if not diff <= teaching.MAX_SINGLE_OUTPUT_DIFF:
            print(f"FAILED: single-output st-gbrt differs from GradientBoostingRegressor by {diff:.1e} "
                  f"(> {teaching.MAX_SINGLE_OUTPUT_DIFF:.0e})", file=sys.stderr)
            status = 1
    for name, _, _, ratio in teaching.run_missing_targets():
        if not ratio >= teaching.MIN_MISSING_RATIO:
            print(f"FAILED: {name} with {teaching.MISSING_FRACTION:.0%} of Y missing keeps {ratio:.3f} of the "
                  f"full-Y macro-r2 (< {teaching.MIN_MISSING_RATIO})", file=sys.stderr)
            status = 1
    return status


def interruptible_main(argv=None):
    """``main``, where Ctrl-C ends the run with the tables printed so far (each is printed whole as
    soon as it is measured; --out files are written as their parts finish) and no traceback."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("\ninterrupted: the tables printed above are complete; the one in progress is lost", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(interruptible_main())
