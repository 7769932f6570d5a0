"""The problems the experiments run on: a train / test split of Friedman1, of a shipped data set
or of the synthetic delicious-shaped set.

Names: the Friedman1 multi-output problems of paper 002 (``friedman1-chain`` / ``-group`` /
``-ind``), the single-output problems of thesis chapter 7 (``friedman1``, p = 10, and
``two-norm``; :mod:`engine.datasets.thesis`), the shipped data sets and
``synthetic-delicious-shape`` (:mod:`engine.datasets.synthetic_multilabel`) and ``delicious-slice`` (a
small slice of the real delicious, :mod:`engine.datasets.slices`). A sparse X
(bibtex, corel5k, the synthetic set) stays a scipy.sparse CSR matrix in the split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.datasets import (
    INPUT_DISTRIBUTIONS,
    SYNTHETIC_DELICIOUS,
    THESIS_PROBLEMS,
    list_datasets,
    load_dataset,
    make_delicious_shaped,
    make_friedman1,
    make_friedman1_multioutput,
    make_two_norm,
    synthetic_catalogue,
)
from engine.datasets.slices import DELICIOUS_SLICE, load_slice, slice_catalogue
from engine.names import FRIEDMAN_PROBLEMS
from engine.validation import check_in_interval
from engine.validation import check_int as _int

# The keyword arguments that describe a Friedman1 problem (see get_problem).
DATA_KEYS = ("n_train", "n_test", "n_outputs", "noise", "input_distribution", "n_noisy_outputs")


def data_kwargs(n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs):
    """The data arguments of an experiment as one dict (keys ``DATA_KEYS``)."""
    return dict(n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs)


def problem_shape(dataset, n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs, seed):
    """Validate the data arguments; return (task, total outputs) without loading anything."""
    _int(seed, "seed", 0)
    if dataset in FRIEDMAN_PROBLEMS:
        _int(n_train, "n_train", 2)
        _int(n_test, "n_test", 2)
        _int(n_outputs, "n_outputs", 1)
        check_in_interval(noise, "noise", 0.0)
        _int(n_noisy_outputs, "n_noisy_outputs", 0)
        if input_distribution not in INPUT_DISTRIBUTIONS:
            raise ValueError(f"input_distribution must be one of {INPUT_DISTRIBUTIONS}, got {input_distribution!r}")
        return "regression", n_outputs + n_noisy_outputs
    if dataset in THESIS_PROBLEMS:
        _int(n_train, "n_train", 2)
        _int(n_test, "n_test", 2)
        if n_noisy_outputs:
            raise ValueError("n_noisy_outputs is only available for the Friedman1 multi-output problems")
        return ("regression" if dataset == "friedman1" else "multilabel"), 1
    shipped = {d["name"]: d for d in list_datasets() + synthetic_catalogue() + slice_catalogue()}
    if not isinstance(dataset, str) or dataset not in shipped:
        raise ValueError(
            f"dataset must be one of {list(FRIEDMAN_PROBLEMS) + list(THESIS_PROBLEMS)}, {SYNTHETIC_DELICIOUS!r}, "
            f"{DELICIOUS_SLICE!r} "
            f"or a shipped data set ({', '.join(d['name'] for d in list_datasets())}), got {dataset!r}")
    if n_noisy_outputs:
        raise ValueError("n_noisy_outputs is only available for the Friedman1 problems")
    meta = shipped[dataset]
    return meta["task"], meta["n_outputs"]


def problem_size(dataset, *, n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                 n_noisy_outputs=0, seed=0):
    """The size of :func:`get_problem`'s split without drawing or loading anything (for cost estimates).

    A dict: task, n_train, n_test, n_features, n_outputs, and nnz_per_row (stored values per
    training row of a sparse X; None when X is dense). Shipped sets without a standard split
    use get_problem's 50/50 split; for the synthetic set nnz_per_row is approximate.
    """
    task, d = problem_shape(dataset, n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs, seed)
    if dataset in FRIEDMAN_PROBLEMS or dataset in THESIS_PROBLEMS:
        p = {"friedman1-ind": 5 * n_outputs, "friedman1": 10, "two-norm": 20}.get(dataset, 5)
        return dict(task=task, n_train=int(n_train), n_test=int(n_test), n_features=p, n_outputs=d, nnz_per_row=None)
    meta = {m["name"]: m for m in list_datasets() + synthetic_catalogue() + slice_catalogue()}[dataset]
    n = meta["n_samples"]
    te = meta["n_test"] if meta["n_test"] is not None else n - n // 2
    nnz = (meta["nnz"] / n if meta["nnz"] else meta.get("approx_nnz_per_row")) if meta["sparse"] else None
    return dict(task=task, n_train=n - te, n_test=te, n_features=meta["n_features"], n_outputs=d, nnz_per_row=nnz)


def get_problem(dataset, *, n_train=300, n_test=4000, n_outputs=16, noise=1.0,
                input_distribution="uniform", n_noisy_outputs=0, seed=0):
    """A train / test split of a problem: ``(X_train, Y_train, X_test, Y_test, task, info)``.

    dataset : "friedman1-chain", "friedman1-group", "friedman1-ind" or the
        name of a shipped data set (:func:`engine.datasets.list_datasets`).

    Friedman1 problems (section 4.2.1): ``n_train`` training and ``n_test``
    test samples (paper: 300 and 4000, d = 16) drawn independently from two
    generators derived from ``seed``; ``info["bayes_test"]`` holds E[Y | X]
    on the test set.

    Shipped data sets: the standard train / test split when the source ships
    one; otherwise a random split seeded by ``seed`` with 50% of the rows for
    training and 50% for testing. (The paper uses 40% train, 10% validation
    and 50% test; these experiments tune nothing, so the validation part is
    given to training.) ``n_train``, ``n_test``, ``n_outputs``, ``noise`` and
    ``input_distribution`` only apply to the Friedman1 problems.

    ``"synthetic-delicious-shape"``: :func:`engine.datasets.make_delicious_shaped`
    drawn with ``random_state=seed`` at delicious's size, split 12920 / 3185.

    X is a scipy.sparse CSR matrix for the sparse sets (bibtex, corel5k and the
    synthetic one), never densified; Y is always dense.

    ``info``: name, description, n_features, n_outputs, n_train, n_test, split.
    """
    task, _ = problem_shape(dataset, n_train, n_test, n_outputs, noise, input_distribution,
                             n_noisy_outputs, seed)
    if dataset in FRIEDMAN_PROBLEMS:
        structure = dataset.split("-", 1)[1]
        seeds = np.random.SeedSequence(seed).spawn(2)
        kw = dict(n_outputs=n_outputs, noise=noise, input_distribution=input_distribution,
                  n_noisy_outputs=n_noisy_outputs)
        X_tr, Y_tr, _ = make_friedman1_multioutput(structure, n_samples=n_train,
                                                   random_state=np.random.default_rng(seeds[0]), **kw)
        X_te, Y_te, bayes = make_friedman1_multioutput(structure, n_samples=n_test,
                                                       random_state=np.random.default_rng(seeds[1]), **kw)
        info = {"name": dataset, "n_original_outputs": n_outputs, "bayes_test": bayes,
                "split": f"independent draws: {n_train} train, {n_test} test (seed {seed})",
                "description": (f"{dataset}: {n_outputs} outputs"
                                + (f" + {n_noisy_outputs} purely noisy outputs" if n_noisy_outputs else "")
                                + f", {X_tr.shape[1]} inputs {input_distribution}, noise sd {noise}")}
    elif dataset in THESIS_PROBLEMS:
        make = make_friedman1 if dataset == "friedman1" else make_two_norm
        seeds = np.random.SeedSequence(seed).spawn(2)
        X_tr, y_tr, _ = make(n_train, random_state=np.random.default_rng(seeds[0]))
        X_te, y_te, bayes = make(n_test, random_state=np.random.default_rng(seeds[1]))
        Y_tr, Y_te = y_tr.reshape(-1, 1).astype(float), y_te.reshape(-1, 1).astype(float)
        info = {"name": dataset, "n_original_outputs": 1, "bayes_test": bayes.reshape(-1, 1),
                "split": f"independent draws: {n_train} train, {n_test} test (seed {seed})",
                "description": (f"{dataset} (thesis Appendix A.1): "
                                + ("10 inputs U(0,1), one output, noise sd 1" if dataset == "friedman1"
                                   else "20 Gaussian inputs, two classes"))}
    else:
        if dataset == SYNTHETIC_DELICIOUS:
            data = make_delicious_shaped(random_state=seed)
        else:
            data = load_slice(dataset) if dataset == DELICIOUS_SLICE else load_dataset(dataset)
        if data.test_indices is not None:
            X_tr, Y_tr, X_te, Y_te = data.train_test_split()
            split = "standard train/test split"
        else:
            perm = np.random.default_rng(seed).permutation(data.n_samples)
            half = data.n_samples // 2
            tr, te = np.sort(perm[:half]), np.sort(perm[half:])
            X_tr, Y_tr, X_te, Y_te = data.X[tr], data.Y[tr], data.X[te], data.Y[te]
            split = f"random 50/50 train/test split (seed {seed})"
        info = {"name": dataset, "n_original_outputs": data.n_outputs, "bayes_test": None,
                "split": split, "description": data.description}
    info.update(n_features=int(X_tr.shape[1]), n_outputs=int(Y_tr.shape[1]),
                n_train=int(X_tr.shape[0]), n_test=int(X_te.shape[0]))
    return X_tr, Y_tr, X_te, Y_te, task, info


@dataclass(frozen=True)
class Problem:
    """A problem an experiment runs on, before it is drawn: a data set's name and the data
    arguments of :func:`get_problem` (Friedman1's sizes, noise and input law; a shipped data set
    keeps its own split and ignores them)."""

    dataset: str
    n_train: int = 300
    n_test: int = 4000
    n_outputs: int = 16
    noise: float = 1.0
    input_distribution: str = "uniform"
    n_noisy_outputs: int = 0

    def data_kwargs(self) -> dict:
        """The data arguments as one dict (the keys of :func:`data_kwargs`)."""
        return data_kwargs(self.n_train, self.n_test, self.n_outputs, self.noise, self.input_distribution,
                           self.n_noisy_outputs)

    def shape(self, seed=0) -> tuple:
        """Validate the data arguments; ``(task, outputs)`` without loading anything."""
        return problem_shape(self.dataset, seed=seed, **self.data_kwargs())

    def draw(self, seed=0) -> "ProblemData":
        """The problem drawn with ``seed`` (:func:`get_problem`)."""
        return ProblemData(*get_problem(self.dataset, seed=seed, **self.data_kwargs()))


@dataclass(frozen=True, eq=False)
class ProblemData:
    """A drawn problem: the training and test sets, the task and :func:`get_problem`'s ``info``
    (name, split, the original outputs, ...)."""

    X_train: object
    Y_train: np.ndarray
    X_test: object
    Y_test: np.ndarray
    task: str
    info: dict

    @property
    def n_outputs(self) -> int:
        return int(self.Y_train.shape[1])

    @property
    def split(self) -> str:
        """How the data were split into training and test sets (a sentence)."""
        return self.info["split"]

    def as_tuple(self) -> tuple:
        """``(X_train, Y_train, X_test, Y_test, task, info)``, as :func:`get_problem` returns it."""
        return self.X_train, self.Y_train, self.X_test, self.Y_test, self.task, self.info
