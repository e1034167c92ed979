"""A write that a delete of its (otherwise empty) run or agent overtakes -- its blob written, the scope's directory
moved away and the delete finished before the write's row is committed -- is told deleted by a read, never "no
handle in this scope": the finished delete leaves a tombstone of the scope (kind and key empty) that the overtaken
write's tombstone is dated from (``ScaleQueries.overtaken``), as the rows the delete found have theirs. Found by
hostile25 (a spiller and a deleter racing, one acknowledged spill in ~7 runs of 3,000 read back as unknown); it
predates the rows written behind (3dc382e lost it the same way, on both paths)."""

from __future__ import annotations

from unittest import mock

import pytest

from scratchfs import NotFound, ScratchStore
from scratchfs.api.entries import Entries
from scratchfs.engine.write_behind import WriteBehind


@pytest.mark.parametrize("behind", [True, False], ids=["written-behind", "committed-at-once"])
@pytest.mark.parametrize("scope", ["run", "agent"])
def test_a_spill_a_finished_delete_overtook_is_told_deleted(tmp_path, behind, scope):
    with ScratchStore(tmp_path, index_write_behind=behind) as store:
        def delete_first(real):
            def step(self, *args):
                store.delete_run("run") if scope == "run" else store.delete_agent("run", "agent")
                return real(self, *args)
            return step

        target = (WriteBehind, "accept") if behind else (Entries, "_commit")
        with mock.patch.object(*target, delete_first(getattr(*target))):
            stub = store.scope("run", "agent").spill(b"acknowledged " * 100, source_tool="t")
        with pytest.raises(NotFound, match=f"'{stub.handle}' was deleted with its {scope} at "):
            store.scope("run", "agent").read_range(stub.handle, 0, 10)
        # the scope's tombstone marks no entry: a new spill there is read back
        again = store.scope("run", "agent").spill(b"after " * 100, source_tool="t")
        assert store.scope("run", "agent").read_range(again.handle, 0, 12).data == b"after after "
        assert [e.key for e in store.scope("run", "agent").list_entries()] == [again.handle]
