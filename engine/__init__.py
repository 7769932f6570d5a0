"""Multi-output tree ensembles with random projections of the output space.

The learning engine behind the dashboard: Cython trees, gradient boosting with
multi-output trees and random output projections (Joly, Wehenkel and Geurts),
datasets, metrics and experiments. It never imports streamlit.
"""
from engine.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.registry import ALL_NAMES, ESTIMATOR_NAMES, FOREST_NAMES, make_estimator

__all__ = [
    "MultiOutputBoostingRegressor",
    "MultiLabelBoostingClassifier",
    "make_estimator",
    "ESTIMATOR_NAMES",
    "ProjectedForestRegressor",
    "ProjectedForestClassifier",
    "FOREST_NAMES",
    "ALL_NAMES",
]
