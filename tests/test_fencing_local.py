"""A host still holding the old PostgreSQL schema after ``fsck --rebuild-index`` took its local files over (one
root the hosts share): its delete-run and its writes are fenced as an S3 prefix's are (README "One owner per
prefix"), where only its sweeps were. Real PostgreSQL; the old store open throughout, as a host that was not
stopped."""

from __future__ import annotations

import time

import pytest

from scratchfs import InvalidArgument, ScratchStore
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild, _spill


def test_a_fenced_off_schemas_delete_run_moves_none_of_the_new_owners_files(postgres_dsn, pg_schema, tmp_path):
    """Found measuring the open list's 'PG + local blobs fenced by sweeps': the old schema's delete-run of run-1
    after the takeover moved run-1's directory to the trash -- the 3 entries the rebuild restored into the new
    schema and its own new spill -- and the new schema read all 4 as missing (NotFound). It now checks the files'
    marker (one small file read and one query) right before moving them, and raises naming the new owner."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        kept = _spill(a, "written in A")
        _rebuild(new, None, tmp_path / "a")
        with ScratchStore(tmp_path / "a", index=new) as b:
            (fresh,) = _spill(b, "written in B", 1)
        with pytest.raises(InvalidArgument, match="no longer owns them") as refused:
            a.delete_run("run-1")
        assert f"schema {pg_schema}_b of database" in str(refused.value)
    with ScratchStore(tmp_path / "a", index=new) as b:
        assert _read(b, fresh)[:12] == b"written in B"
        assert [_read(b, h)[:12] for h in kept] == [b"written in A"] * 3


def test_a_fenced_off_schemas_writes_fail_naming_the_new_owner(postgres_dsn, pg_schema, tmp_path):
    """The old schema's writes after the takeover landed for as long as the host ran (files the new schema's sweep
    then removed as orphans: acknowledged, then lost). A write reads the files' store-id marker first when the last
    read is a second old or more (one small file read; the whole pairing check only when it names another store),
    and fails after a takeover, naming the new owner, leaving no file."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        full, made = a.blobs.owned._full, []
        a.blobs.owned._full = lambda: (made.append(1), full())[1]
        checks = a.blobs.owned.checks
        scope.scratch_write("notes", b"second\n")  # within the second: not read again
        assert a.blobs.owned.checks == checks
        time.sleep(1.1)
        scope.spill(b"early\n" * 5000)
        assert a.blobs.owned.checks == checks + 1 and made == []  # (the file read, no query)
        _rebuild(new, None, tmp_path / "a")
        files = set(a.blobs.blob_files())
        time.sleep(1.1)
        for write in (lambda: scope.spill(b"late\n" * 5000), lambda: scope.scratch_write("notes", b"third\n")):
            with pytest.raises(InvalidArgument, match="no longer owns them"):
                write()
        assert set(a.blobs.blob_files()) == files and len(made) == 2


def test_a_fenced_off_schemas_overwrite_and_delete_within_the_second_leave_the_new_owners_files(
        postgres_dsn, pg_schema, tmp_path, monkeypatch):
    """As on S3 (tests/test_fencing_writes.py): within the second a write trusts its last marker read, the old
    schema's overwrite of a key whose value has a file of its own removed that file -- the one the rebuild restored
    the new schema's row from -- and its delete of another key removed that one's: the new schema read both as
    lost. Removing one file whose row it removed now reads the marker first (a small file read) and leaves it."""
    from scratchfs.engine import local_blobs

    monkeypatch.setattr(local_blobs, "LOCAL_CHECK_SECONDS", 3600.0)  # (the writes within the window, however slow)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    big = {name: f"{name} {i}\n".encode() * 20_000 for i, name in enumerate(("notes", "other"))}
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        for name, value in big.items():
            scope.scratch_write(name, value)
        _rebuild(new, None, tmp_path / "a")
        scope.scratch_write("notes", b"second\n" * 20_000)
        assert scope.scratch_delete("other")
    with ScratchStore(tmp_path / "a", index=new) as b:
        for name, value in big.items():
            assert b.scope("run-1", "agent-1").scratch_read(name) == value


def test_a_fenced_off_schemas_write_that_began_before_the_takeover_fails_before_its_row(postgres_dsn, pg_schema,
                                                                                          tmp_path):
    """A write reads the marker before writing its file and, when that read is a second old, again before its row
    (under the delete lock): a file written slowly across the takeover committed its row in the old schema
    (acknowledged, an orphan to the new one, then lost)."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")

    def slow():
        yield b"written before the takeover\n" * 10_000
        _rebuild(new, None, tmp_path / "a")  # lands while the file is being written
        time.sleep(1.1)
        yield b"and after it\n" * 10_000

    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("first", b"x")
        with pytest.raises(InvalidArgument, match="no longer owns them"):
            scope.spill(slow())
        assert [e.key for e in a.list_entries()] == ["first"]
