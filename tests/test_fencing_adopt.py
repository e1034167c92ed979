"""An old host's writes acknowledged within the window after a takeover (scratchfs.engine.takeover): a host of the
old schema that keeps its store open commits writes for up to ``OWNER_CHECK_SECONDS`` after its last ownership
check. Their objects are orphans to the new index, whose sweep removed them once older than ``orphan_grace``: lost,
though acknowledged. The new index's sweep now adopts an orphan that a row of the previous owner's schema names
(a committed write of the old host: the exact test, where a window of times would also take writes reported as
failed whose object stayed, and values the old host deleted), restoring its row as the rebuild does. Real
PostgreSQL and S3 API servers (moto)."""

from __future__ import annotations

import time

import pytest

from scratchfs import NotFound, ScratchStore, StorageError
from scratchfs.engine import s3_blobs
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild, _spill


def test_an_old_hosts_writes_within_the_window_are_adopted_by_the_new_index(postgres_dsn, pg_schema, s3_env,
                                                                           tmp_path, monkeypatch):
    """Before the fix: the spill, the new key and the overwrite A acknowledged after the takeover were removed by
    B's sweep as orphans (NotFound in B, the overwritten key reading its old value)."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)  # (A's writes within the window, however slow)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        (before,) = _spill(a, "before the takeover", 1)
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        (late,) = _spill(a, "within the window", 1)
        scope.scratch_write("fresh", b"a new key\n")
        scope.scratch_write("notes", b"second\n")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            with pytest.raises(NotFound):
                _read(b, late)
            time.sleep(1.1)
            b.sweep(full=True)
            assert _read(b, before)[:19] == b"before the takeover"
            assert _read(b, late)[:17] == b"within the window"
            assert b.scope("run-1", "agent-1").scratch_read("fresh") == b"a new key\n"
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"second\n"
            b.sweep(full=True)  # (nothing more to adopt; the old value's object is gone)
            assert len(b.blobs.list_objects()) == 4  # (two spills, two keys)
            assert _read(b, late) == _read(a, late)


def test_an_old_hosts_failed_and_deleted_writes_within_the_window_are_not_adopted(postgres_dsn, pg_schema, s3_env,
                                                                                 tmp_path, monkeypatch):
    """What a window of creation times could not tell from an acknowledged write, and the new index's sweep
    removes as before: A's scratchpad write reported failed (its row's check failed, and so did the deletion of its
    object: an object left, its binding dated within the window), and a key A wrote and deleted within the window
    (its object left for B by A's fenced deletion). Neither is named by a row of A."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        scope.scratch_write("brief", b"written then deleted\n")
        assert scope.scratch_delete("brief")

        def unreachable(self):
            raise StorageError("the object store did not answer (test)")

        with monkeypatch.context() as m:
            m.setattr(s3_blobs.S3Pending, "exists", unreachable)
            m.setattr(s3_blobs.S3Pending, "discard", lambda self: None)  # (its deletion failed too)
            with pytest.raises(StorageError):
                scope.scratch_write("notes", b"reported failed\n")
        assert scope.scratch_read("notes") == b"first\n"
        assert len(a.blobs.list_objects()) == 3  # the restored value, and the two objects left
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 2
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"first\n"
            with pytest.raises(NotFound):
                b.scope("run-1", "agent-1").scratch_read("brief")


def test_an_old_hosts_writes_within_the_window_are_adopted_on_local_files(postgres_dsn, pg_schema, tmp_path,
                                                                         monkeypatch):
    """The same on PostgreSQL with local files (one root both schemas use; window LOCAL_CHECK_SECONDS, 1 s): A's
    spill, new key and overwrite after the takeover were removed by B's sweep as orphans; now adopted."""
    from scratchfs.engine import blob_file, local_blobs

    monkeypatch.setattr(local_blobs, "LOCAL_CHECK_SECONDS", 3600.0)
    monkeypatch.setattr(blob_file, "LOCAL_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        (before,) = _spill(a, "before the takeover", 1)
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, None, tmp_path / "a")
        late = scope.spill(b"within the window\n" * 20_000).handle  # (a file of its own)
        small = scope.spill(b"a small one\n").handle  # (an entry of A's segment, as small ones are)
        scope.scratch_write("fresh", b"a new key\n")
        scope.scratch_write("notes", b"second\n")
    # (A's segment is its writer's while A runs: judged, and its entries adopted, once A let go of it)
    with ScratchStore(tmp_path / "a", index=new, orphan_grace=0) as b:
        with pytest.raises(NotFound):
            _read(b, late)
        time.sleep(1.1)
        b.sweep(full=True)
        assert _read(b, before)[:19] == b"before the takeover"
        assert _read(b, late) == b"within the window\n" * 20_000
        assert _read(b, small) == b"a small one\n"
        assert b.scope("run-1", "agent-1").scratch_read("fresh") == b"a new key\n"
        assert b.scope("run-1", "agent-1").scratch_read("notes") == b"second\n"
        b.sweep(full=True)
        assert _read(b, small) == b"a small one\n"


def test_an_entry_the_new_index_deleted_does_not_come_back_through_the_old_rows(postgres_dsn, pg_schema, s3_env,
                                                                               tmp_path, monkeypatch):
    """A's rows name every entry the rebuild restored. One B deleted, whose object's deletion failed (left to the
    orphan sweep) and whose tombstone is gone (an hour later), would be adopted again -- unless A's rows written
    more than MARGIN_SECONDS before the takeover are not looked at (set to 0 here: the key was written before)."""
    import psycopg

    from scratchfs.engine import takeover

    monkeypatch.setattr(takeover, "MARGIN_SECONDS", 0.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        time.sleep(0.1)
        _rebuild(new, s3_env, tmp_path / "rebuild")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            with monkeypatch.context() as m:
                m.setattr(s3_blobs.S3Blobs, "unlink", lambda self, *where: 0)  # (its deletion failed)
                assert b.scope("run-1", "agent-1").scratch_delete("notes")
            with psycopg.connect(postgres_dsn, autocommit=True) as conn:
                conn.execute(f'DELETE FROM "{pg_schema}_b".gone')  # (an hour later)
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 1
            with pytest.raises(NotFound):
                b.scope("run-1", "agent-1").scratch_read("notes")


def test_an_old_hosts_write_to_a_run_the_platform_deleted_is_not_adopted(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                        monkeypatch):
    """B ties its entries to the platform's runs table (runs_table=), A did not: A's write within the window to a
    run the platform deleted since is named by A's row, but B's row for it is refused (InvalidArgument, no such
    run); the sweep goes on and removes it as an orphan, where the refusal stopped it."""
    import psycopg

    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    platform = f"{pg_schema}_platform"
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{platform}"')
        conn.execute(f'CREATE TABLE "{platform}".runs (id text PRIMARY KEY)')
        conn.execute(f"INSERT INTO \"{platform}\".runs (id) VALUES ('run-1'), ('run-2')")
    old = postgres_url(postgres_dsn, pg_schema)
    new = postgres_url(postgres_dsn, pg_schema + "_b") + f"&runs_table={platform}.runs(id)"
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        (kept,) = _spill(a, "before the takeover", 1)
        _rebuild(new, s3_env, tmp_path / "rebuild")
        doomed = a.scope("run-2", "agent-1").spill(b"to a run the platform deletes\n" * 3000).handle
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"DELETE FROM \"{platform}\".runs WHERE id = 'run-2'")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 1
            assert _read(b, kept)[:19] == b"before the takeover"
            with pytest.raises(NotFound):
                b.scope("run-2", "agent-1").read_handle(doomed)


@pytest.mark.parametrize("files", [False, True])
def test_fsck_repair_of_the_new_index_adopts_an_old_hosts_writes_too(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                    monkeypatch, files):
    """fsck --repair on the new index after a takeover (as an operator runs it after a rebuild) listed A's writes
    within the window as orphans and removed them: lost as by the sweep. It adopts them first, as the sweep does."""
    from scratchfs.api.inspector import fsck
    from scratchfs.engine import blob_file, local_blobs

    for module in (s3_blobs, local_blobs, blob_file):
        monkeypatch.setattr(module, "OWNER_CHECK_SECONDS" if module is s3_blobs else "LOCAL_CHECK_SECONDS", 3600.0)
    blobs, root_b = (None, tmp_path / "a") if files else (s3_env, tmp_path / "b")
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")  # (A's last check: now)
        _rebuild(new, blobs, root_b if files else tmp_path / "rebuild")
        late = a.scope("run-1", "agent-1").spill(b"within the window\n" * 20_000).handle
    with ScratchStore(root_b, index=new, blobs=blobs, orphan_grace=0) as b:
        time.sleep(1.1)
        report = fsck(b, repair=True)
        assert [p for p in report.problems if p.kind == "orphaned"] == []
        assert _read(b, late) == b"within the window\n" * 20_000


def test_an_adoption_racing_a_new_write_of_its_key_leaves_the_newer_value(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                         monkeypatch):
    """The adoption's checks (a newer row of its key, a tombstone) are read before its row is written, on an index
    whose hosts go on writing: B's write of the key landing between the two (simulated: the checks see none) was
    overwritten by A's older value, and its object deleted as the replaced value's. The row is now written only if
    no row or tombstone as new holds the key, in the write's own transaction."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        a.scope("run-1", "agent-1").scratch_write("notes", b"second, in A\n")
        a.scope("run-1", "agent-1").scratch_write("gone", b"written in A\n")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(0.05)
            b.scope("run-1", "agent-1").scratch_write("notes", b"third, in B\n")
            b.scope("run-1", "agent-1").scratch_write("gone", b"written in B\n")
            assert b.scope("run-1", "agent-1").scratch_delete("gone")
            monkeypatch.setattr(type(b.index), "lookup", lambda self, *args: None)  # (read before B's writes)
            monkeypatch.setattr(type(b.index), "gone", lambda self, *args: None)
            time.sleep(1.1)
            b.sweep(full=True)
            monkeypatch.undo()
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"third, in B\n"
            with pytest.raises(NotFound):
                b.scope("run-1", "agent-1").scratch_read("gone")


def test_a_segment_an_expired_entry_names_keeps_an_old_hosts_writes(postgres_dsn, pg_schema, tmp_path, monkeypatch):
    """Local files: the sweep judges a segment an expired row names (of any age) and removed it when no other row of
    the new index named a blob in it -- A's small writes after the takeover, appended to A's segment, went with it.
    That judgement adopts them too."""
    from scratchfs.engine import blob_file, local_blobs

    monkeypatch.setattr(local_blobs, "LOCAL_CHECK_SECONDS", 3600.0)
    monkeypatch.setattr(blob_file, "LOCAL_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("brief", b"expires soon\n", ttl=2)
        _rebuild(new, None, tmp_path / "a")
        small = scope.spill(b"a small one\n").handle
    with ScratchStore(tmp_path / "a", index=new) as b:  # (orphan_grace as set: the orphan step leaves it)
        assert b.scope("run-1", "agent-1").scratch_read("brief") == b"expires soon\n"
        time.sleep(2.2)
        b.sweep(full=True)
        assert _read(b, small) == b"a small one\n"
