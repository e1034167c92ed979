"""A host still holding the old (fenced-off) schema after a rebuild took its S3 prefix over (scratchfs.engine.pairing):
its delete-run checks the marker's owner right before deleting objects (one HEAD), and its writes -- spills,
scratchpad writes and overwrites -- check it at most every ``OWNER_CHECK_SECONDS``, so that they fail with the
typed refusal naming the new owner instead of deleting the new index's objects or writing objects it never sees.
Real PostgreSQL and S3 API servers (moto)."""

from __future__ import annotations

import pytest

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.engine import s3_blobs
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild, _spill


def test_a_fenced_off_schemas_delete_run_deletes_none_of_the_new_owners_objects(postgres_dsn, pg_schema, s3_env,
                                                                                tmp_path):
    """Before the fix: A's delete-run listed run-1's prefix and deleted every object there -- the entries the
    rebuild restored into B and B's own new spill -- and B read them as lost."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        kept = _spill(a, "written in A")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
            (fresh,) = _spill(b, "written in B", 1)
        with pytest.raises(InvalidArgument, match="no longer owns them") as refused:
            a.delete_run("run-1")
        assert f"schema {pg_schema}_b of database" in str(refused.value)
    with ScratchStore(tmp_path / "b2", index=new, blobs=s3_env) as b:
        assert _read(b, fresh)[:12] == b"written in B"
        assert [_read(b, h)[:12] for h in kept] == [b"written in A"] * 3


def test_a_fenced_off_schemas_writes_fail_naming_the_new_owner(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                               monkeypatch):
    """A's writes after the takeover: refused once its last check is older than the bound (5 s; made 0.2 s after
    the takeover for the test), a spill and an overwrite alike, and no object of theirs is left in the prefix."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        checks = a.blobs.owned.checks
        scope.spill(b"y\n" * 50_000)  # within the bound: no request to check it again
        assert a.blobs.owned.checks == checks
        scope.scratch_write("notes", b"second\n")  # one: right before deleting the old value's object
        assert a.blobs.owned.checks == checks + 1
        _rebuild(new, s3_env, tmp_path / "rebuild")
        objects = {o.location for o in a.blobs.list_objects()}
        import time

        monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 0.2)
        time.sleep(0.3)
        for write in (lambda: scope.scratch_write("notes", b"third\n"), lambda: scope.spill(b"x\n" * 50_000)):
            with pytest.raises(InvalidArgument, match="no longer owns them") as refused:
                write()
            assert f"schema {pg_schema}_b of database" in str(refused.value)
        assert {o.location for o in a.blobs.list_objects()} == objects
    with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
        assert b.scope("run-1", "agent-1").scratch_read("notes") == b"second\n"


def test_a_fenced_off_schemas_overwrite_and_delete_within_the_window_leave_the_new_owners_objects(
        postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch):
    """Within the window (A's last check younger than OWNER_CHECK_SECONDS, 5 s) A's overwrite of a scratchpad key
    committed its row in A and then deleted the key's old object -- the very object the rebuild restored B's row
    for -- and A's delete of another key deleted that one's (at once, or when A's last reader of it closed): B read
    them as lost (NotFound, fsck 'missing'). A delete of an object checks the owner right before it (one HEAD), as a
    delete-run does: A leaves them to B."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)  # (the writes within the window, however slow)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        scope.scratch_write("other", b"kept\n")
        scope.scratch_write("held", b"read while deleted\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        scope.scratch_write("notes", b"second\n")  # within the window: lands in A (its object an orphan to B)
        assert scope.scratch_delete("other")
        reading = scope.iter_content("scratch", "held")
        assert next(reading) == b"read while deleted\n"
        assert scope.scratch_delete("held")  # (its object's deletion waits for this reader)
        reading.close()
    with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
        assert b.scope("run-1", "agent-1").scratch_read("notes") == b"first\n"
        assert b.scope("run-1", "agent-1").scratch_read("other") == b"kept\n"
        assert b.scope("run-1", "agent-1").scratch_read("held") == b"read while deleted\n"


def test_a_fenced_off_schemas_write_that_began_before_the_takeover_fails_at_its_commit(
        postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch):
    """A write checks the owner before its upload and again, as old, before committing its row (the check its
    object's HEAD makes, under the delete lock): an upload that began before the takeover and took longer than the
    bound committed its row in A after the takeover (acknowledged, an orphan to B, removed by B's sweep: lost)."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 0.2)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    import time

    def slow(scope_dir):
        yield b"written before the takeover\n" * 100
        _rebuild(new, s3_env, scope_dir)  # lands while the upload goes on
        time.sleep(0.3)
        yield b"and after it\n" * 100

    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("first", b"x")  # (A's check, now)
        with pytest.raises(InvalidArgument, match="no longer owns them"):
            scope.spill(slow(tmp_path / "rebuild"))
        assert [e.key for e in a.list_entries()] == ["first"]


def test_a_spill_within_the_window_is_adopted_by_the_new_owner_with_its_bytes(postgres_dsn, pg_schema, s3_env,
                                                                             tmp_path, monkeypatch):
    """A's spill within the window is acknowledged and reads back in A, is not found in B, and B's sweep (past its
    orphan_grace) used to remove it as an orphan: lost, A reading it as NotFound. B's sweep now adopts it (a row of
    A names it: scratchfs.engine.takeover), and B reads A's bytes (more in tests/test_fencing_adopt.py)."""
    import time

    from scratchfs import NotFound

    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        (before,) = _spill(a, "before the takeover", 1)
        _rebuild(new, s3_env, tmp_path / "rebuild")
        (late,) = _spill(a, "within the window", 1)
        assert _read(a, late)[:17] == b"within the window"
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            with pytest.raises(NotFound):
                _read(b, late)
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 0
            assert _read(b, before)[:19] == b"before the takeover"
            assert _read(b, late) == _read(a, late)
            assert len(b.blobs.list_objects()) == 2


@pytest.mark.parametrize("files", [False, True])
def test_a_fenced_off_schemas_fsck_repair_removes_none_of_the_new_owners_writes(postgres_dsn, pg_schema, s3_env,
                                                                               tmp_path, files):
    """fsck --repair on a store of the old schema open since before the takeover (the API's fsck(repair=True); a
    long-running host) listed the new index's writes as its orphans -- no row of its names them -- and removed
    those older than its orphan_grace: the new index read them as lost. The repair checks the owner before it
    removes anything (one HEAD, or a file read) and raises as a delete-run does."""
    import time

    from scratchfs.api.inspector import fsck

    blobs = None if files else s3_env
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs, orphan_grace=0) as a:
        kept = _spill(a, "written in A", 1)
        _rebuild(new, blobs, tmp_path / ("a" if files else "rebuild"))
        with ScratchStore(tmp_path / ("a" if files else "b"), index=new, blobs=blobs) as b:
            (fresh,) = _spill(b, "written in B", 1)
        time.sleep(1.1)
        with pytest.raises(InvalidArgument, match="no longer owns them"):
            fsck(a, repair=True)
    with ScratchStore(tmp_path / ("a" if files else "b"), index=new, blobs=blobs) as b:
        assert _read(b, fresh)[:12] == b"written in B"
        assert _read(b, kept[0])[:12] == b"written in A"
