"""One draw, many draws: the bias–variance decomposition built up one learning set at a time (no streamlit).

:class:`RunningBiasVariance` draws learning sets one by one exactly as
:func:`engine.experiments.bias_variance.run_bias_variance` does (the same seed sequence, spawned
child by child: set i is the same data and the same model seeds), fits the models of each set,
adds its sufficient statistics to the same running sums and computes the decomposition with the
same function (:func:`~engine.experiments.bias_variance.decomposition`). So after k draws its
result equals ``run_bias_variance(..., n_learning_sets=k)`` (tested), and the page can show the
estimate converging as draws are added: each draw's model as a thin curve on the x1 slice, and
the components after every draw.

:class:`RunningForestBiasVariance` does the same for projected trees and forests (paper 003,
Appendix C): it draws learning sets exactly as
:func:`engine.experiments.forest_variance.run_forest_bias_variance` does and sums them with the
same :class:`~engine.experiments.forest_variance.ForestSums`, so after k draws its result equals
the batch run over k learning sets (tested), including the split of a projected tree's algorithm
variance into the projection term and the tree term.
"""

from __future__ import annotations

import numpy as np

from engine.datasets import friedman1
from engine.experiments import bias_variance as bv
from engine.experiments import forest_variance as fv
from engine.experiments.problems import Problem
from engine.experiments.settings import ForestSettings
from engine.names import SCHEME_OF_SUFFIX

__all__ = ["RunningBiasVariance", "RunningForestBiasVariance", "MAX_DRAWS", "running_for"]

MAX_DRAWS = 200
HISTORY_TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "variance", "error")


class RunningBiasVariance:
    """Learning sets drawn one at a time; ``result()`` is the decomposition over the sets so far.

    Arguments as :func:`~engine.experiments.bias_variance.run_bias_variance` with a single
    configuration (no swept parameter; the settings' n_learning_sets and workers are not used). ``history[term]`` holds the value of ``term`` (mean over
    test points and outputs) after each draw.
    """

    def __init__(self, problem, settings, *, seed=0):
        if isinstance(settings, bv.BiasVarianceSettings) and settings.param_name is not None:
            raise ValueError("settings: the draws show one configuration (param_name None)")
        self.run = bv.check_run(problem, settings)
        self.seed = bv._check_int(seed, "seed", 0)
        run = self.run
        self.estimator, self.structure, self.n_seeds = run.estimator, run.structure, run.n_seeds
        self.n_train, self.n_test, self.n_outputs, self.noise = run.n_train, run.n_test, run.n_outputs, run.noise
        self.param_values, self.estimator_params = run.param_values, run.estimator_params
        # run_bias_variance spawns 1 + L children of SeedSequence(seed): the test set's, then one per
        # learning set. Spawning them one by one from the same root gives the same children.
        self._root = np.random.SeedSequence(self.seed)
        self._test_seq = self._root.spawn(1)[0]
        _, _, self._bayes = bv._test_set(self.structure, self.run.n_test, self.run.n_outputs, self.run.noise,
                                         self._test_seq)
        self._acc = bv._Accumulator(1, self.run.n_test, self.run.n_outputs, bv.N_SLICE_POINTS)
        self.history = {term: [] for term in HISTORY_TERMS}

    @property
    def n_draws(self) -> int:
        return self._acc.n

    def draw(self, n: int = 1) -> "RunningBiasVariance":
        """Draw ``n`` more learning sets (fitting ``n_seeds`` models on each)."""
        _check_draws(n, self.n_draws)
        for _ in range(n):
            res = bv._run_set(self._root.spawn(1)[0], self._test_seq, self.run)
            self._acc.add(res, keep_curve=True)
            result = self.result()
            for term in HISTORY_TERMS:
                self.history[term].append(float(getattr(result, term)[0]))
        return self

    def result(self) -> bv.BiasVarianceResult | None:
        """The decomposition over the draws so far (None before the first draw)."""
        if self.n_draws == 0:
            return None
        return bv.decomposition(self._acc, self._bayes, self.run, max(self.n_draws, 1), self.seed, partial=False,
                                elapsed=0.0)


def _check_draws(n, n_draws):
    bv._check_int(n, "n", 1)
    if n_draws + n > MAX_DRAWS:
        raise ValueError(f"n: at most {MAX_DRAWS} draws in all, {n_draws} done, {n} asked")


class RunningForestBiasVariance:
    """Projected trees and forests, learning sets drawn one at a time (paper 003, Appendix C).

    Arguments as :func:`~engine.experiments.forest_variance.run_forest_bias_variance`, ``forest``
    with one projected dimension q (``q_values=(q,)``; ``split.n_learning_sets`` is not used: the
    learning sets are drawn one at a time). ``result()`` after k draws is that run's
    result with ``n_learning_sets=k``: the single projected tree's terms (``var_algorithm =
    var_projection + var_tree``) and, with ``include_forests``, the forests of Algorithm 1
    (``alg1_*``, one shared projection) and Algorithm 2 (``alg2_*``, a projection per tree).

    ``history[term]`` holds every term after each draw, and for ``prefix`` in "", "alg1_",
    "alg2_" also ``{prefix}variance`` (learning set + algorithm), and for the forests
    ``{prefix}projection_part`` / ``{prefix}tree_part``, the split of their algorithm variance
    predicted by Appendix C.2 from the single-tree terms
    (:func:`~engine.experiments.forest_variance.algorithm_variance_split`). The x1 slice
    (``slice_x``, ``slice_bayes``): per forest kind, ``slice_curves[kind]`` the first forest of
    each draw (output 1) and ``slice_mean(kind)`` the mean over all forests drawn. ``shown``
    ("alg1" or "alg2") names the forest a view of the draws shows; both are drawn.
    """

    def __init__(self, problem, forest, split=None, *, seed=0, shown="alg2"):
        if shown not in ("alg1", "alg2"):
            raise ValueError(f"shown must be 'alg1' or 'alg2' (the forest a view shows), got {shown!r}")
        self.shown = shown
        if isinstance(forest, ForestSettings) and len(forest.q_values) != 1:
            raise ValueError(f"forest: the draws show one projected dimension q, got q_values = {forest.q_values}")
        self.settings = fv.check_settings(problem, forest, split, seed=seed)
        (q,) = self.settings["q_values"]
        structure, n_test, n_outputs, noise = (self.settings[k] for k in ("structure", "n_test", "n_outputs", "noise"))
        self.q = q
        # run_forest_bias_variance spawns 1 + L children of SeedSequence(seed): the test set's, then
        # one per learning set. Spawning them one by one from the same root gives the same children.
        self._root = np.random.SeedSequence(seed)
        self._problem = fv.TestProblem(structure, n_test, n_outputs, noise, self._root.spawn(1)[0])
        self._sums = fv.ForestSums(1, self.settings["include_forests"])
        X_slice = bv.slice_inputs(structure, n_outputs)
        self._X_slice = X_slice
        self.slice_x = X_slice[:, 0]
        self.slice_bayes = friedman1(bv.slice_inputs(structure, 1)[:, :5])
        self.kinds = [k for k in self._sums.kinds if k != "tree"]
        self.slice_curves = {k: [] for k in self.kinds}
        self._slice_sum = {k: np.zeros(len(self.slice_x)) for k in self.kinds}
        self._n_forests = 0
        self.history = {}

    @property
    def n_draws(self) -> int:
        return self._sums.n_done

    def draw(self, n: int = 1) -> "RunningForestBiasVariance":
        """Draw ``n`` more learning sets (growing the nested grid of trees and the forests on each)."""
        _check_draws(n, self.n_draws)
        for _ in range(n):
            for a, _q, stats in fv.learning_set_statistics(self._root.spawn(1)[0], self._problem, self.settings,
                                                           X_extra=self._X_slice):
                self._sums.add(a, stats)
                for kind, extra in stats["extra"].items():      # (forest seeds, slice points, d)
                    self.slice_curves[kind].append(extra[0, :, 0])
                    self._slice_sum[kind] += extra[:, :, 0].sum(axis=0)
                self._n_forests += self.settings["n_forest_seeds"]
            for term, value in self.terms().items():
                self.history.setdefault(term, []).append(value)
        return self

    def slice_mean(self, kind):
        """The mean prediction of output 1 on the slice over every forest of ``kind`` drawn so far."""
        return self._slice_sum[kind] / max(self._n_forests, 1)

    def terms(self) -> dict:
        """Every term now (floats): the result's, and the sums and splits described above."""
        t = {k: float(v[0]) for k, v in self._sums.terms(self._problem.bayes, self._problem.noise_var,
                                                        self.settings["n_estimators"]).items()}
        for prefix in ("", "alg1_", "alg2_"):
            t[f"{prefix}variance"] = t[f"{prefix}var_learning_set"] + t[f"{prefix}var_algorithm"]
        for prefix, per_tree in (("alg1_", False), ("alg2_", True)):
            parts = fv.algorithm_variance_split(t, self.settings["n_estimators"], per_tree)
            t[f"{prefix}projection_part"], t[f"{prefix}tree_part"] = (float(p) for p in parts)
        return t

    def result(self) -> fv.ForestBiasVarianceResult | None:
        """The decomposition over the draws so far (None before the first draw)."""
        if self.n_draws == 0:
            return None
        return self._sums.result(self._problem, {**self.settings, "n_learning_sets": self.n_draws}, True)


# What a projected forest's draws can mirror: run_forest_bias_variance's forests are fully grown.
FOREST_DRAW_PARAMS = {"n_estimators", "n_components", "max_features"}


def running_for(problem, settings, *, seed=0):
    """The running decomposition to draw for the Bias–variance page's settings.

    A projected forest (``rf-<scheme>-shared``: Algorithm 1, ``rf-<scheme>-per-tree``: Algorithm 2)
    whose ``estimator_params`` set only n_estimators, n_components (q) and max_features gives a
    :class:`RunningForestBiasVariance` showing that forest, with the batch experiment's grid (4
    projections x 4 trees and 4 forests of each algorithm per learning set; ``n_seeds`` is not
    used); anything else (boosting, the other forests, a projected forest with a tree size) a
    :class:`RunningBiasVariance` with these arguments.
    """
    estimator, params = settings.estimator, settings.estimator_params
    if isinstance(estimator, str) and estimator.startswith("rf-") and set(params) <= FOREST_DRAW_PARAMS:
        _, _, rest = estimator.partition("-")
        suffix, _, kind = rest.partition("-")
        if suffix in SCHEME_OF_SUFFIX and kind in ("shared", "per-tree"):
            forest = ForestSettings(n_estimators=params.get("n_estimators", 100),
                                    max_features=params.get("max_features", 1.0), projection=SCHEME_OF_SUFFIX[suffix],
                                    q_values=(params.get("n_components", "log"),))
            return RunningForestBiasVariance(problem, forest, seed=seed, shown="alg2" if kind == "per-tree" else "alg1")
    return RunningBiasVariance(problem, settings, seed=seed)
