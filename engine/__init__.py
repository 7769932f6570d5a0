"""Multi-output tree ensembles with random projections of the output space.

The learning engine behind the dashboard (it never imports streamlit):

* ``engine._core``: the compiled core (Cython, no GIL): tree store, grower, boosting loop;
* ``engine.estimators``: scikit-learn estimators for paper 002's boosting, paper 003's forests
  and the thesis's ℓ1-compressed forests (chapter 7);
* ``engine.datasets``: Friedman1 chain / group / ind, the shipped data sets, CSV upload;
* ``engine.experiments``: the papers' experiments as plain calls, and the papers' own numbers;
* ``engine.plotting``: plotly figures of the experiments' results;
* ``engine.reports``: ``python -m engine reproduce``, the papers' figures and tables as files;
* ``engine.bench``: ``python -m engine.bench``, speed next to scikit-learn, LightGBM, XGBoost;
* ``engine.app``: the app's floors, what the pages need that is not UI: ``serving`` (runs
  served to many sessions: jobs, run store, memory), ``page_content`` (presets, challenges,
  takeaways, defaults) and ``page_models`` (the state a page steps and draws);
* ``engine.names``, ``engine.projections``, ``engine.metrics``, ``engine.validation``: the
  vocabulary, the random projections, the papers' scores and the shared argument checks.
"""
from engine.estimators import (
    ALL_NAMES,
    ESTIMATOR_NAMES,
    CompressedForestClassifier,
    CompressedForestRegressor,
    FOREST_NAMES,
    MultiLabelBoostingClassifier,
    MultiOutputBoostingRegressor,
    PerOutputForestClassifier,
    PerOutputForestRegressor,
    ProjectedForestClassifier,
    ProjectedForestRegressor,
    make_estimator,
)

__all__ = [
    "MultiOutputBoostingRegressor",
    "MultiLabelBoostingClassifier",
    "ProjectedForestRegressor",
    "ProjectedForestClassifier",
    "PerOutputForestRegressor",
    "PerOutputForestClassifier",
    "CompressedForestRegressor",
    "CompressedForestClassifier",
    "make_estimator",
    "ESTIMATOR_NAMES",
    "FOREST_NAMES",
    "ALL_NAMES",
]
