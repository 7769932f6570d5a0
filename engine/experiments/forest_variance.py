"""The variance of projected trees and forests split into its parts (paper 003, section 3.3, Appendix C).

The algorithm variance of a tree grown on a random projection of the outputs
has two sources: the projection Phi and the tree's own randomization theta
(bootstrap, feature sampling). This experiment measures both for a single
projected tree, and the algorithm variance of forests with one shared
projection (Algorithm 1) and with a projection per tree (Algorithm 2), next to
what Appendix C.2 predicts from the single-tree terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.datasets import make_friedman1_multioutput
from engine.estimators.forest import ProjectedForestRegressor, grow_trees, project_outputs, tree_leaves
from engine.estimators.growers import bin_for
from engine.experiments.forests import check_forest_settings, resolve_q_values
from engine.experiments.runner import JsonResult, Runner, check_callbacks, to_list
from engine.names import PROJECTIONS, STRUCTURES
from engine.projections import draw_projections
from engine.validation import check_in_interval
from engine.validation import check_int as _int

__all__ = ["ForestBiasVarianceResult", "run_forest_bias_variance"]

BV_TERMS = ("noise", "bias2", "var_learning_set", "var_algorithm", "var_projection", "var_tree",
            "var_projection_corrected", "var_tree_corrected", "error",
            "alg1_bias2", "alg1_var_learning_set", "alg1_var_algorithm", "alg1_error",
            "alg2_bias2", "alg2_var_learning_set", "alg2_var_algorithm", "alg2_error",
            "alg1_var_algorithm_predicted", "alg2_var_algorithm_predicted",
            "var_learning_set_corrected", "alg1_var_learning_set_corrected",
            "alg2_var_learning_set_corrected")


@dataclass
class ForestBiasVarianceResult(JsonResult):
    """Bias-variance decomposition of projected trees and forests, one entry per q.

    Single projected tree f(x; L, Phi, theta) (paper 003, Appendix C.1), averaged
    over test points and outputs:

    * ``error = noise + bias2 + var_learning_set + var_algorithm``;
    * ``var_algorithm = E_L Var_{Phi,theta} f = var_projection + var_tree`` with
      ``var_projection = E_L Var_Phi E_theta[f | Phi]`` (the random projection) and
      ``var_tree = E_L E_Phi Var_theta[f | Phi]`` (bootstrap / feature sampling). These
      three are population variances over the nested grid (``n_projections``
      projections x ``n_tree_seeds`` tree seeds per learning set), so the identity holds
      to rounding error (``identity_gap``).
    * ``*_corrected``: the same two terms without the finite-grid bias (the mean over
      ``n_tree_seeds`` trees still carries var_tree / n_tree_seeds), used for the
      predictions below.

    Forests of M = ``n_estimators`` trees, measured over ``n_forest_seeds`` random
    states per learning set (unbiased variances): ``alg1_*`` Algorithm 1 (one shared
    projection), ``alg2_*`` Algorithm 2 (a projection per tree). Appendix C.2 predicts
    ``alg1_var_algorithm = var_projection + var_tree / M`` and
    ``alg2_var_algorithm = (var_projection + var_tree) / M`` (the ``*_predicted``
    arrays, from the corrected single-tree terms): Algorithm 2 is never worse.

    Learning-set variance. ``var_learning_set`` (and ``alg1_``/``alg2_``) is the
    population variance over learning sets of each set's mean model, which makes
    the rows add up to ``error`` exactly; but a set's mean over finitely many trees
    or forests still carries their algorithm variance divided by their number
    (about var_algorithm / 16 for the default 4 x 4 single trees, far more than for
    4 forests), so the single tree's plain value is the largest. Appendix C.2 says
    all three share one average model, hence one Var_L E f:
    ``*var_learning_set_corrected`` removes that leak and the finite-L bias
    (unbiased estimates, so comparable across the three, and possibly slightly
    negative when the true value is near 0).
    """

    structure: str
    projection: str
    n_outputs: int
    n_estimators: int
    q_values: np.ndarray
    terms: dict
    params: dict
    complete: bool = True
    n_learning_sets_done: int = 0
    notes: list = field(default_factory=list)

    def __getattr__(self, name):
        terms = self.__dict__.get("terms", {})
        if name in terms:
            return terms[name]
        raise AttributeError(name)

    @property
    def identity_gap(self) -> float:
        """max |var_algorithm - var_projection - var_tree| over q (rounding error only)."""
        t = self.terms
        gap = np.abs(t["var_algorithm"] - t["var_projection"] - t["var_tree"])
        return float(np.nanmax(gap)) if gap.size else float("nan")

    def to_frame(self) -> pd.DataFrame:
        df = pd.DataFrame({"q": self.q_values.astype(int), **{k: self.terms[k] for k in BV_TERMS}})
        df.insert(0, "projection", self.projection)
        df.insert(0, "structure", self.structure)
        df["n_estimators"] = self.n_estimators
        return df

    def to_dict(self):
        return {"structure": self.structure, "projection": self.projection, "n_outputs": self.n_outputs,
                "n_estimators": self.n_estimators, "q_values": [int(q) for q in self.q_values],
                "terms": {k: to_list(v) for k, v in self.terms.items()}, "params": self.params,
                "complete": self.complete, "n_learning_sets_done": self.n_learning_sets_done,
                "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d):
        terms = {k: np.array([np.nan if v is None else v for v in vals], dtype=float)
                 for k, vals in d["terms"].items()}
        return cls(structure=d["structure"], projection=d["projection"], n_outputs=d["n_outputs"],
                   n_estimators=d["n_estimators"], q_values=np.array(d["q_values"], dtype=np.int64),
                   terms=terms, params=d["params"], complete=d["complete"],
                   n_learning_sets_done=d["n_learning_sets_done"], notes=list(d["notes"]))


def _trees_on_projection(X_tr, Y_tr, X_te32, phi, kind, tree_seeds, template, bootstrap=True):
    """Predictions (T, n_test, d) of single trees all grown on Y @ phi.T, one per tree seed.

    Uses the forest's own tree growing (engine.estimators.forest) so that a tree
    here is exactly a tree of ProjectedForestRegressor with that seed, but with
    the projection held fixed while the tree seed varies.
    """
    n, p = X_tr.shape
    params = template._tree_params(n, p)
    X32 = np.asfortranarray(X_tr, dtype=np.float32)
    Y = np.ascontiguousarray(Y_tr, dtype=np.float64)
    targets = project_outputs(Y, phi, kind)
    # The split search the forest itself would use on this data (growers.bin_for).
    binned = bin_for(X32, template.split_search, template.max_bins)
    stores = grow_trees(X32, binned, Y, np.ones(n), list(tree_seeds), params, bool(bootstrap), kind,
                        targets, phi.shape[0])
    return np.stack([store.value[leaf] for store, leaf in zip(stores, tree_leaves(stores, X_te32))])


def run_forest_bias_variance(structure="ind", *, q_values=(1, 4), projection="gaussian", n_estimators=10,
                             n_learning_sets=6, n_projections=4, n_tree_seeds=4, n_forest_seeds=4,
                             include_forests=True, max_features=1.0, bootstrap=True, n_train=300, n_test=500,
                             n_outputs=16, noise=1.0, seed=0, n_jobs=1, progress=None,
                             stop=None) -> ForestBiasVarianceResult:
    """Split the algorithm variance of projected trees / forests (paper 003, section 3.3, Appendix C).

    Friedman1 ``structure`` ("chain", "group", "ind"; the Bayes model is known). For
    each of ``n_learning_sets`` learning sets and each q: ``n_projections`` projections
    x ``n_tree_seeds`` bootstrap trees per projection (nested seeds) give the single
    tree's terms; ``n_forest_seeds`` forests of ``n_estimators`` trees with Algorithm 1
    and with Algorithm 2 give their measured algorithm variances
    (``include_forests=False`` skips them). Trees: best splits over ``max_features``,
    on a bootstrap sample if ``bootstrap`` (with ``bootstrap=False`` and
    ``max_features=1.0`` a tree is deterministic given its projection: var_tree = 0). See :class:`ForestBiasVarianceResult`.
    """
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {PROJECTIONS}, got {projection!r}")
    _int(n_outputs, "n_outputs", 1)
    qs = resolve_q_values(q_values, projection, n_outputs)
    _int(n_estimators, "n_estimators", 1)
    _int(n_learning_sets, "n_learning_sets", 2)
    _int(n_projections, "n_projections", 2)
    _int(n_tree_seeds, "n_tree_seeds", 2)
    _int(n_forest_seeds, "n_forest_seeds", 2)
    _int(n_train, "n_train", 2)
    _int(n_test, "n_test", 1)
    check_in_interval(noise, "noise", 0.0)
    _int(seed, "seed", 0)
    check_forest_settings(n_estimators, 1, max_features, n_jobs, "regression")
    if not isinstance(bootstrap, (bool, np.bool_)):
        raise ValueError(f"bootstrap must be True or False, got {bootstrap!r}")
    check_callbacks(progress, stop)

    d, nq = n_outputs, len(qs)
    test_seq, *set_seqs = np.random.SeedSequence(seed).spawn(n_learning_sets + 1)
    X_te, _, bayes = make_friedman1_multioutput(structure, n_samples=n_test, n_outputs=d, noise=noise,
                                                random_state=np.random.default_rng(test_seq))
    X_te32 = np.ascontiguousarray(X_te, dtype=np.float32)
    noise_var = (np.arange(1, d + 1) if structure == "chain" else np.ones(d)) * noise ** 2
    template = ProjectedForestRegressor(max_features=max_features)
    template.check_params()

    kinds = ("tree", "alg1", "alg2") if include_forests else ("tree",)
    means = {k: [[] for _ in qs] for k in kinds}          # E_theta f per learning set
    # Per learning set, an unbiased estimate of the variance of that set's mean model
    # around E_theta f (it leaks into the spread of the means over learning sets).
    leak = {k: [[] for _ in qs] for k in kinds}
    var_alg = {k: [[] for _ in qs] for k in kinds}        # Var_theta f per learning set (mean over x, j)
    var_proj, var_tree, var_proj_c, var_tree_c = (np.zeros(nq) for _ in range(4))
    runner, done, complete = Runner(progress, stop, n_learning_sets * nq), 0, True
    for i, seq in enumerate(set_seqs):
        if runner.stopped():
            complete = False
            break
        data_seq, algo_seq = seq.spawn(2)
        X_tr, Y_tr, _ = make_friedman1_multioutput(structure, n_samples=n_train, n_outputs=d, noise=noise,
                                                   random_state=np.random.default_rng(data_seq))
        rng = np.random.default_rng(algo_seq)
        for a, q in enumerate(qs):
            phis = draw_projections(projection, n_projections, q, d, rng)
            F = np.stack([_trees_on_projection(X_tr, Y_tr, X_te32, phi, projection,
                                               rng.integers(0, 2**63 - 1, size=n_tree_seeds), template,
                                               bootstrap)
                          for phi in phis])                               # (P, T, n_test, d)
            group = F.mean(axis=1)                                        # E_theta[f | Phi]
            means["tree"][a].append(F.mean(axis=(0, 1)))
            var_alg["tree"][a].append(F.reshape(-1, *F.shape[2:]).var(axis=0).mean())
            vt = F.var(axis=1).mean()
            vp = group.var(axis=0).mean()
            leak["tree"][a].append(vp / (n_projections - 1))      # mean of P i.i.d. group means
            var_tree[a] += vt
            var_proj[a] += vp
            vt_c = vt * n_tree_seeds / (n_tree_seeds - 1)
            var_tree_c[a] += vt_c
            var_proj_c[a] += vp * n_projections / (n_projections - 1) - vt_c / n_tree_seeds
            if include_forests:
                for kind, per_tree in (("alg1", False), ("alg2", True)):
                    G = np.stack([ProjectedForestRegressor(
                        n_estimators=n_estimators, max_features=max_features, projection=projection,
                        n_components=q, projection_per_tree=per_tree, n_jobs=n_jobs, bootstrap=bootstrap,
                        random_state=int(rng.integers(0, 2**31 - 1))).fit(X_tr, Y_tr).predict(X_te)
                        for _ in range(n_forest_seeds)])
                    means[kind][a].append(G.mean(axis=0))
                    var_alg[kind][a].append(G.var(axis=0, ddof=1).mean())
                    leak[kind][a].append(var_alg[kind][a][-1] / n_forest_seeds)
            done += 1
            runner.report(done, f"learning set {i + 1}/{n_learning_sets}, q = {q}")
    n_done = len(means["tree"][0]) if qs else 0
    runner.finish(complete)

    nan = np.full(nq, np.nan)
    terms = {k: nan.copy() for k in BV_TERMS}
    terms["noise"][:] = noise_var.mean()
    # Only learning sets where every q was done (a stop may cut one mid-way).
    n_full = min((len(m) for m in means["tree"]), default=0)
    if n_full >= 1:
        for kind, prefix in (("tree", ""), ("alg1", "alg1_"), ("alg2", "alg2_")):
            if kind not in means:
                continue
            for a in range(nq):
                M = np.stack(means[kind][a][:n_full])                     # (L, n_test, d)
                terms[f"{prefix}bias2"][a] = ((M.mean(axis=0) - bayes) ** 2).mean()
                terms[f"{prefix}var_learning_set"][a] = M.var(axis=0).mean() if n_full > 1 else np.nan
                terms[f"{prefix}var_learning_set_corrected"][a] = (
                    M.var(axis=0, ddof=1).mean() - np.mean(leak[kind][a][:n_full]) if n_full > 1 else np.nan)
                terms[f"{prefix}var_algorithm"][a] = np.mean(var_alg[kind][a][:n_full])
                terms[f"{prefix}error"][a] = (terms["noise"][a] + terms[f"{prefix}bias2"][a]
                                              + terms[f"{prefix}var_learning_set"][a]
                                              + terms[f"{prefix}var_algorithm"][a])
        counts = np.array([len(m) for m in means["tree"]], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            terms["var_projection"] = var_proj / counts
            terms["var_tree"] = var_tree / counts
            terms["var_projection_corrected"] = var_proj_c / counts
            terms["var_tree_corrected"] = var_tree_c / counts
        # The exact identity uses the same learning sets on both sides.
        for a in range(nq):
            terms["var_algorithm"][a] = np.mean(var_alg["tree"][a])
        M_ = n_estimators
        terms["alg1_var_algorithm_predicted"] = terms["var_projection_corrected"] + terms["var_tree_corrected"] / M_
        terms["alg2_var_algorithm_predicted"] = (terms["var_projection_corrected"] + terms["var_tree_corrected"]) / M_
    params = dict(structure=structure, q_values=qs, projection=projection, n_estimators=n_estimators,
                  n_learning_sets=n_learning_sets, n_projections=n_projections, n_tree_seeds=n_tree_seeds,
                  n_forest_seeds=n_forest_seeds, include_forests=include_forests, max_features=max_features,
                  bootstrap=bootstrap,
                  n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise, seed=seed)
    notes = [f"friedman1-{structure}, d = {d}: {n_done} learning set(s) of {n_train} samples, one test set "
             f"of {n_test} points with its Bayes model; noise variance known exactly.",
             f"Single trees: {n_projections} projections x {n_tree_seeds} bootstrap trees per learning set "
             "(nested seeds); forests: "
             + (f"{n_forest_seeds} random states per learning set and algorithm." if include_forests else "not run."),
             "Averages over test points and outputs."]
    return ForestBiasVarianceResult(structure, projection, d, n_estimators, np.array(qs, dtype=np.int64),
                                    terms, params, complete, n_done, notes)
