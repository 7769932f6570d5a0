"""python -m engine.bench --multilabel on a small slice: its table, its scores, its targets.

No timing is asserted (speed is what the benchmark reports): the tests hold
the bookkeeping (every system and setting has a row with a finite score), the
fast staged LRAP against the project's LRAP, and the target's arithmetic.
"""
import io

import numpy as np
import pytest
from sklearn.metrics import label_ranking_average_precision_score

from engine.bench import multilabel as bm
from engine.bench.__main__ import main
from engine.datasets import load_dataset
from engine.metrics import lrap

PEERS = {"multilabel": [("XGBoost one_output_per_tree", "depth 6"), ("XGBoost one_output_per_tree", "depth 3"),
                        ("XGBoost multi_output_tree", "depth 6"), ("XGBoost multi_output_tree", "depth 3"),
                        ("LightGBM, a model per label", "31 leaves"),
                        ("sklearn HistGradientBoostingClassifier, a model per label", "31 leaves")],
         "regression": [("XGBoost one_output_per_tree", "depth 6"), ("XGBoost one_output_per_tree", "depth 3"),
                        ("XGBoost multi_output_tree", "depth 6"), ("XGBoost multi_output_tree", "depth 3"),
                        ("LightGBM, a model per label", "31 leaves"),
                        ("sklearn HistGradientBoostingRegressor, a model per label", "31 leaves")]}


def expected_engine_rows(task):
    losses = ("logistic", "squared_error") if task == "multilabel" else ("squared_error", "absolute_error")
    leaf_values = ("mean", "newton")
    return {(f"engine {name}", loss, leaf, f"{leaves} leaves", 0.3)
            for name in ("st-gbrt", "gbmort", "gbrt-rpo-gaussian", "gbrt-relabel-rpo-gaussian")
            for loss in losses for leaf in leaf_values for leaves in (8, 32)}


@pytest.mark.slow
def test_quick_run_has_a_row_with_a_score_for_every_system_and_setting(tmp_path, monkeypatch):
    monkeypatch.setattr(bm, "QUICK_DEFAULTS_BUDGET_SECONDS", 2.0)      # CatBoost's default fit: stopped
    out = io.StringIO()
    results = bm.run(datasets=("bibtex", "scm20d"), quick=True, out=out, html_dir=tmp_path, progress=None)
    text = out.getvalue()
    assert list(results) == ["bibtex", "scm20d"]
    for name, task in (("bibtex", "multilabel"), ("scm20d", "regression")):
        curves = results[name]["curves"]
        engine = {c.key for c in curves if c.system.startswith("engine ")}
        peers = [(c.system, c.tree) for c in curves if not c.system.startswith("engine ")]
        # only the second-order leaves may be refused for a strategy (issue 24 allows gbrt-rpo to refuse them)
        refused = {key for key, _ in results[name]["refused"]}
        assert all(key[2] == "newton" for key in refused)
        assert engine == expected_engine_rows(task) - refused
        assert peers == PEERS[task]
        assert len(curves) == len(engine) + len(peers)
        for c in curves:
            assert 1 <= c.steps == len(c.seconds) <= 5
            assert np.isfinite(c.scores).all() and np.isfinite(c.best)
            assert np.all(np.diff(c.seconds) >= 0)
        # L is the best score of XGBoost's defaults; the table prints it and a target line
        reference = curves[0]
        assert results[name]["level"] == pytest.approx(reference.best - bm.TOLERANCE)
        assert results[name]["target"] is not None
    # one table row per curve (the header row and the separator aside), each with its score
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 11
            and not line.startswith(("| system", "| data", "| bibtex |", "| scm20d |"))]
    assert len(rows) == sum(len(r["curves"]) for r in results.values())
    # many labels: the extreme-classification peers' section (issue 46), on bibtex only
    assert results["scm20d"]["extreme"] is None
    xmc = results["bibtex"]["extreme"]
    if xmc["missing"]:
        assert "napkinXC: not installed" in text or "Omikuji: not installed" in text
    else:
        assert "bibtex: every curve's final test P@1 and P@5" in text
        assert "| napkinXC PLT, defaults |" in text and "| Omikuji Bonsai, Bonsai's settings" in text
    for c in results["bibtex"]["curves"]:
        assert c.precision.shape == (c.steps, 2) and ((c.precision >= 0) & (c.precision <= 1)).all()
    for r in results.values():
        for c in r["curves"]:
            ms = f"{c.ms_per_step:.1f}" + ("" if c.comparable else " (extrapolated)")   # not a measured time
            assert f"| {c.learning_rate:g} | {c.steps} | {ms} | {c.best:.4f} ({c.best_step}) |" in text
    assert text.count("target (the fastest engine setting reaches L - 0.005") == 2
    assert "at most 5 at learning rate 0.3" in text
    # the scikit-learn rows of the multi-label set are fitted on 2 of the 20 labels: scaled, not comparable
    sk = results["bibtex"]["curves"][5]
    assert not sk.comparable and sk.seconds_to(-np.inf) is None
    assert "timed on 2 of 20 labels, x 10.0" in sk.notes[0]
    assert bm._seconds_text(sk) == f"{sk.seconds[-1]:.1f} s (extrapolated: timed on 2 of 20 labels, x 10.0)"
    html = (tmp_path / "multilabel.html").read_text()
    assert "plotly" in html.lower() and "scm20d" in html and "bibtex" in html


def test_staged_lrap_equals_the_projects_lrap_and_scikit_learns():
    rng = np.random.default_rng(0)
    Y = (rng.random((200, 12)) < 0.2).astype(float)
    Y[0] = 0.0          # no true label: scores 1
    Y[1] = 1.0          # every label true: scores 1
    for scores in (rng.normal(size=Y.shape), np.round(rng.normal(size=Y.shape)), np.zeros(Y.shape)):
        fast = bm.StagedLRAP(Y)(scores)
        assert fast == pytest.approx(lrap(Y, scores), abs=1e-12)
        assert fast == pytest.approx(label_ranking_average_precision_score(Y, scores), abs=1e-12)


def _curve(system, seconds, scores, tree="depth 6"):
    return bm.Curve(system, "logistic", "newton", tree, 0.3, np.asarray(seconds, float), np.asarray(scores, float))


@pytest.mark.parametrize("engine_seconds, met", [(1.4, True), (1.5, True), (1.6, False)])
def test_target_compares_the_fastest_engine_curve_with_half_of_xgboosts_time(engine_seconds, met):
    reference = _curve("XGBoost one_output_per_tree", [1.0, 2.0, 3.0], [0.5, 0.6, 0.7])
    slow = _curve("engine gbmort", [1.0, 5.0], [0.5, 0.7], tree="8 leaves")
    fast = _curve("engine gbrt-rpo-gaussian", [engine_seconds / 2, engine_seconds], [0.69, 0.698],
                  tree="32 leaves")
    level = reference.best - bm.TOLERANCE
    assert reference.seconds_to(level) == 3.0 and slow.seconds_to(level) == 5.0
    t = bm.target([reference, slow, fast], level)
    assert t["met"] is met and t["fastest"] is fast and t["engine_seconds"] == engine_seconds
    text = bm.target_text(dict(target=t, level=level))
    assert ("met:" if met else "MISSED:") in text and f"{engine_seconds:.2f} s" in text


def test_a_target_no_engine_setting_reaches_is_missed_with_the_best_score():
    reference = _curve("XGBoost one_output_per_tree", [1.0, 2.0], [0.5, 0.6])
    engine = _curve("engine gbmort", [0.1, 0.2], [0.55, 0.58], tree="8 leaves")
    level = reference.best - bm.TOLERANCE
    t = bm.target([reference, engine], level)
    assert t["met"] is False and t["fastest"] is None
    assert "MISSED: no engine setting reaches 0.5950 (the best: 0.5800, engine gbmort" in bm.target_text(
        dict(target=t, level=level))


def test_the_command_line_runs_the_multilabel_benchmark(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(bm, "run", lambda **kwargs: calls.append(kwargs) or {})
    assert main(["--multilabel", "--quick", "--out", str(tmp_path), "--datasets", "scm20d"]) == 0
    assert calls == [dict(datasets=("scm20d",), quick=True, html_dir=str(tmp_path))]
    assert main(["--multilabel"]) == 0
    assert calls[-1] == dict(datasets=bm.DATASETS, quick=False, html_dir=None)
    with pytest.raises(SystemExit):
        main(["--multilabel", "--scale"])
    assert main(["--multilabel", "--datasets", "delicious", "bibtex"]) == 0
    assert calls[-1] == dict(datasets=("delicious", "bibtex"), quick=False, html_dir=None)
    assert "delicious" in bm.DATASETS
    with pytest.raises(SystemExit):
        main(["--multilabel", "--datasets", "synthetic-delicious-shape"])


def test_a_per_label_model_that_stops_early_keeps_its_last_scores_for_the_other_rounds():
    # LightGBM stops when no split helps: here after one round on the label of constant inputs
    rng = np.random.default_rng(0)
    X = np.zeros((60, 3))
    X[:30] = rng.random((30, 3))
    Y = np.zeros((60, 2))
    Y[:30, 0] = rng.random(30) < 0.5
    Y[30:, 1] = rng.random(30) < 0.5          # label 1 only varies where X is constant
    Y[30, 1], Y[31, 1] = 0.0, 1.0
    problem = bm.Problem("toy", "multilabel", X[30:], Y[30:], X, Y, "toy")
    seconds, raw = bm.lightgbm_label(problem, 1, 0.1, 10)
    assert len(raw) < 10                      # it did stop early
    curve = bm.per_label_curve(problem, "LightGBM, a model per label", bm.lightgbm_label, [0, 1], 0.1, 10)
    assert curve.steps == 10 and np.isfinite(curve.scores).all() and np.all(np.diff(curve.seconds) >= 0)


@pytest.mark.slow
def test_logistic_step_bench_times_both_losses_of_every_setting():
    # python -m engine.bench --logistic-step on a slice of bibtex: a row per strategy and tree
    # size with three positive times (logistic, square, logistic with Newton leaves) and the
    # ratio of the first two (not the timings themselves).
    from engine.bench import logistic_step
    from engine.datasets import load_dataset

    X, Y, _, _ = load_dataset("bibtex").train_test_split()
    rows = logistic_step.step_ratios(X[:200], Y[:200, :12], steps=3, repeats=1)
    assert [(name, leaves) for name, leaves, *_ in rows] == [
        (name, leaves) for name in logistic_step.STRATEGIES for leaves in logistic_step.LEAVES]
    for name, _, logistic, square, ratio, newton in rows:
        assert logistic > 0 and square > 0 and ratio == pytest.approx(logistic / square)
        assert (newton is None) == (name == "gbrt-rpo-gaussian") and (newton is None or newton > 0)


def test_logistic_step_is_its_own_benchmark():
    with pytest.raises(SystemExit):
        main(["--logistic-step", "--multilabel"])


@pytest.mark.slow
def test_delicious_slice_runs_every_system_on_the_papers_wide_set():
    # issue 33: the real delicious beside bibtex and corel5k. A slice (1000 training rows, 300 test
    # rows, the 100 most frequent of its 983 tags), 3 steps / rounds: the bookkeeping, not the speed.
    problem = bm.load_problem("delicious", max_rows=1000, max_test_rows=300, max_outputs=100)
    assert problem.task == "multilabel" and problem.metric == "test LRAP"
    assert problem.X.shape == (1000, 500) and problem.X_test.shape == (300, 500)
    assert problem.Y.shape == (1000, 100) and problem.Y_test.shape == (300, 100)
    assert problem.X.format == "csr" and problem.X_test.format == "csr"    # never densified
    assert "standard split 12920/3185, sliced to 1000/300 rows and 100 outputs" in problem.split
    # the 100 most frequent tags in the training rows, kept in column order
    full = load_dataset("delicious")
    counts = full.Y[:1000].sum(axis=0)
    assert problem.Y.sum(axis=0).min() >= np.sort(counts)[-100]
    plan = bm.Plan(learning_rates=(0.3,), step_caps={0.3: 3}, leaves=(8,), peer_rounds=3, sklearn_labels=2,
                   budget=5.0, per_label_budget=5.0, defaults_budget=None)     # the default fits: tested below
    result = bm.run_problem(problem, plan, progress=None)
    curves = result["curves"]
    engine = {c.key for c in curves if c.system.startswith("engine ")}
    refused = {key for key, _ in result["refused"]}
    assert all(key[2] == "newton" for key in refused)
    assert engine == {key for key in expected_engine_rows("multilabel") if key[3] == "8 leaves"} - refused
    assert [(c.system, c.tree) for c in curves if not c.system.startswith("engine ")] == PEERS["multilabel"]
    for c in curves:
        assert 1 <= c.steps == len(c.seconds) <= 3
        assert np.isfinite(c.scores).all() and 0.0 < c.best <= 1.0
    assert result["level"] == pytest.approx(curves[0].best - bm.TOLERANCE)
    assert result["defaults"] is None
    out = io.StringIO()
    bm.print_table(problem, result, out)
    assert "## delicious: 1000 x 500 (CSR" in out.getvalue() and "100 labels" in out.getvalue()
    assert "defaults against defaults" not in out.getvalue()


DEFAULT_SYSTEMS = ["engine, the estimator's defaults", "XGBoost", "CatBoost", "LightGBM, a model per label"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bibtex", "scm20d"])
def test_defaults_against_defaults_row_fits_every_system_as_a_practitioner_gets_it(name):
    """The "defaults against defaults" row of --multilabel (issue 34) with the real peers on a tiny
    slice: a row per system, the engine's row is a fresh default fit (scored by scikit-learn's
    LRAP / r2 as the oracle), a peer's row is stopped (and then says so) or complete, and the
    target lines against XGBoost and CatBoost follow, UNDECIDED for a stopped peer."""
    from sklearn.metrics import r2_score

    from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

    problem = bm.load_problem(name, max_rows=120, max_test_rows=80, max_outputs=4)
    plan = bm.Plan(learning_rates=(0.3,), step_caps={0.3: 2}, leaves=(8,), strategies=("gbmort",),
                   peer_rounds=2, sklearn_labels=2, defaults_budget=2.0)
    result = bm.run_problem(problem, plan, progress=None)
    rows, verdicts = result["defaults"]
    assert [r[:2] for r in rows] == [(name, system) for system in DEFAULT_SYSTEMS]
    multilabel = problem.task == "multilabel"
    cls = MultiLabelBoostingClassifier if multilabel else MultiOutputBoostingRegressor
    fresh = cls(random_state=0).fit(problem.X, problem.Y)
    if multilabel:
        expected = label_ranking_average_precision_score(problem.Y_test, fresh.decision_function(problem.X_test))
    else:
        expected = r2_score(problem.Y_test, fresh.predict(problem.X_test))
    assert rows[0][2] == pytest.approx(expected, abs=1e-12)
    assert rows[0][4] == fresh.n_steps_ == 300             # 120 rows: "auto" early stopping is off
    # the peers' default rounds (LightGBM: its models, one per label)
    full_rounds = {"XGBoost": 100, "CatBoost": 1000, "LightGBM, a model per label": 4}
    for _, system, score, seconds, rounds, note in rows[1:]:
        assert np.isfinite(score) and seconds > 0
        assert note in ("", "stopped after 2 s")
        assert rounds == full_rounds[system] if note == "" else rounds <= full_rounds[system]
        assert rounds == full_rounds[system] or note == "stopped after 2 s"
    assert [v[:2] for v in verdicts] == [(name, "XGBoost"), (name, "CatBoost")]
    for (_, peer, met, text), row in zip(verdicts, rows[1:3]):
        assert (met is None) == (row[5] != "") and ("UNDECIDED" in text) == (met is None)
    out = io.StringIO()
    bm.print_table(problem, result, out)
    text = out.getvalue()
    assert f"### {name}: defaults against defaults" in text
    assert sum(line.startswith(f"| {name} | ") for line in text.splitlines()) == 4
    assert f"- {name} against XGBoost: engine {rows[0][2]:.4f}" in text
    assert f"- {name} against CatBoost" in text
