"""The app's floors: what the Streamlit pages need that is not UI (no streamlit here either).

They are the app's, not the library's: a script or a notebook using the estimators and the
experiments never needs them. Grouped here so the folder tree says so:

* ``engine.app.serving``: runs served to many sessions on one server (jobs, run store, memory,
  the start-up fill of the run cache);
* ``engine.app.page_content``: what the pages say and offer (presets, challenges, takeaways,
  defaults, studies);
* ``engine.app.page_models``: the state a page steps and draws (one step, live convergence,
  data-set specs, draws, cost estimates).

They sit above the experiments and plotting (they call them) and below the pages and the
benchmark (which times the page models as a page uses them): ``tests/test_layers.py``.
"""
