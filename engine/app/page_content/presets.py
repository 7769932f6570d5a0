"""Presets: one-click starting points that reproduce a figure or table of the paper.

Plain Python (no streamlit), so the app, scripts and tests share one definition.

Each preset is a dict with
    label         text of the link ("Figure 1a: convergence on chain")
    page          the target page file, relative to the repository root ("pages/convergence.py"),
                  exactly as it is registered in ``app.py``
    query_params  dict of str -> str that the target page reads from ``st.query_params``
                  (widgets bound with ``bind="query-params"`` pick them up), built by
                  :func:`engine.app.page_content.parameters.query` from the parameter table: a
                  name the target page does not have is an error when this module loads
    description   one sentence saying what the user will see

A preset whose page waits for a click on bigger runs carries ``go=1``
(``pages/_deeplink.preset_go``): the page starts the run at once, so the link's one click
runs what it promises (issue 21).

The Home page renders a preset as a link only when its target page is registered in
``app.py``; presets of pages that are not written yet are listed without a link.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.app.page_content.parameters import query

CONV, PROJ, BENCH, FX, BV = ("pages/convergence.py", "pages/projections.py", "pages/benchmark.py",
                             "pages/forests.py", "pages/bias_variance.py")

# Stumps (2 leaves), learning rate 0.1, square loss, st-gbrt / gbmort / gbrt-rpo-subsampled: the
# setting of Figure 1 (section 4.2.2); those three methods are the page's default. Names are
# pages/convergence.py's parameters (engine/app/page_content/parameters/convergence.py).
_FIGURE1 = {"learning_rate": "0.1", "max_leaf_nodes": "2", "n_steps": "2000", "seed": "0"}
# Which panel of paper 002's Figure 1 shows which problem (section 4.2.2: "On the friedman1-chain (see
# Figure 1a) and friedman1-group (see Figure 1b) ... friedman1-ind (see Figure 1c)"). The presets' labels
# and the Convergence page's text both read it, so they cannot disagree.
FIGURE1_PANELS = {"chain": "Figure 1a", "group": "Figure 1b", "ind": "Figure 1c"}

PRESETS: list[dict] = [
    {
        "label": f"{FIGURE1_PANELS['chain']}: convergence on chain",
        "page": "pages/convergence.py",
        "query_params": query(CONV, problem="chain", **_FIGURE1),
        "description": "st-gbrt, gbmort and gbrt-rpo on friedman1-chain: sharing trees converges far faster.",
    },
    {
        "label": f"{FIGURE1_PANELS['group']}: convergence on group",
        "page": "pages/convergence.py",
        "query_params": query(CONV, problem="group", **_FIGURE1),
        "description": "The same three methods on friedman1-group, where averaging outputs filters noise.",
    },
    {
        "label": f"{FIGURE1_PANELS['ind']}: convergence on ind",
        "page": "pages/convergence.py",
        # 10000 steps (the paper's range): at 2000 gbmort and gbrt-rpo were still rising (best step =
        # last), so "st-gbrt ends best" came from the budget. Measured: best steps 313 (st-gbrt), 7317
        # (gbmort), 5166 (gbrt-rpo-subsampled); 26 s at load ~8 on 2 cores, hence go=1.
        "query_params": query(CONV, problem="ind", **{**_FIGURE1, "n_steps": "10000"}, go="1"),
        "description": "Independent outputs: each method trained to its plateau (10 000 steps, about 30 s).",
    },
    {
        "label": "Figure 5 on delicious",
        "page": "pages/projections.py",
        # Paper 002 Figure 5b on the real delicious (12 920 x 500 sparse -> 983 labels): output
        # sub-sampling with q = 1, 98, 196, 491 against gbmort, stumps, mu = 0.1, the paper's logistic
        # loss. 50 steps (the paper draws the curves against fit time; its step count is not printed).
        # Sub-sampled rather than Gaussian (5a): Gaussian q = 491 costs seconds per step until the
        # projection is a BLAS product. go=1: the server's start-up fill computes it (pages/_warm.py); a cold click runs it with its estimate shown (about 2 minutes).
        "query_params": query(PROJ, experiment="size", dataset="delicious", projection="subsample",
                              q_values="1,98,196,491", n_steps="50", learning_rate="0.1", max_leaf_nodes="2",
                              loss_multilabel="logistic", seed="0", go="1"),
        "description": "gbmort against gbrt-relabel-rpo with q sub-sampled outputs on delicious (983 labels): "
        "test LRAP against fit time, the paper's Figure 5b on the real data.",
    },
    {
        "label": "Figure 6 on delicious",
        "page": "pages/projections.py",
        # Paper 002 Figure 6 on the real delicious: 100 stumps, mu = 0.1, logistic loss, Gaussian
        # projections, q = 1, 20 (the paper: gbmort's LRAP from q >= 20, in 7 times less time) and 50.
        # go=1: the start-up fill computes it; cold, about 3 minutes with its estimate shown. The synthetic delicious-shaped
        # set this preset used to run learns nothing; it stays in the engine for the bench only.
        "query_params": query(PROJ, experiment="size", dataset="delicious", projection="gaussian",
                              q_values="1,20,50", n_steps="100", learning_rate="0.1", max_leaf_nodes="2",
                              loss_multilabel="logistic", seed="0", go="1"),
        "description": "gbrt-relabel-rpo with q Gaussian projections against gbmort on delicious (12 920 "
        "bookmarks, 500 sparse word features, 983 tags): does q = 20 reach gbmort's LRAP, and in how much time?",
    },
    {
        "label": "Figure 6 on bibtex (real data)",
        "page": "pages/projections.py",
        # The same reading on a real wide-output set the paper's studies use (d = 159, sparse bag of
        # words), where the models do learn (LRAP from 0.14 to about 0.41): 100 stumps as in the
        # paper, q = 1 and about 10 / 20 / 50 % of d; the square loss, because the logistic loss's
        # line searches make the run about five times longer. Measured: 8.7 s in all at load 1.5;
        # q = 1 reaches gbmort's LRAP (0.409 against 0.405) in 17 % of its fit time.
        "query_params": query(PROJ, experiment="size", dataset="bibtex", projection="gaussian",
                              q_values="1,16,32,80", n_steps="100", learning_rate="0.1", max_leaf_nodes="2",
                              loss_multilabel="squared_error", seed="0", go="1"),
        "description": "gbrt-relabel-rpo with q Gaussian projections against gbmort on bibtex (4880 training "
        "documents, 1836 sparse word features, 159 labels): the score gbmort reaches, and what each q costs.",
    },
    {
        # The Benchmark page's default estimators are Table 4's five methods; the dataset
        # selectbox offers group / ind next to chain.
        "label": "Table 4: all methods on chain (then group / ind)",
        "page": "pages/benchmark.py",
        "query_params": query(BENCH, dataset="friedman1-chain", budget="quick", repeats="5", seed="0", go="1"),
        "description": "artificial-gbrt, st-gbrt, gbmort and both rpo variants, hyper-parameters chosen on "
        "validation, macro-r2 on the test set next to the paper's Table 4, with Table 5's t-tests.",
    },
    {
        # Paper 003 Fig. 1 runs on the multi-label sets; emotions (6 labels) runs in seconds.
        "label": "Forests, paper 003 Figure 1: projection size",
        "page": "pages/forests.py",
        "query_params": query(FX, exp="size", data="emotions", q="1, 2, 3, 6", seed="0"),
        "description": "A single tree, Algorithm 1 (one projection) and Algorithm 2 (a projection per tree) "
        "against q, with the forest on the original outputs as the reference.",
    },
    {
        # Thesis Figure 5.1 (paper 003 section 4) on the real delicious, smaller: 10 trees instead of
        # 100, q = 1, 25, 200, one repeat; k = sqrt(p), n_min = 1, single unpruned trees too. About
        # 2 minutes cold; go=1: the start-up fill computes it, a cold click runs it with its estimate shown.
        "label": "Forests on delicious: thesis Figure 5.1",
        "page": "pages/forests.py",
        "query_params": query(FX, exp="size", data="delicious", q="1, 25, 200", single="True", trees="10",
                              seed="0", go="1"),
        "description": "Single unpruned trees and forests (Algorithms 1 and 2) on q Gaussian projections of "
        "delicious' 983 tags, against the tree and forest on the original tags.",
    },
    {
        "label": "Forests on delicious: k against q (thesis Figure 5.3)",
        "page": "pages/forests.py",
        # q in {1, ln d = 7}, k = 2, 22 (sqrt(p)), 100; 10 trees. About 2 minutes cold.
        "query_params": query(FX, exp="randomization", data="delicious", q="1, 7", k="2, 22, 100", trees="10",
                              seed="0", go="1"),
        "description": "Input randomization (k features per node) against output randomization (q Gaussian "
        "projections) on delicious, the forest on the original tags at each k.",
    },
    {
        "label": "Forests on delicious: projection schemes (thesis Figure 5.4)",
        "page": "pages/forests.py",
        # Gaussian, Rademacher (s = 3), sparse Rademacher (s = sqrt(d)) and output sub-sampling at
        # q = 1, 25, 100; 10 trees. About 2 minutes cold.
        "query_params": query(FX, exp="schemes", data="delicious", q="1, 25, 100", trees="10", seed="0", go="1"),
        "description": "Dense against sparse output projections for forests on delicious: the thesis finds the "
        "sparse ones ahead of the forest on the original tags at small q.",
    },
    {
        # Thesis Table 7.1's setting on its Friedman1 (p = 10): extra trees M = 100, K = p, n_min = 1,
        # t by 10-fold cross-validation. A few seconds.
        "label": "Thesis Table 7.1: compress a forest",
        "page": "pages/forests.py",
        "query_params": query(FX, exp="compression", cdata="friedman1", trees="100", nmin="1", cv="10",
                              seed="0"),
        "description": "An extra-trees forest rewritten as a linear model on its node indicators and pruned by "
        "the monotone Lasso: about 30 times fewer test nodes, the same accuracy.",
    },
    {
        "label": "Table 6: 16 noisy outputs on group",
        "page": "pages/benchmark.py",
        "query_params": query(BENCH, dataset="friedman1-group", noisy="16", budget="quick", repeats="5",
                              seed="0", go="1"),
        "description": "Table 6: 16 purely noisy outputs appended; half-macro-r2 scores the 16 real ones.",
    },
    {
        "label": "Bias–variance of stumps vs depth",
        "page": "pages/bias_variance.py",
        "query_params": query(BV, problem="group", sweep="n_estimators", max_leaf_nodes="2", compare_leaves="8",
                              seed="0"),
        "description": "How bias² and variance move with the number of boosting steps, for stumps and 8-leaf trees.",
    },
]


def teacher_link(act: int, minutes: int, label: str, page: str, params: dict, *, hide=(), description: str) -> dict:
    """A preset for one act of a class: ``params`` (the page's parameters, bare or whole names) plus
    ``hide`` (what the class should not see: ``"sidebar"`` or controls of ``page``, joined into the
    ``hide`` parameter that pages/_classroom.py reads), built by :func:`query`."""
    # predict=true: the class is asked what it expects before each chart (pages/_predict.py)
    built = query(page, **params, predict="true", **({"hide": tuple(hide)} if hide else {}))
    return {"act": act, "minutes": minutes, "label": label, "page": page, "query_params": built,
            "hide": tuple(built["hide"].split(",")) if hide else (), "description": description}


def _figure1(problem):
    return next(p["query_params"] for p in PRESETS if p["query_params"].get("conv_problem") == problem)


# A 45-minute class on "why project the outputs?", one link per act (Home's "For teachers" section).
# Each hides what would distract from the act's one knob: controls of the page's parameter table.
TEACHER_LINKS: list[dict] = [
    teacher_link(
        1, 15, "Act 1 · the problem: Figure 1 on chain, group and ind", CONV, _figure1("chain"),
        hide=("variants", "q", "learning_rate", "max_leaf_nodes", "max_features", "loss", "n_steps", "n_test", "seed",
              "new_seed", "patience", "x_axis"),
        description="Only the Problem switch is left: press Start on chain, then group and ind. One model per "
        "output (st-gbrt) against one tree for all (gbmort) and one tree on a random projection (gbrt-rpo)."),
    teacher_link(
        2, 15, "Act 2 · one step: how a projected tree is grown", "pages/one_step.py",
        {"problem": "friedman1-chain", "method": "gbrt-rpo", "seed": "0"},
        hide=("problem", "n_train", "relabel", "q", "scheme", "fixed", "loss_regression", "leaves", "learning_rate",
              "leaves_per_tree", "seed"),
        description="Only the Method switch and the Step buttons: the residuals, the random projection, the tree "
        "grown on it, the weight ρ of every output and the update, one step at a time."),
    teacher_link(
        3, 15, "Act 3 · the cost: seconds per step against d", "pages/cost.py", {},
        hide=("sidebar",),
        description="No controls at all: the measured cost of one step of each method from 4 to 1000 outputs, "
        "and the slopes that are the paper's argument (section 3). Projections' q sweep (Figure 6 on bibtex, "
        "in the presets above) shows the same saving on real data, with the score it keeps."),
]


def presets_for(registered_pages: Iterable[str], presets: list[dict] | None = None) -> list[dict]:
    """Return the presets whose target page is in ``registered_pages`` (order kept)."""
    registered = {_norm(p) for p in registered_pages}
    return [p for p in (PRESETS if presets is None else presets) if _norm(p["page"]) in registered]


def _norm(path: str) -> str:
    return str(path).replace("\\", "/").removeprefix("./")
