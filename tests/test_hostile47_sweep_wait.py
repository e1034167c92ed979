"""hostile47: two threads of one process sweeping one PostgreSQL + S3 store at once (the background sweeper and a
``store.sweep()``, or two tasks' sweeps). The second waits for the sweep lock -- a PostgreSQL advisory lock -- up to
``wait`` seconds (default: the busy timeout), then returns skipped, as the sweep with a local lock file does. It
raised ``StoreBusy: the index database stayed busy past the busy timeout while taking the sweep lock`` instead: the
connection's ``statement_timeout`` (the busy timeout) cancelled the wait as its ``lock_timeout`` (the same seconds)
ran out; and a ``wait`` past the busy timeout was cut short at the busy timeout."""

from __future__ import annotations

import threading
import time

import pytest

from scratchfs.foundation.errors import StoreBusy


@pytest.mark.parametrize("backend", ["postgres+s3"], indirect=True)
@pytest.mark.parametrize("wait", [None, 1.0, 2.5])
def test_a_sweep_waiting_out_another_threads_sweep_is_skipped(scratch_store_factory, wait):
    store = scratch_store_factory("busy", busy_timeout=1.0)
    scope = store.scope("run-1", "agent-1")
    handle = scope.spill(b"kept\n" * 100, "t").handle
    held, release = threading.Event(), threading.Event()

    def other_sweep() -> None:  # (another thread's sweep, holding the lock)
        with store.index.sweep_lock(0) as got:
            assert got
            held.set()
            release.wait(60)

    thread = threading.Thread(target=other_sweep)
    thread.start()
    try:
        assert held.wait(30)
        began = time.monotonic()
        try:
            result = store.sweep(wait=wait)
        except StoreBusy as exc:
            pytest.fail(f"a sweep that waited out another's raised {exc!r}")
        assert result.skipped
        assert time.monotonic() - began >= (wait or 1.0) * 0.9  # (it did wait: at least what it was asked to)
    finally:
        release.set()
        thread.join(60)
    assert not store.sweep(wait=0).skipped  # the lock is free again, the connection's settings as they were
    assert scope.read_range(handle, 0, 4).data == b"kept"


@pytest.mark.parametrize("backend", ["postgres+s3"], indirect=True)
@pytest.mark.parametrize("verb", ["sweep", "delete_run"])
def test_threads_waiting_for_the_sweep_or_delete_lock_leave_the_pool_to_the_rest(scratch_store_factory, verb):
    """Twelve threads sweeping (or deleting a run) while another thread's sweep (delete) holds the lock each held
    one of the process's 8 pooled connections while they waited: every other call of the store -- the lock
    holder's own next statement included -- waited for a connection until "StorageError: no connection to the index
    database within the busy timeout ... (the server is down, refusing or overloaded)". They wait their turn in the
    process now, holding none."""
    store = scratch_store_factory("starved", busy_timeout=1.0)
    scope = store.scope("run-1", "agent-1")
    scope.scratch_write("k", b"kept")
    lock = store.index.sweep_lock if verb == "sweep" else lambda wait: store.index.delete_lock(True, 5.0)
    held, release = threading.Event(), threading.Event()
    waiters_ready = threading.Barrier(13)
    outcomes: list[object] = []

    def holder() -> None:
        with lock(0):
            held.set()
            release.wait(60)

    def waiter() -> None:
        waiters_ready.wait(30)
        try:
            outcomes.append(store.sweep(wait=3.0).skipped if verb == "sweep" else store.delete_run("run-2"))
        except StoreBusy as exc:
            outcomes.append(exc)

    first = threading.Thread(target=holder)
    first.start()
    assert held.wait(30)
    waiters = [threading.Thread(target=waiter) for _ in range(12)]
    for thread in waiters:
        thread.start()
    try:
        waiters_ready.wait(30)
        reads = 0
        while any(thread.is_alive() for thread in waiters) and reads < 500:  # (the waiters' wait: some seconds)
            assert scope.scratch_read("k") == b"kept"  # StorageError here: the pool starved (a write would wait for
            reads += 1  # the delete lock: a delete in progress orders writes after it)
    finally:
        release.set()
        for thread in [first, *waiters]:
            thread.join(60)
    assert len(outcomes) == 12
    assert scope.scratch_write("k", b"new") and scope.scratch_read("k") == b"new"
