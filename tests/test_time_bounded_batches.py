"""Write transactions bounded in time (issue 13): every batched job sizes its next transaction by how long the last
one took (``engine.batches.BatchSizer``), and no write transaction of a delete, a sweep, a clock-step cap or the
forgetting of tombstones changes more rows than its batch allows. Deterministic: the clocks are injected, and
transactions are measured in rows changed (``Index.txn_log``), never in wall time."""

from __future__ import annotations

import itertools

import pytest

from scratchfs.engine.batches import FAST_SECONDS, MAX_ROWS, MIN_ROWS, SLOW_SECONDS, BatchSizer, TxnLog
from scratchfs.foundation.limits import TOMBSTONE_SECONDS


def _ticking(step: float):
    """A clock that advances ``step`` seconds at every call (a batch then takes ``step`` seconds)."""
    counter = itertools.count()
    return lambda: next(counter) * step


def _fill(store, run: str, agents: int, keys: int, ttl: float | None = None) -> None:
    for a in range(agents):
        scope = store.scope(run, f"a{a}")
        for k in range(keys):
            scope.scratch_write(f"k{k}", f"{run}/{a}/{k}".encode(), ttl=ttl)


def test_the_batch_size_halves_when_slow_doubles_when_fast_and_stays_in_bounds():
    sizer = BatchSizer(128, low=8, high=512)
    sizer.took(SLOW_SECONDS * 2, 128)
    assert sizer.size == 64
    for _ in range(10):
        sizer.took(SLOW_SECONDS * 2, sizer.size)
    assert sizer.size == 8  # never below low
    sizer.took(FAST_SECONDS / 2, 8)
    assert sizer.size == 16
    sizer.took(FAST_SECONDS / 2, 3)  # a short last batch says nothing about a full one
    assert sizer.size == 16
    sizer.took((FAST_SECONDS + SLOW_SECONDS) / 2, 16)  # in between: unchanged
    assert sizer.size == 16
    for _ in range(10):
        sizer.took(0.0, sizer.size)
    assert sizer.size == 512  # never above high
    assert sizer.longest == SLOW_SECONDS * 2
    assert len(sizer.history) == 24
    assert BatchSizer(10_000).size == MAX_ROWS
    assert BatchSizer(1).size == MIN_ROWS
    with pytest.raises(ValueError, match="low <= high"):
        BatchSizer(10, low=20, high=10)


def test_a_slow_drain_shrinks_its_batches_and_a_fast_one_grows_them(store, clock):
    _fill(store, "slow", 4, 150)
    _fill(store, "fast", 4, 150)
    _fill(store, "kept", 1, 7)
    slow = BatchSizer(128, low=8, high=512, clock=_ticking(SLOW_SECONDS * 3))
    upto = store.index.hide_scope("slow", None, clock())
    deleted, longest = store.index.drain_scope("slow", None, upto, clock(), sizer=slow)
    assert deleted == 600
    rows = [r for r, _ in slow.history]
    assert rows[:5] == [128, 64, 32, 16, 8]
    assert set(rows[5:-1]) == {8}  # it stays at the bottom while each batch is slow
    assert sum(rows) == 600
    assert longest == pytest.approx(SLOW_SECONDS * 3)
    fast = BatchSizer(16, low=8, high=512, clock=_ticking(0.0))
    upto = store.index.hide_scope("fast", None, clock())
    assert store.index.drain_scope("fast", None, upto, clock(), sizer=fast)[0] == 600
    assert [r for r, _ in fast.history] == [16, 32, 64, 128, 256, 104]
    assert store.index.pending_deletes() == []
    assert len(store.list_entries()) == 7


def test_no_write_transaction_of_a_delete_or_a_sweep_exceeds_its_batch(store, clock):
    _fill(store, "big", 2, 700)  # 1,400 live rows: each deleted row leaves a tombstone (two changes)
    _fill(store, "short", 2, 700, ttl=60)
    store.index.txn_log.reset()
    assert store.delete_run("big") == 1400
    clock.advance(61)
    result = store.sweep()
    assert result.rows_deleted == 1400
    log = store.index.txn_log.summary()
    # a drain batch deletes at most MAX_ROWS rows and writes as many tombstones, plus the record of the delete
    assert log["most_rows"] <= 2 * MAX_ROWS + 1
    assert log["transactions"] >= 2 * 1400 // MAX_ROWS
    assert store.list_entries() == []
    # the tombstones go in batches too, a day later
    clock.advance(TOMBSTONE_SECONDS + 1)
    store.index.txn_log.reset()
    # (one a row, and one the run's delete leaves for its whole scope: a spill it overtook is told deleted since
    # hostile25)
    assert store.index.forget_tombstones(clock(), BatchSizer(100, low=100, high=100)) == 2801
    log = store.index.txn_log.summary()
    assert log["most_rows"] == 100
    assert log["transactions"] == 29  # 28 full batches and the one with the last (fewer: none left to look for)
    assert store.index.forget_tombstones(clock()) == 0


def test_capping_entries_born_in_the_future_runs_in_batches_and_caps_every_one(store, clock):
    start = clock()
    clock.advance(3600)
    _fill(store, "ahead", 3, 300, ttl=600)
    clock.set(start)  # stepped back an hour: 900 entries born in the future
    store.index.txn_log.reset()
    capped = store.index.cap_future(clock(), sizer=BatchSizer(64, low=64, high=64))
    assert capped == 900
    log = store.index.txn_log.summary()
    assert log["most_rows"] == 64
    assert log["transactions"] == 15  # 900 = 14 * 64 + 4
    assert all(e.expires_at <= start + 600 for e in store.list_entries())
    store.index.txn_log.reset()
    assert store.index.cap_future(clock()) == 0  # read first: nothing born in the future, no write at all
    assert store.index.txn_log.summary()["transactions"] == 0


def test_rows_without_files_go_in_bounded_batches(store):
    _fill(store, "r", 1, 300)
    rows = [(row[0], row[3]) for row in store.index.blob_rows()]
    store.index.txn_log.reset()
    assert store.index.delete_rows([*rows, (10**9, "nosuchblob")], BatchSizer(50, low=50, high=50)) == 300
    assert store.index.txn_log.summary()["most_rows"] == 50
    assert store.list_entries() == []


def test_the_transaction_log_buckets_by_duration():
    log = TxnLog()
    for seconds in (0.0005, 0.003, 0.003, 0.07, 0.9):
        log.record(seconds, 2, "doing")
    log.record(0.012, 40, "deleting a run")
    log.checkpointed(0.02)
    summary = log.summary()
    assert summary["histogram"] == {"<=1 ms": 1, "<=5 ms": 2, "<=20 ms": 1, "<=100 ms": 1, ">500 ms": 1}
    assert summary["transactions"] == 6
    assert summary["longest_ms"] == pytest.approx(900)
    assert summary["most_rows"] == 40
    assert summary["checkpoints"] == 1
    log.reset()
    assert log.summary()["transactions"] == 0
