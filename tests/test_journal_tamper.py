"""Write-behind journals that are not what a writer leaves (scratchfs.engine.journal): huge or sparse, the same line
repeated, and a spill racing its store's close -- each answered without a traceback, in bounded memory and time."""

from __future__ import annotations

import os

from scratchfs import ScratchStore
from scratchfs.engine import journal
from scratchfs.engine.journal import JOURNAL_DIR
from scratchfs.foundation.errors import StoreClosed
from tests.test_write_behind import _content, _kill, _read, _writer


def test_a_huge_sparse_journal_is_read_in_bounded_memory_and_its_first_lines_still_recovered(tmp_path):
    root = tmp_path / "root"
    proc, handles = _writer(root, 3)
    _kill(proc)
    (name,) = os.listdir(root / JOURNAL_DIR)
    os.truncate(root / JOURNAL_DIR / name, 1 << 40)  # 1 TiB of holes after the writer's line: no bytes object holds it
    with ScratchStore(root, orphan_grace=0) as store:  # (read whole, the journal raised MemoryError at the open)
        assert sorted(e.key for e in store.list_entries()) == sorted(handles)
        for i, handle in enumerate(handles):
            assert _read(store.scope("run", "agent"), handle, 10_000) == _content(i)
        store.sweep(full=True)
        assert store.recover() == 0
    assert os.listdir(root / JOURNAL_DIR) == [name]  # longer than any writer's: left in place, told


def test_a_journal_repeating_one_segment_scans_it_once(tmp_path, monkeypatch):
    root = tmp_path / "root"
    proc, handles = _writer(root, 2)
    _kill(proc)
    (name,) = os.listdir(root / JOURNAL_DIR)
    path = root / JOURNAL_DIR / name
    path.write_bytes(path.read_bytes() * 20_000)
    scans = []
    real = journal._recover_segment
    monkeypatch.setattr(journal, "_recover_segment", lambda *args: scans.append(args[-1]) or real(*args))
    with ScratchStore(root, orphan_grace=0) as store:
        assert len(scans) == 1  # (20,000 scans of the same segment before: 14 s for 200,000 lines)
        assert sorted(e.key for e in store.list_entries()) == sorted(handles)
    assert os.listdir(root / JOURNAL_DIR) == []


def test_a_spill_racing_the_close_makes_no_journal(tmp_path):
    store = ScratchStore(tmp_path / "root")
    scope = store.scope("run", "agent")
    scope.spill(_content(1) * 200, source_tool="t")
    behind = store.entries.behind
    behind.close()  # store.close() closes the queue first; a spill of another thread is past its check_open
    try:
        scope.spill(_content(2) * 200, source_tool="t")
        raised = None
    except StoreClosed as exc:
        raised = exc
    assert raised is not None
    assert os.listdir(tmp_path / "root" / JOURNAL_DIR) == []  # (a new journal, locked for the process's life, before)
    assert behind.journal.name is None
    store.close()


def test_journal_reading_is_bounded():
    assert journal.MAX_JOURNAL_BYTES <= 1 << 30


def test_a_delete_moving_a_segment_away_during_its_recovery_ends_that_recovery_cleanly(tmp_path, monkeypatch, caplog):
    from scratchfs.api import restore

    root = tmp_path / "root"
    proc, _handles = _writer(root, 3)
    _kill(proc)
    monkeypatch.setattr(ScratchStore, "recover", lambda self, quiet=False: 0)
    store = ScratchStore(root, orphan_grace=0)
    monkeypatch.undo()
    real = restore.known_locations

    def known_then_moved(index, located, where):  # a delete_run takes the directory between the scan and the restore
        found = real(index, located, where)
        if (root / "runs").exists():
            os.rename(root / "runs", tmp_path / "moved")
            os.mkdir(root / "runs", 0o700)
        return found

    monkeypatch.setattr(restore, "known_locations", known_then_moved)
    with store:
        assert store.recover() == 1  # (0 before: 'cannot recover journal/...: No such file or directory', left)
        assert os.listdir(root / JOURNAL_DIR) == []
        assert store.list_entries() == []
    assert "cannot recover" not in caplog.text
