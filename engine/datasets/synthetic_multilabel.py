"""A synthetic multi-label problem with the shape of delicious, for timing at the papers' scale.

Paper 002's Figures 5-6 (and thesis chapter 5) run on delicious: 16105 bookmarks (12920 for
training, 3185 for testing), 500 binary word features, 983 tags, about 19 tags per bookmark.
That data set is too large to ship, so :func:`make_delicious_shaped` draws a problem of the
same shape from scikit-learn's ``make_multilabel_classification`` (a generative model of
documents: each sample draws a Poisson number of labels, then a Poisson number of words, on
average ``length``, from the mixture of its labels' word distributions).

What it is: a sparse bag-of-words X (n x 500, scipy.sparse CSR, word counts), a dense 0/1 Y
(n x 983), a train/test split with delicious's proportions, the same numbers for the same seed.
What it is not: delicious. The features are counts (delicious's are binary), every label's
word distribution is random (uniform weights, normalised), label frequencies are far less
skewed than delicious's long tail, and some labels may never occur. Its scores say nothing
about delicious's; what carries over is the cost of growing trees on n = 16k samples, 500
sparse inputs and d = 983 outputs, which is what the Projections page measures with it.

Little is learnable from it by trees: a document mixes about 19 near-uniform word
distributions, so no single word says much about a label. In our runs, 30 to 100 boosted
stumps (gbmort or gbrt-relabel-rpo, square or logistic loss) ended within 0.002 of the LRAP of
ranking labels by their training frequency (about 0.043). Fewer labels per sample or longer
documents (``mean_labels``, ``length``) help only a little (2 labels and 100 words: 0.029
against 0.014 after 100 stumps with one Gaussian projection per tree). Read scores on it with
the constant-model baseline in view; use the real sets (bibtex, corel5k) for scores.
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_multilabel_classification

from engine.datasets.dataset import Dataset
from engine.validation import check_int

SYNTHETIC_DELICIOUS = "synthetic-delicious-shape"

# delicious in Mulan (Tsoumakas, Katakis & Vlahavas 2008; paper 002, Table 2): n = 12920 + 3185,
# p = 500, d = 983, label cardinality 19.02.
DELICIOUS_SHAPE = {"n_samples": 16105, "n_test": 3185, "n_features": 500, "n_labels": 983, "mean_labels": 19}

_CITATION = (
    "Synthetic: scikit-learn's make_multilabel_classification (Pedregosa et al., \"Scikit-learn: "
    "Machine Learning in Python\", JMLR 12:2825-2830, 2011). Shape of delicious: G. Tsoumakas, I. Katakis, "
    "I. Vlahavas, \"Effective and efficient multilabel classification in domains with large "
    "number of labels\", ECML/PKDD 2008 Workshop on Mining Multidimensional Data."
)


def make_delicious_shaped(n_samples=DELICIOUS_SHAPE["n_samples"], *, n_features=DELICIOUS_SHAPE["n_features"],
                          n_labels=DELICIOUS_SHAPE["n_labels"], mean_labels=DELICIOUS_SHAPE["mean_labels"],
                          length=50, random_state=0) -> Dataset:
    """A multi-label :class:`Dataset` shaped like delicious, with a sparse X (see the module docstring).

    Parameters
    ----------
    n_samples : rows (default 16105, as delicious); the last ``round(n_samples * 3185 / 16105)``
        rows are the standard test set (delicious's 12920 / 3185 proportions).
    n_features : vocabulary size, the columns of X (500).
    n_labels : number of labels d (983).
    mean_labels : expected number of labels per sample (Poisson mean; delicious: 19.02).
        Every sample has at least one label.
    length : expected number of words per sample (Poisson mean, scikit-learn's default 50):
        about 48 distinct non-zero features per row at the default sizes.
    random_state : int seed; the same seed gives the same data set (with the same
        scikit-learn version: the generator is scikit-learn's).

    Returns a Dataset named ``"synthetic-delicious-shape"``: X a float64 CSR matrix of word
    counts, Y dense 0/1, task "multilabel", ``test_indices`` the last rows.
    """
    n_samples = check_int(n_samples, "n_samples", 2)
    n_features = check_int(n_features, "n_features", 1)
    n_labels = check_int(n_labels, "n_labels", 1)
    mean_labels = check_int(mean_labels, "mean_labels", 1)
    if mean_labels > n_labels:
        raise ValueError(f"mean_labels must be <= n_labels ({n_labels}), got {mean_labels}")
    length = check_int(length, "length", 1)
    random_state = check_int(random_state, "random_state", 0)
    X, Y = make_multilabel_classification(
        n_samples=n_samples, n_features=n_features, n_classes=n_labels, n_labels=mean_labels,
        length=length, allow_unlabeled=False, sparse=True, return_indicator="dense",
        random_state=random_state)
    n_test = min(max(1, round(n_samples * DELICIOUS_SHAPE["n_test"] / DELICIOUS_SHAPE["n_samples"])), n_samples - 1)
    density = X.nnz / (n_samples * n_features)
    description = (
        f"{SYNTHETIC_DELICIOUS}: synthetic multi-label data with delicious's shape (not delicious), "
        f"{n_samples} samples, {n_features} sparse word-count features ({X.nnz:,} non-zeros, {density:.1%}), "
        f"{n_labels} labels, {Y.sum(axis=1).mean():.2f} labels per sample on average, standard split "
        f"{n_samples - n_test}/{n_test} (train/test), seed {random_state}. Drawn with scikit-learn's "
        "make_multilabel_classification: for timing at the papers' scale; its scores say nothing about delicious's."
    )
    return Dataset(
        name=SYNTHETIC_DELICIOUS,
        X=X,
        Y=Y,
        feature_names=[f"w{j + 1}" for j in range(n_features)],
        target_names=[f"label{k + 1}" for k in range(n_labels)],
        task="multilabel",
        test_indices=np.arange(n_samples - n_test, n_samples),
        description=description,
        citation=_CITATION,
    )


def synthetic_catalogue():
    """The generated data sets, described like :func:`engine.datasets.list_datasets` rows (no data drawn)."""
    shape = DELICIOUS_SHAPE
    return [{
        "name": SYNTHETIC_DELICIOUS,
        "task": "multilabel",
        "n_samples": shape["n_samples"],
        "n_features": shape["n_features"],
        "n_outputs": shape["n_labels"],
        "has_standard_split": True,
        "n_test": shape["n_test"],
        "sparse": True,
        "nnz": None,                  # known once drawn; it depends on the seed
        "approx_nnz_per_row": 48,     # 47.6 for seed 0 at the default length 50 (for cost estimates)
        "citation": _CITATION,
    }]
