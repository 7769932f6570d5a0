"""The server's uploaded files, kept by content hash while a session holds them (no streamlit).

A reload of the tab opens a new browser session: what the old one kept in ``st.session_state`` is
gone. So an uploaded CSV is kept here, once per server, under its content hash (the file's bytes and
its name): the Data page puts it in, any page of any session that names its hash (in the URL) gets
it back and holds it too.

Bounded like the run cache (:mod:`engine.app.serving.runstore`): at most ``max_entries`` files and
``max_bytes`` in all (``RPO_UPLOAD_ENTRIES``, ``RPO_UPLOAD_MB``; defaults 16 and 200), least recently
used out first; a file some session holds is never dropped for room (the new upload is refused
instead, with a message saying so). A file leaves with
its sessions: when the last session holding it ends (or is idle for the idle time), it is kept
``grace_seconds`` more (a reload's new session claims it within a second or two), then dropped.

A hash names a file only on the server that holds it: a link that names one opens elsewhere (or
after the file left) on the notice :data:`GONE`, and nothing runs.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Mapping

from engine.app.serving.limits import positive_int

MB = 1 << 20
DEFAULT_ENTRIES = 16
DEFAULT_UPLOAD_MB = 200
GRACE_SECONDS = 120.0        # kept this long after its last session left: a reload claims it back
ID_LENGTH = 16               # hex digits of the content hash a URL names (64 bits)
GONE = "the uploaded file is not on this server any more: upload it again"


def content_id(raw: bytes) -> str:
    """The name of a file's bytes in the store and in URLs: the first 16 hex digits of their SHA-256."""
    return hashlib.sha256(bytes(raw)).hexdigest()[:ID_LENGTH]


def is_content_id(text: object) -> bool:
    return isinstance(text, str) and len(text) == ID_LENGTH and all(c in "0123456789abcdef" for c in text)


@dataclass
class Upload:
    """One uploaded file: its bytes, the name it was uploaded under, the sessions holding it."""

    id: str
    name: str
    raw: bytes
    holders: set = field(default_factory=set)
    last_used: float = 0.0
    left_at: float | None = None     # when its last holder left (None while held)

    @property
    def nbytes(self) -> int:
        return len(self.raw)


class UploadFull(ValueError):
    """No room for a file: every file kept is held by a session (a message for the user)."""


class UploadStore:
    """Uploaded files by content id, bounded in count and bytes; thread-safe."""

    def __init__(self, max_entries: int = DEFAULT_ENTRIES, max_bytes: int = DEFAULT_UPLOAD_MB * MB, *,
                 grace_seconds: float = GRACE_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        if int(max_entries) < 1 or int(max_bytes) < 1:
            raise ValueError("max_entries and max_bytes must be positive")
        if not float(grace_seconds) >= 0:
            raise ValueError(f"grace_seconds must be >= 0, got {grace_seconds!r}")
        self.max_entries, self.max_bytes, self.grace_seconds = int(max_entries), int(max_bytes), float(grace_seconds)
        self._items: OrderedDict[str, Upload] = OrderedDict()
        self._lock = threading.Lock()
        self._clock = clock

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(u.nbytes for u in self._items.values())

    def put(self, raw: bytes, name: str, owner: str) -> str:
        """Keep ``raw`` (uploaded as ``name``) for ``owner``; its content id. Raises UploadFull
        when the file is over the store's size or every kept file is held and none can leave."""
        raw = bytes(raw)
        if len(raw) > self.max_bytes:
            raise UploadFull(f"the file is {len(raw):,} bytes, more than this server keeps for uploads "
                             f"({self.max_bytes:,} bytes)")
        uid = content_id(raw)
        with self._lock:
            item = self._items.get(uid)
            if item is None:
                self._make_room(len(raw))
                item = self._items[uid] = Upload(uid, str(name), raw)
            self._hold(item, owner)
            return uid

    def get(self, uid: str, owner: str | None = None) -> Upload | None:
        """The file of ``uid`` (None when the store does not hold it); ``owner`` then holds it too."""
        with self._lock:
            item = self._items.get(uid) if is_content_id(uid) else None
            if item is not None and owner is not None:
                self._hold(item, owner)
            elif item is not None:
                item.last_used = self._clock()
                self._items.move_to_end(uid)
            return item

    def held_by(self, owner: str) -> list[Upload]:
        """The files ``owner`` holds, most recently used last."""
        with self._lock:
            return [u for u in self._items.values() if owner in u.holders]

    def leave(self, owner: str) -> None:
        """``owner`` (a session that ended or went idle) holds nothing any more."""
        with self._lock:
            now = self._clock()
            for item in self._items.values():
                if owner in item.holders:
                    item.holders.discard(owner)
                    if not item.holders:
                        item.left_at = now

    def expire(self) -> int:
        """Drop the files nobody has held for ``grace_seconds``; how many were dropped."""
        with self._lock:
            now = self._clock()
            gone = [uid for uid, u in self._items.items()
                    if not u.holders and u.left_at is not None and now - u.left_at >= self.grace_seconds]
            for uid in gone:
                del self._items[uid]
            return len(gone)

    def _hold(self, item: Upload, owner: str) -> None:
        item.holders.add(str(owner))
        item.left_at = None
        item.last_used = self._clock()
        self._items.move_to_end(item.id)

    def _make_room(self, nbytes: int) -> None:
        """Drop least recently used files nobody holds until one more of ``nbytes`` fits."""
        def over():
            return (len(self._items) + 1 > self.max_entries
                    or sum(u.nbytes for u in self._items.values()) + nbytes > self.max_bytes)
        for uid in [uid for uid, u in self._items.items() if not u.holders]:
            if not over():
                return
            del self._items[uid]
        if over():
            raise UploadFull(f"this server keeps {len(self._items)} uploaded files for open sessions and has no "
                             "room for another: try again when a session has ended")


def store_from_env(environ: Mapping[str, str] | None = None) -> UploadStore:
    """A store with the limits of ``RPO_UPLOAD_ENTRIES`` and ``RPO_UPLOAD_MB`` (a bad value: ValueError
    naming the variable)."""
    env = os.environ if environ is None else environ
    return UploadStore(positive_int(env, "RPO_UPLOAD_ENTRIES", DEFAULT_ENTRIES),
                       positive_int(env, "RPO_UPLOAD_MB", DEFAULT_UPLOAD_MB) * MB)
