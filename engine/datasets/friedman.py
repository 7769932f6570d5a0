"""The synthetic Friedman1 multi-output problems (paper 002, section 4.2.1), with E[Y | X]."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import sici

from engine.datasets.dataset import Dataset
from engine.names import STRUCTURES
from engine.validation import check_choice as _check_choice
from engine.validation import check_int as _check_int
from engine.validation import check_real as _check_real

INPUT_DISTRIBUTIONS = ("uniform", "gaussian")


def as_generator(random_state, name="random_state"):
    """numpy Generator from None, an int seed, a Generator or a RandomState.

    A Generator passed in is used (and advanced) directly. A RandomState is
    used to draw a seed for a new Generator, so it is advanced too.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"{name} must be None, an int, a numpy Generator or RandomState, got {random_state!r}"
    )


def friedman1(X5):
    """Noise-free Friedman1 function on the 5 columns of ``X5`` (n x 5).

    f(x) = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5   (eq. 27).
    """
    X5 = np.asarray(X5, dtype=np.float64)
    if X5.ndim != 2 or X5.shape[1] != 5:
        raise ValueError(f"X5 must have shape (n, 5), got {X5.shape}")
    return (
        10.0 * np.sin(np.pi * X5[:, 0] * X5[:, 1])
        + 20.0 * (X5[:, 2] - 0.5) ** 2
        + 10.0 * X5[:, 3]
        + 5.0 * X5[:, 4]
    )


def friedman1_mean(input_distribution="uniform"):
    """E[f(x)] of the Friedman1 function, in closed form.

    * uniform, x ~ U(0, 1)^5:
      E[10 sin(pi x1 x2)] = 10/pi * integral_0^pi (1 - cos t)/t dt
      = 10/pi * Cin(pi), with Cin(z) = gamma + ln z - Ci(z) (Euler's gamma,
      cosine integral Ci from scipy.special.sici);
      E[20 (x3 - 1/2)^2] = 20/12; E[10 x4 + 5 x5] = 7.5.
      Total about 14.4131.
    * gaussian, x ~ N(0, I5): sin(pi x1 x2) is odd in x1 and x1 is symmetric,
      so its mean is exactly 0; E[(x3 - 1/2)^2] = Var + bias^2 = 1 + 1/4, so
      20 * 1.25 = 25; E[x4] = E[x5] = 0. Total exactly 25.
    """
    _check_choice(input_distribution, "input_distribution", INPUT_DISTRIBUTIONS)
    if input_distribution == "uniform":
        _, ci = sici(np.pi)
        cin = np.euler_gamma + np.log(np.pi) - ci
        return float(10.0 * cin / np.pi + 20.0 / 12.0 + 7.5)
    return 25.0


def make_friedman1_multioutput(
    structure,
    *,
    n_samples,
    n_outputs=16,
    input_distribution="uniform",
    noise=1.0,
    n_noisy_outputs=0,
    random_state=None,
):
    """Draw a multi-output Friedman1 problem (Joly, Wehenkel & Geurts, sec. 4.2.1).

    With f the Friedman1 function (:func:`friedman1`) and e_j ~ N(0, noise^2)
    independent:

    * ``"chain"``  (eq. 29-30): y_1 = f(x) + e_1, y_j = y_{j-1} + e_j.
      Noise accumulates: Var(y_j | x) = j * noise^2, while E[y_j | x] = f(x)
      for every j. p = 5 inputs.
    * ``"group"``  (eq. 31): y_j = f(x) + e_j. p = 5 inputs.
    * ``"ind"``    (eq. 32): y_j = f(x_{5(j-1)+1}, ..., x_{5j}) + e_j for
      j = 1, ..., d: output j reads its own block of 5 inputs (how eq. 32 is
      read: :func:`_bayes_outputs`). p = 5 * n_outputs inputs.

    Inputs. ``"uniform"`` (default) draws x ~ U(0, 1)^p, the classic Friedman
    (1991) setting. ``"gaussian"`` draws x ~ N(0, I_p), which is what the
    paper's text literally says; however the scores the paper reports only
    fit uniform inputs (with Gaussian inputs the x4, x5 terms and the sine
    behave very differently), hence the uniform default.

    Noisy outputs (section 4.2.3, Table 6). ``n_noisy_outputs`` extra outputs
    are appended after the ``n_outputs`` real ones: row permutations of real
    outputs, with no link with x (:func:`_append_noisy_outputs`).

    Parameters
    ----------
    structure : {"chain", "group", "ind"}
    n_samples : int >= 2
    n_outputs : int >= 1, default 16 (the paper's d)
    input_distribution : {"uniform", "gaussian"}
    noise : float >= 0, standard deviation of each e_j (paper: 1)
    n_noisy_outputs : int >= 0 (paper, Table 6: 16)
    random_state : None, int, numpy Generator or RandomState
        Same seed, same data. Draw order: X, then the noise, then the
        permutations, so X depends only on the seed, n_samples, the number of
        inputs and the input distribution.

    Returns
    -------
    X : ndarray (n_samples, p)
    Y : ndarray (n_samples, n_outputs + n_noisy_outputs)
    Y_bayes : ndarray, same shape as Y, E[Y | X]
    """
    structure = _check_choice(structure, "structure", STRUCTURES)
    n_samples = _check_int(n_samples, "n_samples", 2)
    n_outputs = _check_int(n_outputs, "n_outputs", 1)
    input_distribution = _check_choice(input_distribution, "input_distribution", INPUT_DISTRIBUTIONS)
    noise = _check_real(noise, "noise", 0.0)
    n_noisy_outputs = _check_int(n_noisy_outputs, "n_noisy_outputs", 0)
    rng = as_generator(random_state)

    d = n_outputs
    p = 5 * d if structure == "ind" else 5
    if input_distribution == "uniform":
        X = rng.random((n_samples, p))
    else:
        X = rng.standard_normal((n_samples, p))

    bayes = _bayes_outputs(X, structure, d)
    eps = noise * rng.standard_normal((n_samples, d))
    if structure == "chain":
        eps = np.cumsum(eps, axis=1)
    Y = bayes + eps
    if n_noisy_outputs:
        Y, bayes = _append_noisy_outputs(Y, bayes, n_noisy_outputs, friedman1_mean(input_distribution), rng)
    return X, Y, bayes


def _bayes_outputs(X, structure, d):
    """E[Y | X] of the d real outputs: f(x) for every output of chain and group; for ind, output
    j (1-based, as in the paper) reads inputs x_{5(j-1)+1}..x_{5j}: output 1 uses x_1..x_5,
    output 2 uses x_6..x_10, ..., output d uses x_{5d-4}..x_{5d} (the paper's x ~ N(0, I_{5d})).

    Eq. 32 prints the slice as x_{5j+1:5j+5} with j in {1, ..., d}, which taken literally would
    skip x_1..x_5 and end at x_{5d+5}, past the 5d inputs the paper draws; the consecutive blocks
    above are the only reading consistent with x in R^{5d}."""
    if structure == "ind":
        return np.column_stack([friedman1(X[:, 5 * j: 5 * j + 5]) for j in range(d)])
    return np.repeat(friedman1(X)[:, None], d, axis=1)


def _append_noisy_outputs(Y, bayes, n_noisy_outputs, mean, rng):
    """(Y, bayes) with ``n_noisy_outputs`` noisy outputs appended (section 4.2.3, Table 6).

    Noisy output k (0-based) is an independent random row permutation of real output ``k % d``
    (its noise included), so it has the right marginal distribution but no link with x. Its
    Bayes prediction is the constant marginal mean ``mean`` = E[y] = E[f(x)]
    (:func:`friedman1_mean`; the e_j have mean 0, and for chain E[y_j] = E[f(x)] too)."""
    n_samples, d = Y.shape
    noisy = np.empty((n_samples, n_noisy_outputs))
    for k in range(n_noisy_outputs):
        noisy[:, k] = Y[rng.permutation(n_samples), k % d]
    return np.hstack([Y, noisy]), np.hstack([bayes, np.full((n_samples, n_noisy_outputs), mean)])


_FRIEDMAN_CITATION = (
    "A. Joly, L. Wehenkel, P. Geurts. \"Gradient tree boosting with random output "
    "projections for multi-label classification and multi-output regression\". "
    "arXiv:1905.07558, 2019 (section 4.2.1). Friedman1: J. H. Friedman, "
    "\"Multivariate Adaptive Regression Splines\", Annals of Statistics 19(1), 1991."
)


def make_friedman_dataset(structure, **kwargs) -> Dataset:
    """:func:`make_friedman1_multioutput` wrapped in a :class:`Dataset`.

    Same keyword arguments. Features are named x1..xp, outputs y1..yd and the
    noisy outputs noise1..noiseK; ``bayes`` holds E[Y | X]; there is no
    standard split (draw a training and a test set with two seeds, or split).
    """
    X, Y, bayes = make_friedman1_multioutput(structure, **kwargs)
    d = int(kwargs.get("n_outputs", 16))
    k = Y.shape[1] - d
    dist = kwargs.get("input_distribution", "uniform")
    noise = kwargs.get("noise", 1.0)
    desc = (
        f"Friedman1-{structure}: {Y.shape[0]} samples, {X.shape[1]} inputs "
        f"({'U(0,1)' if dist == 'uniform' else 'N(0,1)'}), {d} outputs, noise sd {noise}"
        + (f", plus {k} purely noisy outputs (row permutations of real outputs)" if k else "")
        + "."
    )
    return Dataset(
        name=f"friedman1-{structure}",
        X=X,
        Y=Y,
        feature_names=[f"x{i + 1}" for i in range(X.shape[1])],
        target_names=[f"y{j + 1}" for j in range(d)] + [f"noise{j + 1}" for j in range(k)],
        task="regression",
        test_indices=None,
        bayes=bayes,
        description=desc,
        citation=_FRIEDMAN_CITATION,
    )
