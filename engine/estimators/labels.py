"""Per-output class labels of the multi-label classifiers, as scikit-learn's multi-output classifiers have them.

Every output of a multi-label classifier is a binary problem (the papers'
losses are binary per output). Like ``RandomForestClassifier`` fitted on a
label matrix, an output takes any two distinct values (numbers, booleans,
strings) or a single one, and ``classes_`` holds one sorted array per output
(one array for a 1-D fit). A third value in one output is refused.

Encoding. Output j's classes c0 < c1 (numpy's sort order) are its negative and
positive label: the engine fits the indicator 1[y == c1] (0/1; the boosting
losses use 2 * indicator - 1), so {0, 1}, {-1, 1}, {False, True} and
{"no", "yes"} fit the same model. An output with a single value c in the
training set is positive when c is 1 (or True) and negative otherwise: the
papers' 0/1 label matrices keep their meaning (a label that is always on in
the training set keeps a high score, which ranking scores such as LRAP read).

Missing targets (``missing_targets="ignore"``): a NaN (or None in an object
array) is a missing entry; classes are read from the observed entries.
"""
import numbers

import warnings

import numpy as np
from scipy import sparse
from sklearn.utils.multiclass import type_of_target


class PerOutputClasses(list):
    """``classes_`` of a multi-output fit: a list with one array of classes per output.

    This is scikit-learn's multi-output convention (``RandomForestClassifier``),
    with one addition: indexed by an (n_samples, n_outputs) integer matrix of
    class indices (0 = negative, 1 = positive class) it returns the labels,
    column by column, the multi-output form of scikit-learn's
    ``classes_[indices]`` idiom (``classes_[(decision_function(X) > 0).astype(int)]``
    equals ``predict(X)``). An output with a single class maps every index to it.
    """

    def __getitem__(self, key):
        if isinstance(key, np.ndarray) and key.ndim == 2 and key.dtype.kind in "biu":
            if key.shape[1] != len(self):
                raise IndexError(f"class indices have {key.shape[1]} columns for {len(self)} outputs")
            return decode(self, key > 0)
        return super().__getitem__(key)


class PerOutputProba(list):
    """``predict_proba`` of a multi-output fit: one (n_samples, n_classes_j) array per output.

    This is scikit-learn's ``RandomForestClassifier`` format. Indexed like an
    array with a (rows, output) pair, it returns the probability of that
    output's positive class, the (n_samples, n_outputs) format of
    scikit-learn's other multi-label classifiers (``MLPClassifier``), so
    ``predict_proba(X)[:, j]`` means the same in both conventions.
    """

    def __init__(self, blocks, positive):
        super().__init__(blocks)
        self.positive = positive

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise IndexError("index a per-output probability list with (rows, output)")
            return self.positive[key]
        return super().__getitem__(key)

    def __reduce__(self):
        return (type(self), (list(self), self.positive))


def is_missing(Y):
    """Boolean mask of missing entries: NaN in a float array, None or NaN in an object array."""
    if Y.dtype.kind == "f":
        return np.isnan(Y)
    if Y.dtype.kind == "O":
        flat = [v is None or (isinstance(v, (float, np.floating)) and v != v) for v in Y.ravel()]
        return np.asarray(flat, dtype=bool).reshape(Y.shape)
    return np.zeros(Y.shape, dtype=bool)


def label_array(y, name):
    """y as a 1-D or 2-D numpy array of labels (any dtype), or ValueError naming ``name``."""
    if sparse.issparse(y):
        raise TypeError(f"{name} is a sparse matrix; sparse input is not supported, pass a dense array")
    try:
        Y = np.asarray(y)
    except ValueError as exc:
        raise ValueError(f"{name} must be a 1-D or 2-D array of labels ({exc})") from None
    if Y.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got {Y.ndim}-D")
    if Y.dtype.kind == "c":
        raise ValueError(f"{name} contains complex numbers: Complex data not supported, pass real labels")
    if Y.dtype.kind == "f" and np.isinf(Y).any():
        raise ValueError(f"{name} contains NaN or infinity")
    return Y


def sole_class_is_positive(value):
    """A single observed value is the positive label when it is 1 or True (see the module docstring)."""
    return (isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, str)
            and bool(value == 1))


def _unique(values, name, j):
    try:
        return np.unique(values)
    except TypeError:
        types = sorted({type(v).__name__ for v in values})
        raise ValueError(f"{name} output {j} has labels that cannot be ordered ({types}): labels "
                         "must be numbers, booleans or strings, one kind per output") from None


def _too_many(values, classes, name, j):
    try:
        kind = type_of_target(values)
    except ValueError:
        kind = "unknown"
    if kind.startswith("continuous"):
        # scikit-learn's wording for a regression target given to a classifier
        reason = f"Unknown label type: {kind!r} target"
    else:
        reason = f"Only binary classification is supported per output (the target is {kind!r})"
    shown = ", ".join(repr(c) for c in classes[:5].tolist()) + (", ..." if len(classes) > 5 else "")
    return ValueError(
        f"{name} output {j} has {len(classes)} distinct values ({shown}); every output of the "
        f"multi-label classifier is binary, the papers' losses being binary per output. {reason}.")


def fit_classes(Y, missing, name="Y"):
    """One sorted array of classes per output (1 or 2 values), from the observed entries."""
    classes = []
    for j in range(Y.shape[1]):
        values = Y[~missing[:, j], j]
        if values.size == 0:
            raise ValueError(f"{name} output {j} has no observed value (every entry is missing)")
        found = _unique(values, name, j)
        if found.size > 2:
            raise _too_many(values, found, name, j)
        classes.append(found)
    return classes


def encode(Y, missing, classes, name="Y"):
    """The positive-label indicator (n, d) float64, 0 at missing entries.

    Labels outside an output's classes are refused, except that an output
    with a single class takes one other value as the opposite class (a
    held-out set may hold the label the training set never showed).
    """
    n, d = Y.shape
    if d != len(classes):
        raise ValueError(f"{name} has {d} outputs, the model {len(classes)}")
    out = np.zeros((n, d))
    for j, cls in enumerate(classes):
        observed = ~missing[:, j]
        values = Y[observed, j]
        if cls.size == 2:
            positive = values == cls[1]
            known = positive | (values == cls[0])
        else:
            same = values == cls[0]
            positive = same if sole_class_is_positive(cls[0]) else ~same
            others = _unique(values[~same], name, j) if (~same).any() else values[:0]
            known = np.ones(values.shape, dtype=bool) if others.size <= 1 else np.zeros(values.shape, dtype=bool)
        if not np.asarray(known).all():
            unknown = _unique(values[~np.asarray(known)], name, j)[:5].tolist()
            raise ValueError(f"{name} output {j} has labels the model was not fitted on "
                             f"({unknown}; classes {cls.tolist()})")
        out[observed, j] = np.asarray(positive, dtype=np.float64)
    return out


def decode(classes, positive):
    """Labels from a boolean (n, d) matrix of positive decisions, in the classes' dtype."""
    dtype = np.result_type(*[c.dtype for c in classes])
    out = np.empty(positive.shape, dtype=dtype)
    for j, cls in enumerate(classes):
        out[:, j] = np.where(positive[:, j], cls[-1], cls[0])
    return out


def probability_blocks(classes, P):
    """scikit-learn's per-output probabilities from P(positive) (n, d), a :class:`PerOutputProba`.

    Output j gets an (n, len(classes_j)) block with columns in classes_j
    order: [1 - P, P] for two classes, [1] for a single class (as
    ``RandomForestClassifier`` reports an output with one class).
    """
    blocks = []
    for j, cls in enumerate(classes):
        p = P[:, j]
        blocks.append(np.column_stack([1.0 - p, p]) if cls.size == 2 else np.ones((P.shape[0], 1)))
    return PerOutputProba(blocks, P)


class OneClassLabelWarning(UserWarning):
    """A label with one class in the training rows: it is predicted as that class everywhere."""


def warn_one_class(classes, names=None, estimator="the classifier", limit=5):
    """Warn (:class:`OneClassLabelWarning`) naming the outputs whose training rows show one class.

    ``names``: Y's column names (a DataFrame), else outputs are named by their index. Such a
    label is predicted constant, and its decision scores are the clipped log-odds of a label
    never (or always) seen: a ranking metric (LRAP) then ranks it last (or first) everywhere.
    """
    single = [j for j, found in enumerate(classes) if found.size < 2]
    if not single:
        return
    def only(j):
        value = classes[j][0]
        return repr(value.item() if hasattr(value, "item") else value)

    shown = [f"{names[j]!r} (output {j}, only {only(j)})" if names is not None
             else f"output {j} (only {only(j)})" for j in single[:limit]]
    more = f" and {len(single) - limit} more" if len(single) > limit else ""
    warnings.warn(
        f"{estimator}: {len(single)} label(s) have one class in the training rows: "
        f"{', '.join(shown)}{more}; each is predicted as that class everywhere",
        OneClassLabelWarning, stacklevel=4)

