"""The index is what we think it is (issue 9): marked as ours, checked on open, watched while open.

A scratchfs index carries ``PRAGMA application_id`` and its schema version; another application's file, a file that
is not a database, an index emptied or lost beside existing blobs, and an index deleted or replaced under an open
store each give one typed StorageError -- never a raw sqlite3 error, never a write acknowledged into a lost file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine.sqlite_connections import APPLICATION_ID
from scratchfs.engine.sqlite_opening import SCHEMA_VERSION
from scratchfs.foundation.errors import ScratchError, StorageError
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES


def _pragmas(path) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        return (conn.execute("PRAGMA application_id").fetchone()[0], conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def _filled(root) -> tuple[str, bytes]:
    data = b"".join(b"line %d\n" % i for i in range(3000))
    with ScratchStore(root, segment_entry_bytes=SEGMENT_ENTRY_BYTES) as store:  # both entries in one segment
        scope = store.scope("run", "agent")
        handle = scope.spill(data, source_tool="t").handle
        scope.scratch_write("k", b"value")
    return handle, data


def test_a_new_index_is_marked_as_ours(tmp_path):
    with ScratchStore(tmp_path):
        pass
    assert _pragmas(tmp_path / "index.sqlite") == (APPLICATION_ID, SCHEMA_VERSION)
    assert APPLICATION_ID.to_bytes(4, "big") == b"SCRF"


def test_a_precreated_empty_index_on_a_new_root_is_initialised(tmp_path):
    fd = os.open(tmp_path / "index.sqlite", os.O_CREAT | os.O_WRONLY, 0o600)  # as a tightened root does
    os.close(fd)
    with ScratchStore(tmp_path) as store:
        store.scope("r", "a").scratch_write("k", b"v")
    assert _pragmas(tmp_path / "index.sqlite") == (APPLICATION_ID, SCHEMA_VERSION)


@pytest.mark.parametrize("how", ["truncated", "deleted"])
def test_an_empty_or_missing_index_beside_blobs_is_refused(tmp_path, how):
    _filled(tmp_path)
    blobs = {p: p.read_bytes() for p in (tmp_path / "runs").rglob("*") if p.is_file()}  # one segment file
    assert len(blobs) == 1
    index = tmp_path / "index.sqlite"
    for suffix in ("-wal", "-shm"):
        assert not os.path.exists(f"{index}{suffix}")  # a clean close checkpointed the log
    if how == "truncated":
        os.truncate(index, 0)
    else:
        os.unlink(index)
    with pytest.raises(StorageError, match="lost or truncated"):
        ScratchStore(tmp_path)
    assert not index.exists() or index.stat().st_size == 0  # not silently made into an empty store
    assert {p: p.read_bytes() for p in (tmp_path / "runs").rglob("*") if p.is_file()} == blobs  # untouched


def test_an_empty_index_is_created_on_purpose_for_a_rebuild(tmp_path):
    from scratchfs.engine.backends import create_empty_index

    _filled(tmp_path)
    os.truncate(tmp_path / "index.sqlite", 0)
    with pytest.raises(StorageError, match="lost or truncated"):
        ScratchStore(tmp_path)
    create_empty_index(tmp_path, busy_timeout=5.0)  # the explicit step a rebuild from the blobs takes first
    with ScratchStore(tmp_path) as store:
        assert store.list_entries() == []
        assert len(store.blobs.blob_files()) == 2  # the blobs wait for the rebuild


def _foreign(path, app_id: int = 0, version: int = 0) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('theirs')")
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


@pytest.mark.parametrize(("app_id", "version"), [(0, 0), (0, 1), (0x12345678, 0), (0x12345678, 1)])
def test_another_applications_database_is_refused_and_left_alone(tmp_path, app_id, version):
    index = tmp_path / "index.sqlite"
    _foreign(index, app_id, version)
    before = index.read_bytes()
    with pytest.raises(StorageError, match="not a scratchfs index"):
        ScratchStore(tmp_path)
    assert index.read_bytes() == before  # no table of ours was added to their file
    conn = sqlite3.connect(index)
    assert conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == [("notes",)]
    conn.close()


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    (tmp_path / "index.sqlite").write_bytes(b"this is not a database, it is a text file " * 100)
    with pytest.raises(StorageError, match="not a SQLite database"):
        ScratchStore(tmp_path)


def test_an_index_from_before_the_application_id_is_adopted(tmp_path):
    handle, data = _filled(tmp_path)
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.execute("PRAGMA application_id = 0")  # as every index written before this change
    conn.commit()
    conn.close()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        assert scope.read_handle(handle, 0, 100).data == data[:100]
        assert scope.scratch_read("k") == b"value"
    assert _pragmas(tmp_path / "index.sqlite") == (APPLICATION_ID, SCHEMA_VERSION)


def test_an_index_of_schema_2_gets_the_index_of_a_run_by_kind(tmp_path):
    handle, data = _filled(tmp_path)
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.execute("DROP INDEX entries_run_kind_created")  # the index as scratchfs of schema 2 left it
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    with ScratchStore(tmp_path) as store:
        assert store.scope("run", "agent").read_handle(handle, 0, 100).data == data[:100]
    assert _pragmas(tmp_path / "index.sqlite") == (APPLICATION_ID, SCHEMA_VERSION) == (APPLICATION_ID, 3)
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_run_kind_created'").fetchone()[0] \
        .endswith('("run_id", "kind", "created_at")')
    conn.close()


def _in_thread(call):
    out = {}

    def run():
        try:
            out["value"] = call()
        except BaseException as exc:
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(30)
    return out


def test_an_index_deleted_while_open_never_acknowledges_a_write(tmp_path):
    store = ScratchStore(tmp_path)
    scope = store.scope("run", "agent")
    scope.scratch_write("before", b"kept")
    index = tmp_path / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{index}{suffix}"):
            os.unlink(f"{index}{suffix}")
    with pytest.raises(StorageError, match="deleted while the store was open"):
        scope.scratch_write("after", b"lost")
    with pytest.raises(StorageError, match="deleted"):
        scope.spill(b"x" * 50_000)
    out = _in_thread(lambda: scope.scratch_read("before"))  # a new thread opens a new connection
    assert isinstance(out.get("error"), StorageError), out
    assert not isinstance(out["error"], sqlite3.Error)
    assert not index.exists()  # no thread re-created an empty file at the path
    store.close()


def test_an_index_deleted_while_open_a_new_thread_gets_a_typed_error(tmp_path):
    store = ScratchStore(tmp_path)
    scope = store.scope("run", "agent")
    scope.scratch_write("k", b"v")
    os.unlink(tmp_path / "index.sqlite")
    for call in (lambda: scope.scratch_read("k"), lambda: scope.scratch_write("k2", b"w"), scope.scratch_list,
                 store.sweep):
        out = _in_thread(call)
        assert isinstance(out.get("error"), ScratchError), out
        assert not isinstance(out["error"], sqlite3.Error)
    assert not (tmp_path / "index.sqlite").exists()
    store.close()


def test_an_index_replaced_while_open_never_acknowledges_a_write(tmp_path):
    other = tmp_path / "other"
    _filled(other)
    root = tmp_path / "root"
    store = ScratchStore(root)
    scope = store.scope("run", "agent")
    scope.scratch_write("mine", b"1")
    store.index.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(other / "index.sqlite", root / "index.sqlite.new")
    os.replace(root / "index.sqlite.new", root / "index.sqlite")  # a valid scratchfs index, but not this one
    with pytest.raises(StorageError, match="replaced"):
        scope.scratch_write("mine", b"2")
    with pytest.raises(StorageError, match="replaced"):  # and every later call says so
        scope.scratch_read("mine")
    store.close()


def test_sweep_and_writes_on_a_foreign_index_opened_as_ours_are_typed(tmp_path):
    """A file that claims to be ours but lacks the tables (damaged from outside): every operation is typed."""
    with ScratchStore(tmp_path) as store:
        store.scope("r", "a").scratch_write("k", b"v")
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.execute("DROP TABLE entries")
    conn.commit()
    conn.close()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        # a spill over SEGMENT_ENTRY_BYTES commits its row at once; a small one's row is written behind: its commit
        # (the flush, or the next use of the index) is refused
        for call in (lambda: scope.scratch_write("k", b"w"), lambda: scope.spill(b"x" * 100_000), store.sweep,
                     lambda: (scope.spill(b"y" * 100), store.flush()),
                     lambda: scope.scratch_read("k"), lambda: store.delete_run("r")):
            with pytest.raises(StorageError, match="no such table"):
                call()



@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_write_ahead_log_removed_while_open_never_acknowledges_a_write(tmp_path, how):
    """An operator removing ``index.sqlite-wal`` under a running store (atk28): SQLite writes on into the unlinked
    log, so every write after it was acknowledged, and went with the log when the process was killed (the index
    then read as lost: 'empty or missing, but the store holds blob files'). Now the first commit after it is
    refused, and closing the store writes what the log held to the index: nothing acknowledged is lost."""
    store = ScratchStore(tmp_path)
    scope = store.scope("run", "agent")
    handles = [scope.spill(b"x%d " % i * 5000, source_tool="t").handle for i in range(3)]
    scope.scratch_write("before", b"kept")
    wal = tmp_path / "index.sqlite-wal"
    assert wal.stat().st_size > 0
    wal.unlink()
    if how == "replaced":
        wal.write_bytes(b"")
    with pytest.raises(StorageError, match=f"write-ahead log .* was {how} while the store was open"):
        scope.scratch_write("after", b"never acknowledged")
    with pytest.raises(StorageError, match=how):  # and every later call says so
        scope.spill(b"y" * 50_000)
    store.close()
    with ScratchStore(tmp_path) as again:
        scope = again.scope("run", "agent")
        assert scope.scratch_read("before") == b"kept"
        assert [b"".join(scope.iter_content("handle", h)) for h in handles] == [b"x%d " % i * 5000 for i in range(3)]
        with pytest.raises(ScratchError):
            scope.scratch_read("after")
        report = fsck(again)
        assert (report.problems, report.index, report.entries_checked) == ([], "ok", 4), report
