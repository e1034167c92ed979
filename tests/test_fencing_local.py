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
