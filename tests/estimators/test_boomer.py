"""BOOMER (paper 004) through the real mlrl-boomer package, in its own virtual environment.

These tests run the real package: `sh tests/install_boomer.sh` (part of the README's test
command) installs it. Without it they fail with the install hint, rather than skip.
"""
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from engine.datasets import load_dataset
from engine.estimators import boomer
from engine.metrics import lrap

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def emotions():
    data = load_dataset("emotions")
    return data.X[:240], data.Y[:240], data.X[240:400], data.Y[240:400]


@pytest.mark.slow
def test_boomer_is_installed_for_the_tests():
    python, info, message = boomer.boomer_status()
    assert python is not None, message
    assert info["mlrl-boomer"] == boomer.BOOMER_VERSION
    # The package runs on its own scikit-learn, not this environment's.
    assert info["scikit-learn"].startswith("1.7.")


def test_the_pin_is_the_extra_of_pyproject():
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^boomer = \[(.*?)\]", text, re.S | re.M).group(1)
    assert f'"mlrl-boomer=={boomer.BOOMER_VERSION}"' in block


@pytest.mark.slow
def test_defaults_and_non_decomposable_loss_score_better_than_chance(emotions):
    X, Y, X_test, Y_test = emotions
    chance = lrap(Y_test, np.zeros_like(Y_test) + np.random.default_rng(0).random(Y_test.shape))
    for loss, max_rules in ((None, 30), ("logistic-non-decomposable", 50)):
        out = boomer.boomer_fit_score(X, Y, X_test, loss=loss, max_rules=max_rules, random_state=3)
        assert out.scores.shape == out.proba.shape == Y_test.shape
        assert out.fit_seconds > 0
        assert lrap(Y_test, out.proba) > chance + 0.1, loss
        if loss is None:        # decomposable: probabilities are a per-label sigmoid of the scores
            assert lrap(Y_test, out.proba) == pytest.approx(lrap(Y_test, out.scores))
        assert ((0 <= out.proba) & (out.proba <= 1)).all()


@pytest.mark.slow
def test_same_seed_same_scores_and_sparse_input_works(emotions):
    X, Y, X_test, _ = emotions
    a = boomer.boomer_fit_score(X, Y, X_test, max_rules=20, random_state=5)
    b = boomer.boomer_fit_score(X, Y, X_test, max_rules=20, random_state=5)
    np.testing.assert_array_equal(a.scores, b.scores)
    c = boomer.boomer_fit_score(sparse.csr_matrix(X), Y, sparse.csr_matrix(X_test), max_rules=20, random_state=5)
    assert c.scores.shape == a.scores.shape


@pytest.mark.slow
def test_bad_arguments_and_a_missing_package_are_said_clearly(emotions, monkeypatch, tmp_path):
    X, Y, X_test, _ = emotions
    with pytest.raises(ValueError, match="random_state"):
        boomer.boomer_fit_score(X, Y, X_test, random_state=0)
    with pytest.raises(ValueError, match="0/1 label matrix"):
        boomer.boomer_fit_score(X, Y + 0.5, X_test)
    with pytest.raises(ValueError, match="max_rules"):
        boomer.boomer_fit_score(X, Y, X_test, max_rules=0)
    monkeypatch.setenv("RPO_BOOMER_PYTHON", str(tmp_path / "missing" / "python"))
    python, _, message = boomer.boomer_status()
    assert python is None and "does not exist" in message and "install_boomer.sh" in message
    with pytest.raises(boomer.BoomerUnavailable, match="install_boomer.sh"):
        boomer.boomer_fit_score(X, Y, X_test)
    # A Python without the package (this one, run isolated): "cannot import", with the hint.
    import sys
    monkeypatch.setenv("RPO_BOOMER_PYTHON", sys.executable)
    python, _, message = boomer.boomer_status()
    assert python is None and "cannot import mlrl-boomer" in message and "install_boomer.sh" in message


_PEAK_RSS = """
import resource, sys
from engine.datasets import load_dataset
from engine.estimators import boomer
data = load_dataset("delicious")
n, d = int(sys.argv[1]), int(sys.argv[2])
loss = None if sys.argv[3] == "default" else sys.argv[3]
boomer.boomer_fit_score(data.X[:n], data.Y[:n, :d], data.X[:5], loss=loss, max_rules=1, random_state=1)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def _worker_peak_bytes(n, d, loss):
    """Peak RSS of BOOMER's worker process for one fit (a fresh parent, so its only child is that worker)."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _PEAK_RSS, str(n), str(d), loss or "default"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


@pytest.mark.slow
def test_memory_estimate_matches_the_worker_s_measured_peak():
    # The oracle: the worker's peak RSS. Doubling the examples of a 250 x 700 slice adds the
    # non-decomposable loss's statistics of 250 more examples (about 0.5 GB); the process's own
    # memory (interpreter, libraries, data: about 0.35 GB) is the same in both fits.
    nd = "logistic-non-decomposable"
    measured = _worker_peak_bytes(500, 700, nd) - _worker_peak_bytes(250, 700, nd)
    estimate = boomer.boomer_memory_bytes(500, 700, nd) - boomer.boomer_memory_bytes(250, 700, nd)
    assert 0.85 * estimate < measured < 1.15 * estimate, (measured, estimate)
    # Quadratic in the labels for the non-decomposable loss, linear for the default one.
    assert boomer.boomer_memory_bytes(1000, 1400, nd) > 3.9 * boomer.boomer_memory_bytes(1000, 700, nd)
    assert boomer.boomer_memory_bytes(1000, 1400) == 2 * boomer.boomer_memory_bytes(1000, 700)


def test_a_fit_too_large_for_the_memory_is_refused_before_it_starts(emotions, monkeypatch):
    X, Y, X_test, _ = emotions
    assert boomer.boomer_memory_check(12920, 983, "logistic-non-decomposable", memory=23e9).startswith(
        "BOOMER's non-decomposable loss on 12920 examples x 983 labels keeps about 50.1 GB")
    assert boomer.boomer_memory_check(4500, 374, "logistic-non-decomposable", memory=23e9) is None
    monkeypatch.setattr(boomer, "machine_memory_bytes", lambda available=False: 1e4)
    monkeypatch.setattr(boomer, "boomer_python", lambda: pytest.fail("the worker must not be started"))
    with pytest.raises(boomer.BoomerTooLarge, match="240 examples x 6 labels .* more than the 0.0 MB"):
        boomer.boomer_fit_score(X, Y, X_test, loss="logistic-non-decomposable")
