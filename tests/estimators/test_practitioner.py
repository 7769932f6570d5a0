"""A practitioner's first afternoon (issue 44): pandas in and out, settings that compose, the
scores a ranking metric takes, a warning for a label with one class.

Every public estimator: engine.estimators' eight classes, and the wrappers artificial-gbrt and
AveragedEstimator (which hand X to boosting members).
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import label_ranking_average_precision_score

from engine.estimators import (
    CompressedForestClassifier,
    CompressedForestRegressor,
    MultiLabelBoostingClassifier,
    MultiOutputBoostingRegressor,
    PerOutputForestClassifier,
    PerOutputForestRegressor,
    ProjectedForestClassifier,
    ProjectedForestRegressor,
)
from engine.estimators.artificial import ArtificialGBRT
from engine.estimators.averaged import AveragedEstimator
from engine.estimators.labels import OneClassLabelWarning
from engine.names import CLASSIFICATION_LOSSES, PROJECTIONS, REGRESSION_LOSSES, STRATEGIES

REGRESSORS = [
    lambda: MultiOutputBoostingRegressor(n_estimators=5),
    lambda: ProjectedForestRegressor(n_estimators=3),
    lambda: ProjectedForestRegressor(n_estimators=3, projection="gaussian", n_components=2),
    lambda: PerOutputForestRegressor(n_estimators=3),
    lambda: CompressedForestRegressor(ProjectedForestRegressor(n_estimators=3), cv=2),
    lambda: ArtificialGBRT("chain", 1, n_estimators=5),
    lambda: AveragedEstimator("gbrt-relabel-rpo-gaussian", n_models=2, n_estimators=3),
]
CLASSIFIERS = [
    lambda: MultiLabelBoostingClassifier(n_estimators=5),
    lambda: ProjectedForestClassifier(n_estimators=3),
    lambda: PerOutputForestClassifier(n_estimators=3),
    lambda: CompressedForestClassifier(ProjectedForestClassifier(n_estimators=3), cv=2),
]
SKLEARN_MESSAGE = "The feature names should match those that were passed during fit"


def _frames(n=60, p=5, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"f{i}" for i in range(p)],
                     index=np.arange(100, 100 + n))
    Y = pd.DataFrame(X.to_numpy()[:, :d] + 0.3 * rng.normal(size=(n, d)),
                     columns=[f"t{j}" for j in range(d)], index=X.index)
    return X, Y


def _feature_names(model):
    """feature_names_in_ of the estimator, or of the member a wrapper hands X to."""
    if hasattr(model, "feature_names_in_"):
        return model.feature_names_in_
    member = model.inner_ if hasattr(model, "inner_") else model.estimators_[0]
    return member.feature_names_in_


def _variants(X):
    cols = list(X.columns)
    return {"reordered": X[cols[::-1]], "missing": X[cols[:-1]],
            "extra": X.assign(extra=1.0), "renamed": X.rename(columns={cols[0]: "other"})}


@pytest.mark.parametrize("make", REGRESSORS + CLASSIFIERS)
def test_a_dataframe_fit_checks_the_columns_at_predict(make):
    X, Y = _frames()
    model = make()
    y = (Y > 0).astype(int) if make in CLASSIFIERS else Y
    model.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # the same columns: no warning
        same = model.predict(X)
    assert list(_feature_names(model)) == list(X.columns)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(np.asarray(same), np.asarray(model.predict(X.to_numpy())))
    for kind, bad in _variants(X).items():
        with pytest.raises(ValueError, match=SKLEARN_MESSAGE):
            model.predict(bad)


@pytest.mark.slow
def test_the_refusals_are_scikit_learns_own():
    """Same message as HistGradientBoostingRegressor on the same reordered columns."""
    X, Y = _frames()
    ours = MultiOutputBoostingRegressor(n_estimators=3).fit(X, Y["t0"])
    theirs = HistGradientBoostingRegressor(max_iter=3).fit(X, Y["t0"])
    bad = _variants(X)["reordered"]
    messages = []
    for model in (ours, theirs):
        with pytest.raises(ValueError) as info:
            model.predict(bad)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_an_array_after_a_dataframe_fit_warns_once_as_scikit_learn():
    X, Y = _frames()
    model = MultiOutputBoostingRegressor(n_estimators=3).fit(X, Y)
    with pytest.warns(UserWarning, match="does not have valid feature names") as record:
        model.predict(X.to_numpy())
    assert len(record) == 1


@pytest.mark.parametrize("make", [REGRESSORS[0], REGRESSORS[1], REGRESSORS[3], REGRESSORS[4],
                                  CLASSIFIERS[0], CLASSIFIERS[2]])
def test_target_names_and_pandas_output(make):
    X, Y = _frames()
    classifier = make in CLASSIFIERS
    y = (Y > 0).astype(int) if classifier else Y
    model = make().fit(X, y)
    assert list(model.target_names_in_) == list(Y.columns)
    plain = model.predict(X)
    assert isinstance(plain, np.ndarray)                       # scikit-learn's convention
    model.set_output(predict="pandas")
    framed = model.predict(X.iloc[:7])
    assert isinstance(framed, pd.DataFrame)
    assert list(framed.columns) == list(Y.columns) and list(framed.index) == list(X.index[:7])
    np.testing.assert_array_equal(framed.to_numpy(), plain[:7])
    assert isinstance(clone(model)._sklearn_output_config, dict)      # clone keeps it
    if classifier:
        scores = model.decision_function(X)
        assert list(scores.columns) == list(Y.columns)
    # a 1-D fit on a named Series gives a named Series
    one = make().set_output(predict="pandas").fit(X, y["t1"])
    assert isinstance(one.predict(X), pd.Series) and one.predict(X).name == "t1"
    # an array fit forgets the names of an earlier DataFrame fit
    model.set_output(predict="default").fit(X.to_numpy(), y.to_numpy())
    assert not hasattr(model, "target_names_in_") and not hasattr(model, "feature_names_in_")


def test_set_output_refuses_an_unknown_container():
    with pytest.raises(ValueError, match="predict must be one of"):
        MultiOutputBoostingRegressor().set_output(predict="polars")


@pytest.mark.parametrize("column, message", [
    (lambda X: X["f0"].astype("category"), "categorical column"),
    (lambda X: X["f0"].astype("Float64").where(X["f0"] > 0, pd.NA), r"missing values \(pd.NA\)"),
    (lambda X: np.where(X["f0"] > 0, "a", "b"), "non-numeric column"),
])
@pytest.mark.parametrize("make", [REGRESSORS[0], REGRESSORS[1], REGRESSORS[4]])
def test_pandas_dtypes_that_are_not_numbers_are_refused_naming_the_column(make, column, message):
    X, Y = _frames()
    bad = X.assign(f0=column(X))
    with pytest.raises(ValueError, match=message) as info:
        make().fit(bad, Y)
    assert "'f0'" in str(info.value)
    fitted = make().fit(X, Y)
    with pytest.raises(ValueError, match=message):
        fitted.predict(bad)


def test_nullable_numbers_without_missing_values_are_read_as_floats():
    X, Y = _frames()
    nullable = X.astype("Float64").assign(f1=(X["f1"] > 0).astype("boolean"),
                                          f2=(10 * X["f2"]).round().astype("Int64"))
    plain = nullable.astype(float)
    a = MultiOutputBoostingRegressor(n_estimators=5, random_state=0).fit(nullable, Y)
    b = MultiOutputBoostingRegressor(n_estimators=5, random_state=0).fit(plain, Y)
    np.testing.assert_array_equal(a.predict(nullable), b.predict(plain))


# ---------------------------------------------------------------- settings that compose

@pytest.mark.slow
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_projection_and_loss_fits_with_the_other_defaults(strategy):
    """Only these three set, everything else at its default (leaf_estimation "auto" included)."""
    X, Y = _frames(n=40, p=3, d=3)
    X, Y = X.to_numpy(), Y.to_numpy()
    for projection in PROJECTIONS:
        for cls, losses, y in ((MultiOutputBoostingRegressor, REGRESSION_LOSSES, Y),
                               (MultiLabelBoostingClassifier, CLASSIFICATION_LOSSES, Y > 0)):
            for loss in losses:
                model = cls(strategy=strategy, projection=projection, loss=loss).fit(X, y)
                mean = strategy == "projected" or loss == "absolute_error"
                assert model.leaf_estimation_ == ("mean" if mean else "newton")
                assert model.leaf_estimation == "auto"
                assert np.isfinite(model.decision_function(X) if loss == "logistic"
                                   else model.predict(X).astype(float)).all()


def test_auto_leaves_are_the_explicit_ones():
    """"auto" fits exactly the model of the leaves it resolves to."""
    X, Y = _frames(n=40, p=3, d=3)
    for params, resolved in (({}, "newton"), ({"strategy": "projected"}, "mean"),
                             ({"loss": "absolute_error"}, "mean")):
        auto = MultiOutputBoostingRegressor(n_estimators=5, random_state=1, **params).fit(X, Y)
        explicit = MultiOutputBoostingRegressor(n_estimators=5, random_state=1, leaf_estimation=resolved,
                                                **params).fit(X, Y)
        np.testing.assert_array_equal(auto.predict(X), explicit.predict(X))


def test_explicit_newton_where_it_does_not_apply_is_still_refused():
    X, Y = _frames(n=40, p=3, d=3)
    with pytest.raises(ValueError, match="leaf_estimation='newton'"):
        MultiOutputBoostingRegressor(strategy="projected", leaf_estimation="newton").fit(X, Y)
    with pytest.raises(ValueError, match="leaf_estimation"):
        MultiOutputBoostingRegressor(leaf_estimation="second").fit(X, Y)


# ---------------------------------------------------------------- ranking scores, one-class labels

@pytest.mark.parametrize("make", CLASSIFIERS)
def test_decision_function_is_what_a_ranking_metric_takes(make):
    X, Y = _frames(n=80, d=4)
    Y = (Y > 0).astype(int)
    model = make().fit(X, Y)
    scores = model.decision_function(X)
    assert scores.shape == Y.shape
    lrap = label_ranking_average_precision_score(Y, scores)
    # the positive-class probabilities rank each sample's labels the same way
    P = np.column_stack([p[:, 1] for p in model.predict_proba(X)])
    assert lrap == pytest.approx(label_ranking_average_precision_score(Y, P))
    assert lrap > 0.5


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_a_label_with_one_class_is_named_in_a_warning(make):
    X, Y = _frames(n=60, d=3)
    Y = (Y > 0).astype(int).assign(t1=0)
    with pytest.warns(OneClassLabelWarning, match=r"'t1' \(output 1, only 0\)"):
        model = make().fit(X, Y)
    assert (np.asarray(model.predict(X))[:, 1] == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make().fit(X, (Y > 0).astype(int).assign(t1=np.arange(60) % 2))   # two classes: no warning
    with pytest.warns(OneClassLabelWarning, match=r"output 2 \(only 'b'\)"):
        make().fit(X.to_numpy(), np.column_stack([np.where(X["f0"] > 0, "a", "b")] * 2 + [["b"] * 60]))
