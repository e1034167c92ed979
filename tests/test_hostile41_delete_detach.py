"""A delete of a run or agent on the default store (SQLite index, files under the root) whose files could not be
moved aside (the rename into ``trash/`` failing: EIO, EBUSY of a mount point, ``trash/`` not a directory) after its
rows were hidden (hostile41): it said only the storage line, exit 4 -- read as "nothing deleted" -- while every read
of its entries said "deleted with its run"; its rows were left hidden, not deleted. As on a fleet's index
(tests/test_fleet_delete_outage.py), the rows are now deleted all the same and the error says the delete stands and
the sweep removes the files left. The content is ``fixtures/tools/dmesg.txt`` (a real ``dmesg``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs import NotFound, ScratchStore, StorageError
from scratchfs.engine import local_blobs

_DMESG = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dmesg.txt"


def _failing_rename(*_args, **_kwargs):
    raise StorageError("cannot move the directory into trash/: Input/output error")


@pytest.mark.parametrize("agent", [None, "agent-1"])
def test_a_delete_whose_files_cannot_move_says_it_stands(tmp_path, monkeypatch, agent):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run-1", "agent-1")
        handles = [scope.spill(_DMESG.read_bytes()).handle for _ in range(2)]
        with monkeypatch.context() as patched:
            patched.setattr(local_blobs.trash, "move_to_trash", _failing_rename)
            with pytest.raises(StorageError) as err:
                store.delete_run("run-1") if agent is None else store.delete_agent("run-1", agent)
        said = str(err.value)
        what = "run 'run-1'" if agent is None else "agent 'agent-1' of run 'run-1'"
        assert said.startswith("cannot move the directory into trash/: Input/output error; "), said
        assert f"; the {what} is deleted all the same (2 entries, which now read as deleted), but its blobs were " \
               "not: the sweep removes them as orphans later" in said, said
        for handle in handles:
            with pytest.raises(NotFound, match="deleted with its"):
                scope.read_range(handle, 0, 10)
        assert store.delete_run("run-1") == 0  # (its rows are gone: deleted, not left hidden)
        assert not (tmp_path / "runs" / "run-1").exists()  # (a delete again moves the files left)
