"""The first views a class opens, in one list: what the server's start-up fill computes in advance.

Every registered page's default view (no query parameter), then every Home preset
(:data:`engine.app.page_content.presets.PRESETS`, read when the list is made: a preset added or
changed there is covered with nothing to change here), then :data:`MORE_VIEWS`, views one click
from a default that measured slow (issue 31). The start-up fill (``pages/_warm.py``) opens each
in turn as a student would and keeps its finished runs (:mod:`engine.app.serving.warm_cache`);
``python -m engine.bench --pages`` times each on a fresh server, cold and warm.
"""
from __future__ import annotations

from collections.abc import Iterable

from engine.app.page_content.parameters import query
from engine.app.page_content.presets import PRESETS, presets_for

__all__ = ["MORE_VIEWS", "first_views"]

# One click from a page's default: the Forests page's second experiment (29 s on a fresh server)
# and the Benchmark's real-data mode with its default data sets (30 s).
MORE_VIEWS: list[dict] = [
    {"label": "Forests: input vs output randomization", "page": "pages/forests.py",
     "query_params": query("pages/forests.py", exp="randomization")},
    {"label": "Benchmark: real-data study", "page": "pages/benchmark.py",
     "query_params": query("pages/benchmark.py", mode="real-data study")},
]


def first_views(registered_pages: Iterable[str], presets: list[dict] | None = None,
                more: list[dict] | None = None) -> list[dict]:
    """``[{"label", "page", "query_params"}, ...]``: the default view of each of
    ``registered_pages`` (in their order), then the presets and ``more`` views whose page is
    registered; a view listed twice (same page, same parameters) once."""
    pages = list(registered_pages)
    views = [{"label": f"{page.removeprefix('pages/').removesuffix('.py')}: default view", "page": page,
              "query_params": {}} for page in pages]
    views += [{k: p[k] for k in ("label", "page", "query_params")}
              for p in presets_for(pages, PRESETS if presets is None else presets)]
    views += presets_for(pages, MORE_VIEWS if more is None else more)
    seen, out = set(), []
    for view in views:
        mark = (view["page"], tuple(sorted((k, str(v)) for k, v in view["query_params"].items())))
        if mark not in seen:
            seen.add(mark)
            out.append(view)
    return out
