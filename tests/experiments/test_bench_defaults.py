"""python -m engine.bench --defaults --quick on tiny slices: both tables, the marked default row,
the peers' rows and the target lines.

No score or time is asserted (the full study, `python -m engine.bench --defaults`, measures
them); the tests hold the bookkeeping, and that the study's row of the current defaults is the
estimators' defaults.
"""
import numpy as np
import pytest

from engine.bench import defaults as bd
from engine.bench.__main__ import main
from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.registry import make_estimator

DEFAULT_ROW = "relabel-rpo gaussian q=1, 32 leaves, Newton, lr 0.1, 300 steps, early stopping auto"
PAPERS_ROW = "papers: gbmort, stumps, mean leaves, lr 0.1, 100 steps"


def test_the_study_marks_the_estimators_defaults_and_the_papers_row_is_make_estimators():
    for task in ("multilabel", "regression"):
        assert [label for label, p in bd.CANDIDATES.items() if bd.is_current_default(p, task)] == [DEFAULT_ROW]
    assert list(bd.quick_candidates()) == [PAPERS_ROW, DEFAULT_ROW]
    # the papers' row is what make_estimator("gbmort") fits
    papers = make_estimator("gbmort").get_params()
    row = bd.CANDIDATES[PAPERS_ROW]
    assert {k: papers[k] for k in row} == {**row, "projection": "subsample"}


def test_only_the_row_of_the_defaults_is_marked():
    """A setting that is not one of CANDIDATES (a caller's own) is never marked as the default."""
    own = {"mine": dict(bd.CANDIDATES[DEFAULT_ROW], min_samples_leaf=5)}
    results = {("mine", "emotions"): (0.8, 1.0, 300), (DEFAULT_ROW, "emotions"): (0.8, 1.0, 300)}
    table = bd.study_table(results, ["emotions"], {"emotions": "multilabel"})
    marked = [line for line in table.splitlines() if "default)**" in line]
    assert len(marked) == 1 and marked[0].startswith(f"| {DEFAULT_ROW} **(the multilabel default)**")
    assert not bd.is_current_default(own["mine"], "multilabel")


@pytest.mark.slow
def test_quick_run_prints_both_tables(monkeypatch, capsys):
    # tiny slices: three small data sets in the study, 40 rows and 3 labels against the peers
    monkeypatch.setattr(bd, "QUICK_ROWS", 40)
    monkeypatch.setattr(bd, "QUICK_OUTPUTS", 3)
    monkeypatch.setattr(bd, "QUICK_PEER_BUDGET_SECONDS", 3.0)
    monkeypatch.setattr(bd, "shipped_sets",
                        lambda: (["emotions", "flags", "enb"],
                                 {"emotions": "multilabel", "flags": "multilabel", "enb": "regression"}))
    fits = []
    real_fit = bd.engine_fit
    monkeypatch.setattr(bd, "engine_fit", lambda problem, params=None: fits.append(
        (problem.name, problem.X.shape[0], params)) or real_fit(problem, params))
    status = main(["--defaults", "--quick"])
    text = capsys.readouterr().out
    assert status in (0, 1)
    study, against = text.split("Defaults against defaults")
    rows = [line for line in study.splitlines() if line.startswith("| ") and not line.startswith("| setting")]
    assert len(rows) == 2
    assert rows[0].startswith(f"| {PAPERS_ROW} |")
    assert rows[1].startswith(f"| {DEFAULT_ROW} **(the multilabel, regression default)** |")
    for row in rows:
        assert row.count(" s)") == 3                    # a score (seconds) cell per data set
    # the study fits both candidates on the three sets, defaults against defaults the bare defaults
    assert [(name, n) for name, n, _ in fits[:6]] == [(n, 40) for n in ("emotions",) * 2 + ("flags",) * 2 + ("enb",) * 2]
    assert fits[-1] == ("bibtex", 40, None)
    table = [line for line in against.splitlines() if line.startswith("| bibtex |")]
    assert [line.split(" | ")[1] for line in table] == [
        "engine, the estimator's defaults", "XGBoost", "CatBoost", "LightGBM, a model per label"]
    assert np.isfinite(float(table[0].split(" | ")[2]))
    targets = [line for line in against.splitlines() if line.startswith("- bibtex against ")]
    assert [t.split(":")[0] for t in targets] == ["- bibtex against XGBoost", "- bibtex against CatBoost"]
    assert status == (1 if any(t.endswith(": MISSED") for t in targets) else 0)


def test_a_stopped_peer_leaves_the_target_undecided():
    met = bd._verdict("bibtex", "CatBoost", 0.6, 2.0, 0.3, 600.0, stopped=True)
    assert met[2] is None and "UNDECIDED" in met[3]
    assert bd._verdict("bibtex", "CatBoost", 0.6, 2.0, 0.3, 600.0, stopped=False)[2] is True
    assert bd._verdict("bibtex", "XGBoost", 0.58, 2.0, 0.59, 19.0, stopped=False)[2] is False
    assert bd._verdict("bibtex", "XGBoost", 0.6, 10.0, 0.59, 19.0, stopped=False)[2] is False


def test_engine_fit_with_no_params_fits_the_defaults():
    problem = bd.load_problem("emotions", max_rows=50, max_test_rows=50)
    score, seconds, steps = bd.engine_fit(problem)
    assert steps == MultiLabelBoostingClassifier().n_estimators == 300   # 50 rows: no early stopping
    assert 0 < score <= 1 and seconds > 0
    assert bd.estimator_class("regression") is MultiOutputBoostingRegressor


@pytest.mark.slow
def test_catboost_leaves_a_label_with_one_class_out_of_its_fit():
    """CatBoost's MultiLogloss refuses a label seen with one class ("All train targets are equal",
    3 of corel5k's labels): the default fit leaves it out and scores it at its clipped log-odds, the
    row's LRAP is the one of those raw scores (label 2 ranked last, with every other label of a row
    ranked above it, so it does not change the ranking of the labels that vary)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 3))
    Y = np.column_stack([X[:, 0] > 0.5, X[:, 1] > 0.4, np.zeros(80)]).astype(float)
    problem = bd.load_problem("emotions", max_rows=1)          # a Problem to fill in
    problem = type(problem)("toy", "multilabel", X[:60], Y[:60], X[60:], Y[60:], "toy")
    score, seconds, rounds, stopped = bd.catboost_default(problem, budget=5.0)
    assert 0.0 < score <= 1.0 and seconds > 0 and rounds >= 1
    two = type(problem)("toy", "multilabel", X[:60], Y[:60, :2], X[60:], Y[60:, :2], "toy")
    score_two, _, rounds_two, stopped_two = bd.catboost_default(two, budget=5.0)
    if not (stopped or stopped_two):                  # both fits complete: the same model on labels 0, 1
        assert rounds == rounds_two and score == pytest.approx(score_two, abs=1e-12)
