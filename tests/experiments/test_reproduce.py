"""python -m engine reproduce ...: one output convention for every target, offline HTML, errors."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engine import __main__ as cli
from engine.reports import reproduce

ROOT = Path(__file__).resolve().parents[2]


def convention(target, out):
    """The four files every target writes."""
    return {out / f"{target}.csv", out / f"{target}_summary.csv", out / f"{target}.json", out / f"{target}.html"}


def run(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_reproduce_figure1_quick_writes_csv_json_and_offline_html(tmp_path):
    out = tmp_path / "figure1"
    proc = run("reproduce", "figure1", "--quick", "--out", str(out), "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert "100.0%" in proc.stderr  # the text progress bar
    df = pd.read_csv(out / "figure1.csv")
    data = json.loads((out / "figure1.json").read_text())
    for problem in ("chain", "group", "ind"):
        name = f"friedman1-{problem}"
        assert set(df[df["run"] == name].estimator) == set(reproduce.FIGURE1_ESTIMATORS)
        assert data["results"][name]["params"]["seed"] == 1 and data["results"][name]["complete"]
    summary = pd.read_csv(out / "figure1_summary.csv")
    assert len(summary) == 12
    page = (out / "figure1.html").read_text()
    assert "plotly.js v" in page or "Plotly" in page[:5_000_000]
    assert page.count("<script src=") == 0  # nothing loaded from the network: the bundle is inline
    assert page.count('class="plotly-graph-div"') == 3
    listed = {Path(p) for p in proc.stdout.split()}
    assert listed == convention("figure1", out)


@pytest.mark.slow
def test_unknown_subcommand_fails_with_a_message(tmp_path):
    proc = run("reproduce", "figure99", "--out", str(tmp_path))
    assert proc.returncode != 0 and "figure99" in proc.stderr
    proc = run()
    assert proc.returncode != 0 and "reproduce" in proc.stderr


def test_registry_and_provider_signature(tmp_path, monkeypatch, capsys):
    assert set(cli.REPRODUCTIONS) == {"figure1", "projection-size", "schemes", "table4", "table6",
                                      "bias-variance", "forest-table1", "compression", "real-data",
                                      "forest-projection-size", "forest-randomization", "forest-schemes"}
    calls = []

    def fake(out_dir, *, quick, seed, progress):
        progress(0.5, "half")
        calls.append((out_dir, quick, seed))
        path = out_dir / "x.csv"
        path.write_text("a\n1\n")
        return [path]

    monkeypatch.setitem(cli.REPRODUCTIONS, "table6", fake)
    assert cli.main(["reproduce", "table6", "--out", str(tmp_path), "--seed", "4"]) == 0
    assert calls == [(tmp_path, False, 4)]
    assert str(tmp_path / "x.csv") in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("what", ["projection-size", "schemes"])
def test_other_reproductions_quick(tmp_path, what):
    written = cli.REPRODUCTIONS[what](tmp_path, quick=True, seed=0, progress=lambda f, m: None)
    claims = {tmp_path / f"{what}_claims.csv", tmp_path / f"{what}_claims.md"}   # the delicious claims
    assert set(written) == convention(what, tmp_path) | claims
    assert all(p.exists() for p in written)
    _assert_offline_html(tmp_path / f"{what}.html")


def test_text_progress_bar(capsys):
    import io
    stream = io.StringIO()
    bar = cli.TextProgress(stream=stream, min_interval=0)
    bar(0.25, "fitting")
    bar(1.0, "done")
    bar.close()
    text = stream.getvalue()
    assert "25.0%" in text and "100.0%" in text and text.endswith("\n") and "#" * 30 in text


def test_budget_option_is_checked_before_any_work(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["reproduce", "figure1", "--out", str(tmp_path), "--budget", "full"])
    assert exc.value.code == 2 and "--budget only applies" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "table4", "--out", str(tmp_path), "--budget", "full", "--quick"])
    assert "exclude" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _assert_offline_html(path):
    """A standalone page: plotly's bundle inline, nothing fetched from the network."""
    page = Path(path).read_text(encoding="utf-8")
    assert re.search(r"<script[^>]*\bsrc\s*=\s*[\"']?(https?:)?//", page, re.I) is None
    assert "<script src=" not in page
    assert "plotly.js v" in page and len(page) > 1_000_000      # the embedded bundle
    assert 'class="plotly-graph-div"' in page


@pytest.mark.slow
def test_reproduce_table6_quick_writes_csv_json_and_offline_html(tmp_path, monkeypatch, capsys):
    from engine.experiments import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "quick", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    assert cli.main(["reproduce", "table6", "--quick", "--out", str(tmp_path)]) == 0
    listed = {Path(p) for p in capsys.readouterr().out.split()}
    assert listed and all(p.exists() for p in listed)
    assert listed == convention("table6", tmp_path) | {
        tmp_path / f"table6_pvalues_friedman1-{s}.csv" for s in ("chain", "group", "ind")}
    df = pd.read_csv(tmp_path / "table6_summary.csv")
    assert len(df) == 3 * 4 and df["paper_half"].notna().all() and df["half_mean"].notna().all()
    data = json.loads((tmp_path / "table6.json").read_text())
    assert data["settings"]["budget"] == "quick"
    assert data["results"]["friedman1-ind"]["n_noisy_outputs"] == 16
    _assert_offline_html(tmp_path / "table6.html")


def test_reproduce_bias_variance_quick_writes_csv_json_and_offline_html(tmp_path, monkeypatch, capsys):
    tiny = dict(n_learning_sets=2, n_train=60, n_test=50, n_max=10, n_stages=4, n_seeds=2, n_models=(1, 2))
    monkeypatch.setitem(reproduce.BIAS_VARIANCE_SETTINGS, "quick", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    assert cli.main(["reproduce", "bias-variance", "--quick", "--out", str(tmp_path), "--seed", "2"]) == 0
    listed = {Path(p) for p in capsys.readouterr().out.split()}
    assert listed == convention("bias-variance", tmp_path) and all(p.exists() for p in listed)
    runs = ("trees_leaves2", "trees_leaves8", "projections", "averaging")
    df = pd.read_csv(tmp_path / "bias-variance.csv")
    assert set(df["run"]) == set(runs)
    # the decomposition's identity holds in what was written
    assert (abs(df["error"] - (df["noise"] + df["bias2"] + df["variance"])) < 1e-9).all()
    data = json.loads((tmp_path / "bias-variance.json").read_text())
    for run in runs:
        result = data["results"][run]
        assert result["seed"] == 2 and result["n_sets_done"] == 2 and not result["partial"]
    page = (tmp_path / "bias-variance.html").read_text()
    _assert_offline_html(tmp_path / "bias-variance.html")
    assert page.count('class="plotly-graph-div"') == 4


@pytest.mark.slow
def test_table4_defaults_to_the_papers_full_grid(tmp_path, monkeypatch, capsys):
    # Without --budget or --quick, reproduce runs the paper's settings (the rule);
    # the grid itself is shrunk here so the test takes seconds.
    from engine.experiments import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "full", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    assert cli.main(["reproduce", "table4", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "table4.json").read_text())["settings"]["budget"] == "full"


@pytest.mark.slow
def test_no_refit_reaches_the_protocol_and_is_checked(tmp_path, monkeypatch, capsys):
    from engine.experiments import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "quick", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    assert cli.main(["reproduce", "table4", "--quick", "--no-refit", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "table4.json").read_text())
    assert data["settings"]["refit"] is False
    assert all(r["refit"] is False for r in data["results"].values())
    capsys.readouterr()
    assert reproduce.REPRODUCTION_REFIT is False
    assert cli.main(["reproduce", "table4", "--quick", "--refit", "--out", str(tmp_path / "refit")]) == 0
    assert json.loads((tmp_path / "refit" / "table4.json").read_text())["settings"]["refit"] is True
    capsys.readouterr()
    for args, message in ((["figure1", "--no-refit"], "--refit / --no-refit only apply"),
                          (["table4", "--datasets", "edm"], "--datasets only applies to real-data")):
        with pytest.raises(SystemExit):
            cli.main(["reproduce", *args, "--out", str(tmp_path / "x")])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def _scores(out):
    """The table's numbers (test scores per problem and estimator), not its timings."""
    data = json.loads((out / "table4.json").read_text())
    return {run: (r["estimators"], r["scores"], r["chosen"]) for run, r in data["results"].items()}


@pytest.mark.slow
def test_a_first_ctrl_c_writes_a_partial_table_and_the_same_command_resumes_it(tmp_path, monkeypatch, capsys):
    """A real SIGINT to this process while table4 runs its second problem: the first problem
    (finished, cached) and the repeats done are written, flagged partial; the same command then
    computes only what is missing and gives the numbers of an uninterrupted run."""
    import signal
    from engine.experiments import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "quick", tiny)
    monkeypatch.setattr(reproduce, "N_JOBS", 1)
    assert cli.main(["reproduce", "table4", "--quick", "--out", str(tmp_path / "whole")]) == 0

    real_run = reproduce.run_model_selection
    problems = []

    def interrupted_in_the_second_problem(dataset, *args, **kwargs):
        problems.append(dataset)
        if len(problems) == 2:      # Ctrl-C as its first repeat starts
            progress = kwargs["progress"]
            kwargs["progress"] = lambda f, m="": (os.kill(os.getpid(), signal.SIGINT) if f > 0 else None,
                                                  progress(f, m))
        return real_run(dataset, *args, **kwargs)

    monkeypatch.setattr(reproduce, "run_model_selection", interrupted_in_the_second_problem)
    out = tmp_path / "stopped"
    assert cli.main(["reproduce", "table4", "--quick", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "stopping after the work in progress" in err and "the same command resumes" in err
    data = json.loads((out / "table4.json").read_text())
    assert data["settings"]["partial"] is True
    assert list(data["results"]) == ["friedman1-chain", "friedman1-group"][:len(data["results"])]
    assert data["results"]["friedman1-chain"]["n_repeats_done"] == 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler      # handler given back

    problems.clear()
    monkeypatch.setattr(reproduce, "run_model_selection", real_run)
    calls = []
    monkeypatch.setattr(reproduce, "run_model_selection", lambda d, *a, **k: calls.append(d) or real_run(d, *a, **k))
    assert cli.main(["reproduce", "table4", "--quick", "--out", str(out)]) == 0
    # run_model_selection takes a Problem since issue 41 (a name before): compare the data sets' names
    assert [getattr(d, "dataset", d) for d in calls] == ["friedman1-group", "friedman1-ind"]   # chain from the cache
    assert json.loads((out / "table4.json").read_text())["settings"]["partial"] is False
    assert _scores(out) == _scores(tmp_path / "whole")


@pytest.mark.slow
@pytest.mark.timeout(3600)     # three runs of the command; seconds each on an idle machine, minutes on a loaded one
def test_ctrl_c_in_a_terminal_leaves_a_valid_partial_table_no_leaked_workers_and_a_resume(tmp_path):
    """The command as a user runs it, on every core: Ctrl-C (SIGINT to its whole process group, the
    joblib workers included, as a terminal sends it) once the first problem is done. It exits 0 with
    a valid partial table and no leaked joblib folders or workers; the same command then gives the
    numbers of an uninterrupted run."""
    import signal
    import time
    whole, out = tmp_path / "whole", tmp_path / "stopped"
    # the command line itself, on a smaller grid than --quick's (the grid is not what is tested here)
    small = ("import sys; from engine.experiments import model_selection as ms; from engine.__main__ import main; "
             "ms.BUDGETS['quick'] = dict(learning_rate=(0.5,), max_leaf_nodes=(2, 4), max_features=(1.0,), "
             "loss='primary', n_steps=30); sys.exit(main(sys.argv[1:]))")
    command = [sys.executable, "-c", small, "reproduce", "table4", "--quick", "--out"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert subprocess.run(command + [str(whole)], cwd=ROOT, env=env, capture_output=True, timeout=1800).returncode == 0
    proc = subprocess.Popen(command + [str(out)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    first = out / "cache" / "friedman1-chain" / "table4.jsonl"
    deadline = time.monotonic() + 1800
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=1800)
    assert proc.returncode == 0, stderr[-3000:]
    assert "leaked" not in stderr and "Traceback" not in stderr
    assert "the same command resumes" in stderr
    data = json.loads((out / "table4.json").read_text())
    assert data["settings"]["partial"] is True and data["results"]["friedman1-chain"]["n_repeats_done"] == 5
    assert {Path(p) for p in stdout.split()} >= convention("table4", out)
    resumed = subprocess.run(command + [str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert resumed.returncode == 0 and "read back" in resumed.stderr
    assert json.loads((out / "table4.json").read_text())["settings"]["partial"] is False
    assert _scores(out) == _scores(whole)


def test_every_target_says_its_expected_time_and_what_quick_leaves_out():
    from engine.reports import expected
    assert set(expected.QUICK_CUTS) == set(reproduce.REPRODUCTIONS)
    for target in reproduce.REPRODUCTIONS:
        quick = expected.expected_text(target, "quick")
        assert quick.startswith("expected: ") and f"--quick: {expected.QUICK_CUTS[target]}" in quick
        assert "--quick" not in expected.expected_text(target, "full")
    assert "16 min" in expected.expected_text("table4", "moderate")
    assert [expected.duration_text(s) for s in (45, 960, 9000)] == ["45 s", "16 min", "2.5 h"]


def test_real_data_quick_leaves_the_wide_sets_out_unless_named(tmp_path, monkeypatch):
    from engine.experiments.real_data import available_study_datasets
    asked = []
    monkeypatch.setattr(reproduce, "run_real_data", lambda data, *a, **k: asked.append(data.datasets) or "result")
    monkeypatch.setattr(reproduce, "write_real_data_report", lambda result, out: [])
    reproduce.reproduce_real_data(tmp_path, quick=True)
    reproduce.reproduce_real_data(tmp_path, quick=True, datasets=["bibtex"])
    reproduce.reproduce_real_data(tmp_path, budget="moderate")
    assert asked[0] == tuple(d for d in available_study_datasets() if d not in ("delicious", "bibtex", "corel5k", "scm20d"))
    assert asked[1:] == [("bibtex",), tuple(available_study_datasets())]
