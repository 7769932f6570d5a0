"""The Data page's spec and payload, and the live Convergence page's problem, keep a sparse X sparse."""

import numpy as np
from scipy import sparse

from engine.app.page_models import dataspec
from engine.app.page_models.live_convergence import problem_from_spec
from engine.datasets import Dataset


def test_payload_round_trip_keeps_sparse_x():
    X = sparse.random(20, 6, density=0.2, format="csc", random_state=0)
    ds = Dataset(name="s", X=X, Y=np.zeros((20, 2)), feature_names=list("abcdef"), target_names=["u", "v"])
    payload = dataspec.dataset_to_payload(ds)
    assert sparse.isspmatrix_csr(payload["X"])
    back = dataspec.payload_to_dataset(payload)
    assert back.is_sparse and (back.X != X.tocsr()).nnz == 0


def test_shipped_sparse_spec_gives_sparse_problem():
    ds = dataspec.dataset_from_spec(dataspec.shipped_spec("corel5k"))
    assert ds.is_sparse and ds.nnz == 41351
    d = problem_from_spec(dataspec.shipped_spec("corel5k")).draw(0)
    assert sparse.isspmatrix_csr(d.X_train) and d.X_train.shape == (4500, 499) and d.X_test.shape == (500, 499)
    assert d.task == "multilabel" and d.Y_train.shape == (4500, 374)
