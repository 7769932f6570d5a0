"""Finished cells on disk, so that a stopped or crashed study resumes without recomputing them.

One JSON-lines file per (data set, method) under the cache folder. Each line
is ``{"key": ..., "result": ..., "check": sha256}``, written whole and
flushed by the one process that collects the results (workers never write).
A line that does not parse, lacks a field or whose checksum does not match
(a crash mid-write, an edited file) is not trusted: it is counted in
``n_corrupt`` and its cell is computed again. Keys are plain JSON values
compared in canonical form (sorted keys), so a cell is found again only when
every input that defines it (data set and a hash of its files, method, split,
setting, number of steps, seed, budget, protocol version, engine version:
:mod:`engine.experiments.engine_version`) is the same, so a user who keeps the
folder across an upgrade of the engine or an edit of the data is not served old cells.

A cell that runs for long (st-rf on delicious: about an hour of CPU) may also
keep its own work in progress in a scratch file (:meth:`CellCache.scratch_path`,
named by a hash of its key), which only that cell reads back, so a stopped run
resumes it where it was; the collector deletes the file once the cell is in
the cache (:meth:`CellCache.drop_scratch`).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["CellCache"]


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _check(key, result):
    return hashlib.sha256(_canonical([key, result]).encode()).hexdigest()


class CellCache:
    """``get(key)`` / ``put(key, result)``; ``root=None`` keeps results in memory only."""

    def __init__(self, root=None):
        self.root = None if root is None else Path(root)
        self.loaded = {}            # file -> {canonical key: result}
        self.n_corrupt = 0

    def _file(self, key):
        if self.root is None:
            return None
        def safe(text):
            return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(text))
        return self.root / safe(key["dataset"]) / f"{safe(key['method'])}.jsonl"

    def _entries(self, key):
        path = self._file(key)
        name = str(path)
        if name not in self.loaded:
            entries = {}
            if path is not None and path.exists():
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    entry = self._parse(line)
                    if entry is None:
                        self.n_corrupt += 1
                    else:
                        entries[_canonical(entry["key"])] = entry["result"]
            self.loaded[name] = entries
        return self.loaded[name]

    @staticmethod
    def _parse(line):
        if not line.strip():
            return None
        try:
            entry = json.loads(line)
        except ValueError:
            return None
        if (not isinstance(entry, dict) or not {"key", "result", "check"} <= set(entry)
                or not isinstance(entry["result"], dict) or entry["check"] != _check(entry["key"], entry["result"])):
            return None
        return entry

    def get(self, key):
        """The stored result of this cell, or None."""
        return self._entries(key).get(_canonical(key))

    def scratch_path(self, key):
        """Where the cell of ``key`` may keep its work in progress (a ``.npz`` path), or None in memory."""
        path = self._file(key)
        if path is None:
            return None
        digest = hashlib.sha256(_canonical(key).encode()).hexdigest()[:16]
        return path.parent / "scratch" / f"{path.stem}-{digest}.npz"

    def drop_scratch(self, key):
        """Delete the scratch file of ``key``'s cell, if any (its result is in the cache now)."""
        path = self.scratch_path(key)
        if path is not None:
            path.unlink(missing_ok=True)

    def put(self, key, result):
        """Keep ``result`` (a dict of JSON values) and append it to the cell's file."""
        self._entries(key)[_canonical(key)] = result
        path = self._file(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        line = _canonical({"key": key, "result": result, "check": _check(key, result)})
        with open(path, "ab") as f:
            if f.tell():    # a crash may have left a partial last line: start on a new one
                with open(path, "rb") as last:
                    last.seek(-1, os.SEEK_END)
                    if last.read(1) != b"\n":
                        f.write(b"\n")
            f.write((line + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
