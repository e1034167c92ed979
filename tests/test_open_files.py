"""Blob files kept open for reading (scratchfs.engine.open_files): a kept descriptor is served only while the very
file is still at its name, each reader gets its own descriptor, the number kept is bounded, and what this process
removes is let go at once."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from scratchfs import CorruptBlob, NotFound, ScratchStore
from scratchfs.engine.open_files import OpenFiles

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")


def _fds_on(path: Path) -> int:
    """How many of this process's descriptors are open on ``path`` (also once it is deleted)."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        found += target in (str(path), f"{path} (deleted)")
    return found


def _blob_files(root: Path) -> list[Path]:
    return sorted(p.resolve() for p in (root / "runs").rglob("*.zst"))


def _spill_and_read(tmp_path: Path, data: bytes):
    store = ScratchStore(tmp_path / "root", segment_entry_bytes=0)
    scope = store.scope("run", "agent")
    handle = scope.spill(data, source_tool="t").handle
    assert scope.read_handle(handle, offset=0, length=4).data == data[:4]  # now kept open
    (blob,) = _blob_files(tmp_path / "root")
    assert _fds_on(blob) == 1
    return store, scope, handle, blob


def test_a_kept_blob_removed_from_outside_is_not_found_and_let_go(tmp_path):
    store, scope, handle, blob = _spill_and_read(tmp_path, b"0123456789" * 2000)
    with store:
        blob.unlink()
        with pytest.raises(NotFound):
            scope.read_handle(handle, offset=4, length=4)
        assert _fds_on(blob) == 0


def test_a_kept_blob_replaced_from_outside_is_opened_afresh(tmp_path):
    data = b"0123456789" * 2000
    store, scope, handle, blob = _spill_and_read(tmp_path, data)
    with store:
        copy = blob.with_name("copy")
        shutil.copyfile(blob, copy)
        os.chmod(copy, 0o600)
        os.replace(copy, blob)  # the same bytes in a new file: served, from the new file
        assert scope.read_handle(handle, offset=10, length=5).data == data[10:15]
        assert _fds_on(blob) == 1
        blob.unlink()
        blob.symlink_to(tmp_path / "elsewhere")  # a link where the kept file was: refused, never followed
        with pytest.raises(CorruptBlob, match="link"):
            scope.read_handle(handle, offset=0, length=4)


def test_a_kept_blob_cut_short_in_place_is_corrupt(tmp_path):
    store, scope, handle, blob = _spill_and_read(tmp_path, os.urandom(300_000))
    with store:
        os.truncate(blob, blob.stat().st_size // 2)  # the same file, the kept descriptor sees it
        with pytest.raises(CorruptBlob):
            scope.read_handle(handle, offset=0, length=4)


def test_a_deleted_run_and_an_overwritten_value_let_their_kept_files_go(tmp_path):
    with ScratchStore(tmp_path / "root", segment_entry_bytes=0) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"first " * 3000)
        assert scope.scratch_read_range("k", offset=0, length=5).data == b"first"
        (first,) = _blob_files(tmp_path / "root")
        scope.scratch_write("k", b"second " * 3000)  # the old blob is unlinked by this process
        assert _fds_on(first) == 0
        handle = scope.spill(b"x" * 20_000, source_tool="t").handle
        assert scope.read_handle(handle, offset=0, length=1).data == b"x"
        kept = _blob_files(tmp_path / "root")
        assert sum(map(_fds_on, kept)) == 1  # (the value just written was not read)
        store.delete_run("run")
        assert sum(map(_fds_on, kept)) == 0


def test_at_most_the_limit_is_kept_and_each_reader_gets_its_own_descriptor(tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        files = OpenFiles(root_fd, 3)
        for i in range(5):
            (root / f"f{i}").write_bytes(bytes([i]) * 10)
            fd = os.open(root / f"f{i}", os.O_RDONLY)
            files.keep(((), f"f{i}"), fd)
            os.close(fd)  # the caller's own: the kept one is a dup
        assert [_fds_on(root / f"f{i}") for i in range(5)] == [0, 0, 1, 1, 1]
        assert files.open(((), "f0")) is None
        mine, st = files.open(((), "f4"))
        assert (os.pread(mine, 10, 0), st.st_size) == (b"\x04" * 10, 10)
        files.close()  # closing the cache leaves the reader's descriptor open
        assert os.pread(mine, 1, 0) == b"\x04"
        os.close(mine)
        assert sum(_fds_on(root / f"f{i}") for i in range(5)) == 0
    finally:
        os.close(root_fd)


def test_threads_reading_more_blobs_than_are_kept_read_the_right_bytes(tmp_path):
    with ScratchStore(tmp_path / "root", segment_entry_bytes=0) as store:
        scope = store.scope("run", "agent")
        contents = {scope.spill(bytes([i]) * 9000 + os.urandom(20), source_tool="t").handle: i for i in range(48)}
        wrong: list[str] = []

        def reader(seed: int) -> None:
            handles = list(contents)
            for n in range(300):
                handle = handles[(seed * 7 + n * 13) % len(handles)]
                if scope.read_handle(handle, offset=100, length=50).data != bytes([contents[handle]]) * 50:
                    wrong.append(handle)

        threads = [threading.Thread(target=reader, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert wrong == []
        assert sum(map(_fds_on, _blob_files(tmp_path / "root"))) <= 32
