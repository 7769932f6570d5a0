"""The One step page's parameters (pages/one_step.py)."""
from engine.app.page_models import one_step as os_
from engine.app.page_content.parameters.row import rows_of
from engine.methods import BOOSTING, scheme_help
from engine.names import LEAF_ESTIMATIONS

PAGE = "pages/one_step.py"
N_TRAIN_OPTIONS = [40, 60, 80, 100, 150, 200]
LOSSES = {"regression": ("squared_error", "absolute_error"), "multilabel": ("logistic", "squared_error")}
# The methods of the Method radio: every boosting row of the method table but those that relabel another
# one's leaves, which are that method's "Relabel leaves" switch ({relabelled method: relabelling method}).
RELABELLED = {BOOSTING[row.relabels].name: row.name for row in BOOSTING.values() if row.relabels}
PICKED = [name for name in os_.METHODS if not os_.method_row(name).relabels]

row = rows_of(PAGE)
ROWS = (
    # The options: the Friedman1 problems and shipped sets, and "data" when the Data page chose a data set.
    row("os_problem", "selectbox", "Problem", options=list(os_.PROBLEMS) + [os_.DATA],
        help="friedman1-chain / -group / -ind: the paper's 16-output problems, here with few samples so "
        "every one is visible. emotions, scene, yeast: shipped multi-label sets, subsampled. data: the data "
        "set chosen on the Data page (your upload), split 50/50 and subsampled the same way."),
    row("os_n_train", "select_slider", "Training samples", options=N_TRAIN_OPTIONS, default=80,
        help="Few samples, so every row of the residual matrix is visible."),
    row("os_method", "radio", "Method", options=PICKED, default="gbrt-rpo", horizontal=True,
        help=" ".join(f"{name}: {os_.method_row(name).description}." for name in PICKED)),
    row("os_relabel", "toggle", f"Relabel leaves ({', '.join(RELABELLED.values())})", default=False,
        help="Off: each leaf keeps the mean projected residual and ρ rescales it per output (Algorithm 3). "
        "On: each leaf is refilled with the mean of the unprojected residual rows (Algorithm 4)."),
    row("os_q", "slider", "Projections q", low=1, high=16, default=1,
        help="Rows of Φ the tree is grown on (" + ", ".join(n for n in os_.METHODS if os_.method_row(n).takes_q)
        + " only; " + ", ".join(n for n in PICKED if os_.method_row(n).projected and not os_.method_row(n).takes_q)
        + " grows on one)."),
    row("os_scheme", "selectbox", "Projection scheme", options=list(os_.PROJECTIONS),
        default=list(os_.PROJECTIONS)[1], help=scheme_help("; ", ": ") + "."),
    row("os_fixed", "toggle", "Same projection at every step", default=False,
        help="Off: a fresh Φ is drawn at every step (the papers' algorithms). On: the Φ of step 1 is reused, "
        "so with output sub-sampling only the drawn outputs are ever fitted directly."),
    *(row(f"os_loss_{task}", "selectbox", "Loss", options=losses,
          help="Square or absolute loss for regression; logistic or square for multi-label.")
      for task, losses in LOSSES.items()),
    row("os_leaves", "radio", "Leaf values", options=list(LEAF_ESTIMATIONS), horizontal=True,
        help="mean: each leaf holds the mean gradient; newton: a Newton step per leaf."),
    row("os_learning_rate", "slider", "Learning rate μ", low=0.05, high=1.0, default=0.1, step=0.05,
        help="Shrinkage: the update of F is μ ρ_j times the tree."),
    row("os_leaves_per_tree", "slider", "Leaves per tree", low=2, high=8, default=4,
        help="max_leaf_nodes of each best-first tree (2 = a stump)."),
    row("os_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Draws the data, the projections and every random choice: same seed, same steps."),
    row("os_step", "number_input", "Step shown", low=0, high=os_.MAX_STEPS, default=0, step=1,
        help="The boosting step on display (in the URL: a shared link opens this step)."),
    # Its options are the outputs of the data (y1 ... yd).
    row("os_tree_output", "selectbox", "st-gbrt grows one tree per output in every step; show the tree of output",
        help="Which of this step's d trees to draw."),
)
