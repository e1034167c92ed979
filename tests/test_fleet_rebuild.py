"""``scratchfs fsck --rebuild-index`` with a PostgreSQL index: every row of the index deleted, rebuilt from the blobs
(objects in S3, or files under the root), and every entry read back byte for byte (a fleet trial found every object
skipped as ``unreadable``: the rebuild opened S3 objects by an empty key)."""

from __future__ import annotations

import json

import psycopg
import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from tests.services import postgres_url


def _fill(store, fixture_data):
    """Spill every fixture (several frames each) and write a scratchpad entry: {(run, agent, kind, key): bytes}."""
    written = {}
    for i, (_, data) in enumerate(sorted(fixture_data.items())):
        scope = store.scope(f"run-{i % 2}", f"agent-{i % 3}")
        stub = scope.spill(data, source_tool=f"fixture.{i}")
        written[(scope.run_id, scope.agent_id, "handle", stub.handle)] = data
    store.scope("run-0", "agent-0").scratch_write("notes", b"a scratchpad entry\n" * 50)
    written[("run-0", "agent-0", "scratch", "notes")] = b"a scratchpad entry\n" * 50
    return written


def _read_all(store, written):
    for (run, agent, kind, key), data in written.items():
        scope = store.scope(run, agent)
        if kind == "scratch":
            assert scope.scratch_read(key) == data
            continue
        got = b""
        while len(got) < len(data):
            part = scope.read_handle(key, offset=len(got), length=65536)
            assert part.data, (run, agent, key, len(got))
            got += part.data
        assert got == data, (run, agent, key)


@pytest.mark.parametrize("blobs", ["s3", "files"])
def test_a_postgresql_index_is_rebuilt_from_its_blobs_and_every_entry_reads_back(blobs, postgres_dsn, pg_schema,
                                                                                 request, tmp_path, fixture_data,
                                                                                 monkeypatch):
    index = postgres_url(postgres_dsn, pg_schema)
    urls = {"index": index, "blobs": request.getfixturevalue("s3_env") if blobs == "s3" else None}
    with ScratchStore(tmp_path / "host", **urls) as store:
        written = _fill(store, fixture_data)
        assert len(store.list_entries()) == len(written)
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{pg_schema}".entries')  # the index lost every row
    monkeypatch.setenv("SCRATCHFS_INDEX", index)
    if urls["blobs"]:
        monkeypatch.setenv("SCRATCHFS_BLOBS", urls["blobs"])
    else:
        monkeypatch.delenv("SCRATCHFS_BLOBS", raising=False)
    done = CliRunner().invoke(main, ["fsck", "--rebuild-index", "--json", "--root", str(tmp_path / "host")],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["rebuilt"]["skipped"] == [], report["rebuilt"]
    assert report["rebuilt"]["restored"] == len(written)
    assert report["problems"] == []
    assert (tmp_path / "host" / "index.sqlite").stat().st_size == 0  # (the root's placeholder): no SQLite index made
    reader = "other-host" if urls["blobs"] else "host"  # objects are every host's; files are under their root
    with ScratchStore(tmp_path / reader, **urls) as store:
        rows = store.list_entries()
        assert {(r.run_id, r.agent_id, r.kind, r.key) for r in rows} == set(written)
        assert {(r.kind, r.key): r.source_tool for r in rows if r.kind == "handle"} == {
            ("handle", key): f"fixture.{i}" for i, key in enumerate(k for _, _, kind, k in written if kind == "handle")}
        _read_all(store, written)
