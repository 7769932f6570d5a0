"""The project's vocabulary, defined once: problems, tasks, losses, metrics, projections, methods.

Every module, page and the command line import these names instead of writing
the strings again. Paper numbers: 002 = gradient boosting with random output
projections, 003 = random forests on projected outputs, 001 = the thesis.
The methods themselves (strategies, forest kinds, projection schemes) are rows of
the method table, engine/methods.py; the names here are read from it.
"""
from engine.methods import BOOSTING, SCHEMES, boosting_name, boosting_names, forest_name, forest_names

# Friedman1 output structures (paper 002, section 4.2.1) and the problems built on them.
STRUCTURES = ("chain", "group", "ind")
FRIEDMAN_PROBLEMS = tuple(f"friedman1-{s}" for s in STRUCTURES)

TASKS = ("regression", "multilabel")
# The scores of paper 002, section 4.1.1: macro-r2 (eq. 26) and LRAP (eq. 25).
METRICS = {"regression": "macro-r2", "multilabel": "LRAP"}

# Losses per task (paper 002, Table 1); the first one is each task's default.
REGRESSION_LOSSES = ("squared_error", "absolute_error")
CLASSIFICATION_LOSSES = ("logistic", "squared_error")
LOSSES = {"regression": REGRESSION_LOSSES, "multilabel": CLASSIFICATION_LOSSES}

# Random projection schemes (paper 002, section 2.3), and the suffix each takes in
# a method's name: the paper writes "subsampled" in names and "sub-sampling" in prose.
# Both, like every list of methods below, are read from the method table (engine/methods.py).
PROJECTIONS = tuple(SCHEMES)
SCHEME_SUFFIX = {scheme: row.suffix for scheme, row in SCHEMES.items()}
SCHEME_OF_SUFFIX = {suffix: scheme for scheme, suffix in SCHEME_SUFFIX.items()}

# Boosting strategies (the estimators' ``strategy`` parameter) and the paper's
# name of each: st-gbrt, gbmort (Alg. 2), gbrt-rpo (Alg. 3), gbrt-relabel-rpo (Alg. 4).
STRATEGIES = tuple(BOOSTING)
# The four of the papers, by name, for the code that treats one of them apart.
SINGLE_TARGET, MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL = (
    "single_target", "multi_output", "projected", "projected_relabel")
# The strategies that grow their tree on a random projection of the residuals.
PROJECTED_STRATEGIES = tuple(s for s, row in BOOSTING.items() if row.projected)
# How a boosting tree's leaves get their values: the papers' mean (residual) leaves with a line
# search for rho, or second-order (Newton) leaves -sum(g) / (sum(h) + lambda) per output.
LEAF_ESTIMATIONS = ("mean", "newton")

BOOSTING_NAMES = boosting_names()
FOREST_NAMES = forest_names()
# The oracle that knows the Friedman1 output structure (paper 002, section 4.2.1).
ARTIFICIAL = "artificial-gbrt"
# Other names the papers use for the same methods: binary relevance is the
# multi-label name of single target.
ALIASES = {"br-gbrt": "st-gbrt", "br-rf": "st-rf",
           "rf-subsample-shared": "rf-subsampled-shared",
           "rf-subsample-per-tree": "rf-subsampled-per-tree"}
# scikit-learn reference rows of the benchmark protocol (engine.estimators.references).
REFERENCE_NAMES = ("sklearn-gb", "sklearn-rf", "sklearn-st-rf")
REFERENCE_FOREST_NAMES = ("sklearn-rf", "sklearn-st-rf")
# The boosting estimators as a practitioner gets them: MultiOutputBoostingRegressor() /
# MultiLabelBoostingClassifier() with only random_state set (their defaults, issue 34).
DEFAULTS = "defaults"
# XGBoost with its own defaults (engine.experiments.peers.ReferenceXGBoost): the peer a practitioner
# would fit first, beside "defaults" on any data set (issue 42).
XGBOOST = "xgboost"
# The eight methods of paper 002's real-data study (section 4.4), in our names
# (br-gbrt / br-rf in multi-label are st-gbrt / st-rf), and BOOMER (paper 004,
# the real mlrl-boomer package) as reference rows: its documented defaults, and
# its non-decomposable logistic loss (engine.estimators.boomer).
REAL_DATA_METHODS = ("st-gbrt", "gbmort", "gbrt-rpo-gaussian", "gbrt-rpo-subsampled",
                     "gbrt-relabel-rpo-gaussian", "gbrt-relabel-rpo-subsampled", "mo-rf", "st-rf")
BOOMER_NAMES = ("boomer", "boomer-non-decomposable")
# Second-order (Newton) leaves, an extension beyond paper 002 (leaf_estimation="newton" on the
# boosting estimators): the real-data study's extra rows, outside the paper's eight so that its
# ranks stay comparable. "<method> (newton)" is <method> with leaf_estimation="newton".
NEWTON_SUFFIX = " (newton)"
SECOND_ORDER_METHODS = ("gbrt-relabel-rpo-gaussian" + NEWTON_SUFFIX, "gbmort" + NEWTON_SUFFIX)
