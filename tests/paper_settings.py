"""The papers' settings, for tests that rely on them rather than on the estimators' defaults.

The estimators' defaults serve a practitioner's first fit (issue 34); a test written against
paper 002's teaching setting (gbmort, stumps, mean leaves with the line search, 100 steps,
learning rate 0.1, no early stopping) builds its estimators here, with that setting written
out (``engine.estimators.registry.PAPER_BOOSTING_SETTINGS``, what ``make_estimator``'s paper
names set) and the test's own parameters on top.
"""
from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.registry import PAPER_BOOSTING_SETTINGS

PAPERS = dict(PAPER_BOOSTING_SETTINGS, strategy="multi_output", projection="subsample")


def PaperRegressor(**params):
    """MultiOutputBoostingRegressor with the papers' settings, ``params`` on top."""
    return MultiOutputBoostingRegressor(**{**PAPERS, **params})


def PaperClassifier(**params):
    """MultiLabelBoostingClassifier with the papers' settings, ``params`` on top."""
    return MultiLabelBoostingClassifier(**{**PAPERS, **params})
