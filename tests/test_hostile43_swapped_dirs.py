"""A run's or agent's directory swapped for a symbolic link under a live store (hostile43).

Renaming ``runs/<run>`` (or ``runs/<run>/<agent>``) out of the root and leaving a symbolic link to it in its place
fooled the identity check of a file or directory already open (``safe_fs.is_at``: one ``lstat`` that resolved the
directories above the file through the link): small spills and scratchpad writes kept being appended to the open
segment, now outside the root, and were acknowledged (their rows naming a file the store cannot reach).
Every check now also finds the directories above it to be directories, not links: the write is refused with one
StorageError, nothing outside the root is written, and the entries stored before stay readable once the directory
is put back.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from scratchfs.api.store import ScratchStore
from scratchfs.foundation.errors import StorageError


def _tree(path: Path) -> dict[str, str]:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("swapped", ["runs/r1", "runs/r1/a1"])
def test_a_directory_swapped_for_a_link_takes_no_write_and_reads_nothing_outside(tmp_path, swapped):
    root, outside = tmp_path / "store", tmp_path / "outside"
    outside.mkdir()
    big, small = os.urandom(200_000), b"a line of text\n" * 2_000
    with ScratchStore(root) as store:
        scope = store.scope("r1", "a1")
        big_handle = scope.spill(big, source_tool="t").handle
        small_handle = scope.spill(small, source_tool="t").handle
        scope.scratch_write("k", b"kept")
        assert b"".join(scope.iter_content("handle", small_handle)) == small  # directories now kept open
        assert b"".join(scope.iter_content("handle", big_handle)) == big
        away = outside / "moved"
        os.rename(root / swapped, away)
        os.symlink(away, root / swapped)
        before = _tree(outside)
        for call in (lambda: scope.spill(b"another line\n" * 2_000, source_tool="t"),
                     lambda: scope.scratch_write("k2", b"v" * 100),
                     lambda: scope.spill(os.urandom(100_000), source_tool="t")):
            with pytest.raises(StorageError, match="symbolic link"):
                call()
        for handle, content in ((small_handle, small), (big_handle, big)):  # refused, or the very bytes (memory)
            try:
                read = b"".join(scope.iter_content("handle", handle))
            except StorageError as refused:
                read = str(refused).encode()
            assert read == content or b"symbolic link" in read
        assert _tree(outside) == before  # not a byte appended outside the root
        assert [e.key for e in store.list_entries_for_run("r1")].count("k2") == 0
        os.unlink(root / swapped)
        os.rename(away, root / swapped)
        assert b"".join(scope.iter_content("handle", small_handle)) == small
        assert hashlib.sha256(b"".join(scope.iter_content("handle", big_handle))).digest() == \
            hashlib.sha256(big).digest()
        assert scope.scratch_read("k") == b"kept"
