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
from engine.experiments.problems import Problem
from engine.experiments.settings import ForestSettings, check_flag, check_kind, check_seed
from engine.experiments.runner import JsonResult, Runner, Stopped, check_callbacks, to_list
from engine.experiments.worker import FitWorker
from engine.names import FRIEDMAN_PROBLEMS, PROJECTIONS, STRUCTURES
from engine.projections import draw_projections
from engine.validation import check_int as _int

__all__ = ["ForestBiasVarianceResult", "ForestSums", "TestProblem", "VarianceSplitSettings", "algorithm_variance_split",
           "check_settings", "learning_set_statistics", "run_forest_bias_variance"]

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


@dataclass(frozen=True)
class VarianceSplitSettings:
    """How many draws split the algorithm variance, checked when built (a ValueError naming the argument).

    n_learning_sets : learning sets, at least 2 (the live draws, :class:`engine.app.page_models.draws.
        RunningForestBiasVariance`, draw them one at a time and do not use it)
    n_projections : draws of Phi per learning set and q, at least 2
    n_tree_seeds : bootstrap trees per projection (nested seeds), at least 2
    n_forest_seeds : forests of Algorithm 1 and of Algorithm 2 per learning set and q, at least 2
    include_forests : False: the single projected tree's terms only
    bootstrap : trees on a bootstrap sample (False with every feature: a tree is deterministic given its
        projection, var_tree = 0)
    """

    n_learning_sets: int = 6
    n_projections: int = 4
    n_tree_seeds: int = 4
    n_forest_seeds: int = 4
    include_forests: bool = True
    bootstrap: bool = True

    def __post_init__(self):
        for name in ("n_learning_sets", "n_projections", "n_tree_seeds", "n_forest_seeds"):
            _int(getattr(self, name), name, 2)
        check_flag(self.include_forests, "include_forests")
        check_flag(self.bootstrap, "bootstrap")


def run_forest_bias_variance(problem, forest, split=None, *, seed=0, progress=None,
                             stop=None) -> ForestBiasVarianceResult:
    """Split the algorithm variance of projected trees / forests (paper 003, section 3.3, Appendix C).

    ``problem``: a Friedman1 :class:`~engine.experiments.problems.Problem` (chain, group, ind; the
    Bayes model is known; its ``n_train`` per learning set, ``n_test`` test points, ``n_outputs``
    and ``noise``). ``forest``: :class:`~engine.experiments.settings.ForestSettings` (trees,
    max_features, default 1.0 here: every feature; the projection and the q swept). ``split``:
    :class:`VarianceSplitSettings` (None: its defaults). For each of ``n_learning_sets`` learning
    sets and each q: ``n_projections`` projections (draws of Phi) x ``n_tree_seeds`` bootstrap trees
    per projection (nested seeds) give the single tree's terms; ``n_forest_seeds`` forests with
    Algorithm 1 and with Algorithm 2 give their measured algorithm variances (``include_forests=False``
    skips them). Trees: on a bootstrap sample if ``bootstrap`` (with ``bootstrap=False`` and every
    feature a tree is deterministic given its projection: var_tree = 0). See
    :class:`ForestBiasVarianceResult`.

    The work of one learning set is :func:`learning_set_statistics` and the terms are
    :meth:`ForestSums.terms`: :class:`engine.app.page_models.draws.RunningForestBiasVariance`
    draws the same learning sets one at a time with the same two.
    """
    split = split or VarianceSplitSettings()
    settings = check_settings(problem, forest, split, seed=seed)
    check_callbacks(progress, stop)
    n_learning_sets, qs = split.n_learning_sets, settings["q_values"]
    test_seq, *set_seqs = np.random.SeedSequence(seed).spawn(n_learning_sets + 1)
    test = TestProblem(settings["structure"], settings["n_test"], settings["n_outputs"], settings["noise"], test_seq)
    sums = ForestSums(len(qs), settings["include_forests"])
    runner, done, complete = Runner(progress, stop, n_learning_sets * len(qs)), 0, True
    with FitWorker(stop) as worker:     # a stop kills the set in progress (its fits are dropped)
        shared = worker.share(test)
        for i, seq in enumerate(set_seqs):
            if runner.stopped():
                complete = False
                break
            try:
                statistics = worker.call(_set_statistics, seq, shared, settings)
            except Stopped:
                complete = False
                break
            for a, q, stats in statistics:
                sums.add(a, stats)
                done += 1
            runner.report(done, f"learning set {i + 1}/{n_learning_sets}")
    runner.finish(complete)
    return sums.result(test, {**settings, "n_learning_sets": n_learning_sets}, complete)


def check_settings(problem, forest, split=None, *, seed=0):
    """The arguments of :func:`run_forest_bias_variance` checked (``ValueError`` naming a bad one)
    and returned as one plain dict (what a worker process gets; the number of learning sets left
    out) with the q swept resolved to integers."""
    problem = Problem.of(problem)
    if problem.dataset not in FRIEDMAN_PROBLEMS or problem.data is not None or problem.n_noisy_outputs:
        raise ValueError("problem must be a Friedman1 problem (friedman1-chain, -group or -ind) without noisy "
                         f"outputs: the split needs its Bayes model, got {problem.dataset!r}")
    check_kind(forest, "forest", ForestSettings)
    split = check_kind(split or VarianceSplitSettings(), "split", VarianceSplitSettings)
    _int(problem.n_test, "n_test", 1)
    check_seed(seed)
    return dict(structure=problem.dataset.split("-", 1)[1], q_values=forest.qs(problem.n_outputs),
                projection=forest.projection, n_estimators=forest.n_estimators, n_projections=split.n_projections,
                n_tree_seeds=split.n_tree_seeds, n_forest_seeds=split.n_forest_seeds,
                include_forests=bool(split.include_forests),
                max_features=forest.features("regression"), bootstrap=bool(split.bootstrap),
                n_train=problem.n_train, n_test=problem.n_test, n_outputs=problem.n_outputs, noise=problem.noise,
                seed=seed, n_jobs=forest.n_jobs)


class TestProblem:
    """The fixed test set (from ``test_seq``), its Bayes model and the exact noise variance per output."""

    __test__ = False        # not a pytest class

    def __init__(self, structure, n_test, n_outputs, noise, test_seq):
        self.X, _, self.bayes = make_friedman1_multioutput(structure, n_samples=n_test, n_outputs=n_outputs,
                                                           noise=noise, random_state=np.random.default_rng(test_seq))
        self.X32 = np.ascontiguousarray(self.X, dtype=np.float32)
        self.noise_var = (np.arange(1, n_outputs + 1) if structure == "chain" else np.ones(n_outputs)) * noise ** 2


def _set_statistics(seq, problem, settings):
    """Every q's statistics of one learning set, as a list (one call of a worker process)."""
    return list(learning_set_statistics(seq, problem, settings))


def learning_set_statistics(seq, problem, settings, X_extra=None):
    """Grow the models of one learning set (drawn from ``seq``); yield ``(a, q, stats)`` per q.

    ``stats`` are what :meth:`ForestSums.add` sums. With ``X_extra`` (more inputs, e.g. a slice
    to draw), ``stats["extra"][kind]`` holds the first forest's predictions there (kinds alg1 and
    alg2); the random draws, hence the other statistics, are the same with or without it.
    """
    s = settings
    template = ProjectedForestRegressor(max_features=s["max_features"])
    template.check_params()
    data_seq, algo_seq = seq.spawn(2)
    X_tr, Y_tr, _ = make_friedman1_multioutput(s["structure"], n_samples=s["n_train"], n_outputs=s["n_outputs"],
                                               noise=s["noise"], random_state=np.random.default_rng(data_seq))
    rng = np.random.default_rng(algo_seq)
    P, T = s["n_projections"], s["n_tree_seeds"]
    for a, q in enumerate(s["q_values"]):
        phis = draw_projections(s["projection"], P, q, s["n_outputs"], rng)
        F = np.stack([_trees_on_projection(X_tr, Y_tr, problem.X32, phi, s["projection"],
                                           rng.integers(0, 2**63 - 1, size=T), template, s["bootstrap"])
                      for phi in phis])                               # (P, T, n_test, d)
        group = F.mean(axis=1)                                        # E_theta[f | Phi]
        vt = F.var(axis=1).mean()
        vp = group.var(axis=0).mean()
        vt_c = vt * T / (T - 1)
        stats = {"means": {"tree": F.mean(axis=(0, 1))},
                 "var_alg": {"tree": F.reshape(-1, *F.shape[2:]).var(axis=0).mean()},
                 "leak": {"tree": vp / (P - 1)},                      # mean of P i.i.d. group means
                 "var_tree": vt, "var_projection": vp, "var_tree_corrected": vt_c,
                 "var_projection_corrected": vp * P / (P - 1) - vt_c / T, "extra": {}}
        if s["include_forests"]:
            for kind, per_tree in (("alg1", False), ("alg2", True)):
                forests = [ProjectedForestRegressor(
                    n_estimators=s["n_estimators"], max_features=s["max_features"], projection=s["projection"],
                    n_components=q, projection_per_tree=per_tree, n_jobs=s["n_jobs"], bootstrap=s["bootstrap"],
                    random_state=int(rng.integers(0, 2**31 - 1))).fit(X_tr, Y_tr)
                    for _ in range(s["n_forest_seeds"])]
                G = np.stack([f.predict(problem.X) for f in forests])
                stats["means"][kind] = G.mean(axis=0)
                stats["var_alg"][kind] = G.var(axis=0, ddof=1).mean()
                stats["leak"][kind] = stats["var_alg"][kind] / s["n_forest_seeds"]
                if X_extra is not None:
                    stats["extra"][kind] = np.stack([f.predict(X_extra) for f in forests])
        yield a, q, stats


def algorithm_variance_split(terms, n_estimators, per_tree):
    """Appendix C.2: a forest's algorithm variance as (projection part, tree part), from the
    single-tree terms (the finite-grid corrected ones). Algorithm 1 (one shared projection) keeps
    the whole projection term and divides the tree term by M; Algorithm 2 divides both by M."""
    M = n_estimators
    return terms["var_projection_corrected"] / (M if per_tree else 1), terms["var_tree_corrected"] / M


class ForestSums:
    """The per-learning-set statistics in set order, and the terms they give (population variances
    over the sets done). Shared by the batch run and the one-at-a-time draws."""

    def __init__(self, n_q, include_forests):
        self.kinds = ("tree", "alg1", "alg2") if include_forests else ("tree",)
        self.means = {k: [[] for _ in range(n_q)] for k in self.kinds}     # E_theta f per learning set
        # Per learning set, an unbiased estimate of the variance of that set's mean model
        # around E_theta f (it leaks into the spread of the means over learning sets).
        self.leak = {k: [[] for _ in range(n_q)] for k in self.kinds}
        self.var_alg = {k: [[] for _ in range(n_q)] for k in self.kinds}   # Var_theta f per set (mean over x, j)
        self.single = {k: np.zeros(n_q) for k in
                       ("var_projection", "var_tree", "var_projection_corrected", "var_tree_corrected")}

    @property
    def n_done(self) -> int:
        """Learning sets where every q was done."""
        return min((len(m) for m in self.means["tree"]), default=0)

    def add(self, a, stats):
        for kind in self.kinds:
            self.means[kind][a].append(stats["means"][kind])
            self.leak[kind][a].append(stats["leak"][kind])
            self.var_alg[kind][a].append(stats["var_alg"][kind])
        for key in self.single:
            self.single[key][a] += stats[key]

    def terms(self, bayes, noise_var, n_estimators) -> dict:
        """Every term of :data:`BV_TERMS` (arrays over q). One learning set gives a learning-set
        variance of 0 (population variance; the corrected one needs two)."""
        nq = len(self.means["tree"])
        nan = np.full(nq, np.nan)
        terms = {k: nan.copy() for k in BV_TERMS}
        terms["noise"][:] = noise_var.mean()
        # Only learning sets where every q was done (a stop may cut one mid-way).
        n_full = self.n_done
        if n_full < 1:
            return terms
        for kind, prefix in (("tree", ""), ("alg1", "alg1_"), ("alg2", "alg2_")):
            if kind not in self.kinds:
                continue
            for a in range(nq):
                M = np.stack(self.means[kind][a][:n_full])                     # (L, n_test, d)
                terms[f"{prefix}bias2"][a] = ((M.mean(axis=0) - bayes) ** 2).mean()
                terms[f"{prefix}var_learning_set"][a] = M.var(axis=0).mean()
                terms[f"{prefix}var_learning_set_corrected"][a] = (
                    M.var(axis=0, ddof=1).mean() - np.mean(self.leak[kind][a][:n_full]) if n_full > 1 else np.nan)
                terms[f"{prefix}var_algorithm"][a] = np.mean(self.var_alg[kind][a][:n_full])
                terms[f"{prefix}error"][a] = (terms["noise"][a] + terms[f"{prefix}bias2"][a]
                                              + terms[f"{prefix}var_learning_set"][a]
                                              + terms[f"{prefix}var_algorithm"][a])
        counts = np.array([len(m) for m in self.means["tree"]], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            for key, total in self.single.items():
                terms[key] = total / counts
        # The exact identity uses the same learning sets on both sides.
        for a in range(nq):
            terms["var_algorithm"][a] = np.mean(self.var_alg["tree"][a])
        for per_tree, name in ((False, "alg1_var_algorithm_predicted"), (True, "alg2_var_algorithm_predicted")):
            projection_part, tree_part = algorithm_variance_split(terms, n_estimators, per_tree)
            terms[name] = projection_part + tree_part
        return terms

    def result(self, problem, settings, complete) -> ForestBiasVarianceResult:
        """The result over the sets done; ``settings`` as :func:`check_settings` returns them,
        with ``n_learning_sets``."""
        s = settings
        qs, d = s["q_values"], s["n_outputs"]
        terms = self.terms(problem.bayes, problem.noise_var, s["n_estimators"])
        params = dict(structure=s["structure"], q_values=qs, projection=s["projection"],
                      n_estimators=s["n_estimators"], n_learning_sets=s["n_learning_sets"],
                      n_projections=s["n_projections"], n_tree_seeds=s["n_tree_seeds"],
                      n_forest_seeds=s["n_forest_seeds"], include_forests=s["include_forests"],
                      max_features=s["max_features"], bootstrap=s["bootstrap"], n_train=s["n_train"],
                      n_test=s["n_test"], n_outputs=d, noise=s["noise"], seed=s["seed"])
        n_done = len(self.means["tree"][0]) if qs else 0
        notes = [f"friedman1-{s['structure']}, d = {d}: {n_done} learning set(s) of {s['n_train']} samples, one "
                 f"test set of {s['n_test']} points with its Bayes model; noise variance known exactly.",
                 f"Single trees: {s['n_projections']} projections x {s['n_tree_seeds']} bootstrap trees per "
                 "learning set (nested seeds); forests: "
                 + (f"{s['n_forest_seeds']} random states per learning set and algorithm."
                    if s["include_forests"] else "not run."),
                 "Averages over test points and outputs."]
        return ForestBiasVarianceResult(s["structure"], s["projection"], d, s["n_estimators"],
                                        np.array(qs, dtype=np.int64), terms, params, complete, n_done, notes)
