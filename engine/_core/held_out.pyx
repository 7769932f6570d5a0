"""The held-out set's scores after every boosting step, and early stopping.

After step m the loop adds mu rho_m ⊙ g_m(x) to the held-out raw predictions
(prediction.pyx) and scores them (:func:`evaluate`): the loss, defined as the
training loss (per-entry under per-entry weights), the per-output squared
errors, and a score per output, r2_j (the regressor's; its mean is paper
002's macro-r2, eq. 26) or minus the mean loss of output j (the
classifier's). :func:`stalled` is scikit-learn's early-stopping rule on that
score. The seconds spent here are not training time (the loop leaves them
out of the step times).
"""
from engine._core.typedefs cimport float64_t, intp_t
from engine._core.fit_state cimport SCORE_R2
from engine._core.losses cimport loss_value
from engine._core.prediction cimport add_step


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
    per-output loss).
    """
    cdef intp_t e, j, c
    cdef float64_t acc, total = 0.0, l, diff, weight, s, mean = 0.0
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
    for j in range(d):
        if ho.score_kind == SCORE_R2:
            if ho.sst[j] > 0.0:
                s = 1.0 - sse[j] / ho.sst[j]
            else:
                s = 0.0 if sse[j] > 0.0 else 1.0
        else:
            s = -out_loss[j] / ho.out_total[j]
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
