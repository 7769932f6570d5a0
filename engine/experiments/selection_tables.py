"""The model selection's results as the Benchmark page shows them: one row per estimator beside the
paper's Table 4 (or 6) when the run follows its protocol, and the settings chosen per repeat.
(:mod:`engine.experiments.model_selection` computes them.)"""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.experiments.model_selection import FRIEDMAN_N_TEST, FRIEDMAN_N_TRAIN
from engine.experiments.published import PAPER_TABLE4, PAPER_TABLE6

__all__ = ["benchmark_frame", "chosen_frame", "paper_table4_rows", "paper_table6_rows"]


def paper_table4_rows(result):
    """The paper's Table 4 rows (estimator -> (mean, std, rank)) comparable with
    ``result``: a Friedman1 problem under its protocol (300 / 4000 splits, no noisy
    outputs); otherwise None."""
    if (result.n_noisy_outputs or result.n_train != FRIEDMAN_N_TRAIN or result.n_test != FRIEDMAN_N_TEST
            or not str(result.split).startswith("Friedman1")):
        return None
    return PAPER_TABLE4.get(result.dataset)


def paper_table6_rows(result):
    """The paper's Table 6 rows (estimator -> (half-macro-r2, its rank, macro-r2 mean, std,
    rank)) comparable with ``result``: a Friedman1 problem under its protocol with 16 noisy
    outputs appended; otherwise None."""
    if (result.n_noisy_outputs != 16 or result.n_train != FRIEDMAN_N_TRAIN or result.n_test != FRIEDMAN_N_TEST
            or not str(result.split).startswith("Friedman1")):
        return None
    return PAPER_TABLE6.get(result.dataset)


def _mean_std_text(means, stds):
    return [("–" if not np.isfinite(m) else f"{m:.3f} ± " + ("n/a" if not np.isfinite(s) else f"{s:.3f}"))
            for m, s in zip(means, stds)]


def benchmark_frame(result) -> pd.DataFrame:
    """One row per estimator, best rank first: rank, estimator, mean, std, the
    text "mean ± std", the number of repeats, and (Friedman1 without noisy
    outputs) the paper's Table 4 mean, std and rank next to ours."""
    df = pd.DataFrame({"rank": np.asarray(result.ranks, dtype=int), "estimator": list(result.estimators),
                       "mean": result.mean, "std": result.std})
    df["mean ± std"] = _mean_std_text(result.mean, result.std)
    if result.half_mean is not None:      # noisy outputs appended (Table 6): score on the real ones
        df["half mean"], df["half std"] = result.half_mean, result.half_std
        df["half rank"] = np.asarray(result.half_ranks, dtype=int)
        df["half-macro-r2"] = _mean_std_text(result.half_mean, result.half_std)
    df["repeats"] = int(result.n_repeats_done)
    paper = paper_table4_rows(result)
    if paper is not None:
        df["paper mean"] = [paper[e][0] if e in paper else np.nan for e in result.estimators]
        df["paper std"] = [paper[e][1] if e in paper else np.nan for e in result.estimators]
        df["paper rank (of 5)"] = [paper[e][2] if e in paper else pd.NA for e in result.estimators]
        df["paper rank (of 5)"] = df["paper rank (of 5)"].astype("Int64")
        df["paper (Table 4)"] = [f"{paper[e][0]:.3f} ± {paper[e][1]:.3f} ({paper[e][2]})" if e in paper else ""
                                 for e in result.estimators]
    paper6 = paper_table6_rows(result)
    if paper6 is not None:
        df["paper (Table 6)"] = [f"half {paper6[e][0]:.3f} ({paper6[e][1]}); {paper6[e][2]:.3f} ± {paper6[e][3]:.3f} "
                                 f"({paper6[e][4]})" if e in paper6 else "" for e in result.estimators]
    df["scores per repeat"] = [" ".join(f"{s:.3f}" for s in row) for row in np.asarray(result.scores)]
    return df.sort_values(["rank", "estimator"], kind="stable").reset_index(drop=True)


def chosen_frame(result) -> pd.DataFrame:
    """The hyper-parameters chosen on the validation set, one row per (estimator, repeat)."""
    rows = []
    for e in result.estimators:
        for r, choice in enumerate(result.chosen.get(e, []), start=1):
            rows.append({"estimator": e, "repeat": r, **choice})
    return pd.DataFrame(rows)
