"""python -m engine.bench --extreme: the extreme-classification peers run for real, the scores and the bookkeeping.

No timing is asserted (speed is what the benchmark reports).
"""
import io

import numpy as np
import pytest
from scipy import sparse

from engine.bench import extreme
from engine.experiments import label_trees
from engine.bench.problems import StagedRanking, cross_entropy
from engine.metrics import lrap, ndcg_at_k, precision_at_k


def _tiny_problem(seed=0, n=240, p=30, d=12):
    """Labels that the inputs decide: label j is on where feature j (or j + d) is large."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, p)) * (rng.uniform(size=(n, p)) < 0.5)
    Y = ((X[:, :d] + X[:, d:2 * d]) > 0.6).astype(float)
    Y[Y.sum(axis=1) == 0, 0] = 1.0
    return sparse.csr_matrix(X), Y


def _split(X, Y, n_train=180):
    return X[:n_train], Y[:n_train], X[n_train:], Y[n_train:]


def _chance_p1(Y):
    return Y[Y.sum(axis=1) > 0].mean()


def test_plt_runs_and_ranks_better_than_chance():
    pytest.importorskip("napkinxc")
    X, Y = _tiny_problem()
    Xtr, Ytr, Xte, Yte = _split(label_trees.l2_rows(X), Y)
    seconds, P = label_trees.plt_fit(Xtr, Ytr, Xte)
    assert seconds >= 0.0 and P.shape == Yte.shape
    assert ((P >= 0) & (P <= 1)).all()                    # probabilities, every label returned
    assert precision_at_k(Yte, P, 1) > _chance_p1(Yte) + 0.2


@pytest.mark.parametrize("setting", list(label_trees.OMIKUJI_SETTINGS))
def test_omikuji_runs_from_its_file_and_ranks_better_than_chance(tmp_path, setting):
    pytest.importorskip("omikuji")
    X, Y = _tiny_problem(1)
    Xtr, Ytr, Xte, Yte = _split(label_trees.l2_rows(X), Y)
    path = tmp_path / "train.txt"
    label_trees.write_xmc_file(path, Xtr, Ytr)
    seconds, S = label_trees.omikuji_fit(str(path), Xte, Y.shape[1], setting)
    assert seconds >= 0.0 and S.shape == Yte.shape
    assert precision_at_k(Yte, S, 1) > _chance_p1(Yte) + 0.2


def test_xmc_file_format(tmp_path):
    X = sparse.csr_matrix(np.array([[0.0, 0.5, 0.25], [1.0, 0.0, 0.0]]))
    Y = np.array([[1, 0, 1, 0], [0, 0, 0, 0]])
    path = tmp_path / "f.txt"
    label_trees.write_xmc_file(path, X, Y)
    assert path.read_text().splitlines() == ["2 3 4", "0,2 1:0.5 2:0.25", " 0:1"]


def test_l2_rows_have_unit_norm_and_keep_empty_rows():
    X = sparse.csr_matrix(np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 2.0]]))
    N = label_trees.l2_rows(X).toarray()
    np.testing.assert_allclose(N, [[0.6, 0.8], [0.0, 0.0], [0.0, 1.0]])


def test_staged_ranking_equals_the_metrics():
    rng = np.random.default_rng(3)
    Y = (rng.uniform(size=(50, 9)) < 0.3).astype(float)
    Y[:3] = 0.0
    S = np.round(rng.normal(size=Y.shape), 1)               # ties
    P = 1 / (1 + np.exp(-S))
    scores = StagedRanking(Y)(S, P)
    for k in (1, 3, 5):
        assert scores[f"P@{k}"] == pytest.approx(precision_at_k(Y, S, k), abs=1e-12)
    assert scores["nDCG@5"] == pytest.approx(ndcg_at_k(Y, S, 5), abs=1e-12)
    assert scores["LRAP"] == pytest.approx(lrap(Y, S), abs=1e-12)
    expected = -np.mean(Y * np.log(P) + (1 - Y) * np.log(1 - P))
    assert scores["cross-entropy"] == pytest.approx(expected, rel=1e-12)
    assert StagedRanking(Y)(S)["cross-entropy"] is None
    assert cross_entropy(Y > 0, np.where(Y > 0, 0.0, 1.0)) == pytest.approx(-np.log(1e-15), rel=1e-4)  # clipped


def test_score_matrix_fills_the_labels_left_out():
    S = label_trees.score_matrix([[(2, 0.9), (0, 0.3)], []], 2, 3)
    np.testing.assert_array_equal(S, [[0.3, label_trees.UNSCORED, 0.9], [label_trees.UNSCORED] * 3])


def test_step_cpu_seconds_spreads_each_chunk_by_the_step_clock():
    clock = [1.0, 2.0, 4.0, 5.0, 6.0]
    # chunk 1: step 1 (CPU 3 s, set-up included); chunk 2: steps 2-3 (CPU 9 s at clock 4);
    # chunk 3: steps 4-6 run, 5 kept (CPU 15 at clock 7)
    cpu = extreme.step_cpu_seconds([(1, 3.0, 1.0), (3, 9.0, 4.0), (6, 15.0, 7.0)], clock)
    np.testing.assert_allclose(cpu, [3.0, 3.0 + 6.0 / 3, 9.0, 9.0 + 6.0 / 3, 9.0 + 6.0 * 2 / 3])


def test_target_arithmetic():
    peers = [extreme.Row("a", 2.0, {"P@1": 0.5, "P@3": 0.4, "P@5": 0.3}),
             extreme.Row("b", 1.0, {"P@1": 0.6, "P@3": 0.3, "P@5": 0.3})]
    engine = extreme.Row("e", 0.9, {"P@1": 0.6, "P@3": 0.4, "P@5": 0.31})
    t = extreme.target(peers, engine)
    assert t["met"] and t["fastest"].system == "b" and t["ratio"] == pytest.approx(0.9)
    slow = extreme.Row("e", 1.5, dict(engine.scores))
    assert not extreme.target(peers, slow)["met"]
    worse = extreme.Row("e", 0.5, {"P@1": 0.59, "P@3": 0.4, "P@5": 0.31})
    t = extreme.target(peers, worse)
    assert not t["met"] and not t["quality"]
    assert "P@1 (0.5900 < 0.6000)" in extreme.target_text(t, worse)


@pytest.mark.slow
def test_quick_run_prints_every_system_and_the_times_to_the_peers():
    pytest.importorskip("napkinxc")
    pytest.importorskip("omikuji")
    out = io.StringIO()
    results = extreme.run(datasets=("corel5k",), quick=True, out=out, progress=None)
    rows = results["corel5k"]["rows"]
    assert [r.system.split(",")[0] for r in rows] == ["napkinXC PLT", "Omikuji Parabel", "Omikuji Bonsai",
                                                      "engine MultiLabelBoostingClassifier()"]
    for r in rows:
        assert all(np.isfinite(r.scores[m]) for m in extreme.METRICS if r.scores[m] is not None)
    fit = results["corel5k"]["engine"]
    assert len(fit.cpu) == len(fit.p1) == len(fit.p5) and np.all(np.diff(fit.cpu) >= -1e-12)
    assert fit.cpu[-1] <= rows[-1].cpu_seconds + 1e-9
    from engine._core.algorithms import PHASE_NAMES
    assert list(fit.phases)[:len(PHASE_NAMES)] == list(PHASE_NAMES)
    assert all(v >= 0 for k, v in fit.phases.items() if k in PHASE_NAMES)
    assert "where the default fit's CPU time goes" in out.getvalue()
    text = out.getvalue()
    assert text.count("| napkinXC PLT, defaults |") == 2 and "target (defaults at or above" in text
