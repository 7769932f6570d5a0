"""The Convergence page's parameters (pages/convergence.py and its tree strip, pages/_tree_strip.py)."""
from engine.app.page_models import live_convergence as live
from engine.app.page_content.parameters.row import rows_of

PAGE = "pages/convergence.py"
PROBLEMS = {"group": "friedman1-group", "chain": "friedman1-chain", "ind": "friedman1-ind", "data": "Data page choice"}
X_AXES = {"trees": "trees_per_output", "steps": "step"}   # URL value -> Curve attribute
DEFAULT_VARIANTS = ["st-gbrt", "gbmort", "gbrt-rpo-subsampled"]
STEP_OPTIONS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
TEST_OPTIONS = [200, 500, 1000, 2000, 4000]
MAX_FEATURES = {"all": None, "sqrt": "sqrt", "log2": "log2", "0.5": 0.5}
LOSSES = {"default": None, "squared_error": "squared_error", "absolute_error": "absolute_error", "logistic": "logistic"}
PATIENCE = {"off": None, "5": 5, "10": 10, "20": 20, "50": 50}   # early-stopping marks (n_iter_no_change)

row = rows_of(PAGE)
ROWS = (
    row("conv_problem", "radio", "Problem", options=list(PROBLEMS), horizontal=True,
        help="friedman1-group / -chain / -ind as in the paper (300 training samples, 16 outputs, uniform "
        "inputs), or data: the data set chosen on the Data page."),
    row("conv_variants", "multiselect", "Methods", options=list(live.VARIANTS), default=DEFAULT_VARIANTS,
        help="st-gbrt: one tree per output and step. gbmort: one multi-output tree per step. gbrt-rpo-*: one "
        "single-output tree on a random projection of the residuals, weighted per output. gbrt-relabel-rpo-*: "
        "a tree on q projections, leaves refilled with unprojected means. artificial-gbrt: the oracle that "
        "knows the friedman1 output structure."),
    row("conv_q", "slider", "Projections q (relabel only)", low=1, high=64, default=1,
        help="Rows of the random projection used by the gbrt-relabel-rpo methods; the other methods ignore it. "
        "With output sub-sampling q cannot exceed the number of outputs."),
    row("conv_learning_rate", "slider", "Learning rate μ", low=0.01, high=1.0, default=0.1, step=0.01,
        help="Shrinkage of every tree. Smaller: slower but often better optima; larger: fast, then overfits."),
    row("conv_max_leaf_nodes", "slider", "Leaves per tree", low=2, high=64, default=2,
        help="max_leaf_nodes of each best-first tree; 2 = stumps, as in Figure 1. Bigger trees learn faster per step."),
    row("conv_max_features", "selectbox", "Features per split", options=list(MAX_FEATURES),
        help="max_features: inputs drawn at each split. all = k = p, the paper's setting; fewer adds randomisation."),
    row("conv_loss", "selectbox", "Loss", options=list(LOSSES),
        help="default: square loss for regression, logistic for multi-label. absolute_error is for regression, "
        "logistic for 0/1 labels only."),
    row("conv_n_steps", "select_slider", "Boosting steps", options=STEP_OPTIONS, default=1000,
        help="Steps per method. One st-gbrt step fits one tree per output, so curves are drawn per output. "
        "The range stops where a laptop still finishes in about a minute."),
    row("conv_n_test", "select_slider", "Test samples", options=TEST_OPTIONS, default=1000,
        help="Size of the friedman1 test sample (paper: 4000). Smaller is faster, the curves a bit noisier. "
        "A shipped or uploaded data set has its own split: then the slider is off and the split is said below it."),
    row("conv_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Draws the training and test samples and seeds every model: same seed, same curves."),
    row("conv_new_seed", "button", "New seed", help="Draw new samples and projections."),
    row("conv_patience", "selectbox", "Mark early stopping (n_iter_no_change)", options=list(PATIENCE), default="10",
        help="A ◆ marks where early stopping would have stopped each method: the first step whose test "
        "score does not beat one of the previous n_iter_no_change by more than 1e-4 (scikit-learn's rule, "
        "the estimators' n_iter_no_change / tol). Fitting with early_stopping=True, n_iter_no_change and "
        "this test set as eval_set stops exactly there (and keeps its best step); without eval_set the estimators "
        "hold out validation_fraction of the training rows instead. Only drawn on display: training does not change."),
    row("conv_x_axis", "radio", "Left chart x axis", options=list(X_AXES), horizontal=True,
        help="trees: trees per output, which puts the methods on the same footing (a st-gbrt step fits d "
        "trees); steps: boosting iterations."),
    # The tree strip under the chart (pages/_tree_strip.py): its options are the run's methods and outputs.
    row("conv_strip_method", "selectbox", "Trees of", help="The first trees this method grew in the current run."),
    row("conv_strip_output", "selectbox", "output", help="st-gbrt grows one tree per output and step."),
)
