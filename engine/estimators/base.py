"""What every tree ensemble of the engine shares: parameter and input checks, labels, shapes.

The boosting estimators (:mod:`engine.estimators.boosting`) and the forests
(:mod:`engine.estimators.forest`) both subclass :class:`TreeEnsemble`; the
multi-label classifiers of both families add :class:`MultiLabelMixin`. Nothing
here knows how trees are grown or combined.

Conventions (scikit-learn's):

* every check raises ``ValueError`` naming the offending argument (``TypeError``
  for an object that is not a number at all, as scikit-learn does);
* X is stored by the trees as float32, so larger values are refused rather than
  silently made infinite;
* Y is always 2-D inside; an estimator fitted on 1-D y returns 1-D predictions;
* missing targets and per-output weights (``missing_targets``, an (n, d)
  ``sample_weight``) are reduced to row and entry weights in
  :mod:`engine.estimators.targets`; labels are read per output in
  :mod:`engine.estimators.labels`.
* X may be a scipy sparse matrix in CSR or CSC format (fit and predict), kept
  sparse; other sparse formats are refused with a message naming those two.
* X may be a pandas DataFrame: its column names are kept and checked as scikit-learn
  does, its dtypes checked (:mod:`engine.estimators.frames`).
"""
import hashlib
import numbers
import warnings
from collections import namedtuple

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, MultiOutputMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from engine.estimators import labels as label_coding
from engine.estimators.frames import PandasOutputMixin, check_frame_dtypes, is_frame, target_names
from engine.estimators.targets import (
    MISSING_HINT,
    check_missing_targets,
    check_sample_weight,
    observed_mask,
    resolve_weights,
)
from engine.validation import check_seed

FLOAT32_MAX = float(np.finfo(np.float32).max)
SPARSE_FORMATS = ("csr", "csc")


def is_int(value):
    """An integer that is not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_real(value):
    """A real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def as_numeric(name, value, ndims, allow_nan=False):
    """Convert to a finite float64 array of an accepted dimension, or raise naming it.

    ``allow_nan``: NaN passes (a missing target); infinity never does.
    """
    if sparse.issparse(value):
        raise TypeError(f"{name} is a sparse matrix; sparse input is not supported, pass a dense array")
    try:
        with warnings.catch_warnings():
            # numpy would drop the imaginary part with only a warning
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            array = np.asarray(value, dtype=np.float64)
    except np.exceptions.ComplexWarning:
        raise ValueError(f"{name} contains complex numbers: Complex data not supported, "
                         "pass real numbers") from None
    except TypeError as exc:
        # An object numpy cannot turn into a float at all (a dict, a list in a
        # cell): a TypeError, as scikit-learn raises; numpy's own reason is kept.
        raise TypeError(f"{name} must contain only numbers ({exc})") from None
    except ValueError as exc:
        # A value of the wrong kind ("abc", a ragged row): a ValueError.
        raise ValueError(f"{name} must contain only numbers ({exc})") from None
    if array.ndim not in ndims:
        hint = (" Reshape your data either using array.reshape(-1, 1) if it has a single feature "
                "or array.reshape(1, -1) if it contains a single sample.") if name == "X" else ""
        raise ValueError(f"{name} must be {' or '.join(f'{k}-D' for k in ndims)}, got {array.ndim}-D.{hint}")
    # min and max run without temporaries (X can be large); both are finite
    # exactly when every value is (a NaN anywhere makes them NaN).
    low, high = (float(array.min()), float(array.max())) if array.size else (0.0, 0.0)
    if not (np.isfinite(low) and np.isfinite(high)):
        finite = np.isfinite(array)
        has_nan = np.isnan(array).any()
        if not allow_nan or not (finite | np.isnan(array)).all():
            hint = MISSING_HINT if has_nan and name.endswith("Y") and not allow_nan else ""
            raise ValueError(f"{name} contains NaN or infinity{hint}")
    if name.endswith("X") and max(-low, high) > FLOAT32_MAX:
        # Features are stored as float32 (like scikit-learn's trees); larger values
        # would silently become infinite and indistinguishable.
        raise ValueError(f"{name} contains values too large for float32 (|x| > {FLOAT32_MAX:.3g})")
    return array


def check_sparse(name, X):
    """A CSR or CSC matrix of finite real numbers, float32-representable, or ValueError naming it."""
    fmt = getattr(X, "format", type(X).__name__)
    if fmt not in SPARSE_FORMATS:
        raise ValueError(
            f"{name} is a sparse matrix in {str(fmt).upper()} format; sparse input must be CSR or CSC "
            f"(scipy.sparse csr_matrix / csc_matrix: convert with .tocsr() or .tocsc())")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {X.ndim}-D")
    data = X.data
    if np.iscomplexobj(data):
        raise ValueError(f"{name} contains complex numbers: Complex data not supported, pass real numbers")
    if not (np.issubdtype(data.dtype, np.number) or data.dtype == np.bool_):
        raise ValueError(f"{name} must contain only numbers (sparse values of dtype {data.dtype})")
    data = np.asarray(data, dtype=np.float64)
    if not np.isfinite(data).all():
        raise ValueError(f"{name} contains NaN or infinity (among its stored sparse values)")
    if data.size and np.abs(data).max() > FLOAT32_MAX:
        raise ValueError(f"{name} contains values too large for float32 (|x| > {FLOAT32_MAX:.3g})")
    return X


def check_features(name, X):
    """X as a checked float64 array, or a checked CSR/CSC matrix (never densified)."""
    check_frame_dtypes(name, X)
    if sparse.issparse(X):
        return check_sparse(name, X)
    return as_numeric(name, X, (2,))


def check_fitted_features(estimator, X):
    """X checked against a fitted ``estimator``: its names (a DataFrame's columns, before their
    values: a column missing at predict would otherwise read as NaN) and their number, as
    scikit-learn's ``validate_data`` checks them; then its values (:func:`check_features`)."""
    if is_frame(X):
        validate_data(estimator, X, reset=False, skip_check_array=True)
        return check_features("X", X)
    X_array = check_features("X", X)
    validate_data(estimator, X_array, reset=False, skip_check_array=True)
    return X_array


def fingerprint(*arrays):
    """A short digest of arrays' shapes, dtypes and bytes (to recognise the same data again)."""
    digest = hashlib.blake2b(digest_size=16)
    parts = []
    for a in arrays:
        if sparse.issparse(a):
            parts += [np.array(a.shape), np.array([ord(c) for c in a.format]), a.indptr, a.indices, a.data]
        else:
            parts.append(a)
    for a in parts:
        a = np.ascontiguousarray(a)
        digest.update(str((a.shape, a.dtype.str)).encode())
        digest.update(a.view(np.uint8).reshape(-1))
    return digest.hexdigest()


def resolve_max_features(max_features, n_features):
    """The number k of candidate features per node, as an integer in [1, n_features]."""
    mf = max_features
    if mf is None:
        return n_features
    if mf == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if mf == "log2":
        return max(1, int(np.log2(n_features)))
    if is_int(mf):
        if mf > n_features:
            raise ValueError(f"max_features = {mf} exceeds the number of features ({n_features})")
        return mf
    return max(1, int(mf * n_features))


FitData = namedtuple("FitData", "X Y observed sample_weight weight entry_weight y_was_1d classes")
FitData.__doc__ = """Checked training data (see ``TreeEnsemble._check_fit_data``)."""


class TreeEnsemble(PandasOutputMixin, MultiOutputMixin, BaseEstimator):
    """Checks and shapes shared by the boosting estimators and the forests.

    Subclasses have the parameters ``max_leaf_nodes``, ``max_depth``,
    ``min_samples_leaf``, ``max_features``, ``missing_targets`` and ``random_state``.
    """

    def check_params(self):
        """The checks ``fit`` makes on the parameters alone, made without data (a ValueError
        naming the parameter); returns self. What experiments call to refuse a bad setting
        before any work."""
        self._validate_params()
        return self

    def _validate_tree_params(self):
        """Check the parameters of the trees themselves (each family checks its own others)."""
        check_missing_targets(self.missing_targets)
        if self.max_leaf_nodes is not None and (
                not is_int(self.max_leaf_nodes) or self.max_leaf_nodes < 2):
            raise ValueError(f"max_leaf_nodes must be None or an integer >= 2, got {self.max_leaf_nodes!r}")
        if self.max_depth is not None and (not is_int(self.max_depth) or self.max_depth < 1):
            raise ValueError(f"max_depth must be None or an integer >= 1, got {self.max_depth!r}")
        msl = self.min_samples_leaf
        if not ((is_int(msl) and msl >= 1) or (is_real(msl) and not is_int(msl) and 0.0 < msl < 1.0)):
            raise ValueError(f"min_samples_leaf must be an integer >= 1 or a fraction in (0, 1), got {msl!r}")
        mf = self.max_features
        if not (mf is None or (isinstance(mf, str) and mf in ("sqrt", "log2")) or (is_int(mf) and mf >= 1)
                or (is_real(mf) and not is_int(mf) and 0.0 < mf <= 1.0)):
            raise ValueError(
                f"max_features must be None, 'sqrt', 'log2', an integer >= 1 or a fraction in (0, 1], got {mf!r}")
        check_seed(self.random_state)

    def _tree_params(self, n_samples, n_features):
        """Growth limits resolved to the integers the compiled grower takes (0 = none)."""
        msl = self.min_samples_leaf
        if not is_int(msl):
            msl = max(1, int(np.ceil(msl * n_samples)))
        return dict(max_leaf_nodes=self.max_leaf_nodes or 0, max_depth=self.max_depth or 0,
                    min_samples_leaf=msl,
                    max_features=resolve_max_features(self.max_features, n_features))

    def _targets(self, y, name="Y", classes=None):
        """(Y, observed, y_was_1d, classes): Y 2-D float64 with 0 at missing entries.

        ``observed`` is None when no target is missing. Regressors take real
        numbers; the classifiers (MultiLabelMixin) read labels per output.
        """
        Y = as_numeric(name, y, (1, 2), allow_nan=self.missing_targets == "ignore")
        y_was_1d = Y.ndim == 1
        Y = Y.reshape(-1, 1) if y_was_1d else Y
        if Y.shape[1] == 0:
            raise ValueError(f"{name} has no output column (0 outputs)")
        observed = observed_mask(np.isnan(Y), name) if self.missing_targets == "ignore" else None
        if observed is not None:
            Y = np.where(observed, Y, 0.0)
        return np.ascontiguousarray(Y), observed, y_was_1d, None

    def _check_fit_data(self, X, Y, sample_weight, reset):
        """Checked training data as a :data:`FitData`.

        X float64; Y 2-D float64 (the positive-label indicator for the
        classifiers), 0 at missing entries; the checked ``sample_weight``
        (None, (n,) or (n, d)); the row weights and entry weights it reduces to
        (see :mod:`engine.estimators.targets`).
        """
        if Y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X_array = check_features("X", X)
        y_original = Y
        Y, observed, y_was_1d, classes = self._targets(
            Y, "Y", None if reset else getattr(self, "classes_", None))
        if X_array.shape[0] != Y.shape[0]:
            raise ValueError(
                f"X and Y must have the same number of samples, got {X_array.shape[0]} and {Y.shape[0]}")
        if X_array.shape[0] < 2:
            raise ValueError(
                f"X has {X_array.shape[0]} sample(s); fitting needs at least 2 samples")
        if X_array.shape[1] == 0:
            raise ValueError(
                f"X has 0 feature(s) (shape={X_array.shape}) while a minimum of 1 is required.")
        X_array = validate_data(self, X, reset=reset, dtype=np.float64,
                                accept_sparse=SPARSE_FORMATS)
        if reset:
            self._keep_target_names(y_original)
        n, d = Y.shape
        sample_weight = check_sample_weight(sample_weight, n, d, as_numeric)
        weight, entry_weight = resolve_weights(sample_weight, observed, n, d)
        return FitData(X_array, Y, observed, sample_weight, weight, entry_weight, y_was_1d, classes)

    def _check_predict_X(self, X, fitted_attribute):
        """X checked against the fitted model: float64 array or CSR/CSC matrix.

        The feature names (a DataFrame's columns) and their number are checked on X as given,
        before it becomes an array (scikit-learn's messages: a reordered, missing or extra
        column is refused; an array after a DataFrame fit warns)."""
        check_is_fitted(self, fitted_attribute)
        return check_fitted_features(self, X)

    def _shape_output(self, F):
        """(n, d) -> (n,) when the model was fitted on 1-D y."""
        return F[:, 0] if self._y_was_1d else F

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags


class MultiLabelMixin:
    """Label handling of the multi-label classifiers (boosting and forests).

    Each output takes any two distinct values, or one (see
    :mod:`engine.estimators.labels`); ``classes_`` is a list of per-output
    arrays (one array for a 1-D fit), as scikit-learn's ``RandomForestClassifier``
    has it. Subclasses compute P(positive) (n, d) and give it to
    ``_format_proba`` (``predict_proba``), and give their decision scores,
    > 0 exactly where the positive class is predicted, to ``_labels``
    (``predict``).
    """

    def _targets(self, y, name="Y", classes=None):
        """(indicator, observed, y_was_1d, classes): the positive-label indicator, 0 at missing entries."""
        Y = label_coding.label_array(y, name)
        y_was_1d = Y.ndim == 1
        Y = Y.reshape(-1, 1) if y_was_1d else Y
        if Y.shape[1] == 0:
            raise ValueError(f"{name} has no output column (0 outputs)")
        if Y.shape[0] == 0:
            # nothing to read classes from; the caller refuses the empty data set
            return np.zeros(Y.shape), None, y_was_1d, classes
        missing = label_coding.is_missing(Y)
        if missing.any() and getattr(self, "missing_targets", "error") != "ignore":
            raise ValueError(f"{name} contains NaN or infinity{MISSING_HINT}")
        observed = observed_mask(missing, name)
        if classes is None:
            classes = label_coding.fit_classes(Y, missing, name)
            if getattr(self, "_warn_one_class", True):
                label_coding.warn_one_class(classes, target_names(y), type(self).__name__)
        else:
            classes = [classes] if isinstance(classes, np.ndarray) else list(classes)
        indicator = label_coding.encode(Y, missing, classes, name)
        return indicator, observed, y_was_1d, classes

    def _set_classes(self, classes):
        """classes_: one array for a 1-D fit, else the per-output list."""
        self.classes_ = classes[0] if self._y_was_1d else label_coding.PerOutputClasses(classes)

    def _per_output_classes(self):
        return [self.classes_] if self._y_was_1d else list(self.classes_)

    def _format_proba(self, P):
        """scikit-learn's format from P(positive) (n, d): a list of (n, n_classes_j)
        arrays, or one array for a 1-D fit (see labels.probability_blocks)."""
        blocks = label_coding.probability_blocks(self._per_output_classes(), P)
        return blocks[0] if self._y_was_1d else blocks

    def _labels(self, scores):
        """Predicted labels from decision scores (n, d): the positive class where score > 0."""
        labels = label_coding.decode(self._per_output_classes(), scores > 0)
        return labels[:, 0] if self._y_was_1d else labels

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.multi_label = True
        return tags
