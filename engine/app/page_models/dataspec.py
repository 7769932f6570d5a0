"""The data set chosen on the Data page, as a small spec of plain values (no streamlit).

The Data page stores its choice in ``st.session_state["dataset_spec"]``: a dict of plain
values (str / int / float / list of str) that other pages and scripts turn back into a
:class:`engine.datasets.Dataset` with :func:`dataset_from_spec`. Three kinds:

``{"source": "friedman", "structure": "chain", "n_samples": 300, "n_outputs": 16,
"input_distribution": "uniform", "noise": 1.0, "n_noisy_outputs": 0, "seed": 0}``
    friedman1-chain / -group / -ind drawn with :func:`engine.datasets.make_friedman_dataset`
    (``random_state=seed``). A page that needs a test set draws a second sample with
    another seed (e.g. ``seed + 1``) and the same other values.

``{"source": "shipped", "name": "enb"}``
    one of :func:`engine.datasets.list_datasets`, loaded with ``load_dataset(name)``.

``{"source": "upload", "name": "my_file", "target_columns": ["a", "b"], "digest": "..."}``
    a user's CSV. The parsed arrays are not in the spec (they can be large): the page keeps
    them under ``st.session_state["dataset_upload"]`` as :func:`dataset_to_payload`'s
    dict, passed as ``upload=`` here. ``digest`` (sha1 of the file) tells two uploads apart
    and makes the spec a good cache key.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io

import numpy as np
from scipy import sparse

from engine.datasets import (
    INPUT_DISTRIBUTIONS,
    Dataset,
    load_csv,
    load_dataset,
    make_friedman_dataset,
)
from engine.names import STRUCTURES

__all__ = [
    "CACHE_HASH_FUNCS",
    "DEFAULT_SPEC",
    "SOURCES",
    "friedman_spec",
    "shipped_spec",
    "upload_spec",
    "dataset_from_spec",
    "describe_spec",
    "csv_columns",
    "parse_upload",
    "dataset_to_payload",
    "payload_to_dataset",
]

SOURCES = ("friedman", "shipped", "upload")

# ``hash_funcs`` for ``st.cache_data`` when an argument holds a data set's arrays: Streamlit hashes
# numpy arrays but not scipy.sparse matrices (bibtex, corel5k), so a sparse X is hashed as its
# shape and its three CSR arrays.
CACHE_HASH_FUNCS = {sparse.csr_matrix: lambda m: (m.shape, m.data, m.indices, m.indptr)}

DEFAULT_SPEC = {
    "source": "friedman",
    "structure": "chain",
    "n_samples": 300,
    "n_outputs": 16,
    "input_distribution": "uniform",
    "noise": 1.0,
    "n_noisy_outputs": 0,
    "seed": 0,
}


def friedman_spec(
    structure="chain", *, n_samples=300, n_outputs=16, input_distribution="uniform", noise=1.0,
    n_noisy_outputs=0, seed=0,
) -> dict:  # fmt: skip
    """Spec of a Friedman1 multi-output problem (plain values, validated)."""
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {list(STRUCTURES)}, got {structure!r}")
    if input_distribution not in INPUT_DISTRIBUTIONS:
        raise ValueError(f"input_distribution must be one of {list(INPUT_DISTRIBUTIONS)}, got {input_distribution!r}")
    return {
        "source": "friedman",
        "structure": str(structure),
        "n_samples": int(n_samples),
        "n_outputs": int(n_outputs),
        "input_distribution": str(input_distribution),
        "noise": float(noise),
        "n_noisy_outputs": int(n_noisy_outputs),
        "seed": int(seed),
    }


def shipped_spec(name: str) -> dict:
    return {"source": "shipped", "name": str(name)}


def upload_spec(name: str, target_columns, digest: str) -> dict:
    return {"source": "upload", "name": str(name), "target_columns": [str(c) for c in target_columns], "digest": str(digest)}


def dataset_from_spec(spec: dict, upload: dict | None = None, *, seed: int | None = None) -> Dataset:
    """Rebuild the data set of a spec. ``seed`` overrides a Friedman spec's seed (test sets)."""
    source = spec.get("source")
    if source == "friedman":
        return make_friedman_dataset(
            spec["structure"],
            n_samples=int(spec["n_samples"]),
            n_outputs=int(spec["n_outputs"]),
            input_distribution=spec["input_distribution"],
            noise=float(spec["noise"]),
            n_noisy_outputs=int(spec["n_noisy_outputs"]),
            random_state=int(spec["seed"] if seed is None else seed),
        )
    if source == "shipped":
        return load_dataset(spec["name"])
    if source == "upload":
        if upload is None:
            raise ValueError("the uploaded data set is no longer in this session: upload the CSV again on the Data page")
        if upload.get("digest") != spec.get("digest"):
            raise ValueError("the uploaded arrays do not belong to this spec (different file)")
        return payload_to_dataset(upload)
    raise ValueError(f"spec['source'] must be one of {list(SOURCES)}, got {source!r}")


def describe_spec(spec: dict) -> str:
    """One line for captions: 'friedman1-chain, 300 samples, 16 outputs, seed 0'."""
    if spec.get("source") == "friedman":
        extra = f" + {spec['n_noisy_outputs']} noisy" if spec.get("n_noisy_outputs") else ""
        return (
            f"friedman1-{spec['structure']}, {spec['n_samples']} samples, {spec['n_outputs']}{extra} outputs, "
            f"{spec['input_distribution']} inputs, noise {spec['noise']:g}, seed {spec['seed']}"
        )
    if spec.get("source") == "shipped":
        return f"{spec['name']} (shipped data set)"
    if spec.get("source") == "upload":
        return f"{spec['name']} (uploaded CSV, targets: {', '.join(spec['target_columns'])})"
    return str(spec)


# --- uploads --------------------------------------------------------------------------------


def _text_head(raw: bytes, limit: int = 1_000_000) -> str:
    if raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
                raw = gz.read(limit)
        except (OSError, EOFError) as exc:
            raise ValueError(f"the file looks gzip-compressed but cannot be decompressed: {exc}") from None
    truncated = len(raw) > limit
    head = raw[:limit]
    try:
        return head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not truncated or exc.start < len(head) - 4:  # not a multi-byte character cut at the limit
            raise ValueError("the file is not a UTF-8 text CSV file") from None
        return head[: exc.start].decode("utf-8-sig")


def csv_columns(raw: bytes, sep: str = ",") -> list[str]:
    """Column names of a CSV's header row (to pick targets before parsing the whole file)."""
    text = _text_head(bytes(raw))
    if "\x00" in text:
        raise ValueError("the file is not a text CSV file (it contains NUL bytes)")
    for row in csv.reader(io.StringIO(text), delimiter=sep):
        if any(cell.strip() for cell in row):
            return [cell.strip() for cell in row]
    raise ValueError("the file is empty")


def separator_hint(raw: bytes, sep: str, names: dict) -> str | None:
    """When the header row read with ``sep`` is one column but another separator of ``names``
    (label -> character) splits it into several, the sentence that says so; else None."""
    try:
        columns = csv_columns(raw, sep=sep)
    except ValueError:
        return None
    if len(columns) > 1:
        return None
    header = columns[0] if columns else ""
    for label, other in names.items():
        if other != sep and len(header.split(other)) > 1:
            return (f"The header row has no “{sep if sep != chr(9) else 'tab'}” but {len(header.split(other))} "
                    f"fields separated by “{other if other != chr(9) else 'tab'}”: choose the **{label}** separator.")
    return None


def parse_upload(raw: bytes, target_columns, *, name: str = "uploaded", **limits) -> tuple[Dataset, dict, dict]:
    """Parse an uploaded CSV: ``(dataset, spec, payload)``; every problem is a ValueError.

    ``limits`` go to :func:`engine.datasets.load_csv` (max_bytes, max_rows, max_columns, sep).
    """
    raw = bytes(raw)
    name = str(name)
    for suffix in (".gz", ".csv", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    ds = load_csv(raw, target_columns, name=name or "uploaded", **limits)
    digest = hashlib.sha1(raw).hexdigest()
    payload = dataset_to_payload(ds)
    payload["digest"] = digest
    return ds, upload_spec(ds.name, ds.target_names, digest), payload


def dataset_to_payload(ds: Dataset) -> dict:
    """A Dataset as a dict of arrays and plain values (for session_state)."""
    return {
        "name": ds.name,
        "X": ds.X if ds.is_sparse else np.asarray(ds.X),   # a sparse X stays sparse
        "Y": np.asarray(ds.Y),
        "feature_names": list(ds.feature_names),
        "target_names": list(ds.target_names),
        "task": ds.task,
        "description": ds.description,
    }


def payload_to_dataset(payload: dict) -> Dataset:
    return Dataset(
        name=payload["name"],
        X=payload["X"],
        Y=payload["Y"],
        feature_names=payload["feature_names"],
        target_names=payload["target_names"],
        task=payload["task"],
        description=payload.get("description", ""),
    )
