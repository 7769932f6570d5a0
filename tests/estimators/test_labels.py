"""Labels like scikit-learn's multi-output classifiers: any two values per output, classes_ per output.

Oracles: the 0/1 fit (the same model must come out of every labelling),
scikit-learn's RandomForestClassifier (the format of classes_ and
predict_proba), and the decision function (predict is its sign).
"""

import pickle

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

from engine.estimators.forest import ProjectedForestClassifier
from engine.estimators.per_output_forest import PerOutputForestClassifier
from engine.estimators.labels import PerOutputClasses
from paper_settings import PaperClassifier

STRATEGIES = ("single_target", "multi_output", "projected", "projected_relabel")
CLASSIFIERS = [PaperClassifier(strategy=s, projection="gaussian",
                               n_projections=2 if s == "projected_relabel" else 1,
                               n_estimators=8, max_leaf_nodes=3, random_state=0)
               for s in STRATEGIES] + [
    PaperClassifier(loss="squared_error", n_estimators=8, random_state=0),
    ProjectedForestClassifier(n_estimators=4, projection="achlioptas", n_components=2, random_state=0),
    PerOutputForestClassifier(n_estimators=3, random_state=0),
]
IDS = [f"gb-{s}" for s in STRATEGIES] + ["gb-squared", "rf-projected", "st-rf"]


def _indicator(seed=0, n=80, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    Y = (X[:, :d] + 0.3 * rng.normal(size=(n, d)) > 0.5).astype(int)
    return X, Y


LABELLINGS = {
    "0/1 float": lambda Y: Y.astype(float),
    "-1/1": lambda Y: 2 * Y - 1,
    "bool": lambda Y: Y.astype(bool),
    "no/yes": lambda Y: np.where(Y == 1, "yes", "no"),
    "object": lambda Y: np.where(Y == 1, "b", "a").astype(object),
    "3/7": lambda Y: np.where(Y == 1, 7, 3),
}


@pytest.mark.parametrize("model", CLASSIFIERS, ids=IDS)
def test_every_labelling_gives_the_same_model(model):
    X, Y = _indicator()
    reference = model.fit(X, Y).decision_function(X)
    for name, relabel in LABELLINGS.items():
        labels = relabel(Y)
        fitted = model.fit(X, labels)
        np.testing.assert_array_equal(fitted.decision_function(X), reference, err_msg=name)
        pred = fitted.predict(X)
        assert pred.dtype == labels.dtype, name
        high = np.array([np.unique(c)[-1] for c in labels.T])
        low = np.array([np.unique(c)[0] for c in labels.T])
        np.testing.assert_array_equal(pred, np.where(reference > 0, high, low))
        assert isinstance(fitted.classes_, list) and len(fitted.classes_) == 3
        for j, cls in enumerate(fitted.classes_):
            np.testing.assert_array_equal(cls, np.unique(labels[:, j]))


@pytest.mark.parametrize("model", CLASSIFIERS, ids=IDS)
def test_format_follows_random_forest_classifier(model):
    """classes_ and predict_proba have the structure RandomForestClassifier gives the same labels."""
    X, Y = _indicator(1)
    labels = np.where(Y == 1, "on", "off").astype("<U6")
    labels[:, 2] = "always"                       # an output with a single value
    ours = model.fit(X, labels)
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, labels)
    assert [c.tolist() for c in ours.classes_] == [c.tolist() for c in rf.classes_]
    proba, theirs = ours.predict_proba(X), rf.predict_proba(X)
    assert isinstance(proba, list) and len(proba) == len(theirs)
    for mine, ref in zip(proba, theirs):
        assert mine.shape == ref.shape
        np.testing.assert_allclose(mine.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba[2], np.ones((len(X), 1)))
    pred = ours.predict(X)
    assert (pred[:, 2] == "always").all()
    for j in range(2):
        np.testing.assert_array_equal(pred[:, j], ours.classes_[j][np.argmax(proba[j], axis=1)])
    # the multi-output form of classes_[indices] and of the (n, n_outputs) probability format
    F = ours.decision_function(X)
    np.testing.assert_array_equal(ours.classes_[(F > 0).astype(int)], pred)
    for j in range(3):
        np.testing.assert_array_equal(proba[:, j], proba.positive[:, j])
        assert np.all(np.diff(proba[:, j][np.argsort(F[:, j], kind="stable")]) >= 0)


@pytest.mark.parametrize("model", CLASSIFIERS, ids=IDS)
def test_one_dimensional_labels(model):
    X, Y = _indicator(2)
    y = np.where(Y[:, 0] == 1, "spam", "ham")
    fitted = model.fit(X, y)
    np.testing.assert_array_equal(fitted.classes_, ["ham", "spam"])
    F = fitted.decision_function(X)
    assert F.shape == (len(X),)
    P = fitted.predict_proba(X)
    assert P.shape == (len(X), 2)
    np.testing.assert_array_equal(fitted.predict(X), fitted.classes_[(F > 0).astype(int)])
    np.testing.assert_array_equal(fitted.predict(X), fitted.classes_[np.argmax(P, axis=1)])
    assert (fitted.predict(X) == y).mean() > 0.7


def test_a_single_class_is_positive_only_when_it_is_one():
    """The papers' 0/1 matrices keep their meaning: an always-on label scores high, an always-off one low."""
    X, Y = _indicator(3)
    for value, sign in ((1, 1.0), (True, 1.0), (0, -1.0), (-1, -1.0), ("yes", -1.0)):
        labels = Y.astype(object)
        labels[:, 1] = value
        clf = PaperClassifier(n_estimators=3).fit(X, labels)
        assert np.sign(clf.init_[1]) == sign
        assert list(clf.classes_[1]) == [value]
        forest = ProjectedForestClassifier(n_estimators=2, random_state=0).fit(X, labels)
        assert np.sign(forest.decision_function(X)[0, 1]) == sign
        assert (forest.predict(X)[:, 1] == value).all()


def test_eval_set_labels_are_read_with_the_fitted_classes():
    X, Y = _indicator(4)
    labels = np.where(Y == 1, "yes", "no")
    labels[:, 1] = "no"                                # never "yes" in training
    held = np.where(Y == 1, "yes", "no")               # but "yes" in the held-out set
    clf = PaperClassifier(n_estimators=4).fit(X, labels, eval_set=(X, held))
    numeric = PaperClassifier(n_estimators=4).fit(
        X, np.where(labels == "yes", 1, 0), eval_set=(X, Y))
    np.testing.assert_array_equal(clf.eval_loss_, numeric.eval_loss_)
    with pytest.raises(ValueError, match="^eval_set Y output 0 has labels the model was not fitted on"):
        PaperClassifier(n_estimators=2).fit(X, labels, eval_set=(X, np.where(Y == 1, "si", "no")))


def test_warm_start_keeps_the_classes():
    X, Y = _indicator(5)
    labels = np.where(Y == 1, "yes", "no")
    clf = PaperClassifier(n_estimators=3, warm_start=True).fit(X, labels)
    clf.set_params(n_estimators=6).fit(X, labels)
    cold = PaperClassifier(n_estimators=6).fit(X, labels)
    np.testing.assert_array_equal(clf.decision_function(X), cold.decision_function(X))
    with pytest.raises(ValueError, match="^Y output 0 has labels the model was not fitted on"):
        clf.set_params(n_estimators=8).fit(X, np.where(Y == 1, "oui", "non"))


def test_classes_and_probabilities_pickle():
    X, Y = _indicator(6)
    clf = PaperClassifier(n_estimators=3).fit(X, np.where(Y == 1, "yes", "no"))
    copy = pickle.loads(pickle.dumps(clf))
    assert isinstance(copy.classes_, PerOutputClasses)
    np.testing.assert_array_equal(copy.predict(X), clf.predict(X))
    proba = pickle.loads(pickle.dumps(clf.predict_proba(X)))
    np.testing.assert_array_equal(proba[:, 1], clf.predict_proba(X)[:, 1])


def test_classifier_rejects_a_third_label():
    X, Y = _indicator(18, d=2)
    Y = Y.astype(float)
    bad = Y.copy()
    bad[3, 1] = 2.0
    with pytest.raises(ValueError, match=r"^Y output 1 has 3 distinct values"):
        PaperClassifier(n_estimators=2).fit(X, bad)
    with pytest.raises(ValueError, match=r"^Y output 0 has 3 distinct values"):
        PaperClassifier(n_estimators=2).fit(X, bad[:, 1])
    with pytest.raises(ValueError, match="Unknown label type: 'continuous'"):
        PaperClassifier(n_estimators=2).fit(X, X[:, :2])
