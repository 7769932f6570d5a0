"""The Benchmark page's parameters (pages/benchmark.py, and its real-data mode, pages/_real_data.py)."""
from engine.app.page_content.parameters.row import rows_of
from engine.experiments import model_selection as ms
from engine.experiments.published import REPRODUCTION_REFIT, TABLE4_ESTIMATORS
from engine.names import REAL_DATA_METHODS, SECOND_ORDER_METHODS

PAGE = "pages/benchmark.py"
MODES = ("one data set", "real-data study")
DEFAULT_DATASET = "friedman1-group"
DEFAULT_ESTIMATORS = list(TABLE4_ESTIMATORS)  # the five methods of Table 4 (~1.4 s on quick)
ALL_ESTIMATORS = list(ms.KNOWN_NAMES)  # artificial-gbrt, boosting, our forests, scikit-learn
BUDGET_HELP = {
    "quick": "2 learning rates × 2 tree sizes, 100 steps: seconds. For a first look and for teaching.",
    "moderate": "4 learning rates × 3 tree sizes × 2 feature fractions, 1000 steps: minutes.",
    "full": "The paper's grid: 7 learning rates × 7 tree sizes × 5 feature fractions × 2 losses, "
    "10 000 steps: hours to days on this machine.",
}
STUDY_BUDGETS = ("quick", "moderate")             # the real-data study's; the paper's grid is for the command line
STUDY_BUDGET_HELP = {
    "quick": "2 splits, 4 settings per method, 10-tree forests: a few minutes for the paper's list.",
    "moderate": "5 splits, 16 settings per method (learning rate × leaves × k × loss), the paper's "
                "forests, BOOMER's defaults: about an hour for the paper's list on two cores."}

row = rows_of(PAGE)
ROWS = (
    row("bench_mode", "radio", "Mode", options=MODES, horizontal=True,
        help="**one data set**: the Table 4 protocol on one data set, with scikit-learn reference rows. "
        "**real-data study**: paper 002's section 4.4 on several shipped data sets, ranks, Friedman / "
        "Nemenyi and Wilcoxon tests next to the paper's (Figures 7-8, Tables 8-12), BOOMER beside it."),
    # Options: the Friedman1 problems, the shipped sets (the catalogue's) and the Data page's choice.
    row("bench_dataset", "selectbox", "Data set", default=DEFAULT_DATASET,
        help="friedman1 chain / group / ind are the paper's synthetic problems (Table 4): each repeat "
        "is a random 300/4000 split of one 4300-sample draw. Shipped data sets are split at random "
        "with their standard split's sizes, else 40 % training, 10 % validation and 50 % test "
        "(paper section 4.1.3). 'The Data page's choice' uses the data set chosen there."),
    row("bench_estimators", "multiselect", "Estimators", options=ALL_ESTIMATORS, default=DEFAULT_ESTIMATORS,
        help="Our boosting variants (st-gbrt: one model per output; gbmort: multi-output trees; "
        "gbrt-rpo / gbrt-relabel-rpo: trees on random output projections), our forests (mo-rf, "
        "st-rf, mo-et, and rf-<scheme>-shared / -per-tree: random forests on projected outputs, "
        "paper 003, q = ln d, Algorithm 1 / 2), artificial-gbrt (the "
        "oracle that knows the friedman1 output structure; friedman1 only), defaults (our boosting estimator as "
        "a practitioner gets it: its defaults, only the seed set, nothing selected) and scikit-learn "
        "references: sklearn-gb (GradientBoosting per output, steps chosen on validation), "
        "sklearn-rf (one forest of multi-output trees) and sklearn-st-rf (one forest per output). "
        "Every forest, ours and scikit-learn's, uses the paper's defaults (100 trees; k = p/3, min_samples_split 5 in "
        "regression; k = √p, fully grown in classification)."),
    row("bench_refs", "checkbox", "scikit-learn reference rows", default=True,
        help="Add scikit-learn's gradient boosting fitted per output (sklearn-gb, same grid, steps chosen on "
        "validation) and its multi-output random forest (sklearn-rf) as reference rows. sklearn-gb makes a "
        "quick friedman1 run take about half a minute instead of a few seconds: untick for a faster run."),
    row("bench_peers", "checkbox", "XGBoost and the engine's defaults", default=True,
        help="Add the two fits a practitioner makes first, nothing selected: defaults (our boosting estimator "
        "with its defaults, only the seed set) and XGBoost with its defaults (one tree per output, depth 6, "
        "100 rounds, one thread)."),
    row("bench_noisy", "slider", "Extra noisy outputs (Table 6)", low=0, high=32, default=0, step=4,
        help="friedman1 only: append this many purely noisy outputs (rows of real outputs permuted, "
        "section 4.2.3). The paper's Table 6 adds 16: the table then also shows half-macro-r2, the score "
        "on the 16 real outputs, next to the paper's."),
    row("bench_budget", "radio", "Search budget", options=list(ms.BUDGETS), horizontal=True,
        help="How big the hyper-parameter grid and the step limit are. "
        + " ".join(f"**{k}**: {v}" for k, v in BUDGET_HELP.items())),
    row("bench_repeats", "slider", "Repeats (random splits)", low=2, high=10, default=2,
        help=f"Independent train/test splits; the paper uses 5. More repeats give a steadier mean and "
        f"a more powerful t-test, at a proportional cost. No difference is called significant before "
        f"{ms.MIN_TEST_REPEATS} repeats (with 2, the t-test has one degree of freedom)."),
    row("bench_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Seeds the data draw (friedman1), the splits and the models: the same seed gives the same table."),
    # The real-data study (pages/_real_data.py). Its data sets: the paper's list that this project ships.
    row("bench_rd_datasets", "multiselect", "Data sets",
        help="The data sets of the paper's section 4.4 that this project ships (multi-label: LRAP; "
        "regression: macro-r2). Splits keep the paper's train/test sizes (Tables 2-3), 50/50 where it gives none."),
    row("bench_rd_papers_list", "button", "The paper's list", help="Select every shipped data set of the paper's list."),
    row("bench_rd_methods", "multiselect", "Methods", options=list(REAL_DATA_METHODS), default=list(REAL_DATA_METHODS),
        help="The eight methods of section 4.4 (st-gbrt / st-rf are the paper's br-gbrt / br-rf in multi-label)."),
    # On when BOOMER is installed (the page knows).
    row("bench_rd_boomer", "checkbox", "BOOMER reference rows", default=False,
        help="BOOMER (paper 004, the real mlrl-boomer package) with its defaults and with its "
        "non-decomposable logistic loss, on the multi-label data sets."),
    row("bench_rd_newton", "checkbox", "Second-order rows (Newton leaves)", default=False,
        help="Extra rows, an extension beyond the paper: " + ", ".join(SECOND_ORDER_METHODS) + " (each leaf "
        "holds −Σg/(Σh+λ) per output, λ = 1, no line search). Ranked apart from the paper's eight methods, "
        "whose ranks stay comparable to the paper's."),
    row("bench_rd_budget", "radio", "Budget", options=STUDY_BUDGETS, horizontal=True,
        help=" ".join(f"**{k}**: {v}" for k, v in STUDY_BUDGET_HELP.items())),
    row("bench_rd_refit", "checkbox", "Refit the chosen setting on the whole training set", default=REPRODUCTION_REFIT,
        help="The paper does not say whether the chosen boosting setting is fitted again on "
        "training + validation before the test. Both scores are computed; this picks the one ranked."),
    row("bench_rd_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=0, step=1,
        help="Seeds the splits and the models: the same seed gives the same tables."),
)
