"""A read of a handle in another store object (another process) while a stopped writer's write-behind journal cannot
be recovered (the disk full: the index takes no row) is no "no handle in this scope ... run the tool again": the spill
is stored and gets its row once there is room. Found by hostile25: spills into a 2 MiB tmpfs until it was full, the
store closed with rows still queued, reopened -- 44 to 56 of ~300 acknowledged spills read as unknown handles until
the disk had room (all read back then)."""

from __future__ import annotations

from unittest import mock

import pytest

from scratchfs import NotFound, ScratchStore, StorageError
from scratchfs.engine.sqlite_index import Index


def test_a_spill_whose_journal_cannot_be_recovered_is_not_told_unknown(tmp_path):
    full = StorageError("the index failed while writing entries: the disk is full (SQLITE_FULL)")
    with mock.patch.object(Index, "put_many", side_effect=full), mock.patch.object(Index, "put", side_effect=full):
        with ScratchStore(tmp_path) as writer:  # its rows stay queued, then left to its journal at close
            stub = writer.scope("run", "agent").spill(b"acknowledged\n" * 100, source_tool="t")
        told = f"handle '{stub.handle}' is not in the index, but a stopped writer's spills could not be given .*full"
        with ScratchStore(tmp_path) as reader, pytest.raises(StorageError, match=told):
            reader.scope("run", "agent").read_range(stub.handle, 0, 12)
    with ScratchStore(tmp_path) as reader:  # room again: recovered
        assert reader.scope("run", "agent").read_range(stub.handle, 0, 12).data == b"acknowledged"
        with pytest.raises(NotFound, match="no handle 'h_aaaaaaaaaaaaaaaaaaaaaaaa' in this scope"):
            reader.scope("run", "agent").read_range("h_" + "a" * 24, 0, 12)
