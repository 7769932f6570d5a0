"""engine.experiments.model_selection: protocol of paper 002 section 4.1.2 on tiny budgets."""
import json
import threading

import numpy as np
import pytest

import engine.experiments.model_selection as ms
from engine.estimators.artificial import ArtificialGBRT
from engine.experiments import published
from engine.reports import reproduce
from engine.experiments.selection_tables import benchmark_frame
from selection_calls import select
from engine.experiments.published import PAPER_TABLE4

TINY = dict(learning_rate=(0.5, 0.2), max_leaf_nodes=(2, 3), max_features=(1.0,), n_steps=30)
NAMES = ["artificial-gbrt", "st-gbrt", "gbmort", "gbrt-rpo-subsampled"]


@pytest.fixture(scope="module")
def chain_result():
    return select("friedman1-chain", NAMES, budget=TINY, n_repeats=3, seed=1)


@pytest.mark.slow
def test_quick_budget_runs_and_summaries(chain_result):
    res = chain_result
    assert res.scores.shape == (4, 3) and np.isfinite(res.scores).all()
    assert res.metric == "macro-r2" and res.n_train == 300 and res.n_test == 4000 and res.n_validation == 60
    np.testing.assert_allclose(res.mean, res.scores.mean(axis=1))
    np.testing.assert_allclose(res.std, res.scores.std(axis=1, ddof=1))
    # Ranks follow the means (1 = best).
    order = np.argsort(-res.mean, kind="stable")
    assert sorted(res.ranks) == [1, 2, 3, 4]
    assert list(res.ranks[order]) == sorted(res.ranks)
    # p-values: symmetric, NaN diagonal, in [0, 1]; signs antisymmetric.
    P = res.pvalues
    assert np.isnan(np.diag(P)).all()
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(P[off], P.T[off])
    assert ((P[off] >= 0) & (P[off] <= 1)).all()
    for i in range(4):
        for k in range(4):
            if i != k:
                assert {res.signs[i][k], res.signs[k][i]} == {">", "<"}
                assert (res.signs[i][k] == ">") == (res.mean[i] > res.mean[k])
    # Chosen hyper-parameters come from the grid; steps within the budget.
    for name in NAMES:
        assert len(res.chosen[name]) == 3
        for c in res.chosen[name]:
            assert c["learning_rate"] in (0.5, 0.2) and c["max_leaf_nodes"] in (2, 3)
            assert c["max_features"] == 5 and c["loss"] == "squared_error"
            assert 1 <= c["n_steps"] <= 30
    assert res.total_time > 0 and not res.partial
    frame = res.to_frame()
    assert list(frame["estimator"]) == NAMES and set(frame["rank"]) == {1, 2, 3, 4}
    pv = res.pvalue_frame()
    assert pv.shape == (4, 4) and pv.iloc[0, 0] == ""
    data = json.loads(res.to_json())
    assert data["pvalues"][0][0] is None and data["n_repeats_done"] == 3


@pytest.mark.slow
def test_deterministic(chain_result):
    again = select("friedman1-chain", NAMES, budget=TINY, n_repeats=3, seed=1)
    np.testing.assert_array_equal(again.scores, chain_result.scores)
    assert again.chosen == chain_result.chosen
    other = select("friedman1-chain", NAMES[:2], budget=TINY, n_repeats=3, seed=2)
    assert not np.array_equal(other.scores, chain_result.scores[:2])


@pytest.mark.slow
def test_n_jobs_invariant(chain_result):
    par = select("friedman1-chain", NAMES, budget=TINY, n_repeats=3, seed=1, n_jobs=2)
    np.testing.assert_array_equal(par.scores, chain_result.scores)


def test_selection_never_sees_the_test_set(monkeypatch):
    """Selection reads the validation curve only: garbage test outputs change the
    test scores but not one chosen hyper-parameter or number of steps."""
    real_splits = ms.make_splits

    def garbage_splits(*args):
        reps, *rest = real_splits(*args)
        for rep in reps:
            rep["Y_test"] = np.random.default_rng(0).normal(size=rep["Y_test"].shape) * 100
        return (reps, *rest)

    kw = dict(budget=TINY, n_repeats=2, seed=5)
    ref = select("group", ["gbmort", "gbrt-rpo-subsampled"], **kw)
    monkeypatch.setattr(ms, "make_splits", garbage_splits)
    bad = select("group", ["gbmort", "gbrt-rpo-subsampled"], **kw)
    assert bad.chosen == ref.chosen
    assert (bad.scores < 0.1).all() and (ref.scores > 0.5).all()


def test_chosen_steps_maximise_the_validation_curve():
    """The chosen step is the argmax of the held-out curve of the chosen grid point."""
    rep = ms.make_splits(ms.selection_problem("friedman1-group"), 2, 3)[0][0]
    X_fit, Y_fit = rep["X_train"][rep["fit"]], rep["Y_train"][rep["fit"]]
    X_val, Y_val = rep["X_train"][rep["val"]], rep["Y_train"][rep["val"]]
    config = dict(learning_rate=0.5, max_leaf_nodes=2, max_features=5, loss="squared_error")
    score, steps = ms.evaluate_configuration("gbmort", "regression", "group", 16, config, 40, rep["random_state"],
                                X_fit, Y_fit, X_val, Y_val)
    est = ms.make_method("gbmort", "regression", "group", 16, dict(config, n_estimators=40,
                                                              random_state=rep["random_state"]))
    est.fit(X_fit, Y_fit)
    curve = [ms.macro_r2(Y_val, F) for F in est.staged_predict(X_val)]
    assert steps == int(np.argmax(curve)) + 1
    assert score == pytest.approx(max(curve), abs=1e-10)


def test_artificial_gbrt_oracle():
    from engine.datasets import make_friedman1_multioutput
    X, Y, _ = make_friedman1_multioutput("group", n_samples=200, n_outputs=4, n_noisy_outputs=2, random_state=0)
    model = ArtificialGBRT("group", 4, n_estimators=20, learning_rate=0.5).fit(X, Y, eval_set=(X[:50], Y[:50]))
    P = model.predict(X)
    assert P.shape == (200, 6)
    np.testing.assert_allclose(P[:, :4], np.repeat(P[:, :1], 4, axis=1))
    np.testing.assert_allclose(P[:, 4:], np.tile(Y[:, 4:].mean(axis=0), (200, 1)))
    assert model.eval_score_.shape == (20,)
    assert model.eval_score_[-1] == pytest.approx(ms.macro_r2(Y[:50], model.predict(X[:50])))
    chain = ArtificialGBRT("chain", 4, n_estimators=5).fit(X, Y)
    assert chain.inner_.n_outputs_ == 1


@pytest.mark.slow
def test_noisy_outputs_half_macro_r2():
    res = select("friedman1-ind", ["st-gbrt", "gbmort"], budget=TINY, n_repeats=2,
                              n_noisy_outputs=16, seed=0)
    assert res.half_scores.shape == (2, 2)
    # Noisy outputs cannot be predicted: the full macro-r2 is about half the original half's.
    assert (res.scores < 0.6 * res.half_scores + 0.05).all()
    assert "half_mean" in res.to_frame().columns


def test_multilabel_dataset_lrap():
    res = select("emotions", ["gbmort"], n_repeats=2,
                              budget=dict(learning_rate=(0.5,), max_leaf_nodes=(2,), n_steps=20))
    assert res.metric == "lrap" and res.task == "multilabel"
    assert (res.scores > 0.5).all() and (res.scores <= 1).all()
    assert res.chosen["gbmort"][0]["loss"] == "logistic"


def test_stop_returns_partial():
    stop = threading.Event()
    calls = []

    def progress(frac, msg):
        calls.append(frac)
        if "repeat 1/4 done" in msg:
            stop.set()

    res = select("group", ["gbmort"], budget=TINY, n_repeats=4, progress=progress, stop=stop)
    assert res.partial and res.n_repeats_done == 1 and res.scores.shape == (1, 1)
    assert np.isnan(res.pvalues).all()
    assert all(0 <= f <= 1 for f in calls) and calls == sorted(calls)


def test_paper_numbers_hard_coded():
    assert PAPER_TABLE4["friedman1-chain"]["artificial-gbrt"] == (0.654, 0.015, 1)
    assert PAPER_TABLE4["friedman1-ind"]["gbmort"] == (0.644, 0.010, 5)
    frame = published.table4_paper_frame()
    assert len(frame) == 15 and set(frame["paper_rank"]) == {1, 2, 3, 4, 5}


@pytest.mark.slow
def test_reproduce_table4_writes_files(tmp_path, monkeypatch):
    monkeypatch.setitem(ms.BUDGETS, "quick", dict(TINY, loss="primary"))
    monkeypatch.setattr(reproduce, "N_JOBS", 1)   # no worker start-up in a test
    paths = reproduce.reproduce_table4(tmp_path, quick=True, seed=0, progress=None)
    names = {p.name for p in paths}
    assert {"table4.csv", "table4_summary.csv", "table4.json", "table4.html"} <= names
    import pandas as pd
    df = pd.read_csv(tmp_path / "table4_summary.csv")
    assert len(df) == 15 and df["paper_mean"].notna().all()
    assert "plotly" in (tmp_path / "table4.html").read_text()[:100000].lower()


@pytest.mark.parametrize("args, kwargs, word", [
    (("nope", ["gbmort"]), {}, "dataset"),
    (("chain", []), {}, "estimators"),
    (("chain", ["catboost"]), {}, "estimators"),
    (("chain", ["gbmort", "gbmort"]), {}, "twice"),
    (("emotions", ["artificial-gbrt"]), {}, "artificial"),
    (("chain", ["gbmort"]), dict(budget="huge"), "budget"),
    (("chain", ["gbmort"]), dict(budget=dict(depth=3)), "budget"),
    (("chain", ["gbmort"]), dict(budget=dict(learning_rate=())), "learning_rate"),
    (("chain", ["gbmort"]), dict(budget=dict(loss="logistic")), "loss"),
    (("chain", ["gbmort"]), dict(budget=dict(max_features=(2.0,))), "max_features"),
    (("chain", ["gbmort"]), dict(n_repeats=1), "n_repeats"),
    (("chain", ["gbmort"]), dict(n_jobs=0), "n_jobs"),
    (("emotions", ["gbmort"]), dict(n_noisy_outputs=3), "n_noisy_outputs"),
    (("chain", ["gbmort"]), dict(progress="yes"), "progress"),
    (("chain", ["gbmort"]), dict(stop=object()), "stop"),
    (("chain", ["gbmort"]), dict(report_partial="yes"), "report_partial"),
])
def test_bad_input(args, kwargs, word):
    with pytest.raises(ValueError, match=word):
        select(*args, **kwargs)


def _recording(monkeypatch):
    """Keep every estimator the protocol builds."""
    built = []
    make = ms.make_method

    def recording_make(*args, **kwargs):
        est = make(*args, **kwargs)
        built.append(est)
        return est
    monkeypatch.setattr(ms, "make_method", recording_make)
    return built


def test_stop_on_the_first_report_ends_the_fit_in_progress(monkeypatch):
    """A 10000-step grid fit stops within a chunk of steps (counted in steps, not seconds)."""
    built = _recording(monkeypatch)
    stop = threading.Event()
    seen = []

    def progress(frac, msg):
        seen.append(msg)
        stop.set()

    budget = dict(learning_rate=(0.1,), max_leaf_nodes=(2, 3), max_features=(1.0,), n_steps=10_000)
    res = select("group", ["gbmort", "st-gbrt"], budget=budget, n_repeats=3, progress=progress,
                              stop=stop)
    assert res.partial and res.n_repeats_done == 0 and res.scores.shape == (2, 0)
    assert len(built) == 1 and 1 <= built[0].n_steps_ <= 16
    assert len(seen) == 1 and "step" in seen[0]


def test_stop_during_the_refit_drops_the_repeat(monkeypatch):
    built = _recording(monkeypatch)
    stop = threading.Event()

    def progress(frac, msg):
        if "refit" in msg:
            stop.set()

    budget = dict(learning_rate=(0.01,), max_leaf_nodes=(2,), max_features=(1.0,), n_steps=2000)
    res = select("group", ["gbmort", "gbrt-rpo-subsampled"], budget=budget, n_repeats=2,
                              progress=progress, stop=stop)
    assert res.partial and res.n_repeats_done == 0
    # two grid fits ran to the end, then the first refit was cut short and the second never started
    assert [e.n_steps_ == e.n_estimators for e in built] == [True, True, False]
    assert built[2].n_estimators > 100 and built[2].n_steps_ <= 16


def test_stop_already_set_fits_nothing(monkeypatch):
    built = _recording(monkeypatch)
    stop = threading.Event()
    stop.set()
    res = select("group", ["gbmort"], budget=TINY, n_repeats=2, stop=stop)
    assert res.partial and res.n_repeats_done == 0 and built == []


def test_split_without_a_standard_one_is_40_10_50():
    """Paper 002 section 4.1.3: 40% training, 10% validation, 50% test."""
    from engine.datasets import load_dataset
    data = load_dataset("atp1d")
    assert data.test_indices is None
    reps, split, n_train, n_test, n_val, p, d = ms.make_splits(ms.selection_problem(data), 2, 0)
    n = data.n_samples
    assert abs(n_test - n / 2) <= 1 and n_train + n_test == n and abs(n_val - 0.1 * n) <= 1
    assert "50% test" in split
    for rep in reps:
        assert len(rep["X_test"]) == n_test and len(rep["val"]) == n_val
        assert len(rep["fit"]) == n_train - n_val and not set(rep["fit"]) & set(rep["val"])


@pytest.mark.slow
def test_refit_false_scores_the_model_fitted_on_the_80_percent(chain_result):
    """refit=False: same choices (selection never sees the test set), but the test score is that of
    the chosen setting fitted on the 80% it was validated on, computed here by hand."""
    no_refit = select("friedman1-chain", NAMES, budget=TINY, n_repeats=3, seed=1, refit=False)
    assert chain_result.refit and not no_refit.refit
    assert no_refit.chosen == chain_result.chosen
    reps = ms.make_splits(ms.selection_problem("friedman1-chain"), 3, 1)[0]
    for i, name in enumerate(NAMES):
        for r, rep in enumerate(reps):
            c = no_refit.chosen[name][r]
            config = {k: c[k] for k in ("learning_rate", "max_leaf_nodes", "max_features", "loss")}
            X_fit, Y_fit = rep["X_train"][rep["fit"]], rep["Y_train"][rep["fit"]]
            by_hand, _ = ms.refit_and_score(name, "regression", "chain", 16, config, c["n_steps"], rep["random_state"],
                                            X_fit, Y_fit, rep["X_test"], rep["Y_test"], 0)
            assert no_refit.scores[i, r] == by_hand
    assert not np.array_equal(no_refit.scores, chain_result.scores)
    with pytest.raises(ValueError, match="refit"):
        select("friedman1-chain", NAMES, budget=TINY, refit="no")


@pytest.mark.slow
@pytest.mark.parametrize("dataset, task", [("friedman1-group", "regression"), ("emotions", "multilabel")])
def test_defaults_row_is_the_estimator_as_a_practitioner_gets_it(dataset, task):
    """"defaults" (issue 34): each repeat fits MultiOutputBoostingRegressor / MultiLabelBoostingClassifier
    with only the repeat's seed on the whole training set, nothing selected; its test score is that
    fit's, scored here by scikit-learn (r2 averaged over outputs, LRAP)."""
    from sklearn.metrics import label_ranking_average_precision_score, r2_score

    from engine.estimators import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

    assert "defaults" in ms.KNOWN_NAMES and "defaults" in ms.NO_GRID
    res = select(dataset, ["gbmort", "defaults"], budget=TINY, n_repeats=2, seed=3)
    reps = ms.make_splits(ms.selection_problem(dataset), 2, 3)[0]
    cls = MultiLabelBoostingClassifier if task == "multilabel" else MultiOutputBoostingRegressor
    for r, rep in enumerate(reps):
        est = cls(random_state=rep["random_state"]).fit(rep["X_train"], rep["Y_train"])
        assert est.n_estimators == 300 and est.max_leaf_nodes == 32 and est.strategy == "projected_relabel"
        if task == "multilabel":
            expected = label_ranking_average_precision_score(rep["Y_test"], est.decision_function(rep["X_test"]))
        else:
            expected = r2_score(rep["Y_test"], est.predict(rep["X_test"]))
        assert res.scores[1, r] == pytest.approx(expected, abs=1e-12)
        assert res.chosen["defaults"][r] == dict(
            strategy="projected_relabel", projection="gaussian", n_projections=1, learning_rate=0.1,
            max_leaf_nodes=32, leaf_estimation="newton", n_estimators=300, early_stopping="auto",
            n_steps=None, validation_score=None)
    frame = benchmark_frame(res)
    assert set(frame["estimator"]) == {"gbmort", "defaults"}


def test_cost_estimate_scales_the_defaults_probe_to_their_300_steps(monkeypatch):
    """The probe fits "defaults" with a few steps; the estimate scales it to n_estimators (300), a
    forest's to its 100 trees."""
    from engine.app.page_models import cost

    assert ms.no_grid_steps("defaults", "regression") == 300 == ms.no_grid_steps("defaults", "multilabel")
    assert ms.no_grid_steps("mo-rf", "regression") == 100
    fitted = []
    real = ms.make_method
    monkeypatch.setattr(cost, "make_method", lambda *a: fitted.append(a[-1]) or real(*a))
    clock = iter(np.arange(0.0, 100.0, 1.0))          # every thread_time() call: one more second
    monkeypatch.setattr(cost.time, "thread_time", lambda: next(clock))
    est = cost.estimate_model_selection_cost("friedman1-group", ms.SelectionSettings(n_repeats=2), ["defaults", "mo-rf"],
                                             probe_steps=10)
    assert fitted == [dict(random_state=0, n_estimators=10)] * 2
    assert est["per_estimator"] == {"defaults": 2 * 1.0 * 300 / 10, "mo-rf": 2 * 1.0 * 100 / 10}
