"""What a logistic step costs beside a square step: ``python -m engine.bench --logistic-step``.

A multi-label user fits :class:`MultiLabelBoostingClassifier` (the logistic loss of paper 002,
eq. 8, with its exact line search per output); the square loss on the same 0/1 labels is
:class:`MultiOutputBoostingRegressor`. Both grow the same kind of tree on the same CSR input, so
the ratio of their step times is the price of the loss: its gradient, its exponentials and its
line search. Target (issue 24): at most ``TARGET_RATIO`` for gbmort, gbrt-rpo-gaussian and
gbrt-relabel-rpo-gaussian, with stumps and with 8 leaves, on bibtex and corel5k (standard
training split, one thread).

A third time, the logistic step with Newton leaves (``leaf_estimation="newton"``: no line search
at all), shows what the logistic loss costs before any line search: its exponentials, its
gradient and its loss over the n x d scores. It is the floor under the line-search step and
tells how much of the ratio a faster line search could remove. (gbrt-rpo refuses Newton leaves:
per-output leaves make it gbrt-relabel-rpo, so its row has no third time.)

Each time is :func:`engine.bench.timing.per_step_ms` (warm-up fits, then the best of
``repeats`` fits), the two losses of a setting timed one after the other so that a change of
the machine's load hits both.
"""
import sys

from engine.bench.timing import per_step_ms
from engine.datasets import load_dataset
from engine.estimators.registry import BOOSTING_CONFIGS, make_estimator
from engine.estimators.second_order import newton_leaves_refusal

DATASETS = ("bibtex", "corel5k")
STRATEGIES = ("gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-gaussian")
LEAVES = (2, 8)
TARGET_RATIO = 1.5


# (task, leaf estimation): the logistic loss with its line search, the square loss on the same
# 0/1 labels, the logistic loss with Newton leaves (no line search).
VARIANTS = (("multilabel", "mean"), ("regression", "mean"), ("multilabel", "newton"))


def step_ratios(X, Y, steps=30, repeats=3, strategies=STRATEGIES, leaves=LEAVES):
    """[(strategy, leaves, ms logistic, ms square, ratio, ms logistic with Newton leaves or None)]
    on one training set (Y: 0/1 labels); the variants of a setting are timed one after the other."""
    rows = []
    for name in strategies:
        for n_leaves in leaves:
            ms = {}
            for task, leaf_estimation in VARIANTS:
                strategy = BOOSTING_CONFIGS[name]["strategy"]
                if leaf_estimation == "newton" and newton_leaves_refusal(strategy, "logistic"):
                    continue        # Newton leaves would make gbrt-rpo the relabelled variant
                def make_fit(k, task=task, leaf_estimation=leaf_estimation):
                    model = make_estimator(name, task=task, n_estimators=k, max_leaf_nodes=n_leaves,
                                           learning_rate=0.1, n_jobs=1, random_state=0,
                                           leaf_estimation=leaf_estimation)
                    return lambda: model.fit(X, Y)
                ms[task, leaf_estimation], _ = per_step_ms(make_fit, steps, repeats)
            logistic, square = ms["multilabel", "mean"], ms["regression", "mean"]
            rows.append((name, n_leaves, logistic, square, logistic / square,
                         ms.get(("multilabel", "newton"))))
    return rows


def run(datasets=DATASETS, steps=30, repeats=3, out=sys.stdout):
    """Print one table per data set; returns (rows per data set, whether every ratio met the target)."""
    import os
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# python -m engine.bench --logistic-step (one thread, best of {repeats} fits of up to {steps} "
          f"steps; load average at start {load:.2f})", file=out)
    results, met = {}, True
    for name in datasets:
        data = load_dataset(name)
        X, Y, _, _ = data.train_test_split()
        print(f"\n## {name}: {X.shape[0]} x {X.shape[1]}, {getattr(X, 'nnz', X.size)} stored values, "
              f"{Y.shape[1]} labels", file=out)
        print("| method | leaves | ms per step, logistic | ms per step, square | ratio "
              "| logistic, Newton leaves (no line search): ms, ratio |", file=out)
        print("|---|---:|---:|---:|---:|---:|", file=out)
        results[name] = step_ratios(X, Y, steps, repeats)
        for strategy, leaves, logistic, square, ratio, newton in results[name]:
            ok = ratio <= TARGET_RATIO
            met &= ok
            print(f"| {strategy} | {leaves} | {logistic:.2f} | {square:.2f} | {ratio:.2f}"
                  f"{'' if ok else ' (above ' + str(TARGET_RATIO) + ')'} | "
                  f"{'—' if newton is None else f'{newton:.2f}, {newton / square:.2f}'} |",
                  file=out)
    print(f"\ntarget (every ratio at most {TARGET_RATIO}): {'met' if met else 'MISSED'}", file=out)
    return results, met
