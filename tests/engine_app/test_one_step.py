"""The One step page's engine service (engine/app/page_models/one_step.py) against numpy oracles."""

from __future__ import annotations

import numpy as np
import pytest

from engine.app.page_models import one_step as os_
from engine.plotting import one_step as figs
from engine.plotting.trees import tree_figure, tree_layout

METHODS = list(os_.METHODS)
CASES = [(m, "friedman1-chain", "squared_error") for m in METHODS] + [
    (m, "friedman1-ind", "absolute_error") for m in METHODS] + [("gbrt-relabel-rpo", "emotions", "logistic"),
                                                              ("st-gbrt", "emotions", "logistic")]


def settings(method="gbrt-relabel-rpo", problem="friedman1-chain", loss=None, **kw):
    q = kw.pop("q", 3 if method == "gbrt-relabel-rpo" else 1)
    return os_.OneStepSettings(problem=problem, n_train=60, method=method, loss=loss, projection="gaussian",
                               q=q, max_leaf_nodes=4, learning_rate=0.3, seed=3, **kw)


def numpy_gradient(run, k):
    """-dL/dF of the model with k steps, written out in numpy (the page's G comes from the compiled hooks)."""
    F = run.model._raw_predict_array(run.X, n_steps=k)
    Y = run.Y_enc
    if run.loss == "squared_error":
        return Y - F
    if run.loss == "absolute_error":
        return np.sign(Y - F)
    return 2.0 * Y / (1.0 + np.exp(2.0 * Y * F))


@pytest.mark.slow
@pytest.mark.parametrize("method,problem,loss", CASES)
def test_drawn_tree_is_the_stored_tree_and_its_numbers_match_numpy(method, problem, loss):
    run = os_.OneStepRun(settings(method, problem, loss))
    store = run.model
    for k in (1, 4):
        view = run.view(k)
        d = run.Y_enc.shape[1]
        G = numpy_gradient(run, k - 1)
        np.testing.assert_allclose(view.gradient, G, rtol=1e-12, atol=1e-12)
        tree_ids = range((k - 1) * d, k * d) if method == "st-gbrt" else [k - 1]
        assert len(view.trees) == len(tree_ids)
        leaves_all = store.trees_.apply(run.X.astype(np.float32))
        for t, (tree_id, tree) in enumerate(zip(tree_ids, view.trees)):
            nodes, values = store.trees_.tree_nodes(tree_id)
            np.testing.assert_array_equal(tree.feature, nodes["feature"])
            np.testing.assert_array_equal(tree.threshold, nodes["threshold"])
            np.testing.assert_array_equal(tree.left, nodes["left_child"])
            np.testing.assert_array_equal(tree.right, nodes["right_child"])
            np.testing.assert_array_equal(tree.n_samples, nodes["n_node_samples"])
            np.testing.assert_array_equal(tree.value, values)
            # Leaf counts: the training rows routed down the tree.
            local = leaves_all[:, tree_id] - store.trees_.tree_start[tree_id]
            for leaf in tree.leaves:
                assert (local == leaf).sum() == tree.n_samples[leaf]
            # The split targets, in numpy: G, G phi^T or G's column.
            if method == "st-gbrt":
                T = G[:, [t]]
            elif method == "gbmort":
                T = G
            else:
                T = G @ run.model.projections_[k - 1].T
            np.testing.assert_allclose(view.targets if method != "st-gbrt" else view.targets[:, [t]], T,
                                       rtol=1e-10, atol=1e-10)
            labels = G if method in ("gbmort", "gbrt-relabel-rpo") else T
            for i, leaf in enumerate(tree.leaves):
                in_leaf = local == leaf
                # Before relabelling: mean split target; after: the stored value, the mean label.
                np.testing.assert_allclose(view.leaf_before[t][i], T[in_leaf].mean(axis=0), rtol=1e-10, atol=1e-10)
                np.testing.assert_allclose(tree.value[leaf], labels[in_leaf].mean(axis=0), rtol=1e-9, atol=1e-9)
            # The chosen split's gain: the brute-force best over all features equals the engine's.
            for node in np.flatnonzero(tree.feature >= 0):
                samples = np.flatnonzero(np.isin(local, _leaves_under(tree, node)))
                f, thr, gain = os_.best_splits(run.X, T, samples)
                # The engine's split, scored in numpy: its stored improvement, and a best one
                # (sign gradients tie often: then another feature may score the same up to rounding).
                go_left = run.X[samples, tree.feature[node]].astype(np.float32) <= tree.threshold[node]
                Ts = T[samples]
                chosen = (sq(Ts[go_left].sum(0)) / go_left.sum() + sq(Ts[~go_left].sum(0)) / (~go_left).sum()
                          - sq(Ts.sum(0)) / len(samples))
                assert chosen == pytest.approx(tree.improvement[node], rel=1e-9, abs=1e-9)
                assert gain == pytest.approx(chosen, rel=1e-9, abs=1e-9)
                if f == tree.feature[node]:
                    assert thr == pytest.approx(tree.threshold[node], rel=1e-12)
                assert not tree.rejected_improvement[node] > tree.improvement[node] * (1 + 1e-12)
                assert tree.rejected_feature[node] != tree.feature[node]
        lr_rho_tree = view.update
        np.testing.assert_allclose(lr_rho_tree, run.model._raw_predict_array(run.X, n_steps=k)
                                   - run.model._raw_predict_array(run.X, n_steps=k - 1), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(view.rho, run.model.rho_[k - 1])


def sq(v):
    return float(np.dot(v, v))


def _leaves_under(tree, node):
    if tree.left[node] < 0:
        return [node]
    return _leaves_under(tree, tree.left[node]) + _leaves_under(tree, tree.right[node])


def test_best_splits_matches_a_loop_over_every_threshold():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 3))
    X[:, 2] = np.round(X[:, 2], 1)              # ties: thresholds only between distinct values
    T = rng.normal(size=(30, 2))
    samples = np.arange(30)
    best = (-1, None, -np.inf)
    for f in (0, 2):                              # feature 1 excluded
        xs = np.unique(X[:, f].astype(np.float32))
        for a, b in zip(xs[:-1], xs[1:]):
            thr = (np.float64(a) + np.float64(b)) / 2
            left = X[:, f].astype(np.float32) <= thr
            gain = ((T[left].sum(0) ** 2).sum() / left.sum() + (T[~left].sum(0) ** 2).sum() / (~left).sum()
                    - (T.sum(0) ** 2).sum() / 30)
            if gain > best[2]:
                best = (f, thr, gain)
    f, thr, gain = os_.best_splits(X, T, samples, exclude_feature=1)
    assert (f, thr) == best[:2] and gain == pytest.approx(best[2], rel=1e-12)
    assert os_.best_splits(np.ones((5, 2)), T[:5], np.arange(5))[0] == -1   # constant: no split


@pytest.mark.parametrize("method", METHODS)
def test_step_back_step_shows_what_step_showed_and_a_fresh_run_restores_it(method):
    run = os_.OneStepRun(settings(method))
    a = run.view(3)
    run.view(2)
    b = run.view(3)
    fresh = os_.OneStepRun(settings(method)).view(3)   # a shared URL: a new session refits 3 steps
    for other in (b, fresh):
        np.testing.assert_array_equal(other.gradient, a.gradient)
        np.testing.assert_array_equal(other.rho, a.rho)
        np.testing.assert_array_equal(other.update, a.update)
        for t, u in zip(a.trees, other.trees):
            np.testing.assert_array_equal(t.threshold, u.threshold)
            np.testing.assert_array_equal(t.value, u.value)
        if a.projection is not None:
            np.testing.assert_array_equal(other.projection, a.projection)


def test_stepping_one_at_a_time_equals_one_fit_of_k_steps():
    stepped = os_.OneStepRun(settings())
    for k in range(1, 6):
        stepped.advance_to(k)
    one_fit = os_.OneStepRun(settings()).advance_to(5)
    np.testing.assert_array_equal(stepped.model.predict(stepped.X), one_fit.model.predict(one_fit.X))
    np.testing.assert_array_equal(stepped.model.projections_, one_fit.model.projections_)


def test_fixed_projection_reuses_the_first_projection_and_is_reproducible():
    fixed = os_.OneStepRun(settings(fixed_projection=True)).advance_to(4)
    P = fixed.model.projections_
    assert len(P) == 4 and all(np.array_equal(P[0], P[m]) for m in range(4))
    fresh = os_.OneStepRun(settings()).advance_to(4).model.projections_
    assert not np.array_equal(fresh[0], fresh[1])
    np.testing.assert_array_equal(fresh[0], P[0])        # step 1 is the same draw either way
    again = os_.OneStepRun(settings(fixed_projection=True))
    again.view(2)
    again.view(4)
    np.testing.assert_array_equal(again.model.predict(again.X), fixed.model.predict(fixed.X))


def test_scores_chain_from_step_to_step_and_step_zero_is_the_constant_model():
    run = os_.OneStepRun(settings("gbmort"))
    zero, one, two = run.view(0), run.view(1), run.view(2)
    assert zero.trees == [] and zero.projection is None
    np.testing.assert_allclose(zero.train_after, one.train_before)
    np.testing.assert_allclose(one.train_after, two.train_before)
    np.testing.assert_allclose(one.test_after, two.test_before)
    # gbmort with the square loss: every output's training r2 improves in a step.
    assert np.all(one.train_after > one.train_before)


def test_invalid_settings_name_the_argument():
    with pytest.raises(ValueError, match="problem"):
        os_.load_problem("nope", 60, 0)
    with pytest.raises(ValueError, match="n_train"):
        os_.load_problem("friedman1-chain", 5000, 0)
    with pytest.raises(ValueError, match="q must be 1"):
        os_.OneStepRun(settings("gbrt-rpo", q=2))
    with pytest.raises(ValueError, match="loss"):
        os_.OneStepRun(settings("gbmort", loss="logistic"))
    with pytest.raises(ValueError, match="step"):
        os_.OneStepRun(settings()).view(os_.MAX_STEPS + 1)


def test_shipped_problem_is_subsampled_and_dense():
    d = os_.load_problem("emotions", 60, 1)
    assert d.X_train.shape[0] == 60 and d.task == "multilabel" and isinstance(d.X_train, np.ndarray)
    assert d.X_test.shape[0] <= os_.N_TEST and d.info["n_train"] == 60


def test_tree_layout_puts_leaves_in_order_and_splits_above_their_children():
    left = np.array([1, -1, 3, -1, -1])
    right = np.array([2, -1, 4, -1, -1])
    x, depth = tree_layout(left, right)
    np.testing.assert_array_equal(depth, [0, 1, 1, 2, 2])
    np.testing.assert_array_equal(x[[1, 3, 4]], [0, 1, 2])
    assert x[2] == 1.5 and x[0] == (0 + 1.5) / 2


@pytest.mark.parametrize("method", METHODS)
def test_every_figure_builds_from_a_view(method):
    view = os_.OneStepRun(settings(method)).view(2)
    fig = tree_figure(view.trees[0], feature_names=[f"x{i + 1}" for i in range(10)])
    texts = [t for trace in fig.data for t in (trace.text or [])]
    assert any("≤" in t and "gain" in t for t in texts) and any("leaf" in t for t in texts)
    figs.gradient_figure(view), figs.targets_figure(view), figs.leaf_values_figure(view)
    figs.rho_figure(view), figs.score_change_figure(view), figs.update_figure(view)
    if view.projection is not None:
        assert figs.projection_figure(view).data[0].z.shape == view.projection.shape


@pytest.mark.parametrize("method", ["gbmort", "gbrt-relabel-rpo"])
def test_newton_leaves_are_drawn_as_stored(method):
    s = os_.OneStepSettings(problem="emotions", n_train=60, method=method, q=2 if method != "gbmort" else 1,
                            leaf_estimation="newton", seed=1)
    run = os_.OneStepRun(s)
    view = run.view(2)
    nodes, values = run.model.trees_.tree_nodes(1)
    np.testing.assert_array_equal(view.trees[0].value, values)
    tree = view.trees[0]
    G = numpy_gradient(run, 1)
    local = run.model.trees_.apply(run.X.astype(np.float32))[:, 1] - run.model.trees_.tree_start[1]
    leaf = tree.leaves[0]
    # Newton leaves are not the mean gradient of the leaf (the logistic loss' curvature weighs them).
    assert not np.allclose(tree.value[leaf], G[local == leaf].mean(axis=0))
    figs.leaf_values_figure(view)
