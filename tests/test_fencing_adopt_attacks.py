"""Attacks on the adoption of an old host's writes after a takeover (scratchfs.engine.takeover): which schemas'
rows an index adopts through, and when. Real PostgreSQL and S3 API servers (moto)."""

from __future__ import annotations

import time

import psycopg
import pytest

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.engine import s3_blobs
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild, _spill


def _rows(dsn: str, schema: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(f'SELECT count(*) FROM "{schema}".entries').fetchone()[0]


def test_the_old_indexs_fsck_repair_adopts_nothing_of_the_new_owner(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                    monkeypatch):
    """A (the old schema, its store open since before the takeover) runs fsck --repair: refused (another index
    owns the blobs) -- but before the fix only once it had adopted the new owner's entries into A's index as its
    own 'previous owner's' writes (B's rows name them, and B's store row names the same blobs), the new index's
    schema read as if it had owned the prefix before A."""
    from scratchfs.api.inspector import fsck

    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
            _spill(b, "the new owner's", 2)
            b.scope("run-1", "agent-1").scratch_write("fresh", b"the new owner's key\n")
        with pytest.raises(InvalidArgument, match="belong to another index"):
            fsck(a, repair=True)
        assert _rows(postgres_dsn, pg_schema) == 1  # (A's own row; B's three entries not taken into A)
        assert _rows(postgres_dsn, pg_schema + "_b") == 4


def test_an_index_paired_after_this_one_is_no_previous_owner_of_its_blobs(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                          monkeypatch):
    """The previous owners of a location were every other schema whose store row names it: to the old index A, the
    new owner B (paired after it) was one -- B's entries, orphans to A, were A's to adopt by any path that reached
    the adoption before A's pairing check. Only an index paired before this one can have owned the blobs before it:
    B's previous owners are [A]; A has none."""
    from scratchfs.engine.pairing import location_of
    from scratchfs.engine.takeover import previous_owners

    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        time.sleep(0.05)
        _rebuild(new, s3_env, tmp_path / "rebuild")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
            assert previous_owners(b.index, location_of(s3_env))[1] == [pg_schema]
        assert previous_owners(a.index, location_of(s3_env)) == (float("inf"), [])


def test_an_adopted_value_does_not_replace_a_newer_one_of_a_fast_clocked_old_host(postgres_dsn, pg_schema, s3_env,
                                                                                 tmp_path, monkeypatch):
    """A's host clock is 2 minutes fast (its bindings' created_at on that clock; its rows' on the database's). A
    overwrites 'notes' within the window, then B writes 'notes' anew: B's value is the newer. The adoption compared
    A's binding time with B's row (the database's clock) and put A's older value back over B's, deleting B's
    object as the replaced value's. It now goes by A's row's time: both on the database's clock."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        monkeypatch.setattr(a.entries, "now", lambda: time.time() + 120.0)  # (the write's binding time)
        a.scope("run-1", "agent-1").scratch_write("notes", b"A's, within the window\n")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(0.05)
            b.scope("run-1", "agent-1").scratch_write("notes", b"B's, written after A's\n")
            time.sleep(1.1)
            b.sweep(full=True)
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"B's, written after A's\n"


@pytest.mark.parametrize("stamp", ["NaN", "Infinity"])
def test_a_crafted_row_time_of_the_old_schema_neither_wins_nor_lives_forever(postgres_dsn, pg_schema, s3_env,
                                                                            tmp_path, monkeypatch, stamp):
    """An adopted row takes its old row's created_at (the database's clock). A row of the old schema whose
    created_at is NaN or Infinity (crafted, or a bad migration) passed the 'written since' filter (both compare
    greater than any number in PostgreSQL), and its entry then took the key from B's newer write and never expired.
    Rows are now looked at only within MARGIN_SECONDS after the takeover too: no old host commits later."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        a.scope("run-1", "agent-1").scratch_write("notes", b"A's, within the window\n", ttl=60)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"UPDATE \"{pg_schema}\".entries SET created_at = '{stamp}'")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            b.scope("run-1", "agent-1").scratch_write("notes", b"B's, written after A's\n")
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 1
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"B's, written after A's\n"


def test_a_previous_owner_dropped_after_it_was_found_does_not_fail_the_sweep(postgres_dsn, pg_schema, s3_env,
                                                                             tmp_path, monkeypatch):
    """The previous owners found are remembered for a minute. The operator drops the old schema once its hosts
    are stopped: B's next sweep asked the dropped schema for its rows and failed (StorageError: no such table),
    removing none of its orphans; it now looks for the previous owners again and goes on."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        (first,) = _spill(a, "within the window", 1)
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 0  # (adopted; A found as a previous owner)
            _spill(a, "not acknowledged", 1)
            with psycopg.connect(postgres_dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{pg_schema}" CASCADE')
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 1
            assert _read(b, first)[:17] == b"within the window"


def test_a_crafted_row_naming_an_object_of_another_scope_adopts_nothing(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                        monkeypatch):
    """Held (no fix): a row of the old schema re-pointed at another run names an object of run-1 under run-2. The
    match is on the object's listed run and agent too, and the binding's scope is checked against its place: the
    object is swept as an orphan, and neither run gets an entry."""
    from scratchfs import NotFound

    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        (late,) = _spill(a, "within the window", 1)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"UPDATE \"{pg_schema}\".entries SET run_id = 'run-2' WHERE kind = 'handle'")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 1
            for run in ("run-1", "run-2"):
                with pytest.raises(NotFound):
                    b.scope(run, "agent-1").read_handle(late)


def test_a_run_the_new_index_deleted_does_not_come_back_through_the_old_rows(postgres_dsn, pg_schema, s3_env,
                                                                             tmp_path, monkeypatch):
    """B deletes run-1 -- the entry the rebuild restored, and A's spill within the window that B's sweep has not
    adopted yet (no row of B: no tombstone of its key) -- and the object store fails to delete their objects (left
    to the orphan sweep). B's sweep adopted A's spill back into the deleted run: a PostgreSQL index's restore never
    looked at the marks of deleted runs and agents."""
    from scratchfs import NotFound

    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        (before,) = _spill(a, "before the takeover", 1)
        _rebuild(new, s3_env, tmp_path / "rebuild")
        (late,) = _spill(a, "within the window", 1)
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            with monkeypatch.context() as m:  # (before B's sweep adopted the late one: its grace not over yet)
                m.setattr(s3_blobs.S3Blobs, "delete_keys", lambda self, keys: 0)  # (the store failed to delete)
                assert b.delete_run("run-1") == 1
            assert len(b.blobs.list_objects()) == 2
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 2
            for handle in (before, late):
                with pytest.raises(NotFound):
                    _read(b, handle)


def test_the_previous_owner_is_found_among_many_schemas_and_misshapen_ones(postgres_dsn, pg_schema, s3_env,
                                                                           tmp_path, monkeypatch):
    """A database with many tenants' indexes: the previous owners were looked for among the first 200 schemas (by
    name) holding store and entries tables, so an old schema named after 200 others was never found and its host's
    writes within the window were swept as before; and a schema of another kind with such tables (a store with no
    blobs column) failed every query of them. All schemas are now looked at, and only those of an index's shape."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    decoys = [f"aa_{pg_schema}_{i}" for i in range(201)]
    with psycopg.connect(postgres_dsn, autocommit=True) as conn, conn.transaction():
        for name in decoys:
            conn.execute(f'CREATE SCHEMA "{name}"')
            conn.execute(f'CREATE TABLE "{name}".store (id text, blobs text, paired_at float8)')
            conn.execute(f'CREATE TABLE "{name}".entries (run_id text, agent_id text, blob text, created_at float8)')
            conn.execute(f"INSERT INTO \"{name}\".store VALUES ('x', 's3://elsewhere/prefix', 0)")
        conn.execute(f'ALTER TABLE "{decoys[0]}".store DROP COLUMN blobs')
    try:
        old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
        with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
            a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
            _rebuild(new, s3_env, tmp_path / "rebuild")
            (late,) = _spill(a, "within the window", 1)
            with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
                time.sleep(1.1)
                assert b.sweep(full=True).orphans_removed == 0
                assert _read(b, late)[:17] == b"within the window"
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            for name in decoys:
                conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def test_a_fast_clocked_old_hosts_overwrite_of_a_restored_key_is_adopted(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                         monkeypatch):
    """The other side of weighing an adopted value by its old row's commit: the value the rebuild restored for the
    key is dated by its binding (A's clock, 2 minutes fast), so A's overwrite within the window, weighed by its
    commit (the database's clock), lost to it and was swept. A restored row (its time its binding's) is weighed
    against the adopted one's binding: one host's clock."""
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        monkeypatch.setattr(a.entries, "now", lambda: time.time() + 120.0)  # (the writes' binding times)
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        a.scope("run-1", "agent-1").scratch_write("notes", b"A's second, within the window\n")
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
            time.sleep(1.1)
            assert b.sweep(full=True).orphans_removed == 0  # (the replaced value's object: removed by the adoption)
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"A's second, within the window\n"
