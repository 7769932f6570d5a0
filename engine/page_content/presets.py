"""Presets: one-click starting points that reproduce a figure or table of the paper.

Plain Python (no streamlit), so the app, scripts and tests share one definition.

Each preset is a dict with
    label         text of the link ("Figure 1a: convergence on chain")
    page          the target page file, relative to the repository root ("pages/convergence.py"),
                  exactly as it is registered in ``app.py``
    query_params  dict of str -> str that the target page reads from ``st.query_params``
                  (widgets bound with ``bind="query-params"`` pick them up); every name carries
                  the target page's prefix (conv_, proj_, bv_, bench_, fx_, ...), as its widget
                  keys do, so no setting reaches another page (tests/app/test_page_state.py)
    description   one sentence saying what the user will see

A preset whose page waits for a click on bigger runs carries ``go=1``
(``pages/_deeplink.preset_go``): the page starts the run at once, so the link's one click
runs what it promises (issue 21).

The Home page renders a preset as a link only when its target page is registered in
``app.py``; presets of pages that are not written yet are listed without a link. The
query-parameter names are provisional until their target page exists: whoever writes a
page must keep its widget keys and the names here in step (``tests/app/test_home.py`` checks
that a registered page's presets render as links).
"""

from __future__ import annotations

from collections.abc import Iterable

# Stumps (2 leaves), learning rate 0.1, square loss, st-gbrt / gbmort / gbrt-rpo-subsampled: the
# setting of Figure 1 (section 4.2.2); those three methods are the page's default. Names are
# pages/convergence.py's widget keys (= URL parameters), each with the page's prefix conv_:
# problem (group / chain / ind / data), variants (repeated: conv_variants=a&conv_variants=b), q,
# learning_rate, max_leaf_nodes, max_features, loss, n_steps, n_test, seed, x_axis (trees / steps).
_FIGURE1 = {"conv_learning_rate": "0.1", "conv_max_leaf_nodes": "2", "conv_n_steps": "2000", "conv_seed": "0"}

PRESETS: list[dict] = [
    {
        "label": "Figure 1a: convergence on chain",
        "page": "pages/convergence.py",
        "query_params": {"conv_problem": "chain", **_FIGURE1},
        "description": "st-gbrt, gbmort and gbrt-rpo on friedman1-chain: sharing trees converges far faster.",
    },
    {
        "label": "Figure 1b: convergence on group",
        "page": "pages/convergence.py",
        "query_params": {"conv_problem": "group", **_FIGURE1},
        "description": "The same three methods on friedman1-group, where averaging outputs filters noise.",
    },
    {
        "label": "Figure 1c: convergence on ind",
        "page": "pages/convergence.py",
        # 10000 steps (the paper's range): at 2000 gbmort and gbrt-rpo were still rising (best step =
        # last), so "st-gbrt ends best" came from the budget. Measured: best steps 313 (st-gbrt), 7317
        # (gbmort), 5166 (gbrt-rpo-subsampled); 26 s at load ~8 on 2 cores, hence go=1.
        "query_params": {"conv_problem": "ind", **_FIGURE1, "conv_n_steps": "10000", "go": "1"},
        "description": "Independent outputs: each method trained to its plateau (10 000 steps, about 30 s).",
    },
    {
        "label": "Figure 5: projection size",
        "page": "pages/projections.py",
        # cal500 (174 labels) stands in for the paper's delicious (983 labels): q = 1 and about
        # 10 / 20 / 50 % of d, as 1 / 98 / 196 / 491 of 983 in the paper. About 20 s: go=1 starts it
        # on the link's click.
        "query_params": {"proj_experiment": "size", "proj_dataset": "cal500", "proj_projection": "gaussian",
                         "proj_q_values": "1,17,35,87", "proj_n_steps": "100", "proj_seed": "0", "go": "1"},
        "description": "gbmort versus gbrt-relabel-rpo with q random projections: score against fit time.",
    },
    {
        "label": "Figure 6 at delicious scale",
        "page": "pages/projections.py",
        # Paper 002 Figure 6 runs delicious (12920 x 500 -> 983 labels, 100 stumps, q = 1 ... 491,
        # logistic loss); delicious is not shipped, so this is scikit-learn's multi-label generator at
        # its size (synthetic-delicious-shape, sparse inputs). Under a minute on the 2-core machine:
        # 40 stumps, q = 1 and 20 (the paper: gbmort's LRAP from q >= 20), the square loss (the
        # logistic loss's line searches cost ~20 times more per step at d = 983). Measured: 32 s in
        # all at load 1.9 (30 steps: 27 s, 50: 37 s); q = 1 took 8 % of gbmort's fit time, q = 20 25 %.
        # Trees learn next to nothing from this generator: the page draws the constant model and
        # says so; the bibtex preset below is the one where the scores mean something.
        "query_params": {"proj_experiment": "size", "proj_dataset": "synthetic-delicious-shape", "proj_projection": "gaussian",
                         "proj_q_values": "1,20", "proj_n_steps": "40", "proj_learning_rate": "0.1", "proj_max_leaf_nodes": "2",
                         "proj_loss_multilabel": "squared_error", "proj_seed": "0", "go": "1"},
        "description": "gbrt-relabel-rpo with q Gaussian projections against gbmort on 16105 samples, 500 sparse "
        "inputs and 983 labels (a synthetic set of delicious's shape): what each costs at the paper's scale.",
    },
    {
        "label": "Figure 6 on bibtex (real data)",
        "page": "pages/projections.py",
        # The same reading on a real wide-output set the paper's studies use (d = 159, sparse bag of
        # words), where the models do learn (LRAP from 0.14 to about 0.41): 100 stumps as in the
        # paper, q = 1 and about 10 / 20 / 50 % of d; the square loss, because the logistic loss's
        # line searches make the run about five times longer. Measured: 8.7 s in all at load 1.5;
        # q = 1 reaches gbmort's LRAP (0.409 against 0.405) in 17 % of its fit time.
        "query_params": {"proj_experiment": "size", "proj_dataset": "bibtex", "proj_projection": "gaussian",
                         "proj_q_values": "1,16,32,80", "proj_n_steps": "100", "proj_learning_rate": "0.1", "proj_max_leaf_nodes": "2",
                         "proj_loss_multilabel": "squared_error", "proj_seed": "0", "go": "1"},
        "description": "gbrt-relabel-rpo with q Gaussian projections against gbmort on bibtex (4880 training "
        "documents, 1836 sparse word features, 159 labels): the score gbmort reaches, and what each q costs.",
    },
    {
        # The Benchmark page's default estimators are Table 4's five methods; the dataset
        # selectbox offers group / ind next to chain.
        "label": "Table 4: all methods on chain (then group / ind)",
        "page": "pages/benchmark.py",
        "query_params": {"bench_dataset": "friedman1-chain", "bench_budget": "quick", "bench_repeats": "5", "bench_seed": "0",
                         "go": "1"},
        "description": "artificial-gbrt, st-gbrt, gbmort and both rpo variants, hyper-parameters chosen on "
        "validation, macro-r2 on the test set next to the paper's Table 4, with Table 5's t-tests.",
    },
    {
        # Paper 003 Fig. 1 runs on the multi-label sets; emotions (6 labels) runs in seconds.
        "label": "Forests, paper 003 Figure 1: projection size",
        "page": "pages/forests.py",
        "query_params": {"fx_exp": "size", "fx_data": "emotions", "fx_q": "1, 2, 3, 6", "fx_seed": "0"},
        "description": "A single tree, Algorithm 1 (one projection) and Algorithm 2 (a projection per tree) "
        "against q, with the forest on the original outputs as the reference.",
    },
    {
        # Thesis Table 7.1's setting on its Friedman1 (p = 10): extra trees M = 100, K = p, n_min = 1,
        # t by 10-fold cross-validation. A few seconds.
        "label": "Thesis Table 7.1: compress a forest",
        "page": "pages/forests.py",
        "query_params": {"fx_exp": "compression", "fx_cdata": "friedman1", "fx_trees": "100", "fx_nmin": "1",
                         "fx_cv": "10", "fx_seed": "0"},
        "description": "An extra-trees forest rewritten as a linear model on its node indicators and pruned by "
        "the monotone Lasso: about 30 times fewer test nodes, the same accuracy.",
    },
    {
        "label": "Table 6: 16 noisy outputs on group",
        "page": "pages/benchmark.py",
        "query_params": {"bench_dataset": "friedman1-group", "bench_noisy": "16", "bench_budget": "quick",
                         "bench_repeats": "5", "bench_seed": "0", "go": "1"},
        "description": "Table 6: 16 purely noisy outputs appended; half-macro-r2 scores the 16 real ones.",
    },
    {
        "label": "Bias–variance of stumps vs depth",
        "page": "pages/bias_variance.py",
        "query_params": {"bv_problem": "group", "bv_sweep": "n_estimators", "bv_max_leaf_nodes": "2",
                         "bv_compare_leaves": "8", "bv_seed": "0"},
        "description": "How bias² and variance move with the number of boosting steps, for stumps and 8-leaf trees.",
    },
]


def presets_for(registered_pages: Iterable[str], presets: list[dict] | None = None) -> list[dict]:
    """Return the presets whose target page is in ``registered_pages`` (order kept)."""
    registered = {_norm(p) for p in registered_pages}
    return [p for p in (PRESETS if presets is None else presets) if _norm(p["page"]) in registered]


def _norm(path: str) -> str:
    return str(path).replace("\\", "/").removeprefix("./")
