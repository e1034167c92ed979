"""Deletes in batches (issue 13): ``delete_run``/``delete_agent`` hide their scope in one short transaction, then
delete its rows in short batches; a write committed after the hiding survives; a delete that stopped half-way is
finished by the next sweep."""

from __future__ import annotations

import pytest

from scratchfs import Deleted, NotFound
from scratchfs.engine.sqlite_scale import DELETE_BATCH_ROWS


def _fill(store, run: str, agents: int, keys: int) -> None:
    for a in range(agents):
        scope = store.scope(run, f"a{a}")
        for k in range(keys):
            scope.scratch_write(f"k{k}", f"{run}/{a}/{k}".encode())


def test_a_hidden_scope_is_invisible_before_its_rows_are_deleted(store, clock):
    _fill(store, "doomed", 2, 300)
    _fill(store, "kept", 1, 10)
    doomed = store.scope("doomed", "a0")
    handle = doomed.spill(b"h" * 20_000, source_tool="t").handle
    upto = store.index.hide_scope("doomed", None, clock())  # the first statement of delete_run
    assert store.list_entries_for_run("doomed") == []
    assert doomed.scratch_list() == []
    assert store.index.usage("doomed", clock()) == (0, 0)
    with pytest.raises(Deleted, match="deleted with its run"):
        doomed.scratch_read("k1")
    with pytest.raises(Deleted):
        doomed.read_handle(handle)
    # writes after the delete survive it: an overwrite of a hidden key and a new key
    doomed.scratch_write("k1", b"after")
    doomed.scratch_write("new", b"new")
    assert doomed.scratch_read("k1") == b"after"
    deleted, longest = store.index.drain_scope("doomed", None, upto, clock(), batch=64)
    assert deleted == 2 * 300  # the handle too, but k1's old row was replaced by the overwrite
    assert longest < 0.05
    assert doomed.scratch_read("k1") == b"after"
    assert doomed.scratch_read("new") == b"new"
    assert len(store.list_entries_for_run("doomed")) == 2
    assert len(store.list_entries_for_run("kept")) == 10
    assert store.index.pending_deletes() == []


def test_delete_run_deletes_in_batches_and_returns_every_row(store):
    _fill(store, "big", 3, DELETE_BATCH_ROWS + 7)
    _fill(store, "other", 2, 5)
    assert store.delete_agent("big", "a1") == DELETE_BATCH_ROWS + 7
    assert store.delete_run("big") == 2 * (DELETE_BATCH_ROWS + 7)
    assert store.delete_run("big") == 0
    assert store.list_entries_for_run("big") == []
    assert len(store.list_entries()) == 10
    assert store.index.pending_deletes() == []
    with pytest.raises(Deleted, match="deleted with its agent"):
        store.scope("big", "a1").scratch_read("k0")


def test_a_delete_stopped_half_way_is_finished_by_the_next_sweep(store, clock):
    _fill(store, "crashed", 2, 100)
    store.index.hide_scope("crashed", "a0", clock())  # then the process died: no directory move, no drain
    assert len(store.list_entries_for_run("crashed")) == 100
    result = store.sweep()
    assert result.rows_deleted == 100
    assert store.index.pending_deletes() == []
    with pytest.raises(NotFound):
        store.scope("crashed", "a0").scratch_read("k0")
    assert store.scope("crashed", "a1").scratch_read("k5") == b"crashed/1/5"


def test_new_rows_get_ids_above_every_hidden_scope(store, clock):
    _fill(store, "r", 1, 5)
    upto = store.index.hide_scope("r", None, clock())
    with store.index.write("a drain stopped after deleting the largest ids") as conn:
        conn.execute("DELETE FROM entries WHERE id > ?", (upto - 3,))
    store.scope("r", "a0").scratch_write("k", b"v")  # would reuse a hidden id without NEXT_ID
    assert store.scope("r", "a0").scratch_read("k") == b"v"
    assert store.index.drain_scope("r", None, upto, clock())[0] == 2
    assert store.scope("r", "a0").scratch_read("k") == b"v"
    assert [e.key for e in store.list_entries()] == ["k"]
