"""Command line: reproduce the paper's figures and tables headless.

    python -m engine reproduce figure1 --out results/ [--quick] [--seed 0]

Subcommands of ``reproduce`` (the registry ``REPRODUCTIONS``, name -> function
``(out_dir, quick, seed, progress) -> list of written paths``):

figure1          Figure 1: st-gbrt, gbmort, gbrt-rpo-subsampled and artificial-gbrt on
                 friedman1-chain / -group / -ind (300 train, 4000 test, d = 16), learning
                 rate 0.1, stumps, square loss, 10000 steps each. As in the paper, st-gbrt
                 gets the same number of steps, i.e. 10000 trees per output (16 times more
                 trees); the curves are drawn against trees per output and fit time.
projection-size  Figures 5-6: gbrt-relabel-rpo with q Gaussian projections / q sub-sampled
                 outputs against gbmort. The paper uses delicious (983 labels), which is not
                 shipped; cal500 (174 labels, the widest shipped label set) stands in for it.
                 Also friedman1-group with Gaussian projections.
schemes          Figures 2-4: gbrt-rpo with each projection scheme on friedman1-ind (Fig. 4)
                 and on yeast (stand-in for mediamill / delicious, not shipped).
table4, table6, bias-variance
                 Provided by engine.model_selection / engine.bias_variance.
forest-table1    Paper 003, Table 1: LRAP of mo-rf and of forests on Gaussian projections
                 (q = 1, ln d, d) on the shipped multi-label sets (engine.forest_experiments).

``--quick`` runs the same experiments with small budgets (a few seconds each). Each
subcommand writes, into ``--out``: one CSV (long format) and one JSON file per run, a
summary CSV, and one standalone HTML page with all its figures (plotly's JavaScript
bundle is embedded once, so the page opens offline). A text progress bar goes to stderr.
"""

from __future__ import annotations

import argparse
import html
import importlib
import sys
import time
from pathlib import Path

import pandas as pd

from engine import experiments, plotting

FIGURE1_ESTIMATORS = ("st-gbrt", "gbmort", "gbrt-rpo-subsampled", "artificial-gbrt")
PROTOCOL_BUDGETS = ("quick", "moderate", "full")   # engine.model_selection budgets


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


def _part(progress, i, n):
    """Progress of sub-run i of n, mapped onto the whole command."""
    return lambda fraction, message: progress((i + fraction) / n, message)


def _write_result(out_dir, stem, result, written):
    csv_path = out_dir / f"{stem}.csv"
    result.to_frame().to_csv(csv_path, index=False)
    json_path = out_dir / f"{stem}.json"
    json_path.write_text(result.to_json(), encoding="utf-8")
    written += [csv_path, json_path]


def write_report(path, title, sections):
    """One standalone HTML page: sections of (heading, [figures], [DataFrames], [notes]).

    plotly's JavaScript bundle is embedded once (with the first figure), so the page
    opens offline.
    """
    parts, first = [], True
    for heading, figures, tables, notes in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        for note in notes:
            parts.append(f"<p class='note'>{html.escape(note)}</p>")
        for fig in figures:
            parts.append(fig.to_html(full_html=False, include_plotlyjs=True if first else False))
            first = False
        for table in tables:
            parts.append(table.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="",
                                       border=0, classes="summary"))
    page = (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}"
        "table.summary{border-collapse:collapse;margin:0.5em 0 2em}"
        "table.summary td,table.summary th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
        ".note{color:#555;font-size:90%}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>" + "\n".join(parts) + "</body></html>\n"
    )
    Path(path).write_text(page, encoding="utf-8")
    return Path(path)


# --------------------------------------------------------------------------
# Reproductions
# --------------------------------------------------------------------------


def reproduce_figure1(out_dir, quick, seed, progress):
    """Figure 1 on the three Friedman1 problems."""
    n_steps, n_test = (200, 1000) if quick else (10_000, 4000)
    written, sections, summaries = [], [], []
    problems = experiments.FRIEDMAN_PROBLEMS
    for i, dataset in enumerate(problems):
        result = experiments.run_convergence(
            dataset, list(FIGURE1_ESTIMATORS), n_steps=n_steps, learning_rate=0.1, max_leaf_nodes=2,
            n_train=300, n_test=n_test, n_outputs=16, seed=seed, progress=_part(progress, i, len(problems)))
        _write_result(out_dir, f"figure1_{dataset}", result, written)
        summary = result.summary_frame(reach=0.75)
        summary.insert(0, "dataset", dataset)
        summaries.append(summary)
        sections.append((f"Figure 1: {dataset}", [plotting.convergence_panels(result, show_train=True)],
                         [summary], result.notes))
    summary_path = out_dir / "figure1_summary.csv"
    pd.concat(summaries, ignore_index=True).to_csv(summary_path, index=False)
    written.append(summary_path)
    title = f"Figure 1: convergence on friedman1 chain / group / ind ({n_steps} steps, lr 0.1, stumps, seed {seed})"
    written.append(write_report(out_dir / "figure1.html", title, sections))
    return written


def reproduce_projection_size(out_dir, quick, seed, progress):
    """Figures 5-6: gbrt-relabel-rpo with q projections against gbmort."""
    if quick:
        runs = [("cal500", "gaussian", (1, 20, 174), 30, {})]
    else:
        runs = [("cal500", "gaussian", (1, 2, 5, 10, 20, 50, 100, 174), 300, {}),
                ("cal500", "subsample", (1, 2, 5, 10, 20, 50, 100, 174), 300, {}),
                ("friedman1-group", "gaussian", (1, 2, 4, 8, 16, 32, 64), 1000, {"n_test": 4000})]
    written, sections, summaries = [], [], []
    for i, (dataset, projection, q_values, n_steps, extra) in enumerate(runs):
        result = experiments.run_projection_size(
            dataset, q_values=q_values, projection=projection, n_steps=n_steps, learning_rate=0.1,
            max_leaf_nodes=2, seed=seed, progress=_part(progress, i, len(runs)), **extra)
        _write_result(out_dir, f"projection-size_{dataset}_{projection}", result, written)
        summaries.append(result.to_frame().assign(projection=projection))
        sections.append((f"{dataset}, {projection} projections",
                         [plotting.projection_size_figure(result), plotting.projection_size_curves_figure(result)],
                         [result.to_frame()], result.notes))
    summary_path = out_dir / "projection-size_summary.csv"
    pd.concat(summaries, ignore_index=True).to_csv(summary_path, index=False)
    written.append(summary_path)
    title = f"Figures 5-6: effect of the number of projections q (seed {seed})"
    written.append(write_report(out_dir / "projection-size.html", title, sections))
    return written


def reproduce_schemes(out_dir, quick, seed, progress):
    """Figures 2-4: gbrt-rpo with each random projection scheme."""
    if quick:
        runs = [("friedman1-ind", 300, {"n_test": 1000}), ("yeast", 100, {})]
    else:
        runs = [("friedman1-ind", 10_000, {"n_test": 4000}), ("yeast", 3000, {})]
    written, sections, summaries = [], [], []
    for i, (dataset, n_steps, extra) in enumerate(runs):
        result = experiments.run_projection_schemes(
            dataset, n_steps=n_steps, learning_rate=0.1, max_leaf_nodes=2, seed=seed,
            progress=_part(progress, i, len(runs)), **extra)
        _write_result(out_dir, f"schemes_{dataset}", result, written)
        summary = result.summary_frame()
        summary.insert(0, "dataset", dataset)
        summaries.append(summary)
        sections.append((f"{dataset}: gbrt-rpo per projection scheme",
                         [plotting.schemes_figure(result), plotting.schemes_figure(result, x="fit_time")],
                         [summary], result.notes))
    summary_path = out_dir / "schemes_summary.csv"
    pd.concat(summaries, ignore_index=True).to_csv(summary_path, index=False)
    written.append(summary_path)
    title = f"Figures 2-4: random projection schemes with gbrt-rpo (seed {seed})"
    written.append(write_report(out_dir / "schemes.html", title, sections))
    return written


class MissingReproduction(RuntimeError):
    """A registered reproduction whose module is not available."""


def _lazy(module, function):
    def run(out_dir, quick, seed, progress, **options):
        try:
            target = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as exc:
            raise MissingReproduction(f"{module}.{function} is not available ({exc})") from None
        return target(out_dir, quick, seed, progress, **options)
    run.__doc__ = f"Provided by {module}.{function}."
    return run


REPRODUCTIONS = {
    "figure1": reproduce_figure1,
    "projection-size": reproduce_projection_size,
    "schemes": reproduce_schemes,
    "table4": _lazy("engine.model_selection", "reproduce_table4"),
    "table6": _lazy("engine.model_selection", "reproduce_table6"),
    "bias-variance": _lazy("engine.bias_variance", "reproduce_bias_variance"),
    "forest-table1": _lazy("engine.forest_experiments", "reproduce_forest_table1"),
}


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
                     help="table4 / table6 only: the hyper-parameter grid and number of steps; "
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
    if args.budget is not None and args.what not in ("table4", "table6"):
        parser.error("--budget only applies to table4 and table6")
    if args.budget is not None and args.quick:
        parser.error("--budget and --quick exclude each other")
    args.out.mkdir(parents=True, exist_ok=True)
    bar = TextProgress()
    try:
        extra = {"budget": args.budget} if args.budget is not None else {}
        written = REPRODUCTIONS[args.what](args.out, args.quick, args.seed, bar, **extra)
    except MissingReproduction as exc:
        bar.close()
        print(f"error: {args.what}: {exc}", file=sys.stderr)
        return 2
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
