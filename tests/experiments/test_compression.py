"""Thesis chapter 7 experiments (engine.experiments.compression), their figures and the reproduce target.

Tiny settings (a few trees, 3 folds, small samples): the numbers of the thesis come from the
CLI; here the bookkeeping is held to what the estimator says, and the target to the output
convention.
"""
import json
import threading

import numpy as np
import pandas as pd
import pytest

from engine import plotting
from engine.reports import reproduce
from engine.experiments.compression import CompressionResult, CompressionSettings, run_compression, run_compression_sweep
from engine.experiments.problems import Problem
from engine.experiments.published import THESIS_TABLE71

TINY = dict(n_estimators=5, cv=3, n_train=60, n_test=80)
RUN = ("seed", "progress", "stop", "client", "report_partial")


def _split(dataset, kwargs):
    """(Problem, CompressionSettings, the run's own keywords) of one flat call."""
    data = {k: kwargs.pop(k) for k in ("n_train", "n_test") if k in kwargs}
    run = {k: kwargs.pop(k) for k in RUN if k in kwargs}
    return Problem(dataset, **data), CompressionSettings(**kwargs), run


def compress(dataset="friedman1", **kwargs):
    problem, settings, run = _split(dataset, dict(kwargs))
    return run_compression(problem, settings, **run)


def compress_sweep(dataset="friedman1", *, parameter="n_min", values=(1, 2, 5, 10, 20, 50), **kwargs):
    problem, settings, run = _split(dataset, dict(kwargs))
    return run_compression_sweep(problem, settings, parameter=parameter, values=values, **run)


def test_run_compression_rows_curves_and_summary():
    seen = []
    result = compress("friedman1", n_runs=2, seed=1, progress=lambda f, m, **k: seen.append(f), **TINY)
    df = result.to_frame()
    assert result.complete and len(df) == 2 and list(df["repeat"]) == [0, 1]
    assert (df["et_nodes"] == 5 * 59).all()                       # ET: n - 1 test nodes per tree
    assert (df["ret_nodes"] <= df["et_nodes"]).all() and (df["ret_nodes"] > 0).all()
    np.testing.assert_allclose(df["compression_factor"], df["et_nodes"] / df["ret_nodes"])
    np.testing.assert_allclose(df["t_star"], df["n_steps"] * 0.01)
    assert (df["lasso_features"] >= 1).all() and (df["lasso_features"] <= 10).all()
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 2
    # the curves: one per run, t on the step grid, the test error at t* is the run's rET error
    assert len(result.curves) == 2
    for row, curve in zip(result.rows, result.curves):
        assert len(curve["t"]) == len(curve["test_error"]) == len(curve["n_nodes"])
        np.testing.assert_allclose(curve["test_error"][row["n_steps"]], row["ret_error"], rtol=1e-9)
        assert curve["n_nodes"][row["n_steps"]] == row["ret_nodes"]
        assert curve["test_error"][0] > row["ret_error"]          # t = 0: the mean, far worse
    mean = result.mean_curves()
    assert len(mean["t"]) == max(len(c["t"]) for c in result.curves)
    summary = result.summary_frame()
    assert len(summary) == 1 and summary["n_runs"].iloc[0] == 2
    np.testing.assert_allclose(summary["ret_error"].iloc[0], df["ret_error"].mean())
    back = CompressionResult.from_json(result.to_json())
    pd.testing.assert_frame_equal(back.to_frame(), df, check_dtype=False)
    np.testing.assert_allclose(back.mean_curves()["test_error"], mean["test_error"])


def test_same_seed_same_numbers_and_in_parallel():
    a = compress("friedman1", n_runs=2, seed=3, lasso=False, **TINY).to_frame().drop(columns="fit_time")
    b = compress("friedman1", n_runs=2, seed=3, lasso=False, n_jobs=2, **TINY).to_frame().drop(columns="fit_time")
    pd.testing.assert_frame_equal(a, b)
    assert a["lasso_error"].isna().all()


def test_two_norm_scores_the_error_rate():
    result = compress("two-norm", n_runs=1, seed=0, **TINY)
    row = result.rows[0]
    assert result.task == "multilabel" and result.metric == "0-1 loss"
    for key in ("et_error", "ret_error", "lasso_error"):
        assert 0.0 <= row[key] <= 0.5 and row[key] * 80 == pytest.approx(round(row[key] * 80))
    assert row["lasso_features"] <= 20


@pytest.mark.slow
def test_a_stop_keeps_the_finished_runs():
    stop = threading.Event()
    stop.set()
    result = compress("friedman1", n_runs=2, stop=stop, **TINY)
    assert not result.complete and result.rows == []
    # a stop during the second run's folds: the first run is kept, the cut one dropped
    stop = threading.Event()

    def progress(fraction, message, **kw):
        if fraction > 0.55:
            stop.set()

    result = compress("friedman1", n_runs=2, progress=progress, stop=stop, **TINY)
    assert not result.complete and len(result.rows) == 1


@pytest.mark.slow
def test_sweep_over_n_min_and_m():
    result = compress_sweep("friedman1", parameter="n_min", values=[20, 1, 5], n_runs=2, seed=2, **TINY)
    s = result.summary_frame()
    assert list(s["x"]) == [1.0, 5.0, 20.0] and (s["n_runs"] == 2).all()
    assert s["et_nodes"].is_monotonic_decreasing and s["et_nodes"].iloc[0] == 5 * 59
    assert result.curves == [] and result.x_name == "n_min"
    df = result.to_frame()
    assert set(df["n_min"]) == {1, 5, 20} and (df["n_estimators"] == 5).all()
    m = compress_sweep("friedman1", parameter="n_estimators", values=[2, 4], n_min=10, n_runs=1, **TINY)
    assert list(m.summary_frame()["x"]) == [2.0, 4.0] and set(m.to_frame()["n_min"]) == {10}
    fig = plotting.compression_sweep_figure(result)
    assert fig.layout.meta == "compression-sweep-n_min" and len(fig.data) == 4
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis2.type == "log"


def test_path_figure_marks_t_star():
    result = compress("friedman1", n_runs=1, **TINY)
    fig = plotting.compression_path_figure(result)
    assert fig.layout.meta == "compression-path"
    names = [t.name for t in fig.data]
    assert "rET, test set" in names and "ET (uncompressed), test" in names
    t_star = result.rows[0]["t_star"]
    assert any(s.x0 == t_star for s in fig.layout.shapes)
    assert any(f"t* = {t_star:.2f}" in a.text for a in fig.layout.annotations)
    assert any("fewer" in a.text for a in fig.layout.annotations)


@pytest.mark.parametrize("kwargs, match", [
    (dict(dataset="nope"), "dataset"), (dict(n_estimators=0), "n_estimators"), (dict(cv=1), "cv"),
    (dict(step=0.0), "step"), (dict(n_min=0), "n_min"), (dict(n_runs=0), "n_runs"), (dict(max_steps=0), "max_steps"),
    (dict(max_features=0), "max_features"), (dict(n_jobs=0), "n_jobs"), (dict(progress=3), "progress"),
])
def test_bad_arguments_are_value_errors_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        compress(**{"n_runs": 1, **kwargs})


@pytest.mark.parametrize("kwargs, match", [(dict(parameter="K"), "parameter"), (dict(values=[]), "values"),
                                           (dict(values=[0, 2]), "values"), (dict(values="1,2"), "values")])
def test_bad_sweeps(kwargs, match):
    with pytest.raises(ValueError, match=match):
        compress_sweep("friedman1", **kwargs)


@pytest.mark.slow
def test_reproduce_compression_end_to_end(tmp_path, monkeypatch):
    tiny = dict(n_estimators=4, cv=3, n_runs=2, sweep_runs=1, sweep_cv=2, n_min_values=(1, 10), m_values=(2, 4))
    monkeypatch.setitem(reproduce.COMPRESSION_SETTINGS, "quick", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    written = reproduce.REPRODUCTIONS["compression"](tmp_path, quick=True, seed=0, progress=lambda f, m: None)
    names = {p.name for p in written}
    assert names == {"compression.csv", "compression_summary.csv", "compression.json", "compression.html",
                     "compression.md"}
    summary = pd.read_csv(tmp_path / "compression_summary.csv")
    assert list(summary["dataset"]) == ["friedman1", "two-norm", "SEFTi"]
    for name, row in THESIS_TABLE71.items():
        got = summary[summary["dataset"] == name].iloc[0]
        assert got["paper_compression_factor"] == row["compression_factor"]
        assert got["paper_ret_error"] == row["ret_error"]
    assert summary["n_runs"].tolist() == [2, 2, 0] and summary["ret_nodes"].iloc[2] != summary["ret_nodes"].iloc[2]
    rows = pd.read_csv(tmp_path / "compression.csv")
    assert set(rows["run"]) == {"table_friedman1", "table_two-norm", "sweep_n_min", "sweep_n_estimators"}
    data = json.loads((tmp_path / "compression.json").read_text())
    assert data["settings"]["n_runs"] == 2 and data["results"]["table_friedman1"]["complete"]
    page = (tmp_path / "compression.html").read_text()
    assert page.count('class="plotly-graph-div"') == 4 and "SEFTi" in page and "<script src=" not in page
    md = (tmp_path / "compression.md").read_text()
    assert "| friedman1 | ours (2 runs) |" in md and "| SEFTi | not available |" in md and "| | thesis |" in md
