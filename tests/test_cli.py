"""python -m engine reproduce ...: files written, offline HTML, errors."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engine import __main__ as cli

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_reproduce_figure1_quick_writes_csv_json_and_offline_html(tmp_path):
    out = tmp_path / "figure1"
    proc = run("reproduce", "figure1", "--quick", "--out", str(out), "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert "100.0%" in proc.stderr  # the text progress bar
    for problem in ("chain", "group", "ind"):
        df = pd.read_csv(out / f"figure1_friedman1-{problem}.csv")
        assert set(df.estimator) == set(cli.FIGURE1_ESTIMATORS)
        data = json.loads((out / f"figure1_friedman1-{problem}.json").read_text())
        assert data["params"]["seed"] == 1 and data["complete"]
    summary = pd.read_csv(out / "figure1_summary.csv")
    assert len(summary) == 12
    page = (out / "figure1.html").read_text()
    assert "plotly.js v" in page or "Plotly" in page[:5_000_000]
    assert page.count("<script src=") == 0  # nothing loaded from the network: the bundle is inline
    assert page.count('class="plotly-graph-div"') == 3
    listed = proc.stdout.split()
    assert all(Path(p).exists() for p in listed) and len(listed) == 8


def test_unknown_subcommand_fails_with_a_message(tmp_path):
    proc = run("reproduce", "figure99", "--out", str(tmp_path))
    assert proc.returncode != 0 and "figure99" in proc.stderr
    proc = run()
    assert proc.returncode != 0 and "reproduce" in proc.stderr


def test_missing_provider_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(cli.REPRODUCTIONS, "table4", cli._lazy("engine.no_such_module", "reproduce_table4"))
    assert cli.main(["reproduce", "table4", "--quick", "--out", str(tmp_path)]) == 2
    assert "engine.no_such_module.reproduce_table4 is not available" in capsys.readouterr().err


def test_registry_and_provider_signature(tmp_path, monkeypatch, capsys):
    assert set(cli.REPRODUCTIONS) == {"figure1", "projection-size", "schemes", "table4", "table6",
                                      "bias-variance", "forest-table1"}
    calls = []

    def fake(out_dir, quick, seed, progress):
        progress(0.5, "half")
        calls.append((out_dir, quick, seed))
        path = out_dir / "x.csv"
        path.write_text("a\n1\n")
        return [path]

    monkeypatch.setitem(cli.REPRODUCTIONS, "table6", fake)
    assert cli.main(["reproduce", "table6", "--out", str(tmp_path), "--seed", "4"]) == 0
    assert calls == [(tmp_path, False, 4)]
    assert str(tmp_path / "x.csv") in capsys.readouterr().out


@pytest.mark.parametrize("what", ["projection-size", "schemes"])
def test_other_reproductions_quick(tmp_path, what):
    written = cli.REPRODUCTIONS[what](tmp_path, True, 0, lambda f, m: None)
    assert all(p.exists() for p in written)
    assert any(p.suffix == ".html" for p in written) and any(p.suffix == ".json" for p in written)


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


def test_reproduce_table6_quick_writes_csv_json_and_offline_html(tmp_path, monkeypatch, capsys):
    from engine import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "quick", tiny)
    monkeypatch.setattr(ms, "REPRODUCE_N_JOBS", 1)
    assert cli.main(["reproduce", "table6", "--quick", "--out", str(tmp_path)]) == 0
    listed = [Path(p) for p in capsys.readouterr().out.split()]
    assert listed and all(p.exists() for p in listed)
    assert {p.name for p in listed} >= {"table6.csv", "table6.json", "table6.html",
                                        "table6_pvalues_friedman1-group.csv"}
    df = pd.read_csv(tmp_path / "table6.csv")
    assert len(df) == 3 * 4 and df["paper_half"].notna().all() and df["half_mean"].notna().all()
    data = json.loads((tmp_path / "table6.json").read_text())
    assert data["budget"] == "quick"
    assert data["results"]["friedman1-ind"]["n_noisy_outputs"] == 16
    _assert_offline_html(tmp_path / "table6.html")


def test_reproduce_bias_variance_quick_writes_csv_json_and_offline_html(tmp_path, monkeypatch, capsys):
    from engine import bias_variance as bv
    tiny = dict(n_learning_sets=2, n_train=60, n_test=50, n_max=10, n_stages=4, n_seeds=2, n_models=(1, 2))
    monkeypatch.setitem(bv.REPRODUCE_SETTINGS, "quick", tiny)
    monkeypatch.setattr(bv, "REPRODUCE_N_JOBS", 1)
    assert cli.main(["reproduce", "bias-variance", "--quick", "--out", str(tmp_path), "--seed", "2"]) == 0
    listed = [Path(p) for p in capsys.readouterr().out.split()]
    assert all(p.exists() for p in listed)
    tags = ("trees_leaves2", "trees_leaves8", "projections", "averaging")
    assert {p.name for p in listed} == ({f"bias_variance_{t}.{x}" for t in tags for x in ("csv", "json")}
                                        | {f"bias_variance_{t}.html" for t in ("trees", "curves", "projections",
                                                                               "averaging")})
    for tag in tags:
        df = pd.read_csv(tmp_path / f"bias_variance_{tag}.csv")
        # the decomposition's identity holds in what was written
        assert (abs(df["error"] - (df["noise"] + df["bias2"] + df["variance"])) < 1e-9).all()
        data = json.loads((tmp_path / f"bias_variance_{tag}.json").read_text())
        assert data["seed"] == 2 and data["n_sets_done"] == 2 and not data["partial"]
    for page in ("trees", "curves", "projections", "averaging"):
        _assert_offline_html(tmp_path / f"bias_variance_{page}.html")


def test_table4_defaults_to_the_papers_full_grid(tmp_path, monkeypatch, capsys):
    # Without --budget or --quick, reproduce runs the paper's settings (the rule);
    # the grid itself is shrunk here so the test takes seconds.
    from engine import model_selection as ms
    tiny = dict(learning_rate=(0.5,), max_leaf_nodes=(2,), max_features=(1.0,), loss="primary", n_steps=10)
    monkeypatch.setitem(ms.BUDGETS, "full", tiny)
    monkeypatch.setattr(ms, "REPRODUCE_N_JOBS", 1)
    assert cli.main(["reproduce", "table4", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "table4.json").read_text())["budget"] == "full"
