"""Benchmarks of the engine next to its peers: ``python -m engine.bench``.

* :mod:`engine.bench.teaching` — the papers' teaching size (n = 300): boosting,
  forests, compression and missing targets next to scikit-learn (the default run);
* :mod:`engine.bench.scale` — research size (n up to 100k, sparse data sets,
  threads, memory) next to LightGBM, XGBoost and scikit-learn (``--scale``);
* :mod:`engine.bench.multilabel` — time to accuracy on many outputs (bibtex, corel5k,
  delicious, scm20d) next to XGBoost, LightGBM and scikit-learn, one thread, and each system's
  default fit beside CatBoost's (``--multilabel``);
* :mod:`engine.bench.defaults` — the estimators' defaults: the study, and defaults against
  XGBoost's, CatBoost's and LightGBM's (``--defaults``);
* :mod:`engine.bench.logistic_step` — a logistic step against a square step on the same
  labels (``--logistic-step``);
* :mod:`engine.bench.one_step` — the teaching interactions against their 1 s target
  (``--interactions``);
* :mod:`engine.bench.pages` — the cost pages' default views (``--pages``);
* :mod:`engine.bench.problems` — the data sets' train / test splits and test metrics that
  ``--multilabel`` and ``--defaults`` share;
* :mod:`engine.bench.timing` — the one timing helper they share (best of repeats).

The command line is in ``engine/bench/__main__.py``; measured tables and their
readings are in ``engine/bench/RESULTS.md``. A class of real browser sessions on one app server
(time to result, health probes, memory) is measured by a test tool, ``python tests/load/classroom.py``
(Playwright, a test extra, never imported under ``engine/``).
"""
