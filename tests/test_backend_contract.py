"""Behaviours every storage combination shares (SQLite + files, PostgreSQL + files, PostgreSQL + S3: the module is
one of conftest's ``CONTRACT_MODULES``, so every test here runs on each): what a model or a program sees must not
depend on where the store keeps its rows and blobs -- the same error types, the same replies, the same counts."""

from __future__ import annotations

import pytest

from scratchfs import Expired, NotFound


def test_an_entry_reported_expired_stays_gone_when_the_clock_steps_back(scratch_store_factory, scratch_clock):
    """A read that reports an entry Expired removes its row, on every backend: PostgreSQL used to leave it to the
    sweep, so a clock stepping back (the store's, or the database server's) made a handle and a scratchpad value
    that a read had reported expired readable again -- and listed -- where the local store said NotFound."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    handle = scope.spill(b"w" * 20_000, source_tool="t", ttl=10).handle
    scope.scratch_write("k", b"value", ttl=10)
    scratch_clock.advance(11)
    with pytest.raises(Expired):
        scope.read_handle(handle, 0, 10)
    with pytest.raises(Expired):
        scope.scratch_read("k")
    scratch_clock.advance(-31)  # back before the expiry
    with pytest.raises(NotFound):
        scope.read_handle(handle, 0, 10)
    with pytest.raises(NotFound):
        scope.scratch_read("k")
    assert scope.scratch_list() == [] and store.list_entries_for_run("run") == []
    assert store.sweep(full=True).rows_deleted == 0  # nothing left for the sweep: the reads removed both
