"""st-rf's final cell in the real-data study keeps its work output by output, so a stopped study resumes it.

On delicious the cell fits 983 forests of 100 trees (about an hour of CPU); a study stopped in
the middle used to start it again from the first label. The oracles: the estimator's own ``fit``
(the forests ``output_forests`` yields must be those ``fit`` grows) and the cell run without a stop.
"""
import numpy as np
import pytest

from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from engine.experiments import model_selection as ms
from engine.experiments import real_data as rd
from engine.experiments import study_cells
from engine.experiments.cell_cache import CellCache


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 5))
    Y = (X[:, :4] + rng.normal(size=(150, 4)) > 0).astype(int)
    Y[:, 1] = 0                                             # a label that never occurs
    return X, Y, rng.normal(size=(40, 5))


@pytest.mark.parametrize("start", [0, 2, 4])
def test_output_forests_are_the_forests_fit_grows(labels, start):
    X, Y, X_test = labels
    fitted = PerOutputForestClassifier(n_estimators=6, random_state=7).fit(X, Y)
    streamed = dict(PerOutputForestClassifier(n_estimators=6, random_state=7).output_forests(X, Y, start=start))
    assert sorted(streamed) == list(range(start, 4))
    for j, forest in streamed.items():
        assert np.array_equal(forest.decision_function(X_test), fitted.decision_function(X_test)[:, j])
        assert np.array_equal(forest.predict(X_test), fitted.predict(X_test)[:, j])
    Y_reg = X[:, :3] + Y[:, :3]
    fitted = PerOutputForestRegressor(n_estimators=4, random_state=1).fit(X, Y_reg)
    for j, forest in PerOutputForestRegressor(n_estimators=4, random_state=1).output_forests(X, Y_reg, start=1):
        assert np.array_equal(forest.predict(X_test), fitted.predict(X_test)[:, j])


def test_output_forests_stop_before_the_forest_a_stop_cut(labels):
    X, Y, _ = labels
    calls = []

    def stop_in_the_third_forest(n_done, estimator):
        calls.append(n_done)
        return len(calls) == 2 * 6 + 3

    got = [j for j, _ in PerOutputForestClassifier(n_estimators=6, random_state=7).output_forests(
        X, Y, callback=stop_in_the_third_forest)]
    assert got == [0, 1]
    assert len(calls) == 15


@pytest.mark.parametrize("kwargs, match", [(dict(start=5), "start"), (dict(start=-1), "start"),
                                           (dict(callback=3), "callback")])
def test_output_forests_name_bad_arguments(labels, kwargs, match):
    X, Y, _ = labels
    with pytest.raises(ValueError, match=match):
        next(PerOutputForestClassifier(n_estimators=2).output_forests(X, Y, **kwargs))


def _st_rf_cell(tmp_path=None, callback=None, split=0):
    scratch = None if tmp_path is None else tmp_path / "scratch" / "st-rf-cell.npz"
    return study_cells.final_cell("emotions", "st-rf", split, {}, 4, 0, "train", None, scratch,
                                  callback=callback), scratch


def test_the_cell_scores_what_the_estimator_fitted_whole_scores():
    X_tr, Y_tr, task = study_cells._rows("emotions", 0, 0, "train")
    X_test, Y_test, _ = study_cells._rows("emotions", 0, 0, "test")
    random_state = study_cells.study_split("emotions", 0, 0)["random_state"]
    whole, _ = ms.refit_and_score("st-rf", task, None, Y_tr.shape[1], {}, 4, random_state,
                                  X_tr, Y_tr, X_test, Y_test, 0)
    cell, _ = _st_rf_cell()
    assert cell["score"] == whole and 0.5 < whole < 1
    assert cell["cpu_seconds"] > 0 and cell["seconds"] > 0


def test_a_stopped_cell_resumes_from_its_scratch_file_to_the_same_score(tmp_path, monkeypatch):
    uninterrupted, _ = _st_rf_cell()
    monkeypatch.setattr(study_cells, "SCRATCH_SECONDS", 0.0)     # write after every output
    calls = []

    def stop_in_the_fourth_label(n_done, estimator):
        calls.append(n_done)
        return len(calls) == 3 * 4 + 2

    stopped, scratch = _st_rf_cell(tmp_path, stop_in_the_fourth_label)
    assert np.isnan(stopped["score"])
    with np.load(scratch) as f:
        assert f["columns"].shape[1] == 3                          # labels 0-2 kept, the cut 4th not
        spent = f["spent"].copy()
    assert spent[1] > 0
    resumed_calls = []

    def count(n_done, estimator):
        resumed_calls.append(n_done)
        return False

    resumed, _ = _st_rf_cell(tmp_path, count)
    assert resumed["score"] == uninterrupted["score"]
    assert len(resumed_calls) == 3 * 4                             # labels 3, 4 and 5 only (emotions: 6)
    assert resumed["cpu_seconds"] > spent[1]                       # the stopped call's time counts


def test_a_scratch_file_that_does_not_fit_is_ignored(tmp_path):
    uninterrupted, _ = _st_rf_cell()
    scratch = tmp_path / "scratch" / "st-rf-cell.npz"
    scratch.parent.mkdir()
    scratch.write_bytes(b"not an npz file")
    assert _st_rf_cell(tmp_path)[0]["score"] == uninterrupted["score"]
    np.savez(scratch, columns=np.zeros((3, 2)), spent=np.zeros(2))        # another split's shape
    assert _st_rf_cell(tmp_path)[0]["score"] == uninterrupted["score"]


@pytest.mark.slow
def test_the_study_passes_st_rf_a_scratch_file_and_drops_it_once_cached(tmp_path, monkeypatch):
    seen = []
    original = study_cells.per_output_forest_scores

    def spy(est, X, Y, X_test, scratch=None, callback=None):
        seen.append(scratch)
        study_cells._write_scratch(scratch, np.zeros((X_test.shape[0], 0)), (0.0, 0.0))
        return original(est, X, Y, X_test, scratch, callback)

    monkeypatch.setattr(study_cells, "per_output_forest_scores", spy)
    rd.run_real_data(rd.StudyData(["emotions"]), rd.RealDataSettings(methods=["mo-rf", "st-rf"]),
                     rd.StudyExecution(out=tmp_path))
    cache = CellCache(tmp_path / "cache")
    assert len(seen) == 2 and all(p is not None and p.parent.name == "scratch" for p in seen)
    assert not any(p.exists() for p in seen)                       # dropped once the cell was cached
    assert len({str(p) for p in seen}) == 2                        # one file per split
    assert cache.scratch_path(dict(dataset="emotions", method="st-rf", kind="test")) is not None
    assert CellCache(None).scratch_path(dict(dataset="emotions", method="st-rf")) is None


def test_the_cell_grows_its_trees_in_threads_with_the_numbers_of_one_thread(monkeypatch):
    threads = []
    original = study_cells.per_output_forest_scores

    def spy(est, *args, **kwargs):
        threads.append(est.n_jobs)
        return original(est, *args, **kwargs)

    monkeypatch.setattr(study_cells, "ST_RF_THREADS", 3)
    monkeypatch.setattr(study_cells, "per_output_forest_scores", spy)
    three_threads, _ = _st_rf_cell(split=1)
    monkeypatch.setattr(study_cells, "ST_RF_THREADS", 1)
    assert _st_rf_cell(split=1)[0]["score"] == three_threads["score"]
    assert threads == [3, 1]
