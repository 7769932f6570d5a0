"""One draw, many draws: the bias–variance decomposition built up one learning set at a time (no streamlit).

:class:`RunningBiasVariance` draws learning sets one by one exactly as
:func:`engine.experiments.bias_variance.run_bias_variance` does (the same seed sequence, spawned
child by child: set i is the same data and the same model seeds), fits the models of each set,
adds its sufficient statistics to the same running sums and computes the decomposition with the
same function (:func:`~engine.experiments.bias_variance.decomposition`). So after k draws its
result equals ``run_bias_variance(..., n_learning_sets=k)`` (tested), and the page can show the
estimate converging as draws are added: each draw's model as a thin curve on the x1 slice, and
the components after every draw.
"""

from __future__ import annotations

import numpy as np

from engine.experiments import bias_variance as bv

__all__ = ["RunningBiasVariance", "MAX_DRAWS"]

MAX_DRAWS = 200
HISTORY_TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "variance", "error")


class RunningBiasVariance:
    """Learning sets drawn one at a time; ``result()`` is the decomposition over the sets so far.

    Arguments as :func:`~engine.experiments.bias_variance.run_bias_variance` with a single
    configuration (no swept parameter). ``history[term]`` holds the value of ``term`` (mean over
    test points and outputs) after each draw.
    """

    def __init__(self, estimator, *, structure="group", n_train=300, n_test=500, n_seeds=None, n_outputs=16,
                 noise=1.0, estimator_params=None, seed=0):
        (param_values, _, n_train, n_test, n_seeds, n_outputs, noise, estimator_params, _) = bv._check_arguments(
            estimator, None, None, structure, MAX_DRAWS, n_train, n_test, n_seeds, n_outputs, noise,
            estimator_params, 1, "loky", None, None, None)
        self.seed = bv._check_int(seed, "seed", 0)
        self.estimator, self.structure = estimator, structure
        self.param_values, self.n_train, self.n_test, self.n_seeds = param_values, n_train, n_test, n_seeds
        self.n_outputs, self.noise, self.estimator_params = n_outputs, noise, estimator_params
        # run_bias_variance spawns 1 + L children of SeedSequence(seed): the test set's, then one per
        # learning set. Spawning them one by one from the same root gives the same children.
        self._root = np.random.SeedSequence(self.seed)
        self._test_seq = self._root.spawn(1)[0]
        _, _, self._bayes = bv._test_set(structure, n_test, n_outputs, noise, self._test_seq)
        self._acc = bv._Accumulator(len(param_values), n_test, n_outputs, bv.N_SLICE_POINTS)
        self.history = {term: [] for term in HISTORY_TERMS}

    @property
    def n_draws(self) -> int:
        return self._acc.n

    def draw(self, n: int = 1) -> "RunningBiasVariance":
        """Draw ``n`` more learning sets (fitting ``n_seeds`` models on each)."""
        bv._check_int(n, "n", 1)
        if self.n_draws + n > MAX_DRAWS:
            raise ValueError(f"n: at most {MAX_DRAWS} draws in all, {self.n_draws} done, {n} asked")
        for _ in range(n):
            res = bv._run_set(self._root.spawn(1)[0], self._test_seq, self.estimator, None, self.param_values,
                              self.structure, self.n_train, self.n_test, self.n_seeds, self.n_outputs,
                              self.noise, self.estimator_params)
            self._acc.add(res, keep_curve=True)
            result = self.result()
            for term in HISTORY_TERMS:
                self.history[term].append(float(getattr(result, term)[0]))
        return self

    def result(self) -> bv.BiasVarianceResult | None:
        """The decomposition over the draws so far (None before the first draw)."""
        if self.n_draws == 0:
            return None
        return bv.decomposition(
            self._acc, self._bayes, estimator=self.estimator, param_name=None, param_values=self.param_values,
            structure=self.structure, n_learning_sets=max(self.n_draws, 1), n_seeds=self.n_seeds,
            n_train=self.n_train, n_test=self.n_test, n_outputs=self.n_outputs, noise=self.noise, seed=self.seed,
            estimator_params=self.estimator_params, partial=False, elapsed=0.0)
