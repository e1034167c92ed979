"""A delete of a run or agent that overtakes a write in flight -- the write's object uploaded, its row not yet
committed -- on a fleet: two stores (hosts) on one PostgreSQL and one S3 bucket (real servers), each on its own
clock. The overtaken write reads NotFound (Deleted), as any entry the delete found, whether the scope had entries
or none, and whatever the hosts' clocks say; a write whose object went some other way after an earlier delete of
its run still fails (StorageError), whatever the deleter's clock said."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from scratchfs import Deleted, NotFound, ScratchStore, StorageError
from scratchfs.pytest_plugin import DEFAULT_START, ScratchClock
from tests.services import postgres_url

SKEW = 600.0  # seconds between the two hosts' clocks


@pytest.fixture
def hosts(tmp_path, postgres_dsn, pg_schema, s3_env):
    """``hosts(writer_ahead)``: a writer and a deleter on one database and bucket, the writer's clock
    ``writer_ahead`` seconds ahead of the deleter's (negative: behind; ``None``: both on the real clock, so the
    index decides by the database's)."""
    stores = []

    def open_hosts(writer_ahead: float | None) -> tuple[ScratchStore, ScratchStore]:
        for name, start in (("writer", DEFAULT_START + (writer_ahead or 0)), ("deleter", DEFAULT_START)):
            clock = time.time if writer_ahead is None else ScratchClock(start)  # (time.time: the database's clock)
            stores.append(ScratchStore(tmp_path / name, index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env,
                                       clock=clock, orphan_grace=0.0, index_write_behind=False))
        return stores[-2], stores[-1]

    yield open_hosts
    for store in stores:
        store.close()


def held_spill(writer: ScratchStore, monkeypatch, meanwhile, run: str = "run", agent: str = "agent"):
    """Spill on ``writer`` in a thread, held between its object's upload and its row's commit while
    ``meanwhile()`` runs here; return what the spill returned or raised."""
    upload, uploaded, go, outcome = writer.blobs.write, threading.Event(), threading.Event(), []

    def write(*args, **kwargs):
        pending = upload(*args, **kwargs)
        uploaded.set()
        go.wait(30)
        return pending

    def spill():
        try:
            outcome.append(writer.scope(run, agent).spill(b"in flight " * 5000, source_tool="t").handle)
        except Exception as exc:  # (handed to the test)
            outcome.append(exc)

    monkeypatch.setattr(writer.blobs, "write", write)
    thread = threading.Thread(target=spill)
    thread.start()
    try:
        assert uploaded.wait(30)
        meanwhile()
    finally:
        go.set()
        thread.join(30)
    monkeypatch.setattr(writer.blobs, "write", upload)
    return outcome[0]


@pytest.mark.parametrize("writer_ahead", [0.0, SKEW, -SKEW, None])
@pytest.mark.parametrize("had_entries", [False, True])
@pytest.mark.parametrize("agent_level", [False, True])
def test_a_delete_overtaking_a_write_leaves_it_deleted_with_or_without_entries_and_clock_skew(
        hosts, monkeypatch, writer_ahead, had_entries, agent_level):
    """Found from the open list: a delete of a run with no entry left no tombstone, so the overtaken write failed,
    StorageError; and a deleter whose clock was behind the writer's dated its tombstone before the write's start,
    so the write failed too. The delete is marked with or without entries, ordered on the database's clock."""
    writer, deleter = hosts(writer_ahead)
    if had_entries:
        deleter.scope("run", "agent").scratch_write("before", b"v")

    def delete():
        time.sleep(0.2)  # (the delete well after the write's start: the index dates that start from the trip of the
        # write's first statement, which a loaded machine stalled some ms past it -- the write then failed within
        # the window that cannot be ordered, StorageError, at a load of 10)
        (deleter.delete_agent("run", "agent") if agent_level else deleter.delete_run("run"))

    handle = held_spill(writer, monkeypatch, delete)
    assert isinstance(handle, str), handle  # the write is ordered before the delete: not an error
    for store in (writer, deleter):
        with pytest.raises(NotFound, match="deleted with its agent" if agent_level else "deleted with its run") as got:
            store.scope("run", "agent").read_handle(handle, 0, 10)
        assert isinstance(got.value, Deleted)
        assert store.list_entries() == []
    assert not {found.token for found in writer.blobs.blob_files()}


@pytest.mark.parametrize("writer_ahead", [SKEW, None])
@pytest.mark.parametrize("agent_level", [False, True])
def test_a_write_begun_between_a_deletes_mark_and_its_removal_of_objects_reads_deleted(
        hosts, monkeypatch, writer_ahead, agent_level):
    """A delete marks itself in its transaction, then lists and removes its scope's objects (under the fleet's delete
    lock). A write whose upload began between the two -- after the mark, before the listing -- had its object
    removed by that delete, but the mark predated its start: the spill failed, StorageError 'the blob of ... was
    removed before its row was written' (hostile5: 8 spills in 958 of three writers against a deleter on two
    stores, 15 s). The mark is dated again once the objects are removed: the write reads Deleted."""
    writer, deleter = hosts(writer_ahead)
    detach, outcome = deleter.blobs.detach_scope, []

    def detach_after_an_upload(run_id, agent_id):  # the delete's transaction has committed its mark: a write begins
        outcome.append(held_spill(writer, monkeypatch, lambda: None))
        return detach(run_id, agent_id)

    def held_spill(store, monkeypatch, meanwhile):  # the spill in a thread, its upload done before the listing
        upload, uploaded, result = store.blobs.write, threading.Event(), []

        def write(*args, **kwargs):
            pending = upload(*args, **kwargs)
            uploaded.set()
            return pending

        def spill():
            try:
                result.append(store.scope("run", "agent").spill(b"in flight " * 5000, source_tool="t").handle)
            except Exception as exc:  # (handed to the test)
                result.append(exc)

        monkeypatch.setattr(store.blobs, "write", write)
        thread = threading.Thread(target=spill)
        thread.start()
        assert uploaded.wait(30)
        return thread, result

    monkeypatch.setattr(deleter.blobs, "detach_scope", detach_after_an_upload)
    deleter.delete_agent("run", "agent") if agent_level else deleter.delete_run("run")
    thread, result = outcome[0]
    thread.join(30)  # (its commit waited for the delete lock)
    handle = result[0]
    assert isinstance(handle, str), handle  # the write is ordered before the delete that removed its object
    with pytest.raises(Deleted, match="deleted with its agent" if agent_level else "deleted with its run"):
        writer.scope("run", "agent").read_handle(handle, 0, 10)
    assert writer.list_entries() == []


def test_a_delete_stands_when_its_mark_cannot_be_dated_again(hosts, monkeypatch, caplog):
    """Dating the mark again after the objects went is one more statement: a database failing it then must not
    turn a delete that happened (rows and objects gone) into an error; it is logged, the first mark stands."""
    _, deleter = hosts(None)
    deleter.scope("run", "agent").scratch_write("k", b"v")

    def fails(*args):
        raise StorageError("the index database failed while deleting a run: the server went away")

    monkeypatch.setattr(deleter.index, "scope_detached", fails)
    assert deleter.delete_run("run") == 1
    assert deleter.list_entries() == [] and not list(deleter.blobs.list_objects())
    assert "the delete stands" in caplog.text


@pytest.mark.parametrize("writer_ahead", [0.0, -SKEW, None])
def test_an_object_removed_after_an_earlier_delete_fails_the_write_whatever_the_deleters_clock(
        hosts, monkeypatch, writer_ahead):
    """A deleter whose clock ran ahead of the writer's dated an earlier delete after the write's start: a write
    whose object an outsider then removed copied that tombstone, and its spill returned a handle reading 'deleted
    with its run' -- acknowledged, and lost by no delete after it. On the database's clock it fails, nothing
    stored."""
    writer, deleter = hosts(writer_ahead)
    deleter.scope("run", "agent").scratch_write("before", b"v")
    deleter.delete_run("run")  # before the write begins

    def outsider_removes():
        deleter.blobs.delete_keys([obj.location for obj in deleter.blobs.list_objects()])

    outcome = held_spill(writer, monkeypatch, outsider_removes)
    assert isinstance(outcome, StorageError), outcome
    assert "was removed before its row was written: nothing stored" in str(outcome)
    assert writer.list_entries() == []


def test_a_slow_reply_does_not_date_the_write_before_a_delete_that_came_first(hosts, monkeypatch):
    """The write's start on the database's clock was its statement's answer less the seconds since the upload began,
    read once the answer was in: early by the answer's trip, so a delete done just before the write (here: the
    answer 0.4 s late, as on a loaded host) read as one that overtook it, and a write whose object an outsider
    removed returned a handle reading 'deleted with its run' -- acknowledged, and lost (CI at 09:57 UTC, the test
    above). It is dated from the statement's receipt, less the seconds up to its sending: never early."""
    writer, deleter = hosts(None)
    deleter.scope("run", "agent").scratch_write("before", b"v")
    deleter.delete_run("run")  # before the write begins
    execute, slowed = psycopg.Connection.execute, []

    def slow_answer(self, query, *args, **kwargs):
        answer = execute(self, query, *args, **kwargs)
        if "advisory_xact_lock_shared" in str(query):  # (the write's first statement: pg_try_...)
            slowed.append(query)
            time.sleep(0.4)
        return answer

    def outsider_removes():
        deleter.blobs.delete_keys([obj.location for obj in deleter.blobs.list_objects()])
        monkeypatch.setattr(psycopg.Connection, "execute", slow_answer)

    outcome = held_spill(writer, monkeypatch, outsider_removes)
    monkeypatch.setattr(psycopg.Connection, "execute", execute)
    assert slowed, "the write's first statement was not slowed: its query no longer names the lock"
    assert isinstance(outcome, StorageError), outcome
    assert writer.list_entries() == []


def test_the_marks_of_deletes_are_forgotten_with_the_tombstones(hosts, postgres_dsn, pg_schema):
    """A delete's mark is kept as long as a tombstone (an hour by the database's clock), then swept."""
    _, deleter = hosts(0.0)
    deleter.delete_run("empty-run")
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        marks = f'"{pg_schema}".scope_tombstones'
        assert conn.execute(f"SELECT run_id, agent_id, reason FROM {marks}").fetchall() == [
            ("empty-run", "", "deleted with its run")]
        deleter.index.forget_tombstones(deleter.now())
        assert conn.execute(f"SELECT count(*) FROM {marks}").fetchone()[0] == 1  # (young: kept)
        conn.execute(f"UPDATE {marks} SET marked = marked - 3601")
        deleter.index.forget_tombstones(deleter.now())
        assert conn.execute(f"SELECT count(*) FROM {marks}").fetchone()[0] == 0


def test_a_write_into_a_run_deleted_long_ago_and_not_read_as_deleted(hosts, monkeypatch):
    """A run deleted (no entries), then written again by a host whose clock runs behind: the write stands."""
    writer, deleter = hosts(-SKEW)
    deleter.delete_run("run")
    handle = writer.scope("run", "agent").spill(b"second life " * 5000, source_tool="t").handle
    assert deleter.scope("run", "agent").read_handle(handle, 0, 11).data == b"second life"


def test_a_database_of_version_3_upgrades_and_then_marks_deletes(tmp_path, postgres_dsn, pg_schema, s3_env,
                                                                 monkeypatch):
    """An index made by the scratchfs before scope_tombstones (schema version 3) is migrated by the first store of
    this version to open it (one step), and a delete of an empty run then overtakes a write."""
    from scratchfs.engine.postgres_schema import MIGRATIONS, SCHEMA_VERSION

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # the schema as scratchfs of version 3 left it
        conn.execute(f'CREATE SCHEMA "{pg_schema}"')
        conn.execute(f'CREATE TABLE "{pg_schema}".schema_version (version integer PRIMARY KEY, '
                     "applied_at timestamptz NOT NULL DEFAULT now())")
        for step in (1, 2, 3):
            for statement in MIGRATIONS[step]:
                conn.execute(statement.replace("@S", f'"{pg_schema}"'))
            conn.execute(f'INSERT INTO "{pg_schema}".schema_version (version) VALUES ({step})')
    with ScratchStore(tmp_path / "old", index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env,
                      clock=ScratchClock(), orphan_grace=0.0) as store:
        assert store.index.migrated_from == 3 and SCHEMA_VERSION == 5
        handle = held_spill(store, monkeypatch, lambda: store.delete_run("run"))
        with pytest.raises(Deleted):
            store.scope("run", "agent").read_handle(handle, 0, 10)
