"""Cost against d (engine.experiments.cost_vs_outputs): the slopes, a small real measurement, the
shipped file and its command, the figure and the page's sentence computed from the numbers."""
import json
import re
import threading
from dataclasses import replace

import numpy as np
import pytest

from engine import plotting
from engine.experiments.cost_vs_outputs import (
    METHODS,
    SHIPPED_PATH,
    LIVE_SETTINGS,
    SHIPPED_SETTINGS,
    CostMethod,
    CostSettings,
    CostVsOutputsResult,
    estimate_seconds,
    load_shipped,
    loglog_slope,
    main,
    run_cost_vs_outputs,
)
from engine.app.page_content.cost_vs_outputs import cost_takeaway, legend_text, measurement_text

SMALL = CostSettings(d_values=(2, 8, 32), n_samples=120, n_features=6, max_leaf_nodes=4, repeats=2,
                     target_seconds=0.002, min_steps=2)


def synthetic(curves, d_values=(4, 16, 64, 256, 1000), constant=1e-4):
    """A result whose seconds are exactly constant * d ** a for every curve (label, estimator, q, a)."""
    methods = [CostMethod(label, name, q) for label, name, q, _ in curves]
    d = np.asarray(d_values, dtype=float)
    seconds = {label: constant * d ** a for label, _, _, a in curves}
    return CostVsOutputsResult(d_values=list(d_values), methods=methods, seconds=seconds,
                               low={k: 0.9 * v for k, v in seconds.items()}, high={k: 1.1 * v for k, v in seconds.items()},
                               steps={k: [5] * len(d_values) for k in seconds},
                               settings=dict(n_samples=1000, n_features=10, max_leaf_nodes=8, repeats=3,
                                             target_seconds=0.03, min_steps=2, seed=0))


def test_loglog_slope_recovers_the_exponent_of_a_power_law():
    d = np.array([4, 16, 64, 256, 1000])
    for a in (0.0, 0.3, 1.0, 2.0):
        assert loglog_slope(d, 3e-4 * d ** a) == pytest.approx(a, abs=1e-12)


def test_loglog_slope_is_the_least_squares_fit_and_skips_missing_points():
    d = np.array([2.0, 4, 8, 16])
    s = np.array([1.0, 3.0, 2.0, 9.0])
    expected = np.polyfit(np.log(d), np.log(s), 1)[0]            # an independent least-squares fit
    assert loglog_slope(d, s) == pytest.approx(expected)
    assert loglog_slope([2, 4, 8, 16, 32], [1.0, 3.0, 2.0, 9.0, np.nan]) == pytest.approx(expected)
    assert np.isnan(loglog_slope([4, 8], [1.0, np.nan]))         # one point: no slope
    assert np.isnan(loglog_slope([4, 4], [1.0, 2.0]))            # one d: no slope
    with pytest.raises(ValueError, match="same shape"):
        loglog_slope([1, 2, 3], [1, 2])


def test_slopes_ratio_and_sentence_on_synthetic_timings():
    exps = [("st-gbrt", "st-gbrt", 1, 1.0), ("gbmort", "gbmort", 1, 0.9),
            ("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1, 0.25), ("gbrt-relabel-rpo, q = 16", "gbrt-relabel-rpo-gaussian", 16, 0.5)]
    res = synthetic(exps)
    slopes = res.slopes()
    assert slopes == pytest.approx({"st-gbrt": 1.0, "gbmort": 0.9, "gbrt-rpo, q = 1": 0.25, "gbrt-relabel-rpo, q = 16": 0.5})
    assert res.ratio("gbrt-rpo, q = 1", "gbmort") == pytest.approx(1000 ** 0.25 / 1000 ** 0.9)
    text = cost_takeaway(res)
    assert "st-gbrt **1.00**; gbmort **0.90**; gbrt-rpo, q = 1 **0.25**; gbrt-relabel-rpo, q = 16 **0.50**" in text
    assert "**At d = 1000**" in text
    assert "Over the upper half alone, d ≥ 64: st-gbrt 1.00; gbmort 0.90; gbrt-rpo, q = 1 0.25;" in text
    kinked = synthetic(exps)
    kinked.seconds["gbmort"] = np.array([1.0, 1.0, 1.0, 4.0, 15.625]) * 1e-3     # flat, then d^1 from d = 64
    assert kinked.slope("gbmort", kinked.upper_half) == pytest.approx(1.0)
    assert kinked.slope("gbmort") == pytest.approx(np.polyfit(np.log(kinked.d_values), np.log(kinked.seconds["gbmort"]), 1)[0])
    assert f"gbrt-rpo, q = 1 {1e-4 * 1000 ** 0.25 * 1e3:.3g} ms (**{1000 ** 0.25 / 1000 ** 0.9:.2g}×**)" in text
    assert "Every projected curve rises more slowly than gbmort's." in text
    steep = synthetic([("gbmort", "gbmort", 1, 0.5), ("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1, 0.8)])
    assert "0 of the 1 projected curves rise more slowly than gbmort's." in cost_takeaway(steep)


def test_the_sentence_takes_the_largest_d_both_methods_have():
    res = synthetic([("gbmort", "gbmort", 1, 1.0), ("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1, 0.2)])
    res.seconds["gbrt-rpo, q = 1"][-1] = np.nan        # a stopped run: d = 1000 missing for one method
    res.complete = False
    text = cost_takeaway(res)
    assert "**At d = 256**" in text and "Stopped" in text
    assert res.ratio("gbrt-rpo, q = 1", "gbmort") == pytest.approx(256 ** 0.2 / 256)


def test_a_small_measurement_covers_every_method_at_every_d():
    seen = []
    res = run_cost_vs_outputs(SMALL, progress=lambda f, m: seen.append(f))
    assert res.complete and res.labels == [m.label for m in METHODS]
    for label in res.labels:
        s = np.asarray(res.seconds[label])
        assert np.isfinite(s).sum() == 3 and (s > 0).all()
        assert (np.asarray(res.low[label]) <= s).all() and (s <= np.asarray(res.high[label])).all()
        assert min(res.steps[label]) >= SMALL.min_steps
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert res.settings["repeats"] == 2 and res.machine["cores"] >= 1 and res.machine["engine"]
    back = CostVsOutputsResult.from_json(res.to_json())
    assert back.slopes() == pytest.approx(res.slopes(), nan_ok=True)
    assert len(res.to_frame()) == 3 * len(METHODS)


def test_a_stop_keeps_whole_columns_of_small_d():
    stop = threading.Event()
    res = run_cost_vs_outputs(SMALL, progress=lambda f, m: stop.set() if f >= 0.4 else None, stop=stop)
    assert not res.complete
    measured = {label: list(res.measured(label)) for label in res.labels}
    assert measured["st-gbrt"][:1] == [2] and 32 not in measured["st-gbrt"]


@pytest.mark.parametrize("bad, match", [
    (dict(d_values=(4,)), "d_values"), (dict(d_values=("a", 2)), "d_values"), (dict(n_samples=5), "n_samples"),
    (dict(repeats=0), "repeats"), (dict(target_seconds=0), "target_seconds"), (dict(max_leaf_nodes=1), "max_leaf_nodes"),
    (dict(n_features=2000), "n_features"), (dict(min_steps=0), "min_steps"), (dict(methods=()), "methods"),
    (dict(methods=["gbmort"]), "methods"), (dict(methods=[CostMethod("x", "no-such-method")]), "name")])
def test_bad_settings_are_refused_when_built(bad, match):
    with pytest.raises(ValueError, match=match):
        CostSettings(**bad)


def test_settings_are_kept_sorted_and_a_run_refuses_what_is_not_settings():
    assert CostSettings(d_values=[32, 2, 8, 8]).d_values == (2, 8, 32)
    assert LIVE_SETTINGS == CostSettings() and SHIPPED_SETTINGS.n_samples == 2000
    with pytest.raises(ValueError, match="seed"):
        run_cost_vs_outputs(SMALL, seed=-1)
    with pytest.raises(ValueError, match="settings"):
        run_cost_vs_outputs(dict(d_values=(2, 8)))


def test_the_command_writes_a_file_the_page_can_load(tmp_path, capsys):
    out = tmp_path / "cost.json"
    assert main(["--quick", "--out", str(out), "--d-values", "2,8,32", "--n-samples", "100", "--repeats", "1"]) == 0
    res = load_shipped(out)
    assert res.d_values == [2, 8, 32] and res.settings["n_samples"] == 100
    assert all(np.isfinite(res.seconds[label]).all() for label in res.labels)
    assert "slope" in capsys.readouterr().out
    assert main(["--out", str(out), "--d-values", "4"]) == 2          # refused, nothing measured
    with pytest.raises(FileNotFoundError, match="python -m engine.experiments.cost_vs_outputs"):
        load_shipped(tmp_path / "missing.json")


def test_the_command_writes_under_results_and_refreshes_the_shipped_file_only_when_asked(tmp_path, monkeypatch, capsys):
    import engine.experiments.cost_vs_outputs as cost
    shipped = SHIPPED_PATH.read_bytes()
    monkeypatch.chdir(tmp_path)
    tiny = ["--quick", "--d-values", "2,4", "--n-samples", "60", "--repeats", "1"]
    assert main(tiny) == 0
    assert load_shipped(tmp_path / "results" / "cost_vs_outputs.json").d_values == [2, 4]
    assert SHIPPED_PATH.read_bytes() == shipped
    assert "expected: about" in capsys.readouterr().err
    monkeypatch.setattr(cost, "SHIPPED_PATH", tmp_path / "shipped.json")
    assert main(tiny + ["--refresh-shipped"]) == 0
    assert load_shipped(tmp_path / "shipped.json").d_values == [2, 4]
    with pytest.raises(SystemExit):
        main(tiny + ["--refresh-shipped", "--out", str(tmp_path / "x.json")])


def test_the_shipped_measurement_is_complete_and_names_its_machine():
    res = load_shipped()
    assert SHIPPED_PATH.name == "cost_vs_outputs.json" and res.complete
    assert min(res.d_values) <= 4 and max(res.d_values) >= 1000 and len(res.d_values) >= 5
    for label in res.labels:
        assert np.isfinite(res.seconds[label]).all()
    for key in ("cpu", "cores", "load_average", "engine", "date"):
        assert res.machine.get(key) not in (None, ""), key
    assert res.machine["cpu"] in measurement_text(res) and str(res.settings["n_samples"]) in measurement_text(res)


def test_estimate_scales_with_the_work():
    res = synthetic([("gbmort", "gbmort", 1, 1.0), ("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1, 0.2)])
    base = CostSettings(d_values=(4, 16, 64), n_samples=1000, repeats=3, target_seconds=0.03, min_steps=2)
    small = estimate_seconds(res, base)
    assert small > 0
    assert estimate_seconds(res, replace(base, repeats=6)) > small
    assert estimate_seconds(res, replace(base, d_values=(4, 16, 64, 256, 1000))) > small


def test_the_figure_draws_the_measurement_and_explains_its_legend():
    exps = [("st-gbrt", "st-gbrt", 1, 1.0), ("gbmort", "gbmort", 1, 0.9),
            ("gbrt-rpo, q = 1", "gbrt-rpo-gaussian", 1, 0.25), ("gbrt-relabel-rpo, q = 16", "gbrt-relabel-rpo-gaussian", 16, 0.5)]
    res = synthetic(exps)
    fig = plotting.cost_vs_outputs_figure(res)
    assert [t.name for t in fig.data] == res.labels
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    for trace in fig.data:
        assert list(trace.x) == res.d_values
        assert np.allclose(trace.y, res.seconds[trace.name])
        assert trace.meta["slope"] == pytest.approx(res.slope(trace.name))
    legend = legend_text(res)
    for label in res.labels:
        assert f"**{label}**" in legend
    assert "16 Gaussian projections" in legend and "d trees" in legend
    assert json.loads(fig.to_json())["data"][0]["error_y"]["visible"]
    assert re.search(r"n = 1000, p = 10, 8 leaves", fig.layout.title.text)
    assert list(fig.layout.xaxis.tickvals) == [4, 16, 64, 256, 1000]      # a tick at every measured d
