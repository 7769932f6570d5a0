"""What one boosting fit is, and the state its steps share (paper 002, Algorithms 2-4).

The estimator (engine/estimators/boosting.py) builds these objects once per
fit, after validating its parameters, and hands them to
:func:`engine._core.algorithms.boost` for every chunk of steps:

* :class:`BoostSpec`: the strategy (st-gbrt, Algorithms 2, 3 or 4), the loss
  l (Table 1), the learning rate mu, the row sub-sampling, q and the leaf
  estimation (mean leaves with rho by eq. 20 / 23 or a line search, or
  Newton leaves with their lambda). The core trusts it: the estimator has
  checked that the combination is one it accepts (engine/estimators/second_order.py
  holds the Newton leaves' rule).
* :class:`Workspace`: the training set (Y, the model F updated in place, the
  row weights w and the per-entry weights W, the fit's random generator)
  and every buffer a step reuses. Its C view :c:type:`Fit` is set once here.
* :class:`Projections`: Phi_m of a chunk of steps (section 2.3), in CSR form.
* :class:`StepLog`: rho_m, the training loss and the time of every step.
* :class:`HeldOutSet`, :class:`EarlyStopping`: the held-out set scored after
  every step (its running F and its score arrays) and scikit-learn's
  early-stopping rule on those scores.
"""
import numpy as np

from libc.string cimport memset

from engine._core.typedefs cimport float64_t, intp_t, uint64_t
from engine._core.losses cimport LOGISTIC
from engine._core.row_blocks cimport n_row_blocks, padded_width


cdef class BoostSpec:
    """What a fit is: the strategy, the loss and the step's hyper-parameters (no data)."""

    def __init__(self, int strategy, int loss, float64_t learning_rate, float64_t subsample,
                 intp_t n_projections=1, bint newton_leaves=False,
                 float64_t l2_regularization=0.0):
        if strategy not in (SINGLE_TARGET, MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL):
            raise ValueError(f"BoostSpec: unknown strategy code {strategy}")
        if n_projections < 1:
            raise ValueError("BoostSpec: n_projections must be >= 1")
        self.strategy, self.loss = strategy, loss
        self.learning_rate, self.subsample = learning_rate, subsample
        self.n_projections = n_projections
        self.newton_leaves, self.l2_regularization = newton_leaves, l2_regularization

    def n_split_targets(self, intp_t d):
        """Columns of the split targets a tree is grown on: G[:, j], G, G phi^T or G Phi^T."""
        if self.strategy == MULTI_OUTPUT:
            return d
        if self.strategy == PROJECTED_RELABEL:
            return self.n_projections
        return 1

    def n_values(self, intp_t d):
        """Values a node holds: one (st-gbrt, Algorithm 3's scalar leaves) or d."""
        return 1 if self.strategy in (SINGLE_TARGET, PROJECTED) else d


cdef class Workspace:
    """The training set of one fit and the buffers every step reuses.

    ``Y``, ``F`` (updated in place), ``sample_weight`` and ``rng_state`` are
    the estimator's arrays, kept alive here. ``entry_weight`` (n x d): the
    per-entry weights W, with ``sample_weight`` the row weights max_j W_ij (see
    "per-entry weights" in updates.pyx); the ratios W_ij / r_i and the
    per-output totals are computed once here.
    """

    def __init__(self, BoostSpec spec, const float64_t[:, ::1] Y, float64_t[:, ::1] F,
                 const float64_t[::1] sample_weight, const float64_t[:, ::1] entry_weight,
                 uint64_t[::1] rng_state):
        cdef intp_t n = Y.shape[0], d = Y.shape[1]
        if F.shape[0] != n or F.shape[1] != d or sample_weight.shape[0] != n:
            raise ValueError("Workspace: inconsistent training buffers")
        if entry_weight is not None and (entry_weight.shape[0] != n or entry_weight.shape[1] != d):
            raise ValueError("Workspace: entry_weight must be n x d")
        self.spec = spec
        self.Y, self.F, self.sample_weight, self.entry_weight = Y, F, sample_weight, entry_weight
        self.rng_state = rng_state
        self._allocate(n, d, spec.n_split_targets(d), entry_weight is not None,
                       spec.loss == LOGISTIC and spec.strategy != SINGLE_TARGET)
        self._point_fit(n, d)
        if entry_weight is not None:
            self._entry_ratios(n, d)

    cdef int _allocate(self, intp_t n, intp_t d, intp_t n_targets, bint per_entry,
                       bint logistic) except -1:
        self.gradient = np.zeros((n, d))
        self.targets = np.zeros((n, max(n_targets, 1)))
        self.step_weight = np.zeros(n)
        self.leaf = np.zeros(n, dtype=np.int32)
        self.perm = np.arange(n, dtype=np.int32)
        self.scale = np.zeros(max(d, 1))
        self.line_search_buffers = LineSearchBuffers(n)
        self.expo = np.zeros((d, n)) if logistic else np.zeros((1, 1))
        self.labels_t = np.zeros((d, n)) if logistic else np.zeros((1, 1))
        self.block_sums = np.zeros(n_row_blocks(n) * padded_width(max(d, 1) + 1))
        self.ratio = np.zeros((n, d)) if per_entry else np.zeros((1, 1))
        self.column_weight = np.zeros(max(n, 1) if per_entry else 1)
        self.column_total = np.zeros(max(d, 1))
        self.column_loss = np.zeros(max(d, 1))
        projected = self.spec.strategy in (PROJECTED, PROJECTED_RELABEL)
        self.phi_dense = (np.zeros((self.spec.n_projections, max(d, 1))) if projected
                          else np.zeros((1, 1)))
        return 0

    cdef void _point_fit(self, intp_t n, intp_t d):
        """Fill the C view of the fit: pointers into the arrays above, the spec's numbers."""
        cdef Fit* fit = &self.fit
        cdef BoostSpec spec = self.spec
        cdef intp_t i, j
        memset(fit, 0, sizeof(Fit))
        fit.n, fit.d, fit.q = n, d, spec.n_projections
        fit.loss = spec.loss
        fit.learning_rate, fit.subsample = spec.learning_rate, spec.subsample
        fit.newton, fit.l2 = spec.newton_leaves, spec.l2_regularization
        fit.n_threads = 1
        fit.Y, fit.F = &self.Y[0, 0], &self.F[0, 0]
        fit.G, fit.T = &self.gradient[0, 0], &self.targets[0, 0]
        fit.w = &self.sample_weight[0]
        for i in range(n):
            fit.w_total += self.sample_weight[i]
        fit.step_weight, fit.leaf, fit.perm = &self.step_weight[0], &self.leaf[0], &self.perm[0]
        fit.scale, fit.block_sums = &self.scale[0], &self.block_sums[0]
        fit.work = &self.line_search_buffers.work
        fit.rng = &self.rng_state[0]
        fit.column_total, fit.column_loss = &self.column_total[0], &self.column_loss[0]
        fit.phi = &self.phi_dense[0, 0]
        if spec.loss == LOGISTIC and spec.strategy != SINGLE_TARGET:
            if spec.newton_leaves and self.entry_weight is None:
                fit.H = &self.expo[0, 0]    # no line search: the same n * d doubles, row-major
            else:
                fit.E = &self.expo[0, 0]
                for i in range(n):
                    for j in range(d):
                        self.labels_t[j, i] = self.Y[i, j]
                fit.YT = &self.labels_t[0, 0]

    cdef int _entry_ratios(self, intp_t n, intp_t d) except -1:
        """ratio_ij = W_ij / r_i (0 where r_i = 0) and column_total_j = sum_i W_ij."""
        cdef intp_t i, j
        cdef Fit* fit = &self.fit
        fit.W, fit.ratio = &self.entry_weight[0, 0], &self.ratio[0, 0]
        fit.column_weight = &self.column_weight[0]
        for j in range(d):
            self.column_total[j] = 0.0
        for i in range(n):
            for j in range(d):
                self.ratio[i, j] = (self.entry_weight[i, j] / self.sample_weight[i]
                                    if self.sample_weight[i] > 0.0 else 0.0)
                self.column_total[j] += self.entry_weight[i, j]
        for j in range(d):
            if not self.column_total[j] > 0.0:
                raise ValueError("Workspace: every output needs a positive total weight")
        return 0


cdef class Projections:
    """The random projections Phi_m of a chunk of steps: rows m * q + r of a CSR matrix.

    Step m of the chunk grows its tree on G Phi_m^T (Algorithms 3 and 4, line 5).
    ``dense``: the scheme is dense (Gaussian, Achlioptas), so G Phi_m^T is taken
    as a blocked product over all d outputs; otherwise through the non-zeros.
    """

    def __init__(self, const intp_t[::1] indptr, const intp_t[::1] indices,
                 const float64_t[::1] data, bint dense=False):
        if indptr.shape[0] < 1 or indices.shape[0] != data.shape[0]:
            raise ValueError("Projections: inconsistent CSR arrays")
        self.n_rows = indptr.shape[0] - 1
        self.indptr, self.indices, self.data = indptr, indices, data
        self.dense = dense


cdef class StepLog:
    """Per-step records of a fit: rho_m (n_steps x d), the training loss and the time.

    ``boost`` writes the rows of the steps it runs (from its ``first`` row on).
    """

    def __init__(self, float64_t[:, ::1] rho, float64_t[::1] train_loss, float64_t[::1] times):
        if train_loss.shape[0] != rho.shape[0] or times.shape[0] != rho.shape[0]:
            raise ValueError("StepLog: rho, train_loss and times need one row per step")
        self.n_steps = rho.shape[0]
        self.rho, self.train_loss, self.times = rho, train_loss, times


cdef class HeldOutSet:
    """The held-out set scored after every step, its running F and its per-step scores.

    ``w`` (row weights) or ``W`` (per-entry weights, missing held-out
    targets); ``sst``: the per-output weighted sums of squares about the mean
    (for r2); ``score_kind``: a :class:`Score`. The score arrays have one row
    per step of the fit (``boost`` writes the rows of the steps it runs).
    """

    def __init__(self, RowMatrix X, const float64_t[:, ::1] Y, float64_t[:, ::1] F,
                 const float64_t[::1] w, const float64_t[:, ::1] W, const float64_t[::1] sst,
                 int loss, int score_kind, float64_t[::1] eval_loss, float64_t[:, ::1] eval_sse,
                 float64_t[::1] eval_score, float64_t[:, ::1] eval_score_out):
        cdef intp_t n = X.n_rows, d = Y.shape[1], m = eval_loss.shape[0]
        if (n == 0 or Y.shape[0] != n or F.shape[0] != n or F.shape[1] != d or sst.shape[0] != d
                or (W is None and (w is None or w.shape[0] != n))
                or (W is not None and (W.shape[0] != n or W.shape[1] != d))):
            raise ValueError("HeldOutSet: inconsistent evaluation buffers")
        if (eval_sse.shape[0] != m or eval_score.shape[0] != m or eval_score_out.shape[0] != m
                or eval_sse.shape[1] != d or eval_score_out.shape[1] != d):
            raise ValueError("HeldOutSet: the score arrays need one row per step")
        self.X, self.Y, self.F, self.w, self.W, self.sst = X, Y, F, w, W, sst
        self.n_steps = m
        self.eval_loss, self.eval_sse = eval_loss, eval_sse
        self.eval_score, self.eval_score_out = eval_score, eval_score_out
        self.out_total = np.zeros(max(d, 1))
        self.out_loss = np.zeros(max(d, 1))
        self._point_held(n, d, loss, score_kind)

    cdef void _point_held(self, intp_t n, intp_t d, int loss, int score_kind):
        """Fill the C view; out_total_j = the held-out weight of output j."""
        cdef HeldOut* held = &self.held
        cdef intp_t i, j
        memset(held, 0, sizeof(HeldOut))
        held.X, held.n = &self.X.rows, n
        held.Y, held.F = &self.Y[0, 0], &self.F[0, 0]
        held.out_total, held.sst, held.out_loss = &self.out_total[0], &self.sst[0], &self.out_loss[0]
        held.loss, held.score_kind = loss, score_kind
        if self.W is not None:
            held.W = &self.W[0, 0]
            for j in range(d):
                self.out_total[j] = 0.0
            for i in range(n):
                for j in range(d):
                    self.out_total[j] += self.W[i, j]
        else:
            held.w = &self.w[0]
            for i in range(n):
                held.w_total += self.w[i]
            for j in range(d):
                self.out_total[j] = held.w_total


cdef class EarlyStopping:
    """scikit-learn's early-stopping state: the last k held-out scores and tol.

    The fit stops after the first step whose score does not beat one of the
    last k by more than tol (held_out.pyx, stalled); the history persists
    across the calls of one fit.
    """

    def __init__(self, intp_t n_iter_no_change, float64_t tol):
        if n_iter_no_change < 1:
            raise ValueError("EarlyStopping: n_iter_no_change must be >= 1")
        self.history = np.full(n_iter_no_change, -np.inf)
        self.tol = tol
        self.n_scored = 0
