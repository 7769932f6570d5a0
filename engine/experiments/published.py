"""The papers' published numbers, to print beside ours (one place, cited).

* Paper 002 (Joly, Wehenkel & Geurts, "Gradient tree boosting with random
  output projections for multi-label classification and multi-output
  regression"): Table 4 (Friedman1 problems) and Table 6 (with 16 purely noisy
  outputs appended).
* Paper 003 (Joly, Geurts & Wehenkel, ECML PKDD 2014), Table 1, as reprinted in
  Table 5.1 of the thesis 001: LRAP of random forests on the original outputs and
  on Gaussian projections of size q = 1, round(0.5 + ln d) and d (100 trees,
  k = sqrt(p), fully grown; mean ± std over 10 random splits), for the data
  sets this project ships.
* Thesis 001, Table 7.1 (after Joly, Schnitzler, Geurts & Wehenkel, ESANN 2012):
  extra trees (ET) against their ℓ1-compressed version (rET) and the linear
  Lasso on the original features.
"""
import pandas as pd

# Paper 002 (Joly, Wehenkel & Geurts, "Gradient tree boosting with random
# output projections for multi-label classification and multi-output
# regression"), Table 4: macro-r2 mean ± std over 5 splits (rank).
PAPER_TABLE4 = {
    "friedman1-chain": {
        "artificial-gbrt": (0.654, 0.015, 1), "st-gbrt": (0.626, 0.016, 5),
        "gbmort": (0.640, 0.008, 4), "gbrt-relabel-rpo-subsampled": (0.648, 0.015, 2),
        "gbrt-rpo-subsampled": (0.645, 0.013, 3)},
    "friedman1-group": {
        "artificial-gbrt": (0.889, 0.009, 1), "st-gbrt": (0.873, 0.008, 5),
        "gbmort": (0.874, 0.012, 4), "gbrt-relabel-rpo-subsampled": (0.880, 0.009, 2),
        "gbrt-rpo-subsampled": (0.876, 0.007, 3)},
    "friedman1-ind": {
        "artificial-gbrt": (0.831, 0.004, 1), "st-gbrt": (0.830, 0.003, 2),
        "gbmort": (0.644, 0.010, 5), "gbrt-relabel-rpo-subsampled": (0.706, 0.009, 4),
        "gbrt-rpo-subsampled": (0.789, 0.003, 3)},
}
# Paper 002, Table 6 (16 noisy outputs added): half-macro-r2 (rank), then
# macro-r2 mean ± std (rank). The paper gives no std for half-macro-r2.
PAPER_TABLE6 = {
    "friedman1-chain": {
        "st-gbrt": (0.611, 4, 0.265, 0.006, 4), "gbmort": (0.617, 3, 0.291, 0.012, 3),
        "gbrt-relabel-rpo-subsampled": (0.628, 2, 0.292, 0.006, 2),
        "gbrt-rpo-subsampled": (0.629, 1, 0.303, 0.007, 1)},
    "friedman1-group": {
        "st-gbrt": (0.840, 3, 0.364, 0.007, 4), "gbmort": (0.833, 4, 0.394, 0.004, 3),
        "gbrt-relabel-rpo-subsampled": (0.855, 2, 0.395, 0.005, 2),
        "gbrt-rpo-subsampled": (0.862, 1, 0.414, 0.006, 1)},
    "friedman1-ind": {
        "st-gbrt": (0.806, 1, 0.3536, 0.0015, 1), "gbmort": (0.486, 4, 0.1850, 0.0081, 4),
        "gbrt-relabel-rpo-subsampled": (0.570, 3, 0.2049, 0.0033, 3),
        "gbrt-rpo-subsampled": (0.739, 2, 0.3033, 0.0021, 2)},
}

# Paper 003, Table 1 (thesis Table 5.1): data set -> {column: (mean, std)}.
PAPER003_TABLE1 = {
    "emotions": {"mo-rf": (0.800, 0.014), "q=1": (0.800, 0.010), "q=ln d": (0.810, 0.014), "q=d": (0.810, 0.016)},
    "scene": {"mo-rf": (0.870, 0.003), "q=1": (0.875, 0.007), "q=ln d": (0.872, 0.004), "q=d": (0.872, 0.004)},
    "yeast": {"mo-rf": (0.759, 0.008), "q=1": (0.748, 0.006), "q=ln d": (0.755, 0.004), "q=d": (0.758, 0.005)},
    "genbase": {"mo-rf": (0.992, 0.004), "q=1": (0.994, 0.002), "q=ln d": (0.994, 0.004), "q=d": (0.993, 0.004)},
    "medical": {"mo-rf": (0.848, 0.009), "q=1": (0.836, 0.011), "q=ln d": (0.842, 0.014), "q=d": (0.841, 0.009)},
    "bibtex": {"mo-rf": (0.566, 0.004), "q=1": (0.513, 0.006), "q=ln d": (0.548, 0.007), "q=d": (0.564, 0.008)},
    "cal500": {"mo-rf": (0.504, 0.011), "q=1": (0.504, 0.004), "q=ln d": (0.506, 0.007), "q=d": (0.502, 0.010)},
    "corel5k": {"mo-rf": (0.303, 0.012), "q=1": (0.309, 0.011), "q=ln d": (0.307, 0.011), "q=d": (0.299, 0.013)},
}


def table4_paper_frame():
    """Paper 002's Table 4 as a DataFrame (dataset, estimator, paper_mean, paper_std, paper_rank)."""
    return pd.DataFrame([dict(dataset=ds, estimator=e, paper_mean=m, paper_std=s, paper_rank=r)
                         for ds, rows in PAPER_TABLE4.items() for e, (m, s, r) in rows.items()])


def table6_paper_frame():
    """Paper 002's Table 6 (macro-r2 mean ± std and rank; half-macro-r2 and its rank)."""
    return pd.DataFrame([dict(dataset=ds, estimator=e, paper_mean=m, paper_std=s, paper_rank=r,
                              paper_half=h, paper_half_rank=hr)
                         for ds, rows in PAPER_TABLE6.items() for e, (h, hr, m, s, r) in rows.items()])


# Thesis 001, Table 7.1: ET (M = 100, K = p; n_min = 1 on Friedman1 and Two-norm, 10 on
# SEFTi) and rET (t by 10-fold CV, forward stagewise with eps = 0.01), 50 runs. Errors on
# pre-whitened data: quadratic (Friedman1, SEFTi), 0-1 loss (Two-norm); complexity in
# test nodes, the Lasso's in features kept. SEFTi is not available to this project.
THESIS_TABLE71 = {
    "friedman1": {"et_error": 0.19587, "ret_error": 0.18593, "lasso_error": 0.282441, "et_nodes": 29900,
                  "ret_nodes": 885, "compression_factor": 34, "lasso_features": 4},
    "two-norm": {"et_error": 0.04177, "ret_error": 0.06707, "lasso_error": 0.033500, "et_nodes": 4878,
                 "ret_nodes": 540, "compression_factor": 9, "lasso_features": 20},
    "SEFTi": {"et_error": 0.86159, "ret_error": 0.84131, "lasso_error": 0.988031, "et_nodes": 39436,
              "ret_nodes": 2055, "compression_factor": 19, "lasso_features": 14},
}
# Table 7.1's forest settings per data set (n_min: minimum number of samples to split).
THESIS_TABLE71_SETTINGS = {"friedman1": {"n_min": 1}, "two-norm": {"n_min": 1}, "SEFTi": {"n_min": 10}}


def table71_paper_frame():
    """Thesis Table 7.1 as a DataFrame: dataset and one ``paper_<column>`` per column."""
    return pd.DataFrame([{"dataset": ds, **{f"paper_{k}": v for k, v in row.items()}}
                         for ds, row in THESIS_TABLE71.items()])
