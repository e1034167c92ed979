"""A second name (a hard link) for a file the store writes in place -- a ``cp -al`` snapshot of the root, or one an
outsider with write access plants -- had every write go to the other name too, with no symlink anywhere: a spill
after ``ln index.sqlite /elsewhere`` changed the file at /elsewhere. The index files are now refused (one
StorageError naming the file and what to do), as the store opens (fsck too: it opens a store) and before each
commit."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.errors import StorageError


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("select count(*) from entries").fetchone()[0]
    finally:
        conn.close()


def test_an_index_with_another_name_is_refused_as_the_store_opens(tmp_path):
    root, other = tmp_path / "root", tmp_path / "snap.sqlite"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
    os.link(root / "index.sqlite", other)
    before = _digest(other)
    with pytest.raises(StorageError, match=r"index\.sqlite has 2 names \(a hard link, e\.g\. cp -al\).*remove the "
                                           r"other name"):
        ScratchStore(root, index_write_behind=False)
    assert _digest(other) == before and _rows(other) == 1  # (2 before: the next spill went into it)
    os.unlink(other)
    with ScratchStore(root, index_write_behind=False) as store:  # the other name gone: opens as before
        store.scope("r", "a").spill(b"b\n", source_tool="t")
        assert len(store.list_entries()) == 2


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal"])
def test_an_index_file_given_another_name_while_open_is_not_written_again(tmp_path, name):
    root, other = tmp_path / "root", tmp_path / "other"
    store = ScratchStore(root, index_write_behind=False)
    try:
        scope = store.scope("r", "a")
        scope.spill(b"a\n", source_tool="t")
        os.link(root / name, other)
        before = _digest(other)
        with pytest.raises(StorageError, match=f"{name} has 2 names"):
            scope.spill(b"b\n", source_tool="t")
        assert _digest(other) == before
        with pytest.raises(StorageError, match=f"{name} has 2 names"):  # (fsck too: it opens a store)
            ScratchStore(root, index_write_behind=False)
    finally:
        store.close()
    if name == "index.sqlite":
        assert _rows(other) == 1


def test_an_index_shm_with_another_name_is_refused_as_another_store_opens(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
        os.link(root / "index.sqlite-shm", tmp_path / "other")
        with pytest.raises(StorageError, match=r"index\.sqlite-shm has 2 names"):
            ScratchStore(root, index_write_behind=False)
