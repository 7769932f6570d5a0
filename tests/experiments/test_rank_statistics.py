"""Rank statistics of the real-data study against scipy directly, and against the paper's own numbers."""
import numpy as np
import pytest
from scipy import stats

from engine.experiments.published import (
    PAPER002_DATASETS,
    PAPER002_FRIEDMAN,
    PAPER002_METHODS,
    PAPER002_SCORES,
    PAPER002_WILCOXON,
)
from engine.experiments.rank_statistics import (
    average_ranks,
    dataset_ranks,
    friedman_pvalue,
    nemenyi_critical_difference,
    wilcoxon_matrix,
)

# A hand-made table: 6 data sets (rows) x 4 methods (columns), one tie on row 3.
SCORES = np.array([[0.80, 0.78, 0.75, 0.70],
                   [0.60, 0.62, 0.55, 0.50],
                   [0.90, 0.90, 0.85, 0.88],
                   [0.40, 0.35, 0.45, 0.30],
                   [0.70, 0.69, 0.60, 0.61],
                   [0.55, 0.50, 0.52, 0.49]])
# Their ranks worked out by hand (1 = best, ties share the mean rank).
RANKS = np.array([[1, 2, 3, 4],
                  [2, 1, 3, 4],
                  [1.5, 1.5, 4, 3],
                  [2, 3, 1, 4],
                  [1, 2, 4, 3],
                  [1, 3, 2, 4]])


def test_ranks_by_hand():
    np.testing.assert_array_equal(dataset_ranks(SCORES), RANKS)
    np.testing.assert_allclose(average_ranks(SCORES), RANKS.mean(axis=0))


def test_friedman_is_scipys_test():
    assert friedman_pvalue(SCORES) == pytest.approx(stats.friedmanchisquare(*SCORES.T).pvalue, rel=1e-12)
    # The same test from the ranks (the statistic only sees ranks).
    assert friedman_pvalue(SCORES) == pytest.approx(friedman_pvalue(-RANKS), rel=1e-12)
    assert friedman_pvalue(np.ones((4, 3))) == 1.0
    assert np.isnan(friedman_pvalue(SCORES[:, :2]))          # scipy's test needs >= 3 methods


def test_wilcoxon_is_scipys_test_with_the_papers_signs():
    pvalues, signs = wilcoxon_matrix(SCORES, alpha=0.05)
    k = SCORES.shape[1]
    for i in range(k):
        assert np.isnan(pvalues[i, i]) and signs[i][i] == ""
        for j in range(k):
            if i != j:
                assert pvalues[i, j] == pytest.approx(stats.wilcoxon(SCORES[:, i], SCORES[:, j]).pvalue, rel=1e-12)
                assert pvalues[i, j] == pvalues[j, i]
    # Method 0 beats method 3 on all six data sets: exact two-sided p = 2 / 2^6.
    assert pvalues[0, 3] == pytest.approx(2 / 64)
    assert (signs[0][3], signs[3][0]) == (">", "<")
    # Not significant at 5%: no sign, as in the paper's tables.
    assert pvalues[0, 1] > 0.05 and signs[0][1] == signs[1][0] == ""
    # A larger alpha shows the direction the test favours.
    _, loose = wilcoxon_matrix(SCORES, alpha=0.5)
    assert loose[0][1] == (">" if pvalues[0, 1] < 0.5 else "")


def test_nemenyi_cd_is_the_papers_2_29_and_demsars_table():
    # Paper 002, section 4.4.1: 8 methods over 21 multi-label data sets, alpha = 0.05 -> CD 2.29.
    cd = nemenyi_critical_difference(8, 21)
    assert f"{cd:.2f}" == f"{PAPER002_FRIEDMAN['multilabel']['critical_difference']:.2f}" == "2.29"
    # Demšar (2006), Table 5(a): q_0.05 for k = 2..10 (CD = q sqrt(k (k+1) / (6 N)), N = 6 here).
    q = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q_k in zip(range(2, 11), q):
        assert nemenyi_critical_difference(k, 6) / np.sqrt(k * (k + 1) / 36) == pytest.approx(q_k, abs=1e-3)
    with pytest.raises(ValueError, match="methods"):
        nemenyi_critical_difference(1, 5)
    with pytest.raises(ValueError, match="alpha"):
        nemenyi_critical_difference(3, 5, alpha=1.5)


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="scores"):
        dataset_ranks(np.ones(4))
    with pytest.raises(ValueError, match="finite"):
        average_ranks(np.array([[0.1, np.nan], [0.2, 0.3]]))


# --------------------------------------------------------------------------
# The paper's numbers (published.py): transcription checks and our ranking convention
# --------------------------------------------------------------------------


def _paper_table(task):
    methods = PAPER002_METHODS[task]
    names = [d for d, rows in PAPER002_SCORES.items() if methods[0] in rows]
    means = np.array([[PAPER002_SCORES[d][m][0] for m in methods] for d in names])
    ranks = np.array([[PAPER002_SCORES[d][m][2] for m in methods] for d in names])
    return names, means, ranks


@pytest.mark.parametrize("task, n", [("multilabel", 21), ("regression", 8)])
def test_published_tables_are_complete_and_consistent(task, n):
    names, means, ranks = _paper_table(task)
    assert len(names) == n == PAPER002_FRIEDMAN[task]["n_datasets"]
    assert set(names) <= set(PAPER002_DATASETS)
    np.testing.assert_allclose(ranks.sum(axis=1), 36)            # 1 + ... + 8 on every data set
    table = PAPER002_WILCOXON[task]
    assert len(table) == 8 * 7
    for (a, b), (p, sign) in table.items():
        p_back, sign_back = table[b, a]
        assert p == p_back and {sign, sign_back} in ({""}, {"<", ">"})
        assert (sign != "") == (p < 0.05)          # signs exactly where the paper bolds (p < 0.05)


@pytest.mark.parametrize("task", ["multilabel", "regression"])
def test_our_ranking_of_the_papers_means_gives_the_papers_ranks(task):
    """Ranking the paper's printed means our way (1 = best, ties averaged) gives every rank the
    paper prints in Tables 10-12: same convention, and a check of the transcription."""
    _, means, ranks = _paper_table(task)
    np.testing.assert_array_equal(dataset_ranks(means), ranks)


def test_a_few_transcribed_numbers_read_off_the_paper():
    assert PAPER002_SCORES["CAL500"]["gbrt-relabel-rpo-gaussian"] == (0.507, 0.009, 1.0)
    assert PAPER002_SCORES["yeast-go"]["mo-rf"] == (0.415, 0.014, 8.0)
    assert PAPER002_SCORES["water-quality"]["mo-rf"] == (0.16, 0.01, 1.0)
    assert PAPER002_WILCOXON["multilabel"]["gbrt-relabel-rpo-gaussian", "br-gbrt"] == (6e-05, ">")
    assert PAPER002_WILCOXON["regression"]["st-rf", "gbrt-rpo-subsampled"] == (0.04, ">")
    assert PAPER002_DATASETS["yeast"] == (2417, None, 103, 14)
