"""The estimators: scikit-learn API over the compiled core (``engine._core``).

* :mod:`~engine.estimators.base`: what boosting and forests share (checks, labels, shapes);
* :mod:`~engine.estimators.boosting`: st-gbrt, gbmort, gbrt-rpo, gbrt-relabel-rpo (paper 002);
* :mod:`~engine.estimators.forest`: forests on projected outputs (paper 003), mo-rf, st-rf;
* :mod:`~engine.estimators.artificial`: artificial-gbrt, the oracle of paper 002's Table 4;
* :mod:`~engine.estimators.indicators`, :mod:`~engine.estimators.compression`: a forest as a
  linear model on its node indicators, compressed by the monotone Lasso (thesis chapter 7);
* :mod:`~engine.estimators.averaged`: averages of randomized models (thesis eq. 4.28);
* :mod:`~engine.estimators.references`: scikit-learn reference rows of the benchmark;
* :mod:`~engine.estimators.registry`: the paper's names -> configured estimators.
"""
from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.compression import CompressedForestClassifier, CompressedForestRegressor
from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from engine.estimators.registry import ALL_NAMES, ESTIMATOR_NAMES, FOREST_NAMES, make_estimator

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
