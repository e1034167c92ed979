"""Stores written by earlier versions of scratchfs open and keep what they hold.

``fixtures/store-407dd2b/`` was written by the first scratchfs (commit 407dd2b; ``fixtures/make_store_407dd2b.py``
says how): its index has no application id and no ``gone`` table, and its blobs no binding frame."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scratchfs import ScratchStore, StorageError, StoreBusy
from scratchfs.api.inspector import stats_in_sql
from scratchfs.engine.sqlite_connections import APPLICATION_ID
from scratchfs.foundation.errors import CorruptBlob
from tests.services import postgres_url

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CREATED = 1796050800.0  # the clock of every write of fixtures/make_store_407dd2b.py


@pytest.fixture
def old_root(tmp_path):
    root = tmp_path / "store"
    shutil.copytree(FIXTURES / "store-407dd2b", root)
    for path in (root / "runs").rglob("*"):  # as the store made them (a checkout gives 0755 and 0644, which fsck
        path.chmod(0o700 if path.is_dir() else 0o600)  # reports as open to other users)
    return root


def test_the_index_of_the_first_scratchfs_is_migrated_in_place(old_root):
    """Before: 'not a scratchfs index (application id 0x0, user version 1, tables entries)'."""
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        rows = {(r.run_id, r.agent_id): r for r in stats_in_sql(store, store.now())}
        assert (rows[("run-1", "agent-1")].entries, rows[("run-1", "agent-1")].handles) == (3, 2)
        assert rows[("run-1", "agent-2")].bytes_in == len(b"1. read the grep\n2. sum the csv\n")
        assert (rows[("run-2", "agent-1")].entries, rows[("run-2", "agent-1")].expired) == (0, 1)
        assert sorted(e.key for e in store.scope("run-1", "agent-1").scratch_list()) == ["notes/ec2"]


def test_opening_an_old_store_says_once_that_its_index_was_migrated(old_root, tmp_path):
    """A plain ``scratchfs fsck`` (or any command) migrated the first scratchfs's index without a word, after which
    that scratchfs could no longer open the store. The command that migrates it says so in one stderr line; the
    next says nothing; a new store is no migration."""
    def fsck(root):
        return subprocess.run([sys.executable, "-m", "scratchfs", "--root", str(root), "fsck", "--quick"],
                              capture_output=True, text=True, timeout=60)

    first, second = fsck(old_root), fsck(old_root)
    assert first.stderr.startswith("scratchfs: note: the index was made by an earlier scratchfs (schema version 1) "
                                   "and was migrated in place"), first.stderr
    assert "migrated" not in second.stderr and first.stdout == second.stdout
    with ScratchStore(tmp_path / "new") as store:
        assert store.migrated_from is None


GREP = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[:6000]
CSV = (FIXTURES / "query-packages-by-month.csv").read_bytes()[:20000]
EXPECTED = {  # (run, agent, kind, source tool or key) -> content, as fixtures/make_store_407dd2b.py wrote them
    ("run-1", "agent-1", "handle", "grep"): GREP[: GREP.rindex(b"\n") + 1],
    ("run-1", "agent-1", "handle", "sqlite3"): CSV[: CSV.rindex(b"\n") + 1],
    ("run-1", "agent-1", "scratch", "notes/ec2"): (FIXTURES / "api-ec2-service-model.json").read_bytes()[:3000],
    ("run-1", "agent-2", "scratch", "plan"): b"1. read the grep\n2. sum the csv\n",
}
UNBOUND_HINT = "written before the binding frame; `scratchfs fsck --repair` binds it"


def live_contents(store: ScratchStore) -> dict[tuple[str, str, str, str], bytes]:
    """Every live entry's content, read through the model-facing verbs, keyed as :data:`EXPECTED`."""
    out = {}
    for e in store.list_entries():
        scope = store.scope(e.run_id, e.agent_id)
        if e.kind == "handle":
            data, offset = b"", 0
            while offset is not None:
                piece = scope.read_range(e.key, offset, 4096)
                data, offset = data + piece.data, piece.next_offset
            out[(e.run_id, e.agent_id, e.kind, e.source_tool)] = data
        else:
            out[(e.run_id, e.agent_id, e.kind, e.key)] = scope.scratch_read(e.key)
    return out


def blob_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "runs").rglob("*.zst"))}


def test_fsck_repair_binds_the_blobs_of_the_first_scratchfs_and_every_entry_reads_back(old_root):
    """Before: every read was 'corrupt: ...: the blob carries no binding frame (not written by this version of
    scratchfs)', fsck found 4 corrupt entries, and fsck --repair removed them with their rows (data loss)."""
    from scratchfs.api.inspector import fsck

    before = blob_files(old_root)
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        with pytest.raises(CorruptBlob, match="written before the binding frame"):
            store.scope("run-1", "agent-2").scratch_read("plan")
        report = fsck(store)
        assert [(p.kind, p.key) for p in report.problems] == [("corrupt", e.key) for e in store.list_entries()]
        assert all(p.detail.endswith(UNBOUND_HINT) for p in report.problems)
        assert not report.clean and blob_files(old_root) == before  # a check changes nothing
        assert report.bytes_checked == sum(map(len, EXPECTED.values()))  # every frame verified all the same
        repaired = fsck(store, repair=True)
        assert (repaired.counts()["corrupt"], repaired.counts()["repaired"], repaired.clean) == (4, 4, True)
        assert all("bound" in p.detail for p in repaired.problems)
        assert live_contents(store) == EXPECTED
        again = fsck(store)
        assert (again.problems, again.clean, again.entries_checked) == ([], True, 4)
        assert again.bytes_checked == sum(map(len, EXPECTED.values()))
    after = blob_files(old_root)
    expired = "runs/run-2/agent-1/jaqgyvxhattyfp6qgbft5uz7.zst"
    assert after[expired] == before[expired]  # expired: the sweeper's, not bound
    for name, data in after.items():
        assert (old_root / name).stat().st_mode & 0o777 == 0o600  # (the expired one as the fixture left it)
        if name != expired:  # the old content frames, byte for byte, then the binding frame and a new seek table
            old = before[name]
            assert data.startswith(old[: len(old) - int.from_bytes(old[-9:-5], "little") * 12 - 17])
            assert len(data) > len(old)
    assert not [p for p in (old_root / "runs").rglob("*") if p.is_file() and not p.name.endswith(".zst")]
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:  # a new process reads them too
        assert live_contents(store) == EXPECTED
        swept = store.sweep()  # the expired run-2 entry, with its file
        assert (swept.rows_deleted, swept.files_deleted, swept.orphans_removed) == (1, 1, 0)
        assert not (old_root / expired).exists()
        assert [r.run_id for r in stats_in_sql(store, store.now())] == ["run-1", "run-1"]
        assert live_contents(store) == EXPECTED


def test_an_unbound_blob_whose_content_was_tampered_is_not_bound(old_root):
    """A byte flipped in a content frame of an unbound blob: fsck says the frame fails its check (not that a repair
    binds it), and no binding is ever written from its row -- not by a quick repair either, which decompresses no
    frame but whose bind checks every one; a deep repair removes it as any corrupt blob."""
    from scratchfs.api.inspector import fsck
    from scratchfs.api.old_blobs import bind_entry
    from scratchfs.engine.binding import UNBOUND

    victim = old_root / "runs/run-1/agent-1/zoshrmni7uaao7wvzpvhgabf.zst"  # the CSV, 5 frames
    raw = bytearray(victim.read_bytes())
    raw[2000] ^= 0x40
    victim.write_bytes(bytes(raw))
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        entry = next(e for e in store.list_entries() if e.source_tool == "sqlite3")
        report = fsck(store)
        (tampered,) = [p for p in report.problems if p.key == entry.key]
        assert (tampered.kind, tampered.detail) == ("corrupt", "frame 1 does not decompress: decompression error: "
                                                            "Data corruption detected")
        with pytest.raises(CorruptBlob, match=r"^frame 1 does not decompress"):
            bind_entry(store, entry)
        assert victim.read_bytes() == bytes(raw)
        quick = fsck(store, deep=False, repair=True)  # no frame decompressed: the hint, but the bind checks them
        assert [(p.key, p.repaired) for p in quick.problems] == [(p.key, p.key != entry.key) for p in report.problems]
        (kept,) = [p for p in quick.problems if p.key == entry.key]
        assert kept.detail == f"{UNBOUND}; not bound: {tampered.detail}"
        assert victim.read_bytes() == bytes(raw) and not quick.clean
        repaired = fsck(store, repair=True)  # a deep repair: corrupt as any other, removed with its row
        assert [(p.kind, p.key, p.detail, p.repaired) for p in repaired.problems] == [
            ("corrupt", entry.key, tampered.detail, True)]
        assert not victim.exists() and repaired.clean
        assert live_contents(store) == {k: v for k, v in EXPECTED.items() if k[3] != "sqlite3"}


def test_a_rebuild_says_why_it_skips_each_blob(old_root):
    """Before: `fsck --rebuild-index` printed '5 blob files skipped' and nothing else."""
    import json

    from click.testing import CliRunner

    from scratchfs.api.inspector import fsck
    from scratchfs.api.rebuild import open_for_rebuild
    from scratchfs.cli import main

    lost = old_root.parent / "lost"
    shutil.copytree(old_root, lost)
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (lost / name).unlink(missing_ok=True)
    result = CliRunner().invoke(main, ["fsck", "--root", str(lost), "--rebuild-index", "--json"])
    rebuilt = json.loads(result.stdout)["rebuilt"]
    assert (rebuilt["restored"], rebuilt["reasons"]) == (0, {"unbound": 5})
    assert all("no binding frame" in why and "fsck --repair" in why for _, why in rebuilt["skipped"])
    table = CliRunner().invoke(main, ["fsck", "--root", str(lost), "--rebuild-index"]).stdout
    assert "5 blob files skipped" in table and "5 with no binding frame" in table

    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        assert fsck(store, repair=True).clean
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (old_root / name).unlink(missing_ok=True)
    with open_for_rebuild(old_root, clock=lambda: CREATED + 3600) as store:
        report = fsck(store, rebuild_index=True)
        assert (report.rebuilt.restored, report.rebuilt.reasons) == (4, {"unbound": 1})
        assert [(p.kind, Path(p.path).name) for p in report.problems] == [("orphaned", "jaqgyvxhattyfp6qgbft5uz7.zst")]
        assert live_contents(store) == EXPECTED  # the rows restored from the bindings the repair wrote
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (old_root / name).unlink(missing_ok=True)
    with open_for_rebuild(old_root, clock=lambda: CREATED + 31 * 86400) as store:
        assert fsck(store, rebuild_index=True).rebuilt.reasons == {"expired": 4, "unbound": 1}


def test_a_bind_interrupted_before_its_row_is_finished_by_the_next_repair(old_root):
    """A repair killed between the rename and the row update leaves a bound file whose row gives the old size: fsck
    tells it apart from a damaged blob (which a repair would remove) and the next repair updates the row. A row
    that no longer names the blob when the file is to be replaced leaves everything as it was."""
    from contextlib import nullcontext

    from scratchfs.api.inspector import fsck
    from scratchfs.engine.binding import BOUND_STALE
    from scratchfs.engine.rebind import bind_file

    class Killed(Exception):
        pass

    def killed(size: int) -> None:
        raise Killed(size)

    plan = old_root / "runs/run-1/agent-2/ogqvycjdztfsbbl65pukb262.zst"
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        entry = next(e for e in store.list_entries() if e.key == "plan")
        before = plan.read_bytes()
        assert bind_file(store.blobs, entry, nullcontext, lambda: False, killed) is False  # overwritten meanwhile
        assert plan.read_bytes() == before and sorted(p.name for p in plan.parent.iterdir()) == [plan.name]
        with pytest.raises(Killed):
            bind_file(store.blobs, entry, nullcontext, lambda: True, killed)
        assert plan.stat().st_size > entry.stored_size == len(before)  # bound; the row still says the old size
        assert store.scope("run-1", "agent-2").scratch_read("plan") == EXPECTED[("run-1", "agent-2", "scratch", "plan")]
        (stale,) = [p for p in fsck(store).problems if p.key == "plan"]
        assert (stale.kind, stale.detail) == ("corrupt", BOUND_STALE)
        repaired = fsck(store, repair=True)
        assert repaired.clean and [p.repaired for p in repaired.problems] == [True] * 4
        assert next(e for e in store.list_entries() if e.key == "plan").stored_size == plan.stat().st_size
        assert fsck(store).problems == []
        assert live_contents(store) == EXPECTED


def test_an_unbound_object_in_s3_is_kept_by_a_repair(tmp_path, s3_env, postgres_dsn, pg_schema):
    """Objects are never bound (no store of 407dd2b used S3): a repair reports the object as not bound and keeps it
    with its row, where before this it removed both."""
    from scratchfs.api.inspector import fsck
    from scratchfs.engine.seekable import encode_seek_table, read_seek_table

    content = EXPECTED[("run-1", "agent-1", "handle", "grep")]
    fleet = {"index": postgres_url(postgres_dsn, pg_schema), "blobs": s3_env}
    with ScratchStore(tmp_path, **fleet, clock=lambda: CREATED) as store:
        handle = store.scope("r", "a").spill(content, source_tool="grep").handle
        entry = store.list_entries()[0]
        client, key = store.blobs.client(), store.blobs.key("r", "a", entry.blob)
        raw = client.get_object(Bucket=store.blobs.bucket, Key=key)["Body"].read()
        source = store.blobs.open_source("r", "a", entry.blob)
        table = read_seek_table(source, source.size)
        source.close()
        c, d = table.c_offsets, table.d_offsets  # the same frames, the seek table of the first scratchfs
        old = raw[: c[-1]] + encode_seek_table([c[i + 1] - c[i] for i in range(table.frames)],
                                               [d[i + 1] - d[i] for i in range(table.frames)], list(table.checksums))
        client.put_object(Bucket=store.blobs.bucket, Key=key, Body=old)
        row, lines = store.index.lookup_with_lines("r", "a", "handle", handle, CREATED)
        store.index.put(row._replace(stored_size=len(old)), lines, lambda: True)
    with ScratchStore(tmp_path, **fleet, clock=lambda: CREATED) as store:
        with pytest.raises(CorruptBlob, match="written before the binding frame"):
            store.scope("r", "a").read_range(handle, 0, 10)
        report = fsck(store, repair=True)
        assert [(p.kind, p.repaired) for p in report.problems] == [("corrupt", False)]
        assert report.problems[0].detail.endswith("; not bound: only a blob file of a local store is bound (not a "
                                                  "segment entry, not an object)")
        assert [e.blob for e in store.list_entries()] == [entry.blob]
        assert client.get_object(Bucket=store.blobs.bucket, Key=key)["Body"].read() == old


def _entries_sql() -> tuple[str, list[str]]:
    """The ``CREATE TABLE entries`` of the first scratchfs, as its index holds it, and its columns (the fixture is
    opened immutable: no -wal or -shm file is made beside it)."""
    conn = sqlite3.connect(f"file:{FIXTURES / 'store-407dd2b' / 'index.sqlite'}?immutable=1", uri=True)
    try:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'entries'").fetchone()[0]
        return sql, [row[1] for row in conn.execute("PRAGMA table_info(entries)")]
    finally:
        conn.close()


def _odd_index(path: Path, schema: str, version: int, app_id: int = 0) -> bytes:
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.commit()
    conn.close()
    return path.read_bytes()


_V1 = "{entries}"
ODD_INDEXES = {
    "a view named entries, version 0": ("CREATE VIEW entries AS SELECT 1 AS id", 0, 0),
    "a lone view, version 0": ("CREATE VIEW totals AS SELECT 42 AS n", 0, 0),
    "entries of the same names, no types": ("CREATE TABLE entries ({columns})", 1, 0),
    "entries whose id is text": ("{entries_text_id}", 2, 0),
    "entries with a column more that must be set": ("{entries_extra}", 1, 0),
    "entries without rowid": ("{entries} WITHOUT ROWID", 3, 0),
    "a trigger that empties entries": (_V1 + "; CREATE TRIGGER wipe AFTER INSERT ON entries BEGIN "
                                       "DELETE FROM entries; END", 1, 0),
    "gone of other columns": (_V1 + "; CREATE TABLE gone (x)", 1, 0),
    "deleted_scopes of other columns": (_V1 + "; CREATE TABLE deleted_scopes (x)", 2, 0),
    "entries_scope_key on other columns": (_V1 + "; CREATE INDEX entries_scope_key ON entries (kind)", 1, 0),
    "our application id on a foreign entries": ("CREATE TABLE entries (x)", 2, APPLICATION_ID),
    "our application id at version 0, not empty": ("CREATE TABLE entries (x)", 0, APPLICATION_ID),
}


@pytest.mark.parametrize("case", ODD_INDEXES, ids=list(ODD_INDEXES))
def test_an_odd_sqlite_file_is_refused_with_one_typed_error_and_left_as_it_was(tmp_path, case):
    """Before: these were migrated as old scratchfs indexes (the names of entries' columns were all that was
    checked, at application id 0 only; and a file of views or triggers only counted as empty): a view named entries
    raised AttributeError from sqlite-utils, the trigger emptied every spill as it was written, the others opened and
    failed every write or the migration, each after their file was put in WAL mode."""
    schema, version, app_id = ODD_INDEXES[case]
    entries, columns = _entries_sql()
    schema = schema.format(
        entries=entries, columns=", ".join(columns),
        entries_text_id=entries.replace('"id" INTEGER PRIMARY KEY', '"id" TEXT PRIMARY KEY'),
        entries_extra=entries.replace('"frame_newlines" BLOB', '"frame_newlines" BLOB, "owner" TEXT NOT NULL'))
    index = tmp_path / "index.sqlite"
    before = _odd_index(index, schema, version, app_id)
    with pytest.raises(StorageError, match="not a scratchfs index"):
        ScratchStore(tmp_path)
    assert index.read_bytes() == before


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_old_index_with_tables_of_its_user_is_migrated_and_keeps_them(old_root, version):
    conn = sqlite3.connect(old_root / "index.sqlite")
    conn.executescript("CREATE TABLE mine (a, b); INSERT INTO mine VALUES (1, 'kept');"
                       "CREATE VIEW live AS SELECT key FROM entries; "
                       "CREATE TRIGGER count_mine AFTER INSERT ON mine BEGIN SELECT 1; END")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        scope = store.scope("run-1", "agent-2")
        assert [(e.key, e.size) for e in scope.scratch_list()] == [("plan", 32)]
        scope.scratch_write("plan", b"v2")
        assert scope.scratch_read("plan") == b"v2"
    conn = sqlite3.connect(old_root / "index.sqlite")
    assert conn.execute("SELECT * FROM mine").fetchall() == [(1, "kept")]
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


def test_an_old_index_busy_in_another_program_is_store_busy_and_migrated_once_free(old_root):
    """Another program (the old scratchfs itself) reading the old index in rollback-journal mode keeps it from
    switching to WAL. Before: 'cannot take the schema lock ...' as a StorageError, though the lock was taken and the
    index was busy: StoreBusy (retry) was retyped on its way out."""
    index = old_root / "index.sqlite"
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    reader = sqlite3.connect(index, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM entries").fetchone() == (5,)
    before = index.read_bytes()
    with pytest.raises(StoreBusy, match="busy"):
        ScratchStore(old_root, busy_timeout=0.2)
    assert index.read_bytes() == before
    reader.execute("COMMIT")
    reader.close()
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        assert len(store.list_entries()) == 4


_OPEN_AND_WRITE = """
import sys
from scratchfs import ScratchStore
with ScratchStore(sys.argv[1], clock=lambda: 1796050800.0 + 3600) as store:
    keys = sorted(e.key for e in store.scope("run-1", "agent-1").scratch_list())
    store.scope("run-1", "writer-" + sys.argv[2]).scratch_write("k", sys.argv[2].encode())
    print(",".join(keys))
"""


def test_processes_opening_an_old_store_at_once_all_find_it_migrated_whole(old_root):
    """Six processes start on the old store together: one migrates it under the schema lock, the others wait for
    it and find the index migrated (none sees a half-made schema: each reads and writes)."""
    env = {**os.environ, "PYTHONPATH": str(FIXTURES.parent)}
    procs = [subprocess.Popen([sys.executable, "-c", _OPEN_AND_WRITE, str(old_root), str(n)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for n in range(6)]
    results = [(p.communicate(timeout=120), p.returncode) for p in procs]
    assert [(out, code) for (out, _err), code in results] == [(b"notes/ec2\n", 0)] * 6, results
    with ScratchStore(old_root, clock=lambda: CREATED + 3600) as store:
        assert [store.scope("run-1", f"writer-{n}").scratch_read("k") for n in range(6)] == [
            str(n).encode() for n in range(6)]
        assert len(store.list_entries()) == 4 + 6
