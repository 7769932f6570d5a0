"""A forest as a linear model on the indicator functions of all its nodes (thesis 001, eq. 7.1).

Every node l of every tree m defines a binary feature 1_{m,l}(x): 1 when x
reaches the node, 0 otherwise. A forest of M trees predicts

    f(x) = 1/M * sum_m sum_l w_{m,l} 1_{m,l}(x),                       (7.1)

with w_{m,l} the leaf's value for a leaf and 0 for a test (internal) node.
This module lifts samples to that space (:func:`node_indicators`, a sparse
n x q matrix with one column per node, q = total number of nodes), gives the
weights of eq. 7.1 (:func:`forest_node_weights`), and prunes a forest to the
nodes a sparse weight vector needs (:func:`prune_forest`): a node is kept when
it or one of its descendants has a non-zero weight, i.e. the weighted nodes
and their ancestors; a kept test node keeps both children, a child that is
not kept becoming an empty leaf (weight 0) of the compact tree.

Node ids: column k of the indicator matrix is node k of the forest's trees
laid end to end, in the order of ``forest.estimators_`` (each TreeStore's
node ids shifted by the node counts of the stores before it).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from engine._core import RowMatrix, TreeStore
from engine.estimators.forest import ForestBase
from engine.estimators.per_output_forest import PerOutputForestBase

__all__ = ["forest_stores", "node_indicators", "forest_node_weights", "node_parents",
           "count_test_nodes", "kept_nodes", "prune_forest", "compact_predict"]


def forest_stores(forest):
    """The fitted forest's TreeStores, in node-id order."""
    if not isinstance(forest, ForestBase):
        raise TypeError(f"forest must be one of the engine's forests, got {type(forest).__name__}")
    return list(forest.estimators_)


def node_indicators(stores, X):
    """CSR matrix (n_samples, q) of the node indicator functions: 1 where sample i reaches node k."""
    rows = RowMatrix(X)         # dense or sparse X, converted once for every store
    blocks = []
    for store in stores:
        indptr, indices = store.decision_path(rows)
        blocks.append(sparse.csr_matrix((np.ones(len(indices)), indices, indptr),
                                        shape=(rows.n_rows, store.node_count)))
    return sparse.hstack(blocks, format="csr")


def forest_node_weights(forest):
    """ndarray (q, n_outputs): the weights w_{m,l} / M of eq. 7.1 (leaf values / M, 0 on test nodes).

    For one forest per output (st-rf), the trees of output j's forest carry
    weights on column j only, each divided by that forest's number of trees.
    """
    stores = forest_stores(forest)
    d = forest.n_outputs_
    blocks = []
    if isinstance(forest, PerOutputForestBase):
        owners = [(j, len(f.estimators_)) for j, f in enumerate(forest.forests_) for _ in f.estimators_]
    else:
        owners = [(None, len(stores))] * len(stores)
    for store, (output, n_trees) in zip(stores, owners):
        leaf = store.nodes["left_child"] < 0
        value = np.where(leaf[:, None], store.value, 0.0) / n_trees
        if output is None:
            blocks.append(value)
        else:
            block = np.zeros((store.node_count, d))
            block[:, output] = value[:, 0]
            blocks.append(block)
    return np.vstack(blocks)


def node_parents(stores):
    """int64 ndarray (q,): the parent of every node (global id), -1 for the roots."""
    parts, offset = [], 0
    for store in stores:
        nodes = store.nodes
        parent = np.full(len(nodes), -1, dtype=np.int64)
        inner = np.flatnonzero(nodes["left_child"] >= 0)
        parent[nodes["left_child"][inner]] = inner + offset
        parent[nodes["right_child"][inner]] = inner + offset
        parts.append(parent)
        offset += len(nodes)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def count_test_nodes(stores):
    """Number of test (internal) nodes: the complexity measure of thesis Table 7.1."""
    return int(sum((store.nodes["left_child"] >= 0).sum() for store in stores))


def kept_nodes(parents, weighted):
    """Boolean mask of the nodes a pruned forest keeps: the weighted ones and all their ancestors.

    Returns ``(kept, ancestors)``: ``ancestors`` marks the strict ancestors of
    weighted nodes, which stay test nodes; the other kept nodes become leaves.
    """
    weighted = np.asarray(weighted, dtype=bool)
    ancestors = np.zeros(len(parents), dtype=bool)
    frontier = np.unique(parents[weighted])
    frontier = frontier[frontier >= 0]
    while frontier.size:
        frontier = frontier[~ancestors[frontier]]
        ancestors[frontier] = True
        frontier = np.unique(parents[frontier])
        frontier = frontier[frontier >= 0]
    return weighted | ancestors, ancestors


def prune_forest(stores, weights):
    """The compact forest: one TreeStore holding, per tree, the kept nodes with their weights.

    ``weights`` (q, d), dense or sparse: the weight of every node's indicator
    (rows of zeros for nodes without weight). Trees with no weighted node disappear. In a
    kept tree, the strict ancestors of weighted nodes stay test nodes and keep
    both children; every other node that is kept, or is a child of such a test
    node, is a leaf holding its weight (0 for the emptied side of a split).
    Summing the values along a sample's path in the compact store
    (:func:`compact_predict`) therefore gives exactly sum_k w_k 1_k(x) over the
    kept nodes.
    """
    weights = sparse.csr_matrix(weights, dtype=np.float64)     # dense or sparse (q, d)
    weights.eliminate_zeros()
    weighted = np.diff(weights.indptr) > 0
    parents = node_parents(stores)
    kept, ancestors = kept_nodes(parents, weighted)
    compact = TreeStore(weights.shape[1])
    node_parts, value_parts, starts = [], [], [0]
    offset = 0
    for store in stores:
        count = store.node_count
        local_anc = ancestors[offset:offset + count]
        members = kept[offset:offset + count].copy()
        if members.any():
            nodes = store.nodes
            inner = np.flatnonzero(local_anc)
            members[nodes["left_child"][inner]] = True      # both children of a kept test node
            members[nodes["right_child"][inner]] = True
            bounds = store.tree_start
            for a, b in zip(bounds[:-1], bounds[1:]):       # one compact tree per kept tree
                ids = a + np.flatnonzero(members[a:b])       # children come after parents
                if not ids.size:
                    continue
                new_id = np.full(count, -1, dtype=np.int64)
                new_id[ids] = np.arange(len(ids)) + starts[-1]
                sub = nodes[ids].copy()
                test = local_anc[ids]
                sub["left_child"] = np.where(test, new_id[nodes["left_child"][ids]], -1)
                sub["right_child"] = np.where(test, new_id[nodes["right_child"][ids]], -1)
                sub["feature"] = np.where(test, sub["feature"], -1)
                sub["improvement"] = np.where(test, sub["improvement"], 0.0)
                node_parts.append(sub)
                value_parts.append(weights[offset + ids].toarray())
                starts.append(starts[-1] + len(ids))
        offset += count
    if node_parts:
        compact.__setstate__({"nodes": np.concatenate(node_parts), "values": np.vstack(value_parts),
                              "tree_start": np.asarray(starts, dtype=np.intp)})
    return compact, kept


def compact_predict(compact, X):
    """ndarray (n_samples, d): the sum of the node values along every path of the compact store."""
    rows = RowMatrix(X)
    out = np.zeros((rows.n_rows, compact.n_values))
    if compact.n_trees == 0 or rows.n_rows == 0:
        return out
    indptr, indices = compact.decision_path(rows)
    Z = sparse.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(rows.n_rows, compact.node_count))
    return np.asarray(Z @ compact.value)
