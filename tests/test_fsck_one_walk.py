"""fsck of a local store lists ``runs/`` and each run and agent directory once (:mod:`scratchfs.engine.runs_listing`),
and each check of their names -- blob files, odd and foreign names, segment usage, loose modes -- reads that one
listing: it listed each up to five times. Its report is the same (tests/test_fsck_hints.py, test_inspector.py,
test_private_modes.py)."""

from __future__ import annotations

import collections
import os

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine.segment_sweep import segment_usage

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names a listed descriptor by /proc")


@pytest.mark.parametrize("repair", [False, True])
def test_fsck_lists_each_directory_under_runs_once(tmp_path, monkeypatch, repair):
    root = tmp_path / "root"
    with ScratchStore(root, index_write_behind=False) as store:
        for agent in range(6):
            scope = store.scope(f"run-{agent % 2}", f"agent-{agent}")
            scope.spill(b"x" * 100, source_tool="t")  # a segment's record
            scope.spill(os.urandom(80_000), source_tool="t")  # a blob file of its own
    (root / "runs" / "run-0" / "agent-0" / "notes.txt").write_text("mine")  # foreign: reported, left
    os.chmod(root / "runs" / "run-1" / "agent-1", 0o755)  # loose: reported (repaired)
    listed: collections.Counter[str] = collections.Counter()
    listdir = os.listdir

    def counted(path="."):
        listed[os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int) else os.fspath(path)] += 1
        return listdir(path)

    with ScratchStore(root) as store:
        monkeypatch.setattr(os, "listdir", counted)
        report = fsck(store, repair=repair)
        monkeypatch.undo()
    runs = str((root / "runs").resolve())
    under_runs = {path: n for path, n in listed.items() if path == runs or path.startswith(runs + "/")}
    assert len(under_runs) == 1 + 2 + 6  # runs/, two run directories, six agent directories
    assert set(under_runs.values()) == ({1, 2} if repair else {1})  # (a directory made private: listed again)
    assert [path for path, n in under_runs.items() if n == 2] == ([f"{runs}/run-1/agent-1"] if repair else [])
    assert sorted(p.detail[:40] for p in report.problems) == sorted(
        ["a file scratchfs did not write (not a bl", "a scope directory open to other users (m"])


def test_fsck_scans_each_segment_file_once(tmp_path, monkeypatch):
    """The blob walk (``blob_files``) and the segments' usage (``segment_usage``) each scanned every segment from its
    first byte (open10): the walk's scan is kept in the listing and read again by the usage."""
    root = tmp_path / "root"
    with ScratchStore(root, index_write_behind=False) as store:
        for agent in range(3):
            store.scope("run", f"agent-{agent}").spill(b"x" * 100, source_tool="t")
    with ScratchStore(root) as store:
        scanned: collections.Counter[tuple] = collections.Counter()
        scan = type(store.blobs).scan_segment

        def counted(self, parts, name):
            scanned[(*parts, name)] += 1
            return scan(self, parts, name)

        monkeypatch.setattr(type(store.blobs), "scan_segment", counted)
        report = fsck(store)
        monkeypatch.undo()
        fresh = segment_usage(store.index, store.blobs, store.blobs.walk_runs())  # (no scan kept: each made here)
    assert len(scanned) == 3 and set(scanned.values()) == {1}, scanned
    assert report.segments == fresh and fresh.segments == 3 and fresh.live_bytes > 0 and report.clean
