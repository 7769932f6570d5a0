"""The Projections page's parameters (pages/projections.py and its race, pages/_race.py)."""
from engine.app.page_content.page_defaults import PROJECTIONS_DATASET, PROJECTIONS_LOSS, PROJECTIONS_STEPS
from engine.app.page_content.parameters.row import rows_of
from engine.methods import BOOSTING, scheme_help
from engine.names import LEAF_ESTIMATIONS, LOSSES, PROJECTIONS

PAGE = "pages/projections.py"
EXPERIMENTS = {"size": "Number of projections q (Fig. 5-6)", "schemes": "Projection schemes (Fig. 2-4)"}
# The projected strategies of the method table (engine/methods.py), by their paper names.
STRATEGIES = {row.name: strategy for strategy, row in BOOSTING.items() if row.projected}
# Each leaf estimation (engine.names.LEAF_ESTIMATIONS) as the Leaves box shows it (and the URL holds it).
LEAVES = dict(zip(LEAF_ESTIMATIONS, ("mean (the papers: mean gradient and line search)",
                                     "newton (second-order: −Σg / (Σh + λ), λ = 1)")))

row = rows_of(PAGE, persist=True)
ROWS = (
    row("proj_experiment", "radio", "Experiment", options=list(EXPERIMENTS), captions=list(EXPERIMENTS.values()),
        help="q sweep: gbrt-relabel-rpo with q projections against gbmort. Schemes: the four random "
        "projections of section 2.3 compared on one problem."),
    # Options: the Friedman1 problems, the shipped sets (the catalogue's), and "data" with an upload.
    row("proj_dataset", "selectbox", "Data set", default=PROJECTIONS_DATASET,
        help="A synthetic Friedman1 problem (300 training samples, paper section 4.2.1), a shipped "
        "benchmark (its standard split, or a seeded 50/50 split). delicious is the papers' own set for "
        "Figures 3, 5 and 6 (12 920 + 3 185 bookmarks, 500 sparse word features, 983 tags)."),
    row("proj_n_outputs", "slider", "Outputs d (Friedman1)", low=2, high=64, default=16,
        help="Number of outputs of the synthetic problem (paper: 16)."),
    row("proj_n_test", "slider", "Test samples (Friedman1)", low=500, high=4000, default=1000, step=500,
        help="Test set size (paper: 4000); larger is smoother but slower."),
    row("proj_projection", "selectbox", "Projection scheme", options=PROJECTIONS, default="gaussian",
        help=f"How the q projections are drawn (paper section 2.3): {scheme_help()}."),
    # Its help and placeholder name the default values for the data's d (the page gives them).
    row("proj_q_values", "text_input", "Values of q", default="",
        help="Comma-separated numbers of projections per tree, at most 8 (sub-sampling needs q ≤ d)."),
    row("proj_leaf_estimation", "selectbox", "Leaves", options=list(LEAVES), labels=LEAVES,
        help="mean: the papers' leaves and line search. newton: every model (each q and gbmort) "
        "gets second-order leaves, −Σg/(Σh+λ) per output with λ = 1 — an extension beyond "
        "paper 002, after BOOMER and SketchBoost."),
    row("proj_schemes", "multiselect", "Schemes", options=PROJECTIONS, default=list(PROJECTIONS),
        help=f"Random projection schemes to compare: {scheme_help()}."),
    row("proj_algorithm", "radio", "Algorithm", options=list(STRATEGIES), horizontal=True,
        help=" ".join(f"{name}: {BOOSTING[s].description} ({BOOSTING[s].paper.split(', ')[-1]})."
                      for name, s in STRATEGIES.items())),
    *(row(f"proj_loss_{task}", "selectbox", "Loss", options=losses,
          default=PROJECTIONS_LOSS if PROJECTIONS_LOSS in losses and task == "multilabel" else losses[0],
          help="The loss the boosting minimises (paper Table 1). Multi-label: logistic (the paper's figures) or "
          "the square loss on the 0/1 labels, whose line search is closed-form and much cheaper with many labels.")
      for task, losses in LOSSES.items()),
    row("proj_n_steps", "slider", "Boosting steps", low=10, high=2000, default=PROJECTIONS_STEPS, step=10,
        help="Steps per model (the paper runs up to 10 000 with stumps)."),
    row("proj_learning_rate", "slider", "Learning rate μ", low=0.01, high=1.0, default=0.1, step=0.01,
        help="Shrinkage of each step (paper: 0.1)."),
    row("proj_max_leaf_nodes", "select_slider", "Leaves per tree", options=[2, 4, 8, 16, 32], default=2,
        help="Tree size; 2 = stumps, as in the paper's figures."),
    row("proj_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Seeds the data, the split and the projections: same seed, same numbers."),
    row("proj_new_seed", "button", "New seed", help="Draw a random seed and run again."),
    # The race (pages/_race.py): its data sets are the race's (engine.experiments.time_to_accuracy) and "data".
    row("proj_race_dataset", "radio", "Data set", horizontal=True,
        help="Wide multi-label sets with sparse inputs (bibtex: 159 labels, corel5k: 374), their "
        "standard split; or data: the data set chosen on the Data page (your upload), its standard "
        "split or a seeded 50/50 one. Score: LRAP for labels, macro-r2 for regression."),
    row("proj_race_defaults", "checkbox", "Engine defaults too", default=True,
        help="A third racer: the engine's estimator as a practitioner gets it (its defaults, only the seed set)."),
    row("proj_race_leaves", "selectbox", "Leaves", options=list(LEAVES), labels=LEAVES,
        help="mean: the papers' leaves. newton: each leaf holds −Σg/(Σh+λ) per label, an extension "
        "beyond paper 002 (as BOOMER's heads and XGBoost's leaves), without line search."),
    # Its help names the engine racer's settings (the page gives them).
    row("proj_race_steps", "slider", "Engine steps", low=10, high=300, default=60, step=10,
        help="gbrt-relabel-rpo-gaussian's boosting steps."),
    row("proj_race_rounds", "slider", "XGBoost rounds", low=5, high=100, default=25, step=5,
        help="XGBoost with its defaults: one tree per label, depth 6."),
)
