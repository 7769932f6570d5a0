"""Brute-force references for thesis chapter 7: tree paths and forward stagewise regression.

* :func:`brute_force_paths`: the nodes every sample visits, walking a store's node
  array in Python (the reference for ``TreeStore.decision_path``);
* :func:`forward_stagewise_dense`: incremental forward stagewise regression (FS_eps,
  Hastie et al. 2007) on a dense matrix whose columns are standardised here, every
  correlation recomputed from scratch at every step; several outputs take the group
  step (the column with the longest correlation vector moves by eps in Euclidean length).
"""
import numpy as np


def brute_force_paths(store, X):
    """List (one per sample) of the node ids on its paths, tree after tree, root to leaf."""
    nodes = store.nodes
    starts = store.tree_start
    paths = []
    for x in np.asarray(X, dtype=np.float32):
        path = []
        for root in starts[:-1]:
            k = int(root)
            while True:
                path.append(k)
                if nodes["left_child"][k] < 0:
                    break
                go_left = x[nodes["feature"][k]] <= nodes["threshold"][k]
                k = int(nodes["left_child"][k] if go_left else nodes["right_child"][k])
        paths.append(path)
    return paths


def standardise(Z):
    """(Z - mean) / std per column (population std); constant columns become 0."""
    Z = np.asarray(Z, dtype=np.float64)
    mean, std = Z.mean(axis=0), Z.std(axis=0)
    return np.divide(Z - mean, std, out=np.zeros_like(Z), where=std > 0), std > 0


def forward_stagewise_dense(Z, Y, step, max_steps):
    """FS_eps on standardised columns of Z: (columns, deltas (k, d), residual, converged)."""
    Zs, varying = standardise(Z)
    R = np.array(Y, dtype=np.float64).reshape(len(Z), -1)
    R = R - R.mean(axis=0)
    n = len(Z)
    columns, deltas = [], []
    for _ in range(max_steps):
        C = Zs.T @ R / n
        norms = np.sqrt((C ** 2).sum(axis=1))
        norms[~varying] = 0.0
        j = int(np.argmax(norms))
        if norms[j] <= step / 2:
            return np.array(columns, dtype=int), np.array(deltas).reshape(-1, R.shape[1]), R, True
        delta = step * C[j] / norms[j]
        R = R - np.outer(Zs[:, j], delta)
        columns.append(j)
        deltas.append(delta)
    return np.array(columns, dtype=int), np.array(deltas).reshape(-1, R.shape[1]), R, False
