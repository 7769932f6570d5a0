"""Plain, slow reference of multi-output gradient boosting (Joly, Wehenkel, Geurts).

A test oracle that follows the paper (002_..., sections 2.2 and 3.1-3.3,
Algorithms 2-4, eqs. 16-23) literally, with scikit-learn trees as weak
learners. Nothing here is optimised; every step recomputes everything.

Strategies (one "step" = one boosting iteration m):

* "single_target"     st-gbrt: for each output j, one single-output tree on
                       output j's negative gradient (one step = d trees).
* "multi_output"      gbmort, Algorithm 2: one multi-output tree on the n x d
                       negative gradient G, leaves = weighted mean vectors.
* "projected"         gbrt-rpo, Algorithm 3: one single-output tree on G @ phi
                       (phi the step's 1 x d projection); the scalar tree
                       output a(x) is shared by all outputs, F_j += mu rho_j a.
* "projected_relabel" gbrt-relabel-rpo, Algorithm 4: tree grown on G @ Phi.T
                       (Phi is q x d), each leaf relabelled with the weighted
                       mean of the ORIGINAL G rows of the training samples in
                       it; F += mu * rho (Hadamard) leaf value.

In every strategy rho is a vector of d per-output step lengths, each found by
an exact 1-D line search of the (weighted) training loss (eqs. 14, 20, 23),
and the update is F += learning_rate * rho * A, where A (n x d) is the step's
direction (the tree predictions, broadcast for "projected").

Losses are summed over outputs (eqs. 4, 5, 8) and the reported training loss
is the weighted average over samples: sum_i w_i loss_i / sum_i w_i.

Per-entry weights (missing targets). ``sample_weight`` may be an (n, d)
matrix W (W_ij = 0: y_ij is missing). The reference then follows the
engine's documented semantics (engine/_core/updates.pyx, "per-entry
weights") literally, on scikit-learn trees:

* constant model of output j weighted by W[:, j];
* single target: output j's tree grown with weights W[:, j];
* other strategies: trees grown with row weights r_i = max_j W_ij on the
  targets (W / r) * G (a missing residual counts as zero);
* multi-output and relabelled leaves: sum_i W_ij G_ij / sum_i W_ij over the
  leaf's samples (0 when the leaf has no observed entry of output j);
* rho_j: the line search weighted by W[:, j];
* training loss: sum_j sum_i W_ij loss_ij / sum_i W_ij.
"""

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit
from sklearn.tree import DecisionTreeRegressor

LOSSES = ("squared_error", "absolute_error", "logistic")
STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")

# On linearly separable data the logistic line search has its minimum at
# +-infinity; the reference then stops at this bound (documented choice).
LOGISTIC_RHO_MAX = 1e6


# --------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------
def _check_loss(loss):
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; expected one of {LOSSES}")


def loss_per_sample(loss, Y, F):
    """Loss of every sample, summed over outputs: shape (n,)."""
    _check_loss(loss)
    Y = np.asarray(Y, dtype=np.float64)
    F = np.asarray(F, dtype=np.float64)
    if loss == "squared_error":  # eq. 4: 1/2 ||y - f||^2
        return 0.5 * ((Y - F) ** 2).sum(axis=1)
    if loss == "absolute_error":  # eq. 5: ||y - f||_1
        return np.abs(Y - F).sum(axis=1)
    # eq. 8: sum_j log(1 + exp(-2 y_j f_j)), y in {-1, +1}; logaddexp is the
    # overflow-free log(1 + exp(z)).
    return np.logaddexp(0.0, -2.0 * Y * F).sum(axis=1)


def mean_loss(loss, Y, F, sample_weight=None):
    """Weighted average over samples of loss_per_sample."""
    per = loss_per_sample(loss, Y, F)
    w = np.ones_like(per) if sample_weight is None else np.asarray(sample_weight, float)
    return float(w @ per / w.sum())


def total_loss(loss, Y, F):
    """Unweighted sum over samples and outputs (the objective of eq. 2)."""
    return float(loss_per_sample(loss, Y, F).sum())


def negative_gradient(loss, Y, F):
    """-d loss / d F, elementwise (n x d)."""
    _check_loss(loss)
    Y = np.asarray(Y, dtype=np.float64)
    F = np.asarray(F, dtype=np.float64)
    if loss == "squared_error":  # eq. 17
        return Y - F
    if loss == "absolute_error":  # sign(y - f); 0 exactly at y == f (a subgradient)
        return np.sign(Y - F)
    # 2y / (1 + exp(2 y f)) written as 2y * expit(-2 y f), stable for any f.
    return 2.0 * Y * expit(-2.0 * Y * F)


def numerical_gradient(loss, Y, F, eps=1e-6):
    """Central finite differences of total_loss with respect to every F_ij."""
    F = np.array(F, dtype=np.float64)
    grad = np.empty_like(F)
    for idx in np.ndindex(F.shape):
        old = F[idx]
        F[idx] = old + eps
        up = total_loss(loss, Y, F)
        F[idx] = old - eps
        down = total_loss(loss, Y, F)
        F[idx] = old
        grad[idx] = (up - down) / (2.0 * eps)
    return grad


# --------------------------------------------------------------------------
# Constant model (line 2 of Algorithms 2-4) and line searches
# --------------------------------------------------------------------------
def weighted_median(values, weights):
    """Midpoint of the set of minimisers of sum_i w_i |v_i - c|.

    The minimisers form an interval [lo, hi] (lo = first sorted value whose
    cumulative weight reaches W/2, hi = first whose cumulative weight
    exceeds W/2); we return (lo + hi) / 2, which is np.median for unit
    weights. Zero-weight values are ignored.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    cum = np.cumsum(weights)
    half = cum[-1] / 2.0
    lo = values[np.searchsorted(cum, half, side="left")]
    hi = values[min(np.searchsorted(cum, half, side="right"), values.size - 1)]
    return 0.5 * (lo + hi)


def init_constant(loss, Y, sample_weight=None):
    """rho_0 = argmin_rho sum_i w_i loss(y_i, rho), one value per output."""
    _check_loss(loss)
    Y = np.asarray(Y, dtype=np.float64)
    w = np.ones(Y.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    if loss == "squared_error":  # eq. 16 (weighted mean)
        return (w @ Y) / w.sum()
    if loss == "absolute_error":
        return np.array([weighted_median(Y[:, j], w) for j in range(Y.shape[1])])
    # Logistic: d/drho sum_i w_i log(1 + exp(-2 y_i rho)) = 0 gives
    # W+ e^{-2 rho} = W- e^{2 rho}, i.e. rho = 1/2 log(W+ / W-). The paper's
    # Table 1 omits the 1/2; we implement the true minimiser.
    w_pos = w @ (Y > 0)
    w_neg = w @ (Y < 0)
    if np.any(w_pos <= 0) or np.any(w_neg <= 0):
        raise ValueError("logistic init undefined: an output has a single class")
    return 0.5 * np.log(w_pos / w_neg)


def line_search(loss, y, f, a, sample_weight=None):
    """rho = argmin_rho sum_i w_i loss(y_i, f_i + rho a_i) for one output.

    y, f, a are (n,) vectors: targets, current raw predictions and the
    weak learner's direction for this output. Returns 0.0 when the
    direction carries no weight (sum_i w_i a_i^2 == 0).
    """
    _check_loss(loss)
    y, f, a = (np.asarray(v, dtype=np.float64) for v in (y, f, a))
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
    if not np.any((w * a * a) > 0):
        return 0.0

    if loss == "squared_error":
        # Closed form (eqs. 20 and 23): sum w r a / sum w a^2, r = y - f.
        return float((w * (y - f)) @ a / ((w * a) @ a))

    if loss == "absolute_error":
        # sum_i w_i |r_i - rho a_i| is convex piecewise linear in rho with
        # breakpoints r_i / a_i: evaluate it at every breakpoint (brute force,
        # O(n^2)) and return the midpoint of the minimising breakpoints (the
        # whole interval between them is optimal).
        nz = (a != 0) & (w > 0)
        r = y - f
        bp = r[nz] / a[nz]
        obj = np.abs(r[None, :] - bp[:, None] * a[None, :]) @ w
        best = obj.min()
        tied = bp[obj <= best + 1e-12 * max(best, 1.0)]
        return float(0.5 * (tied.min() + tied.max()))

    # Logistic: the objective is strictly convex in rho (w a^2 > 0 somewhere),
    # so its minimiser is the unique root of the nondecreasing derivative
    #   D(rho) = -sum_i w_i a_i g_i(rho), g = 2y expit(-2y(f + rho a)).
    # Bracket the root on the side where D(0) points (doubling), then
    # solve with Brent's method (brentq) to machine precision.
    def deriv(rho):
        return -float((w * a) @ (2.0 * y * expit(-2.0 * y * (f + rho * a))))

    # Separable along +a (every weighted sample has y a >= 0) or along -a:
    # the loss decreases forever and the minimum is at +-infinity; return
    # the documented bound instead.
    active = (w * a) != 0
    if np.all(y[active] * a[active] > 0):
        return LOGISTIC_RHO_MAX
    if np.all(y[active] * a[active] < 0):
        return -LOGISTIC_RHO_MAX
    # Otherwise D -> +-2 sum w|a| over the misclassified side as rho -> +-inf,
    # so a finite bracket exists (no underflow issue).
    d0 = deriv(0.0)
    if d0 == 0.0:
        return 0.0
    direction = 1.0 if d0 < 0 else -1.0
    bound = 1.0
    while deriv(direction * bound) * direction < 0:
        bound *= 2.0
    lo, hi = sorted((0.0, direction * bound))
    return float(brentq(deriv, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))


# --------------------------------------------------------------------------
# Boosting
# --------------------------------------------------------------------------
def _fit_tree(X, target, w, max_leaf_nodes):
    # Weak learner of every strategy: a least-squares (variance, summed over
    # outputs) regression tree grown best-first up to max_leaf_nodes leaves.
    tree = DecisionTreeRegressor(
        criterion="squared_error", max_leaf_nodes=max_leaf_nodes, random_state=0
    )
    return tree.fit(X, target, sample_weight=w)


def _relabel(tree, X, G, w):
    """Table node_id -> weighted mean of the original G rows in that leaf."""
    leaves = tree.apply(X)
    table = np.zeros((tree.tree_.node_count, G.shape[1]))
    for leaf in np.unique(leaves):
        in_leaf = leaves == leaf
        W = w[in_leaf].sum()
        # A leaf holding only zero-weight samples keeps a zero label.
        if W > 0:
            table[leaf] = (w[in_leaf] @ G[in_leaf]) / W
    return table


def masked_leaf_table(leaves, n_nodes, G, W):
    """Brute force: table[node, j] = sum_{i in node} W_ij G_ij / sum_{i in node} W_ij (0 if none)."""
    table = np.zeros((n_nodes, G.shape[1]))
    for node in range(n_nodes):
        in_leaf = leaves == node
        for j in range(G.shape[1]):
            den = W[in_leaf, j].sum()
            if den > 0:
                table[node, j] = (W[in_leaf, j] * G[in_leaf, j]).sum() / den
    return table


def masked_training_loss(loss, Y, F, W):
    """sum_j sum_i W_ij loss_ij / sum_i W_ij: each output's weighted mean loss, summed."""
    total = 0.0
    for j in range(Y.shape[1]):
        per = loss_per_sample(loss, Y[:, [j]], F[:, [j]])
        total += float(W[:, j] @ per / W[:, j].sum())
    return total


def _row_weights(W):
    """(r, W / r): the row weights the trees see and the split targets' entry factors."""
    r = W.max(axis=1)
    ratio = np.zeros_like(W)
    np.divide(W, r[:, None], out=ratio, where=r[:, None] > 0)
    return r, ratio


def _make_direction(strategy, X, G, w, projection, max_leaf_nodes):
    """Fit this step's weak learner(s); return (direction(X) -> (n, d), trees).

    w: (n,) row weights, or (n, d) per-entry weights (see the module docstring).
    """
    n, d = G.shape
    if w.ndim == 2:
        return _make_masked_direction(strategy, X, G, w, projection, max_leaf_nodes)
    if strategy == "single_target":
        trees = [_fit_tree(X, G[:, j], w, max_leaf_nodes) for j in range(d)]

        def direction(Xn):
            return np.column_stack([t.predict(Xn) for t in trees])

        return direction, trees

    if strategy == "multi_output":
        tree = _fit_tree(X, G if d > 1 else G[:, 0], w, max_leaf_nodes)

        def direction(Xn):
            return tree.predict(Xn).reshape(len(Xn), d)

        return direction, [tree]

    if strategy == "projected":
        phi = np.asarray(projection, dtype=np.float64)
        if phi.size != d:
            raise ValueError(f"'projected' needs a 1 x d projection, got {phi.shape}")
        tree = _fit_tree(X, G @ phi.reshape(d), w, max_leaf_nodes)

        def direction(Xn):
            a = tree.predict(Xn)
            return np.repeat(a[:, None], d, axis=1)

        return direction, [tree]

    if strategy == "projected_relabel":
        Phi = np.atleast_2d(np.asarray(projection, dtype=np.float64))
        if Phi.shape[1] != d:
            raise ValueError(f"'projected_relabel' needs a q x d projection, got {Phi.shape}")
        Z = G @ Phi.T
        tree = _fit_tree(X, Z if Z.shape[1] > 1 else Z[:, 0], w, max_leaf_nodes)
        table = _relabel(tree, X, G, w)

        def direction(Xn):
            return table[tree.apply(Xn)]

        return direction, [tree]

    raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")


def _make_masked_direction(strategy, X, G, W, projection, max_leaf_nodes):
    n, d = G.shape
    if strategy == "single_target":
        trees = [_fit_tree(X, G[:, j], W[:, j], max_leaf_nodes) for j in range(d)]
        return (lambda Xn: np.column_stack([t.predict(Xn) for t in trees])), trees
    r, ratio = _row_weights(W)
    targets = ratio * G
    if strategy == "multi_output":
        Z = targets
    elif strategy == "projected":
        Z = targets @ np.asarray(projection, dtype=np.float64).reshape(d, 1)
    else:
        Z = targets @ np.atleast_2d(np.asarray(projection, dtype=np.float64)).T
    tree = _fit_tree(X, Z if Z.shape[1] > 1 else Z[:, 0], r, max_leaf_nodes)
    if strategy == "projected":
        return (lambda Xn: np.repeat(tree.predict(Xn)[:, None], d, axis=1)), [tree]
    inside = r > 0
    table = masked_leaf_table(np.where(inside, tree.apply(X), -1), tree.tree_.node_count, G, W)
    return (lambda Xn: table[tree.apply(Xn)]), [tree]


def reference_boosting(
    X,
    Y,
    *,
    strategy,
    loss="squared_error",
    learning_rate=0.1,
    n_steps=10,
    max_leaf_nodes=2,
    projections=None,
    sample_weight=None,
):
    """Run n_steps of multi-output gradient boosting, literally as in the paper.

    projections: one (q x d) matrix per step (q == 1 for "projected"),
    required by the two projected strategies and ignored otherwise.

    Returns a dict with init (d,), rho (n_steps x d), train_loss (n_steps,),
    init_loss (float, loss of the constant model), staged_raw (list of n x d
    raw training predictions after each step), trees (list, per step, of the
    fitted scikit-learn trees), predict_raw(X_new) and
    staged_predict_raw(X_new) (list of n_new x d arrays).
    """
    _check_loss(loss)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    n, d = Y.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if strategy in ("projected", "projected_relabel"):
        if projections is None or len(projections) < n_steps:
            raise ValueError(f"{strategy!r} needs one projection per step")

    def column_weight(j):
        return w[:, j] if w.ndim == 2 else w

    def training_loss(F):
        return masked_training_loss(loss, Y, F, w) if w.ndim == 2 else mean_loss(loss, Y, F, w)

    if w.ndim == 2:
        init = np.concatenate([init_constant(loss, Y[w[:, j] > 0][:, [j]], w[w[:, j] > 0, j])
                               for j in range(d)])
    else:
        init = init_constant(loss, Y, w)
    F = np.tile(init, (n, 1))
    directions, rhos, train_loss, staged_raw, trees = [], [], [], [], []
    for m in range(n_steps):
        G = negative_gradient(loss, Y, F)  # line 4
        projection = projections[m] if projections is not None else None
        direction, step_trees = _make_direction(strategy, X, G, w, projection, max_leaf_nodes)
        A = direction(X)  # weak learner(s) on the training set
        # Per-output line search (eq. 14; eqs. 20/23 for the square loss).
        # Every loss here is a sum over outputs, so the d-dimensional argmin
        # splits into d independent 1-D problems.
        rho = np.array([line_search(loss, Y[:, j], F[:, j], A[:, j], column_weight(j))
                        for j in range(d)])
        F = F + learning_rate * rho[None, :] * A
        directions.append(direction)
        rhos.append(rho)
        trees.append(step_trees)
        staged_raw.append(F.copy())
        train_loss.append(training_loss(F))

    def staged_predict_raw(X_new):
        X_new = np.asarray(X_new, dtype=np.float64)
        Fn = np.tile(init, (X_new.shape[0], 1))
        out = []
        for direction, rho in zip(directions, rhos):
            Fn = Fn + learning_rate * rho[None, :] * direction(X_new)
            out.append(Fn.copy())
        return out

    def predict_raw(X_new):
        stages = staged_predict_raw(X_new)
        if stages:
            return stages[-1]
        return np.tile(init, (np.asarray(X_new).shape[0], 1))

    return {
        "init": init,
        "rho": np.array(rhos).reshape(n_steps, d),
        "train_loss": np.array(train_loss),
        "init_loss": training_loss(np.tile(init, (n, 1))),
        "staged_raw": staged_raw,
        "trees": trees,
        "predict_raw": predict_raw,
        "staged_predict_raw": staged_predict_raw,
    }
