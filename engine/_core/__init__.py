"""The compiled core: trees, their growth and the boosting loop, in Cython without the GIL.

One concept per module, from the bottom up:

* ``typedefs.pxd``, ``rng.pxd``: the C types and the small nogil random generator;
* ``tree_store``: :class:`TreeStore`, every node of many trees in one growable buffer;
* ``grower``: :class:`TreeGrower`, exact split search on presorted features and
  best-first growth; ``scan_kernels.h`` holds its C scan kernels (AVX2 chosen at run time);
* ``boosting_loop``: the boosting steps of paper 002's four strategies, the losses and
  their line searches (:func:`boost`), and prediction (:func:`accumulate`);
* ``stagewise``: :class:`ForwardStagewise`, incremental forward stagewise regression on
  sparse 0/1 node indicators (the monotone Lasso of thesis chapter 7).

The estimators (``engine.estimators``) are the only users; they import the names below.
"""
from engine._core.boosting_loop import (
    Loss,
    Score,
    Strategy,
    Workspace,
    accumulate,
    boost,
    monotonic_now,
)
from engine._core.grower import TreeGrower, grow_tree, set_simd
from engine._core.stagewise import ForwardStagewise
from engine._core.tree_store import NODE_DTYPE, TreeStore

__all__ = [
    "Loss",
    "Score",
    "Strategy",
    "Workspace",
    "accumulate",
    "boost",
    "monotonic_now",
    "TreeGrower",
    "grow_tree",
    "set_simd",
    "ForwardStagewise",
    "NODE_DTYPE",
    "TreeStore",
]
