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

``{"source": "upload", "name": "my_file", "target_columns": ["a", "b"], "digest": "...", "sep": ",",
"targets": "last-2"}``
    a user's CSV. The parsed arrays are not in the spec (they can be large): the page keeps
    them under ``st.session_state["dataset_upload"]`` as :func:`dataset_to_payload`'s
    dict, passed as ``upload=`` here. ``digest`` is the file's name in the server's upload store
    (:func:`engine.app.serving.uploads.content_id`); ``targets`` the rule that chose the target
    columns (:mod:`engine.datasets.target_columns`).

A spec travels in the URL as one short text (:func:`spec_to_token` / :func:`spec_from_token`), so a
reload of any page, or a link, finds the same data: ``friedman_chain_n300_d16_uniform_noise1_noisy0_seed0``,
``shipped_enb``, ``upload_<digest>_comma_prefix-tag_``. An upload's token names the file by its
content hash: it opens only on a server that still holds the file.
"""

from __future__ import annotations

import csv
import gzip
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
from engine.app.serving.uploads import GONE, content_id
from engine.datasets.target_columns import binary_columns, choose_targets, parse_rule, rule_text
from engine.names import STRUCTURES

# The separators an upload may use: their names (in URLs and widgets) and characters.
SEPARATORS = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|"}

__all__ = [
    "CACHE_HASH_FUNCS",
    "DEFAULT_SPEC",
    "SOURCES",
    "friedman_spec",
    "shipped_spec",
    "upload_spec",
    "dataset_from_spec",
    "describe_spec",
    "spec_to_token",
    "spec_from_token",
    "GONE",
    "SEPARATORS",
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


def upload_spec(name: str, target_columns, digest: str, *, sep: str = ",", targets: str | None = None) -> dict:
    """Spec of an uploaded CSV; ``targets``: the rule that chose ``target_columns`` (default: them, picked)."""
    columns = [str(c) for c in target_columns]
    return {"source": "upload", "name": str(name), "target_columns": columns, "digest": str(digest),
            "sep": str(sep), "targets": targets or rule_text("pick", columns)}


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
            raise ValueError(spec.get("error") or GONE)
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
        if not spec.get("target_columns"):      # named by a URL, not found on this server
            return f"an uploaded CSV ({spec.get('digest', '?')}) that is not on this server any more"
        targets = spec["target_columns"]
        shown = ", ".join(targets) if len(targets) <= 4 else f"{targets[0]} … {targets[-1]}, {len(targets)} in all"
        return f"{spec['name']} (uploaded CSV, targets: {shown})"
    return str(spec)


# --- the spec in a URL ---------------------------------------------------------------------


def spec_to_token(spec: dict) -> str:
    """The spec as one URL value (see the module's docstring); :func:`spec_from_token` reads it back."""
    source = spec.get("source")
    if source == "friedman":
        return (f"friedman_{spec['structure']}_n{spec['n_samples']}_d{spec['n_outputs']}_{spec['input_distribution']}"
                f"_noise{float(spec['noise']):g}_noisy{spec['n_noisy_outputs']}_seed{spec['seed']}")
    if source == "shipped":
        return f"shipped_{spec['name']}"
    if source == "upload":
        sep = next((k for k, v in SEPARATORS.items() if v == spec.get("sep", ",")), "comma")
        return f"upload_{spec['digest']}_{sep}_{spec['targets']}"
    raise ValueError(f"spec['source'] must be one of {list(SOURCES)}, got {source!r}")


def spec_from_token(token: str) -> dict:
    """The spec a URL value names (ValueError saying what is wrong). An upload's spec holds its
    digest, separator and target rule; its name and target columns come from the file
    (:func:`parse_upload`), which only the server holding it has."""
    source, _, rest = str(token).partition("_")
    try:
        if source == "friedman":
            structure, n, d, inputs, noise, noisy, seed = rest.split("_")
            fields = dict(zip(("n", "d", "noise", "noisy", "seed"), (n, d, noise, noisy, seed)))
            for key, text in fields.items():
                if not text.startswith(key):
                    raise ValueError(key)
                fields[key] = text[len(key):]
            return friedman_spec(structure, n_samples=int(fields["n"]), n_outputs=int(fields["d"]),
                                 input_distribution=inputs, noise=float(fields["noise"]),
                                 n_noisy_outputs=int(fields["noisy"]), seed=int(fields["seed"]))
        if source == "shipped" and rest:
            return shipped_spec(rest)
        if source == "upload":
            digest, sep, targets = rest.split("_", 2)
            parse_rule(targets)
            return {"source": "upload", "name": "", "target_columns": [], "digest": digest,
                    "sep": SEPARATORS[sep], "targets": targets}
    except (ValueError, KeyError):
        pass
    raise ValueError(f"the link's data = “{token}” names no data set this app knows")


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


def parse_upload(raw: bytes, target_columns, *, name: str = "uploaded", targets: str | None = None,
                 **limits) -> tuple[Dataset, dict, dict]:
    """Parse an uploaded CSV: ``(dataset, spec, payload)``; every problem is a ValueError.

    ``target_columns``: a list of names, or None to choose them by the rule ``targets``
    (:mod:`engine.datasets.target_columns`); either way they keep the file's column order.
    ``limits`` go to :func:`engine.datasets.load_csv` (max_bytes, max_rows, max_columns, sep).
    """
    raw = bytes(raw)
    name = str(name)
    for suffix in (".gz", ".csv", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    sep = limits.get("sep", ",")
    header = csv_columns(raw, sep=sep)
    if target_columns is None:
        if targets is None:
            raise ValueError("parse_upload needs target_columns or a targets rule")
        kind, _ = parse_rule(targets)
        target_columns = choose_targets(header, targets, binary=binary_columns(raw, sep) if kind == "binary" else None)
    elif isinstance(target_columns, str):
        target_columns = [target_columns]
    wanted = set(target_columns)
    ordered = [c for c in header if c in wanted] + [c for c in target_columns if c not in header]
    ds = load_csv(raw, ordered if len(ordered) == len(wanted) else list(target_columns), name=name or "uploaded", **limits)
    digest = content_id(raw)
    payload = dataset_to_payload(ds)
    payload["digest"] = digest
    return ds, upload_spec(ds.name, ds.target_names, digest, sep=sep, targets=targets), payload


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
