"""An idle sweep costs what has expired (issue 13): rows without files and orphan files are reconciled a bounded
slice per sweep, going on where the last sweep stopped, so successive sweeps cover the whole store;
``sweep(full=True)`` covers it at once. The slices are made small here so a small store needs several sweeps."""

from __future__ import annotations

import os
import shutil

import pytest

from scratchfs.engine import sweeper


@pytest.fixture
def small_slices(monkeypatch):
    monkeypatch.setattr(sweeper, "SLICE_ROWS", 8)
    monkeypatch.setattr(sweeper, "SLICE_FILES", 8)


def _populate(store, agents: int = 6, per_agent: int = 8) -> list:
    store.blobs.segment_entry_bytes = 0  # a file per entry, to remove and to copy as orphans
    entries = []
    for a in range(agents):
        scope = store.scope("run", f"a{a}")
        for i in range(per_agent):
            scope.spill(f"{a}-{i}-".encode() * 500, source_tool="t")
    entries = store.list_entries()
    assert len(entries) == agents * per_agent
    return entries


def _damage(store, entries) -> tuple[list, list]:
    """Remove the files of three rows (one early, one middle, one late) and plant three orphans."""
    lost = [entries[1], entries[len(entries) // 2], entries[-1]]
    orphans = []
    for e in lost:
        os.unlink(store.blobs.path(e.run_id, e.agent_id, e.blob))
    for e in (entries[2], entries[len(entries) // 2 + 1], entries[-2]):
        src = store.blobs.path(e.run_id, e.agent_id, e.blob)
        dst = src.replace(e.blob, "a" * 24)
        shutil.copyfile(src, dst)
        orphans.append(dst)
    return lost, orphans


def test_each_sweep_checks_a_slice_and_successive_sweeps_cover_the_store(store, small_slices):
    entries = _populate(store)
    lost, orphans = _damage(store, entries)
    results = [store.sweep() for _ in range(12)]
    first = results[0]
    assert first.missing_files + first.orphans_removed < 6  # one sweep saw only a slice
    assert sum(r.missing_files for r in results) == 3
    assert sum(r.orphans_removed for r in results) == 3
    assert not any(os.path.exists(p) for p in orphans)
    assert len(store.list_entries()) == len(entries) - 3
    assert {e.blob for e in store.list_entries()}.isdisjoint({e.blob for e in lost})


def test_a_full_sweep_covers_everything_at_once(store, small_slices):
    entries = _populate(store)
    _damage(store, entries)
    result = store.sweep(full=True)
    assert (result.missing_files, result.orphans_removed) == (3, 3)
    assert store.sweep(full=True).orphans_removed == 0


def test_a_damaged_cursor_starts_over(store, small_slices):
    entries = _populate(store, agents=2, per_agent=3)
    (store.root / "locks" / "sweep.cursor").write_text("{not json")
    _damage(store, entries)
    assert sum(store.sweep().missing_files for _ in range(4)) == 3
