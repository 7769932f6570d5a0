"""Finished runs of the pages' first views on disk, filled when the server starts (no streamlit).

A class opens a fresh server and every student's first click is a page's default view or a Home
preset. Computed on demand those take 12-42 s; served from here they draw at once. So:

* **What is kept.** One file per finished run of a first view: the run store's entry (the Job's
  final snapshot and the page's ``extra``, e.g. the Convergence page's fitted models, so a Step
  after a cached Start continues them), under the run's key
  (:func:`engine.app.serving.run_key.run_key`: page, function, every argument and the engine's
  version, the hash of the compiled core's sources, as the real-data study's cell cache). A page
  asking for the same run gets it from here: the key is the same by construction, because the
  file was written by running the page itself (``pages/_warm.py``), not by a copy of its call.
* **Where.** ``$RPO_RUN_CACHE`` if set, else ``$XDG_CACHE_HOME/rpo-explorer/runs`` (default
  ``~/.cache/rpo-explorer/runs``), in a folder per engine version. **To clear it**, delete that
  folder (``rm -r ~/.cache/rpo-explorer/runs``); an engine of another version never reads a file
  of this one, and a file whose checksum does not match (a crash mid-write, an edit) is ignored
  and removed. The fill removes other versions' folders unused for a week (:meth:`WarmCache.prune`).
* **Who fills it.** The server, from its first page view (``pages/_session.py``; Streamlit runs no
  app code before one), or a command before class (``nice -n 19 python -m pages._warm``, no
  browser): processes at nice 19 (``pages/_warm.py``, two on two cores) open every first view listed
  in :mod:`engine.app.page_content.first_views` (each page's default first, then every Home preset,
  a few more) as a student would, one run at a time each, and write each finished run here. The
  fill logs one line per view ("start-up fill: ...") in the server's log, ends when the list is
  done, and is ended with the server (:meth:`StartupFill.stop`). ``RPO_WARM=0`` turns it off;
  ``RPO_WARM_ONLY=text`` fills only the views whose label holds ``text`` (e.g. "default view"). A
  file already here is not computed again, so a restarted server is warm at once.
* **Never one run twice.** Whichever process starts a run first (the fill or a student's page on
  the server) marks it (``<key>.pending``: its process id, fraction and message; created
  atomically, :meth:`WarmCache.claim`); the other, asking for the same run, waits for that one's
  file instead of computing it (:func:`await_warm`: a student sees the fill's progress). A run a
  student's page computes before the fill reaches it is left to the server: the fill marks it
  wanted (``<key>.wanted``), moves on, and the server writes its file when it ends. If the marking
  process dies or stops the run, the waiting one computes it.

Why not ship the results in the package: the key holds the hash of the core's sources, so every
change of the core would make shipped files stale (the fill would recompute them anyway), and the
entries (fitted models of Convergence's 10 000-step preset: tens of MB) do not belong in git.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from engine.app.serving.measures import append_record
from engine.experiments.engine_version import engine_version

__all__ = ["WarmCache", "StartupFill", "cache_root", "fill_enabled", "await_warm", "FILL_LOG"]

PENDING_SECONDS = 0.25      # how often a waiting run reads the fill's marker
FILL_LOG = "start-up fill: %s"   # the prefix of the fill's lines in the server's log
_DIGEST = 32


def cache_root(environ=None) -> Path:
    """The cache's folder (before the engine version's sub-folder): ``$RPO_RUN_CACHE``, else
    ``$XDG_CACHE_HOME/rpo-explorer/runs``, else ``~/.cache/rpo-explorer/runs``."""
    env = os.environ if environ is None else environ
    if env.get("RPO_RUN_CACHE", "").strip():
        return Path(env["RPO_RUN_CACHE"].strip()).expanduser()
    base = env.get("XDG_CACHE_HOME", "").strip() or str(Path("~/.cache").expanduser())
    return Path(base) / "rpo-explorer" / "runs"


def fill_enabled(environ=None) -> bool:
    """Whether the server fills the cache when it starts: ``RPO_WARM`` unset or 1 (0: off).
    Another value raises a ValueError naming the variable."""
    raw = (os.environ if environ is None else environ).get("RPO_WARM", "1").strip()
    if raw not in ("0", "1", ""):
        raise ValueError(f"RPO_WARM must be 0 or 1, got {raw!r}")
    return raw != "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, OverflowError):
        return False
    return True


class WarmCache:
    """``get(key)`` / ``put(key, value)`` of finished runs in ``root/<engine version>/``, and the
    fill's markers (``begin``, ``report``, ``pending``, ``end``)."""

    def __init__(self, root: str | os.PathLike, version: str | None = None) -> None:
        self.folder = Path(root) / (version or engine_version()).replace("/", "_")
        self.n_corrupt = 0
        self.token = f"{os.getpid()}-{os.urandom(4).hex()}"   # this cache's markers (one per store)

    def _path(self, key: str, suffix: str) -> Path:
        if not isinstance(key, str) or not key or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"key must be a run key (hex), got {key!r}")
        return self.folder / f"{key}{suffix}"

    def __contains__(self, key: str) -> bool:
        return self._path(key, ".pkl").exists()

    def get(self, key: str) -> Any | None:
        """The stored value of ``key``, or None (absent, or not trusted: then removed)."""
        return self.load(key)[0]

    def load(self, key: str) -> tuple[Any | None, int]:
        """``(value, bytes)`` of ``key`` (``(None, 0)`` when absent or not trusted: then removed)."""
        path = self._path(key, ".pkl")
        try:
            data = path.read_bytes()
        except OSError:
            return None, 0
        if len(data) > _DIGEST and hashlib.sha256(data[_DIGEST:]).digest() == data[:_DIGEST]:
            try:
                return pickle.loads(data[_DIGEST:]), len(data)
            except Exception:  # noqa: BLE001 - a class that moved since: recompute
                pass
        self.n_corrupt += 1
        path.unlink(missing_ok=True)
        return None, 0

    def put(self, key: str, value: Any) -> int:
        """Write ``value`` for ``key`` (atomically: a reader sees the old file or the new one);
        the number of bytes written."""
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        path = self._path(key, ".pkl")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as f:
            f.write(hashlib.sha256(payload).digest() + payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return len(payload) + _DIGEST

    # --- the fill's markers: which run it computes now, how far --------------------------------
    def report(self, key: str, fraction: float = 0.0, message: str = "") -> None:
        """This process computes ``key`` (its progress so far); another live process's marker is
        left alone."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(key, ".pending")
        info = self.pending(key)
        if info is not None and info.get("token") != self.token:
            return
        tmp = path.with_suffix(f".ptmp{os.getpid()}")
        tmp.write_text(json.dumps({"pid": os.getpid(), "token": self.token, "fraction": float(fraction),
                                   "message": str(message)}))
        os.replace(tmp, path)

    def claim(self, key: str) -> bool:
        """Mark ``key`` as computed by this process, unless another live process computes it: True
        when this process may compute it (the marker is created atomically, so of two processes
        starting the same run at once only one computes it; a dead process's marker is taken over)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(key, ".pending")
        for _ in range(3):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                try:
                    info = json.loads(path.read_text())
                    pid, token = info.get("pid", -1), info.get("token")
                except (OSError, ValueError, AttributeError):
                    pid, token = -1, None
                if token == self.token:
                    return True
                if _alive(pid):
                    return False
                path.unlink(missing_ok=True)      # a dead process's marker: take it over
                continue
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps({"pid": os.getpid(), "token": self.token, "fraction": 0.0, "message": "starting"}))
            return True
        return False

    def end(self, key: str) -> None:
        """This process no longer computes ``key`` (its file written, or the run stopped)."""
        path = self._path(key, ".pending")
        try:
            if json.loads(path.read_text()).get("token") != self.token:
                return
        except (OSError, ValueError, AttributeError):
            pass
        path.unlink(missing_ok=True)

    def want(self, key: str, wanted: bool = True) -> None:
        """The fill waits for ``key``, computed by a server: that server writes its file when done
        (``wanted=False`` takes the wish back)."""
        path = self._path(key, ".wanted")
        if wanted:
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_text(str(os.getpid()))
        else:
            path.unlink(missing_ok=True)

    def wanted(self, key: str) -> bool:
        return self._path(key, ".wanted").exists()

    def pending(self, key: str) -> dict | None:
        """The fill's progress on ``key`` while a live process computes it, else None."""
        try:
            info = json.loads(self._path(key, ".pending").read_text())
        except (OSError, ValueError):
            return None
        return info if isinstance(info, dict) and _alive(info.get("pid", -1)) else None

    def record(self, page: str, estimate: float, elapsed: float, cpu: float) -> None:
        """The fill measured a run of ``page`` (for the server's estimates: engine.app.serving.measures)."""
        append_record(self.folder, page, estimate, elapsed, cpu)

    def prune(self, days: float = 7.0) -> list[str]:
        """Remove the folders of other engine versions not written to for ``days`` days (a checkout's
        older cores; a recent one may belong to another server still running); their names."""
        cutoff, gone = time.time() - days * 86400.0, []
        for folder in (self.folder.parent.iterdir() if self.folder.parent.exists() else ()):
            if folder.is_dir() and folder != self.folder and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                gone.append(folder.name)
        return gone

    def keys(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.pkl")) if self.folder.exists() else []


def await_warm(warm: WarmCache, key: str, extra: dict, target: Callable[..., Any], /, *args: Any,
               progress: Callable, stop, waiting_for: str = "computed by the server's start-up fill",
               **kwargs: Any) -> Any:
    """A run another process (the start-up fill, or the server for the fill) is computing now: wait
    for its file (showing that process's progress after ``waiting_for``), then return its result and
    put its ``extra`` into this run's ``extra`` (in place: every session attached sees it). If that
    process stops computing it, compute it here."""
    while not stop.is_set():
        hit = warm.get(key)
        if hit is not None:
            snap, stored_extra = hit
            extra.clear()
            extra.update(stored_extra)
            return snap["result"]
        info = warm.pending(key)
        if info is None:
            if key in warm:         # written between the two reads
                continue
            if warm.claim(key):     # the other process stopped: compute it here (unless a third took it)
                return target(*args, progress=progress, stop=stop, **kwargs)
            continue
        progress(info.get("fraction"), f"{waiting_for}: {info.get('message', '')}")
        stop.wait(PENDING_SECONDS)
    return None


class StartupFill:
    """The fill's process: started once, at nice 19, its output lines passed to ``log(line)``;
    :meth:`stop` ends it (SIGTERM, then SIGKILL after ``grace`` seconds)."""

    def __init__(self, command: Sequence[str], log: Callable[[str], None], *, cwd=None,
                 env: dict | None = None) -> None:
        self.command, self.log, self.cwd = list(command), log, cwd
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self.started_at = 0.0

    def start(self) -> "StartupFill":
        self.started_at = time.monotonic()
        self.process = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                                        preexec_fn=lambda: os.nice(19), start_new_session=True)
        self._reader = threading.Thread(target=self._read, name="startup-fill-log", daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        """Pass on the fill's own lines (FILL_LOG's); the rest (its pages' log) only when it fails."""
        other: list[str] = []
        prefix = FILL_LOG.split("%")[0]
        for line in self.process.stdout:
            if line.startswith(prefix):
                self.log(line.rstrip())
            elif line.strip():
                other = (other + [line.rstrip()])[-20:]
        code = self.process.wait()
        if code not in (0, -15):
            self.log(FILL_LOG % f"the fill process ended with status {code}; its last lines:\n" + "\n".join(other))

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, grace: float = 3.0) -> None:
        """End the fill and its worker processes (its own process group)."""
        if not self.running:
            return
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.process.wait()

    def _signal(self, sig) -> None:
        try:
            os.killpg(self.process.pid, sig)      # start_new_session: the group is the fill's own
        except OSError:
            self.process.send_signal(sig)
