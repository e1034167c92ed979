"""fsck racing a delete in another process (hostile43).

fsck lists a page of live entries, then checks each one's blob file. A ``delete-run`` (or ``delete-agent``) run by
another process between the two hides the rows and moves the directory to the trash; fsck then found the files gone,
asked only whether some row still named the blob -- the hidden row, not yet drained, did -- and reported every entry
of the run "missing" (exit 3 from ``fsck --repair``: 123 missing in a race run of eight processes). A file found
gone is now a problem only while its entry is still live and names that blob (not deleted, hidden, expired or
replaced since it was listed).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from scratchfs.api import inspector
from scratchfs.api.store import ScratchStore

REPO = Path(__file__).resolve().parent.parent


HALF_DELETE = """
import os, signal, sys
from scratchfs.api.store import ScratchStore
store = ScratchStore(sys.argv[1])
agent = sys.argv[3] if len(sys.argv) > 3 else None
store.index.hide_scope(sys.argv[2], agent, store.now())  # delete_run's first two steps, under no lock here:
store.blobs.detach_scope(sys.argv[2], agent)  # fsck holds none
os.kill(os.getpid(), signal.SIGKILL)  # killed before its rows are drained
"""


@pytest.mark.parametrize("scope", [("r1",), ("r1", "a1")])
def test_a_delete_in_another_process_while_fsck_checks_is_no_missing_file(tmp_path, monkeypatch, scope):
    root = tmp_path / "store"
    with ScratchStore(root) as store:
        doomed, kept = store.scope("r1", "a1"), store.scope("r2", "a1")
        for _ in range(3):
            doomed.spill(os.urandom(40_000), source_tool="t")
        doomed.spill(b"a short line\n" * 1_000, source_tool="t")
        kept_handle = kept.spill(os.urandom(40_000), source_tool="t").handle
    real, calls = inspector.verify_blob, []

    def verify_after_a_delete(*args, **kwargs):  # the other process deletes after the page was listed
        if not calls:
            done = subprocess.run([sys.executable, "-c", HALF_DELETE, str(root), *scope], capture_output=True,
                                  text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), check=False, timeout=120)
            assert done.returncode == -signal.SIGKILL, done.stderr
        calls.append(args[1].key)
        return real(*args, **kwargs)

    monkeypatch.setattr(inspector, "verify_blob", verify_after_a_delete)
    with ScratchStore(root) as store:
        report = inspector.fsck(store, repair=True)
        assert [(p.kind, p.key) for p in report.problems] == []
        assert len(calls) == 5 and kept_handle in calls
        assert [e.key for e in store.list_entries()] == [kept_handle]
        store.sweep()  # finishes the killed delete
        assert [(p.kind, p.key) for p in inspector.fsck(store).problems] == []
