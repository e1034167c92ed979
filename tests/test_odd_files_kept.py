"""One rule for what is no regular file at the name of an entry's blob file or segment (a link, FIFO, socket or
directory): a read refuses it (CorruptBlob, never opened or followed), fsck reports the entry ``corrupt``, and the
sweep keeps its row -- nothing stored is dropped for what is in the way. The sweep judged a segment by the size
``lstat`` gave: a FIFO or socket (0 bytes) or a link (its target's path) was "too short", its rows dropped as missing,
while a directory (4096 bytes) at the same name kept them; put back, the segment's entries then read as NotFound."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from scratchfs import CorruptBlob, ScratchStore
from scratchfs.api.inspector import fsck

BIG = os.urandom(60_000).hex().encode()  # (a blob file of its own)
SMALL = b"a small entry, in a segment\n" * 4


@pytest.mark.parametrize("what", ["link", "fifo", "socket", "directory"])
@pytest.mark.parametrize("where", ["segment", "blob file"])
def test_what_is_no_regular_file_at_an_entrys_name_keeps_its_row(tmp_path, where, what):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        handles = {"blob file": scope.spill(BIG).handle, "segment": scope.spill(SMALL).handle}
    data = {"blob file": BIG, "segment": SMALL}[where]
    [name] = (root / "runs" / "run" / "agent").glob("*.zseg" if where == "segment" else "*.zst")
    kept = tmp_path / "moved away"
    shutil.move(name, kept)
    {"link": lambda: name.symlink_to(kept), "fifo": lambda: os.mkfifo(name, 0o600),
     "socket": lambda: os.mknod(name, stat.S_IFSOCK | 0o600), "directory": lambda: name.mkdir(0o700)}[what]()
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        with pytest.raises(CorruptBlob, match="not a regular file"):
            scope.read_handle(handles[where])
        assert [p.kind for p in fsck(store).problems] == ["corrupt"]
        swept = store.sweep(full=True)
        assert (swept.rows_deleted, swept.missing_files) == (0, 0), swept
        assert sorted(e.key for e in store.list_entries()) == sorted(handles.values())
        with pytest.raises(CorruptBlob):
            scope.read_handle(handles[where])  # (not NotFound: the row is still there)
    (name.rmdir if what == "directory" else name.unlink)()
    shutil.move(kept, name)  # put back, the entry reads again: nothing was lost
    with ScratchStore(root) as store:
        assert store.scope("run", "agent").read_handle(handles[where], 0, 100).data == data[:100]
        assert fsck(store).clean
