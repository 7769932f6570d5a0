"""The synthetic problems of thesis 001's Appendix A.1 used in chapter 7: Friedman1 and Two-norm.

* **Friedman1** (Friedman 1991): p = 10 independent inputs x ~ U(0, 1), of
  which only the first five matter,
  y = 10 sin(pi x1 x2) + 20 (x3 - 1/2)^2 + 10 x4 + 5 x5 + e, e ~ N(0, 1);
  300 learning and 2000 test samples. Appendix A prints the last term as
  "6 x5"; Friedman (1991), which it cites, and chapter 5-6's eq. 27 write
  5 x5, which is used here (``coef_x5`` changes it).
  Not the multi-output problems of paper 002 (those draw p = 5 inputs per
  function, :mod:`engine.datasets.friedman`).
* **Two-norm** (Breiman 1996): a binary problem with p = 20 inputs, each
  N(-alpha, 1) in class 0 and N(+alpha, 1) in class 1, alpha = 2 / sqrt(20),
  classes equally likely; 300 learning and 2000 test samples. The Bayes
  classifier is sign(sum_j x_j), with error Phi(-alpha sqrt(p)) = Phi(-2),
  about 2.28 %.

SEFTi, the third data set of Table 7.1 (a semiconductor-manufacturing
simulation, AA&YA 2008), is not available: it is not shipped and has no
public generator.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from engine.datasets.dataset import Dataset
from engine.datasets.friedman import as_generator, friedman1
from engine.validation import check_int, check_real

__all__ = ["THESIS_PROBLEMS", "TWO_NORM_ALPHA", "make_friedman1", "make_two_norm", "make_thesis_dataset"]

THESIS_PROBLEMS = ("friedman1", "two-norm")
TWO_NORM_ALPHA = 2.0 / np.sqrt(20.0)


def make_friedman1(n_samples, *, n_features=10, noise=1.0, coef_x5=5.0, random_state=None):
    """Friedman1 (thesis Appendix A.1): returns X (n, p), y (n,), E[y | X] (n,).

    Draw order: X, then the noise.
    """
    n_samples = check_int(n_samples, "n_samples", 1)
    n_features = check_int(n_features, "n_features", 5)
    noise = check_real(noise, "noise", 0.0)
    coef_x5 = check_real(coef_x5, "coef_x5", -np.inf)
    rng = as_generator(random_state)
    X = rng.random((n_samples, n_features))
    bayes = friedman1(X[:, :5]) + (coef_x5 - 5.0) * X[:, 4]
    y = bayes + noise * rng.standard_normal(n_samples)
    return X, y, bayes


def make_two_norm(n_samples, *, n_features=20, alpha=TWO_NORM_ALPHA, random_state=None):
    """Two-norm (thesis Appendix A.1): returns X (n, p), y (n,) in {0, 1}, P(y = 1 | X) (n,).

    The log-odds of class 1 are 2 alpha sum_j x_j. Draw order: the classes, then X.
    """
    n_samples = check_int(n_samples, "n_samples", 1)
    n_features = check_int(n_features, "n_features", 1)
    alpha = check_real(alpha, "alpha", 0.0)
    rng = as_generator(random_state)
    y = rng.integers(0, 2, size=n_samples)
    X = rng.standard_normal((n_samples, n_features)) + np.where(y[:, None] == 1, alpha, -alpha)
    return X, y, expit(2.0 * alpha * X.sum(axis=1))


_CITATION = ("A. Joly, \"Exploiting random projections and sparsity with random forests and gradient "
             "boosting methods\", PhD thesis, University of Liège, 2016 (Appendix A.1). Friedman1: "
             "J. H. Friedman, Annals of Statistics 19(1), 1991. Two-norm: L. Breiman, \"Bias, variance, "
             "and arcing classifiers\", 1996.")


def make_thesis_dataset(name, n_samples, *, random_state=None) -> Dataset:
    """Friedman1 or Two-norm as a :class:`Dataset` (``bayes``: E[y | x], or P(y = 1 | x))."""
    if name == "friedman1":
        X, y, bayes = make_friedman1(n_samples, random_state=random_state)
        task, desc = "regression", (f"Friedman1 (thesis Appendix A.1): {n_samples} samples, 10 inputs U(0,1) "
                                    "(5 relevant), one output, noise sd 1.")
    elif name == "two-norm":
        X, y, bayes = make_two_norm(n_samples, random_state=random_state)
        task, desc = "multilabel", (f"Two-norm (thesis Appendix A.1): {n_samples} samples, 20 Gaussian inputs, "
                                    "two classes (one 0/1 label); Bayes error 2.28 %.")
    else:
        raise ValueError(f"name must be one of {list(THESIS_PROBLEMS)}, got {name!r}")
    return Dataset(name=name, X=X, Y=y.reshape(-1, 1).astype(float), feature_names=[f"x{i + 1}" for i in range(X.shape[1])],
                   target_names=["y"], task=task, test_indices=None, bayes=bayes.reshape(-1, 1),
                   description=desc, citation=_CITATION)
