"""The compiled core: trees, their growth and the boosting loop, in Cython without the GIL.

One concept per module, from the bottom up:

* ``typedefs.pxd``, ``rng.pxd``: the C types and the small nogil random generator;
* ``tree_store``: :class:`TreeStore`, every node of many trees in one growable buffer;
* ``frontier.pxd``: the node record of best-first growth, its max-heap (the frontier)
  and leaf list;
* ``grower_base``: :class:`Grower`, the one interface both growers share and the
  best-first loop written once (``grow``), which calls the per-node operations
  (evaluate a node, apply its split, label the leaves) each grower supplies;
* ``grower``: :class:`TreeGrower`, exact split search on presorted features;
  ``scan_kernels.h`` holds its C scan kernels (AVX2 chosen at run time);
* ``binning``: :func:`bin_features`, quantile bins (uint8 codes; a sparse
  feature keeps only its samples outside the zero bin);
* ``histogram``: node histograms built in OpenMP threads, or by subtraction;
  ``hist_kernels.h`` holds their C loops;
* the histogram grower, in layers: ``binned_samples`` (binned dense and sparse
  features, a node's sample list, its partition by a split, routing by bin),
  ``hist_sums`` (a node's sums in row blocks), ``hist_split`` (split search over a
  histogram), ``hist_grower`` (:class:`HistGrower`: node histograms and the sibling
  subtraction, the per-node operations of the best-first loop);
* ``losses``: the three losses, their gradients (inline, ``losses.pxd``) and the exact
  line search of a step's weights rho;
* ``fit_state``: what a boosting fit is (:class:`BoostSpec`) and the state its steps
  share (:class:`Workspace`, :class:`Projections`, :class:`StepLog`, :class:`HeldOutSet`,
  :class:`EarlyStopping`), built once per fit by the estimator;
* ``split_targets``: a step's in-bag rows and split targets (G Phi_m^T;
  ``projection_kernels.h`` holds the dense schemes' blocked product);
* ``leaves``: the leaf values (mean gradient, relabelled, Newton) and rho;
* ``updates``: F += mu rho ⊙ g_m(x) per loss, with the next gradient and the training
  loss (``exp_kernels.h``, ``logistic_kernels.h`` hold the logistic loss' C loops);
* ``held_out``: the held-out scores after each step, and early stopping;
* ``prediction``: :func:`accumulate`, the raw predictions of a range of steps;
* ``algorithms``: one step of each of paper 002's four strategies, and the loop
  :func:`boost`;
* ``testing``: hooks for tests only (the exp of the logistic passes, the line search and
  the step's projection on explicit arrays);
* ``stagewise``: :class:`ForwardStagewise`, incremental forward stagewise regression on
  sparse 0/1 node indicators (the monotone Lasso of thesis chapter 7).

The estimators (``engine.estimators``) are the only users; they import the names below.
"""
from engine._core.algorithms import boost, monotonic_now
from engine._core.fit_state import (
    BoostSpec,
    EarlyStopping,
    HeldOutSet,
    Projections,
    Score,
    StepLog,
    Strategy,
    Workspace,
)
from engine._core.prediction import accumulate
from engine._core.binning import BinnedFeatures, bin_features
from engine._core.grower import TreeGrower, set_simd
from engine._core.grower_base import Grower, grow_tree
from engine._core.hist_grower import HistGrower
from engine._core.losses import Loss
from engine._core.histogram import openmp_enabled, openmp_max_threads
from engine._core.stagewise import ForwardStagewise
from engine._core.tree_store import NODE_DTYPE, RowMatrix, TreeStore, as_csr32

# Whether the build found OpenMP (engine/_build/backend.py); without it every
# fit runs on one thread whatever n_jobs says.
OPENMP = openmp_enabled()

__all__ = [
    "BoostSpec",
    "EarlyStopping",
    "HeldOutSet",
    "Loss",
    "Projections",
    "Score",
    "StepLog",
    "Strategy",
    "Workspace",
    "accumulate",
    "boost",
    "monotonic_now",
    "BinnedFeatures",
    "bin_features",
    "Grower",
    "HistGrower",
    "OPENMP",
    "openmp_max_threads",
    "RowMatrix",
    "as_csr32",
    "TreeGrower",
    "grow_tree",
    "set_simd",
    "ForwardStagewise",
    "NODE_DTYPE",
    "TreeStore",
]
