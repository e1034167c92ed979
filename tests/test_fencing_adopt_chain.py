"""Which indexes are a location's previous owners after a takeover (scratchfs.engine.takeover.previous_owners): the
chain of store ids the pairings took over (schema step 5, ``store.took_over``), not every schema paired with the same
location before -- a crafted or copied ``store`` row, or a copy of another index's files, got orphans adopted within
70 minutes of a pairing. Real PostgreSQL and S3 API servers; the chain itself against a plain table."""

from __future__ import annotations

import shutil
import time

import psycopg
import pytest

from scratchfs import NotFound, ScratchStore
from scratchfs.engine import s3_blobs, takeover
from scratchfs.engine.pairing import LOCAL_LOCATION, location_of
from scratchfs.engine.postgres_schema import SCHEMA_VERSION
from scratchfs.engine.takeover import chain
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild


@pytest.mark.parametrize("row", ["crafted", "copied"])
def test_a_crafted_or_copied_store_row_gets_no_orphan_adopted(postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch,
                                                              row):
    """After B took the blobs over from A, A's host wrote a key and deleted it within its window (its object left to
    B, no row of A names it). A schema X with a copy of A's row of that key, its ``store`` row naming the location
    and paired before B -- crafted (an id of its own) or copied from A's (A's id) -- counted as a previous owner of
    B: B's sweep adopted the deleted value. X is no link of B's chain now: nothing it names is adopted. A's own late
    write is adopted when X is crafted (A's schema left at version 4, as its hosts' older scratchfs keeps it); a
    copy of A's id makes the chain ambiguous, and neither is (logged; the late write is removed as before adoption)."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new, other = (postgres_url(postgres_dsn, pg_schema + tail) for tail in ("", "_b", "_x"))
    with ScratchStore(tmp_path / "x", index=other) as x:
        x.scope("run-0", "agent-0").scratch_write("x", b"an index of its own\n")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        scope.scratch_write("brief", b"written then deleted\n")
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # X: a copy of A's row of the key
            conn.execute(f'INSERT INTO "{pg_schema}_x".entries SELECT * FROM "{pg_schema}".entries '
                         "WHERE key = 'brief'")
            if row == "crafted":
                conn.execute(f'UPDATE "{pg_schema}_x".store SET blobs = %s, paired_at = (SELECT paired_at - 1 FROM '
                             f'"{pg_schema}".store)', (location_of(s3_env),))
                conn.execute(f'ALTER TABLE "{pg_schema}".store DROP COLUMN took_over')  # (A: version 4)
            else:
                conn.execute(f'UPDATE "{pg_schema}_x".store x SET (id, blobs, paired_at, took_over) = (SELECT id, '
                             f'blobs, paired_at, took_over FROM "{pg_schema}".store)')
        assert scope.scratch_delete("brief")
        late = scope.spill(b"within the window\n" * 3000).handle
    takeover._owners.clear()
    with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
        time.sleep(1.1)
        b.sweep(full=True)
        with pytest.raises(NotFound):
            b.scope("run-1", "agent-1").scratch_read("brief")
        owners = takeover.previous_owners(b.index, location_of(s3_env))[1]
        assert owners == ([pg_schema] if row == "crafted" else [])
        if row == "crafted":
            assert _read(b, late) == b"within the window\n" * 3000
        else:
            with pytest.raises(NotFound):
                _read(b, late)


def test_a_copy_of_another_indexs_files_is_not_adopted(postgres_dsn, pg_schema, tmp_path):
    """Every PostgreSQL index with local files records the same location: a blob file copied from index X's root
    into a new index Y's (paired after X, never taken over) was adopted by Y's sweep within 70 minutes of Y's
    pairing -- X's row names it -- an entry Y never had. It is an orphan now (removed)."""
    first, second = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "x", index=first) as x:
        handle = x.scope("run-1", "agent-1").spill(b"X's value\n" * 20_000).handle
    (copied,) = (tmp_path / "x" / "runs").rglob("*.zst")
    time.sleep(0.05)
    with ScratchStore(tmp_path / "y", index=second, orphan_grace=0) as y:
        y.scope("run-1", "agent-1").scratch_write("notes", b"Y's own\n")
        shutil.copy2(copied, tmp_path / "y" / copied.relative_to(tmp_path / "x"))
        assert y.sweep(full=True).orphans_removed == 1
        with pytest.raises(NotFound):
            _read(y, handle)
        assert takeover.previous_owners(y.index, LOCAL_LOCATION)[1] == []


def test_an_index_of_version_4_is_upgraded_and_keeps_its_pairing(postgres_dsn, pg_schema, tmp_path):
    """An index of schema version 4 (its ``store`` row has no ``took_over``) is migrated by the first store of this
    version to open it: one step, its pairing kept (what it took over unknown: NULL), read and written as before;
    a fresh pairing records that it took nothing over (``''``)."""
    url = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=url) as store:
        store.scope("run-1", "agent-1").scratch_write("notes", b"kept\n")
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # the schema as the scratchfs of version 4 left it
        assert conn.execute(f'SELECT took_over FROM "{pg_schema}".store').fetchone() == ("",)
        conn.execute(f'ALTER TABLE "{pg_schema}".store DROP COLUMN took_over')
        conn.execute(f'DELETE FROM "{pg_schema}".schema_version WHERE version = 5')
        paired = conn.execute(f'SELECT id, blobs, paired_at FROM "{pg_schema}".store').fetchone()
    with ScratchStore(tmp_path, index=url) as store:
        assert store.index.migrated_from == 4 and SCHEMA_VERSION == 5
        assert store.scope("run-1", "agent-1").scratch_read("notes") == b"kept\n"
        store.scope("run-1", "agent-1").scratch_write("more", b"after the upgrade\n")
        assert takeover.previous_owners(store.index, LOCAL_LOCATION)[1] == []
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        assert conn.execute(f'SELECT id, blobs, paired_at, took_over FROM "{pg_schema}".store').fetchone() == (
            *paired, None)
        assert [v for (v,) in conn.execute(f'SELECT version FROM "{pg_schema}".schema_version ORDER BY 1')] == [
            1, 2, 3, 4, 5]


@pytest.mark.parametrize(("took_over", "pairings", "owners"), [
    ("", [("a", "1", "")], []),  # (paired with no takeover)
    (None, [("b", "2", None), ("a", "1", "")], ["a", "b"]),  # (paired before version 5: every one, as before)
    ("1", [("a", "1", ""), ("x", "9", "")], ["a"]),  # (x: paired before, never owned)
    ("2", [("a", "1", ""), ("b", "2", "1"), ("x", "9", "2")], ["a", "b"]),  # (two takeovers)
    ("2", [("a", "1", None), ("b", "2", "1"), ("z", "0", "")], ["a", "b"]),  # (a's of version 4: the chain ends)
    ("2", [("a", "1", ""), ("b", "2", "1"), ("x", "2", "1")], []),  # (b's row copied into x: neither trusted)
    ("2", [("a", "1", ""), ("b", "2", "1"), ("x", "1", "")], ["b"]),  # (a's copied: the chain ends at b)
    ("2", [("a", "1", "2"), ("b", "2", "1")], ["a", "b"]),  # (a cycle: each once)
    ("3", [("a", "1", "")], []),  # (the index taken over is not readable, or gone)
])
def test_the_chain_of_takeovers(took_over, pairings, owners):
    assert chain(took_over, pairings) == owners
