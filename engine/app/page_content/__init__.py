"""What the pages say and offer, as data and small functions (no streamlit, no model state).

* :mod:`~engine.app.page_content.presets`: Home's one-click presets (a paper figure or table);
* :mod:`~engine.app.page_content.challenges`: the pages' "predict, then run" challenges;
* :mod:`~engine.app.page_content.takeaways`: the sentences a page states, computed from its result;
* :mod:`~engine.app.page_content.page_defaults`: the data set and settings each cost page opens on;
* :mod:`~engine.app.page_content.studies`: the Bias–variance page's sweeps (several runs as one job),
  value parsing and clamping notes.
"""
