"""The reproductions' one output convention: CSV, JSON and a standalone HTML page per target.

:class:`Report` collects the runs of one target and writes ``<target>.csv`` (every
row, with a ``run`` column), ``<target>_summary.csv``, ``<target>.json`` and
``<target>.html`` (:func:`write_html_report`: plotly's JavaScript embedded once,
so the page opens offline).
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import pandas as pd

from engine.experiments.runner import jsonable

__all__ = ["Report", "write_html_report"]


def write_html_report(path, title, sections):
    """One standalone HTML page: sections of (heading, [figures], [DataFrames], [notes]).

    plotly's JavaScript bundle is embedded once (with the first figure), so the page
    opens offline.
    """
    parts, first = [], True
    for heading, figures, tables, notes in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        for note in notes:
            parts.append(f"<p class='note'>{html.escape(str(note))}</p>")
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


class Report:
    """The files of one target: collect runs, then :meth:`write` them the one way.

    ``add(run, result, heading, figures, tables)``: ``result`` has ``to_frame()``
    and ``to_dict()``; its rows go to ``<target>.csv`` (with a ``run`` column),
    its dict to ``<target>.json``, its figures and tables to ``<target>.html``.
    """

    def __init__(self, target, title):
        self.target, self.title = target, title
        self.results, self.frames, self.sections = {}, [], []

    def add(self, run, result, heading, figures=(), tables=(), notes=None):
        self.results[run] = result
        frame = result.to_frame()
        frame.insert(0, "run", run)
        self.frames.append(frame)
        self.sections.append((heading, list(figures), list(tables),
                              list(getattr(result, "notes", []) if notes is None else notes)))

    def write(self, out_dir, summary, *, extra_csv=None, extra_text=None, settings=None):
        """Write the files; ``summary`` is the DataFrame of ``<target>_summary.csv``.

        ``extra_csv`` {what: DataFrame} -> ``<target>_<what>.csv``; ``extra_text``
        {suffix: text} -> ``<target><suffix>``; ``settings`` goes into the JSON.
        Returns the written paths (summary first).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = out / self.target
        paths = [stem.with_name(f"{self.target}_summary.csv"), stem.with_suffix(".csv"),
                 stem.with_suffix(".json"), stem.with_suffix(".html")]
        summary.to_csv(paths[0], index=False)
        pd.concat(self.frames, ignore_index=True).to_csv(paths[1], index=False)
        payload = {"target": self.target, "title": self.title, "settings": settings or {},
                   "results": {run: r.to_dict() for run, r in self.results.items()}}
        paths[2].write_text(json.dumps(jsonable(payload)), encoding="utf-8")
        write_html_report(paths[3], self.title, self.sections + [("Summary", [], [summary], [])])
        for what, frame in (extra_csv or {}).items():
            path = stem.with_name(f"{self.target}_{what}.csv")
            frame.to_csv(path)
            paths.append(path)
        for suffix, text in (extra_text or {}).items():
            path = stem.with_name(f"{self.target}{suffix}")
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        return paths
