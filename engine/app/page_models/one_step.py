"""One boosting step, taken apart: what the One step page shows (no streamlit).

A :class:`OneStepRun` holds one warm-startable boosting model on a small problem. ``advance_to(k)``
adds steps one fit call at a time (``warm_start=True``, ``n_estimators`` raised), and
:meth:`OneStepRun.view` reads step k back from the fitted model, in the order the algorithm runs:

1. the negative gradient G (n x d) of the model with k - 1 steps (the loss' residuals);
2. the projection of step k (``projections_[k - 1]``: q x d; none for st-gbrt and gbmort);
3. the split targets the tree was grown on: G (gbmort), G phi^T (gbrt-rpo), G Phi^T
   (gbrt-relabel-rpo), column j of G (st-gbrt's tree of output j);
4. the tree itself, read from the model's ``TreeStore`` (feature, threshold, SSE decrease,
   sample counts, stored values), with the best *rejected* split of every internal node
   (:func:`best_splits`: a brute-force scan of the same targets, documented there);
5. the leaf values before relabelling (mean split targets) and after (the stored values);
6. rho_k per output, and the per-output train / test score before and after the step.

Going back shows an earlier step of the same model (nothing is refitted, no new randomness), so
Step, Back, Step shows what Step showed. A fresh run taken to step k is the same model (warm-start
chunks equal one fit, tests/estimators/test_boosting.py), which is how a shared URL restores the
picture.

``fixed_projection=True`` draws the projection once: before every step the model's projection
generator is put back to the state it had before step 1, so every step draws the same phi (and
``projections_``, which replays the recorded generator states, agrees). This is a teaching switch
of this module, not an estimator parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.losses import loss_values, negative_gradient
from engine.experiments.problems import Problem, ProblemData
from engine.methods import BOOSTING
from engine.names import CLASSIFICATION_LOSSES, FRIEDMAN_PROBLEMS, LEAF_ESTIMATIONS, PROJECTIONS, REGRESSION_LOSSES
from engine.validation import check_choice, check_int

__all__ = ["DATA", "METHODS", "PROBLEMS", "OneStepSettings", "OneStepRun", "StepView", "TreeDrawing",
           "best_splits", "load_problem"]

# Page name -> estimator strategy: every boosting row of the method table (engine/methods.py).
METHODS = {row.name: strategy for strategy, row in BOOSTING.items()}


def method_row(method):
    """The method table's row of a page method name ("gbrt-rpo")."""
    return BOOSTING[METHODS[method]]
# Small problems: the three Friedman1 structures and shipped multi-label sets with few labels.
SHIPPED = ("emotions", "scene", "yeast")
PROBLEMS = FRIEDMAN_PROBLEMS + SHIPPED
DATA = "data"       # the Data page's choice (an upload): load_problem's ``dataset``
N_TRAIN_RANGE = (20, 300)
N_TEST = 500
MAX_STEPS = 500
# Feature values closer than this are not separated (the growers' FEATURE_THRESHOLD, grower.pyx).
FEATURE_THRESHOLD = 1e-7


def load_problem(problem: str, n_train: int, seed: int, dataset=None) -> ProblemData:
    """The drawn problem (:class:`~engine.experiments.problems.ProblemData`) at the teaching size, X dense.

    Friedman1: ``n_train`` training and N_TEST test samples, 16 outputs (the paper's d). Shipped
    multi-label sets: their split, ``n_train`` training and at most N_TEST test rows drawn
    without replacement with ``seed``. ``DATA`` (the Data page's choice, an upload): ``dataset``
    (an :class:`engine.datasets.Dataset`) split 50/50 with ``seed``, then subsampled the same way.
    """
    check_choice(problem, "problem", PROBLEMS + (DATA,))
    check_int(n_train, "n_train", N_TRAIN_RANGE[0])
    if n_train > N_TRAIN_RANGE[1]:
        raise ValueError(f"n_train must be at most {N_TRAIN_RANGE[1]}, got {n_train}")
    if problem in FRIEDMAN_PROBLEMS:
        return Problem(problem, n_train=n_train, n_test=N_TEST).draw(seed)
    if problem == DATA:
        if dataset is None:
            raise ValueError("problem 'data' needs the data set (the Data page's choice)")
        perm = np.random.default_rng(seed).permutation(dataset.n_samples)
        tr, te = np.sort(perm[: dataset.n_samples // 2]), np.sort(perm[dataset.n_samples // 2:])
        X, Y, Xt, Yt = dataset.X[tr], dataset.Y[tr], dataset.X[te], dataset.Y[te]
        task = "multilabel" if dataset.task == "multilabel" else "regression"
        info = {"name": dataset.name, "description": dataset.description, "split": f"random 50/50 split (seed {seed})"}
    else:
        drawn = Problem(problem).draw(seed)
        X, Y, Xt, Yt, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    rng = np.random.default_rng(seed)
    tr = np.sort(rng.choice(X.shape[0], size=min(n_train, X.shape[0]), replace=False))
    te = np.sort(rng.choice(Xt.shape[0], size=min(N_TEST, Xt.shape[0]), replace=False))
    dense = (lambda A: A.toarray() if sparse.issparse(A) else np.asarray(A))
    info = dict(info, n_train=int(tr.size), n_test=int(te.size),
                split=f"{info['split']}, subsampled to {tr.size} train / {te.size} test rows (seed {seed})")
    return ProblemData(dense(X[tr]), Y[tr], dense(Xt[te]), Yt[te], task, info)


@dataclass(frozen=True)
class OneStepSettings:
    """Everything that defines a run (the page's URL holds the same fields)."""

    problem: str = "friedman1-chain"
    n_train: int = 80
    method: str = "gbrt-relabel-rpo"
    loss: str | None = None            # None: square loss (regression), logistic (multi-label)
    projection: str = "gaussian"
    q: int = 1
    fixed_projection: bool = False
    learning_rate: float = 0.1
    max_leaf_nodes: int = 4
    leaf_estimation: str | None = None  # None: the papers' "mean"
    seed: int = 0

    def check(self, task):
        check_choice(self.method, "method", METHODS)
        check_choice(self.projection, "projection", PROJECTIONS)
        check_int(self.q, "q", 1)
        check_int(self.max_leaf_nodes, "max_leaf_nodes", 2)
        if self.loss is not None:
            check_choice(self.loss, "loss", REGRESSION_LOSSES if task == "regression" else CLASSIFICATION_LOSSES)
        row = method_row(self.method)
        if row.projected and not row.takes_q and self.q != 1:
            raise ValueError(f"q must be 1 for {self.method} ({row.paper.split(', ')[-1]} grows its tree "
                             "on one projection)")
        if self.leaf_estimation is not None:
            check_choice(self.leaf_estimation, "leaf_estimation", LEAF_ESTIMATIONS)


@dataclass
class TreeDrawing:
    """One tree as the store holds it, child ids local to the tree (-1: none)."""

    feature: np.ndarray            # (n_nodes,) split feature, -1 at leaves
    threshold: np.ndarray          # (n_nodes,) go left when x[feature] <= threshold
    left: np.ndarray
    right: np.ndarray
    n_samples: np.ndarray          # training samples that reached the node
    improvement: np.ndarray        # SSE decrease of the node's split on the split targets (0 at leaves)
    value: np.ndarray              # (n_nodes, n_values) stored node values
    rejected_feature: np.ndarray   # best split on another feature (-1: none / leaf)
    rejected_threshold: np.ndarray
    rejected_improvement: np.ndarray
    output: int | None = None      # st-gbrt: the output this tree belongs to

    @property
    def leaves(self):
        """Leaf node ids from left to right as drawn (depth-first, left child first): leaf 1, 2, ..."""
        order, stack = [], [0] if len(self.feature) else []
        while stack:
            node = stack.pop()
            if self.left[node] < 0:
                order.append(node)
            else:
                stack += [self.right[node], self.left[node]]
        return np.array(order, dtype=int)


@dataclass
class StepView:
    """Step ``step`` of a run, everything the page draws (arrays over training samples in row order)."""

    step: int
    settings: OneStepSettings
    task: str
    gradient: np.ndarray | None         # (n, d) G before the step; None at step 0
    projection: np.ndarray | None       # (q, d) or None
    targets: np.ndarray | None          # (n, t) split targets (st-gbrt: (n, d), one column per tree)
    trees: list = field(default_factory=list)   # one TreeDrawing (st-gbrt: d)
    leaf_of_sample: np.ndarray | None = None    # (n,) or (n, d) for st-gbrt: local leaf id
    leaf_before: dict = field(default_factory=dict)   # tree index -> (n_leaves, t) mean split targets
    rho: np.ndarray | None = None       # (d,)
    update: np.ndarray | None = None    # (n, d) learning_rate * rho_j * tree(x)
    train_before: np.ndarray | None = None   # (d,) per-output score with step - 1 steps
    train_after: np.ndarray | None = None
    test_before: np.ndarray | None = None
    test_after: np.ndarray | None = None
    sample_order: np.ndarray | None = None  # samples sorted by the first tree's root feature
    score_name: str = "r2"


def best_splits(X, targets, samples, exclude_feature=-1):
    """Brute-force best split of one node: ``(feature, threshold, improvement)``.

    Scans every feature except ``exclude_feature`` and every threshold halfway between
    consecutive distinct values of the node's samples (values closer than FEATURE_THRESHOLD
    not separated, as the growers do), with unit weights and at least one sample per side,
    and ranks them by the SSE decrease over all target columns,
    ``|S_l|^2 / n_l + |S_r|^2 / n_r - |S|^2 / n``: the quantity the grower stores as a node's
    ``improvement``. With ``exclude_feature`` the node's chosen feature, this is the best
    rejected split. X is compared in float32, as the growers do. ``(-1, nan, nan)`` when no
    split exists.
    """
    Xn = np.asarray(X, dtype=np.float32)[samples]
    T = np.asarray(targets, dtype=np.float64)[samples]
    if T.ndim == 1:
        T = T[:, None]
    n = len(samples)
    total = T.sum(axis=0)
    base = total @ total / n if n else 0.0
    best = (-1, np.nan, -np.inf)
    for f in range(Xn.shape[1]):
        if f == exclude_feature:
            continue
        order = np.argsort(Xn[:, f], kind="stable")
        x = Xn[order, f]
        cut = np.flatnonzero(x[1:] > x[:-1] + FEATURE_THRESHOLD)   # split after position cut
        if cut.size == 0:
            continue
        S = np.cumsum(T[order], axis=0)[cut]
        n_left = cut + 1.0
        gain = (np.einsum("ij,ij->i", S, S) / n_left
                + np.einsum("ij,ij->i", total - S, total - S) / (n - n_left) - base)
        i = int(np.argmax(gain))
        if gain[i] > best[2]:
            threshold = (np.float64(x[cut[i]]) + np.float64(x[cut[i] + 1])) / 2.0
            best = (f, threshold, float(gain[i]))
    return best if best[0] >= 0 else (-1, np.nan, np.nan)


def _score_per_output(task, loss, Y, F):
    """Per-output score: r2 of the raw predictions (regression), minus the mean loss (multi-label)."""
    if task == "regression":
        sse = ((Y - F) ** 2).sum(axis=0)
        sst = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
        return 1.0 - sse / np.where(sst > 0, sst, 1.0)
    return -loss_values(loss, Y, F).mean(axis=0)


class OneStepRun:
    """A model stepped one boosting step at a time on a small problem (see the module docstring)."""

    def __init__(self, settings: OneStepSettings, data=None):
        self.settings = settings
        data = data if data is not None else load_problem(settings.problem, settings.n_train, settings.seed)
        X, Y, task = data.X_train, data.Y_train, data.task
        settings.check(task)
        self.X, self.Xt, self.task, self.info = X, data.X_test, task, data.info
        self.loss = settings.loss or ("squared_error" if task == "regression" else "logistic")
        # Every setting explicit (the estimators' defaults are a practitioner's, not the papers').
        kw = dict(strategy=METHODS[settings.method], loss=self.loss, learning_rate=settings.learning_rate,
                  max_leaf_nodes=settings.max_leaf_nodes, split_search="exact", warm_start=True,
                  n_estimators=1, random_state=settings.seed, leaf_estimation="mean",
                  early_stopping=False)
        if method_row(settings.method).projected:
            kw.update(projection=settings.projection, n_projections=settings.q)   # the estimator's name for q
        if settings.leaf_estimation is not None:
            kw["leaf_estimation"] = settings.leaf_estimation
        cls = MultiOutputBoostingRegressor if task == "regression" else MultiLabelBoostingClassifier
        self.model = cls(**kw)
        self.Y, self.Yt = Y, data.Y_test
        # The loss sees -1/+1 labels for multi-label data (the classifier's _loss_targets).
        scale, shift = (1.0, 0.0) if task == "regression" else (2.0, 1.0)
        self.Y_enc, self.Yt_enc = (scale * np.asarray(A, dtype=np.float64) - shift for A in (Y, self.Yt))
        self._first_projection_state = None

    @property
    def n_steps(self) -> int:
        return getattr(self.model, "n_steps_", 0)

    def advance_to(self, k: int):
        """Fit until the model has at least k steps (one fit call; one per step with a fixed projection)."""
        check_int(k, "step", 0)
        if k > MAX_STEPS:
            raise ValueError(f"step must be at most {MAX_STEPS}, got {k}")
        fixed = self.settings.fixed_projection and method_row(self.settings.method).projected
        while self.n_steps < k:
            target = self.n_steps + 1 if fixed else k
            if fixed and self._first_projection_state is not None:
                self.model._projection_rng.bit_generator.state = self._first_projection_state
            self.model.set_params(n_estimators=target).fit(self.X, self.Y)
            if fixed and self._first_projection_state is None:
                self._first_projection_state = self.model._projection_segments[0][0]
        return self

    def _raw(self, X, steps):
        return self.model._raw_predict_array(np.asarray(X, dtype=np.float64), n_steps=steps)

    def view(self, k: int) -> StepView:
        """Step k (1-based) of the run, fitting up to k steps first; k = 0: the initial model only."""
        self.advance_to(max(k, 1))
        s, m = self.settings, self.model
        d = self.Y_enc.shape[1]
        score_name = "r2" if self.task == "regression" else "minus mean loss"
        if k == 0:
            F0 = self._raw(self.X, 0)
            G = negative_gradient(self.loss, self.Y_enc, F0)
            sc = _score_per_output(self.task, self.loss, self.Y_enc, F0)
            sct = _score_per_output(self.task, self.loss, self.Yt_enc, self._raw(self.Xt, 0))
            return StepView(0, s, self.task, G, None, None, train_before=sc, train_after=sc,
                            test_before=sct, test_after=sct, score_name=score_name,
                            sample_order=np.arange(len(G)))
        F_before, F_after = self._raw(self.X, k - 1), self._raw(self.X, k)
        G = negative_gradient(self.loss, self.Y_enc, F_before)
        row = method_row(s.method)
        phi = m.projections_[k - 1] if row.projected else None
        targets = G if phi is None else G @ phi.T
        store = m.trees_
        per_output = row.trees_per_step == "d"      # st-gbrt: one tree per output
        tree_ids = range((k - 1) * d, k * d) if per_output else [k - 1]
        leaves_global = store.apply(np.asarray(self.X, dtype=np.float32))
        trees, leaf_cols, leaf_before = [], [], {}
        for t_index, tree in enumerate(tree_ids):
            t_targets = targets[:, [t_index]] if per_output else targets
            drawing = self._drawing(store, tree, t_targets, output=t_index if per_output else None)
            start = store.tree_start[tree]
            local = leaves_global[:, tree] - start
            leaf_cols.append(local)
            leaf_before[t_index] = np.array([t_targets[local == leaf].mean(axis=0) for leaf in drawing.leaves])
            trees.append(drawing)
        leaf = leaf_cols[0] if len(leaf_cols) == 1 else np.stack(leaf_cols, axis=1)
        root_feature = trees[0].feature[0]
        order = (np.argsort(np.asarray(self.X, dtype=np.float32)[:, root_feature], kind="stable")
                 if root_feature >= 0 else np.arange(len(G)))
        Ft_before, Ft_after = self._raw(self.Xt, k - 1), self._raw(self.Xt, k)
        return StepView(
            k, s, self.task, G, phi, targets, trees, leaf, leaf_before, m.rho_[k - 1].copy(),
            F_after - F_before,
            _score_per_output(self.task, self.loss, self.Y_enc, F_before),
            _score_per_output(self.task, self.loss, self.Y_enc, F_after),
            _score_per_output(self.task, self.loss, self.Yt_enc, Ft_before),
            _score_per_output(self.task, self.loss, self.Yt_enc, Ft_after),
            order, score_name)

    def _drawing(self, store, tree, targets, output=None) -> TreeDrawing:
        nodes, value = store.tree_nodes(tree)
        n_nodes = len(nodes)
        rej_f, rej_t, rej_i = np.full(n_nodes, -1), np.full(n_nodes, np.nan), np.full(n_nodes, np.nan)
        # Samples of every node, by walking the training rows down the drawn tree.
        Xf = np.asarray(self.X, dtype=np.float32)
        members = {0: np.arange(Xf.shape[0])}
        for node in range(n_nodes):
            f = nodes["feature"][node]
            if f < 0 or node not in members:
                continue
            idx = members[node]
            go_left = Xf[idx, f] <= nodes["threshold"][node]
            members[nodes["left_child"][node]] = idx[go_left]
            members[nodes["right_child"][node]] = idx[~go_left]
            rej_f[node], rej_t[node], rej_i[node] = best_splits(Xf, targets, idx, exclude_feature=f)
        return TreeDrawing(nodes["feature"].astype(int), nodes["threshold"].copy(),
                           nodes["left_child"].astype(int), nodes["right_child"].astype(int),
                           nodes["n_node_samples"].astype(int), nodes["improvement"].copy(), value,
                           rej_f, rej_t, rej_i, output)


# ---------------------------------------------------------------- the first trees of a fitted model

STRIP_TREES = 8


def stored_tree(store, tree, output=None) -> TreeDrawing:
    """One tree of a ``TreeStore`` as a TreeDrawing, without rejected splits (their targets are gone)."""
    nodes, value = store.tree_nodes(tree)
    n = len(nodes)
    return TreeDrawing(nodes["feature"].astype(int), nodes["threshold"].copy(), nodes["left_child"].astype(int),
                       nodes["right_child"].astype(int), nodes["n_node_samples"].astype(int),
                       nodes["improvement"].copy(), np.array(value), np.full(n, -1), np.full(n, np.nan),
                       np.full(n, np.nan), output)   # value copied: a view would keep the whole store alive


class FirstTrees:
    """The first ``n_trees`` steps' trees of a fitted boosting model, kept without the model.

    What the server's cache keeps of a finished Convergence run once no session holds it
    (:func:`engine.app.page_models.live_convergence.compact_extra`): the page's tree strip draws only
    the first STRIP_TREES steps, a few KB, while the fitted models of a 10 000-step run take tens
    of MB. It reads like the model where the strip reads it (``strategy``, ``n_outputs_``,
    ``n_steps_``) and :func:`first_trees` takes it; it cannot be continued (no ``trees_``).
    """

    def __init__(self, model, n_trees: int = STRIP_TREES) -> None:
        n_trees = check_int(n_trees, "n_trees", 1)
        if getattr(model, "trees_", None) is None:
            raise ValueError("model must be a fitted boosting estimator (it has no trees_)")
        self.strategy = model.strategy
        self.n_outputs_ = int(model.n_outputs_)
        self.n_steps_ = min(n_trees, int(model.n_steps_))
        outputs = range(self.n_outputs_) if BOOSTING[self.strategy].trees_per_step == "d" else [0]
        self.trees = {output: first_trees(model, n_trees, output) for output in outputs}


def first_trees(model, n_trees: int = STRIP_TREES, output: int = 0) -> list:
    """``[(step, TreeDrawing)]`` of the first ``n_trees`` steps of a fitted boosting model
    (or of the ones a :class:`FirstTrees` kept).

    One tree per step; for st-gbrt (one tree per output and step) the tree of ``output`` in
    each step, so the strip still follows steps, the curves' x axis.
    """
    check_int(n_trees, "n_trees", 1)
    if isinstance(model, FirstTrees):
        single = BOOSTING[model.strategy].trees_per_step == "d"
        if single and not 0 <= output < model.n_outputs_:
            raise ValueError(f"output must be in [0, {model.n_outputs_}), got {output}")
        return model.trees[output if single else 0][:n_trees]
    store = getattr(model, "trees_", None)
    if store is None:
        raise ValueError("model must be a fitted boosting estimator (it has no trees_)")
    single = BOOSTING[model.strategy].trees_per_step == "d"    # st-gbrt: one tree per output and step
    d = model.n_outputs_
    if single and not 0 <= output < d:
        raise ValueError(f"output must be in [0, {d}), got {output}")
    steps = min(n_trees, model.n_steps_)
    return [(m + 1, stored_tree(store, m * d + output if single else m, output if single else None))
            for m in range(steps)]
