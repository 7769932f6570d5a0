"""Speed of the boosting engine next to scikit-learn at the papers' teaching size.

    python -m engine.bench [--trees 2000] [--repeats 3] [--quick]

(``python -m engine.bench --scale`` runs the research-size benchmark instead:
:mod:`engine.bench.scale`.)

For friedman1-group (n=300, p=5, d=16) and friedman1-ind (n=300, p=80,
d=16), stumps and learning rate 0.1, it prints the milliseconds per 1000
trees for each strategy, next to scikit-learn's GradientBoostingRegressor and
HistGradientBoostingRegressor fitted per output (MultiOutputRegressor), and
the ratio. A tree is one stump: single target grows d of them per step, the
other strategies one. Every timing, ours and scikit-learn's alike, is the
best of ``--repeats`` runs, because machines are shared and noisy; ratios
taken in the same run are what to compare across machines.

It also checks that single-output st-gbrt predicts what
GradientBoostingRegressor predicts, and exits with status 1 when the largest
difference exceeds ``MAX_SINGLE_OUTPUT_DIFF``.

Forests (paper 003): on cal500 (n=502, p=68, d=174 labels, treated as
real outputs) it prints the milliseconds per fully grown tree of
ProjectedForestRegressor (bootstrap, max_features="sqrt", one thread) without
projection (q = d), with a per-tree Gaussian projection of q = d (the cost of
projecting alone) and with per-tree Gaussian and sub-sampled projections of
small q, next to scikit-learn's multi-output RandomForestRegressor with the
same settings. ``--forest-trees`` trees per fit, best of ``--repeats``.

Compression (thesis chapter 7, Table 7.1's Friedman1 setting: 300 samples,
p = 10, extra trees M = 100, K = p, n_min = 1): the seconds to grow the forest,
to lift the training set to its node indicators and follow the forward
stagewise path (eps = 0.01) to its end, and for the whole
CompressedForestRegressor fit with 10-fold cross-validation (11 forests and
paths). Target: the path under 10 s on a 2-core machine.

Missing targets (not a timing): on friedman1-group (300 training samples,
4000 test samples, d=16) with 30 % of Y's entries missing at random, each
strategy is fitted with ``missing_targets="ignore"`` and on the full Y
(Figure 1's settings: stumps, learning rate 0.1, ``MISSING_STEPS`` steps);
it prints both test macro-r2 and their ratio, and exits with status 1 when
a ratio falls below ``MIN_MISSING_RATIO`` (the target: within 5 %).
"""
import sys

import numpy as np
from sklearn.ensemble import (
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.multioutput import MultiOutputRegressor

from engine.bench.timing import best_time
from engine.datasets import load_dataset, make_friedman1, make_friedman1_multioutput
from engine.estimators.compression import CompressedForestRegressor, StagewisePath
from engine.estimators.forest import ProjectedForestRegressor
from engine.estimators.registry import make_estimator

STRATEGY_NAMES = (
    "st-gbrt", "gbmort", "gbrt-rpo-subsampled", "gbrt-rpo-gaussian",
    "gbrt-relabel-rpo-subsampled", "gbrt-relabel-rpo-gaussian",
)
PROBLEMS = (("friedman1-group", "group"), ("friedman1-ind", "ind"))
MAX_SINGLE_OUTPUT_DIFF = 1e-8
MISSING_FRACTION = 0.3
MISSING_STEPS = 500
MIN_MISSING_RATIO = 0.95
MISSING_NAMES = ("st-gbrt", "gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-gaussian")


def time_engine(name, X, Y, n_trees, repeats):
    d = Y.shape[1]
    steps = max(1, n_trees // d) if name == "st-gbrt" else n_trees
    model = make_estimator(name, n_estimators=steps, learning_rate=0.1, max_leaf_nodes=2,
                           random_state=0)
    seconds = best_time(lambda: model.fit(X, Y), repeats)
    return 1000.0 * seconds / model.trees_.n_trees * 1000.0


def time_sklearn(kind, X, Y, n_trees, repeats):
    per_output = max(1, n_trees // Y.shape[1])
    if kind == "gb":
        base = GradientBoostingRegressor(n_estimators=per_output, max_depth=1, learning_rate=0.1,
                                         random_state=0)
    else:
        base = HistGradientBoostingRegressor(max_iter=per_output, max_leaf_nodes=2,
                                             learning_rate=0.1, early_stopping=False,
                                             random_state=0)
    model = MultiOutputRegressor(base)
    seconds = best_time(lambda: model.fit(X, Y), repeats)
    return 1000.0 * seconds / (per_output * Y.shape[1]) * 1000.0


def check_single_output(n_steps=200):
    """Largest |difference| between st-gbrt and GradientBoostingRegressor (one output)."""
    X, Y, _ = make_friedman1_multioutput("group", n_samples=300, n_outputs=1, random_state=1)
    ours = make_estimator("st-gbrt", n_estimators=n_steps, learning_rate=0.1).fit(X, Y[:, 0])
    theirs = GradientBoostingRegressor(n_estimators=n_steps, max_depth=1, learning_rate=0.1).fit(X, Y[:, 0])
    X_new, _, _ = make_friedman1_multioutput("group", n_samples=1000, n_outputs=1, random_state=2)
    return float(np.abs(ours.predict(X_new) - theirs.predict(X_new)).max())


def ratio_text(ratio):
    """A speed ratio with two significant digits at least: a ratio below 1 (scikit-learn's HGB is
    faster than its GB) is not printed as "0x"."""
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2f}x"


def run(n_trees=2000, sklearn_trees=1000, repeats=3, out=sys.stdout, check_steps=200):
    """Print the boosting table; return (rows, max single-output difference).

    rows are (problem, estimator, ms per 1000 stumps, GB ratio, HGB ratio).
    """
    rows = []
    for label, structure in PROBLEMS:
        X, Y, _ = make_friedman1_multioutput(structure, n_samples=300, random_state=0)
        gb = time_sklearn("gb", X, Y, sklearn_trees, repeats)
        hgb = time_sklearn("hgb", X, Y, sklearn_trees, repeats)
        for name in STRATEGY_NAMES:
            ms = time_engine(name, X, Y, n_trees, repeats)
            rows.append((label, name, ms, gb / ms, hgb / ms))
        rows.append((label, "sklearn GradientBoostingRegressor per output", gb, 1.0, hgb / gb))
        rows.append((label, "sklearn HistGradientBoostingRegressor per output", hgb, gb / hgb, 1.0))
    print(f"friedman1 group (p=5) and ind (p=80), n=300, d=16, stumps, learning rate 0.1, "
          f"best of {repeats} fits each (ours and scikit-learn's):", file=out)
    print("| problem | estimator | ms per 1000 stumps | sklearn GB / this | sklearn HGB / this |", file=out)
    print("|---|---|---:|---:|---:|", file=out)
    for label, name, ms, r_gb, r_hgb in rows:
        print(f"| {label} | {name} | {ms:.1f} | {ratio_text(r_gb)} | {ratio_text(r_hgb)} |", file=out)
    diff = check_single_output(check_steps)
    print(f"\nsingle-output st-gbrt vs GradientBoostingRegressor, {check_steps} stumps: "
          f"max |prediction difference| = {diff:.1e}", file=out)
    return rows, diff


FOREST_DATASET = "cal500"
# (projection, q); q = "d" means as many components as outputs.
FOREST_SETTINGS = ((None, None), ("gaussian", "d"), ("gaussian", 1), ("gaussian", 4),
                   ("gaussian", 16), ("subsample", 1), ("subsample", 4))


def run_forests(n_trees=20, repeats=3, out=sys.stdout, dataset=FOREST_DATASET):
    """ms per fully grown tree: our forest (q = d and small q) vs RandomForestRegressor.

    Returns rows of (forest, ms per tree, RF ratio).
    """
    data = load_dataset(dataset)
    X, Y = data.X, data.Y
    n, p = X.shape
    d = Y.shape[1]
    sk = RandomForestRegressor(n_estimators=n_trees, max_features="sqrt", n_jobs=1, random_state=0)
    sk_ms = 1000.0 * best_time(lambda: sk.fit(X, Y), repeats) / n_trees
    rows = []
    for projection, q in FOREST_SETTINGS:
        if q == "d":
            q, label = d, f"{projection}, q = d = {d}"
        else:
            label = f"q = d = {d} (no projection)" if projection is None else f"{projection}, q = {q}"
        model = ProjectedForestRegressor(n_estimators=n_trees, max_features="sqrt", n_jobs=1,
                                         projection=projection, n_components=q, random_state=0)
        ms = 1000.0 * best_time(lambda: model.fit(X, Y), repeats) / n_trees
        rows.append((label, ms, sk_ms / ms))
    rows.append((f"sklearn RandomForestRegressor (q = d = {d})", sk_ms, 1.0))
    print(f"\n{dataset} (n={n}, p={p}, d={d}), {n_trees} fully grown trees, bootstrap, "
          f"max_features=sqrt, n_jobs=1, best of {repeats}:", file=out)
    print("| forest | ms per tree | sklearn RF / this |", file=out)
    print("|---|---:|---:|", file=out)
    for label, ms, ratio in rows:
        print(f"| {label} | {ms:.2f} | {ratio:.1f}x |", file=out)
    return rows


def run_compression(n_trees=100, repeats=3, out=sys.stdout, cv=10):
    """Seconds of the compression steps on one Friedman1 forest; returns rows (what, seconds, detail)."""
    X, y, _ = make_friedman1(300, random_state=0)
    forest = ProjectedForestRegressor(n_estimators=n_trees, max_features=1.0, splitter="random", bootstrap=False,
                                      random_state=0)
    grow = best_time(lambda: forest.fit(X, y), repeats)
    Y = ((y - y.mean()) / y.std())[:, None]
    paths = []
    path = best_time(lambda: paths.append(StagewisePath(forest.estimators_, X, Y, 0.01)), repeats)
    n_nodes = sum(s.node_count for s in forest.estimators_)
    models = []
    fit = best_time(lambda: models.append(CompressedForestRegressor(forest, cv=cv, random_state=0).fit(X, y)),
                    repeats)
    model = models[-1]
    rows = [("grow the forest", grow, f"{n_trees} extra trees, {n_nodes} nodes"),
            ("node indicators + forward stagewise path to its end", path,
             f"{paths[-1].n_steps} steps of 0.01 over {n_nodes} indicators"),
            (f"CompressedForestRegressor.fit, {cv}-fold CV", fit,
             f"{cv + 1} forests and paths; t* = {model.t_:.2f}, {model.n_nodes_forest_} -> {model.n_nodes_} "
             f"test nodes ({model.compression_factor_:.0f}x)")]
    print(f"\nfriedman1 (n=300, p=10), extra trees M = {n_trees}, K = p, n_min = 1, l1 compression "
          f"(thesis ch. 7), best of {repeats}; target: the path under 10 s:", file=out)
    print("| step | seconds | |", file=out)
    print("|---|---:|---|", file=out)
    for what, seconds, detail in rows:
        print(f"| {what} | {seconds:.3f} | {detail} |", file=out)
    return rows


def run_missing_targets(out=sys.stdout, fraction=MISSING_FRACTION, n_steps=MISSING_STEPS, seed=0):
    """Test macro-r2 with a fraction of Y missing vs on the full Y; returns rows (name, full, holed, ratio)."""
    X, Y, _ = make_friedman1_multioutput("group", n_samples=300, random_state=seed)
    X_test, Y_test, _ = make_friedman1_multioutput("group", n_samples=4000, random_state=seed + 1)
    holes = np.random.default_rng(seed).random(Y.shape) < fraction
    Y_holed = np.where(holes, np.nan, Y)
    rows = []
    for name in MISSING_NAMES:
        params = dict(n_estimators=n_steps, learning_rate=0.1, max_leaf_nodes=2, random_state=seed)
        if "relabel" in name:
            params["n_projections"] = 2
        full = make_estimator(name, **params).fit(X, Y).score(X_test, Y_test)
        holed = make_estimator(name, missing_targets="ignore", **params).fit(X, Y_holed).score(X_test, Y_test)
        rows.append((name, full, holed, holed / full))
    print(f"\nfriedman1-group (n=300, d=16, 4000 test samples), {fraction:.0%} of Y's entries missing at "
          f"random ({int((~holes).all(axis=1).sum())} complete rows left), stumps, learning rate 0.1, "
          f"{n_steps} steps, missing_targets='ignore':", file=out)
    print("| estimator | test macro-r2, full Y | test macro-r2, Y with holes | ratio |", file=out)
    print("|---|---:|---:|---:|", file=out)
    for name, full, holed, ratio in rows:
        print(f"| {name} | {full:.4f} | {holed:.4f} | {ratio:.3f} |", file=out)
    return rows
