"""A user's own CSV file as a :class:`Dataset` (bounded in size, every error a ValueError)."""

from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from engine.datasets.dataset import Dataset, impute_median
from engine.validation import check_int as _check_int

DEFAULT_MAX_BYTES = 20_000_000
DEFAULT_MAX_ROWS = 100_000
DEFAULT_MAX_COLUMNS = 2_000

_NA_TOKENS = {"", "na", "nan", "n/a", "null", "none", "?"}


def _read_limited(file_or_buffer, max_bytes):
    """Raw bytes of a path / bytes / file-like, refusing more than max_bytes."""
    if isinstance(file_or_buffer, (bytes, bytearray, memoryview)):
        raw = bytes(file_or_buffer)
    elif isinstance(file_or_buffer, (str, os.PathLike)):
        path = Path(file_or_buffer)
        if not path.is_file():
            raise ValueError(f"file not found: {path}")
        if path.stat().st_size > max_bytes:
            raise ValueError(
                f"the file is {path.stat().st_size:,} bytes, over the limit of {max_bytes:,} bytes"
            )
        raw = path.read_bytes()
    elif hasattr(file_or_buffer, "read"):
        raw = file_or_buffer.read(max_bytes + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
    else:
        raise ValueError(
            f"file_or_buffer must be a path, bytes or a file-like object, got {type(file_or_buffer).__name__}"
        )
    if len(raw) > max_bytes:
        raise ValueError(f"the file is over the size limit of {max_bytes:,} bytes")
    if raw[:2] == b"\x1f\x8b":  # gzip: decompress, bounded
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(max_bytes + 1)
        except (OSError, EOFError) as exc:
            raise ValueError(f"the file looks gzip-compressed but cannot be decompressed: {exc}") from None
        if len(raw) > max_bytes:
            raise ValueError(f"the decompressed file is over the size limit of {max_bytes:,} bytes")
    return raw


def _check_field_counts(text, sep, n_columns, max_rows):
    """Refuse ragged rows: pandas pads short rows silently (as empty fields)."""
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    for k, row in enumerate(reader):
        if k > max_rows + 1:
            break
        if row and len(row) != n_columns:
            raise ValueError(
                f"malformed CSV: line {reader.line_num} has {len(row)} fields, "
                f"the header has {n_columns}"
            )


def load_csv(
    file_or_buffer,
    target_columns,
    *,
    name="uploaded",
    max_bytes=DEFAULT_MAX_BYTES,
    max_rows=DEFAULT_MAX_ROWS,
    max_columns=DEFAULT_MAX_COLUMNS,
    sep=",",
) -> Dataset:
    """Parse a user's CSV file into a :class:`Dataset` (data only, nothing is evaluated).

    ``name`` defaults to the file's name without extension when the source
    has one (a path, or an upload object with a ``name`` attribute).

    The file needs a header row; ``target_columns`` (a column name or a list
    of names) are the outputs and every other column is a feature. All values
    must be numbers. A gzip-compressed file is accepted too.

    Missing values: empty fields and NA / NaN / null / ? tokens are missing.
    They are refused in the targets; in a feature they are replaced by the
    median of that feature over all rows (the description says how many).

    ``task`` is "multilabel" when every target value is 0 or 1, "regression"
    otherwise.

    Limits (defaults): ``max_bytes`` 20 MB (after decompression), ``max_rows``
    100 000 data rows, ``max_columns`` 2 000 columns.

    Raises ValueError (with a message meant for the user) for: an empty file,
    a malformed CSV (ragged rows, not text), a file over a limit, unknown or
    duplicated target columns, no feature column, non-numeric or infinite
    values (the column and an example are named), fewer than 2 data rows,
    missing target values, a feature with no value at all.
    """
    max_bytes = _check_int(max_bytes, "max_bytes", 1)
    max_rows = _check_int(max_rows, "max_rows", 2)
    max_columns = _check_int(max_columns, "max_columns", 2)
    target_columns = _target_list(target_columns)
    if name == "uploaded":  # default: use the file's own name when it has one
        name = _file_stem(file_or_buffer) or name
    text = _decode(_read_limited(file_or_buffer, max_bytes))
    header, body = _parse_table(text, sep, max_rows, max_columns)
    _check_header(header, target_columns, sep)
    if body.shape[0] < 2:
        raise ValueError(f"the file has {body.shape[0]} data row(s); at least 2 are needed")
    X, Y, feature_names = _features_and_targets(_numeric_values(header, body, target_columns), header,
                                                target_columns)
    n_imputed = impute_median(X, np.arange(X.shape[0]))

    task = "multilabel" if np.isin(Y, (0.0, 1.0)).all() else "regression"
    desc = (
        f"Uploaded CSV: {X.shape[0]} rows, {X.shape[1]} features, {Y.shape[1]} "
        f"{'labels' if task == 'multilabel' else 'targets'}."
    )
    if n_imputed:
        desc += f" {n_imputed} missing feature values were replaced by the feature's median."
    return Dataset(
        name=str(name),
        X=X,
        Y=Y,
        feature_names=feature_names,
        target_names=list(target_columns),
        task=task,
        test_indices=None,
        bayes=None,
        description=desc,
        citation="",
    )


def _target_list(target_columns):
    """The target columns as a list of distinct names (a single name is a list of one)."""
    if isinstance(target_columns, str):
        target_columns = [target_columns]
    try:
        target_columns = list(target_columns)
    except TypeError:
        raise ValueError("target_columns must be a column name or a list of column names") from None
    if not target_columns or not all(isinstance(c, str) for c in target_columns):
        raise ValueError("target_columns must be a non-empty list of column names (strings)")
    if len(set(target_columns)) != len(target_columns):
        raise ValueError("target_columns lists the same column twice")
    return target_columns


def _file_stem(file_or_buffer):
    """The source's file name without .csv / .gz ("" when it has no name: plain bytes)."""
    src = getattr(file_or_buffer, "name", file_or_buffer)
    if not isinstance(src, (str, os.PathLike)):
        return ""
    stem = Path(src).name
    for suffix in (".gz", ".csv"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    return stem


def _decode(raw):
    """The file's text (UTF-8, a byte-order mark dropped); a binary or empty file is refused."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("the file is not a UTF-8 text CSV file") from None
    if "\x00" in text:
        raise ValueError("the file is not a text CSV file (it contains NUL bytes)")
    if not text.strip():
        raise ValueError("the file is empty")
    return text


def _parse_table(text, sep, max_rows, max_columns):
    """(header, body): the header row's names and the data rows as strings, within the limits.

    Read as strings (no NA guessing) so that every value is checked by :func:`_numeric_values`
    with the column named in the message."""
    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep=sep,
            header=None,
            dtype=str,
            na_filter=False,
            skip_blank_lines=True,
            nrows=max_rows + 2,
            engine="c",
        )
    except pd.errors.EmptyDataError:
        raise ValueError("the file is empty") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"malformed CSV: {str(exc).strip()}") from None

    if df.shape[1] > max_columns:
        raise ValueError(f"the file has {df.shape[1]} columns, over the limit of {max_columns}")
    if df.shape[0] - 1 > max_rows:
        raise ValueError(f"the file has more than {max_rows:,} data rows (the limit)")
    _check_field_counts(text, sep, df.shape[1], max_rows)
    return [str(h).strip() for h in df.iloc[0]], df.iloc[1:]


def _check_header(header, target_columns, sep):
    """Refuse empty or duplicated names, unknown targets (with a hint when the separator seems
    wrong) and a file whose every column is a target."""
    if any(h == "" for h in header):
        raise ValueError("malformed CSV: the header row has an empty column name")
    dups = sorted({h for h in header if header.count(h) > 1})
    if dups:
        raise ValueError(f"the header has duplicated column names: {', '.join(dups)}")
    missing = [c for c in target_columns if c not in header]
    if missing:
        hint = ""
        if len(header) == 1:
            for other in (";", "\t", "|"):
                if other in header[0]:
                    hint = f" (the file seems to use {other!r} as separator, not {sep!r})"
        raise ValueError(
            f"target column(s) not found: {', '.join(missing)}; the columns are: "
            + ", ".join(header[:50])
            + (" ..." if len(header) > 50 else "")
            + hint
        )
    if len(target_columns) == len(header):
        raise ValueError("every column is a target: at least one feature column is needed")


def _numeric_values(header, body, target_columns):
    """The data rows as floats, NaN where a value is missing; a non-numeric or infinite value is
    refused, naming its column and an example."""
    values = np.empty(body.shape, dtype=np.float64)
    for j, col in enumerate(header):
        s = body.iloc[:, j].str.strip()
        is_na = s.str.lower().isin(_NA_TOKENS).to_numpy()
        num = pd.to_numeric(s.where(~is_na, None), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(num) & ~is_na
        kind = "target" if col in target_columns else "feature"
        if bad.any():
            example = s.iloc[int(np.flatnonzero(bad)[0])]
            raise ValueError(
                f"{kind} column {col!r} is not numeric (e.g. value {example[:40]!r} "
                f"on data row {int(np.flatnonzero(bad)[0]) + 1}); encode categories as numbers"
            )
        if np.isinf(num).any():
            raise ValueError(f"{kind} column {col!r} contains infinite values")
        values[:, j] = num
    return values


def _features_and_targets(values, header, target_columns):
    """(X, Y, feature names): the targets' columns in the order asked, every other column a
    feature; a missing target value, or a feature with no value at all, is refused."""
    t_idx = [header.index(c) for c in target_columns]
    f_idx = [j for j in range(len(header)) if j not in set(t_idx)]
    X = values[:, f_idx]
    Y = values[:, t_idx]
    nan_t = np.isnan(Y).any(axis=0)
    if nan_t.any():
        cols = [target_columns[j] for j in np.flatnonzero(nan_t)]
        raise ValueError(f"target column(s) with missing values: {', '.join(cols)}")
    empty_f = np.isnan(X).all(axis=0)
    if empty_f.any():
        cols = [header[f_idx[j]] for j in np.flatnonzero(empty_f)]
        raise ValueError(f"feature column(s) with no value at all: {', '.join(cols)}")
    return X, Y, [header[j] for j in f_idx]
