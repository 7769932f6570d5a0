"""pandas in, pandas-safe out: what the estimators do with DataFrames (issue 44).

* **Feature names.** A DataFrame X at ``fit`` sets ``feature_names_in_`` (scikit-learn's
  ``validate_data``); ``predict`` (and every method taking X) checks the names before X becomes an
  array, so missing, extra or reordered columns are refused with scikit-learn's message ("The
  feature names should match those that were passed during fit"), as HistGradientBoosting does,
  and the same names in the same order pass without a warning
  (:meth:`engine.estimators.base.TreeEnsemble._check_predict_X`).
* **Column dtypes.** Numeric columns, including pandas' nullable ``Int64`` / ``Float64`` /
  ``boolean``, are read as float64. A nullable column holding ``pd.NA``, a categorical, string or
  object column is refused with a ValueError naming the columns: the trees split on numbers and
  take no missing feature values, and a silent category-code or NaN conversion would change
  predictions without a word. Encode them first (``OrdinalEncoder``, ``pd.get_dummies``) and
  impute missing values (``SimpleImputer``), e.g. in a Pipeline.
* **Target names.** A DataFrame Y (or a named Series for one output) sets ``target_names_in_``.
  ``predict`` (and ``decision_function``) return ndarrays, scikit-learn's convention for
  predictors, which metrics, ``cross_val_score`` and the estimator checks rely on; after
  ``set_output(predict="pandas")`` they return a DataFrame with Y's columns (a Series for a 1-D
  fit) and X's index when X is a DataFrame. ``predict_proba`` keeps scikit-learn's multi-output
  format (a list of arrays) either way.
"""
import numpy as np

PREDICT_OUTPUTS = ("default", "pandas")
# The estimators' docstrings (Attributes section) say it in these words.
NAMES_DOC = """    feature_names_in_ : ndarray of str
        X's column names when X was a pandas DataFrame: ``predict`` refuses
        other columns (engine/estimators/frames.py).
    target_names_in_ : ndarray of str
        Y's column names when Y was a DataFrame (a named Series: its name);
        ``set_output(predict="pandas")`` returns predictions under them.
"""


def is_frame(X):
    """A pandas DataFrame (duck-typed: pandas is not imported for an array)."""
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def check_frame_dtypes(name, X):
    """Refuse the columns of DataFrame X that are not plain numbers, naming them (ValueError)."""
    if not is_frame(X):
        return
    import pandas as pd
    from pandas.api import types

    categorical, text, missing = [], [], []
    for column, dtype in X.dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype):
            categorical.append(column)
        elif not (types.is_numeric_dtype(dtype) or types.is_bool_dtype(dtype)):
            text.append(column)
        elif isinstance(dtype, pd.api.extensions.ExtensionDtype) and X[column].isna().any():
            missing.append(column)
    if categorical:
        raise ValueError(
            f"{name} has categorical column(s) {_names(categorical)}: the trees split on numbers; "
            "encode them first (sklearn.preprocessing.OrdinalEncoder or pd.get_dummies)")
    if text:
        raise ValueError(
            f"{name} has non-numeric column(s) {_names(text)} (dtypes "
            f"{', '.join(sorted({str(X[c].dtype) for c in text}))}): convert or encode them first")
    if missing:
        raise ValueError(
            f"{name} has missing values (pd.NA) in nullable column(s) {_names(missing)}: "
            "missing feature values are not supported; impute them first (sklearn.impute.SimpleImputer)")


def _names(columns, limit=5):
    shown = ", ".join(repr(c) for c in columns[:limit])
    return shown + (f" and {len(columns) - limit} more" if len(columns) > limit else "")


def target_names(Y):
    """Y's column names as an object ndarray of str (a DataFrame, or a named Series), else None."""
    if is_frame(Y):
        return np.asarray([str(c) for c in Y.columns], dtype=object)
    name = getattr(Y, "name", None) if hasattr(Y, "to_numpy") else None
    return None if name is None else np.asarray([str(name)], dtype=object)


class PandasOutputMixin:
    """``set_output(predict="pandas")`` and the ``target_names_in_`` kept at fit."""

    def set_output(self, *, predict=None):
        """Configure the container of ``predict`` and ``decision_function``: "pandas" returns a
        DataFrame with ``target_names_in_`` as columns (``y0``, ``y1``, ... when Y had none) and
        X's index if X is a DataFrame; "default" (or None: unchanged) ndarrays. Kept by
        ``clone``, as scikit-learn's own ``set_output``. Returns self."""
        if predict is None:
            return self
        if predict not in PREDICT_OUTPUTS:
            raise ValueError(f"predict must be one of {PREDICT_OUTPUTS}, got {predict!r}")
        self._sklearn_output_config = {**getattr(self, "_sklearn_output_config", {}), "predict": predict}
        return self

    def _keep_target_names(self, y):
        names = target_names(y)
        if names is not None:
            self.target_names_in_ = names
        elif hasattr(self, "target_names_in_"):
            del self.target_names_in_

    def _wrap_output(self, values, X):
        """``values`` as set_output asks: unchanged, or a DataFrame / Series over X's index."""
        if getattr(self, "_sklearn_output_config", {}).get("predict", "default") != "pandas":
            return values
        import pandas as pd
        index = X.index if is_frame(X) else None
        names = getattr(self, "target_names_in_", None)
        if values.ndim == 1:
            return pd.Series(values, index=index, name=None if names is None else names[0])
        columns = names if names is not None else [f"y{j}" for j in range(values.shape[1])]
        return pd.DataFrame(values, index=index, columns=list(columns))
