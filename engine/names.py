"""The project's vocabulary, defined once: problems, tasks, losses, metrics, projections, methods.

Every module, page and the command line import these names instead of writing
the strings again. Paper numbers: 002 = gradient boosting with random output
projections, 003 = random forests on projected outputs, 001 = the thesis.
"""

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
PROJECTIONS = ("subsample", "gaussian", "achlioptas", "sparse")
SCHEME_SUFFIX = {"subsample": "subsampled", "gaussian": "gaussian",
                 "achlioptas": "achlioptas", "sparse": "sparse"}
SCHEME_OF_SUFFIX = {suffix: scheme for scheme, suffix in SCHEME_SUFFIX.items()}

# Boosting strategies (the estimators' ``strategy`` parameter) and the paper's
# name of each: st-gbrt, gbmort (Alg. 2), gbrt-rpo (Alg. 3), gbrt-relabel-rpo (Alg. 4).
STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
SINGLE_TARGET, MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL = STRATEGIES
# The strategies that grow their tree on a random projection of the residuals.
PROJECTED_STRATEGIES = (PROJECTED, PROJECTED_RELABEL)
# How a boosting tree's leaves get their values: the papers' mean (residual) leaves with a line
# search for rho, or second-order (Newton) leaves -sum(g) / (sum(h) + lambda) per output.
LEAF_ESTIMATIONS = ("mean", "newton")


def boosting_name(strategy, projection=None):
    """The paper's name of a boosting method, e.g. ("projected", "gaussian") -> "gbrt-rpo-gaussian"."""
    if strategy == SINGLE_TARGET:
        return "st-gbrt"
    if strategy == MULTI_OUTPUT:
        return "gbmort"
    prefix = "gbrt-rpo" if strategy == PROJECTED else "gbrt-relabel-rpo"
    return f"{prefix}-{SCHEME_SUFFIX[projection]}"


def forest_name(projection, per_tree):
    """The name of a forest on projected outputs (paper 003): Algorithm 2 per tree, 1 shared."""
    return f"rf-{SCHEME_SUFFIX[projection]}-{'per-tree' if per_tree else 'shared'}"


BOOSTING_NAMES = (boosting_name("single_target"), boosting_name("multi_output"),
                  *(boosting_name(strategy, s) for s in PROJECTIONS
                    for strategy in ("projected", "projected_relabel")))
FOREST_NAMES = ("mo-rf", "st-rf", "mo-et",
                *(forest_name(s, per_tree) for s in PROJECTIONS for per_tree in (False, True)))
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
