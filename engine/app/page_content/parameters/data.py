"""The Data page's parameters (pages/data.py and its upload, pages/_upload.py).

The friedman1 controls open on the data the app uses now (the page passes the chosen spec's values);
the defaults here are those of a fresh session, :data:`engine.app.page_models.dataspec.DEFAULT_SPEC`.
"""
from engine.app.page_content.parameters.row import rows_of
from engine.app.page_models import dataspec
from engine.names import STRUCTURES as FRIEDMAN_STRUCTURES

PAGE = "pages/data.py"
# Bound widgets put their option *strings* in the URL, so options are short words (no
# format_func) and the explanations go in captions.
SOURCES = {
    "friedman": "synthetic friedman1 (known Bayes model)",
    "shipped": "a benchmark data set of the paper",
    "upload": "your own CSV file",
}
STRUCTURE_HELP = (
    "How the outputs are linked (paper section 4.2.1). chain: each output adds fresh noise to "
    "the previous one, so neighbours are strongly correlated. group: every output is the same "
    "function plus its own noise. ind: each output is the function of its own five inputs, "
    "so the outputs are independent."
)
INPUTS = ["uniform", "gaussian"]
DEFAULT_SHIPPED = "enb"
RULES = {"last": "the last k columns", "prefix": "by name prefix", "binary": "every 0/1 column", "pick": "pick them"}
FRESH = dataspec.DEFAULT_SPEC

row = rows_of(PAGE, persist=True)
ROWS = (
    row("data_source", "radio", "Source", options=list(SOURCES), captions=list(SOURCES.values()),
        help="Synthetic data has a known Bayes model (the best possible prediction); shipped "
        "data sets are the paper's real benchmarks; or upload your own CSV file."),
    row("data_problem", "radio", "Output structure", options=list(FRIEDMAN_STRUCTURES), default=FRESH["structure"],
        horizontal=True, help=STRUCTURE_HELP),
    row("data_n_outputs", "slider", "Outputs (d)", low=1, high=64, default=FRESH["n_outputs"],
        help="Number of outputs; the paper uses 16. For ind, each output brings 5 inputs of its own."),
    row("data_n_samples", "slider", "Samples (n)", low=50, high=5000, default=FRESH["n_samples"], step=50,
        help="Rows drawn. Fewer samples make the empirical correlations noisier."),
    row("data_inputs", "radio", "Input distribution", options=INPUTS, default=FRESH["input_distribution"],
        horizontal=True,
        help="uniform: x ~ U(0, 1), as in Friedman (1991). gaussian: x ~ N(0, I), as the paper's text says."),
    row("data_noise", "slider", "Noise sd", low=0.0, high=5.0, default=float(FRESH["noise"]), step=0.1,
        help="Standard deviation of each output's Gaussian noise (paper: 1). For chain it accumulates: "
        "output j has noise variance j × sd²."),
    row("data_noisy_outputs", "slider", "Extra noisy outputs", low=0, high=64, default=FRESH["n_noisy_outputs"],
        help="Outputs unrelated to x: shuffled copies of real outputs (paper Table 6 adds 16). "
        "They test whether a method is misled by irrelevant outputs."),
    row("data_seed", "number_input", "Seed", low=0, high=2**31 - 1, default=FRESH["seed"], step=1,
        help="Random seed of the draw: the same seed gives the same data, on every machine."),
    row("data_new_seed", "button", "New seed", help="Draw a fresh sample with a random seed."),
    # Options: the shipped catalogue's data sets (known at run time).
    row("data_dataset", "selectbox", "Data set", default=DEFAULT_SHIPPED,
        help="The real benchmarks of the paper (Mulan collection): multi-output regression and "
        "multi-label classification."),
    # An upload's separator and targets (pages/_upload.py) open on the session's choice for that file.
    row("data_sep", "selectbox", "Separator", options=list(dataspec.SEPARATORS),
        help="The character between columns: comma , · semicolon ; · tab · pipe |"),
    row("data_target_rule", "radio", "Targets", options=list(RULES), captions=list(RULES.values()),
        help="The outputs to predict, chosen in one move; every other column is an input feature. "
        "Whatever the rule, the targets keep the file's column order."),
    row("data_target_k", "number_input", "k (the last k columns are the targets)", low=1, high=1999, default=1,
        help="The file's last k columns are the outputs, in the file's order; the others are features."),
    row("data_target_prefix", "text_input", "Target names start with", default="", placeholder="e.g. tag_",
        help="Every column whose name starts with this text is an output (case-sensitive)."),
)
