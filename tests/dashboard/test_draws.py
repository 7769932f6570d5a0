"""Running bias–variance (engine/dashboard/draws.py) against the batch decomposition."""

import numpy as np
import pytest

from engine.dashboard.draws import RunningBiasVariance
from engine.experiments.bias_variance import run_bias_variance

TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "variance", "error", "error_noisy_test")


@pytest.mark.parametrize("estimator,params", [
    ("gbrt-rpo-gaussian", dict(n_estimators=30, max_leaf_nodes=4)),
    ("rf-gaussian-per-tree", dict(n_estimators=5)),
])
def test_running_after_k_draws_equals_the_batch_decomposition_of_the_same_k_fits(estimator, params):
    kw = dict(structure="chain", n_train=60, n_test=40, n_seeds=3, estimator_params=params, seed=4)
    running = RunningBiasVariance(estimator, **kw)
    running.draw(1)
    running.draw(3)                                    # 1 + 3 draws, in two clicks
    for k, n_drawn in ((4, 4),):
        batch = run_bias_variance(estimator, n_learning_sets=k, **kw)
        mine = running.result()
        assert mine.n_sets_done == batch.n_sets_done == n_drawn
        for term in TERMS:
            np.testing.assert_array_equal(getattr(mine, f"{term}_per_output" if term != "error_noisy_test" else term),
                                          getattr(batch, f"{term}_per_output" if term != "error_noisy_test" else term))
        np.testing.assert_array_equal(mine.slice_mean, batch.slice_mean)
        np.testing.assert_array_equal(mine.slice_curves[:, :4], batch.slice_curves[:, :4])
    # The history's last entry is the current result; its first the result after one draw.
    assert running.history["bias2"][-1] == float(running.result().bias2[0])
    one = run_bias_variance(estimator, n_learning_sets=2, **kw)   # 2 sets: the first one's draw is shared
    assert running.history["error"][1] == pytest.approx(float(one.error[0]), rel=0, abs=0)
    assert mine.identity_gap < 1e-10


def test_draws_validate_their_input():
    with pytest.raises(ValueError, match="estimator"):
        RunningBiasVariance("nope")
    with pytest.raises(ValueError, match="structure"):
        RunningBiasVariance("gbmort", structure="tree")
    running = RunningBiasVariance("gbmort", n_train=30, n_test=10, estimator_params=dict(n_estimators=3))
    with pytest.raises(ValueError, match="n"):
        running.draw(0)
    assert running.n_draws == 0 and running.result() is None
