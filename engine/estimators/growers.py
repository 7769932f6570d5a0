"""Which split search a fit uses, and the compiled grower that runs it.

``split_search`` (every estimator):

* ``"exact"``: every threshold between two consecutive distinct values.
  Dense data go to the presorted exact grower (``TreeGrower``), the one that
  equals scikit-learn's trees; data that are mostly zeros (a density below
  ``EXACT_SPARSE_DENSITY``, counted on the values whatever the input format)
  go to the histogram grower with one bin per distinct value, which walks
  only the non-zeros of each feature (its zeros are one implicit bin): the
  same candidate thresholds, the search of thesis chapter 8.
* ``"hist"``: features binned into at most ``max_bins`` quantile bins
  (``engine._core.binning``), node histograms, the sibling subtraction.
* ``"auto"``: ``"hist"`` from ``AUTO_HIST_MIN_SAMPLES`` training samples
  on, ``"exact"`` below (so the teaching size, n = 300, stays exact and its
  numbers do not move).

Because the choice and the binned data depend on the values only, a sparse X
and a dense X holding the same numbers grow the same trees, bit for bit.

Threads (``n_jobs``): None means one thread, a positive k means k OpenMP
threads, -1 means OpenMP's own default (which follows ``OMP_NUM_THREADS``
and threadpoolctl's limits), -2 one fewer, and so on. The model does not
depend on it. Without OpenMP in the build every fit runs on one thread and
``n_jobs`` > 1 warns once.
"""
import warnings

import numpy as np
from scipy import sparse

from engine._core import OPENMP, HistGrower, TreeGrower, bin_features, openmp_max_threads
from engine._core.binning import MAX_BINS_LIMIT
from engine.estimators.base import is_int
from engine.validation import check_choice

SPLIT_SEARCHES = ("auto", "exact", "hist")
# "auto" switches to histograms from this many training samples on. Measured
# (ms per step, one thread, best of 2, gbmort / gbrt-rpo with stumps and
# 8-leaf trees on Friedman1 group p = 5 and the p = 50 data of
# engine.bench.scale, d = 16): at n = 2000 the exact search was faster in 6 of
# 8 cases (e.g. gbmort, 8 leaves, p = 50: 1.91 exact, 2.51 hist), at n = 4000
# the histograms were faster in 7 of 8 (same case: 5.39 exact, 4.28 hist), at
# n = 8000 in all but one tie (12.1 exact, 6.3 hist). At n = 300 the exact
# search is 2 to 6 times faster, and equals scikit-learn.
AUTO_HIST_MIN_SAMPLES = 4000
# Exact search on data with fewer non-zero values than this fraction walks the
# non-zeros only (histogram grower with exact bins).
EXACT_SPARSE_DENSITY = 0.25
MAX_BINS_RANGE = (2, MAX_BINS_LIMIT)    # uint8 bin codes: the compiled binning's limit

_warned_no_openmp = False


def check_split_params(split_search, max_bins):
    """ValueError naming split_search or max_bins when they are not valid."""
    check_choice(split_search, "split_search", SPLIT_SEARCHES)
    lo, hi = MAX_BINS_RANGE
    if not is_int(max_bins) or not lo <= max_bins <= hi:
        raise ValueError(f"max_bins must be an integer in [{lo}, {hi}], got {max_bins!r}")


def n_threads_of(n_jobs):
    """OpenMP threads for n_jobs (see the module docstring); 1 without OpenMP."""
    global _warned_no_openmp
    if n_jobs is None:
        return 1
    n = n_jobs if n_jobs > 0 else max(1, openmp_max_threads() + 1 + n_jobs)
    if n > 1 and not OPENMP:
        if not _warned_no_openmp:
            warnings.warn("the engine was built without OpenMP: n_jobs has no effect, "
                          "every fit runs on one thread", RuntimeWarning, stacklevel=3)
            _warned_no_openmp = True
        return 1
    return n


def resolved_split_search(split_search, n_samples):
    """"exact" or "hist" for this many training samples."""
    if split_search == "auto":
        return "hist" if n_samples >= AUTO_HIST_MIN_SAMPLES else "exact"
    return split_search


def density(X):
    """Fraction of non-zero values of X (dense array or sparse matrix)."""
    n, p = X.shape
    if n * p == 0:
        return 1.0
    nonzero = np.count_nonzero(X.data) if sparse.issparse(X) else np.count_nonzero(X)
    return nonzero / (n * p)


def make_grower(X, split_search, max_bins, *, sample_weight=None, n_threads=1, **params):
    """The grower for X (dense float array or CSR/CSC matrix) under these settings.

    params are the TreeGrower/HistGrower keyword arguments (growth limits,
    max_targets, leaf_impurity, random_splits).
    """
    binned = bin_for(X, split_search, max_bins, sample_weight=sample_weight, n_threads=n_threads)
    return grower_on(X, binned, n_threads=n_threads, **params)


def grower_on(X, binned, *, n_threads=1, **params):
    """The grower over features ``bin_for`` already binned, or the presorted exact grower on X
    when it returned None (forests bin once, then give each thread its own grower)."""
    if binned is None:
        X32 = X.toarray() if sparse.issparse(X) else X
        return TreeGrower(np.asarray(X32, dtype=np.float32), **params)
    return HistGrower(binned, n_threads=n_threads, **params)


def bin_for(X, split_search, max_bins, *, sample_weight=None, n_threads=1):
    """The binned features the histogram grower needs, or None for the presorted exact grower.

    A sparse X of density >= EXACT_SPARSE_DENSITY in exact mode is densified
    for the presorted grower: its dense float32 copy is then at most
    4 / EXACT_SPARSE_DENSITY bytes per non-zero.
    """
    mode = resolved_split_search(split_search, X.shape[0])
    if mode == "hist":
        return bin_features(X, max_bins, sample_weight=sample_weight, n_threads=n_threads)
    if density(X) < EXACT_SPARSE_DENSITY:
        return bin_features(X, None, sample_weight=sample_weight, n_threads=n_threads)
    return None
