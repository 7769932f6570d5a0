"""engine.app.serving.uploads: the server's uploaded files, by content hash, bounded, held by sessions."""
import pytest

from engine.app.serving.uploads import GONE, UploadFull, UploadStore, content_id, is_content_id, store_from_env


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_file_is_kept_under_its_content_hash_once():
    store = UploadStore()
    a = store.put(b"x,y\n1,2\n", "a.csv", "session-1")
    assert a == content_id(b"x,y\n1,2\n") and is_content_id(a)
    assert store.put(b"x,y\n1,2\n", "again.csv", "session-2") == a and len(store) == 1
    assert store.get(a).raw == b"x,y\n1,2\n" and store.get(a).name == "a.csv"
    assert store.get(a).holders == {"session-1", "session-2"}
    assert store.get("0" * 16) is None and store.get("../etc") is None and store.get(None) is None
    assert "not on this server any more" in GONE


def test_a_file_leaves_a_grace_period_after_its_last_session():
    clock = Clock()
    store = UploadStore(grace_seconds=120, clock=clock)
    uid = store.put(b"1", "f.csv", "s1")
    store.get(uid, "s2")
    store.leave("s1")
    clock.now = 1000
    assert store.expire() == 0                      # s2 still holds it
    store.leave("s2")
    clock.now = 1119
    assert store.expire() == 0 and store.get(uid) is not None   # a reload's new session is still in time
    assert store.get(uid, "s3") is not None          # ...and claims it
    store.leave("s3")
    clock.now = 1300
    assert store.expire() == 1 and store.get(uid) is None


def test_bounded_in_count_and_bytes_least_recently_used_unheld_first():
    clock = Clock()
    store = UploadStore(max_entries=2, max_bytes=10, clock=clock)
    a = store.put(b"aaaa", "a", "s1")
    b = store.put(b"bbbb", "b", "s2")
    store.leave("s1")
    store.leave("s2")
    clock.now = 1
    store.get(a)                                     # a used last: b leaves first
    c = store.put(b"cccc", "c", "s3")
    assert store.get(b) is None and store.get(a) is not None and store.get(c) is not None
    d = store.put(b"dddddd", "d", "s4")              # 4 + 6 bytes: a (unheld) leaves, c (held) stays
    assert store.get(a) is None and {store.get(c).name, store.get(d).name} == {"c", "d"}
    assert store.nbytes == 10
    with pytest.raises(UploadFull, match="no room"):
        store.put(b"e", "e", "s5")                   # both held: a held file is never dropped for room
    with pytest.raises(UploadFull, match="more than this server keeps"):
        store.put(b"f" * 11, "f", "s5")


def test_limits_from_the_environment():
    store = store_from_env({"RPO_UPLOAD_ENTRIES": "3", "RPO_UPLOAD_MB": "5"})
    assert store.max_entries == 3 and store.max_bytes == 5 << 20
    assert store_from_env({}).max_entries == 16
    for bad in ("0", "-1", "x", "2.5"):
        with pytest.raises(ValueError, match="RPO_UPLOAD_MB must be a positive integer"):
            store_from_env({"RPO_UPLOAD_MB": bad})
