"""Issue 33: the papers' delicious figures on the real data. Paper 002's Figures 3, 5 and 6
(``reproduce schemes`` / ``projection-size``) and the thesis's forest study (Figures 5.1, 5.3,
5.4: ``reproduce forest-projection-size`` / ``forest-randomization`` / ``forest-schemes``), each
with the paper's claims beside our numbers. Every path runs here on ``delicious-slice`` (1000 + 500
rows and 100 labels of the real delicious, the ``--quick`` size); the claim checks are held to
results built by hand, where the answer is known.
"""
import json

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from engine import __main__ as cli
from engine.datasets import load_dataset
from engine.datasets.slices import DELICIOUS_SLICE, SLICE_SHAPE, load_slice
from engine.experiments import claims
from engine.experiments.convergence import Curve, ConvergenceResult
from engine.experiments.forests import FOREST_REF, PER_TREE, SHARED, SINGLE_TREE, TREE_REF, ForestSweepResult
from engine.experiments.problems import Problem, problem_size
from engine.experiments.projection_size import ProjectionSizeResult
from engine.experiments.published import DELICIOUS_CLAIMS
from engine.reports.delicious import BOOSTING_SIZES, FOREST_SIZES, size_of


# ---------------------------------------------------------------- the slice


@pytest.mark.slow
def test_the_slice_is_the_first_rows_and_most_frequent_labels_of_the_real_delicious():
    full = load_dataset("delicious")
    part = load_slice()
    assert part.name == DELICIOUS_SLICE and sparse.isspmatrix_csr(part.X)
    assert part.X.shape == (1500, 500) and part.Y.shape == (1500, 100)
    train = np.setdiff1d(np.arange(full.n_samples), full.test_indices)
    rows = np.concatenate([train[:1000], full.test_indices[:500]])
    counts = full.Y[train[:1000]].sum(axis=0)
    kept = [full.target_names.index(name) for name in part.target_names]
    assert sorted(kept) == kept                                     # labels in their original order
    assert counts[kept].min() >= np.delete(counts, kept).max()      # the 100 most frequent ones
    assert (part.X != full.X[rows]).nnz == 0
    assert np.array_equal(part.Y, full.Y[rows][:, kept])
    assert np.array_equal(part.test_indices, np.arange(1000, 1500))
    with pytest.raises(ValueError, match="name must be"):
        load_slice("delicious-slice-2")


def test_the_slice_is_a_problem_like_any_shipped_set():
    assert Problem(DELICIOUS_SLICE).shape() == ("multilabel", 100)
    size = problem_size(DELICIOUS_SLICE)
    assert (size["n_train"], size["n_test"], size["n_features"], size["n_outputs"]) == (1000, 500, 500, 100)
    drawn = Problem(DELICIOUS_SLICE).draw(0)
    X_tr, Y_tr, X_te, Y_te, task, info = drawn.X_train, drawn.Y_train, drawn.X_test, drawn.Y_test, drawn.task, drawn.info
    assert sparse.isspmatrix_csr(X_tr) and X_tr.shape == (1000, 500) and Y_te.shape == (500, 100)
    assert info["split"] == "standard train/test split" and task == "multilabel"
    assert SLICE_SHAPE == {"source": "delicious", "n_train": 1000, "n_test": 500, "n_labels": 100}


# ---------------------------------------------------------------- the claims, on results built by hand


def _curve(name, scores):
    steps = np.arange(1, len(scores) + 1)
    nan = np.full(len(scores), np.nan)
    return Curve(name, name, steps, steps, steps / 10.0, steps * 0.1, nan, np.asarray(scores, float), nan)


def _schemes(sub, other):
    curves = {"gbrt-rpo-subsampled": _curve("gbrt-rpo-subsampled", sub),
              "gbrt-rpo-gaussian": _curve("gbrt-rpo-gaussian", other)}
    return ConvergenceResult("schemes", "delicious", "multilabel", "LRAP", 983, curves, {})


def test_figure3_holds_only_when_subsampling_leads_at_half_and_at_the_end():
    ahead = claims.figure3_claims(_schemes([0.1, 0.2, 0.3, 0.4], [0.1, 0.15, 0.2, 0.3]))
    assert [r["holds"] for r in ahead] == [True]
    assert ahead[0]["claim"] == DELICIOUS_CLAIMS["figure3"]
    assert "step 2: subsample 0.200, gaussian 0.150" in ahead[0]["ours"]
    behind_at_end = claims.figure3_claims(_schemes([0.1, 0.2, 0.3, 0.3], [0.1, 0.15, 0.2, 0.35]))
    assert [r["holds"] for r in behind_at_end] == [False]
    assert claims.figure3_claims(_schemes([0.1], [0.1]))[0]["holds"] is True          # ties hold (>=)


def _size(q_values, score, fit_time, budget_score, gbmort=(0.30, 10.0, 0.25), n_steps=100, projection="gaussian"):
    n = len(q_values)
    return ProjectionSizeResult(
        dataset="delicious", task="multilabel", metric="LRAP", n_outputs=983, projection=projection, n_steps=n_steps,
        q_values=np.array(q_values), score=np.array(score, float), best_score=np.array(score, float),
        fit_time=np.array(fit_time, float), budget_score=np.array(budget_score, float), gbmort_score=gbmort[0],
        gbmort_best_score=gbmort[0], gbmort_fit_time=gbmort[1], gbmort_budget_score=gbmort[2], time_budget=2.0,
        curves={}, params={}, notes=[], baseline_score=0.1) if n else None


def test_figure6_score_and_time_claims_read_the_q_sweep():
    fast = _size([1, 20, 50], [0.28, 0.295, 0.301], [1.0, 1.4, 3.0], [0.2] * 3)
    score, time = claims.figure6_claims(fast)
    assert score["holds"] is True and "q=20 -0.005, q=50 +0.001" in score["ours"]
    assert time["holds"] is True and "7.14x" in time["ours"] and time["paper"] == "7x"
    slow = _size([1, 20, 50], [0.28, 0.28, 0.301], [1.0, 12.5, 14.0], [0.2] * 3)
    score, time = claims.figure6_claims(slow)
    assert score["holds"] is False                  # q = 20 is 0.02 below gbmort
    assert time["holds"] is False and "0.80x" in time["ours"]   # issue 33's measured reversal
    (missing_time,) = [r for r in claims.figure6_claims(_size([1, 50], [0.2, 0.3], [1, 2], [0.2, 0.2]))
                       if r["figure"] == "Figure 6b"]
    assert missing_time["holds"] is None


def test_figure5_asks_q1_to_lead_at_the_budget():
    lead = claims.figure5_claims(_size([1, 98, 196, 491], [0.3] * 4, [1] * 4, [0.26, 0.25, 0.2, 0.1]))
    assert lead[0]["holds"] is True and lead[0]["figure"] == "Figure 5 (gaussian)"
    behind = claims.figure5_claims(_size([1, 98], [0.3] * 2, [1] * 2, [0.24, 0.25]))
    assert behind[0]["holds"] is False
    gbmort_ahead = claims.figure5_claims(_size([1, 98], [0.3] * 2, [1] * 2, [0.24, 0.2], gbmort=(0.3, 1.0, 0.27)))
    assert gbmort_ahead[0]["holds"] is False


def _sparse_curve(name, seconds_per_step, scores_at, n_steps=500):
    """A curve scored only at ``scores_at`` ({step: score}), as a wide data set's run is."""
    steps = np.arange(1, n_steps + 1)
    test = np.full(n_steps, np.nan)
    for step, score in scores_at.items():
        test[step - 1] = score
    nan = np.full(n_steps, np.nan)
    return Curve(name, name, steps, steps, steps, steps * seconds_per_step, nan, test, nan)


def test_the_budget_reading_interpolates_between_scored_steps():
    grid = {1: 0.20, 85: 0.28, 206: 0.31, 500: 0.34}
    fast, slow = _sparse_curve("q=1", 0.1, grid), _sparse_curve("gbmort", 0.2, grid)   # same curve per step
    budget = 50.0                                # fast's total time: slow has fitted 250 steps by then
    assert fast.score_at(budget) == pytest.approx(0.34)
    # brute force: the straight line from step 206 (41.2 s) to step 500 (100 s), read at 50 s
    assert slow.score_at(budget) == pytest.approx(0.31 + (0.34 - 0.31) * (50 - 41.2) / (100 - 41.2))
    # the old reading (best scored step within the budget) gave slow its step-206 score, 0.31
    assert slow.score_at(budget) > 0.31
    assert np.isnan(slow.score_at(0.1)) and slow.score_at(1e6) == pytest.approx(0.34)
    falling = _sparse_curve("f", 0.1, {1: 0.2, 10: 0.3, 20: 0.25}, n_steps=20)
    assert falling.score_at(2.0) == pytest.approx(0.3)           # the best so far, not the last score


def _sweep(experiment, x_name, rows, series):
    records = [{"series": s, "x": np.nan if x is None else float(x), "repeat": 0, "score": v, "fit_time": 1.0}
               for s, x, v in rows]
    return ForestSweepResult(experiment, "delicious", "multilabel", "LRAP", 983, 500, x_name, series, records, {})


def test_figure51_claims_on_a_sweep_built_by_hand():
    rows = [(TREE_REF, None, 0.20), (FOREST_REF, None, 0.384)]
    rows += [(SINGLE_TREE, q, v) for q, v in ((1, 0.15), (25, 0.18), (200, 0.195), (983, 0.2))]
    rows += [(SHARED, q, v) for q, v in ((1, 0.30), (25, 0.37), (200, 0.383))]
    rows += [(PER_TREE, q, v) for q, v in ((1, 0.35), (25, 0.386), (200, 0.385))]
    trees, forest, alg, rf = claims.forest_q_claims(
        _sweep("projection-size", "q", rows, [SINGLE_TREE, SHARED, PER_TREE, TREE_REF, FOREST_REF]))
    assert trees["holds"] is True and "first q within 0.008: 200" in trees["ours"]
    assert forest["holds"] is True and "1.92x" in forest["ours"]
    assert alg["holds"] is True
    assert rf["holds"] is True and "Alg. 2 25, Alg. 1 None" in rf["ours"] and "RF 0.384" in rf["paper"]


def test_figure53_and_54_claims_on_sweeps_built_by_hand():
    k_rows = [(FOREST_REF, k, v) for k, v in ((2, 0.36), (22, 0.384), (500, 0.37))]
    k_rows += [("q = 1", k, v) for k, v in ((2, 0.33), (22, 0.37), (500, 0.372))]
    (k_claim,) = claims.forest_k_claims(_sweep("randomization", "max_features", k_rows, ["q = 1", FOREST_REF]))
    assert k_claim["holds"] is True and "forest's drop from its best to the largest k 0.014" in k_claim["ours"]
    beat = k_rows + [("q = 1", 50, 0.40)]
    assert claims.forest_k_claims(_sweep("randomization", "max_features", beat, ["q = 1", FOREST_REF]))[0]["holds"] is False
    labels = {"gaussian": "Gaussian", "sparse": "sparse Rademacher (s = √d)", "subsample": "output sub-sampling"}
    s_rows = [(FOREST_REF, None, 0.384)]
    s_rows += [(labels["gaussian"], q, v) for q, v in ((1, 0.36), (100, 0.383))]
    s_rows += [(labels["sparse"], q, v) for q, v in ((1, 0.39), (100, 0.385))]
    s_rows += [(labels["subsample"], q, v) for q, v in ((1, 0.35), (100, 0.389))]
    (s_claim,) = claims.forest_schemes_claims(_sweep("schemes", "q", s_rows, [*labels.values(), FOREST_REF]))
    assert s_claim["holds"] is True
    s_rows[-1] = (labels["subsample"], 100, 0.38)          # sub-sampling ends below the forest
    assert claims.forest_schemes_claims(_sweep("schemes", "q", s_rows, [*labels.values(), FOREST_REF]))[0]["holds"] is False


def test_claims_table_and_markdown():
    rows = [claims._row("Figure 6b", "figure6-time", "7x", "0.80x", False, "t"),
            claims._row("Figure 5", "figure5", "", "n/a", None, "")]
    frame = claims.claims_frame(rows)
    assert list(frame["holds"]) == ["no", "n/a"]
    text = claims.claims_markdown(rows)
    assert text.splitlines()[0].startswith("| figure | the paper says") and "| Figure 6b |" in text


# ---------------------------------------------------------------- the targets, on the slice


@pytest.mark.slow
@pytest.mark.parametrize("target", ["schemes", "projection-size", "forest-projection-size", "forest-randomization",
                                    "forest-schemes"])
def test_every_delicious_target_runs_quick_on_the_slice_with_its_claims(tmp_path, target):
    assert cli.main(["reproduce", target, "--quick", "--out", str(tmp_path)]) == 0
    table = pd.read_csv(tmp_path / f"{target}_claims.csv")
    assert len(table) >= 1 and set(table["holds"]) <= {"yes", "no", "n/a"}
    assert set(table["claim"]) <= set(DELICIOUS_CLAIMS.values())
    assert (table["ours"].str.len() > 0).all()
    assert "| figure |" in (tmp_path / f"{target}_claims.md").read_text()
    data = json.loads((tmp_path / f"{target}.json").read_text())
    results = data["results"]
    if target.startswith("forest"):
        result = results["delicious"]
        assert result["dataset"] == DELICIOUS_SLICE and result["params"]["n_estimators"] == FOREST_SIZES["quick"][
            "n_estimators"]
        assert data["settings"]["size"] == "quick"
        scores = [r["score"] for r in result["records"]]
        assert all(0 < s <= 1 for s in scores)                  # LRAP, every fit scored
    elif target == "schemes":
        result = results["delicious"]
        params = result["params"]
        assert (params["loss"], params["max_leaf_nodes"], params["learning_rate"], params["max_features"]) == (
            "logistic", 2, 0.1, None)                           # the paper's k = p, stumps, mu = 0.1, logistic
        assert params["n_steps"] == BOOSTING_SIZES["quick"]["figure3_steps"] and result["dataset"] == DELICIOUS_SLICE
        assert {c["name"] for c in result["curves"]} == set(claims.SCHEME_ESTIMATORS.values())
        assert "friedman1-ind" in results
    else:
        assert {"figure5_gaussian", "figure5_subsample", "figure6", "friedman1-group_gaussian"} <= set(results)
        six = results["figure6"]
        assert six["n_steps"] == BOOSTING_SIZES["quick"]["figure6_steps"] and six["dataset"] == DELICIOUS_SLICE
        assert six["q_values"] == list(BOOSTING_SIZES["quick"]["figure6_q"])
        assert six["params"]["loss"] == "logistic" and six["params"]["leaf_estimation"] == "mean"
        assert set(table["figure"]) == {"Figure 5 (gaussian)", "Figure 5 (subsample)", "Figure 6a", "Figure 6b"}
        five = results["figure5_gaussian"]
        assert five["params"]["n_eval_points"] == BOOSTING_SIZES["quick"]["figure5_eval_points"]
        scored = [np.isfinite(np.array(c["test_score"], float)).sum() for c in five["curves"]]
        assert min(scored) >= 10                                # denser than the default grid


def test_sizes_and_the_budget_option(tmp_path, capsys):
    assert size_of(True, None) == "quick" and size_of(False, None) == "full" and size_of(False, "paper") == "full"
    assert size_of(False, "moderate") == "moderate"
    with pytest.raises(ValueError, match="budget must be one of"):
        size_of(False, "huge")
    for args, message in ((["forest-schemes", "--budget", "moderate", "--quick"], "exclude each other"),
                          (["schemes", "--budget", "quick", "--quick"], "exclude each other"),
                          (["figure1", "--budget", "moderate"], "--budget only applies")):
        with pytest.raises(SystemExit) as exc:
            cli.main(["reproduce", *args, "--out", str(tmp_path)])
        assert exc.value.code == 2 and message in capsys.readouterr().err
    # the papers' settings: delicious itself (never the slice) at every size but quick
    assert {BOOSTING_SIZES[s]["dataset"] for s in ("moderate", "full")} == {"delicious"}
    assert {FOREST_SIZES[s]["dataset"] for s in ("moderate", "full")} == {"delicious"}
    assert FOREST_SIZES["full"]["n_estimators"] == 100 and FOREST_SIZES["full"]["n_repeats"] == 10
    assert BOOSTING_SIZES["full"]["figure5_q"] == (1, 98, 196, 491) and BOOSTING_SIZES["full"]["figure6_steps"] == 100


def test_claims_for_picks_the_claims_of_each_kind_of_result():
    size = _size([1, 20, 50], [0.28, 0.295, 0.301], [1.0, 1.4, 3.0], [0.2] * 3)
    assert [r["figure"] for r in claims.claims_for(size)] == ["Figure 6a", "Figure 6b", "Figure 5 (gaussian)"]
    assert [r["figure"] for r in claims.claims_for(_schemes([0.1, 0.2], [0.1, 0.1]))] == ["Figure 3"]
    sweep = _sweep("schemes", "q", [(FOREST_REF, None, 0.3), ("Gaussian", 1, 0.29)], ["Gaussian", FOREST_REF])
    assert [r["figure"] for r in claims.claims_for(sweep)] == ["Figure 5.4"]
    assert claims.claims_for(object()) == []
