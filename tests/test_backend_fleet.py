"""A store on PostgreSQL + S3 as a fleet uses it: the fleet sweeper, deletes that reach the bucket, the platform
cascade, several hosts (processes with their own temp dirs) on one database and one bucket, range requests per
read, and outages (typed errors within a bounded time; ``offload`` never fails a turn)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from scratchfs import Changed, Deleted, InvalidArgument, NotFound, Observation, ScratchStore, StorageError
from scratchfs.api.spill_failure import RETRY_ADVICE
from scratchfs.foundation.checks import new_token
from tests.fleet_host import content
from tests.services import free_port, postgres_url

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def urls(postgres_dsn, pg_schema, s3_env):
    return {"index": postgres_url(postgres_dsn, pg_schema), "blobs": s3_env}


@pytest.fixture
def fleet(tmp_path, urls, scratch_clock):
    stores = []

    def open_store(name="host", **settings):
        settings.setdefault("clock", scratch_clock)
        settings.setdefault("orphan_grace", 0.0)
        store = ScratchStore(tmp_path / name, **urls, **settings)
        stores.append(store)
        return store

    yield open_store
    for store in stores:
        store.close()


def objects(store) -> set[str]:
    return {found.token for found in store.blobs.blob_files()}


def test_the_fleet_sweep_removes_expired_rows_their_objects_and_orphans(fleet, scratch_clock):
    store = fleet()
    scope = store.scope("run-1", "agent-1")
    kept = scope.spill(b"kept\n" * 5000, ttl=3600)
    scope.scratch_write("short", b"gone soon", ttl=10)
    orphan = new_token()
    store.blobs.client().put_object(Bucket=store.blobs.bucket, Key=store.blobs.key("run-9", "agent-1", orphan),
                                    Body=b"no row names me")
    assert len(objects(store)) == 3
    scratch_clock.advance(20)
    result = store.sweep()
    assert (result.rows_deleted, result.files_deleted, result.orphans_removed) == (1, 1, 1)
    assert result.bytes_freed > len(b"no row names me")
    assert objects(store) == {row.blob for row in store.list_entries()}
    assert scope.read_handle(kept.handle, length=5).data == b"kept\n"
    with pytest.raises(NotFound):
        scope.scratch_read("short")
    assert store.sweep() == type(result)()  # nothing left to do


def test_the_fleet_sweep_counts_only_what_the_store_deleted(fleet, scratch_clock, monkeypatch):
    """An object whose delete the store refuses is not counted as freed: it is a failure, left for the next sweep."""
    store = fleet()
    client = store.blobs.client()
    scope = store.scope("run-1", "agent-1")
    scope.scratch_write("short", b"gone soon" * 100, ttl=10)
    orphans = {run: new_token() for run in ("run-8", "run-9")}
    for run, token in orphans.items():
        client.put_object(Bucket=store.blobs.bucket, Key=store.blobs.key(run, "agent-1", token), Body=b"x" * 1000)
    refused = {store.blobs.key("run-9", "agent-1", orphans["run-9"]), store.blobs.key(
        "run-1", "agent-1", store.list_entries()[0].blob)}
    real = client.delete_objects

    def delete_objects(**kwargs):
        asked = kwargs["Delete"]["Objects"]
        got = real(**{**kwargs, "Delete": {**kwargs["Delete"], "Objects": [o for o in asked
                                                                          if o["Key"] not in refused]}})
        return {**got, "Errors": [{"Key": o["Key"], "Code": "AccessDenied"} for o in asked if o["Key"] in refused]}

    monkeypatch.setattr(client, "delete_objects", delete_objects)
    scratch_clock.advance(20)
    result = store.sweep()
    assert (result.rows_deleted, result.files_deleted, result.orphans_removed, result.delete_failures) == (1, 0, 1, 2)
    assert result.bytes_freed == 1000  # the one orphan deleted; not the refused orphan, nor the expired value's object
    monkeypatch.undo()
    again = store.sweep()  # both refused objects are orphans now, and go
    assert (again.orphans_removed, again.delete_failures) == (2, 0)
    assert objects(store) == set()


def test_orphans_younger_than_the_grace_period_are_kept(fleet):
    store = fleet(orphan_grace=3600.0)
    token = new_token()
    store.blobs.client().put_object(Bucket=store.blobs.bucket, Key=store.blobs.key("run-1", "a", token), Body=b"x")
    assert store.sweep().orphans_removed == 0
    assert objects(store) == {token}


def test_fsck_lists_a_young_orphan_object_as_the_sweeps_as_it_lists_a_young_file(fleet, tmp_path):
    """Without ``--repair``, fsck listed a young local orphan (``sweeps``: true, clean) but said nothing of a young
    object no row names on S3: the two stores' reports disagreed on the same state. A young object is now listed as
    a young file is (the sweep's: clean, no problem left); ``--repair`` leaves it (it may be a write in flight: an
    object store holds no lock) and once older than the grace it is a problem that remains."""
    from scratchfs.api.inspector import fsck

    store = fleet(orphan_grace=3600.0)
    token = new_token()
    store.blobs.client().put_object(Bucket=store.blobs.bucket, Key=store.blobs.key("run-1", "a", token), Body=b"x")
    report = fsck(store)
    assert [(p.kind, p.sweeps, p.run_id) for p in report.problems] == [("orphaned", True, "run-1")]
    assert report.clean and "s old, the sweep removes it once older than orphan_grace" in report.problems[0].detail
    with ScratchStore(tmp_path / "local", orphan_grace=3600.0) as local:  # the same state on a local store
        local.scope("run-1", "a").spill(b"y" * 200_000)  # (a blob file of its own, not in a segment)
        path = Path(local.blobs.path("run-1", "a", local.list_entries()[0].blob))
        shutil.copy(path, path.with_name(token + ".zst"))
        local_report = fsck(local)
    assert [(p.kind, p.sweeps) for p in local_report.problems] == [(p.kind, p.sweeps) for p in report.problems]
    repaired = fsck(store, repair=True)
    assert [(p.repaired, p.sweeps) for p in repaired.problems] == [(False, True)] and objects(store) == {token}
    aged = fsck(fleet("aged", orphan_grace=0.0))
    assert [(p.kind, p.sweeps) for p in aged.problems] == [("orphaned", False)] and not aged.clean


def test_a_missing_object_reads_as_not_found_and_its_row_is_swept(fleet):
    store = fleet()
    scope = store.scope("run-1", "agent-1")
    stub = scope.spill(b"data " * 1000)
    row = store.list_entries()[0]
    store.blobs.client().delete_object(Bucket=store.blobs.bucket, Key=store.blobs.key("run-1", "agent-1", row.blob))
    with pytest.raises(NotFound):
        scope.read_handle(stub.handle)
    result = store.sweep()
    assert (result.rows_deleted, result.missing_files) == (1, 1)
    assert store.list_entries() == []


def test_delete_run_and_agent_remove_rows_and_objects(fleet):
    store = fleet()
    a1, a2, b1 = store.scope("run-a", "one"), store.scope("run-a", "two"), store.scope("run-b", "one")
    h1, h2, h3 = (s.spill(f"content of {s.agent_id}".encode() * 100) for s in (a1, a2, b1))
    assert store.delete_agent("run-a", "two") == 1
    with pytest.raises(Deleted, match="deleted with its agent"):
        a2.read_handle(h2.handle)
    assert store.delete_run("run-a") == 1
    with pytest.raises(Deleted, match="deleted with its run"):
        a1.read_handle(h1.handle)
    assert objects(store) == {store.list_entries()[0].blob}
    assert b1.read_handle(h3.handle, length=10).data == b"content of"


def test_only_one_host_sweeps_at_a_time(fleet):
    a, b = fleet("a"), fleet("b")
    with a.index.sweep_lock(None) as got:
        assert got
        assert b.sweep(wait=0).skipped
    assert not b.sweep(wait=0).skipped


def test_a_read_within_one_frame_costs_at_most_two_range_requests(fleet, fixture_data):
    store = fleet()
    scope = store.scope("run-1", "agent-1")
    data = fixture_data["browser-rust-book.html"]
    stub = scope.spill(data)
    sent = []
    store.blobs.client().meta.events.register("before-send.s3", lambda request, **kw: sent.append(
        (request.method, request.headers.get("Range"))))
    for number, offset in enumerate((0, 200_000, 400_000)):
        sent.clear()
        assert scope.read_handle(stub.handle, offset=offset, length=4096).data == data[offset : offset + 4096]
        ranges = [r.decode() if isinstance(r, bytes) else r for _, r in sent]
        if number == 0:  # the tail (size and seek table), then the frame
            assert ranges[0] == "bytes=-16384" and len(sent) == 2
        else:  # the tail is cached: the frame only
            assert len(sent) == 1
        assert all(method == "GET" for method, _ in sent) and ranges[-1].startswith("bytes=")


def test_the_platform_cascade_deletes_entries_and_the_sweep_reclaims_their_objects(postgres_dsn, pg_schema, s3_env,
                                                                                   tmp_path):
    platform = f"{pg_schema}_platform"
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{platform}"')
        conn.execute(f'CREATE TABLE "{platform}".runs (id text PRIMARY KEY, started timestamptz DEFAULT now())')
        conn.execute(f"INSERT INTO \"{platform}\".runs (id) VALUES ('run-1'), ('run-2')")
    index = postgres_url(postgres_dsn, pg_schema) + f"&runs_table={platform}.runs(id)"
    with ScratchStore(tmp_path, index=index, blobs=s3_env, orphan_grace=0.0) as store:
        doomed, kept = store.scope("run-1", "agent"), store.scope("run-2", "agent")
        handles = [doomed.spill(b"doomed " * 2000).handle for _ in range(3)]
        keep = kept.spill(b"kept " * 2000).handle
        with pytest.raises(InvalidArgument, match="runs table"):  # (a setting error: exit 2)
            store.scope("run-unknown", "agent").spill(b"no such run")
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"DELETE FROM \"{platform}\".runs WHERE id = 'run-1'")  # the platform deletes its run
        assert store.list_entries_for_run("run-1") == []
        for handle in handles:
            with pytest.raises(NotFound):
                doomed.read_handle(handle)
        assert len(objects(store)) == 4
        result = store.sweep()
        assert result.orphans_removed == 3
        assert objects(store) == {store.list_entries()[0].blob}
        assert kept.read_handle(keep, length=5).data == b"kept "
        assert store.sweep().orphans_removed == 0  # the failed spill left no object behind either


def test_several_hosts_share_one_database_and_one_bucket(urls, tmp_path):
    """Three processes, each with its own temp dir and nothing shared but the servers: they spill, read each
    other's handles, sweep at once and delete their own runs; nothing is lost, wrong or orphaned."""
    hosts, count = 3, 6
    env = {**os.environ, "SCRATCHFS_INDEX": urls["index"], "SCRATCHFS_BLOBS": urls["blobs"]}
    env.pop("SCRATCHFS_ROOT", None)

    def run_all(*verb_args):
        procs = [subprocess.Popen([sys.executable, "-m", "tests.fleet_host", verb_args[0], str(h),
                                   *[a.format(h=h) for a in verb_args[1:]]], cwd=REPO, env=env,
                                  stderr=subprocess.PIPE, text=True) for h in range(hosts)]
        for proc in procs:
            _, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, err[-3000:]

    run_all("spill", str(count), str(tmp_path / "handles-{h}.json"))
    handles = {str(h): json.loads((tmp_path / f"handles-{h}.json").read_text()) for h in range(hosts)}
    (tmp_path / "all.json").write_text(json.dumps(handles))
    run_all("check", str(tmp_path / "all.json"))
    with ScratchStore(tmp_path / "observer", **urls, orphan_grace=0.0) as store:
        shared = store.scope("fleet", "shared")
        entries = store.list_entries()
        assert {(e.run_id, e.agent_id) for e in entries} == {("fleet", "shared")}
        assert len(entries) == hosts * count
        for h, found in handles.items():
            for i, handle in enumerate(found["shared"]):
                assert shared.read_handle(handle, length=65536).data == content(int(h), i, False)[:65536]
        store.sweep()
        assert objects(store) == {e.blob for e in entries}  # no orphan left, none missing


@pytest.mark.alone(waits=True)  # (it waits for a stopped server: 0.14 s of CPU over 1.0 s, 2026-12-07)
def test_a_stopped_object_store_gives_storage_error_and_offload_passes_through(fleet, monkeypatch):
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    store = fleet(busy_timeout=2.0)
    store.blobs.client().create_bucket(Bucket=store.blobs.bucket)
    scope = store.scope("run-1", "agent-1")
    stub = scope.spill(b"before the outage " * 1000)
    server.stop()
    started = time.monotonic()
    with pytest.raises(StorageError):
        scope.spill(b"during the outage " * 1000)
    with pytest.raises(StorageError):
        scope.read_handle(stub.handle)
    small = Observation(tool="sql.query", content="x" * 60_000, result_class="query")
    assert scope.offload(small) is small  # the turn goes on with the whole result, up to passthrough_max_bytes
    out = scope.offload(Observation(tool="sql.query", content="x" * 100_000, result_class="query"))
    assert out.refused is not None and json.loads(out.content)["note"].endswith(RETRY_ADVICE)  # past it: a notice
    assert time.monotonic() - started < 60
    assert [e.key for e in store.list_entries()] == [stub.handle]  # the failed uploads left no row


@pytest.mark.alone(waits=True)  # (it waits for a stopped server: 0.10 s of CPU over 1.1 s, 2026-12-07)
def test_a_stopped_database_gives_storage_error_and_offload_passes_through(s3_env, tmp_path, own_postgres_server):
    server = own_postgres_server
    index = postgres_url(server.dsn, "scratchfs")
    with ScratchStore(tmp_path, index=index, blobs=s3_env, busy_timeout=1.0) as store:
        scope = store.scope("run-1", "agent-1")
        stub = scope.spill(b"before the outage " * 1000)
        server.stop()
        started = time.monotonic()
        with pytest.raises(StorageError):
            scope.read_handle(stub.handle)
        with pytest.raises(StorageError):
            scope.spill(b"during the outage " * 1000)
        small = Observation(tool="sql.query", content="y" * 60_000, result_class="query")
        assert scope.offload(small) is small
        out = scope.offload(Observation(tool="sql.query", content="y" * 100_000, result_class="query"))
        assert out.refused is not None and json.loads(out.content)["note"].endswith(RETRY_ADVICE)
        assert time.monotonic() - started < 30
        assert store.blobs.blob_files() != []  # the spilled object of the failed row is an orphan for the sweep


def test_fsck_finds_and_repairs_missing_corrupt_and_orphaned_objects(fleet):
    from scratchfs.api.inspector import fsck

    store = fleet()
    scope = store.scope("run-1", "agent-1")
    stubs = [scope.spill(f"entry {i} ".encode() * 3000) for i in range(3)]
    rows = {row.key: row for row in store.list_entries()}
    client, bucket = store.blobs.client(), store.blobs.bucket
    gone, damaged = rows[stubs[0].handle], rows[stubs[1].handle]
    client.delete_object(Bucket=bucket, Key=store.blobs.key("run-1", "agent-1", gone.blob))
    client.put_object(Bucket=bucket, Key=store.blobs.key("run-1", "agent-1", damaged.blob),
                      Body=b"\0" * damaged.stored_size)
    client.put_object(Bucket=bucket, Key=store.blobs.key("run-2", "agent-1", new_token()), Body=b"orphan")
    report = fsck(store)
    assert sorted(p.kind for p in report.problems) == ["corrupt", "missing", "orphaned"]
    assert report.entries_checked == 3 and report.index == "ok"
    repaired = fsck(store, repair=True)
    assert all(p.repaired for p in repaired.problems)
    assert fsck(store).clean
    assert [row.key for row in store.list_entries()] == [stubs[2].handle]
    assert objects(store) == {rows[stubs[2].handle].blob}


def test_the_cli_opens_the_fleet_store_from_the_environment(urls, tmp_path):
    from click.testing import CliRunner

    from scratchfs.cli import main

    env = {"SCRATCHFS_INDEX": urls["index"], "SCRATCHFS_BLOBS": urls["blobs"], "SCRATCHFS_RUN_ID": "run-1",
           "SCRATCHFS_AGENT_ID": "agent-1"}
    page = tmp_path / "page.txt"
    page.write_bytes(b"line of a page\n" * 2000)
    spilled = CliRunner().invoke(main, ["spill", str(page), "--root", str(tmp_path / "host-a")], env=env,
                                 catch_exceptions=False)
    assert spilled.exit_code == 0, spilled.output
    handle = json.loads(spilled.stdout)["handle"]
    read = CliRunner().invoke(main, ["read-handle", handle, "--offset", "15", "--length", "14", "--root",
                                     str(tmp_path / "host-b")], env=env, catch_exceptions=False)
    assert read.exit_code == 0, read.output
    assert read.stdout_bytes == b"line of a page"


def test_a_copy_of_a_live_object_under_another_scopes_prefix_is_an_orphan_the_original_untouched(fleet):
    """Rows were matched to objects by token alone: a live object copied under another run/agent prefix was taken
    as named, never reported nor swept. An object is named only by a row of its own prefix's scope."""
    from scratchfs.api.inspector import fsck

    store = fleet()
    scope = store.scope("run-1", "agent-1")
    data = b"live content " * 3000
    stub = scope.spill(data)
    (row,) = store.list_entries()
    client, bucket = store.blobs.client(), store.blobs.bucket
    copy_key = store.blobs.key("run-2", "agent-9", row.blob)
    client.copy_object(Bucket=bucket, Key=copy_key,
                       CopySource={"Bucket": bucket, "Key": store.blobs.key("run-1", "agent-1", row.blob)})
    assert [(p.kind, p.run_id, p.agent_id) for p in fsck(store).problems] == [("orphaned", "run-2", "agent-9")]
    assert store.sweep().orphans_removed == 1
    assert sorted(found.location for found in store.blobs.blob_files()) == [
        store.blobs.key("run-1", "agent-1", row.blob)]
    assert scope.read_range(stub.handle, 0, 65536).data == data[:65536]
    assert fsck(store).clean


def test_fsck_repair_never_removes_the_object_of_a_write_in_flight(fleet, monkeypatch):
    """Attacker's trial (two processes writing, one running ``fsck --repair`` on the fleet store): a spill returned
    its handle and later read as NotFound. ``fsck --repair`` deleted every object no row named -- with no grace
    period and no lock -- so it deleted the object of a write whose row was not committed yet; the row's check then
    found the object gone, took it for a delete of its run, wrote no row, and the spill returned as if stored.
    Objects younger than ``orphan_grace`` are writes in flight, not orphans (as in the fleet sweep), and the removal
    holds the exclusive delete lock between its last look at the rows and the delete."""
    from scratchfs.api.inspector import fsck
    from scratchfs.engine.postgres_index import PostgresIndex

    store = fleet(orphan_grace=3600.0)
    scope = store.scope("run-1", "agent-1")
    put = PostgresIndex.put
    reports = []

    def repair_then_put(self, *args, **kwargs):  # the object is uploaded, its row not yet committed
        if not reports:
            reports.append(fsck(store, repair=True))
        return put(self, *args, **kwargs)

    monkeypatch.setattr(PostgresIndex, "put", repair_then_put)
    data = b"kept whole, every byte of it\n" * 4000
    handle = scope.spill(data).handle
    monkeypatch.setattr(PostgresIndex, "put", put)
    # a write in flight is young: listed as the sweep's (as a young file is), never removed
    assert [(p.kind, p.sweeps, p.repaired) for p in reports[0].problems] == [("orphaned", True, False)]
    assert reports[0].clean
    assert scope.read_range(handle, 0, 65536).data == data[:65536]
    old = new_token()  # an orphan older than the grace period still goes
    store.blobs.client().put_object(Bucket=store.blobs.bucket, Key=store.blobs.key("run-2", "agent-1", old),
                                    Body=b"orphan")
    aged = fleet("aged", orphan_grace=0.0)
    repaired = fsck(aged, repair=True)
    assert [(p.kind, p.repaired) for p in repaired.problems] == [("orphaned", True)]
    assert objects(store) == {e.blob for e in store.list_entries()}


def test_a_sweeping_host_whose_clock_runs_ahead_never_removes_a_write_in_flight(fleet, monkeypatch):
    """The orphan sweep compared objects' LastModified (the object store's clock) with its own host's clock: a host
    whose clock ran 400 s ahead judged a spill's object, uploaded and not yet named by its row, older than the
    grace period (300 s) and deleted it; the writer's check then took the missing object for a delete of its run,
    and the spill returned a handle that no read ever found (NotFound): an acknowledged result lost. The listing
    now puts LastModified on the host's clock by the Date of the store's answer."""
    from scratchfs.engine import s3_client
    from scratchfs.engine.fleet_sweeper import fleet_sweep

    class Ahead:  # the time module of the sweeping host, whose clock is 400 s ahead of the object store's
        def time(self) -> float:
            return time.time() + 400

        def __getattr__(self, name: str):
            return getattr(time, name)

    writer, sweeper = fleet("writer", index_write_behind=False), fleet("sweeper", orphan_grace=300.0)
    upload = writer.blobs.write
    swept = []

    def upload_then_sweep(*args, **kwargs):
        pending = upload(*args, **kwargs)
        with monkeypatch.context() as ahead:
            ahead.setattr(s3_client, "time", Ahead())
            swept.append(fleet_sweep(sweeper.index, sweeper.blobs, time.time(), 300.0, 5.0, clock=Ahead().time))
        return pending

    monkeypatch.setattr(writer.blobs, "write", upload_then_sweep)
    handle = writer.scope("run", "agent").spill(b"in flight " * 5000, source_tool="t").handle
    assert swept[0].orphans_removed == 0
    assert writer.scope("run", "agent").read_handle(handle, 0, 20).data == b"in flight in flight "


def test_an_object_removed_before_its_row_without_a_delete_of_its_scope_fails_the_write(fleet, monkeypatch):
    """An object gone when its row was to be committed was taken for a delete of its run overtaking the write, on
    S3 whatever removed it (an orphan sweep of a write slower than orphan_grace, an outsider): the spill returned a
    handle that no read found, 'no handle ... in this scope'. Only a delete of the scope (its tombstone) makes a
    missing object the write's overtaking; else the write fails, StorageError, nothing stored -- and a delete of
    the run still overtakes a write, which then reads as deleted with its run."""
    from scratchfs import StorageError as Refused

    store = fleet("writer", index_write_behind=False)
    scope = store.scope("run", "agent")
    upload = store.blobs.write

    def upload_then(remove):
        def write(*args, **kwargs):
            pending = upload(*args, **kwargs)
            remove(pending)
            return pending
        return write

    monkeypatch.setattr(store.blobs, "write", upload_then(lambda p: store.blobs.delete_keys([p.key])))
    with pytest.raises(Refused) as caught:
        scope.spill(b"gone " * 5000, source_tool="t")
    assert "was removed before its row was written: nothing stored" in str(caught.value)
    assert store.list_entries() == []
    monkeypatch.setattr(store.blobs, "write", upload)
    scope.scratch_write("before", b"v")  # a delete of the run then overtakes a write: not an error
    monkeypatch.setattr(store.blobs, "write", upload_then(lambda p: store.delete_run("run")))
    handle = scope.spill(b"overtaken " * 5000, source_tool="t").handle
    with pytest.raises(Deleted):
        scope.read_handle(handle, 0, 10)


def test_an_object_removed_after_an_earlier_delete_of_its_run_fails_the_write(fleet, monkeypatch, scratch_clock):
    """The run deleted, then written again (run ids are the platform's, a retry reuses one): a later write whose
    object an orphan sweep or an outsider removed copied the earlier delete's tombstone, as if that delete had
    overtaken it, and its spill returned a handle that reads 'deleted with its run' -- an acknowledged result lost
    by no delete after it (found by helper hostile4). Only a delete from the write's start on overtakes it."""
    from scratchfs import StorageError as Refused

    store = fleet("writer", index_write_behind=False)
    scope = store.scope("run", "agent")
    scope.spill(b"first life " * 5000, source_tool="t")
    store.delete_run("run")
    scratch_clock.advance(5)  # (the run written again later)
    upload = store.blobs.write

    def write(*args, **kwargs):
        pending = upload(*args, **kwargs)
        store.blobs.delete_keys([pending.key])
        return pending

    monkeypatch.setattr(store.blobs, "write", write)
    with pytest.raises(Refused, match="was removed before its row was written: nothing stored"):
        scope.spill(b"second life " * 5000, source_tool="t")


@pytest.mark.parametrize("delete", ["run", "agent"])
def test_a_stream_whose_run_or_agent_another_host_deletes_midway_says_deleted(fleet, delete):
    # an object store keeps no object open for a reader: a delete of the run (or agent) on another host while
    # iter_content streams a blob ends the stream with the entry's Deleted, as a fresh read says it, not the object
    # store's StorageError "... is gone (deleted while it was being read)" (newuser18); the chunks before it are sound
    writer, other = fleet("a"), fleet("b")
    rng = random.Random(5)
    whole = rng.randbytes(12 << 20)  # (incompressible: more than the 4 MiB a reader gets from the store at a time)
    handle = writer.scope("run-s", "agent-s").spill(whole, source_tool="t").handle
    writer.flush()
    chunks = other.scope("run-s", "agent-s").iter_content("handle", handle)
    got = [next(chunks)]
    writer.delete_run("run-s") if delete == "run" else writer.delete_agent("run-s", "agent-s")
    with pytest.raises(Deleted, match=f"deleted with its {delete}"):
        got.extend(chunks)
    assert whole.startswith(b"".join(got)) and len(got) < 96  # (frames read before the delete are sound)


def test_a_value_another_host_writes_again_while_streamed_says_changed(fleet):
    # (the same for a scratchpad value written again: its old object is deleted, and the stream ends in Changed,
    # which says to read it again from its start, not in StorageError)
    writer, other = fleet("a"), fleet("b")
    whole = random.Random(6).randbytes(12 << 20)
    writer.scope("run-s", "agent-s").scratch_write("notes", whole)
    writer.flush()
    chunks = other.scope("run-s", "agent-s").iter_content("scratch", "notes")
    got = [next(chunks)]
    writer.scope("run-s", "agent-s").scratch_write("notes", b"new")
    with pytest.raises(Changed, match="written again while it was read"):
        got.extend(chunks)
    assert whole.startswith(b"".join(got))
    assert b"".join(other.scope("run-s", "agent-s").iter_content("scratch", "notes")) == b"new"
