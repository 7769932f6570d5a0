"""Models stay the same to the bit when the compiled core is reorganised.

Every boosting strategy x loss x leaf estimation x split search x dense/CSR x masked/unmasked
(with row subsampling, early stopping, warm start and per-output weights on some cells), and
the forests on both growers, are fitted on one small problem; the SHA-256 of each fit's
staged predictions (all steps, float64 bytes) is compared with the fingerprint recorded in
``bit_identical_fingerprints.json`` before the restructuring of issue 30. A change that moves
any prediction by one ulp fails here.

Every hyper-parameter a cell relies on is set explicitly, so changing an estimator's defaults
does not move a fingerprint. Regenerate the file only for a change that is meant to move
models: ``python tests/core/test_bit_identical.py --write`` (and say why in the commit).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

FINGERPRINTS = Path(__file__).with_name("bit_identical_fingerprints.json")

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
PROJECTION_OF = {"single_target": "subsample", "multi_output": "subsample",
                 "projected": "gaussian", "projected_relabel": "achlioptas"}
LOSSES = ("squared_error", "absolute_error", "logistic")


def _problem():
    rng = np.random.RandomState(7)
    n, p, d = 160, 7, 5
    X = rng.uniform(size=(n, p))
    X[rng.uniform(size=X.shape) < 0.4] = 0.0          # zeros, so CSR differs from dense
    X = np.round(X, 2)                                  # ties, so the split search meets them
    W = rng.normal(size=(p, d))
    Y = X @ W + 0.3 * rng.normal(size=(n, d))
    labels = (Y > np.median(Y, axis=0)).astype(float)
    return X, Y, labels


def _cells():
    for strategy in STRATEGIES:
        for loss in LOSSES:
            for leaves in ("mean", "newton"):
                if leaves == "newton" and (strategy == "projected" or loss == "absolute_error"):
                    continue
                for search in ("exact", "hist"):
                    for sparse in (False, True):
                        for masked in (False, True):
                            yield (f"boost-{strategy}-{loss}-{leaves}-{search}-"
                                   f"{'csr' if sparse else 'dense'}-{'masked' if masked else 'full'}")
    for name in ("classifier-square-loss-relabel-newton", "early-stopping-relabel",
                 "warm-start-multi-output", "entry-weights-projected", "subsample-eight-leaves",
                 "two-threads-hist-relabel"):
        yield name
    for forest in ("mo-rf", "st-rf", "mo-et", "rf-gaussian-per-tree", "rf-subsampled-shared"):
        for search in ("exact", "hist"):
            for sparse in (False, True):
                yield f"forest-{forest}-{search}-{'csr' if sparse else 'dense'}"


def _boosting(cell, X, Y, labels):
    from engine import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

    parts = cell.split("-")
    search, layout, mask = parts[-3], parts[-2], parts[-1]
    leaves = parts[-4]
    strategy = next(s for s in STRATEGIES if cell.startswith(f"boost-{s}-"))
    loss = next(l for l in LOSSES if f"-{l}-" in cell)
    params = dict(strategy=strategy, projection=PROJECTION_OF[strategy],
                  n_projections=3 if strategy == "projected_relabel" else 1,
                  loss=loss, learning_rate=0.3, n_estimators=12, max_leaf_nodes=4,
                  max_depth=None, min_samples_leaf=1, max_features=None, subsample=1.0,
                  leaf_estimation=leaves, l2_regularization=1.0,
                  missing_targets="ignore" if mask == "masked" else "error",
                  early_stopping=False, validation_fraction=0.1, n_iter_no_change=None, tol=1e-4,
                  split_search=search, max_bins=32, n_jobs=1, warm_start=False, random_state=3)
    targets = labels if loss == "logistic" else Y
    if mask == "masked":
        targets = targets.copy()
        targets[np.random.RandomState(1).uniform(size=targets.shape) < 0.15] = np.nan
    Xf = sp.csr_matrix(X) if layout == "csr" else X
    cls = MultiLabelBoostingClassifier if loss == "logistic" else MultiOutputBoostingRegressor
    model = cls(**params).fit(Xf, targets)
    return model, Xf


def _special(cell, X, Y, labels):
    from engine import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

    base = dict(projection="gaussian", n_projections=1, learning_rate=0.2, n_estimators=15,
                max_leaf_nodes=4, max_depth=None, min_samples_leaf=1, max_features=None,
                subsample=1.0, leaf_estimation="mean", l2_regularization=1.0,
                missing_targets="error", early_stopping=False, validation_fraction=0.1,
                n_iter_no_change=None,
                tol=1e-4, split_search="exact", max_bins=255, n_jobs=1, warm_start=False,
                random_state=5)
    if cell == "classifier-square-loss-relabel-newton":
        m = MultiLabelBoostingClassifier(**{**base, "strategy": "projected_relabel",
                                            "loss": "squared_error", "n_projections": 2,
                                            "leaf_estimation": "newton"})
        return m.fit(X, labels), X
    if cell == "early-stopping-relabel":
        # Early stopping now cuts the model back to its best step (issue 34), so the steps the
        # fingerprint was recorded on (every step run) are those of a fit without early stopping
        # on the training rows: the fingerprint is taken on it, and the stopped model must be
        # its first best_iteration_ + 1 steps.
        from engine.estimators.early_stopping import validation_split

        settings = {**base, "strategy": "projected_relabel", "loss": "logistic",
                    "n_estimators": 80, "validation_fraction": 0.25}
        m = MultiLabelBoostingClassifier(**{**settings, "early_stopping": True,
                                            "n_iter_no_change": 3}).fit(X, labels)
        train, _ = validation_split(len(X), 0.25, base["random_state"])
        ran = MultiLabelBoostingClassifier(**{**settings, "n_estimators": m.n_steps_run_}).fit(
            X[train], labels[train])
        staged = list(ran._staged_raw_predict(X))
        assert m.n_steps_ == m.best_iteration_ + 1 <= m.n_steps_run_
        np.testing.assert_array_equal(m._raw_predict(X), staged[m.n_steps_ - 1])
        return ran, X
    if cell == "warm-start-multi-output":
        m = MultiOutputBoostingRegressor(**{**base, "strategy": "multi_output",
                                            "loss": "squared_error", "warm_start": True,
                                            "n_estimators": 6})
        m.fit(X, Y)
        m.set_params(n_estimators=14)
        return m.fit(X, Y), X
    if cell == "entry-weights-projected":
        w = np.random.RandomState(2).uniform(0.2, 2.0, size=Y.shape)
        m = MultiOutputBoostingRegressor(**{**base, "strategy": "projected",
                                            "loss": "squared_error"})
        return m.fit(X, Y, sample_weight=w), X
    if cell == "subsample-eight-leaves":
        m = MultiLabelBoostingClassifier(**{**base, "strategy": "projected_relabel",
                                            "loss": "logistic", "subsample": 0.6,
                                            "max_leaf_nodes": 8, "n_projections": 4,
                                            "leaf_estimation": "newton"})
        return m.fit(X, labels), X
    if cell == "two-threads-hist-relabel":
        m = MultiLabelBoostingClassifier(**{**base, "strategy": "projected_relabel",
                                            "loss": "logistic", "split_search": "hist",
                                            "n_jobs": 2, "n_projections": 3})
        return m.fit(sp.csr_matrix(X), labels), sp.csr_matrix(X)
    raise KeyError(cell)


def _forest(cell, X, Y):
    from engine import make_estimator

    _, rest = cell.split("-", 1)
    name, search, layout = rest.rsplit("-", 2)
    Xf = sp.csr_matrix(X) if layout == "csr" else X
    model = make_estimator(name, n_estimators=6, split_search=search, max_bins=16,
                           random_state=4, n_jobs=1)
    return model.fit(Xf, Y), Xf


def fingerprint(cell):
    """SHA-256 of a cell's staged predictions (or a forest's predictions) on its training X."""
    X, Y, labels = _problem()
    digest = hashlib.sha256()
    if cell.startswith("forest-"):
        model, Xf = _forest(cell, X, Y)
        digest.update(np.ascontiguousarray(model.predict(Xf), dtype=np.float64).tobytes())
        return digest.hexdigest()
    model, Xf = _boosting(cell, X, Y, labels) if cell.startswith("boost-") else \
        _special(cell, X, Y, labels)
    for F in model._staged_raw_predict(Xf):
        digest.update(np.ascontiguousarray(F, dtype=np.float64).tobytes())
    return digest.hexdigest()


CELLS = tuple(_cells())


def test_every_cell_has_a_fingerprint():
    recorded = json.loads(FINGERPRINTS.read_text())
    assert sorted(recorded) == sorted(CELLS)


@pytest.mark.parametrize("cell", CELLS)
def test_model_is_bit_identical(cell):
    recorded = json.loads(FINGERPRINTS.read_text())
    assert fingerprint(cell) == recorded[cell]


def test_fingerprints_tell_models_apart():
    """The fingerprint is not blind: two cells share one only when they differ in nothing but
    dense against CSR input, where the engine promises the same model from the same numbers (and,
    for extra trees, whose thresholds are drawn between a feature's extremes, in split search)."""
    recorded = json.loads(FINGERPRINTS.read_text())
    groups = {}
    for cell, value in recorded.items():
        groups.setdefault(value, []).append(cell)
    for cells in groups.values():
        same = {c.replace("-csr", "-dense") for c in cells}
        same = {c.replace("-hist", "-exact") if c.startswith("forest-mo-et") else c for c in same}
        assert len(same) == 1, cells


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/core/test_bit_identical.py --write")
    FINGERPRINTS.write_text(json.dumps({c: fingerprint(c) for c in CELLS}, indent=1) + "\n")
    print(f"wrote {len(CELLS)} fingerprints to {FINGERPRINTS}")
