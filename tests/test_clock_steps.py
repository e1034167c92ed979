"""Clock steps (issue 13): an entry written while the clock was ahead outlives its TTL by no more than the step and
no more than its TTL once a read or a sweep sees the clock behind; an entry once reported Expired stays gone when the
clock steps back. Run on the store's fake clock (``scratch_clock``)."""

from __future__ import annotations

import threading

import pytest

from scratchfs import Expired, InvalidArgument, ScratchStore

YEARS_9_5 = 9.5 * 365.25 * 86400


# (an entry written far ahead lives its TTL once a read sees the clock corrected: tests/test_backend_contract.py)


# (a sweep caps entries born in the future, and the next ones delete them: tests/test_backend_contract.py)


def test_a_small_step_back_costs_at_most_the_step(store, clock):
    scope = store.scope("run", "agent")
    handle = scope.spill(b"z" * 10_000, source_tool="t", ttl=100).handle
    clock.advance(-30)  # 30 s back: born 30 s in the future, so capped at now + 100 (outlives by 30 s at most)
    store.sweep()
    (entry,) = store.list_entries()
    assert entry.expires_at == clock() + 100
    clock.advance(99)
    assert scope.read_handle(handle, 0, 1).data == b"z"
    clock.advance(1)
    with pytest.raises(Expired):
        scope.read_handle(handle, 0, 1)


# (an entry reported Expired stays gone when the clock steps back: tests/test_backend_contract.py, on every backend)


def test_a_sweep_that_waited_for_the_sweep_lock_reads_the_clock_after_it(scratch_store_factory, clock):
    """A sweep that waits for another's sweep lock must not take the entries written meanwhile for entries born in
    the future: it used to read the clock before waiting, then capped every entry written during the wait at that
    old time + ttl, so a short-lived entry expired before its TTL (the kill harness's lost acknowledged write)."""

    asked = threading.Event()

    def watched() -> float:
        if threading.current_thread().name == "sweep":
            asked.set()
        return clock()

    store = scratch_store_factory("watched", clock=watched)
    scope = store.scope("run", "agent")
    result = []
    with store.blobs.file_lock("sweep.lock", 0) as locked:  # another sweep holds it
        assert locked
        sweeper = threading.Thread(target=lambda: result.append(store.sweep(wait=30)), name="sweep")
        sweeper.start()
        asked.wait(0.5)  # the sweep has read the clock (before the fix) and waits for the lock
        clock.advance(100)  # the other sweep takes 100 s
        scope.scratch_write("k", b"written while the sweep waited", ttl=60)
    sweeper.join(30)
    assert result and not result[0].skipped
    entry = store.index.lookup("run", "agent", "scratch", "k", clock())
    assert entry is not None and entry.expires_at == pytest.approx(clock() + 60)  # was capped to 40 s from now
    clock.advance(59)
    assert scope.scratch_read("k") == b"written while the sweep waited"


@pytest.mark.parametrize("reading", [float("nan"), float("inf"), -float("inf"), 10**400, "1700000000", None, True])
def test_a_clock_that_gives_no_finite_number_is_one_typed_error(tmp_path, reading):
    """A clock reading that is no finite number was taken as it came: NaN failed a write with a SQL NOT NULL error
    (and read every entry as gone), an infinity wrote an entry that never expires and failed the sweep with a SQL
    error ('no such column: inf'), text or None raised a bare ValueError or TypeError. Every call now refuses it
    with InvalidArgument naming it, and nothing is written or deleted with it."""
    now = {"t": 1_700_000_000.0}
    with ScratchStore(tmp_path / "s", clock=lambda: now["t"]) as store:
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"kept")
        now["t"] = reading
        for call in (lambda: scope.scratch_write("k2", b"v"), lambda: scope.scratch_read("k"), store.sweep,
                     lambda: scope.spill(b"x" * 100_000, source_tool="t"), lambda: store.list_entries_for_run("r"),
                     lambda: scope.scratch_delete("k")):
            with pytest.raises(InvalidArgument, match="clock must return finite epoch seconds"):
                call()
        now["t"] = 1_700_000_001.0
        assert [e.key for e in scope.scratch_list()] == ["k"] and scope.scratch_read("k") == b"kept"
        assert store.sweep().rows_deleted == 0
