"""The real-data study (paper 002, section 4.4): end to end, resume, corrupt cache, stop, dask, bad input."""
import json
import shutil
import threading

import numpy as np
import pandas as pd
import pytest

from engine import __main__ as cli
from engine.experiments import real_data as rd
from engine.experiments.real_data import RealDataSettings, StudyData, StudyExecution, run_real_data
from engine.experiments.real_data_result import RealDataResult
from engine.experiments.study_cells import split_sizes, study_split
from engine.names import BOOMER_NAMES, REAL_DATA_METHODS, SECOND_ORDER_METHODS

SMALL = ["edm", "emotions"]        # the smallest regression and multi-label sets of the paper's list
FAST = ["gbmort", "gbrt-rpo-subsampled", "mo-rf"]


def _scores(result):
    df = result.to_frame()
    return {(r.dataset, r.method, r.split, r.kind): r.score for r in df.itertuples()}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``python -m engine reproduce real-data --quick`` on two small data sets, every method."""
    out = tmp_path_factory.mktemp("real-data")
    code = cli.main(["reproduce", "real-data", "--quick", "--datasets", ",".join(SMALL), "--out", str(out),
                     "--n-jobs", "1"])
    assert code == 0
    return out


@pytest.mark.slow
def test_quick_end_to_end_writes_readable_files(quick_run):
    out = quick_run
    for name in ("real-data.csv", "real-data_summary.csv", "real-data.json", "real-data.html",
                 "real-data_ranks_multilabel.csv", "real-data_wilcoxon_multilabel.csv",
                 "real-data_ranks_regression.csv", "real-data_wilcoxon_regression.csv"):
        assert (out / name).stat().st_size > 0, name
    cells = pd.read_csv(out / "real-data.csv")
    summary = pd.read_csv(out / "real-data_summary.csv")
    payload = json.loads((out / "real-data.json").read_text())
    result = RealDataResult.from_dict(payload["results"]["study"])
    assert not result.partial and result.n_cached == 0 and result.n_computed > 0
    # Every method on every data set it fits, both splits; BOOMER on emotions only; the second-order
    # rows (Newton leaves).
    tests = cells[cells["kind"].isin(["test", "test-refit"])]
    extra = SECOND_ORDER_METHODS
    for dataset, task_methods in (("edm", REAL_DATA_METHODS + extra),
                                  ("emotions", REAL_DATA_METHODS + BOOMER_NAMES + extra)):
        got = tests[tests["dataset"] == dataset].groupby("method")["split"].nunique()
        assert dict(got) == {m: 2 for m in task_methods}, dataset
    assert any("BOOMER skipped on edm" in n for n in result.notes)
    # Scores are LRAP / macro-r2 values, and the paper's numbers sit beside ours.
    assert cells["score"].between(-5, 1).all()
    row = summary[(summary["dataset"] == "emotions") & (summary["method"] == "gbmort")].iloc[0]
    assert (row["paper mean"], row["paper std"], row["paper rank"]) == (0.794, 0.014, 8.0)
    assert summary[summary["method"] == "boomer"]["paper mean"].isna().all()
    page = (out / "real-data.html").read_text()
    # One data set per task: the ranks, tests and tables, but no diagram (it needs two data sets).
    assert page.count("<script src=") == 0 and "Nemenyi critical difference" in page and "Friedman p" in page
    assert "CD = " not in page
    wilcoxon = pd.read_csv(out / "real-data_wilcoxon_multilabel.csv", index_col=0)
    assert "|" in wilcoxon.loc["gbmort", "st-gbrt"]          # ours | the paper's


@pytest.mark.slow
def test_a_resumed_run_recomputes_nothing(quick_run, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(quick_run, out)
    first = RealDataResult.from_dict(json.loads((quick_run / "real-data.json").read_text())["results"]["study"])
    again = run_real_data(StudyData(SMALL), RealDataSettings(), StudyExecution(out=out))
    assert again.n_computed == 0 and again.n_cached == first.n_computed + 0 and again.n_corrupt == 0
    assert _scores(again) == _scores(first)


def test_a_corrupt_cache_line_is_recomputed_not_trusted(quick_run, tmp_path):
    out = tmp_path / "corrupt"
    shutil.copytree(quick_run, out)
    path = out / "cache" / "edm" / "gbmort.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[-1])                      # a test cell: change its score, keep its checksum
    entry["result"]["score"] = 0.999
    lines[-1] = json.dumps(entry)
    lines[-2] = lines[-2][: len(lines[-2]) // 2]       # and cut another one short (a crash mid-write)
    path.write_text("\n".join(lines) + "\n{not json\n")
    first = RealDataResult.from_dict(json.loads((quick_run / "real-data.json").read_text())["results"]["study"])
    again = run_real_data(StudyData(SMALL), RealDataSettings(), StudyExecution(out=out))
    assert again.n_corrupt == 3 and again.n_computed == 2
    assert _scores(again) == _scores(first)
    assert any("corrupt cache" in n for n in again.notes)


@pytest.mark.slow
def test_a_stopped_run_is_a_valid_partial_result_and_resumes(tmp_path):
    stop = threading.Event()
    seen = []

    def progress(fraction, message, **_):
        seen.append(message)
        if sum("validation" in m for m in seen) >= 5:
            stop.set()

    partial = run_real_data(StudyData(["edm"]), RealDataSettings(methods=FAST), StudyExecution(out=tmp_path),
                            progress=progress, stop=stop)
    assert partial.partial and 0 < partial.n_computed
    assert rd.RealDataResult.from_json(partial.to_json()).cells == partial.cells
    partial.summary_frame()                          # derived tables work on a partial result
    assert partial.statistics("regression")["n_datasets"] == 0
    full = run_real_data(StudyData(["edm"]), RealDataSettings(methods=FAST), StudyExecution(out=tmp_path))
    assert not full.partial and full.n_cached >= partial.n_computed
    # A run from scratch computes the same cells to the same numbers, wherever its own timing
    # probes gave the same numbers of steps (they are measured, so they may differ).
    fresh = run_real_data(StudyData(["edm"]), RealDataSettings(methods=FAST), StudyExecution(out=tmp_path / "fresh"))
    a = full.to_frame().set_index(["method", "split", "kind", "setting", "n_steps"])["score"]
    b = fresh.to_frame().set_index(["method", "split", "kind", "setting", "n_steps"])["score"]
    common = a.index.intersection(b.index)
    assert len(common) > 0
    np.testing.assert_array_equal(a.loc[common].to_numpy(), b.loc[common].to_numpy())


@pytest.mark.slow
def test_dask_gives_the_same_numbers_as_joblib(tmp_path):
    distributed = pytest.importorskip("distributed")
    joblib_out, dask_out = tmp_path / "joblib", tmp_path / "dask"
    by_joblib = run_real_data(StudyData(["edm"]), RealDataSettings(methods=FAST), StudyExecution(out=joblib_out, n_jobs=2))
    # The same timing probes (which fix the numbers of steps), none of the cells.
    for path in (joblib_out / "cache").rglob("*.jsonl"):
        keep = [line for line in path.read_text().splitlines() if json.loads(line)["key"]["kind"] == "step-seconds"]
        target = dask_out / path.relative_to(joblib_out)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(line + "\n" for line in keep))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        by_dask = run_real_data(StudyData(["edm"]), RealDataSettings(methods=FAST),
                                StudyExecution(out=dask_out, client=client))
    assert by_dask.settings["backend"] == "dask" and by_dask.n_computed == by_joblib.n_computed
    assert _scores(by_dask) == _scores(by_joblib)


def test_splits_follow_the_papers_ratios():
    # Paper's Table 2: emotions 391 train / 202 test; Table 3: edm has no test set -> 50/50.
    assert split_sizes("emotions", 593) == (391, 202)
    assert split_sizes("medical", 978) == (333, 645)
    assert split_sizes("edm", 154) == (77, 77)
    assert split_sizes("yeast", 2417) == (1209, 1208)     # no test size in the paper: 50/50
    a, b = study_split("emotions", 0, 1), study_split("emotions", 0, 1)
    assert all(np.array_equal(a[k], b[k]) for k in ("train", "test", "fit", "validation"))
    assert len(a["train"]) == 391 and len(a["validation"]) == round(0.2 * 391)
    assert set(a["fit"]) | set(a["validation"]) == set(a["train"]) and not set(a["train"]) & set(a["test"])
    assert not np.array_equal(study_split("emotions", 0, 0)["test"], a["test"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(datasets=["edm", "nope"]), "datasets: unknown data set of sample_data/ .*'nope'"),
    (dict(datasets=[]), "datasets is empty"),
    (dict(datasets=["edm", "edm"]), "datasets lists a data set of sample_data/ twice"),
    (dict(datasets=["cal500", "CAL500"]), "datasets lists a data set twice"),      # the paper's name for ours
    (dict(datasets=3), "datasets"),
    (dict(methods=["gbmort", "xgboost"]), "methods: unknown method 'xgboost'"),
    (dict(methods=[]), "methods is empty"),
    (dict(methods=["st-gbrt", "br-gbrt"]), "methods lists a method twice"),        # br-gbrt is st-gbrt
    (dict(budget="huge"), "budget must be one of"),
    (dict(budget=["quick"]), "budget must be one of"),
    (dict(seed=-1), "seed"),
    (dict(refit="yes"), "refit"),
    (dict(second_order=None), "second_order"),
    (dict(backend="spark"), "backend must be one of"),
    (dict(backend="dask"), "needs a dask.distributed cluster"),      # no client running
    (dict(n_jobs=0), "n_jobs"),
])
def test_bad_input_is_named_when_the_arguments_are_built(tmp_path, kwargs, match):
    """Each of the study's three arguments is checked when built, in the order a caller builds them,
    so a bad one is refused before anything is written."""
    out = tmp_path / "out"
    args = {**dict(datasets=["edm"], methods=["gbmort"], out=out), **kwargs}
    with pytest.raises(ValueError, match=match):
        data = StudyData(args.pop("datasets"))
        settings = RealDataSettings(**{k: args.pop(k) for k in ("budget", "methods", "seed", "refit", "second_order")
                                       if k in args})
        run_real_data(data, settings, StudyExecution(**args))
    assert not out.exists()          # refused before anything was written


def test_the_arguments_are_kept_as_checked_and_a_run_takes_only_them(tmp_path):
    assert StudyData(["CAL500", "wq"]).datasets == ("cal500", "wq")
    assert StudyData().datasets == tuple(rd.available_study_datasets())
    assert RealDataSettings(budget="full", methods=["br-gbrt"]).budget == "paper"
    assert RealDataSettings(methods="br-rf").methods == ("st-rf",)
    assert StudyExecution(out=str(tmp_path / "o")).out == tmp_path / "o" and (tmp_path / "o" / "cache").is_dir()
    for args, match in ((dict(data=["edm"]), "data must be a StudyData"),
                        (dict(data=StudyData(["edm"]), settings=dict(budget="quick")), "settings must be a"),
                        (dict(data=StudyData(["edm"]), execution="here"), "execution must be a"),
                        (dict(data=StudyData(["edm"]), progress=3), "progress"),
                        (dict(data=StudyData(["edm"]), report_partial="yes"), "report_partial")):
        with pytest.raises(ValueError, match=match):
            run_real_data(**args)


def test_an_unwritable_out_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match="out: cannot write"):
        StudyExecution(out=blocker / "sub")
    assert cli.main(["reproduce", "real-data", "--quick", "--datasets", "edm", "--out", str(blocker / "sub")]) == 2
    assert cli.main(["reproduce", "real-data", "--quick", "--scheduler", "tcp://x:1", "--out", str(tmp_path)]) == 2


def test_boomer_missing_is_said_clearly(monkeypatch, tmp_path):
    monkeypatch.setenv("RPO_BOOMER_PYTHON", str(tmp_path / "no-python"))
    with pytest.raises(ValueError, match="methods: 'boomer' asked for, but .*install_boomer.sh"):
        RealDataSettings(methods=["gbmort", "boomer"])
    methods, notes = RealDataSettings(second_order=False).method_names()
    assert methods == list(REAL_DATA_METHODS)
    assert "BOOMER rows left out" in notes[0] and "install_boomer.sh" in notes[0]
