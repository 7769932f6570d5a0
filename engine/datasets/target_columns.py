"""Which columns of a CSV are the targets, chosen in one move (a rule), always in the file's order.

A file with 60 label columns should not take 60 clicks. A rule names the targets:

* ``last-k``: the last k columns (a file that ends with its outputs);
* ``prefix-T``: every column whose name starts with T (``tag_00`` ... ``tag_59``: ``prefix-tag_``);
* ``binary``: every column whose values are all 0 or 1, none missing (a multi-label file's labels);
* ``pick-a,b``: the columns named (each name percent-encoded, so a comma in a name survives).

Whatever the rule, the targets come back in the order of the file's columns, so the outputs are
``tag_00, tag_01, ...`` in every table, chart and download. The rule is text so it can sit in a URL.
"""
from __future__ import annotations

import gzip
import io
from urllib.parse import quote, unquote

import numpy as np
import pandas as pd

RULES = ("last", "prefix", "binary", "pick")


def rule_text(kind: str, value=None) -> str:
    """The rule as text: ``rule_text("last", 3) == "last-3"``; ``rule_text("pick", ["a", "b"])``."""
    if kind == "last":
        return f"last-{int(value)}"
    if kind == "prefix":
        return f"prefix-{value}"
    if kind == "binary":
        return "binary"
    if kind == "pick":
        return "pick-" + ",".join(quote(str(c), safe="") for c in value)
    raise ValueError(f"the target rule must be one of {list(RULES)}, got {kind!r}")


def parse_rule(text: str) -> tuple[str, object]:
    """``(kind, value)`` of a rule's text (ValueError naming what is wrong)."""
    if not isinstance(text, str):
        raise ValueError(f"targets must be a rule's text, got {text!r}")
    kind, _, value = text.partition("-")
    if kind == "binary" and not value:
        return "binary", None
    if kind == "last" and value.isdigit() and int(value) >= 1:
        return "last", int(value)
    if kind == "prefix" and value:
        return "prefix", value
    if kind == "pick" and value:
        return "pick", [unquote(c) for c in value.split(",")]
    raise ValueError(f"targets must be last-<k>, prefix-<text>, binary or pick-<columns>, got {text!r}")


def describe_rule(text: str) -> str:
    """The rule in words, for a caption: 'the columns starting with “tag_”'."""
    kind, value = parse_rule(text)
    if kind == "last":
        return "the last column" if value == 1 else f"the last {value} columns"
    if kind == "prefix":
        return f"the columns starting with “{value}”"
    if kind == "binary":
        return "every 0/1 column"
    return "the columns picked"


def choose_targets(header, rule: str, binary=None) -> list[str]:
    """The target columns of a file whose header is ``header`` by ``rule``, in the file's order.

    ``binary``: the 0/1 columns (:func:`binary_columns`), needed by the ``binary`` rule only.
    Raises ValueError when the rule chooses no column, an unknown one, or every column (a
    feature is needed)."""
    header = [str(h) for h in header]
    kind, value = parse_rule(rule)
    if kind == "last":
        if value >= len(header):
            raise ValueError(f"the last {value} columns would leave no feature: the file has {len(header)} columns")
        chosen = set(header[-value:])
    elif kind == "prefix":
        chosen = {h for h in header if h.startswith(value)}
        if not chosen:
            raise ValueError(f"no column name starts with “{value}”")
    elif kind == "binary":
        if binary is None:
            raise ValueError("the binary rule needs the file's 0/1 columns")
        chosen = set(binary) & set(header)
        if not chosen:
            raise ValueError("no column holds only 0 and 1")
    else:
        unknown = [c for c in value if c not in header]
        if unknown:
            raise ValueError(f"target column(s) not found: {', '.join(unknown)}")
        chosen = set(value)
    if len(chosen) == len(header):
        raise ValueError("every column would be a target: at least one feature column is needed")
    return [h for h in header if h in chosen]


def binary_columns(raw: bytes, sep: str = ",") -> list[str]:
    """The columns of a CSV (bytes, possibly gzip-compressed) whose values are all 0 or 1, none
    missing, in the file's order; [] for a file pandas cannot read."""
    raw = bytes(raw)
    try:
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        frame = pd.read_csv(io.BytesIO(raw), sep=sep, skipinitialspace=True, encoding="utf-8-sig")
    except (ValueError, OSError, EOFError, pd.errors.ParserError, UnicodeDecodeError):
        return []
    found = []
    for name in frame.columns:
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
        if values.size and np.isin(values, (0.0, 1.0)).all():
            found.append(str(name).strip())
    return found
