"""The store's own ``journal/`` tampered with (scratchfs.engine.journal): a regular file, a link to elsewhere, a FIFO
or a directory other users may write into. Sweeps still reclaim what is safe to reclaim -- segments whose every record
a row names, or that no recovery would restore (expired) -- and keep what a dead writer's lost journal might have
named; fsck reports what is there; nothing outside the root is touched; a loose journal directory is made private."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine.journal import JOURNAL_DIR
from tests.test_write_behind import _content, _kill, _read, _writer


class _Clock:
    def __init__(self) -> None:
        import time

        self.at = time.time()

    def __call__(self) -> float:
        return self.at


def _segments(root) -> list[str]:
    return sorted(n for _, _, names in os.walk(root / "runs") for n in names if n.endswith(".zseg"))


def _tamper(root, tmp_path, kind: str) -> None:
    path = root / JOURNAL_DIR
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    if kind == "file":
        path.write_bytes(b"not a directory\n")
    elif kind == "link":
        (tmp_path / "elsewhere").mkdir(exist_ok=True)
        (tmp_path / "elsewhere" / "keep").write_bytes(b"outside the root")
        os.symlink(tmp_path / "elsewhere", path)
    elif kind == "fifo":
        os.mkfifo(path)


@pytest.mark.parametrize("kind", ["file", "link", "fifo"])
def test_a_journal_that_is_no_directory_leaves_sweeps_reclaiming_expired_segments_and_fsck_reports_it(
        tmp_path, kind):
    root, clock = tmp_path / "root", _Clock()
    with ScratchStore(root, clock=clock) as store:
        for i in range(5):
            store.scope("run", "agent").spill(_content(i) * 20, source_tool="t", ttl=60)
    assert len(_segments(root)) == 1
    _tamper(root, tmp_path, kind)
    clock.at += 120  # every spill expired
    with ScratchStore(root, clock=clock, orphan_grace=0) as store:
        result = store.sweep(full=True)
        assert result.rows_deleted == 5
        assert _segments(root) == []  # (kept before: 'cannot check the segment ... journal is a ...', 0 files freed)
        report = fsck(store)
    assert [p.path for p in report.problems if p.kind == "unexpected"] == [str(root / JOURNAL_DIR)]
    assert "not a directory" in report.problems[0].detail
    assert not report.clean  # (problems=[] before: the sweeps' silent stall went unreported)
    if kind == "link":
        assert os.listdir(tmp_path / "elsewhere") == ["keep"]  # never followed, never written
    assert stat.S_ISDIR(os.lstat(root / JOURNAL_DIR).st_mode) is False  # reported, left for its owner


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_dead_writers_spills_are_kept_when_its_journal_is_gone_and_a_rebuild_restores_them(tmp_path, kind):
    root = tmp_path / "root"
    proc, handles = _writer(root, 4)
    _kill(proc)
    _tamper(root, tmp_path, kind)  # the dead writer's journal went with the directory: no recovery can read it
    with ScratchStore(root, orphan_grace=0) as store:
        store.sweep(full=True)
        assert len(_segments(root)) == 1  # live spills no row names: perhaps a dead writer's, kept
        fsck(store, rebuild_index=True)
        assert sorted(e.key for e in store.list_entries()) == sorted(handles)
        for i, handle in enumerate(handles):
            assert _read(store.scope("run", "agent"), handle, 100_000) == _content(i)


def test_a_segment_whose_records_all_have_rows_is_judged_and_kept_while_the_journal_is_a_file(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root, orphan_grace=0) as store:
        handles = [store.scope("run", "agent").spill(_content(i) * 20, source_tool="t").handle for i in range(3)]
    _tamper(root, tmp_path, "file")
    with ScratchStore(root, orphan_grace=0) as store:
        store.sweep(full=True)
        assert len(_segments(root)) == 1
        assert store.scope("run", "agent").delete_entry("handle", handles[0])
        for i, handle in enumerate(handles[1:], 1):
            assert _read(store.scope("run", "agent"), handle, 100_000) == _content(i) * 20
        store.scope("run", "agent").spill(_content(9) * 20, source_tool="t")  # the row committed at once
        assert len(store.list_entries()) == 3


def test_a_journal_directory_open_to_others_is_made_private_when_a_store_opens(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("run", "agent").spill(_content(3) * 20, source_tool="t")
    os.makedirs(root / JOURNAL_DIR, exist_ok=True)
    os.chmod(root / JOURNAL_DIR, 0o777)
    with ScratchStore(root):
        assert stat.S_IMODE(os.stat(root / JOURNAL_DIR).st_mode) == 0o700  # (left 0777 before)


def test_fsck_reports_what_is_in_the_journal_directory_and_is_no_journal(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("run", "agent").spill(_content(3) * 20, source_tool="t")
    os.makedirs(root / JOURNAL_DIR, 0o700, exist_ok=True)
    os.symlink("/etc/passwd", root / JOURNAL_DIR / "aaaaaaaaaaaaaaaaaaaaaaaa")
    os.mkfifo(root / JOURNAL_DIR / "bbbbbbbbbbbbbbbbbbbbbbbb")
    with ScratchStore(root, orphan_grace=0) as store:
        report = fsck(store)
        store.sweep(full=True)
    found = sorted(os.path.basename(p.path) for p in report.problems if p.kind == "unexpected")
    assert found == ["aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"]
    assert all("not a regular file" in p.detail for p in report.problems)


def test_spills_while_the_journal_is_a_file_commit_at_once_and_warn_once(tmp_path, caplog):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("run", "agent").spill(_content(1), source_tool="t")
    _tamper(root, tmp_path, "file")
    with ScratchStore(root) as store, ScratchStore(root) as other:
        for i in range(50):
            store.scope("run", "agent").spill(_content(i) * 3, source_tool="t")
        assert len(other.list_entries()) == 51  # every row committed by its spill (no journal, nothing queued)
    assert caplog.text.count("the row is committed at once") == 1  # (one warning a spill before)


def test_the_cli_says_no_repair_touches_a_journal_out_of_place(tmp_path):
    from click.testing import CliRunner

    from scratchfs.cli.app import main

    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("run", "agent").spill(_content(3) * 20, source_tool="t")
    _tamper(root, tmp_path, "link")
    found = CliRunner().invoke(main, ["fsck", "--root", str(root)], catch_exceptions=False)
    assert found.exit_code == 3
    last = found.stderr.strip().splitlines()[-1]  # (said '`scratchfs fsck --repair` removes them' before)
    assert last == ("scratchfs: not clean: 1 problem remains (unexpected); it is the store's own file or directory "
                    "out of place, "
                    "which no repair touches: move it away (its detail says what it is)")
