"""The papers' experiments as plain function calls, one module per experiment family.

Each ``run_*`` function takes plain arguments, checks all of them before any work
(a ``ValueError`` naming the argument), reports ``progress(fraction, message)``,
returns what it finished when ``stop`` is set, and gives a result dataclass with
``to_frame()`` and ``to_json()``. Same arguments and seed, same numbers.

* :mod:`~engine.experiments.runner`: progress, stop, parallel cells, JSON results (shared);
* :mod:`~engine.experiments.problems`: the train / test problems (Friedman1, shipped sets);
* :mod:`~engine.experiments.convergence`: paper 002's Figure 1 and Figures 2-4;
* :mod:`~engine.experiments.projection_size`: paper 002's Figures 5-6;
* :mod:`~engine.experiments.bias_variance`: the Monte-Carlo bias–variance decomposition;
* :mod:`~engine.experiments.model_selection`: the benchmark protocol of paper 002 (Tables 4-7);
* :mod:`~engine.experiments.forests`, :mod:`~engine.experiments.forest_variance`,
  :mod:`~engine.experiments.forest_table1`: paper 003's Figures 1-3, Appendix C, Table 1;
* :mod:`~engine.experiments.compression`: the thesis's ℓ1 compression of forests (Table 7.1,
  Figures 7.2-7.4);
* :mod:`~engine.experiments.cost_vs_outputs`: seconds per boosting step against d (paper 002, section 3);
* :mod:`~engine.experiments.published`: the papers' own numbers and the settings of their figures.

``python -m engine reproduce`` (one output convention: CSV, JSON, HTML) is a layer above, with
the figures: :mod:`engine.reports.reproduce`.
"""
from engine.experiments.bias_variance import BiasVarianceResult, run_bias_variance
from engine.experiments.compression import (
    CompressionResult,
    CompressionSettings,
    run_compression,
    run_compression_sweep,
)
from engine.experiments.convergence import (
    EXPERIMENT_ESTIMATORS,
    BoostingSettings,
    ConvergenceResult,
    Curve,
    run_convergence,
    run_projection_schemes,
)
from engine.experiments.forest_table1 import Table1Result, run_forest_table1
from engine.experiments.forest_variance import ForestBiasVarianceResult, run_forest_bias_variance
from engine.experiments.forests import (
    ForestSweepResult,
    SweepPlan,
    plan_sweep,
    run_sweep,
    run_forest_projection_size,
    run_forest_randomization,
    run_forest_schemes,
)
from engine.experiments.model_selection import ModelSelectionResult, run_model_selection
from engine.experiments.problems import Problem, ProblemData, problem_size
from engine.experiments.projection_size import ProjectionSizeResult, run_projection_size
from engine.experiments.settings import ForestSettings

__all__ = [
    "EXPERIMENT_ESTIMATORS",
    "problem_size",
    "Problem",
    "ProblemData",
    "BoostingSettings",
    "Curve",
    "ConvergenceResult",
    "run_convergence",
    "run_projection_schemes",
    "ProjectionSizeResult",
    "run_projection_size",
    "BiasVarianceResult",
    "run_bias_variance",
    "ModelSelectionResult",
    "run_model_selection",
    "ForestSettings",
    "ForestSweepResult",
    "SweepPlan",
    "plan_sweep",
    "run_sweep",
    "run_forest_projection_size",
    "run_forest_randomization",
    "run_forest_schemes",
    "ForestBiasVarianceResult",
    "run_forest_bias_variance",
    "Table1Result",
    "run_forest_table1",
    "CompressionResult",
    "CompressionSettings",
    "run_compression",
    "run_compression_sweep",
]
