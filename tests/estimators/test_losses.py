"""engine.estimators.losses: the boosting losses by name, entry by entry (the core's kernels)."""

import numpy as np
import pytest

from engine.estimators.losses import LOSS_NAMES, loss_values, negative_gradient


def test_the_square_and_absolute_losses_and_their_gradients():
    rng = np.random.default_rng(0)
    Y, F = rng.normal(size=(7, 3)), rng.normal(size=(7, 3))
    assert np.allclose(loss_values("squared_error", Y, F), 0.5 * (Y - F) ** 2)
    assert np.allclose(negative_gradient("squared_error", Y, F), Y - F)
    assert np.allclose(loss_values("absolute_error", Y, F), np.abs(Y - F))
    assert np.allclose(negative_gradient("absolute_error", Y, F), np.sign(Y - F))


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_the_negative_gradient_is_the_loss_slope(loss):
    rng = np.random.default_rng(1)
    Y = rng.choice([-1.0, 1.0], size=(6, 2)) if loss == "logistic" else rng.normal(size=(6, 2))
    F, h = rng.normal(size=(6, 2)), 1e-6
    slope = (loss_values(loss, Y, F + h) - loss_values(loss, Y, F - h)) / (2 * h)
    assert np.allclose(negative_gradient(loss, Y, F), -slope, atol=1e-5)


def test_bad_names_and_shapes_are_refused():
    with pytest.raises(ValueError, match="loss"):
        loss_values("hinge", np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        negative_gradient("squared_error", np.zeros((2, 2)), np.zeros((2, 3)))
