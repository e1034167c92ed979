"""A delete of a run or agent that overtakes a write in flight on PostgreSQL with local blobs -- two stores (hosts)
over one root (the one file system they share) on one real PostgreSQL, each on its own clock -- and the write whose
statement reaches the database late (a loaded host, a slow link), on either blob store.

Found from the open list: with local blobs a write's start was its ``created_at`` on the writing store's clock,
compared with the delete's mark on the database's, so a writer whose clock ran ahead failed an overtaken write
(StorageError) instead of reading Deleted; and a write dated on the database's clock (an S3 object's) is dated late
by its statement's trip, so a delete marked within that trip after the write's start was not counted."""

from __future__ import annotations

import time

import psycopg
import pytest

from scratchfs import Deleted, ScratchStore, StorageError
from scratchfs.pytest_plugin import DEFAULT_START, ScratchClock
from tests.services import postgres_url
from tests.test_fleet_overtaken import SKEW, held_spill

LATE = 0.5  # seconds the write's first statement is held after the write read its clock, before it is sent


@pytest.fixture
def local_hosts(tmp_path, postgres_dsn, pg_schema):
    """``local_hosts(writer_ahead)``: a writer and a deleter on one database and one root of local blobs, the
    writer's clock ``writer_ahead`` seconds ahead of the deleter's (``None``: both on the real clock, so the index
    decides by the database's; ``("database", s)``: on the real clock, the writer's wall clock ``s`` ahead)."""
    stores = []

    def open_hosts(writer_ahead):
        real = writer_ahead is None or isinstance(writer_ahead, tuple)
        for _name, start in (("writer", DEFAULT_START + (0 if real else writer_ahead)), ("deleter", DEFAULT_START)):
            clock = time.time if real else ScratchClock(start)  # (time.time: the database's clock decides)
            stores.append(ScratchStore(tmp_path / "shared", index=postgres_url(postgres_dsn, pg_schema),
                                       clock=clock, orphan_grace=0.0, index_write_behind=False))
        writer, deleter = stores[-2], stores[-1]
        if isinstance(writer_ahead, tuple):  # the writer's wall clock skewed; its index still on the database's
            assert writer.index.database_clock
            writer.entries.now = lambda: time.time() + writer_ahead[1]
        return writer, deleter

    yield open_hosts
    for store in stores:
        store.close()


def late_first_statement(monkeypatch, hold: float = LATE) -> None:
    """Hold a write's first statement (the shared delete lock and the clocks) ``hold`` seconds before it is sent, as
    a loaded host or a slow link does, after the write read its monotonic clock to date it."""
    execute = psycopg.Connection.execute

    def late(self, query, *args, **kwargs):
        if "advisory_xact_lock_shared" in str(query):  # (the write's first statement: pg_try_...)
            time.sleep(hold)
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", late)


@pytest.mark.parametrize("writer_ahead", [0.0, SKEW, -SKEW, None, ("database", SKEW), ("database", -SKEW)])
@pytest.mark.parametrize("agent_level", [False, True])
def test_a_delete_overtaking_a_local_write_leaves_it_deleted_whatever_the_clocks(
        local_hosts, monkeypatch, writer_ahead, agent_level):
    """A writer whose clock ran ahead of the database's (or of the deleter's) dated its start after the delete's
    mark: the overtaken spill failed, StorageError 'the blob of ... was removed before its row was written'. Its
    directory was moved by the delete (the local blob's exists() tells that from any other removal), and the write
    is ordered before it on the database's clock: the handle reads Deleted on both hosts."""
    writer, deleter = local_hosts(writer_ahead)
    handle = held_spill(writer, monkeypatch, lambda: (deleter.delete_agent("run", "agent") if agent_level
                                                      else deleter.delete_run("run")))
    assert isinstance(handle, str), handle
    for store in (writer, deleter):
        with pytest.raises(Deleted, match="deleted with its agent" if agent_level else "deleted with its run"):
            store.scope("run", "agent").read_handle(handle, 0, 10)
        assert store.list_entries() == []
    assert not list(writer.blobs.blob_files())


@pytest.mark.parametrize("agent_level", [False, True])
def test_a_delete_within_the_trip_of_a_local_writes_statement_reads_deleted(local_hosts, monkeypatch, agent_level):
    """The write's start on the database's clock is known to within its first statement's trip; dated from the
    statement's receipt (never early), a delete marked within that trip after the start -- here the statement
    sent 0.5 s after the write read its clock -- was taken for one before it, and the overtaken write failed. A
    local blob's directory moved away proves a delete took it: its start is dated never late, and it reads
    Deleted."""
    writer, deleter = local_hosts(None)

    def delete_then_slow():
        deleter.delete_agent("run", "agent") if agent_level else deleter.delete_run("run")
        late_first_statement(monkeypatch)

    handle = held_spill(writer, monkeypatch, delete_then_slow)
    assert isinstance(handle, str), handle
    with pytest.raises(Deleted):
        deleter.scope("run", "agent").read_handle(handle, 0, 10)


def test_a_local_write_whose_directory_went_after_an_earlier_delete_fails(local_hosts, monkeypatch):
    """Dated never late, a local write still counts no delete done well before it began: a run deleted, then
    written again 0.3 s later, the new directory then removed by an outsider (not a delete: no mark after the
    write's start) fails, StorageError, nothing stored -- never a handle reading 'deleted with its run'."""
    import shutil

    writer, deleter = local_hosts(None)
    deleter.scope("run", "agent").scratch_write("before", b"v")
    deleter.delete_run("run")
    time.sleep(0.3)
    outcome = held_spill(writer, monkeypatch, lambda: shutil.rmtree(writer.blobs.agent_dir("run", "agent")))
    assert isinstance(outcome, StorageError), outcome
    assert "was removed before its row was written: nothing stored" in str(outcome)
    assert writer.list_entries() == []


def test_an_s3_write_whose_statement_is_late_fails_a_delete_within_that_trip(tmp_path, postgres_dsn, pg_schema,
                                                                               s3_env, monkeypatch):
    """The boundary that cannot be told on S3: a HEAD that finds the object gone cannot say whether a delete of its
    run took it or something else did (an orphan sweep of a write slower than orphan_grace, an outsider), and the
    write's start on the database's clock is known only to within its first statement's trip. It is dated never
    early (an earlier delete is never taken for one that overtook the write, which would acknowledge a write that
    is lost), so a delete marked within that trip after the write's start fails the overtaken write loudly:
    StorageError, saying a delete of its scope at about the write's start may have taken it, nothing stored -- never
    a handle that reads nothing."""
    stores = [ScratchStore(tmp_path / name, index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env,
                           orphan_grace=0.0, index_write_behind=False) for name in ("writer", "deleter")]
    writer, deleter = stores
    try:
        before = time.monotonic()  # (before the write's start)

        def delete_then_slow():  # the hold outlasts all since the write began, so the delete's mark (dated again
            deleter.delete_run("run")  # as it ends) falls within the trip however long it took on a loaded host
            late_first_statement(monkeypatch, LATE + time.monotonic() - before)

        outcome = held_spill(writer, monkeypatch, delete_then_slow)
        assert isinstance(outcome, StorageError), outcome
        assert "was removed before its row was written: nothing stored (by a delete of its run or agent at about " \
               "the write's start" in str(outcome), outcome
        assert writer.list_entries() == []
    finally:
        for store in stores:
            store.close()
