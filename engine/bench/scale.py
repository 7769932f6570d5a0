"""The engine at the papers' research size, next to histogram libraries: ``python -m engine.bench --scale``.

Printed in one run, every fit on one thread (a loaded 2-core machine makes
spinning OpenMP workers useless as a comparison; threads get their own table):

1. **Friedman1-like data**, p = 50 (x uniform on [0, 1]^50, the first five
   inputs give f of paper 002 section 4.2.1, the other 45 are noise), d
   noisy copies of f (y_j = f + N(0, 1)), n in {2k, 20k, 100k}, d in {16, 128},
   8-leaf trees, learning rate 0.1: milliseconds per boosting step of every
   strategy (histogram split search; the exact search too up to 20k),
   next to LightGBM and scikit-learn's HistGradientBoostingRegressor (one
   model per output: a step is d trees), XGBoost ``multi_output_tree`` (one
   tree per step, depth 3 = 8 leaves) and ``one_output_per_tree``.
2. **bibtex and corel5k** (Mulan, standard training split, CSR input, 0/1
   labels regressed with the square loss), stumps: the same, LightGBM on one
   label (per tree), XGBoost with stumps (depth 1).
3. **Forests on the same data** (CSR input, fully grown trees, sqrt(p)
   features per node, bootstrap): ms per tree of mo-rf and of st-rf (one
   tree per label, so d trees), next to scikit-learn's multi-output
   RandomForestRegressor on the same CSR matrix.
4. **Threads**: ms per step on 1 and 2 threads at n = 100k, d = 16, and the speed-up
   (1- and 2-thread fits alternate, THREAD_ROUNDS rounds, best of each).
   Threads only pay on idle cores: on a busy machine libgomp's default
   spinning workers take a core from the serial parts (measured at load 2 on
   2 cores: 4 times slower); ``OMP_WAIT_POLICY=PASSIVE`` avoids that.
5. **Memory**: peak memory of fitting bibtex from its CSR matrix and from the
   same matrix made dense (tracemalloc: numpy and Python allocations, which
   hold X and every copy of it; the compiled core's histogram buffers, the
   same in both fits, are not counted).
6. **Accuracy**: at n = 20k, test macro-r2 of the histogram model next to the
   exact one (same seeds, 200 steps).

A step's time is the whole fit's wall-clock time (binning, presorting,
Dataset/DMatrix construction included) divided by its steps, best of
``--repeats`` fits, after warm-up fits of 1 and 3 steps (:mod:`engine.bench.timing`); an estimator whose fit of
``--steps`` steps would take over timing.FIT_BUDGET_SECONDS gets fewer steps (at
least timing.MIN_STEPS; the table prints the steps timed). Peers whose per-step cost is d trees (LightGBM,
HistGradientBoostingRegressor and XGBoost one_output_per_tree) are timed on
``PER_OUTPUT_SAMPLE`` outputs and their step is d times that per-output
time (printed as such). A peer that is not installed is reported as missing
(``pip install -e '.[bench]'`` installs LightGBM and CatBoost; XGBoost comes with the app's own dependencies).
"""
import json
import sys
import tracemalloc
from pathlib import Path

import numpy as np
from scipy import sparse

from engine.bench.timing import best_time, per_step_ms
from engine.estimators.registry import make_estimator
from engine.metrics import macro_r2

STRATEGIES = ("st-gbrt", "gbmort", "gbrt-rpo-subsampled", "gbrt-rpo-gaussian",
              "gbrt-relabel-rpo-subsampled", "gbrt-relabel-rpo-gaussian")
SIZES = (2_000, 20_000, 100_000)
OUTPUTS = (16, 128)
EXACT_MAX_N = 20_000
PER_OUTPUT_SAMPLE = 2
LEAVES = 8
LEARNING_RATE = 0.1
DATASETS = ("bibtex", "corel5k")
MISSING = "not installed (pip install -e '.[bench]')"


def friedman_like(n, d, p=50, seed=0):
    """X uniform (n, p); y_j = f(x_1..x_5) + N(0, 1) for j < d (paper 002's f)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p))
    f = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2
         + 10 * X[:, 3] + 5 * X[:, 4])
    return X, f[:, None] + rng.normal(size=(n, d))


def multilabel_data(name):
    """(X CSR, Y dense 0/1) of a data set's training split: the shipped loader when
    it has the set, else ``../shared/data/<name>/<name>.npz`` and its standard split."""
    try:
        from engine.datasets import list_datasets, load_dataset
        shipped = name in {d["name"] for d in list_datasets()}
    except (ImportError, FileNotFoundError):
        shipped = False
    if shipped:
        X, Y, _, _ = load_dataset(name).train_test_split()
        return sparse.csr_matrix(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    folder = _shared_data(name)
    arrays = np.load(folder / f"{name}.npz")
    split = json.loads((folder / "standard_split.json").read_text())
    train = np.setdiff1d(np.arange(arrays["X"].shape[0]), split["test_indices"])
    X = sparse.csr_matrix(arrays["X"][train].astype(np.float64))
    return X, arrays["Y"][train].astype(np.float64)


def _shared_data(name):
    """``shared/data/<name>`` in the nearest folder above the package that has it."""
    for parent in Path(__file__).resolve().parents:
        folder = parent / "shared" / "data" / name
        if (folder / f"{name}.npz").is_file():
            return folder
    raise FileNotFoundError(f"data set {name!r}: not shipped in sample_data/ and no "
                            f"shared/data/{name}/{name}.npz above {Path(__file__).parent}")


def _threadpool_one():
    from threadpoolctl import threadpool_limits
    return threadpool_limits(1)


# ---------------------------------------------------------------- one row per estimator
# Each returns (ms per step, steps timed), or (None, 0) for a missing peer.

def engine_ms(name, X, Y, steps, repeats, leaves=LEAVES, split_search="hist", n_jobs=None):
    """One engine strategy."""
    def make_fit(k):
        model = make_estimator(name, n_estimators=k, max_leaf_nodes=leaves,
                               learning_rate=LEARNING_RATE, split_search=split_search,
                               n_jobs=n_jobs, random_state=0)
        return lambda: model.fit(X, Y)
    return per_step_ms(make_fit, steps, repeats)


def lightgbm_ms(X, Y, steps, repeats, leaves=LEAVES):
    """LightGBM on one output: ms per tree."""
    try:
        import lightgbm
    except ImportError:
        return None, 0

    def make_fit(k):
        model = lightgbm.LGBMRegressor(n_estimators=k, num_leaves=leaves, learning_rate=LEARNING_RATE,
                                       n_jobs=1, verbose=-1, min_child_samples=1, min_child_weight=0.0)
        return lambda: model.fit(X, Y[:, 0])
    return per_step_ms(make_fit, steps, repeats)


def xgboost_ms(X, Y, steps, repeats, strategy, depth=3, outputs=PER_OUTPUT_SAMPLE):
    """XGBoost (hist, one thread); ``one_output_per_tree`` timed on ``outputs``
    outputs and scaled to d."""
    try:
        import xgboost
    except ImportError:
        return None, 0
    d = Y.shape[1]
    Yfit = Y if strategy == "multi_output_tree" else Y[:, :min(outputs, d)]

    def make_fit(k):
        model = xgboost.XGBRegressor(n_estimators=k, max_depth=depth, learning_rate=LEARNING_RATE,
                                     tree_method="hist", multi_strategy=strategy, n_jobs=1,
                                     min_child_weight=0.0)
        return lambda: model.fit(X, Yfit)
    ms, k = per_step_ms(make_fit, steps, repeats)
    return ms * (d / Yfit.shape[1]), k


def sklearn_hgb_ms(X, Y, steps, repeats, leaves=LEAVES, outputs=PER_OUTPUT_SAMPLE):
    """HistGradientBoostingRegressor, one model per output (``outputs`` timed, scaled to d)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    Xd = X.toarray() if sparse.issparse(X) else X
    m = min(outputs, Y.shape[1])

    def make_fit(k):
        models = [HistGradientBoostingRegressor(max_iter=k, max_leaf_nodes=leaves,
                                                learning_rate=LEARNING_RATE, early_stopping=False,
                                                min_samples_leaf=1) for _ in range(m)]
        return lambda: [model.fit(Xd, Y[:, j]) for j, model in enumerate(models)]
    with _threadpool_one():
        ms, k = per_step_ms(make_fit, steps, repeats)
    return ms * Y.shape[1] / m, k


def _fmt(ms):
    return "—" if ms is None else (f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}")


# ---------------------------------------------------------------- tables

def run_friedman(sizes=SIZES, outputs=OUTPUTS, steps=50, repeats=1, out=sys.stdout,
                 exact_max_n=EXACT_MAX_N):
    """Table 1; returns {(n, d): {(row name, split search): ms per step}}."""
    results = {}
    print(f"\n## Friedman1-like, p = 50, {LEAVES}-leaf trees, one thread "
          f"(ms per boosting step, best of {repeats})", file=out)
    print("| n | d | estimator | split search | steps | ms per step |", file=out)
    print("|---:|---:|---|---|---:|---:|", file=out)
    missing = set()
    for n in sizes:
        for d in outputs:
            X, Y = friedman_like(n, d)
            rows = {}
            for name in STRATEGIES:
                rows[(name, "hist")] = engine_ms(name, X, Y, steps, repeats)
                if n <= exact_max_n:
                    rows[(name, "exact")] = engine_ms(name, X, Y, steps, repeats, split_search="exact")
            lgb = lightgbm_ms(X, Y, steps, repeats)
            rows[("LightGBM, per tree (one output)", "hist")] = lgb
            rows[("LightGBM x d (a model per output)", "hist")] = (
                None if lgb[0] is None else lgb[0] * d, lgb[1])
            rows[("XGBoost multi_output_tree", "hist")] = xgboost_ms(X, Y, steps, repeats,
                                                                     "multi_output_tree")
            rows[(f"XGBoost one_output_per_tree ({PER_OUTPUT_SAMPLE} outputs timed, x d)", "hist")] = (
                xgboost_ms(X, Y, steps, repeats, "one_output_per_tree"))
            rows[(f"sklearn HistGradientBoostingRegressor per output ({PER_OUTPUT_SAMPLE} timed, x d)",
                  "hist")] = sklearn_hgb_ms(X, Y, steps, repeats)
            for (name, mode), (ms, k) in rows.items():
                print(f"| {n} | {d} | {name} | {mode} | {k} | {_fmt(ms)} |", file=out)
                if ms is None:
                    missing.add(name.split(" ")[0].rstrip(","))
            results[(n, d)] = {key: ms for key, (ms, _) in rows.items()}
    for peer in sorted(missing):
        print(f"\n{peer}: {MISSING}", file=out)
    return results


def run_datasets(datasets=DATASETS, steps=50, repeats=1, out=sys.stdout, max_rows=None):
    """Table 2 (CSR input, stumps, and single-label trees of 8 leaves against XGBoost's depth 3);
    returns {dataset: {(row name, split search): ms per step}}."""
    results = {}
    print(f"\n## Multi-label data sets, CSR input, stumps (and st-gbrt with 8 leaves), one thread "
          f"(0/1 labels, square loss; ms per boosting step, best of {repeats})", file=out)
    print("| data set | n x p, nnz, d | estimator | split search | steps | ms per step |", file=out)
    print("|---|---|---|---|---:|---:|", file=out)
    missing = set()
    for name in datasets:
        X, Y = multilabel_data(name)
        if max_rows is not None:
            X, Y = X[:max_rows], Y[:max_rows]
        shape = f"{X.shape[0]} x {X.shape[1]}, {X.nnz}, {Y.shape[1]}"
        rows = {}
        for strategy in STRATEGIES:
            for mode in ("hist", "exact"):
                rows[(strategy, mode)] = engine_ms(strategy, X, Y, steps, repeats, leaves=2,
                                                   split_search=mode)
        X32 = X.astype(np.float32)
        rows[("LightGBM stump on one label (per tree)", "hist")] = lightgbm_ms(X32, Y, steps, repeats,
                                                                                leaves=2)
        rows[("XGBoost multi_output_tree, stumps", "hist")] = xgboost_ms(X32, Y, steps, repeats,
                                                                         "multi_output_tree", depth=1)
        rows[(f"XGBoost one_output_per_tree, stumps ({PER_OUTPUT_SAMPLE} labels timed, x d)", "hist")] = (
            xgboost_ms(X32, Y, steps, repeats, "one_output_per_tree", depth=1))
        # Single-label trees of 8 leaves (issue 24, item 3): st-gbrt's d trees of 8 leaves per
        # step against XGBoost's d trees of depth 3 (at most 8 leaves).
        for mode in ("hist", "exact"):
            rows[("st-gbrt, 8 leaves", mode)] = engine_ms("st-gbrt", X, Y, steps, repeats, leaves=8,
                                                          split_search=mode)
        rows[(f"XGBoost one_output_per_tree, depth 3 ({PER_OUTPUT_SAMPLE} labels timed, x d)", "hist")] = (
            xgboost_ms(X32, Y, steps, repeats, "one_output_per_tree", depth=3))
        for (label, mode), (ms, k) in rows.items():
            print(f"| {name} | {shape} | {label} | {mode} | {k} | {_fmt(ms)} |", file=out)
            if ms is None:
                missing.add(label.split(" ")[0].rstrip(","))
        results[name] = {key: ms for key, (ms, _) in rows.items()}
    for peer in sorted(missing):
        print(f"\n{peer}: {MISSING}", file=out)
    return results


def run_forests(datasets=DATASETS, trees=4, repeats=1, out=sys.stdout, max_rows=None):
    """Table 3 (forests, CSR input); returns {dataset: {row name: ms per tree}}."""
    from sklearn.ensemble import RandomForestRegressor
    print(f"\n## Forests, CSR input, fully grown trees, sqrt(p) features, one thread "
          f"(ms per tree, {trees} trees, best of {repeats})", file=out)
    print("| data set | estimator | ms per tree |", file=out)
    print("|---|---|---:|", file=out)
    results = {}
    for name in datasets:
        X, Y = multilabel_data(name)
        if max_rows is not None:
            X, Y = X[:max_rows], Y[:max_rows]
        d = Y.shape[1]
        fits = {
            "mo-rf": lambda: make_estimator("mo-rf", task="multilabel", n_estimators=trees,
                                            random_state=0).fit(X, Y),
            f"st-rf (a tree per label: {d} trees)": lambda: make_estimator(
                "st-rf", task="multilabel", n_estimators=trees, random_state=0).fit(X, Y),
            "sklearn RandomForestRegressor (multi-output)": lambda: RandomForestRegressor(
                n_estimators=trees, max_features="sqrt", n_jobs=1, random_state=0).fit(X, Y),
        }
        results[name] = {}
        for label, fit in fits.items():
            ms = 1000.0 * best_time(fit, repeats) / trees
            results[name][label] = ms
            print(f"| {name} | {label} | {_fmt(ms)} |", file=out)
    return results


# The threads table alternates 1- and 2-thread fits for at least this many
# rounds and keeps each one's best; a round fits every estimator, so an
# estimator's rounds lie tens of seconds apart. A slow spell of the machine
# (on this project's VM, 2-thread fits sometimes run 20-50 % slower for half
# a minute) then hits both columns alike and rarely all rounds.
THREAD_ROUNDS = 3


def run_threads(n=100_000, d=16, steps=50, repeats=1, out=sys.stdout):
    """Table 4: 1 and 2 threads; returns {strategy: (ms 1 thread, ms 2 threads)}."""
    from engine._core import OPENMP
    X, Y = friedman_like(n, d)
    import os
    policy = os.environ.get("OMP_WAIT_POLICY", "unset (libgomp spins, then sleeps)")
    rounds = max(repeats, THREAD_ROUNDS)
    print(f"\n## Threads, n = {n}, d = {d}, {LEAVES}-leaf trees, hist, {steps} steps, best of "
          f"{rounds} alternating rounds (OpenMP in this build: {'yes' if OPENMP else 'NO, one thread only'}; "
          f"OMP_WAIT_POLICY {policy})", file=out)
    print("| estimator | ms per step, 1 thread | 2 threads | speed-up |", file=out)
    print("|---|---:|---:|---:|", file=out)
    names = ("gbrt-rpo-subsampled", "gbmort", "gbrt-relabel-rpo-gaussian")
    best = {(name, threads): np.inf for name in names for threads in (1, 2)}
    for _ in range(rounds):             # a round visits every estimator: its rounds lie apart
        for name, threads in best:
            best[name, threads] = min(best[name, threads],
                                      engine_ms(name, X, Y, steps, 1, n_jobs=threads)[0])
    results = {}
    for name in names:
        one, two = best[name, 1], best[name, 2]
        results[name] = (one, two)
        print(f"| {name} | {_fmt(one)} | {_fmt(two)} | {one / two:.2f}x |", file=out)
    return results


def _peak_mb(fit):
    tracemalloc.start()
    try:
        fit()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def run_memory(dataset="bibtex", steps=10, out=sys.stdout, max_rows=None):
    """Table 5: peak MB of a sparse fit and of the dense fit; returns {mode: (sparse, dense)}."""
    X, Y = multilabel_data(dataset)
    if max_rows is not None:
        X, Y = X[:max_rows], Y[:max_rows]
    print(f"\n## Memory: {dataset} ({X.shape[0]} x {X.shape[1]}, {X.nnz} non-zeros), gbrt-rpo, "
          f"{steps} stumps; peak MB allocated during fit (tracemalloc)", file=out)
    print("| split search | CSR X | dense X | dense / CSR |", file=out)
    print("|---|---:|---:|---:|", file=out)
    results = {}
    for mode in ("hist", "exact"):
        def fit(data):
            return lambda: make_estimator("gbrt-rpo-gaussian", n_estimators=steps, max_leaf_nodes=2,
                                          split_search=mode, random_state=0).fit(data, Y)
        Xd = X.toarray()
        sp, dn = _peak_mb(fit(X)), _peak_mb(fit(Xd))
        del Xd
        results[mode] = (sp, dn)
        print(f"| {mode} | {sp:.1f} | {dn:.1f} | {dn / sp:.1f}x |", file=out)
    return results


def run_accuracy(n=20_000, d=16, steps=200, out=sys.stdout):
    """Table 6: test macro-r2, hist vs exact; returns {strategy: (hist, exact)}."""
    X, Y = friedman_like(n + 10_000, d, seed=1)
    Xtr, Ytr, Xte, Yte = X[:n], Y[:n], X[n:], Y[n:]
    print(f"\n## Accuracy, n = {n} (test 10000), d = {d}, {LEAVES}-leaf trees, {steps} steps: "
          "test macro-r2", file=out)
    print("| estimator | hist | exact | hist - exact |", file=out)
    print("|---|---:|---:|---:|", file=out)
    results = {}
    for name in ("gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-subsampled"):
        scores = []
        for mode in ("hist", "exact"):
            model = make_estimator(name, n_estimators=steps, max_leaf_nodes=LEAVES,
                                   learning_rate=LEARNING_RATE, split_search=mode, random_state=0)
            scores.append(macro_r2(Yte, model.fit(Xtr, Ytr).predict(Xte)))
        results[name] = tuple(scores)
        print(f"| {name} | {scores[0]:.4f} | {scores[1]:.4f} | {scores[0] - scores[1]:+.4f} |", file=out)
    return results


def run(steps=50, repeats=1, out=sys.stdout, sizes=SIZES, outputs=OUTPUTS, datasets=DATASETS,
        threads_n=100_000, accuracy_n=20_000, accuracy_steps=200, dataset_rows=None):
    """Every table of ``--scale``; returns their results in a dict."""
    import os
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# python -m engine.bench --scale (load average at start: {load:.2f})", file=out)
    return {
        "friedman": run_friedman(sizes, outputs, steps, repeats, out),
        "datasets": run_datasets(datasets, steps, repeats, out, max_rows=dataset_rows),
        "forests": run_forests(datasets, repeats=repeats, out=out, max_rows=dataset_rows),
        "threads": run_threads(threads_n, outputs[0], steps, repeats, out),
        "memory": run_memory(datasets[0], min(steps, 10), out, max_rows=dataset_rows),
        "accuracy": run_accuracy(accuracy_n, outputs[0], accuracy_steps, out),
    }
