"""The engine's version as the real-data study's cell cache sees it: a cell computed by another
engine is never served again.

``engine_version()`` is the installed package's version plus a hash of the compiled core:

* the version alone is not enough: in an editable checkout (how this project is run) the
  version stays "0.1.0" while the core's ``.pyx`` files change under it, and a change of the
  split search or of the line search changes every score;
* the hash is of the core's *sources* (``engine/_core/*.pyx``, ``*.pxd``, ``*.h``), not of
  the built extension: the same sources rebuilt (another compiler run, another machine, a
  reinstall) give the same numbers, so they keep the cache, while a binary's bytes change
  with every build (paths, timestamps) and would throw it away for nothing. Where the
  ``.pyx`` sources are absent (a wheel ships only ``.pxd`` and ``.h``), the built extension
  modules are hashed instead: a miss after a reinstall is safe, a wrong hit is not.

Python-side changes that alter the study's numbers (its protocol, the estimators' Python
code) bump ``PROTOCOL_VERSION`` in :mod:`engine.experiments.real_data` by hand.
"""
from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

__all__ = ["engine_version", "core_fingerprint"]

CORE_DIR = Path(__file__).resolve().parents[1] / "_core"
SOURCE_PATTERNS = ("*.pyx", "*.pxd", "*.h")
BUILD_PATTERNS = ("*.so", "*.pyd")
PACKAGE = "rpo-explorer"


def core_fingerprint(core_dir=CORE_DIR):
    """"src-<12 hex>" over the core's sources when its .pyx files are there, else "bin-<12 hex>"
    over its built extension modules ("none" when neither is found)."""
    core_dir = Path(core_dir)
    for label, patterns in (("src", SOURCE_PATTERNS), ("bin", BUILD_PATTERNS)):
        files = sorted({p for pattern in patterns for p in core_dir.glob(pattern)})
        if label == "src" and not any(p.suffix == ".pyx" for p in files):
            continue
        if files:
            digest = hashlib.sha256()
            for path in files:
                digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
            return f"{label}-{digest.hexdigest()[:12]}"
    return "none"


def _package_version():
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:      # run from a checkout that was never installed
        return "unknown"


@functools.lru_cache(maxsize=1)
def engine_version():
    """"<package version>+<core fingerprint>", e.g. "0.1.0+src-1a2b3c4d5e6f" (computed once per process)."""
    return f"{_package_version()}+{core_fingerprint()}"
