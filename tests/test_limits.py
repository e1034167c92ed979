"""Per-run quotas, refresh on read, and errors that say what happened to one's own entry."""

from __future__ import annotations

import logging

import pytest

from scratchfs import Deleted, Expired, NotFound, Observation, QuotaExceeded, ScratchStore


@pytest.fixture
def quota_store(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock, run_quota_entries=3, run_quota_bytes=20_000) as store:
        yield store


def test_entry_quota(quota_store, clock):
    scope = quota_store.scope("run", "a")
    for key in ("a", "b", "c"):
        scope.scratch_write(key, b"v")
    scope.scratch_write("a", b"overwriting does not add an entry")
    with pytest.raises(QuotaExceeded, match="quota of 3"):
        scope.scratch_write("d", b"v")
    with pytest.raises(QuotaExceeded):
        scope.spill(b"x" * 10)
    assert quota_store.scope("other-run", "a").spill(b"x").size == 1  # another run has its own quota
    assert scope.scratch_delete("b")
    scope.scratch_write("d", b"v")
    clock.advance(3601)  # expired entries no longer count
    scope.scratch_write("e", b"v")
    assert len(quota_store.list_entries_for_run("run")) == 1


def test_byte_quota_counts_stored_bytes(quota_store):
    import os

    scope = quota_store.scope("run", "a")
    scope.spill(os.urandom(12_000))  # incompressible: about 12 KB stored
    with pytest.raises(QuotaExceeded, match="stored bytes"):
        scope.spill(os.urandom(12_000))
    assert len(quota_store.list_entries_for_run("run")) == 1
    scope.spill(b"a" * 1_000_000)  # compresses to a few hundred bytes: fits
    files = [f for _, _, fs in os.walk(quota_store.root / "runs") for f in fs]
    assert len(files) == 2  # the refused spill left no file


def test_offload_over_quota_passes_the_result_through(quota_store, caplog):
    scope = quota_store.scope("run", "a")
    for key in ("a", "b", "c"):
        scope.scratch_write(key, b"v")
    obs = Observation("sql.query", "x" * 10_000, "query")
    with caplog.at_level(logging.ERROR, logger="scratchfs"):
        assert scope.offload(obs) is obs
    assert "QuotaExceeded" in caplog.text


def test_refresh_on_read(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock, refresh_on_read=True) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100, ttl=10).handle
        scope.scratch_write("k", b"v", ttl=10)
        for _ in range(5):
            clock.advance(8)
            assert scope.read_handle(handle, 0, 1).data == b"x"
            assert scope.scratch_read("k") == b"v"
        clock.advance(10.5)
        with pytest.raises(Expired):
            scope.read_handle(handle)
    with ScratchStore(tmp_path / "plain", clock=clock) as store:  # off by default
        scope = store.scope("r", "a")
        handle = scope.spill(b"x", ttl=10).handle
        clock.advance(8)
        scope.read_handle(handle)
        clock.advance(8)
        with pytest.raises(Expired):
            scope.read_handle(handle)


def test_errors_say_what_happened_to_ones_own_entry(store, clock):
    scope = store.scope("run", "a")
    expired = scope.spill(b"x", ttl=10).handle
    swept = scope.spill(b"x", ttl=10).handle
    deleted_with_run = scope.spill(b"x").handle
    scope.scratch_write("gone", b"v")
    scope.scratch_delete("gone")
    clock.advance(11)
    store.sweep()  # swept's row is gone now; expired's too: both remembered as expired
    with pytest.raises(Expired, match=r"expired at 2027-01-15T08:00:10Z \(epoch 1800000010\.000\)"):
        scope.read_handle(swept)
    with pytest.raises(Expired):
        scope.read_handle(expired, match="x")
    with pytest.raises(Deleted, match="was deleted at"):
        scope.scratch_read("gone")
    store.delete_run("run")
    with pytest.raises(Deleted, match="deleted with its run"):
        scope.read_handle(deleted_with_run, line=1)
    # another scope learns nothing: plain NotFound
    other = store.scope("run", "b")
    with pytest.raises(NotFound) as caught:
        other.read_handle(deleted_with_run)
    assert type(caught.value) is NotFound
    assert "no handle" in str(caught.value)
    # an hour later the tombstones are forgotten
    clock.advance(3601)
    store.sweep()
    with pytest.raises(NotFound) as caught:
        scope.read_handle(deleted_with_run)
    assert type(caught.value) is NotFound


def test_an_expired_row_not_yet_swept_says_expired(store, clock):
    scope = store.scope("run", "a")
    scope.scratch_write("k", b"v", ttl=5)
    clock.advance(5)
    with pytest.raises(Expired, match="key 'k' expired at"):
        scope.scratch_read("k")
    scope.scratch_write("k", b"again")  # a rewrite clears the past
    assert scope.scratch_read("k") == b"again"
