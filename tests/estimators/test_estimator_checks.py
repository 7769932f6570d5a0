"""scikit-learn's estimator API checks for the two boosting estimators.

Every strategy of both is checked with the papers' settings (small models, so the checks stay
cheap), and both estimators with their defaults. Checks
listed in ``expected_failed_checks`` are inapplicable or cannot hold, each with
its reason; parametrize_with_checks marks them xfail, strictly, so a check
that starts passing fails until it is taken off the list.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from paper_settings import PaperClassifier, PaperRegressor

# Confirmed on the check's data (its labels are made binary for classifiers that
# do not take multiclass targets, and both fits succeed): the weighted and the
# repeated-rows fit agree (same rho, same training loss) until
# a step where two features split the positive-weight rows into the same two
# groups. Their improvements are then equal in exact arithmetic; summing w * r
# once versus adding r w times rounds them differently, so the fits keep
# different features, which disagree only at the zero-weight rows (absent from
# the repeated data). Dropping zero-weight rows does not help: on other seeds
# the tied features then disagree at other new points. scikit-learn's
# GradientBoostingRegressor and GradientBoostingClassifier fail this check too.
# The projected strategies of the regressor hit such ties on the check's data, and
# so does every classifier strategy (re-verified after the labels rework: in each,
# the first tree that differs splits on another feature with the same partition
# of the positive-weight rows).
TIES = ("equally good splits (two features, same partition of the positive-weight rows) are "
        "broken differently by rounding in the weighted and the repeated-rows fit; the models "
        "then differ at the zero-weight rows")
# The papers' settings (tests/paper_settings.py) for every strategy, and the defaults themselves
# (gbrt-relabel-rpo, 32 leaves, Newton leaves, up to 300 steps, early stopping "auto").
# The defaults grow 32-leaf trees: on the check's 15 rows x 30 features (10 rows of positive
# weight) the first tree already meets such a tie (regressor: the second split on feature 0 in
# one fit, 1 in the other; classifier: the root on feature 5 against 1). Verified: the weighted
# and the repeated-rows fits predict the same at every positive-weight row (difference 0.0) and
# differ only at zero-weight rows. The papers' gbmort fails this check at learning rate 0.1 too
# (stumps, 5 steps); the regressor row below passes it only at its learning rate 0.5.
ESTIMATORS = [
    (MultiOutputBoostingRegressor(),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (MultiLabelBoostingClassifier(),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperRegressor(n_estimators=20, learning_rate=0.5, max_leaf_nodes=4), {}),
    (PaperRegressor(strategy="single_target", n_estimators=10, learning_rate=0.5), {}),
    (PaperRegressor(strategy="projected", projection="gaussian", n_estimators=10,
                    learning_rate=0.5, max_leaf_nodes=3),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperRegressor(strategy="projected_relabel", projection="sparse",
                    n_projections=2, n_estimators=10, learning_rate=0.5,
                    max_leaf_nodes=3),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperClassifier(strategy="single_target", n_estimators=5),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperClassifier(n_estimators=5),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperClassifier(strategy="projected", projection="subsample", n_estimators=5),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
    (PaperClassifier(strategy="projected_relabel", projection="achlioptas",
                     n_projections=2, n_estimators=5),
     {"check_sample_weight_equivalence_on_dense_data": TIES,
      "check_sample_weight_equivalence_on_sparse_data": TIES}),
]


def _expected_failed_checks(estimator):
    for candidate, failures in ESTIMATORS:
        if candidate is estimator:
            return failures
    raise AssertionError(f"unknown estimator {estimator!r}")


@parametrize_with_checks([e for e, _ in ESTIMATORS], expected_failed_checks=_expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_the_defaults_sample_weight_failures_are_ties_at_zero_weight_rows():
    """The cause TIES names, on the check's own data, for the two default estimators: the
    weighted and the repeated-rows fit predict the same at every row of positive weight, and
    differ only at zero-weight rows."""
    import numpy as np
    from sklearn.base import clone
    from sklearn.utils import shuffle
    from sklearn.utils.estimator_checks import _enforce_estimator_tags_y

    rng = np.random.RandomState(42)                  # as check_sample_weight_equivalence
    X = rng.rand(15, 30)
    y = rng.randint(0, 3, size=15)
    sw = rng.randint(0, 5, size=15)
    X_w, y_w, sw_w = shuffle(X, y, sw, random_state=0)
    for est in (MultiOutputBoostingRegressor(random_state=0), MultiLabelBoostingClassifier(random_state=0)):
        repeated = clone(est).fit(X.repeat(sw, axis=0), _enforce_estimator_tags_y(est, y.repeat(sw)))
        weighted = clone(est).fit(X_w, _enforce_estimator_tags_y(est, y_w), sample_weight=sw_w)
        raw = "predict" if isinstance(est, MultiOutputBoostingRegressor) else "decision_function"
        a = getattr(repeated, raw)(X).reshape(15, -1)
        b = getattr(weighted, raw)(X).reshape(15, -1)
        np.testing.assert_array_equal(a[sw > 0], b[sw > 0])
        assert not np.allclose(a[sw == 0], b[sw == 0])      # the expected failure is real
