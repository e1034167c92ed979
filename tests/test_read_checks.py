"""The existence check behind every cached scratchpad read (issue 16, T8): after the first read it costs one
``lstat``, and a blob removed, cut short or replaced from outside since is still never served."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from scratchfs import NotFound, ScratchStore
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES

VALUE = b"a cached value " * 40  # 600 bytes: a segment entry where segments are on


def _blob_file(root: Path) -> Path:
    (found,) = [p for p in (root / "runs").rglob("*") if p.is_file()]
    return found


def _count_stats(monkeypatch) -> list[int]:
    calls = [0]
    real = os.stat

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    return calls


@pytest.mark.parametrize("segment_bytes", [SEGMENT_ENTRY_BYTES, 0], ids=["segment", "file"])
def test_a_read_seen_before_costs_one_lstat(tmp_path, monkeypatch, segment_bytes):
    extra = {} if segment_bytes is None else {"segment_entry_bytes": segment_bytes}
    with ScratchStore(tmp_path, **extra) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", VALUE)
        for _ in range(2):  # read from the blob, then from memory after the checked way (four lstat calls)
            assert scope.scratch_read("k") == VALUE
        calls = _count_stats(monkeypatch)
        assert scope.scratch_read("k") == VALUE
        assert calls[0] == 1


@pytest.mark.parametrize(("segment_bytes", "how"), [
    (SEGMENT_ENTRY_BYTES, "removed"), (SEGMENT_ENTRY_BYTES, "cut short"), (SEGMENT_ENTRY_BYTES, "replaced"),
    (SEGMENT_ENTRY_BYTES, "directory moved away"),  # a segment entry's slice must still fit
    (0, "removed"), (0, "directory moved away"),  # a file blob counts while anything is at its name
])
def test_a_blob_changed_from_outside_after_a_cached_read_is_never_served(tmp_path, segment_bytes, how):
    extra = {} if segment_bytes is None else {"segment_entry_bytes": segment_bytes}
    with ScratchStore(tmp_path / "root", **extra) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", VALUE)
        for _ in range(3):  # cached value, blob file seen
            assert scope.scratch_read("k") == VALUE
        blob = _blob_file(tmp_path / "root")
        if how == "removed":
            blob.unlink()
        elif how == "cut short":
            with open(blob, "r+b") as f:
                f.truncate(10)
        elif how == "replaced":  # a new file at the name (new inode), too short for the entry
            blob.unlink()
            blob.write_bytes(b"x" * 10)
        else:
            shutil.move(str(blob.parent), str(tmp_path / "elsewhere"))
        with pytest.raises(NotFound):
            scope.scratch_read("k")


def test_a_blob_file_changed_in_place_is_checked_again(tmp_path, monkeypatch):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", VALUE)
        assert scope.scratch_read("k") == VALUE
        assert scope.scratch_read("k") == VALUE
        os.chmod(_blob_file(tmp_path), 0o600)  # moves its ctime: the one lstat no longer vouches for it
        calls = _count_stats(monkeypatch)
        assert scope.scratch_read("k") == VALUE
        assert calls[0] == 5  # the stale lstat, then the checked way


# -- read_handle: the agent directory's descriptor is kept (safe_fs.DirCache) -------------------------------------

def _count_opens(monkeypatch) -> list[str]:
    opened: list[str] = []
    real = os.open

    def counting(path, *args, **kwargs):
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting)
    return opened


def _fds_on(directory: Path) -> int:
    """How many of this process's descriptors are open on ``directory`` itself."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            found += os.readlink(f"/proc/self/fd/{fd}") == str(directory)
        except OSError:
            pass  # the listing's own descriptor
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_a_range_read_opens_nothing_once_its_blob_is_kept_open_and_close_lets_them_go(tmp_path, monkeypatch):
    store = ScratchStore(tmp_path, segment_entry_bytes=0)
    scope = store.scope("run", "agent")
    handle = scope.spill(b"0123456789" * 1000, source_tool="t").handle
    assert scope.read_handle(handle, offset=5, length=10).data == b"5678901234"  # walks, keeps directory and blob
    opened = _count_opens(monkeypatch)
    assert scope.read_handle(handle, offset=13, length=4).data == b"3456"
    assert opened == []  # the kept blob (one lstat to check it is still there, and a dup)
    monkeypatch.undo()
    blob = _blob_file(tmp_path).resolve()
    assert (_fds_on(blob.parent), _fds_on(blob)) == (1, 1)
    store.close()
    assert (_fds_on(blob.parent), _fds_on(blob)) == (0, 0)


@pytest.mark.parametrize("how", ["moved away", "replaced by an empty directory"])
def test_a_kept_directory_moved_away_or_replaced_from_outside_is_walked_again(tmp_path, how):
    with ScratchStore(tmp_path / "root", segment_entry_bytes=0) as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(b"0123456789" * 1000, source_tool="t").handle
        assert scope.read_handle(handle, offset=0, length=4).data == b"0123"
        agent_dir = _blob_file(tmp_path / "root").parent
        shutil.move(str(agent_dir), str(tmp_path / "elsewhere"))  # the kept descriptor still sees the blob there
        if how != "moved away":
            agent_dir.mkdir(mode=0o700)
        with pytest.raises(NotFound):
            scope.read_handle(handle, offset=0, length=4)
        shutil.rmtree(agent_dir, ignore_errors=True)
        shutil.move(str(tmp_path / "elsewhere"), str(agent_dir))  # back in place: read again
        assert scope.read_handle(handle, offset=4, length=4).data == b"4567"


def test_a_directory_removed_and_made_again_is_found_even_if_it_reuses_the_inode(tmp_path, monkeypatch):
    with ScratchStore(tmp_path, segment_entry_bytes=0) as store:
        scope = store.scope("run", "agent")
        first = scope.spill(b"first " * 100, source_tool="t").handle
        assert scope.read_handle(first, offset=0, length=5).data == b"first"  # keeps the agent directory
        agent_dir = _blob_file(tmp_path).parent
        kept = os.stat(agent_dir)
        store.delete_agent("run", "agent")
        second = scope.spill(b"second " * 100, source_tool="t").handle  # a new agent directory
        real_stat = os.stat

        def same_inode(path, *args, **kwargs):  # as if the new directory had taken the removed one's inode
            found = real_stat(path, *args, **kwargs)
            if str(path).endswith(agent_dir.name) and stat.S_ISDIR(found.st_mode):
                return os.stat_result((found.st_mode, kept.st_ino, kept.st_dev, *tuple(found)[3:]))
            return found

        monkeypatch.setattr(os, "stat", same_inode)
        assert scope.read_handle(second, offset=0, length=6).data == b"second"
