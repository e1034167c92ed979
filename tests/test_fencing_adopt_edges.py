"""Edges of the adoption of an old host's writes after a takeover (scratchfs.engine.takeover): fsck's view of them,
fsck --repair on local files, an orphan_grace over the tombstones' hour. Real PostgreSQL and S3 API servers."""

from __future__ import annotations

import time

import pytest

from scratchfs import ScratchStore
from scratchfs.engine import blob_file, local_blobs, s3_blobs
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild


def _long_windows(monkeypatch) -> None:
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)  # (A's writes within the window, however slow)
    monkeypatch.setattr(local_blobs, "LOCAL_CHECK_SECONDS", 3600.0)
    monkeypatch.setattr(blob_file, "LOCAL_CHECK_SECONDS", 3600.0)


def test_fsck_repair_on_local_files_adopts_an_old_hosts_segment_entries(postgres_dsn, pg_schema, tmp_path,
                                                                       monkeypatch):
    """(Pins what a review doubted: fsck --repair of a PostgreSQL index with local files adopts an old host's small
    writes after a takeover, entries of its segment, as the sweep does -- ``blob_files`` lists a segment's records.)"""
    from scratchfs.api.inspector import fsck

    _long_windows(monkeypatch)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, None, tmp_path / "a")
        small = scope.spill(b"a small one\n").handle
        scope.scratch_write("fresh", b"a new key\n")
    with ScratchStore(tmp_path / "a", index=new, orphan_grace=0) as b:
        time.sleep(1.1)
        assert fsck(b, repair=True).problems == []
        assert _read(b, small) == b"a small one\n"
        assert b.scope("run-1", "agent-1").scratch_read("fresh") == b"a new key\n"


@pytest.mark.parametrize("files", [False, True])
def test_plain_fsck_lists_an_old_hosts_writes_as_adoptable(postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch,
                                                           files):
    """fsck without --repair listed an old host's write after a takeover (which the sweep and fsck --repair adopt)
    as an orphan -- garbage the sweep removes, a problem that remains (exit 3) once older than orphan_grace. It is
    listed as adoptable now: the sweep's, no problem that remains."""
    from scratchfs.api.inspector import fsck

    _long_windows(monkeypatch)
    blobs, root_b = (None, tmp_path / "a") if files else (s3_env, tmp_path / "b")
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, blobs, root_b if files else tmp_path / "rebuild")
        late = a.scope("run-1", "agent-1").spill(b"within the window\n" * 20_000).handle
    with ScratchStore(root_b, index=new, blobs=blobs, orphan_grace=0) as b:
        time.sleep(1.1)
        report = fsck(b)
        assert [p.kind for p in report.problems] == ["adoptable"]  # (not an orphan to remove)
        assert report.problems[0].sweeps and report.clean and report.counts()["adoptable"] == 1
        assert "before a takeover" in report.problems[0].detail
        assert [p.kind for p in fsck(b, repair=True).problems] == []  # (adopted, as the sweep does)
        assert _read(b, late) == b"within the window\n" * 20_000
