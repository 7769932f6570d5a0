"""The state a page steps and draws, kept out of ``pages/`` so it can be tested (no streamlit).

* :mod:`~engine.app.page_models.one_step`: one boosting step taken apart (One step page, tree strip);
* :mod:`~engine.app.page_models.live_convergence`: live training of the Convergence page (Step, Pin),
  through :func:`engine.experiments.convergence.run_convergence`;
* :mod:`~engine.app.page_models.dataspec`: the Data page's data-set spec, shared with the other pages;
* :mod:`~engine.app.page_models.draws`: bias–variance terms growing one learning set at a time;
* :mod:`~engine.app.page_models.cost`: what a run will cost, said before it starts.
"""
