"""One index owns a blob location (scratchfs.engine.pairing), on real PostgreSQL and S3 servers.

A platform engineer's trial: with schema A live over an S3 prefix, ``fsck --rebuild-index`` into a new schema B
took the prefix's store id, so the pairing check never fired, and A's sweep (``orphan_grace=1``) deleted a spill
written in B as an orphan. Now the rebuild takes the prefix over (a store id of its own in the marker), and A is
refused at its opening and by its sweep, which checks ownership again right before it deletes. Also: blobs that
lost their contents are named as lost (with the recovery command, which is tested), and rebuilt rows keep their
creation time and expiry.
"""

from __future__ import annotations

import json
import time

import boto3
import psycopg
import pytest
from click.testing import CliRunner

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.cli import main
from scratchfs.engine.s3_blobs import parse_s3_url
from tests.services import postgres_url


def _spill(store: ScratchStore, text: str, n: int = 3) -> list[str]:
    scope = store.scope("run-1", "agent-1")
    return [scope.spill(f"{text} {i}\n".encode() * 3000).handle for i in range(n)]


def _read(store: ScratchStore, handle: str) -> bytes:
    return b"".join(store.scope("run-1", "agent-1").iter_content("handle", handle))


def _rebuild(index: str, blobs: str | None, root) -> dict:
    env = {"SCRATCHFS_INDEX": index, "SCRATCHFS_BLOBS": blobs}  # (None: unset, as CliRunner takes it)
    done = CliRunner().invoke(main, ["fsck", "--rebuild-index", "--json", "--root", str(root)], env=env)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _marker(s3_url: str) -> tuple[str, dict]:
    bucket, prefix = parse_s3_url(s3_url)
    got = boto3.client("s3").get_object(Bucket=bucket, Key=f"{prefix}/store-id")
    return got["Body"].read().decode().strip(), got["Metadata"]


@pytest.mark.parametrize("grace", [0, 1])
def test_a_rebuild_into_a_new_schema_fences_the_old_one_and_its_sweep_deletes_nothing(grace, postgres_dsn,
                                                                                     pg_schema, s3_env, tmp_path):
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    a = ScratchStore(tmp_path / "a", index=old, blobs=s3_env, orphan_grace=grace)  # schema A: live throughout
    try:
        kept = _spill(a, "written in A")
        report = _rebuild(new, s3_env, tmp_path / "rebuild")
        assert report["rebuilt"]["restored"] == len(kept)
        with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
            (fresh,) = _spill(b, "written in B", 1)
            expected = _read(b, fresh)
        time.sleep(grace + 1.1)  # B's object is older than A's grace
        try:
            a.sweep(full=True)
            refused = None
        except InvalidArgument as exc:
            refused = exc
    finally:
        a.close()
    with ScratchStore(tmp_path / "b2", index=new, blobs=s3_env) as b:
        assert _read(b, fresh) == expected  # B's spill survived A's sweep (before the fix: NotFound)
        assert [_read(b, h)[:12] for h in kept] == [b"written in A"] * 3
    assert refused is not None, "the sweep of the index that lost the prefix ran"
    message = str(refused)
    assert f"schema {pg_schema}_b of database" in message and f"schema {pg_schema})" in message, message
    assert "no longer owns them" in message
    store_id, meta = _marker(s3_env)
    assert meta["scratchfs-owner"].startswith(f"schema {pg_schema}_b of database ")
    with pytest.raises(InvalidArgument, match="belong to another index now"):
        ScratchStore(tmp_path / "a", index=old, blobs=s3_env)
    swept = CliRunner().invoke(main, ["sweep", "--root", str(tmp_path / "c")],
                               env={"SCRATCHFS_INDEX": old, "SCRATCHFS_BLOBS": s3_env})
    assert swept.exit_code == 2, swept.output
    assert "no longer owns them" in swept.output and "Traceback" not in swept.output
    assert len(swept.output.strip().splitlines()) == 1, swept.output
    assert _marker(s3_env)[0] == store_id


def test_a_takeover_between_the_sweeps_listing_and_its_deletes_is_seen_before_deleting(postgres_dsn, pg_schema,
                                                                                      s3_env, tmp_path):
    """The check runs right before the deletes: A lists an orphan of its own (a row the platform deleted), B is
    rebuilt meanwhile and restores that entry, and A's sweep, which listed it, deletes nothing."""
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env, orphan_grace=0) as a:
        (orphan,) = _spill(a, "an orphan of A", 1)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(f'DELETE FROM "{pg_schema}".entries')
        listing = a.blobs.list_objects

        def list_then_take_over():
            found = listing()
            _rebuild(new, s3_env, tmp_path / "rebuild")  # restores the orphan's row in B, takes the prefix over
            return found

        a.blobs.list_objects = list_then_take_over
        with pytest.raises(InvalidArgument, match="no longer owns them"):
            a.sweep(full=True)
    with ScratchStore(tmp_path / "b", index=new, blobs=s3_env) as b:
        assert _read(b, orphan)[:14] == b"an orphan of A"


def test_an_old_marker_of_the_id_alone_keeps_working_and_is_upgraded_in_place(postgres_dsn, pg_schema, s3_env,
                                                                             tmp_path):
    index = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        handles = _spill(store, "entry")
    store_id = _marker(s3_env)[0]
    bucket, prefix = parse_s3_url(s3_env)
    boto3.client("s3").put_object(Bucket=bucket, Key=f"{prefix}/store-id", Body=f"{store_id}\n".encode())
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        assert _read(store, handles[0])[:5] == b"entry"
        assert store.sweep().orphans_removed == 0
    assert _marker(s3_env)[0] == store_id
    assert _marker(s3_env)[1]["scratchfs-owner"].startswith(f"schema {pg_schema} of database ")


def test_a_rebuild_over_local_files_fences_the_old_schema_and_its_sweep(postgres_dsn, pg_schema, tmp_path):
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    a = ScratchStore(tmp_path / "a", index=old, orphan_grace=0)  # live throughout
    try:
        handles = _spill(a, "entry")
        assert _rebuild(new, None, tmp_path / "a")["rebuilt"]["restored"] == len(handles)
        with ScratchStore(tmp_path / "a", index=new) as b:
            fresh = [b.scope("run-2", "agent-2").spill(b"written in B\n" * n).handle for n in (5, 50_000)]
        time.sleep(1.1)
        with pytest.raises(InvalidArgument, match="no longer owns them"):
            a.sweep(full=True)
    finally:
        a.close()
    with pytest.raises(InvalidArgument, match="no longer owns them") as refused:
        ScratchStore(tmp_path / "a", index=old, orphan_grace=0)
    assert f"schema {pg_schema}_b of database" in str(refused.value)  # (a file marker names none: looked up)
    with ScratchStore(tmp_path / "a", index=new) as store:
        assert _read(store, handles[0])[:5] == b"entry"
        assert [b"".join(store.scope("run-2", "agent-2").iter_content("handle", h))[:12] for h in fresh] == [
            b"written in B"] * 2


def test_lost_bucket_contents_are_named_and_fsck_lost_blobs_repair_recovers(postgres_dsn, pg_schema, s3_env,
                                                                            tmp_path):
    """moto restarted (or the bucket emptied): every command said "none of this index's newest entries has its blob
    in s3://x: its blobs are at s3://x", and only truncating the tables recovered."""
    index = postgres_url(postgres_dsn, pg_schema)
    env = {"SCRATCHFS_INDEX": index, "SCRATCHFS_BLOBS": s3_env}
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        _spill(store, "entry")
    bucket = parse_s3_url(s3_env)[0]
    s3 = boto3.client("s3")
    for obj in s3.list_objects_v2(Bucket=bucket)["Contents"]:
        s3.delete_object(Bucket=bucket, Key=obj["Key"])
    listed = CliRunner().invoke(main, ["ls", "--root", str(tmp_path / "a"), "--run", "run-1"], env=env)
    assert listed.exit_code == 2, listed.output
    text = " ".join(listed.output.split())
    assert f"the blobs at {s3_env} lost this index's entries" in text and "holds 3 rows" in text, text
    assert "fsck --lost-blobs --repair" in text and "its blobs are at" not in text, text
    assert f"pairs the index with {s3_env} again" in text, text  # (newuser26: it said "with the s3://... again")
    usage = CliRunner().invoke(main, ["fsck", "--lost-blobs", "--root", str(tmp_path / "a")], env=env)
    assert usage.exit_code == 2 and "--lost-blobs goes with --repair" in usage.output, usage.output
    done = CliRunner().invoke(main, ["fsck", "--lost-blobs", "--repair", "--json", "--root", str(tmp_path / "a")],
                              env=env)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert sorted(p["kind"] for p in report["problems"]) == ["missing"] * 3
    assert all(p["repaired"] for p in report["problems"])
    with ScratchStore(tmp_path / "a", index=index, blobs=s3_env) as store:
        assert store.list_entries() == []
        (handle,) = _spill(store, "after", 1)
        assert _read(store, handle)[:5] == b"after"
    assert _marker(s3_env)[1]["scratchfs-owner"].startswith(f"schema {pg_schema} of database ")


def test_lost_blobs_does_not_lift_another_indexs_marker(postgres_dsn, pg_schema, s3_env, tmp_path):
    with ScratchStore(tmp_path / "a", index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env) as store:
        _spill(store, "entry")
    other = postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "b", index=other, blobs=s3_env + "-b") as store:
        _spill(store, "entry")
    done = CliRunner().invoke(main, ["fsck", "--lost-blobs", "--repair", "--root", str(tmp_path / "b")],
                              env={"SCRATCHFS_INDEX": other, "SCRATCHFS_BLOBS": s3_env})
    assert done.exit_code == 2 and "keeps its blobs at" in done.output, done.output


@pytest.mark.parametrize("blobs", ["s3", "files"])
def test_rebuilt_rows_keep_their_creation_time_and_expiry(blobs, postgres_dsn, pg_schema, request, tmp_path):
    index = postgres_url(postgres_dsn, pg_schema)
    url = request.getfixturevalue("s3_env") if blobs == "s3" else None
    with ScratchStore(tmp_path / "a", index=index, blobs=url, default_ttl=3600) as store:
        _spill(store, "entry")
        store.scope("run-1", "agent-1").scratch_write("notes", b"a note\n", ttl=600)
    query = f'SELECT kind, key, created_at, expires_at, ttl FROM "{pg_schema}".entries ORDER BY key'
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        before = conn.execute(query).fetchall()
        time.sleep(1.5)
        conn.execute(f'DELETE FROM "{pg_schema}".entries')
    assert _rebuild(index, url, tmp_path / "a")["rebuilt"]["restored"] == len(before) == 4
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        after = conn.execute(query).fetchall()
    assert [(*row[:2], row[4]) for row in after] == [(*row[:2], row[4]) for row in before]
    for was, now in zip(before, after, strict=True):  # the binding's time (the host's) against the row's (the server's)
        assert abs(now[2] - was[2]) < 1.0 and abs(now[3] - was[3]) < 1.0, (was, now)
        assert now[3] - now[2] == pytest.approx(was[4])
