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

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from engine.datasets import (
    Dataset,
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

# The keyword arguments that describe a Friedman1 problem (see Problem).
DATA_KEYS = ("n_train", "n_test", "n_outputs", "noise", "input_distribution", "n_noisy_outputs")


def _catalogue():
    """The shipped, synthetic and sliced data sets' metadata, by name (nothing loaded)."""
    return {d["name"]: d for d in list_datasets() + synthetic_catalogue() + slice_catalogue()}


def problem_size(dataset, *, n_train=300, n_test=4000, n_outputs=16, noise=1.0, input_distribution="uniform",
                 n_noisy_outputs=0, seed=0):
    """The size of a problem's split without drawing or loading anything (for cost estimates):
    :meth:`Problem.size` of ``Problem(dataset, ...)``."""
    _int(seed, "seed", 0)
    return Problem(dataset, n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise,
                   input_distribution=input_distribution, n_noisy_outputs=n_noisy_outputs).size()


def _split_dataset(data, seed):
    """A Dataset's standard split, or a random 50/50 one seeded by ``seed``: (X_tr, Y_tr, X_te, Y_te, sentence)."""
    if data.test_indices is not None:
        return (*data.train_test_split(), "standard train/test split")
    if data.n_samples < 4:
        raise ValueError(f"the data set {data.name!r} has {data.n_samples} rows: at least 4 are needed for a "
                         "train/test split")
    perm = np.random.default_rng(seed).permutation(data.n_samples)
    half = data.n_samples // 2
    tr, te = np.sort(perm[:half]), np.sort(perm[half:])
    return data.X[tr], data.Y[tr], data.X[te], data.Y[te], f"random 50/50 train/test split (seed {seed})"


def _draw_friedman(problem, seed):
    structure = problem.dataset.split("-", 1)[1]
    seeds = np.random.SeedSequence(seed).spawn(2)
    kw = dict(n_outputs=problem.n_outputs, noise=problem.noise, input_distribution=problem.input_distribution,
              n_noisy_outputs=problem.n_noisy_outputs)
    X_tr, Y_tr, _ = make_friedman1_multioutput(structure, n_samples=problem.n_train,
                                               random_state=np.random.default_rng(seeds[0]), **kw)
    X_te, Y_te, bayes = make_friedman1_multioutput(structure, n_samples=problem.n_test,
                                                   random_state=np.random.default_rng(seeds[1]), **kw)
    noisy = f" + {problem.n_noisy_outputs} purely noisy outputs" if problem.n_noisy_outputs else ""
    info = {"name": problem.dataset, "n_original_outputs": problem.n_outputs, "bayes_test": bayes,
            "split": f"independent draws: {problem.n_train} train, {problem.n_test} test (seed {seed})",
            "description": (f"{problem.dataset}: {problem.n_outputs} outputs{noisy}, {X_tr.shape[1]} inputs "
                            f"{problem.input_distribution}, noise sd {problem.noise}")}
    return X_tr, Y_tr, X_te, Y_te, info


def _draw_thesis(problem, seed):
    dataset = problem.dataset
    make = make_friedman1 if dataset == "friedman1" else make_two_norm
    seeds = np.random.SeedSequence(seed).spawn(2)
    X_tr, y_tr, _ = make(problem.n_train, random_state=np.random.default_rng(seeds[0]))
    X_te, y_te, bayes = make(problem.n_test, random_state=np.random.default_rng(seeds[1]))
    Y_tr, Y_te = y_tr.reshape(-1, 1).astype(float), y_te.reshape(-1, 1).astype(float)
    info = {"name": dataset, "n_original_outputs": 1, "bayes_test": bayes.reshape(-1, 1),
            "split": f"independent draws: {problem.n_train} train, {problem.n_test} test (seed {seed})",
            "description": (f"{dataset} (thesis Appendix A.1): "
                            + ("10 inputs U(0,1), one output, noise sd 1" if dataset == "friedman1"
                               else "20 Gaussian inputs, two classes"))}
    return X_tr, Y_tr, X_te, Y_te, info


def _draw_dataset(problem, seed):
    data = problem.load(seed)
    X_tr, Y_tr, X_te, Y_te, split = _split_dataset(data, seed)
    info = {"name": problem.dataset, "n_original_outputs": data.n_outputs, "bayes_test": None,
            "split": split, "description": data.description}
    return X_tr, Y_tr, X_te, Y_te, info


@dataclass(frozen=True)
class Problem:
    """A problem an experiment runs on, before it is drawn, checked when it is built (a
    ``ValueError`` naming the argument).

    dataset : a Friedman1 problem of paper 002 ("friedman1-chain" / "-group" / "-ind"), a thesis
        problem ("friedman1", "two-norm"), a shipped data set, "synthetic-delicious-shape" or
        "delicious-slice"; with ``data``, the name of that data set
    n_train, n_test, n_outputs, noise, input_distribution, n_noisy_outputs : the draw of a
        Friedman1 problem (section 4.2.1; thesis problems take the two sizes); a data set keeps
        its own split and ignores them
    data : a :class:`engine.datasets.Dataset` already loaded (an uploaded CSV, a set read from
        any folder): split as a shipped set without a standard split is (its standard split when
        it has one, else 50/50 seeded by the draw's seed). Not compared: two problems with the
        same name and sizes are equal whatever their data, so a caller that keeps several
        uploads names them apart (the upload's digest)
    """

    dataset: str
    n_train: int = 300
    n_test: int = 4000
    n_outputs: int = 16
    noise: float = 1.0
    input_distribution: str = "uniform"
    n_noisy_outputs: int = 0
    data: Dataset | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.data is not None:
            if not isinstance(self.data, Dataset):
                raise ValueError(f"data must be an engine.datasets.Dataset or None, got {type(self.data).__name__}")
            if not isinstance(self.dataset, str) or not self.dataset:
                raise ValueError(f"dataset must name the data set, got {self.dataset!r}")
            if self.data.test_indices is None and self.data.n_samples < 4:
                raise ValueError(f"data: the data set {self.dataset!r} has {self.data.n_samples} rows: at least 4 "
                                 "are needed for a train/test split")
        elif self.dataset in FRIEDMAN_PROBLEMS:
            _int(self.n_outputs, "n_outputs", 1)
            check_in_interval(self.noise, "noise", 0.0)
            _int(self.n_noisy_outputs, "n_noisy_outputs", 0)
            if self.input_distribution not in INPUT_DISTRIBUTIONS:
                raise ValueError(f"input_distribution must be one of {INPUT_DISTRIBUTIONS}, "
                                 f"got {self.input_distribution!r}")
        elif not isinstance(self.dataset, str) or not (self.dataset in THESIS_PROBLEMS or self.dataset in _catalogue()):
            raise ValueError(
                f"dataset must be one of {list(FRIEDMAN_PROBLEMS) + list(THESIS_PROBLEMS)}, {SYNTHETIC_DELICIOUS!r}, "
                f"{DELICIOUS_SLICE!r} "
                f"or a shipped data set ({', '.join(d['name'] for d in list_datasets())}), got {self.dataset!r}")
        if self.data is None and (self.dataset in FRIEDMAN_PROBLEMS or self.dataset in THESIS_PROBLEMS):
            _int(self.n_train, "n_train", 2)
            _int(self.n_test, "n_test", 2)
        if self.n_noisy_outputs and self.dataset not in FRIEDMAN_PROBLEMS:
            raise ValueError("n_noisy_outputs is only available for the Friedman1 multi-output problems")

    @classmethod
    def of(cls, problem, name="problem"):
        """``problem`` as a Problem: a Problem as it is, a data set's name with its defaults, a
        :class:`~engine.datasets.Dataset` as its own problem."""
        if isinstance(problem, cls):
            return problem
        if isinstance(problem, str):
            return cls(problem)
        if isinstance(problem, Dataset):
            return cls(problem.name, data=problem)
        raise ValueError(f"{name} must be a Problem, a data set name or a Dataset, got {type(problem).__name__}")

    @property
    def synthetic(self) -> bool:
        """True for a problem drawn from a generator (Friedman1, the thesis problems): its sizes apply."""
        return self.data is None and (self.dataset in FRIEDMAN_PROBLEMS or self.dataset in THESIS_PROBLEMS)

    def data_kwargs(self) -> dict:
        """The data arguments as one dict (keys ``DATA_KEYS``), as a result's ``params`` records them."""
        return {k: getattr(self, k) for k in DATA_KEYS}

    def shape(self) -> tuple:
        """``(task, outputs)`` without loading anything."""
        size = self.size()
        return size["task"], size["n_outputs"]

    def size(self) -> dict:
        """The size of the split without drawing or loading anything (for cost estimates): task,
        n_train, n_test, n_features, n_outputs, and nnz_per_row (stored values per training row of a
        sparse X; None when X is dense). Shipped sets without a standard split use the 50/50 split;
        for the synthetic set nnz_per_row is approximate."""
        if self.data is not None:
            ds = self.data
            te = len(ds.test_indices) if ds.test_indices is not None else ds.n_samples - ds.n_samples // 2
            nnz = ds.X.nnz / ds.n_samples if sparse.issparse(ds.X) else None
            return dict(task=ds.task, n_train=ds.n_samples - te, n_test=te, n_features=int(ds.X.shape[1]),
                        n_outputs=ds.n_outputs, nnz_per_row=nnz)
        if self.synthetic:
            friedman = self.dataset in FRIEDMAN_PROBLEMS
            task = "regression" if friedman or self.dataset == "friedman1" else "multilabel"
            p = {"friedman1-ind": 5 * self.n_outputs, "friedman1": 10, "two-norm": 20}.get(self.dataset, 5)
            d = self.n_outputs + self.n_noisy_outputs if friedman else 1
            return dict(task=task, n_train=int(self.n_train), n_test=int(self.n_test), n_features=p, n_outputs=d,
                        nnz_per_row=None)
        meta = _catalogue()[self.dataset]
        n = meta["n_samples"]
        te = meta["n_test"] if meta["n_test"] is not None else n - n // 2
        nnz = (meta["nnz"] / n if meta["nnz"] else meta.get("approx_nnz_per_row")) if meta["sparse"] else None
        return dict(task=meta["task"], n_train=n - te, n_test=te, n_features=meta["n_features"],
                    n_outputs=meta["n_outputs"], nnz_per_row=nnz)

    def load(self, seed=0) -> Dataset:
        """The whole data set, unsplit (not for the generated problems: :meth:`draw` them); the
        synthetic delicious-shaped set is drawn with ``seed``."""
        if self.synthetic:
            raise ValueError(f"{self.dataset!r} is generated: draw it (Problem.draw), there is no data set to load")
        if self.data is not None:
            return self.data
        if self.dataset == SYNTHETIC_DELICIOUS:
            return make_delicious_shaped(random_state=seed)
        return load_slice(self.dataset) if self.dataset == DELICIOUS_SLICE else load_dataset(self.dataset)

    def draw(self, seed=0) -> "ProblemData":
        """The train / test split drawn with ``seed``.

        Friedman1 problems (section 4.2.1): ``n_train`` training and ``n_test`` test samples
        (paper: 300 and 4000, d = 16) drawn independently from two generators derived from
        ``seed``; ``info["bayes_test"]`` holds E[Y | X] on the test set. Data sets: the standard
        train / test split when the source ships one; otherwise a random split seeded by ``seed``
        with 50% of the rows for training and 50% for testing (the paper uses 40% train, 10%
        validation and 50% test; these experiments tune nothing, so the validation part is given
        to training). ``"synthetic-delicious-shape"``: drawn with ``random_state=seed`` at
        delicious's size, split 12920 / 3185. X is a scipy.sparse CSR matrix for the sparse sets,
        never densified; Y is always dense.

        ``info``: name, description, n_features, n_outputs, n_train, n_test, split,
        n_original_outputs (before any noisy outputs), bayes_test (None when unknown).
        """
        _int(seed, "seed", 0)
        if self.data is None and self.dataset in FRIEDMAN_PROBLEMS:
            X_tr, Y_tr, X_te, Y_te, info = _draw_friedman(self, seed)
        elif self.data is None and self.dataset in THESIS_PROBLEMS:
            X_tr, Y_tr, X_te, Y_te, info = _draw_thesis(self, seed)
        else:
            X_tr, Y_tr, X_te, Y_te, info = _draw_dataset(self, seed)
        info.update(n_features=int(X_tr.shape[1]), n_outputs=int(Y_tr.shape[1]),
                    n_train=int(X_tr.shape[0]), n_test=int(X_te.shape[0]))
        task = self.shape()[0]
        return ProblemData(X_tr, Y_tr, X_te, Y_te, task, info)


def data_set_problem(problem, what):
    """``problem`` (what :meth:`Problem.of` takes) as the Problem of a data set: ``what`` (e.g. "the
    race") runs on a data set's own rows, so a generated problem (Friedman1, the thesis' ones) is refused."""
    problem = Problem.of(problem)
    if problem.synthetic:
        raise ValueError(f"problem: {what} runs on a data set, not on the generated {problem.dataset!r}")
    return problem


@dataclass(frozen=True, eq=False)
class ProblemData:
    """A drawn problem: the training and test sets, the task and ``info`` (name, split, the original
    outputs, ...: see :meth:`Problem.draw`)."""

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
    def name(self) -> str:
        return self.info["name"]

    @property
    def n_original_outputs(self) -> int:
        """The outputs before any purely noisy ones were appended (section 4.2.3)."""
        return int(self.info["n_original_outputs"])

    @property
    def split(self) -> str:
        """How the data were split into training and test sets (a sentence)."""
        return self.info["split"]
