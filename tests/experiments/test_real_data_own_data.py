"""The real-data study on a researcher's own data (--data-dir), its cache keyed by the engine's
version, and the second-order rows outside the paper's ranks."""
import json

import numpy as np
import pandas as pd
import pytest

from engine import __main__ as cli
from engine.experiments import engine_version as ev
from engine.experiments import real_data as rd
from engine.experiments.real_data import RealDataSettings, StudyData, StudyExecution, run_real_data
from engine.experiments.real_data_result import RealDataResult
from engine.names import SECOND_ORDER_METHODS


def write_dataset(root, name, n=60, p=4, d=3, seed=0):
    """A small multi-label data set folder laid out as sample_data/<name>/."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    Y = (X[:, :d] + 0.3 * rng.normal(size=(n, d)) > 0).astype(int)
    folder = root / name
    folder.mkdir(parents=True)
    columns = [f"x{j}" for j in range(p)] + [f"y{j}" for j in range(d)]
    pd.DataFrame(np.hstack([X, Y]), columns=columns).to_csv(folder / f"{name}.csv", index=False)
    meta = dict(name=name, task="multi-label classification", n_samples=n, n_features=p, n_targets=d,
                compact_file=f"{name}.csv")
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


@pytest.mark.slow
def test_the_protocol_runs_on_a_folder_of_ones_own(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    write_dataset(data, "mine")
    code = cli.main(["reproduce", "real-data", "--quick", "--data-dir", str(data), "--datasets", "mine",
                     "--methods", "gbmort,mo-rf", "--out", str(out), "--n-jobs", "1"])
    assert code == 0
    for name in ("real-data.csv", "real-data_summary.csv", "real-data.json", "real-data.html"):
        assert (out / name).stat().st_size > 0, name
    result = RealDataResult.from_dict(json.loads((out / "real-data.json").read_text())["results"]["study"])
    info = result.datasets[0]
    # Not in the paper's Tables 2-3: split 50/50, no paper column.
    assert (info["name"], info["n_train"], info["n_test"], info["paper_name"]) == ("mine", 30, 30, None)
    summary = pd.read_csv(out / "real-data_summary.csv")
    assert set(summary["method"]) == {"gbmort", "mo-rf"}
    assert summary["paper mean"].isna().all() and summary["paper rank"].isna().all()
    assert summary["paper"].isna().all() and summary["mean"].notna().all()


def test_a_paper_set_in_ones_own_folder_gets_the_papers_ratio(tmp_path):
    write_dataset(tmp_path, "emotions", n=593)
    data = StudyData(["emotions"], data_dir=tmp_path)
    assert data.data_dir == str(tmp_path.resolve())
    info = rd._dataset_plan("emotions", "quick", data.data_dir)
    assert (info["n_train"], info["n_test"], info["paper_name"]) == (391, 202, "emotions")


def test_the_data_sets_files_are_in_the_key(tmp_path):
    write_dataset(tmp_path / "a", "mine", seed=0)
    write_dataset(tmp_path / "b", "mine", seed=1)
    a = rd._dataset_plan("mine", "quick", str(tmp_path / "a"))
    b = rd._dataset_plan("mine", "quick", str(tmp_path / "b"))
    assert a["data"] != b["data"] and a["id"] != b["id"]


@pytest.mark.parametrize("make, kwargs, match", [
    (lambda p: None, dict(data_dir="missing"), "data_dir: .* is not a folder"),
    (lambda p: (p / "empty").mkdir(), dict(data_dir="empty"), "data_dir: no data set"),
    (lambda p: write_dataset(p / "d", "mine"), dict(data_dir="d", datasets=["yours"]),
     "datasets: unknown data set of data_dir .*'yours'"),
    (lambda p: None, dict(datasets=["mine"]), "datasets: unknown data set of sample_data/ 'mine'"),
    (lambda p: None, dict(data_dir=3), "data_dir: '3' is not a folder"),
])
def test_bad_folders_are_named(tmp_path, make, kwargs, match):
    make(tmp_path)
    if isinstance(kwargs.get("data_dir"), str):
        kwargs["data_dir"] = tmp_path / kwargs["data_dir"]
    with pytest.raises(ValueError, match=match):
        StudyData(**kwargs)


def test_a_bad_meta_json_is_named(tmp_path):
    folder = write_dataset(tmp_path, "mine")
    (folder / "meta.json").write_text(json.dumps(dict(task="multi-label classification")))
    with pytest.raises(ValueError, match="meta.json lacks n_samples"):
        StudyData(["mine"], data_dir=tmp_path)
    assert cli.main(["reproduce", "real-data", "--quick", "--data-dir", str(tmp_path / "nope"),
                     "--out", str(tmp_path / "out")]) == 2


def test_a_shipped_set_outside_the_papers_list_is_accepted():
    assert StudyData(["flags"]).datasets == ("flags",)
    assert rd._dataset_plan("flags", "quick", None)["paper_name"] is None


# ------------------------------------------------------------ the engine's version in the key


def test_the_core_fingerprint_follows_its_sources(tmp_path):
    (tmp_path / "a.pyx").write_text("x = 1\n")
    (tmp_path / "a.pxd").write_text("cdef int x\n")
    first = ev.core_fingerprint(tmp_path)
    assert first.startswith("src-") and ev.core_fingerprint(tmp_path) == first
    (tmp_path / "a.pyx").write_text("x = 2\n")
    assert ev.core_fingerprint(tmp_path) not in (first, "none")
    built = tmp_path / "built"
    built.mkdir()
    (built / "a.pxd").write_text("cdef int x\n")          # a wheel: no .pyx, the binary
    (built / "a.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    assert ev.core_fingerprint(built).startswith("bin-")
    assert ev.engine_version().startswith("0.") and "+src-" in ev.engine_version()


@pytest.mark.slow
def test_a_changed_engine_version_misses_the_cache_and_the_same_one_hits(tmp_path, monkeypatch):
    write_dataset(tmp_path / "data", "mine", n=40)
    args = (StudyData(["mine"], data_dir=tmp_path / "data"), RealDataSettings(methods=["gbmort", "mo-rf"]),
            StudyExecution(out=tmp_path / "out"))
    first = run_real_data(*args)
    assert first.n_computed > 0 and first.n_cached == 0
    assert first.settings["engine_version"] == ev.engine_version()
    same = run_real_data(*args)
    assert same.n_computed == 0 and same.n_cached == first.n_computed
    monkeypatch.setattr(rd, "engine_version", lambda: "9.9.9+src-000000000000")
    upgraded = run_real_data(*args)
    assert upgraded.n_cached == 0 and upgraded.n_computed == first.n_computed
    again = run_real_data(*args)
    assert again.n_computed == 0 and again.n_cached == first.n_computed


# ------------------------------------------------------------ second-order rows


def test_second_order_rows_by_default_and_left_out_on_request():
    assert set(SECOND_ORDER_METHODS) <= set(RealDataSettings().method_names()[0])
    assert not set(SECOND_ORDER_METHODS) & set(RealDataSettings(second_order=False).method_names()[0])
    assert RealDataSettings(methods=["gbmort (newton)"]).method_names()[0] == ["gbmort (newton)"]


@pytest.mark.slow
def test_second_order_rows_stay_out_of_the_papers_ranks(tmp_path):
    write_dataset(tmp_path / "data", "mine", n=40)
    write_dataset(tmp_path / "data", "other", n=40, seed=3)
    result = run_real_data(StudyData(data_dir=tmp_path / "data"),
                           RealDataSettings(methods=["gbmort", "mo-rf", "gbmort (newton)"]))
    newton = result.test_frame().query("method == 'gbmort (newton)'")
    assert len(newton) == 2 * 2 and newton["score"].between(0, 1).all()
    assert result.statistics("multilabel")["methods"] == ["gbmort", "mo-rf"]
    summary = result.summary_frame()
    assert summary.query("method == 'gbmort (newton)'")["rank"].isna().all()
    from engine.reports.real_data import comparisons
    assert ("multilabel", "with second-order leaves", ["gbmort", "mo-rf", "gbmort (newton)"]) in comparisons(result)


def test_a_missing_data_file_is_named_before_any_work(tmp_path):
    folder = write_dataset(tmp_path, "mine")
    (folder / "mine.csv").unlink()
    with pytest.raises(ValueError, match="datasets: 'mine' in data_dir .* cannot be read: .*not in"):
        StudyData(["mine"], data_dir=tmp_path)
