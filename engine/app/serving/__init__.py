"""Serving runs to many sessions on one server (no streamlit): the machinery under the pages' jobs.

* :mod:`~engine.app.serving.jobs`: a background job with progress, stop and partial results;
* :mod:`~engine.app.serving.runstore`: one server, many sessions: identical runs computed once,
  a fair queue, a bounded cache of finished runs ("Running it for a class"), and the formats of
  the lines it and the pages write to the server's log (which the class load tool parses);
* :mod:`~engine.app.serving.run_key`: a run's key (page, function, arguments by content, engine
  version); :mod:`~engine.app.serving.result_cache`: finished runs, bounded, least recently used
  out; :mod:`~engine.app.serving.limits`: the server's limits from its environment;
* :mod:`~engine.app.serving.warm_cache`: the pages' first views computed when the server starts and kept
  on disk under their run keys (where, key, how to clear: its docstring);
* :mod:`~engine.app.serving.memory`: memory accounting, and freed memory given back after sessions end.
"""
