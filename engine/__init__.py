"""Multi-output tree ensembles with random projections of the output space.

The learning engine behind the dashboard: Cython trees, gradient boosting with
multi-output trees and random output projections (Joly, Wehenkel and Geurts),
datasets, metrics and experiments. It never imports streamlit.
"""
from engine.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.registry import ESTIMATOR_NAMES, make_estimator

__all__ = [
    "MultiOutputBoostingRegressor",
    "MultiLabelBoostingClassifier",
    "make_estimator",
    "ESTIMATOR_NAMES",
]
