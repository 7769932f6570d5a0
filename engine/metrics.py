"""Scores used in the paper (Joly, Wehenkel & Geurts, section 4.1.1).

* multi-output regression: :func:`macro_r2` (eq. 26) and
  :func:`half_macro_r2` (Table 6, macro-r2 over the original outputs only);
* multi-label classification: :func:`lrap` (eq. 25), :func:`hamming_loss`,
  :func:`subset_zero_one_loss`;
* many labels, as extreme-classification users measure them (not in the
  paper): :func:`precision_at_k` and :func:`ndcg_at_k`, over the rows with at
  least one true label.

All take ``(Y_true, Y_pred)`` of shape (n_samples, n_outputs); a 1-D array is
read as a single output. Bad input raises ``ValueError`` naming the argument.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.metrics import hamming_loss as _sk_hamming_loss
from sklearn.metrics import r2_score
from sklearn.metrics import zero_one_loss as _sk_zero_one_loss

__all__ = ["macro_r2", "half_macro_r2", "lrap", "ranking_average_precision", "hamming_loss",
           "subset_zero_one_loss", "precision_at_k", "ndcg_at_k", "top_k_labels"]


def _as_2d(a, name):
    try:
        a = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array") from None
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (n_samples, n_outputs), got {a.ndim}-D")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {a.shape})")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def _pair(Y_true, Y_pred, min_samples=1):
    Y_true = _as_2d(Y_true, "Y_true")
    Y_pred = _as_2d(Y_pred, "Y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            f"Y_true and Y_pred must have the same shape, got {Y_true.shape} and {Y_pred.shape}"
        )
    if Y_true.shape[0] < min_samples:
        raise ValueError(f"Y_true needs at least {min_samples} samples, got {Y_true.shape[0]}")
    return Y_true, Y_pred


def _check_binary(a, name):
    if not np.isin(a, (0.0, 1.0)).all():
        raise ValueError(f"{name} must contain only 0 and 1")


def macro_r2(Y_true, Y_pred):
    """macro-r2 score, eq. 26: 1 - (1/d) sum_j SSE_j / SST_j.

    The mean over the outputs of the coefficient of determination of each
    output; 1 is perfect, <= 0 is no better than predicting the test mean.
    Computed with scikit-learn's ``r2_score(multioutput="uniform_average")``,
    which is exactly eq. 26 whenever every output varies in ``Y_true``.

    Edge case: for an output that is constant in ``Y_true`` (SST_j = 0) eq. 26
    is undefined; following scikit-learn, that output scores 1.0 if it is
    predicted exactly and 0.0 otherwise. Needs at least 2 samples.
    """
    Y_true, Y_pred = _pair(Y_true, Y_pred, min_samples=2)
    return float(r2_score(Y_true, Y_pred, multioutput="uniform_average"))


def half_macro_r2(Y_true, Y_pred, n_original):
    """macro-r2 (eq. 26) over the first ``n_original`` outputs only.

    This is the "half-macro-r2" of Table 6 (section 4.2.3), where purely noisy
    outputs are appended after the original ones and the score is also
    reported on the original half.
    """
    Y_true, Y_pred = _pair(Y_true, Y_pred, min_samples=2)
    if isinstance(n_original, (bool, np.bool_)) or not isinstance(n_original, numbers.Integral):
        raise ValueError(f"n_original must be an integer, got {n_original!r}")
    if not 1 <= n_original <= Y_true.shape[1]:
        raise ValueError(
            f"n_original must be between 1 and the number of outputs ({Y_true.shape[1]}), got {n_original}"
        )
    n = int(n_original)
    return macro_r2(Y_true[:, :n], Y_pred[:, :n])


def lrap(Y_true, Y_score):
    """Label ranking average precision, eq. 25 (Schapire & Singer, 2000).

    For each sample and each of its true labels j: the fraction of the labels
    scored at least as high as j (ties count as ranked above) that are true;
    averaged over the sample's true labels, then over the samples. 1 is
    perfect. ``Y_true`` is a 0/1 matrix, ``Y_score`` real-valued scores.

    Edge case: eq. 25 divides by the number of true labels; a sample with no
    true label (or with every label true) scores 1, as in scikit-learn's
    ``label_ranking_average_precision_score``, which this equals (tested); it
    is computed here with one sort per sample, vectorised over samples, because
    the experiments score hundreds of staged models of thousands of samples.
    """
    Y_true, Y_score = _pair(Y_true, Y_score)
    _check_binary(Y_true, "Y_true")
    return ranking_average_precision(Y_true > 0, Y_score)


def ranking_average_precision(relevant, scores, chunk_size=None):
    """LRAP of a boolean relevance matrix and a score matrix, unchecked (see :func:`lrap`).

    For label j of a sample, rank_j = #{k: s_k >= s_j} and hits_j = #{relevant
    k: s_k >= s_j}. One sort per sample in decreasing order gives both: at
    sorted position p, the labels tied with it end at position e (the last of
    its run of equal scores), rank = e + 1 and hits = the running count of
    relevant labels at e. O(n d log d) with a single sort: the wide sets'
    validation curves (delicious: 2 584 x 983 at every scored step) spent most
    of their time here when the ranks came from a second sort (rankdata).
    Each label's term is put back in label order before the sum, the order
    the former two-sort version summed in, so both give the same bits.
    """
    R = np.asarray(relevant, dtype=bool)
    S = np.asarray(scores, dtype=np.float64)
    n, d = S.shape
    chunk_size = chunk_size or max(1, 2_000_000 // max(d, 1))
    positions = np.arange(d)
    total = 0.0
    for a in range(0, n, chunk_size):
        r, s = R[a:a + chunk_size], S[a:a + chunk_size]
        order = np.argsort(-s, axis=1)
        sorted_scores = np.take_along_axis(s, order, axis=1)
        sorted_relevant = np.take_along_axis(r, order, axis=1)
        # e: the last position of each run of equal scores, read from the right.
        run_ends = np.ones(s.shape, dtype=bool)
        run_ends[:, :-1] = sorted_scores[:, :-1] != sorted_scores[:, 1:]
        last = np.minimum.accumulate(np.where(run_ends, positions, d)[:, ::-1], axis=1)[:, ::-1]
        hits = np.take_along_axis(np.cumsum(sorted_relevant, axis=1), last, axis=1)
        terms = np.zeros(s.shape)
        np.put_along_axis(terms, order, np.where(sorted_relevant, hits / (last + 1.0), 0.0), axis=1)
        n_relevant = r.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            per_sample = terms.sum(axis=1) / n_relevant
        trivial = (n_relevant == 0) | (n_relevant == d)
        total += np.where(trivial, 1.0, per_sample).sum()
    return float(total / n)


def _label_pair(Y_true, Y_pred):
    """Checked 0/1 matrices as ints, in the form scikit-learn reads as multi-label.

    scikit-learn takes an (n, d >= 2) 0/1 matrix as a multi-label indicator;
    one column is raveled (its binary case), which gives the same numbers.
    """
    Y_true, Y_pred = _pair(Y_true, Y_pred)
    _check_binary(Y_true, "Y_true")
    _check_binary(Y_pred, "Y_pred")
    Y_true, Y_pred = Y_true.astype(int), Y_pred.astype(int)
    if Y_true.shape[1] == 1:
        return Y_true[:, 0], Y_pred[:, 0]
    return Y_true, Y_pred


def hamming_loss(Y_true, Y_pred):
    """Hamming loss: fraction of (sample, label) entries predicted wrong.

    ``Y_true`` and ``Y_pred`` are 0/1 matrices (threshold scores first).
    0 is perfect. Computed with scikit-learn's ``hamming_loss``.
    """
    return float(_sk_hamming_loss(*_label_pair(Y_true, Y_pred)))


def subset_zero_one_loss(Y_true, Y_pred):
    """Subset 0/1 loss: fraction of samples whose label vector is not exactly right.

    ``Y_true`` and ``Y_pred`` are 0/1 matrices. 0 is perfect. Computed with
    scikit-learn's ``zero_one_loss``, which on a multi-label indicator matrix
    is exactly this subset loss.
    """
    return float(_sk_zero_one_loss(*_label_pair(Y_true, Y_pred)))


# ---------------------------------------------------------------- precision and nDCG at k

def _check_k(k, d):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 1 <= k <= d:
        raise ValueError(f"k must be an integer between 1 and the number of labels ({d}), got {k!r}")
    return int(k)


def top_k_labels(scores, k):
    """(n, k) label indices of each row's k highest scores, highest first, unchecked.

    Ties are broken towards the lower label index (the order of a stable sort
    of the scores in decreasing order), so the result is deterministic. One
    partition per row, O(n d), then a sort of the k chosen: a staged curve
    scores every step, and a full sort per row would cost more than a step.
    """
    S = np.asarray(scores, dtype=np.float64)
    n = S.shape[0]
    kth = -np.partition(-S, k - 1, axis=1)[:, k - 1]         # the k-th highest score of each row
    above = S > kth[:, None]
    tied = S == kth[:, None]
    room = k - above.sum(axis=1)                              # places left for the tied scores
    chosen = above | (tied & (np.cumsum(tied, axis=1) <= room[:, None]))
    labels = np.nonzero(chosen)[1].reshape(n, k)              # each row's k labels, in label order
    order = np.argsort(-np.take_along_axis(S, labels, axis=1), axis=1, kind="stable")
    return np.take_along_axis(labels, order, axis=1)


def _ranked(Y_true, Y_score, k):
    """The labelled rows' relevance of their top-k labels, (n_labelled, k) booleans, and their label counts."""
    Y_true, Y_score = _pair(Y_true, Y_score)
    _check_binary(Y_true, "Y_true")
    k = _check_k(k, Y_true.shape[1])
    labelled = Y_true.sum(axis=1) > 0
    if not labelled.any():
        raise ValueError("Y_true has no row with a true label: precision and nDCG at k are "
                         "computed over the rows with at least one label")
    Y, S = Y_true[labelled] > 0, Y_score[labelled]
    return np.take_along_axis(Y, top_k_labels(S, k), axis=1), Y.sum(axis=1)


def precision_at_k(Y_true, Y_score, k=1):
    """Precision at k: the share of true labels among each row's k highest scores, averaged.

    P@k = (1/k) sum_{l in top_k(s)} y_l, the measure of extreme
    multi-label classification (the Extreme Classification Repository,
    napkinXC, Omikuji). Averaged over the rows of ``Y_true`` with at least
    one true label only, as those users report it (a row without labels has
    no relevant label to rank; napkinXC would count it as 0): so it is a
    mean over the labelled rows, said wherever it is printed. Ties among
    scores go to the lower label index (:func:`top_k_labels`). ``Y_true``
    is a 0/1 matrix, ``Y_score`` real-valued scores (raw scores,
    probabilities: only their order counts); 1 <= k <= n_labels.
    """
    hits, _ = _ranked(Y_true, Y_score, k)
    return float(hits.sum(axis=1).mean() / k)


def ndcg_at_k(Y_true, Y_score, k=5):
    """Normalised discounted cumulative gain at k, averaged over the rows with a true label.

    DCG@k = sum_{r=1..k} y_(r) / log2(r + 1) over the row's k highest scores
    in decreasing order, divided by its best value, sum_{r=1..min(k, |y|)}
    1 / log2(r + 1) (the extreme-classification definition: the true labels
    ranked first). Same rows, ties and arguments as :func:`precision_at_k`.
    """
    hits, n_true = _ranked(Y_true, Y_score, k)
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    ideal = np.cumsum(discount)[np.minimum(n_true, k) - 1]
    return float(((hits * discount).sum(axis=1) / ideal).mean())
