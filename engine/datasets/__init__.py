"""Data sets for the dashboard and the experiments.

Several sources of data, all returned as a :class:`Dataset`:

* the synthetic Friedman1 multi-output problems of Joly, Wehenkel and Geurts
  (paper 002, section 4.2.1), with their Bayes prediction E[Y | X]:
  :func:`make_friedman1_multioutput` and :func:`make_friedman_dataset`
  (:mod:`engine.datasets.friedman`);
* the problems of thesis chapter 7 (Appendix A.1): Friedman1 with p = 10 inputs and
  Two-norm: :func:`make_friedman1`, :func:`make_two_norm` (:mod:`engine.datasets.thesis`);
* the 24 real benchmark sets shipped in ``sample_data/`` (Mulan collection):
  :func:`list_datasets` and :func:`load_dataset` (:mod:`engine.datasets.shipped`); bibtex,
  corel5k and delicious (the papers' own 983-label set) come with X as a ``scipy.sparse`` CSR
  matrix;
* a synthetic multi-label problem with delicious's shape (16105 x 500 sparse inputs, 983
  labels), for timing at the papers' scale: :func:`make_delicious_shaped`
  (:mod:`engine.datasets.synthetic_multilabel`);
* a user's own CSV file: :func:`load_csv` (:mod:`engine.datasets.upload`).

Plain numpy / pandas only; this package never imports streamlit. Every error a
user can trigger is a ``ValueError`` whose message says what to fix, so that
the dashboard can show it as is. A missing ``sample_data/`` directory is an
installation problem, not bad input: :func:`list_datasets` and
:func:`load_dataset` then raise ``FileNotFoundError`` saying where it was
expected.
"""

from engine.datasets.dataset import Dataset
from engine.datasets.friedman import (
    INPUT_DISTRIBUTIONS,
    as_generator,
    friedman1,
    friedman1_mean,
    make_friedman1_multioutput,
    make_friedman_dataset,
)
from engine.datasets.thesis import (
    THESIS_PROBLEMS,
    make_friedman1,
    make_thesis_dataset,
    make_two_norm,
)
from engine.datasets.shipped import SAMPLE_DATA_DIR, list_datasets, load_dataset
from engine.datasets.synthetic_multilabel import (
    DELICIOUS_SHAPE,
    SYNTHETIC_DELICIOUS,
    make_delicious_shaped,
    synthetic_catalogue,
)
from engine.datasets.upload import load_csv

__all__ = [
    "Dataset",
    "DELICIOUS_SHAPE",
    "INPUT_DISTRIBUTIONS",
    "SAMPLE_DATA_DIR",
    "SYNTHETIC_DELICIOUS",
    "as_generator",
    "friedman1",
    "friedman1_mean",
    "make_friedman1_multioutput",
    "make_friedman_dataset",
    "THESIS_PROBLEMS",
    "make_friedman1",
    "make_two_norm",
    "make_thesis_dataset",
    "make_delicious_shaped",
    "synthetic_catalogue",
    "list_datasets",
    "load_dataset",
    "load_csv",
]
