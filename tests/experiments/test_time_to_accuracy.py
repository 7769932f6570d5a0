"""The engine-against-XGBoost race (engine.experiments.time_to_accuracy): curves against oracles."""
import numpy as np
import pytest

from engine.datasets import load_dataset
from paper_settings import PaperClassifier
from engine.experiments import time_to_accuracy as tta
from engine.metrics import lrap
from engine.plotting import time_to_accuracy_figure


def _split(name):
    data = load_dataset(name)
    test = np.zeros(data.X.shape[0], dtype=bool)
    test[data.test_indices] = True
    return data.X[~test], data.Y[~test], data.X[test], data.Y[test]


@pytest.fixture(scope="module")
def race():
    return tta.run_time_to_accuracy("bibtex", n_steps=6, xgboost_rounds=4, max_leaf_nodes=4, n_projections=2)


def test_the_engine_curve_is_the_models_own_staged_score(race):
    label = next(k for k in race.curves if k.startswith("engine"))
    curve = race.curves[label]
    assert curve["steps"][-1] == 6 and np.all(np.diff(curve["seconds"]) > 0)
    X, Y, X_test, Y_test = _split("bibtex")
    est = PaperClassifier(strategy="projected_relabel", projection="gaussian", n_projections=2,
                          learning_rate=0.3, n_estimators=6, max_leaf_nodes=4, n_jobs=1,
                          random_state=0).fit(X, Y)
    assert curve["score"][-1] == pytest.approx(lrap(Y_test, est.decision_function(X_test)), abs=1e-12)
    fig = time_to_accuracy_figure(race)
    assert [t.meta for t in fig.data if t.meta.get("curve")] == [{"curve": k} for k in race.curves]


@pytest.mark.skipif(not tta.xgboost_installed(), reason="xgboost is not installed (the bench extra)")
def test_xgboosts_curve_cut_at_round_r_is_a_model_of_r_rounds(race):
    import xgboost
    curve = next(c for k, c in race.curves.items() if k.startswith("XGBoost"))
    assert curve["steps"] == [1, 2, 3, 4] and np.all(np.diff(curve["seconds"]) > 0)
    X, Y, X_test, Y_test = _split("bibtex")
    short = xgboost.XGBClassifier(n_estimators=2, tree_method="hist", multi_strategy="one_output_per_tree",
                                  n_jobs=1, random_state=0).fit(X, Y)
    assert curve["score"][1] == pytest.approx(lrap(Y_test, short.predict_proba(X_test)), abs=1e-12)


def test_without_xgboost_the_result_says_so(monkeypatch):
    monkeypatch.setattr(tta, "xgboost_installed", lambda: False)
    res = tta.run_time_to_accuracy("corel5k", n_steps=2, max_leaf_nodes=2, n_projections=1)
    assert len(res.curves) == 1 and any("XGBoost is not installed" in n for n in res.notes)


@pytest.mark.parametrize("kwargs, match", [
    (dict(dataset="emotions"), "dataset"), (dict(n_steps=0), "n_steps"), (dict(learning_rate=0.0), "learning_rate"),
    (dict(leaf_estimation="exact"), "leaf_estimation"), (dict(max_leaf_nodes=1), "max_leaf_nodes"),
])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        tta.run_time_to_accuracy(**kwargs)


def test_newton_leaves_race():
    res = tta.run_time_to_accuracy("bibtex", n_steps=3, xgboost_rounds=1, max_leaf_nodes=4,
                                   leaf_estimation="newton")
    assert any("newton leaves" in k for k in res.curves)
