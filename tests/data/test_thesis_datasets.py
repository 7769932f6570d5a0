"""The problems of thesis chapter 7 (engine.datasets.thesis): Friedman1 with p = 10, Two-norm."""
import numpy as np
import pytest
from scipy.stats import norm

from engine.datasets import friedman1, make_friedman1, make_thesis_dataset, make_two_norm
from engine.experiments.problems import Problem


def test_friedman1_has_ten_uniform_inputs_five_relevant_and_unit_noise():
    X, y, bayes = make_friedman1(20_000, random_state=0)
    assert X.shape == (20_000, 10) and y.shape == bayes.shape == (20_000,)
    assert X.min() >= 0 and X.max() <= 1 and np.allclose(X.mean(axis=0), 0.5, atol=0.01)
    np.testing.assert_allclose(bayes, friedman1(X[:, :5]))          # 10 sin + 20 (.)^2 + 10 x4 + 5 x5
    noise = y - bayes
    assert abs(noise.mean()) < 0.03 and abs(noise.std() - 1.0) < 0.02
    X2, y2, _ = make_friedman1(20_000, random_state=0)
    np.testing.assert_array_equal(y, y2)
    # Appendix A's printed "6 x5" on request
    _, _, b6 = make_friedman1(50, coef_x5=6.0, random_state=1)
    X6, _, b5 = make_friedman1(50, random_state=1)
    np.testing.assert_allclose(b6 - b5, X6[:, 4])


def test_two_norm_classes_means_and_bayes_error():
    X, y, p1 = make_two_norm(40_000, random_state=0)
    assert X.shape == (40_000, 20) and set(np.unique(y)) == {0, 1}
    alpha = 2 / np.sqrt(20)
    np.testing.assert_allclose(X[y == 1].mean(axis=0), alpha, atol=0.02)
    np.testing.assert_allclose(X[y == 0].mean(axis=0), -alpha, atol=0.02)
    assert abs(y.mean() - 0.5) < 0.01
    bayes_error = np.mean((p1 >= 0.5) != y)
    assert abs(bayes_error - norm.cdf(-2.0)) < 0.003                 # Phi(-2) = 2.28 %
    np.testing.assert_array_equal(p1 >= 0.5, X.sum(axis=1) >= 0)    # the Bayes rule: sign of the sum


@pytest.mark.parametrize("call, match", [
    (lambda: make_friedman1(0), "n_samples"), (lambda: make_friedman1(10, n_features=4), "n_features"),
    (lambda: make_friedman1(10, noise=-1), "noise"), (lambda: make_two_norm(2.5), "n_samples"),
    (lambda: make_two_norm(10, alpha=-1), "alpha"), (lambda: make_thesis_dataset("sefti", 10), "name"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_datasets_and_problems():
    data = make_thesis_dataset("two-norm", 30, random_state=0)
    assert data.task == "multilabel" and data.Y.shape == (30, 1) and data.bayes.shape == (30, 1)
    drawn = Problem("friedman1", n_train=300, n_test=2000).draw(3)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert (X_tr.shape, Y_tr.shape, X_te.shape, Y_te.shape, task) == ((300, 10), (300, 1), (2000, 10), (2000, 1),
                                                                       "regression")
    assert info["bayes_test"].shape == (2000, 1)
    drawn = Problem("two-norm", n_train=50, n_test=60).draw(3)
    X_tr, Y_tr, task, info = drawn.X_train, drawn.Y_train, drawn.task, drawn.info
    assert task == "multilabel" and set(np.unique(Y_tr)) <= {0.0, 1.0} and info["n_features"] == 20
    with pytest.raises(ValueError, match="n_noisy_outputs"):
        Problem("two-norm", n_noisy_outputs=2)
