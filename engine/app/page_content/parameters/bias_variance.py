"""The Bias–variance page's parameters (pages/bias_variance.py, and pages/_bv_data.py on the Data page's data)."""
from engine.app.page_content.parameters.row import rows_of
from engine.app.page_content.studies import FOREST_SWEEPABLE, SWEEPABLE
from engine.estimators.registry import ESTIMATOR_NAMES, FOREST_NAMES
from engine.experiments.bias_variance_data import SCHEMES
from engine.names import STRUCTURES as FRIEDMAN_STRUCTURES

PAGE = "pages/bias_variance.py"
VARIANTS = ESTIMATOR_NAMES + FOREST_NAMES
COMPARE = ("none", "4", "8", "16", "32")
SCHEME_HELP = {"disjoint": "disjoint subsamples: independent sets, each a part of the rows",
               "bootstrap": "bootstrap samples: full-size sets drawn with replacement, overlapping"}

row = rows_of(PAGE, persist=True)
ROWS = (
    row("bv_data", "radio", "Data", options=["data", "friedman1"], horizontal=True,
        help="data: the Data page's choice, learning sets drawn from its rows. friedman1: this "
        "page's own problem, whose generator and Bayes model separate bias² from noise."),
    row("bv_estimator", "selectbox", "Variant", options=VARIANTS, default="gbmort",
        help="The boosting variant or forest (paper names). Randomized variants (rpo, forests) also have "
        "an algorithm variance: set 'Seeds per learning set' above 1 to measure it."),
    # The page offers the variant's sweepable parameters (a boosting's or a forest's).
    row("bv_sweep", "selectbox", "Parameter to sweep", options=list(dict.fromkeys([*SWEEPABLE, *FOREST_SWEEPABLE])),
        help="The x axis: the decomposition is computed at each value. For boosting, n_estimators reuses "
        "one staged fit per learning set, so many values cost nothing extra; forests are refitted per value."),
    # Its help and placeholder name the swept parameter's range and default values (the page gives them).
    row("bv_values", "text_input", "Values", default="",
        help="Comma-separated values of the swept parameter (at most 12, clamped to its range)."),
    row("bv_max_leaf_nodes", "select_slider", "Leaves per tree", options=[2, 3, 4, 6, 8, 12, 16, 24, 32], default=2,
        help="Tree size of the (first) run: 2 leaves = stumps. Bigger trees lower the bias per "
        "step but raise the variance."),
    row("bv_compare_leaves", "selectbox", "Compare with trees of (leaves)", options=COMPARE, default="8",
        help="A second run with trees of this many leaves, drawn side by side: the classic bias–variance "
        "trade-off. none: a single run."),
    row("bv_n_estimators", "slider", "Boosting steps M / trees", low=1, high=1000, default=100,
        help="Number of boosting steps, or of trees in a forest (used unless it is the swept parameter). "
        "Boosting: more steps, less bias, more variance. Forests: more trees, less algorithm variance."),
    row("bv_learning_rate", "slider", "Learning rate μ", low=0.01, high=1.0, default=0.1, step=0.01,
        help="Shrinkage of each step. A small μ needs more steps but each step adds less variance."),
    row("bv_n_projections", "slider", "Projections q", low=1, high=16, default=1,
        help="gbrt-relabel-rpo: each tree is grown on q random projections of the residuals. Projected "
        "forests (rf-…): each tree is grown on q random projections of the outputs."),
    row("bv_problem", "radio", "Output structure", options=FRIEDMAN_STRUCTURES, default="group", horizontal=True,
        help="Friedman1 chain / group / ind (paper section 4.2.1), uniform inputs. The Bayes model is "
        "known, so bias and noise are exact."),
    row("bv_n_outputs", "slider", "Outputs d", low=1, high=32, default=16, help="Number of outputs (paper: 16)."),
    row("bv_noise", "slider", "Noise sd", low=0.0, high=3.0, default=1.0, step=0.1,
        help="Standard deviation of the output noise (paper: 1); the noise term is its square (times j for chain)."),
    row("bv_n_sets", "slider", "Learning sets", low=2, high=100, default=8,
        help="Independent training sets drawn from the problem (the thesis uses 100). More sets: "
        "smoother estimates, proportionally longer runs."),
    row("bv_n_train", "slider", "Training samples per set", low=50, high=1000, default=300, step=50,
        help="Size of each learning set (paper: 300). Smaller sets mean more variance."),
    row("bv_n_test", "slider", "Test points", low=100, high=4000, default=300, step=100,
        help="One fixed test set where the expectations are averaged."),
    row("bv_n_seeds", "slider", "Seeds per learning set", low=1, high=5, default=1,
        help="Fits per learning set with different random states: above 1 separates the algorithm "
        "variance (random projections) from the learning-set variance."),
    row("bv_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Root of every random draw (learning sets, test set, models): same seed, same numbers."),
    # Drawn with a result: its options are the run's swept values, its label names the swept parameter.
    row("bv_slice", "select_slider", "Curves at", help="Which value of the swept parameter the curves below show."),
    # On the Data page's data (pages/_bv_data.py).
    row("bv_data_methods", "multiselect", "Methods", options=VARIANTS, default=["gbmort", "gbrt-relabel-rpo-gaussian"],
        help="Boosting variants and forests (paper names), each decomposed on the same sets."),
    row("bv_data_scheme", "radio", "Learning sets", options=SCHEMES, captions=[SCHEME_HELP[s] for s in SCHEMES],
        help="How the learning sets are drawn from the rows that are not test rows."),
    row("bv_data_sets", "slider", "Number of learning sets", low=2, high=20, default=4,
        help="More sets: a steadier estimate of the variance, at a proportional cost."),
    row("bv_data_steps", "slider", "Boosting steps / trees", low=5, high=500, default=50,
        help="n_estimators of every model: boosting steps, or a forest's trees."),
    row("bv_data_leaves", "select_slider", "Leaves per tree", options=[2, 4, 8, 16, 32, 64], default=8,
        help="max_leaf_nodes of every tree (boosting and forests alike)."),
    row("bv_data_seeds", "slider", "Seeds per learning set", low=1, high=4, default=1,
        help="Models per set with different random states: above 1, the algorithm variance "
        "(projections, feature sampling, a forest's bootstrap) is measured."),
    row("bv_data_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0,
        help="Draws the test rows, the learning sets and the models' random states."),
)
