"""A row restored from its blob (``put(keep_times=True)``: the rebuild, journal recovery, adoption after a takeover)
never takes a key back from a newer row or a delete as new, checked in the write's own transaction, on either
index: the restorer's own checks (:func:`scratchfs.api.restore.restore_blob`) are read before it scans the blob, and
a live store's writers go on meanwhile."""

from __future__ import annotations

import pytest

from scratchfs.engine.sqlite_index import Entry, Index
from scratchfs.foundation.checks import new_token

NOW = 1_800_000_000.0


def _entry(key: str, created: float) -> Entry:
    return Entry("scratch", "run-1", "agent-1", key, new_token(), 10, 10, 1, 1, "preview", "tool", None, None,
                 created, created + 3600.0, 3600.0)


@pytest.fixture(params=["sqlite", "postgres"])
def index(request, tmp_path):
    if request.param == "sqlite":
        idx = Index(tmp_path / "index.sqlite", tmp_path / "locks", 2.0)
    else:
        from scratchfs.engine.postgres_index import PostgresIndex

        idx = PostgresIndex(request.getfixturevalue("postgres_dsn"), schema=request.getfixturevalue("pg_schema"),
                            busy_timeout=2.0, clock="caller")
    yield idx
    idx.close()


def test_a_restored_row_never_takes_a_key_back_from_a_newer_row_or_delete(index):
    newer = _entry("notes", NOW)
    assert index.put(newer, b"", lambda: True) == (True, None)
    assert index.put(_entry("notes", NOW - 10), b"", lambda: True, keep_times=True) == (False, None)
    assert index.lookup("run-1", "agent-1", "scratch", "notes", NOW).blob == newer.blob  # (SQLite: the older one's)

    assert index.put(_entry("gone", NOW - 20), b"", lambda: True) == (True, None)
    assert index.delete_key("run-1", "agent-1", "scratch", "gone", NOW)[0]
    assert index.put(_entry("gone", NOW - 10), b"", lambda: True, keep_times=True) == (False, None)
    assert index.lookup("run-1", "agent-1", "scratch", "gone", NOW) is None  # (SQLite: came back)

    newest = _entry("notes", NOW + 5)  # a restored row newer than what holds its key is written, as before
    assert index.put(newest, b"", lambda: True, keep_times=True) == (True, newer.blob)
    assert index.put(_entry("gone", NOW + 5), b"", lambda: True, keep_times=True) == (True, None)
    assert index.lookup("run-1", "agent-1", "scratch", "notes", NOW + 6).blob == newest.blob
