"""The held-out set's scores after every boosting step, and early stopping.

After step m the loop adds mu rho_m ⊙ g_m(x) to the held-out raw predictions
(prediction.pyx) and scores them (:func:`evaluate`): the loss, defined as the
training loss (per-entry under per-entry weights), the per-output squared
errors, and a score per output, r2_j (the regressor's; its mean is paper
002's macro-r2, eq. 26) or minus the mean loss of output j (the
classifier's). :func:`stalled` is scikit-learn's early-stopping rule on that
score. The seconds spent here are not training time (the loop leaves them
out of the step times).

The cost per step (issue 46). Only the new step's trees are added to the
held-out F (add_step: one traversal per row, then d additions), but every
entry of F changes, so the loss is taken over all n_eval x d entries again.
Under the logistic loss with unit row weights (a default fit's held-out
rows) :func:`_logistic_unit_loss` takes it as the update pass takes the
training loss: the engine's vectorised exp a chunk of a row at a time and
one log per output per block of rows (the product of the entries' factors s
or 1 - s, each in [1/2, 1]), instead of one exp and one log1p per entry. Its
per-output losses differ from the per-entry sums by rounding only (about
1e-16 of each; the early-stopping rule's margin ``tol`` is 1e-4). The
classifier's score does not read the squared errors, so that path leaves
``sse`` as it was (NaN). Every other case (square or absolute loss, weighted
rows, per-entry weights) takes :func:`_score_rows`, the per-entry loop.
"""
from libc.math cimport log
from libc.stdlib cimport free, malloc

from engine._core.typedefs cimport float64_t, intp_t
from engine._core.fit_state cimport SCORE_LOSS, SCORE_R2
from engine._core.losses cimport LOGISTIC, loss_value
from engine._core.prediction cimport add_step
from engine._core.updates cimport exp_of_array

cdef extern from "logistic_kernels.h" nogil:
    void engine_logistic_column_terms(const float64_t* z, const float64_t* e, float64_t* acc,
                                      float64_t* prod, intp_t m)

cdef enum:
    CHUNK = 256             # entries of a row per vectorised exp (a stack buffer)
    LOG_BLOCK = 512         # rows whose factors (each >= 1/2) one product holds, above 2^-512


cdef bint _unit_weights(HeldOut* ho) noexcept nogil:
    """Whether the held-out rows carry row weights, all equal to 1."""
    cdef intp_t e
    if ho.w == NULL:
        return False
    for e in range(ho.n):
        if ho.w[e] != 1.0:
            return False
    return True


cdef bint _logistic_unit_loss(HeldOut* ho, intp_t d) noexcept nogil:
    """out_loss_j = sum_e log(1 + exp(-2 y_ej F_ej)) for every output j (the logistic loss, unit
    row weights, Y in -1/+1); False, with nothing written, when no buffer can be had."""
    cdef intp_t e, j, k, j0, j1
    cdef float64_t z[CHUNK]
    cdef float64_t ez[CHUNK]
    cdef float64_t* prod = <float64_t*> malloc(d * sizeof(float64_t))
    cdef const float64_t* Y = ho.Y
    cdef const float64_t* F = ho.F
    if prod == NULL:
        return False
    for j in range(d):
        ho.out_loss[j] = 0.0
        prod[j] = 1.0
    for e in range(ho.n):
        for k in range((d + CHUNK - 1) // CHUNK):
            j0 = k * CHUNK
            j1 = min(j0 + CHUNK, d)
            for j in range(j0, j1):
                z[j - j0] = 2.0 * Y[e * d + j] * F[e * d + j]
            exp_of_array(z, ez, j1 - j0)
            engine_logistic_column_terms(z, ez, ho.out_loss + j0, prod + j0, j1 - j0)
        if (e + 1) % LOG_BLOCK == 0 or e + 1 == ho.n:
            for j in range(d):
                ho.out_loss[j] -= log(prod[j])
                prod[j] = 1.0
    free(prod)
    return True


cdef void _score_rows(HeldOut* ho, intp_t d, float64_t* eval_loss, float64_t* sse) noexcept nogil:
    """out_loss_j, sse_j and the loss by one loop over the entries (any loss, any weights)."""
    cdef intp_t e, j, c
    cdef float64_t acc, total = 0.0, l, diff, weight
    cdef const float64_t* Y = ho.Y
    cdef const float64_t* F = ho.F
    cdef const float64_t* w = ho.w
    cdef const float64_t* W = ho.W
    cdef float64_t* out_loss = ho.out_loss
    cdef int loss = ho.loss
    for j in range(d):
        sse[j] = 0.0
        out_loss[j] = 0.0
    if W == NULL:
        for e in range(ho.n):
            acc = 0.0
            for j in range(d):
                c = e * d + j
                l = loss_value(loss, Y[c], F[c])
                acc += l
                out_loss[j] += w[e] * l
                diff = Y[c] - F[c]
                sse[j] += w[e] * diff * diff
            total += w[e] * acc
        eval_loss[0] = total / ho.w_total
    else:
        for e in range(ho.n):
            for j in range(d):
                c = e * d + j
                weight = W[c]
                out_loss[j] += weight * loss_value(loss, Y[c], F[c])
                diff = Y[c] - F[c]
                sse[j] += weight * diff * diff
        for j in range(d):
            total += out_loss[j] / ho.out_total[j]
        eval_loss[0] = total


cdef void _score_eval(HeldOut* ho, intp_t d, float64_t* eval_loss, float64_t* sse,
                      float64_t* score, float64_t* score_out) noexcept nogil:
    """Score the held-out set's current predictions (after one step).

    Row weights w (W NULL): eval_loss = sum_e w_e sum_j loss_ej / sum_e w_e (the
    training loss' definition). Per-entry weights W (missing held-out targets):
    the masked definition, sum_j sum_e W_ej loss_ej / sum_e W_ej. sse_j is the
    weighted squared error of output j. score_out_j is r2_j = 1 - sse_j / sst_j
    (SCORE_R2; a constant output scores 1 if predicted exactly, else 0, as
    scikit-learn's r2_score) or minus output j's weighted mean loss
    (SCORE_LOSS); score is their mean over outputs (macro-r2, or minus the mean
    per-output loss). The classifier's logistic loss on unit-weight rows takes
    :func:`_logistic_unit_loss` (no sse); every other case :func:`_score_rows`.
    """
    cdef intp_t j
    cdef float64_t total = 0.0, s, mean = 0.0
    if (ho.loss == LOGISTIC and ho.score_kind == SCORE_LOSS and _unit_weights(ho)
            and _logistic_unit_loss(ho, d)):
        for j in range(d):
            total += ho.out_loss[j]
        eval_loss[0] = total / ho.w_total
    else:
        _score_rows(ho, d, eval_loss, sse)
    for j in range(d):
        if ho.score_kind == SCORE_R2:
            if ho.sst[j] > 0.0:
                s = 1.0 - sse[j] / ho.sst[j]
            else:
                s = 0.0 if sse[j] > 0.0 else 1.0
        else:
            s = -ho.out_loss[j] / ho.out_total[j]
        score_out[j] = s
        mean += s
    score[0] = mean / d


cdef void evaluate(HeldOut* held, TreeStore store, bint single_target, const float64_t* rho,
                   float64_t learning_rate, intp_t d, float64_t* eval_loss, float64_t* sse,
                   float64_t* score, float64_t* score_out) noexcept nogil:
    """Add the step just fitted to the held-out predictions, then score them (_score_eval)."""
    add_step(store, held.X, held.n, held.F, d, single_target,
             store._n_trees - (d if single_target else 1), rho, learning_rate)
    _score_eval(held, d, eval_loss, sse, score, score_out)


cdef bint stalled(float64_t score, float64_t* history, intp_t k, intp_t position,
                  float64_t tol) noexcept nogil:
    """scikit-learn's early-stopping rule on a score (higher is better).

    Go on while the score beats one of the last k recorded scores by more than
    tol (that score then replaces the oldest); stop otherwise. history starts at -inf.
    """
    cdef intp_t h
    for h in range(k):
        if score - tol > history[h]:
            history[position % k] = score
            return False
    return True
