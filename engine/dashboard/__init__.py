"""What the pages need that is not UI, kept out of ``pages/`` so it can be tested (no streamlit).

* :mod:`~engine.dashboard.jobs`: background jobs with progress, stop and partial results;
* :mod:`~engine.dashboard.runstore`: one server, many sessions: identical runs computed once,
  a fair queue, a bounded cache of finished runs ("Running it for a class");
* :mod:`~engine.dashboard.memory`: freed memory given back after sessions end;
* :mod:`~engine.dashboard.presets`: Home's one-click presets (a paper figure or table);
* :mod:`~engine.dashboard.dataspec`: the Data page's data-set spec, shared with the other pages;
* :mod:`~engine.dashboard.live_convergence`: live training of the Convergence page (Step, Pin);
* :mod:`~engine.dashboard.studies`: several bias–variance runs as one job, value parsing;
* :mod:`~engine.dashboard.cost`: what a run will cost, said before it starts.
"""
