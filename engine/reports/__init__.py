"""What the command line writes: the papers' figures and tables as files (a layer above
:mod:`engine.experiments`, which computes, and :mod:`engine.plotting`, which draws).

* :mod:`~engine.reports.writer`: the one output convention (CSV, JSON, standalone HTML);
* :mod:`~engine.reports.real_data`: the real-data study's figures, tables and files (also the
  Benchmark page's);
* :mod:`~engine.reports.reproduce`: the targets of ``python -m engine reproduce``.
"""
