"""Command line: reproduce the papers' figures and tables headless.

    python -m engine reproduce TARGET --out results/TARGET [--quick] [--seed 0] [--budget moderate]

The targets and what each writes are in :mod:`engine.experiments.reproduce`
(every target: ``TARGET.csv``, ``TARGET_summary.csv``, ``TARGET.json`` and one
standalone ``TARGET.html``). ``--quick`` runs the same experiments with small
budgets (seconds each). A text progress bar goes to stderr; the written paths to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.experiments.reproduce import BUDGET_TARGETS, PROTOCOL_BUDGETS, REPRODUCTIONS


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

    def __call__(self, fraction, message=""):
        now = time.monotonic()
        if fraction < 1.0 and now - self.last_draw < self.min_interval:
            return
        self.last_draw = now
        fraction = min(max(float(fraction), 0.0), 1.0)
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        line = f"\r[{bar}] {100 * fraction:5.1f}% {now - self.started:6.1f}s  {message[:60]:<60}"
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
                          "'full', the default, is the paper's (days on one 2-core machine); "
                          "'moderate' a smaller grid (about half an hour); --quick means 'quick'")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "reproduce":
        parser.print_help(sys.stderr)
        return 2
    if args.seed < 0:
        parser.error("--seed must be >= 0")
    if args.budget is not None and args.what not in BUDGET_TARGETS:
        parser.error(f"--budget only applies to {', '.join(BUDGET_TARGETS)}")
    if args.budget is not None and args.quick:
        parser.error("--budget and --quick exclude each other")
    args.out.mkdir(parents=True, exist_ok=True)
    bar = TextProgress()
    try:
        extra = {"budget": args.budget} if args.budget is not None else {}
        written = REPRODUCTIONS[args.what](args.out, quick=args.quick, seed=args.seed, progress=bar, **extra)
    except KeyboardInterrupt:
        bar.close()
        print("interrupted", file=sys.stderr)
        return 130
    bar(1.0, "done")
    bar.close()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
