"""A store's own small files replaced by a link, a FIFO or a directory (a local user tampering with the root):
``locks/sweep.cursor`` so replaced left every incremental sweep restarting from the first slice, never reconciling
what lies past it, silently; ``reserve`` so replaced leaves a full disk without its reserve. The sweep now removes
what is at the cursor's name (a link itself, never its target) and writes a cursor again; fsck reports both."""

from __future__ import annotations

import os
import stat

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine import sweeper


def _odd(path, kind: str, tmp_path) -> None:
    if os.path.lexists(path):
        os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        (tmp_path / "victim").write_bytes(b"outside the root")
        os.symlink(tmp_path / "victim", path)
    else:
        os.mkdir(path)


@pytest.mark.parametrize("kind", ["fifo", "link", "dir"])
def test_incremental_sweeps_get_past_their_first_slice_when_the_cursor_was_replaced(tmp_path, kind, monkeypatch):
    # (a slice of 128 rows, not sweeper.SLICE_ROWS's 2,048: 300 spills, not 3,000 -- 2-14 s a kind on a loaded run)
    monkeypatch.setattr(sweeper, "SLICE_ROWS", 128)
    root = tmp_path / "root"
    with ScratchStore(root, segment_entry_bytes=0, index_write_behind=False) as store:
        scope = store.scope("r", "a")
        handles = [scope.spill(b"%d\n" % i * 10, source_tool="t").handle for i in range(300)]
        blobs = {e.key: e.blob for e in store.list_entries()}
    for handle in handles[-50:]:  # past the first slice of 128 rows
        os.unlink(root / "runs" / "r" / "a" / f"{blobs[handle]}.zst")
    _odd(root / "locks" / "sweep.cursor", kind, tmp_path)
    with ScratchStore(root) as store:
        found = 0
        for _ in range(100):  # (each slice also stops after about 8 ms: on a loaded machine it takes more sweeps)
            found += store.sweep().missing_files
            if found == 50:
                break
        assert found == 50  # (0 before, however many sweeps: every sweep began again)
    assert os.path.isfile(root / "locks" / "sweep.cursor") and not os.path.islink(root / "locks" / "sweep.cursor")
    if kind == "link":
        assert (tmp_path / "victim").read_bytes() == b"outside the root"


@pytest.mark.parametrize(("name", "kind"), [("reserve", "dir"), ("locks/sweep.cursor", "fifo"),
                                           ("locks/sweep.cursor", "dir")])
def test_fsck_reports_a_reserve_or_cursor_that_is_no_regular_file(tmp_path, name, kind):
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").spill(b"x" * 1000, source_tool="t")
        store.sweep()
    _odd(root / name, kind, tmp_path)
    with ScratchStore(root) as store:  # (a link or FIFO at reserve is replaced by the reserve as the store opens)
        report = fsck(store)
    assert [p.path for p in report.problems] == [str(root / name)]  # (clean before)
    assert "not a regular file" in report.problems[0].detail and not report.clean


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_link_or_fifo_at_reserve_is_replaced_by_the_reserve_as_a_store_opens(tmp_path, kind):
    """README (Security): a link or FIFO at ``reserve`` is replaced as a store opens, its target untouched, so fsck
    finds nothing there (a directory stays and is reported: the test above)."""
    root = tmp_path / "root"
    ScratchStore(root).close()
    _odd(root / "reserve", kind, tmp_path)
    with ScratchStore(root) as store:
        report = fsck(store)
    st = os.lstat(root / "reserve")
    assert (stat.S_ISREG(st.st_mode), st.st_size, stat.S_IMODE(st.st_mode)) == (True, 256 * 1024, 0o600)
    assert report.problems == [] and report.clean
    if kind == "link":
        assert (tmp_path / "victim").read_bytes() == b"outside the root"


def test_a_hard_link_at_the_sweep_cursor_is_never_written_through(tmp_path):
    """A second name for a file outside the root, planted at ``locks/sweep.cursor`` (``ln FILE locks/sweep.cursor``:
    a regular file, so no link check saw it): the sweep overwrote that file in place with its cursor. The name is
    now removed, the file outside left as it was, and the cursor written anew."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        store.scope("r", "a").spill(b"x" * 1000, source_tool="t")
        store.sweep()
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"the user's own file\n")
    cursor = root / "locks" / "sweep.cursor"
    cursor.unlink()
    os.link(outside, cursor)
    with ScratchStore(root) as store:
        report = fsck(store)
        assert [(p.path, "hard link" in p.detail) for p in report.problems] == [(str(cursor), True)]
        store.sweep()
        assert fsck(store).clean
        assert store.sweep().skipped is False
    assert outside.read_bytes() == b"the user's own file\n"
    assert os.lstat(cursor).st_nlink == 1 and os.lstat(outside).st_nlink == 1
