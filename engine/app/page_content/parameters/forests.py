"""The Forests page's parameters (pages/forests.py): each experiment shows its own."""
from engine.app.page_content.page_defaults import FORESTS_DATASET, FORESTS_Q
from engine.app.page_content.parameters.row import rows_of
from engine.experiments import forests as fe
from engine.methods import scheme_help
from engine.names import STRUCTURES as FRIEDMAN_STRUCTURES

PAGE = "pages/forests.py"
# Bound widgets with a format_func write the formatted label into the URL: the options are
# themselves short readable names, so links stay short (?fx_exp=schemes&fx_data=yeast).
EXPERIMENTS = {
    "size": "Fig. 1: projection size",
    "randomization": "Fig. 2: input vs output randomization",
    "schemes": "Fig. 3: projection schemes",
    "variance": "Appendix C: projection vs tree variance",
    "compression": "Thesis ch. 7: ℓ1 compression",
}
SCHEME_NAMES = list(fe.SCHEME_LABELS)   # the method table's schemes, densest first (paper 003's Figure 3)

row = rows_of(PAGE)
ROWS = (
    row("fx_exp", "radio", "Experiment", options=list(EXPERIMENTS), captions=list(EXPERIMENTS.values()),
        help="Which part of paper 003 to run: the effect of q, the interplay of input (k) and output (q) "
        "randomization, the projection scheme, or the split of the algorithm variance into its projection "
        "and tree-randomization parts (Friedman1, where the Bayes model is known); or compress an "
        "extra-trees forest to the few nodes an ℓ1-penalised fit needs (thesis chapter 7)."),
    row("fx_structure", "radio", "Friedman1 structure", options=FRIEDMAN_STRUCTURES, default="ind", horizontal=True,
        help="The variance split needs many learning sets drawn from a known generator: Friedman1 chain / "
        "group / ind, 300 training samples, 16 outputs, 500 test points."),
    row("fx_sets", "slider", "Learning sets", low=2, high=30, default=6,
        help="Independent training sets; each gets 4 projections × 4 tree seeds (single trees) and 4 "
        "forests per algorithm. More sets: steadier estimates, proportionally longer runs."),
    # Options: "Data page", friedman1, two-norm and the shipped sets (the catalogue's, known at run time).
    row("fx_cdata", "selectbox", "Data set",
        help="friedman1 (10 inputs, one output, 300 train / 2000 test) and two-norm (20 Gaussian inputs, two "
        "classes) as in the thesis's Table 7.1, any shipped data set, or with 'Data page' the data set chosen "
        "there (several outputs share one selection of nodes; 0/1 labels are compressed as scores and judged "
        "by the 0-1 loss)."),
    row("fx_nmin", "slider", "n_min (samples to split a node)", low=1, high=50, default=1,
        help="The extra trees' pre-pruning: a node with fewer samples is not split. 1 grows every tree until "
        "each leaf holds one sample (the thesis's Table 7.1); larger values give smaller forests (Figure 7.3)."),
    row("fx_cv", "slider", "Cross-validation folds", low=2, high=10, default=10,
        help="t, the ℓ1 budget of the node weights, is chosen by this many folds (the thesis: 10); each fold "
        "grows its own forest and path, so fewer folds run faster."),
    # Options: "Data page" and the shipped multi-label sets (the catalogue's, known at run time).
    row("fx_data", "selectbox", "Data set", default=FORESTS_DATASET,
        help="A shipped multi-label set (scored by LRAP) or, with 'Data page', the data set chosen on the "
        "Data page (Friedman1 problems are scored by macro-r2)."),
    row("fx_q", "text_input", "Projected dimensions q", default=FORESTS_Q,
        help="Sizes of the random output projections, comma-separated. Small q = strong output "
        "randomization and cheap splits; q → d approaches the unprojected forest."),
    row("fx_single", "checkbox", "Single trees too", default=False,
        help="Add a single unpruned tree (all features, no bootstrap) on q projections and on the original "
        "outputs, as in the paper's Figure 1. One such tree costs about as much as a forest on wide data."),
    row("fx_proj", "selectbox", "Projection", options=SCHEME_NAMES,
        help=f"How the q × d projection matrix is drawn (paper 003, section 2.2): {scheme_help('; ', ': ')}."),
    row("fx_schemes", "multiselect", "Schemes", options=SCHEME_NAMES, default=SCHEME_NAMES,
        help="Dense (Gaussian, Rademacher) vs sparse (sparse Rademacher, sub-sampling: each component "
        "reads few outputs) projections, all with a new projection per tree."),
    row("fx_k", "text_input", "Features per node k", default="",
        help="max_features values, comma-separated (empty: about six values from 1 to p). Small k = "
        "strong input randomization."),
    row("fx_trees", "slider", "Trees per forest", low=1, high=100, default=10,
        help="More trees average away more of the algorithm variance (and take longer). The paper uses 100."),
    row("fx_repeats", "slider", "Repeats", low=1, high=5, default=1,
        help="Fits per point with different seeds; the chart shows the mean ± one standard deviation "
        "(compression: independent runs, each with a new training and test set; the chart shows their mean)."),
    row("fx_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Seeds the projections, bootstraps and feature draws: the same seed gives the same scores."),
)
