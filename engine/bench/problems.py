"""The benchmarks' problems: a shipped data set's train / test split and its test metric.

Shared by ``--multilabel`` (:mod:`engine.bench.multilabel`), ``--defaults``
(:mod:`engine.bench.defaults`) and ``--extreme`` (:mod:`engine.bench.extreme`): :func:`load_problem` gives a :class:`Problem` (Mulan's standard
split, or the real-data study's first split for a set without one, scm20d), sliced for a quick
run; :class:`StagedLRAP` scores many score matrices of one test set fast, and
:class:`StagedRanking` gives the extreme-classification scores (P@k, nDCG@5) besides.
"""
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from engine.datasets import load_dataset
from engine.metrics import macro_r2, top_k_labels

MISSING = "not installed (pip install -e '.[bench]')"


@dataclass
class Problem:
    """A training and a test set, and the test metric of their task."""

    name: str
    task: str                   # "multilabel" or "regression"
    X: object
    Y: np.ndarray
    X_test: object
    Y_test: np.ndarray
    split: str

    @property
    def metric(self):
        return "test LRAP" if self.task == "multilabel" else "test macro-r2"

    def precision(self, F):
        """(P@1, P@5) of scores F over the labelled test rows (multi-label; :class:`StagedRanking`)."""
        if getattr(self, "_ranking", None) is None:
            self._ranking = StagedRanking(self.Y_test)
        ranking = self._ranking.ranking(F)
        return ranking["P@1"], ranking["P@5"]

    def score(self, F):
        """The test metric of scores / predictions F (n_test, d)."""
        if self.task == "multilabel":
            if getattr(self, "_lrap", None) is None:
                self._lrap = StagedLRAP(self.Y_test)
            return self._lrap(F)
        return macro_r2(self.Y_test, F)


class StagedLRAP:
    """LRAP (:func:`engine.metrics.lrap`) of one 0/1 test matrix, for many score matrices.

    A curve scores every step, and sorting every sample's d scores per step
    (what :func:`engine.metrics.lrap` does) costs more than the step on
    bibtex. Only the true labels need a rank: for each true (i, j), rank =
    #{k: s_ik >= s_ij} and hits = #{true k: s_ik >= s_ij}, one comparison of
    its row per true label (n_true x d, a few labels per sample). Equal to
    :func:`engine.metrics.lrap` up to rounding (tested).
    """

    def __init__(self, Y_test):
        relevant = np.asarray(Y_test) > 0
        n, d = relevant.shape
        self.rows, self.cols = np.nonzero(relevant)
        self.relevant_rows = relevant[self.rows]
        n_relevant = relevant.sum(axis=1)
        self.trivial = (n_relevant == 0) | (n_relevant == d)   # scores 1, as in scikit-learn
        self.n_relevant = np.maximum(n_relevant, 1)

    def __call__(self, scores):
        S = np.asarray(scores, dtype=np.float64)
        S_rows = S[self.rows]
        at_least = S_rows >= S[self.rows, self.cols][:, None]
        rank = at_least.sum(axis=1)
        hits = (at_least & self.relevant_rows).sum(axis=1)
        per_sample = np.bincount(self.rows, hits / rank, minlength=len(self.trivial)) / self.n_relevant
        return float(np.where(self.trivial, 1.0, per_sample).mean())


class StagedRanking:
    """P@1, P@3, P@5, nDCG@5 (rows with a label), LRAP and cross-entropy of score matrices of one test set.

    One top-5 per call (:func:`engine.metrics.top_k_labels`, O(n d)) serves the four ranking
    scores, so a staged curve can afford them at every step; equal to
    :func:`engine.metrics.precision_at_k` and :func:`engine.metrics.ndcg_at_k` (tested).
    """

    def __init__(self, Y_test):
        Y = np.asarray(Y_test) > 0
        self.Y = Y
        self.labelled = Y.any(axis=1)
        self.Y_labelled = Y[self.labelled]
        n_true = self.Y_labelled.sum(axis=1)
        discount = 1.0 / np.log2(np.arange(2, 7))
        self.discount = discount
        self.ideal = np.cumsum(discount)[np.minimum(n_true, 5) - 1]
        self._lrap = StagedLRAP(Y)

    def ranking(self, S):
        """{P@1, P@3, P@5, nDCG@5} of scores S (n_test, d)."""
        S = np.asarray(S, dtype=np.float64)[self.labelled]
        hits = np.take_along_axis(self.Y_labelled, top_k_labels(S, min(5, S.shape[1])), axis=1)
        if hits.shape[1] < 5:           # fewer than 5 labels (a sample of them): the rest count as misses
            hits = np.pad(hits, ((0, 0), (0, 5 - hits.shape[1])))
        counts = np.cumsum(hits, axis=1)
        return {"P@1": float(counts[:, 0].mean()), "P@3": float(counts[:, 2].mean() / 3),
                "P@5": float(counts[:, 4].mean() / 5),
                "nDCG@5": float(((hits * self.discount).sum(axis=1) / self.ideal).mean())}

    def __call__(self, S, probabilities=None):
        """The ranking scores, LRAP, and the cross-entropy (None without ``probabilities``)."""
        scores = self.ranking(S)
        scores["LRAP"] = self._lrap(S)
        scores["cross-entropy"] = None if probabilities is None else cross_entropy(self.Y, probabilities)
        return scores


def cross_entropy(Y, P, eps=1e-15):
    """Mean binary cross-entropy over the test entries, P clipped to [eps, 1 - eps] (scikit-learn's log_loss)."""
    P = np.clip(np.asarray(P, dtype=np.float64), eps, 1.0 - eps)
    return float(-np.where(Y, np.log(P), np.log1p(-P)).mean())


def load_problem(name, max_rows=None, max_test_rows=None, max_outputs=None):
    """A shipped data set as a :class:`Problem`: its standard split, or (without one,
    scm20d) the real-data study's first split with the paper's train/test sizes.

    The ``max_*`` arguments cut a slice for a quick run: the first rows, and
    the ``max_outputs`` labels most frequent in the training rows (the first
    outputs for regression).
    """
    data = load_dataset(name)
    if data.test_indices is not None:
        X, Y, X_test, Y_test = data.train_test_split()
        split = f"standard split {X.shape[0]}/{X_test.shape[0]}"
    else:
        from engine.experiments.study_cells import study_data, study_split
        Xa, Ya, _ = study_data(name)         # regression outputs standardized
        rows = study_split(name, 0, 0)
        X, Y, X_test, Y_test = Xa[rows["train"]], Ya[rows["train"]], Xa[rows["test"]], Ya[rows["test"]]
        split = (f"the real-data study's split 0 (seed 0), the paper's sizes {X.shape[0]}/{X_test.shape[0]}"
                 ", outputs standardized")
    X, X_test = X[:max_rows], X_test[:max_test_rows]
    Y, Y_test = Y[:max_rows], Y_test[:max_test_rows]
    if max_outputs is not None and Y.shape[1] > max_outputs:
        keep = (np.sort(np.argsort(-Y.sum(axis=0), kind="stable")[:max_outputs])
                if data.task == "multilabel" else np.arange(max_outputs))
        Y, Y_test = Y[:, keep], Y_test[:, keep]
    if max_rows is not None or max_test_rows is not None or max_outputs is not None:
        split += f", sliced to {X.shape[0]}/{X_test.shape[0]} rows and {Y.shape[1]} outputs"
    return Problem(name, data.task, X, np.ascontiguousarray(Y), X_test, np.ascontiguousarray(Y_test), split)


def describe(problem):
    X = problem.X
    kind = f"CSR, {X.nnz} non-zeros" if sparse.issparse(X) else "dense"
    what = "labels" if problem.task == "multilabel" else "outputs"
    return (f"{problem.name}: {X.shape[0]} x {X.shape[1]} ({kind}), {problem.Y.shape[1]} {what}, "
            f"{problem.X_test.shape[0]} test rows ({problem.split}); {problem.metric}")
