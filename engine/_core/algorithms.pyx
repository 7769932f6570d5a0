"""The boosting steps of paper 002's four strategies, and the loop that runs them.

One call of :func:`boost` runs a chunk of boosting steps. Every step m starts
from the negative gradient of the loss at the current model,
G_ij = -dl(y_ij, F_ij)/dF_ij (line 4 of Algorithms 2-4), fits a tree to it and
adds the tree, scaled by mu rho (mu: the learning rate), to F. Each strategy
is one step routine, named after the paper's algorithm:

* :func:`_step_single_target` (st-gbrt): one single-output tree per output j,
  outputs visited in turn, each fit to its own column G[:, j]; rho_j by line
  search (1 under the square loss, whose leaf means already minimise it).
* :func:`_step_multi_output` (gbmort, Algorithm 2): one tree grown on the
  d-dimensional G, leaves labelled with the mean gradient row; rho_j = 1 under
  the square loss (eq. 20), else a line search per output.
* :func:`_step_projected` (gbrt-rpo, Algorithm 3): one single-output tree
  grown on the projection G phi_m^T; its leaf values are scalars, so a weight
  per output rho_j rescales them (eq. 23 for the square loss, a line search
  otherwise). The model then reads F += rho ⊙ g_m(x) of eq. 15.
* :func:`_step_projected_relabel` (gbrt-relabel-rpo, Algorithm 4): a tree
  grown on G Phi_m^T (q columns), then relabelled in the original residual
  space: every leaf holds the mean gradient row of its samples; rho_j as in
  Algorithm 2.

The parts of a step live in their own modules: the in-bag rows and the split
targets G Phi_m^T (split_targets.pyx), the leaf values and rho (leaves.pyx;
the line searches: losses.pyx), F += mu rho ⊙ g_m(x) with the next G and the
training loss (updates.pyx, eqs. 9 / 15), the held-out scores and early
stopping (held_out.pyx). Every routine reads the fit through the
:c:type:`Fit` struct of the :class:`Workspace` (fit_state.pyx); per-entry
weights (missing targets) go through the same routines, with the
differences described in updates.pyx ("per-entry weights"). With
second-order leaves (an extension beyond paper 002) every strategy but
Algorithm 3 labels its leaves with regularised Newton steps and takes rho = 1.
"""
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID

from engine._core.typedefs cimport float64_t, intp_t, int32_t
from engine._core.tree_store cimport TreeStore
from engine._core.grower_base cimport Grower
from engine._core.losses cimport SQUARED_ERROR, negative_gradient, line_search
from engine._core.fit_state cimport (SINGLE_TARGET, MULTI_OUTPUT, PROJECTED, PROJECTED_RELABEL,
                                     Fit, HeldOut, BoostSpec, Workspace, Projections, StepLog,
                                     HeldOutSet, EarlyStopping, output_weights)
from engine._core.split_targets cimport draw_in_bag, project_gradient
from engine._core.leaves cimport (newton_leaves, mean_gradient_leaves, rho_mean_gradient_leaves,
                                  rho_projected)
from engine._core.updates cimport gradient, apply_step, update_output
from engine._core.held_out cimport evaluate, stalled


cdef inline float64_t now() noexcept nogil:
    """Seconds on the monotonic clock (the step times' clock)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


def monotonic_now():
    """The clock ``boost`` stamps its steps with (seconds, CLOCK_MONOTONIC)."""
    return now()


# ---------------------------------------------------------------- where a step's time goes (a bench hook)

cpdef enum StepPhase:
    PHASE_TARGETS = 0       # the in-bag draw and the split targets (the projection G Phi_m^T)
    PHASE_TREE = 1          # growing the tree (a relabelled tree's node means of G included)
    PHASE_LEAVES = 2        # leaf values after growth: each sample's leaf, mean or Newton leaves
    PHASE_RHO = 3           # rho_j: the line searches, or eqs. 20 / 23
    PHASE_UPDATE = 4        # F += mu rho ⊙ g_m(x) with the next gradient and the training loss
    PHASE_HELD_OUT = 5      # the held-out set: its F += the step, its loss and scores (held_out.pyx)
    N_PHASES = 6

PHASE_NAMES = ("split targets", "tree", "leaves", "rho", "update and gradient", "held-out scoring")

# Off by default: then a step reads one flag per phase. On, the steps of gbmort and
# Algorithms 3-4 add their phases' seconds here (st-gbrt's are not split), and every
# strategy's held-out scoring (early stopping, eval_set) its own. Process-wide, for
# one fit at a time on one thread (the bench's). The seconds are the thread's CPU time, so
# that a busy machine (other processes holding the cores) does not inflate them.
cdef bint _timing_phases = False
cdef float64_t _phase_seconds[6]


def time_phases(bint on):
    """Start (reset) or stop adding each step's seconds per phase; see :func:`phase_seconds`."""
    global _timing_phases
    cdef int k
    for k in range(<int> N_PHASES):
        _phase_seconds[k] = 0.0
    _timing_phases = on


def phase_seconds():
    """{phase name: seconds} added since :func:`time_phases` (True) was called."""
    return {name: _phase_seconds[k] for k, name in enumerate(PHASE_NAMES)}


cdef inline float64_t _cpu_now() noexcept nogil:
    """CPU seconds of the calling thread."""
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline float64_t _lap(float64_t started, int phase) noexcept nogil:
    """Add the CPU seconds since ``started`` to ``phase`` when timing; returns the new start."""
    cdef float64_t t
    if not _timing_phases:
        return 0.0
    t = _cpu_now()
    _phase_seconds[phase] += t - started
    return t


cdef inline float64_t _start() noexcept nogil:
    return _cpu_now() if _timing_phases else 0.0


# ---------------------------------------------------------------- the four algorithms: one step each

cdef float64_t _step_single_target(Fit* fit, Grower grower, TreeStore store,
                                   float64_t* rho) except? -1 nogil:
    """st-gbrt: one single-output tree per output j, fit to -dl/dF_ij; returns the training loss.

    Outputs are visited in turn, each tree seeing the model already updated
    by the trees of the outputs before it (the losses are separable, so this
    is d independent boosting runs sharing the random generator). The tree of
    output j is grown on its own in-bag draw, with output j's weights.
    """
    cdef intp_t i, j, n = fit.n, d = fit.d
    cdef float64_t total = 0.0
    for j in range(d):
        draw_in_bag(output_weights(fit, j, fit.w), fit.step_weight, fit.perm, n, fit.subsample,
                    fit.rng)
        for i in range(n):
            fit.T[i] = negative_gradient(fit.loss, fit.Y[i * d + j], fit.F[i * d + j])
        grower.grow(store, fit.T, 1, fit.T, fit.step_weight, fit.rng)
        grower.training_leaves(store, fit.leaf)
        if fit.newton:
            newton_leaves(store, fit.leaf, fit.loss, fit.Y, fit.F, NULL, NULL, fit.T, 1, NULL,
                          fit.step_weight, n, d, j, fit.l2)
            rho[j] = 1.0
        elif fit.loss == SQUARED_ERROR:
            rho[j] = 1.0
        else:
            rho[j] = line_search(fit.loss, fit.Y + j, fit.F + j, d, store._values, fit.leaf, 1, 0,
                                 fit.step_weight, n, fit.work)
        total = update_output(fit, j, store._values, fit.learning_rate * rho[j], total)
    return total if fit.W != NULL else total / fit.w_total


cdef float64_t _step_multi_output(Fit* fit, Grower grower, TreeStore store,
                                  float64_t* rho) except? -1 nogil:
    """gbmort (Algorithm 2): one tree on the n x d gradient G; returns the training loss.

    Lines 5-7: the tree is grown on G (multi-output variance) and its leaves
    hold the mean gradient rows; rho_j = 1 (square loss) or a line search.
    """
    cdef float64_t t = _start(), loss
    draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    t = _lap(t, PHASE_TARGETS)
    grower.grow(store, fit.G, fit.d, fit.G, fit.step_weight, fit.rng)
    t = _lap(t, PHASE_TREE)
    mean_gradient_leaves(fit, grower, store)
    t = _lap(t, PHASE_LEAVES)
    rho_mean_gradient_leaves(fit, store, rho)
    t = _lap(t, PHASE_RHO)
    loss = apply_step(fit, store, rho)
    _lap(t, PHASE_UPDATE)
    return loss


cdef float64_t _step_projected(Fit* fit, Grower grower, TreeStore store, intp_t m,
                               float64_t* rho) except? -1 nogil:
    """gbrt-rpo (Algorithm 3): one single-output tree on G phi_m^T; returns the training loss.

    Lines 5-8: project the gradient on the step's random row phi_m, grow a
    tree on that one column (leaf values: the mean projected gradient), then
    choose rho_j per output (eq. 23 under the square loss): the weights also
    undo the projection's signs and scales.
    """
    cdef float64_t t = _start(), loss
    draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    project_gradient(fit, m, 1)
    t = _lap(t, PHASE_TARGETS)
    grower.grow(store, fit.T, 1, fit.T, fit.step_weight, fit.rng)
    t = _lap(t, PHASE_TREE)
    grower.training_leaves(store, fit.leaf)
    t = _lap(t, PHASE_LEAVES)
    rho_projected(fit, store, rho)
    t = _lap(t, PHASE_RHO)
    loss = apply_step(fit, store, rho)
    _lap(t, PHASE_UPDATE)
    return loss


cdef float64_t _step_projected_relabel(Fit* fit, Grower grower, TreeStore store, intp_t m,
                                       float64_t* rho) except? -1 nogil:
    """gbrt-relabel-rpo (Algorithm 4): split on G Phi_m^T, relabel in G; returns the training loss.

    Lines 5-9: the tree's splits are searched on the q projected residuals
    T = G Phi_m^T, while its nodes are labelled with the mean of the original
    residual rows G of their samples (the labels the grower averages), so
    each leaf predicts all d outputs; rho_j as in Algorithm 2.
    """
    cdef float64_t t = _start(), loss
    draw_in_bag(fit.w, fit.step_weight, fit.perm, fit.n, fit.subsample, fit.rng)
    project_gradient(fit, m, fit.q)
    t = _lap(t, PHASE_TARGETS)
    grower.grow(store, fit.T, fit.q, fit.G, fit.step_weight, fit.rng)
    t = _lap(t, PHASE_TREE)
    mean_gradient_leaves(fit, grower, store)
    t = _lap(t, PHASE_LEAVES)
    rho_mean_gradient_leaves(fit, store, rho)
    t = _lap(t, PHASE_RHO)
    loss = apply_step(fit, store, rho)
    _lap(t, PHASE_UPDATE)
    return loss


cdef float64_t _step(int strategy, Fit* fit, Grower grower, TreeStore store, intp_t m,
                     float64_t* rho) except? -1 nogil:
    """Boosting step m of ``strategy``: grow its tree(s), fill rho, update F; the training loss."""
    if strategy == SINGLE_TARGET:
        return _step_single_target(fit, grower, store, rho)
    if strategy == MULTI_OUTPUT:
        return _step_multi_output(fit, grower, store, rho)
    if strategy == PROJECTED:
        return _step_projected(fit, grower, store, m, rho)
    return _step_projected_relabel(fit, grower, store, m, rho)


# ---------------------------------------------------------------- the loop

cdef int _check_call(Grower grower, TreeStore store, BoostSpec spec, Workspace ws,
                     Projections projections, StepLog log, intp_t first, intp_t n_steps,
                     HeldOutSet held_out, EarlyStopping stopping) except -1:
    """Refuse a call whose objects do not fit together (they are built for one fit)."""
    cdef intp_t d = ws.fit.d, q = spec.n_projections, strategy = spec.strategy
    if ws.spec is not spec:
        raise ValueError("boost: the workspace was made for another BoostSpec")
    if grower.n_samples != ws.fit.n:
        raise ValueError("boost: the grower was built on other data")
    if store.n_values != spec.n_values(d):
        raise ValueError(f"boost: store must hold {spec.n_values(d)} value(s) per node")
    cdef intp_t need_targets = spec.n_split_targets(d)
    if grower.max_targets < need_targets or ws.targets.shape[1] < need_targets:
        raise ValueError("boost: workspace too small for the number of split targets")
    if n_steps < 0 or first < 0 or first + n_steps > log.n_steps or log.rho.shape[1] != d:
        raise ValueError("boost: the step log has no room for these steps")
    if strategy in (PROJECTED, PROJECTED_RELABEL) and (projections is None
                                                        or projections.n_rows < n_steps * q):
        raise ValueError("boost: a projected strategy needs q projection rows per step")
    if held_out is not None and (held_out.X.n_cols != grower.n_features
                                 or held_out.F.shape[1] != d or held_out.Y.shape[1] != d
                                 or first + n_steps > held_out.n_steps):
        raise ValueError("boost: inconsistent evaluation buffers")
    if stopping is not None and held_out is None:
        raise ValueError("boost: early stopping needs an evaluation set")
    return 0


def boost(Grower grower, TreeStore store, BoostSpec spec, Workspace ws, Projections projections,
          StepLog log, intp_t first, intp_t n_steps, float64_t t0,
          HeldOutSet held_out=None, EarlyStopping stopping=None):
    """Run up to ``n_steps`` boosting steps, appending trees to ``store``.

    The model F of ``ws`` (and the held-out set's F) is updated in place; the
    steps write rows ``first``, ``first + 1``, ... of ``log`` (rho, training
    loss, time) and of the held-out set's score arrays. ``projections``: the
    chunk's Phi_m, rows ``m * q + r`` for its step m (None for the strategies
    that do not project). ``log.times`` are seconds since ``t0`` spent
    training: the time spent scoring the held-out set is left out, so curves
    against time show the cost of learning only. With ``stopping`` the loop
    ends after the first step whose held-out score does not beat one of the
    last k by more than tol (that step is kept, as in scikit-learn).

    Returns (seconds spent scoring the evaluation set, steps run, whether early
    stopping ended the call). The last flag cannot be read off the step count: a
    call whose final step stalls has run all its steps.
    """
    _check_call(grower, store, spec, ws, projections, log, first, n_steps, held_out, stopping)
    cdef Fit* fit = &ws.fit
    fit.n_threads = grower.row_threads()
    fit.proj_indptr = fit.proj_indices = NULL
    fit.proj_data = NULL
    fit.proj_dense = projections is not None and projections.dense
    if projections is not None:
        fit.proj_indptr = &projections.indptr[0]
        fit.proj_indices = &projections.indices[0] if projections.indices.shape[0] > 0 else NULL
        fit.proj_data = &projections.data[0] if projections.data.shape[0] > 0 else NULL
    cdef HeldOut* held = &held_out.held if held_out is not None else NULL
    cdef float64_t* history = &stopping.history[0] if stopping is not None else NULL
    cdef intp_t k = stopping.history.shape[0] if stopping is not None else 0
    cdef intp_t m, j = first, n_done = 0, position = stopping.n_scored if stopping is not None else 0
    cdef bint single_target = spec.strategy == SINGLE_TARGET, halted = False
    cdef float64_t started, t_phase, eval_seconds = 0.0
    with nogil:
        if not single_target and not ws.gradient_ready:
            started = _start()
            gradient(fit)
            _lap(started, PHASE_UPDATE)
        for m in range(n_steps):
            j = first + m
            log.train_loss[j] = _step(spec.strategy, fit, grower, store, m, &log.rho[j, 0])
            if held != NULL:
                started = now()
                t_phase = _start()
                evaluate(held, store, single_target, &log.rho[j, 0], fit.learning_rate, fit.d,
                         &held_out.eval_loss[j], &held_out.eval_sse[j, 0],
                         &held_out.eval_score[j], &held_out.eval_score_out[j, 0])
                _lap(t_phase, PHASE_HELD_OUT)
                eval_seconds += now() - started
            log.times[j] = now() - t0 - eval_seconds
            n_done = m + 1
            if history != NULL and stalled(held_out.eval_score[j], history, k, position + m,
                                           stopping.tol):
                halted = True
                break
    if stopping is not None:
        stopping.n_scored += n_done
    ws.gradient_ready = ws.gradient_ready or n_done > 0
    return eval_seconds, n_done, halted
