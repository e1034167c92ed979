"""A fleet index and its blobs belong together (scratchfs.engine.pairing), on real PostgreSQL and S3 servers: a host
given the right index and other blobs -- a forgotten $SCRATCHFS_BLOBS, another prefix, a second schema over one
prefix -- is refused before it reads, writes or sweeps anything, and a row naming a blob its store cannot hold
reads as a missing blob instead of a ValueError traceback."""

from __future__ import annotations

import psycopg
import pytest
from click.testing import CliRunner

from scratchfs import InvalidArgument, NotFound, ScratchStore
from scratchfs.cli import main
from scratchfs.engine.pairing import LOCAL_LOCATION
from tests.services import postgres_url


@pytest.fixture
def index(postgres_dsn, pg_schema):
    return postgres_url(postgres_dsn, pg_schema)


def spill_three(store: ScratchStore) -> list[str]:
    scope = store.scope("run-1", "agent-1")
    return [scope.spill(f"entry {i}\n".encode() * 3000).handle for i in range(3)]


def read_all(store: ScratchStore, handles: list[str]) -> list[bytes]:
    scope = store.scope("run-1", "agent-1")
    return [b"".join(scope.iter_content("handle", h)) for h in handles]


def pairing_row(dsn: str, schema: str) -> list[tuple]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(f'SELECT id, blobs FROM "{schema}".store').fetchall()


def test_a_host_without_the_blobs_url_is_refused_and_the_fleets_rows_survive(index, s3_env, tmp_path, postgres_dsn,
                                                                              pg_schema):
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as good:
        handles = spill_three(good)
        expected = read_all(good, handles)
    with pytest.raises(InvalidArgument, match=r"keeps its blobs at s3://.*, not files under the root"):
        ScratchStore(tmp_path / "b", index=index, blobs="", orphan_grace=0)
    env = {"SCRATCHFS_INDEX": index, "SCRATCHFS_BLOBS": None}  # (unset: an empty variable is refused)
    swept = CliRunner().invoke(main, ["sweep", "--root", str(tmp_path / "c")], env=env)
    assert swept.exit_code == 2, swept.output
    assert "keeps its blobs at s3://" in swept.output and "Traceback" not in swept.output
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as good:
        assert read_all(good, handles) == expected  # nothing was swept
        assert good.sweep().rows_deleted == 0
    assert pairing_row(postgres_dsn, pg_schema)[0][1] == s3_env


def test_another_prefix_of_the_same_bucket_is_refused(index, s3_env, tmp_path):
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as good:
        spill_three(good)
    with pytest.raises(InvalidArgument, match="keeps its blobs at"):
        ScratchStore(tmp_path / "b", index=index, blobs=s3_env + "-other")


def test_two_indexes_over_one_prefix_the_second_is_refused_and_the_firsts_objects_kept(postgres_dsn, pg_schema,
                                                                                      s3_env, tmp_path):
    first = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path / "a", index=first, blobs=s3_env) as store:
        handles = spill_three(store)
        expected = read_all(store, handles)
    with pytest.raises(InvalidArgument, match="belong to another index"):
        ScratchStore(tmp_path / "b", index=postgres_url(postgres_dsn, pg_schema + "_staging"), blobs=s3_env,
                     orphan_grace=0)
    with ScratchStore(tmp_path / "a", index=first, blobs=s3_env) as store:
        assert read_all(store, handles) == expected


def test_an_unpaired_store_is_claimed_only_by_the_blobs_that_hold_its_entries(index, s3_env, tmp_path, postgres_dsn,
                                                                              pg_schema):
    """A store made before the check (no row, no marker): the wrong blobs cannot claim it; the right ones do."""
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        handles = spill_three(store)
        expected = read_all(store, handles)
        store.blobs.client().delete_object(Bucket=store.blobs.bucket, Key="scratch/store-id")
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{pg_schema}".store')
    with pytest.raises(InvalidArgument, match="none of this index's newest entries has its blob in files under"):
        ScratchStore(tmp_path / "b", index=index, blobs="")
    assert pairing_row(postgres_dsn, pg_schema) == []  # the refused host claimed nothing
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        assert read_all(store, handles) == expected
        marker = store.blobs.get_range("scratch/store-id", 0, 100).strip().decode()
    assert pairing_row(postgres_dsn, pg_schema) == [(marker, s3_env)]


def test_a_lost_marker_is_written_again_by_the_paired_blobs(index, s3_env, tmp_path, postgres_dsn, pg_schema):
    """A crash between the index's row and the marker (or a deleted marker): the next opening writes it."""
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        spill_three(store)
        store.blobs.client().delete_object(Bucket=store.blobs.bucket, Key="scratch/store-id")
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        marker = store.blobs.get_range("scratch/store-id", 0, 100).strip().decode()
    assert pairing_row(postgres_dsn, pg_schema) == [(marker, s3_env)]


def test_postgres_with_local_files_pairs_one_root_and_refuses_another(index, tmp_path, postgres_dsn, pg_schema):
    with ScratchStore(tmp_path / "a", index=index) as store:
        handles = spill_three(store)
        expected = read_all(store, handles)
    assert (tmp_path / "a" / "store-id").stat().st_mode & 0o777 == 0o600
    with pytest.raises(InvalidArgument, match="none of this index's newest entries"):
        ScratchStore(tmp_path / "b", index=index, orphan_grace=0)
    with ScratchStore(tmp_path / "a", index=index) as store:
        assert read_all(store, handles) == expected
    assert pairing_row(postgres_dsn, pg_schema)[0][1] == LOCAL_LOCATION


def test_the_bucket_made_after_the_store_opened_is_paired_at_its_first_request(index, s3_env, tmp_path):
    """An object store that cannot answer as the store opens leaves the check to its first request: the store
    opens (offload then passes results through), and the check still guards what follows."""
    missing = s3_env.replace("s3://", "s3://made-later-")
    with ScratchStore(tmp_path / "a", index=index, blobs=missing) as store:
        bucket = store.blobs.bucket
        import boto3

        boto3.client("s3").create_bucket(Bucket=bucket)
        handles = spill_three(store)
        assert store.blobs.get_range(f"{store.blobs.prefix}/store-id", 0, 100).strip()
        assert len(read_all(store, handles)) == 3
    with pytest.raises(InvalidArgument, match="keeps its blobs at"):
        ScratchStore(tmp_path / "b", index=index, blobs=s3_env)


def test_a_row_naming_a_blob_its_store_cannot_hold_reads_as_missing(index, s3_env, tmp_path, postgres_dsn,
                                                                    pg_schema):
    """A row another store wrote (a local segment location, as a host without the blobs URL wrote before the check):
    a read is NotFound, fsck reports it, the sweep drops it -- never a ValueError."""
    from scratchfs.api.inspector import fsck

    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env, orphan_grace=0) as store:
        scope = store.scope("run-1", "agent-1")
        scope.scratch_write("plan", b"the plan")
        kept = scope.spill(b"kept\n" * 3000).handle
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f"UPDATE \"{pg_schema}\".entries SET blob = 'd7ee0a1b2c3d4e5f:nazh0a1b2c:40:332' "
                         "WHERE key = 'plan'")
        with pytest.raises(NotFound):
            scope.scratch_read("plan")
        report = fsck(store)  # (the value's own object, no row names it now, is an orphan)
        assert sorted(p.kind for p in report.problems) == ["missing", "orphaned"]
        assert [p.key for p in report.problems if p.kind == "missing"] == ["plan"]
        assert "not a blob token" in next(p.path for p in report.problems if p.kind == "missing")
        result = store.sweep()
        assert (result.rows_deleted, result.missing_files, result.orphans_removed) == (1, 1, 1)
        assert [e.key for e in store.list_entries()] == [kept]
        assert fsck(store).clean


def test_moving_the_blobs_as_the_readme_says_pairs_the_new_location(index, s3_env, tmp_path, postgres_dsn,
                                                                     pg_schema):
    """README, "One index, one blob location": copy the objects (not the marker), delete the pairing row."""
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        handles = spill_three(store)
        expected = read_all(store, handles)
        client, bucket = store.blobs.client(), store.blobs.bucket
        for found in store.blobs.list_objects():
            client.copy_object(Bucket=bucket, Key=found.location.replace("scratch/", "moved/", 1),
                               CopySource={"Bucket": bucket, "Key": found.location})
    moved = s3_env.rsplit("/", 1)[0] + "/moved"
    with pytest.raises(InvalidArgument, match="keeps its blobs at"):
        ScratchStore(tmp_path / "a", index=index, blobs=moved)
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{pg_schema}".store')
    with ScratchStore(tmp_path / "a", index=index, blobs=moved) as store:
        assert read_all(store, handles) == expected
    assert pairing_row(postgres_dsn, pg_schema)[0][1] == moved


@pytest.mark.parametrize("blob", ["../../etc/passwd", "s3://elsewhere/x.zst", "d7ee0a1b2c3d4e5f:nazh:x:332"])
def test_a_row_naming_no_blob_of_a_local_store_reads_as_missing(index, tmp_path, postgres_dsn, pg_schema, blob):
    from scratchfs.api.inspector import fsck

    with ScratchStore(tmp_path / "a", index=index, orphan_grace=0) as store:
        scope = store.scope("run-1", "agent-1")
        scope.scratch_write("plan", b"the plan")
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f'UPDATE "{pg_schema}".entries SET blob = %s WHERE key = %s', (blob, "plan"))
        with pytest.raises(NotFound):
            scope.scratch_read("plan")
        assert [p.kind for p in fsck(store).problems if p.kind == "missing"] == ["missing"]
        result = store.sweep()
        assert result.missing_files == 1
        assert store.list_entries() == []


def test_a_fleet_host_keeps_no_reserve_file_under_its_root(index, s3_env, tmp_path):
    """The reserve is room for the SQLite index's write-ahead log on a full disk: a PostgreSQL index needs none
    (newuser5: every fleet host wrote 256 KiB of zeros under ~/.cache/scratchfs)."""
    with ScratchStore(tmp_path / "fleet", index=index, blobs=s3_env) as store:
        store.scope("run-1", "agent-1").spill(b"x\n" * 10_000)
        store.delete_run("run-1")
        store.sweep()
    assert not (tmp_path / "fleet" / "reserve").exists()
    with ScratchStore(tmp_path / "local") as store:
        pass
    assert (tmp_path / "local" / "reserve").stat().st_size == 256 * 1024


def test_a_local_index_is_refused_over_files_a_postgres_index_keeps(index, tmp_path, postgres_dsn, pg_schema):
    """newuser7: a host started without $SCRATCHFS_INDEX over a root whose files a PostgreSQL index keeps was told to
    rebuild a local index from them (scratchfs fsck --rebuild-index), which worked; a sweep of that local index then
    removed the fleet's entry as an orphan ("orphans_removed": 1) and the fleet's handle read as not found. The root's
    store-id marker now refuses every local opening -- store, sweep, rebuild -- naming the marker and the fix."""
    root = tmp_path / "shared"
    with ScratchStore(root, index=index) as store:
        handles = spill_three(store)
        expected = read_all(store, handles)
    with pytest.raises(InvalidArgument, match=r"belong to a PostgreSQL index \(their store-id marker names store"):
        ScratchStore(root)
    for args in (["sweep"], ["fsck", "--rebuild-index"], ["ls"]):
        result = CliRunner().invoke(main, [*args, "--root", str(root)], env={"SCRATCHFS_INDEX": None})
        assert result.exit_code == 2, (args, result.output)
        assert "belong to a PostgreSQL index" in result.output and "Traceback" not in result.output
    assert not (root / "index.sqlite").exists() or (root / "index.sqlite").stat().st_size == 0
    with ScratchStore(root, index=index) as store:  # every entry still there, read through its own index
        assert read_all(store, handles) == expected


def test_a_postgres_index_does_not_take_a_local_stores_files_unless_told_to_move_them(index, tmp_path, postgres_dsn,
                                                                                     pg_schema):
    """The other way round: an empty PostgreSQL index opened over a local store's root paired with its files, and
    each index's sweep then deleted the other's blobs as orphans. It is refused, naming the move; the move
    (fsck --rebuild-index with the PostgreSQL index) takes every entry, large and small (segments), and the local
    index is refused after it."""
    root = tmp_path / "local"
    with ScratchStore(root) as store:
        handles = spill_three(store)
        scope = store.scope("run-1", "agent-1")
        small = scope.spill(b"small entry\n" * 900).handle  # ~10 KiB: a segment record
        handles.append(small)
        expected = read_all(store, handles)
    with pytest.raises(InvalidArgument, match="already hold a local store's blobs"):
        ScratchStore(root, index=index)
    assert pairing_row(postgres_dsn, pg_schema) == [] and not (root / "store-id").exists()
    result = CliRunner().invoke(main, ["fsck", "--rebuild-index", "--root", str(root)], env={"SCRATCHFS_INDEX": index})
    assert result.exit_code == 0, result.output
    with ScratchStore(root, index=index) as store:
        assert read_all(store, handles) == expected
    with pytest.raises(InvalidArgument, match="belong to a PostgreSQL index"):
        ScratchStore(root)
