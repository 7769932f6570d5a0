"""Plotly figures of the experiments' results (never streamlit), one module per topic.

* :mod:`~engine.plotting.common`: full labels on log axes, the palette, standalone HTML;
* :mod:`~engine.plotting.data`: the Data and Home pages (output correlations, outputs vs Bayes);
* :mod:`~engine.plotting.convergence`: learning curves, projection size, schemes, live runs;
* :mod:`~engine.plotting.bias_variance`: bias–variance components against a swept parameter;
* :mod:`~engine.plotting.benchmark`: the benchmark protocol's scores, ranks and paired tests;
* :mod:`~engine.plotting.forests`: the forest experiments of paper 003;
* :mod:`~engine.plotting.compression`: the ℓ1 compression of forests (thesis Figures 7.2-7.4);
* :mod:`~engine.plotting.cost_vs_outputs`: seconds per boosting step against the number of outputs d.

Every builder returns a ``plotly.graph_objects.Figure``; the names below are re-exported so
that ``from engine import plotting; plotting.convergence_figure(result)`` reads plainly.
"""
from engine.plotting.common import (
    COLORS,
    label_log_axes,
    log_ticks,
    overlay_pinned,
    standalone_html,
)
from engine.plotting.data import (
    DATA_MAX_POINTS,
    correlation_frame,
    data_correlation_figure,
    default_bayes_outputs,
    empirical_output_correlation,
    friedman1_output_correlation,
    friedman1_variance,
    output_correlation_figure,
    outputs_vs_bayes_figure,
    target_distribution_figure,
)
from engine.plotting.convergence import (
    convergence_figure,
    convergence_panels,
    live_convergence_figure,
    projection_size_curves_figure,
    projection_size_figure,
    schemes_figure,
)
from engine.plotting.bias_variance import (
    COMPONENTS,
    STACK,
    bias_variance_comparison_figure,
    bias_variance_figure,
    bias_variance_lines_figure,
    bias_variance_stacked_figure,
    data_bias_variance_figure,
    slice_curves_figure,
    slice_curves_panels_figure,
)
from engine.plotting.benchmark import (
    benchmark_pvalue_figure,
    benchmark_scores_figure,
    model_selection_report,
    pvalue_heatmap,
    score_table_figure,
)
from engine.plotting.compression import compression_path_figure, compression_sweep_figure
from engine.plotting.cost_vs_outputs import cost_vs_outputs_figure
from engine.plotting.real_data import critical_difference_figure, nemenyi_groups
from engine.plotting.time_to_accuracy import time_to_accuracy_figure
from engine.plotting.forests import (
    forest_bias_variance_figure,
    forest_projection_size_figure,
    forest_randomization_figure,
    forest_schemes_figure,
)

__all__ = [
    "critical_difference_figure",
    "nemenyi_groups",
    "time_to_accuracy_figure",
    "log_ticks",
    "overlay_pinned",
    "label_log_axes",
    "standalone_html",
    "COLORS",
    "friedman1_variance",
    "friedman1_output_correlation",
    "output_correlation_figure",
    "empirical_output_correlation",
    "correlation_frame",
    "data_correlation_figure",
    "default_bayes_outputs",
    "outputs_vs_bayes_figure",
    "target_distribution_figure",
    "DATA_MAX_POINTS",
    "convergence_figure",
    "convergence_panels",
    "projection_size_figure",
    "projection_size_curves_figure",
    "schemes_figure",
    "live_convergence_figure",
    "bias_variance_figure",
    "bias_variance_comparison_figure",
    "slice_curves_figure",
    "bias_variance_stacked_figure",
    "data_bias_variance_figure",
    "bias_variance_lines_figure",
    "slice_curves_panels_figure",
    "COMPONENTS",
    "STACK",
    "pvalue_heatmap",
    "score_table_figure",
    "model_selection_report",
    "benchmark_scores_figure",
    "benchmark_pvalue_figure",
    "forest_projection_size_figure",
    "forest_randomization_figure",
    "forest_schemes_figure",
    "forest_bias_variance_figure",
    "compression_path_figure",
    "compression_sweep_figure",
    "cost_vs_outputs_figure",
]
