"""hostile47: ``close()`` from one thread while other threads' calls are in flight (an agent platform sharing one
store across threads). A call that had already passed the store's open check, and meets the index's connection pool
closed under it, raised ``StorageError: the index database failed while ...: the pool 'scratchfs-index' is closed``
-- the database blamed for a close, of a type a caller treating StoreClosed as "shutting down" did not expect. Close's
contract: calls in flight finish or raise StoreClosed."""

from __future__ import annotations

import pytest

from scratchfs.engine.postgres_pool import IndexPool
from scratchfs.foundation.errors import StoreClosed
from tests.conftest import BACKENDS

PG = [b for b in BACKENDS if b != "local"]


def _close_on_checkout(store, monkeypatch, calls):
    """Make the next pool checkout find the store closed by another thread between the open check and the checkout
    (the window a close from another thread lands in)."""
    entered = IndexPool._enter

    def closing(self, stack, pool):
        if calls and calls.pop():
            store.close()
        return entered(self, stack, pool)

    monkeypatch.setattr(IndexPool, "_enter", closing)


@pytest.mark.parametrize("backend", PG, indirect=True)
@pytest.mark.parametrize("verb", ["spill", "scratch_write", "scratch_list", "read_range", "sweep", "delete_run"])
def test_a_pool_closed_under_a_call_in_flight_is_store_closed(store, monkeypatch, verb):
    scope = store.scope("run-1", "agent-1")
    handle = scope.spill(b"kept\n" * 1000, "t").handle
    calls = [True]
    _close_on_checkout(store, monkeypatch, calls)
    do = {"spill": lambda: scope.spill(b"x" * 100, "t"), "scratch_write": lambda: scope.scratch_write("k", b"v"),
          "scratch_list": scope.scratch_list, "read_range": lambda: scope.read_range(handle, 0, 10),
          "sweep": store.sweep, "delete_run": lambda: store.delete_run("run-1")}[verb]
    with pytest.raises(StoreClosed, match="the store is closed"):
        do()
    assert not calls  # (the close did land inside the call)
    with pytest.raises(StoreClosed):  # and later calls too
        do()
    store.close()  # idempotent
