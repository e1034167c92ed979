"""The file system is not trusted: links, FIFOs, directories and loose permissions planted inside the root (issue 9).

Each test plants what an attacker or an unlucky operator could, then checks that scratchfs neither follows it (the
files outside the root are byte for byte as they were), nor blocks on it, nor crashes on it: it raises one typed
error naming what it found, and fsck reports it without touching the target.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine import safe_fs
from scratchfs.foundation.errors import CorruptBlob, NotFound, StorageError

from .conftest import FIXTURE_FILES

SECRET = b"the user's own file, not scratchfs's\n"


def outside(tmp_path: Path) -> Path:
    """A directory outside the store's root holding a user's files (and a subdirectory), to be left alone."""
    target = tmp_path / "outside"
    (target / "sub").mkdir(parents=True)
    (target / "file.txt").write_bytes(SECRET)
    (target / "sub" / "nested.txt").write_bytes(SECRET)
    (target / ("a" * 24 + ".zst")).write_bytes(SECRET)  # named like a blob
    return target


def snapshot(path: Path) -> dict[str, bytes | None]:
    """Every file and directory under ``path`` with its bytes (None for a directory)."""
    return {str(p.relative_to(path)): (None if p.is_dir() else p.read_bytes()) for p in sorted(path.rglob("*"))}


def in_thread(call, timeout: float = 10.0):
    """Run ``call`` in a daemon thread; return ``("ok", value)`` or ``("raised", exception)``; fail if it blocks."""
    box: list = []

    def run() -> None:
        try:
            box.append(("ok", call()))
        except BaseException as exc:
            box.append(("raised", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        pytest.fail(f"the call blocked for {timeout} s")
    return box[0]


def data() -> bytes:
    return FIXTURE_FILES[0].read_bytes()[:20_000]


# -- links in place of directories --------------------------------------------------------------------------------

@pytest.mark.parametrize("level", ["run", "agent"])
def test_a_spill_never_writes_through_a_linked_run_or_agent_directory(tmp_path, level):
    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("r", "a")
        scope.spill(b"first", source_tool="t")  # creates runs/r/a
        linked = store.blobs.run_dir("r") if level == "run" else store.blobs.agent_dir("r", "a")
        os.rename(linked, tmp_path / "moved-away")
        os.symlink(target, linked)
        with pytest.raises(StorageError, match="symbolic link"):
            scope.spill(data(), source_tool="t")
        with pytest.raises(StorageError, match="symbolic link"):
            scope.scratch_write("k", b"value")
    assert snapshot(target) == before


def test_delete_run_moves_a_linked_run_directory_to_the_trash_and_removes_the_link_only(tmp_path):
    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root") as store:
        store.scope("r", "a").spill(b"x", source_tool="t")
        run_dir = store.blobs.run_dir("r")
        os.rename(run_dir, tmp_path / "moved-away")
        os.symlink(target, run_dir)
        store.delete_run("r")
        store.sweep()
        assert os.listdir(store.root / "trash") == []
        assert not os.path.lexists(run_dir)
    assert snapshot(target) == before


def test_a_link_planted_in_the_trash_is_removed_not_followed(tmp_path):
    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root") as store:
        os.symlink(target, store.root / "trash" / "planted")
        os.mkdir(store.root / "trash" / "dir")
        os.symlink(target, store.root / "trash" / "dir" / "inner-link")
        store.sweep()
        assert os.listdir(store.root / "trash") == []
    assert snapshot(target) == before


def test_a_planted_trash_directory_that_cannot_be_removed_whole_is_removed_as_far_as_it_can_be(tmp_path,
                                                                                              monkeypatch):
    """A tree in the trash deeper than safe_fs.MAX_DEPTH cannot be removed whole: the removal stopped at the first
    failure, leaving the files and links beside and above it. Now everything else goes (links removed, not
    followed), the sweep counts the entry in delete_failures and fsck --repair reports it, neither crashing."""
    from scratchfs.engine.safe_fs import MAX_DEPTH

    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root") as store:
        planted = store.root / "trash" / "planted"
        level = planted
        for i in range(MAX_DEPTH + 3):  # a file and a link beside the directory at every level
            (level / "d").mkdir(parents=True)
            (level / f"f{i}").write_bytes(b"x")
            os.symlink(target, level / f"link{i}")
            level = level / "d"
        os.mkdir(store.root / "trash" / "other")
        (store.root / "trash" / "other" / "file").write_bytes(b"y")
        result = store.sweep()
        assert (result.delete_failures, result.orphans_removed) == (1, 1)  # "other" went whole
        files = [p.relative_to(planted) for p in planted.rglob("*") if p.is_symlink() or not p.is_dir()]
        # only the directory chain down to the depth bound, and what is below it (never reached) is left
        assert files and all(len(p.parts) > MAX_DEPTH for p in files), files
        assert os.listdir(store.root / "trash") == ["planted"]
        assert fsck(store).clean  # moved there moments ago: may be a delete in progress
        from scratchfs.api import inspector

        monkeypatch.setattr(inspector, "TRASH_GRACE_SECONDS", -5.0)  # as if it had stayed past the grace
        (problem,) = fsck(store).problems  # a check without repair says what a repair would (it said clean)
        assert problem.kind == "unexpected" and problem.path == str(planted) and not problem.repaired
        report = fsck(store, repair=True)
        (problem,) = report.problems
        assert problem.kind == "unexpected" and problem.path == str(planted) and not report.clean
    assert snapshot(target) == before


@pytest.mark.parametrize("which", ["trash", "runs"])
def test_a_sweep_never_removes_anything_through_a_linked_trash_or_runs(tmp_path, which):
    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root", orphan_grace=0) as store:
        store.scope("r", "a").spill(b"x", source_tool="t")
        store.flush()  # its row (written behind) committed before the directory is swapped
        os.rename(store.root / which, tmp_path / f"{which}-moved")
        os.symlink(target, store.root / which)
        if which == "runs":
            with pytest.raises(StorageError, match="runs is a symbolic link"):
                store.sweep()
        else:
            store.sweep()
        report = fsck(store, repair=True)
        assert report.entries_checked == 1
        assert report.counts()["unexpected"] == (2 if which == "runs" else 0)  # runs/ itself, and the entry's row
        assert len(store.list_entries()) == 1  # a row behind a link is reported, never dropped
    assert snapshot(target) == before
    with pytest.raises(StorageError, match=f"{which} is a symbolic link"):  # refused at open, named
        ScratchStore(tmp_path / "root").close()


# -- lock files ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["delete.lock", "delete.gate", "sweep.lock", "index.lock"])
def test_a_lock_file_planted_as_a_link_is_a_typed_error_and_its_target_is_untouched(tmp_path, name):
    target = outside(tmp_path)
    before = snapshot(target)
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        (root / "locks" / name).unlink(missing_ok=True)
        os.symlink(target / "file.txt", root / "locks" / name)  # planted while the store is open
        scope = store.scope("r", "a")
        if name in ("delete.lock", "delete.gate"):  # a new thread opens its own descriptor of the delete lock
            # (a small spill's row is written behind: its commit, the flush, takes the delete lock)
            outcome, exc = in_thread(lambda: (scope.spill(b"x", source_tool="t"), store.flush()))
            assert outcome == "raised" and isinstance(exc, StorageError) and "symbolic link" in str(exc), exc
        if name == "sweep.lock":
            with pytest.raises(StorageError, match="symbolic link"):
                store.sweep()
    with pytest.raises(StorageError, match=f"locks/{name} is a symbolic link"):
        ScratchStore(root)  # and a store is not opened beside it
    assert snapshot(target) == before


# -- blobs that are not regular files -----------------------------------------------------------------------------

def _replace_blob(store: ScratchStore, kind: str, key: str, how: str, target: Path) -> Path:
    entry = next(e for e in store.list_entries() if e.key == key and e.kind == kind)
    path = Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
    path.unlink()
    if how == "fifo":
        os.mkfifo(path, 0o600)
    elif how == "directory":
        path.mkdir()
        (path / "inside").write_bytes(b"x")
    else:
        os.symlink(target / "file.txt", path)
    return path


@pytest.mark.parametrize("how", ["fifo", "directory", "link"])
def test_a_blob_replaced_by_a_fifo_directory_or_link_is_corrupt_and_nothing_blocks(tmp_path, how):
    target = outside(tmp_path)
    before = snapshot(target)
    with ScratchStore(tmp_path / "root", segment_entry_bytes=0) as store:  # segments: tests/test_segments.py
        scope = store.scope("r", "a")
        handle = scope.spill(data(), source_tool="t").handle
        scope.scratch_write("k", data())
        store.entries.drop_value_cache()  # no cached value: read the file
        paths = [_replace_blob(store, "handle", handle, how, target), _replace_blob(store, "scratch", "k", how, target)]
        for call in (lambda: scope.read_handle(handle), lambda: scope.read_handle(handle, match="a"),
                     lambda: scope.read_handle(handle, line=1), lambda: scope.scratch_read("k")):
            outcome, value = in_thread(call)
            assert outcome == "raised" and isinstance(value, CorruptBlob), value
            assert {"fifo": "FIFO", "directory": "directory", "link": "symbolic link"}[how] in str(value)
        outcome, report = in_thread(lambda: fsck(store))
        assert outcome == "ok"
        assert report.counts()["corrupt"] == 2 and not report.clean
        outcome, report = in_thread(lambda: fsck(store, repair=True))
        assert outcome == "ok", report
        if how != "directory":
            assert all(not os.path.lexists(p) for p in paths)  # the FIFO or link itself is removed
        with pytest.raises(NotFound):
            scope.read_handle(handle)
    assert snapshot(target) == before


# -- permissions --------------------------------------------------------------------------------------------------

def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_every_file_is_private_from_the_moment_it_exists_whatever_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        with ScratchStore(tmp_path / "root") as store:
            scope = store.scope("r", "a")
            scope.spill(b"secret preview " * 1000, source_tool="t")
            scope.scratch_write("k", b"v")
            store.sweep()
            found = [store.root, *store.root.rglob("*")]
            modes = {path: _mode(path) for path in found}
    finally:
        os.umask(old)
    names = {p.name for p in found}
    assert {"index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "delete.lock", "sweep.lock"} <= names
    for path, mode in modes.items():
        assert mode == (0o700 if path.is_dir() else 0o600), path


def test_an_existing_loose_root_and_index_are_tightened(tmp_path):
    root = tmp_path / "root"
    ScratchStore(root).close()
    os.chmod(root, 0o755)
    os.chmod(root / "runs", 0o777)
    os.chmod(root / "index.sqlite", 0o644)
    with ScratchStore(root) as store:
        store.scope("r", "a").spill(b"x", source_tool="t")
    assert (_mode(root), _mode(root / "runs"), _mode(root / "index.sqlite")) == (0o700, 0o700, 0o600)


def test_a_reserve_a_restore_loosened_is_made_private_as_the_store_opens(tmp_path):
    """README (Security, Operating one host): every file 0600. A copy restored with loose modes had its index and
    lock files tightened as it opened, its blobs by fsck --repair, and its ``reserve`` by nothing: 0666 it stayed,
    and fsck found nothing to say. It is written again, private, as the store opens."""
    root = tmp_path / "root"
    ScratchStore(root).close()
    os.chmod(root / "reserve", 0o666)
    with ScratchStore(root) as store:
        assert fsck(store, repair=True).clean
    found = os.lstat(root / "reserve")
    assert (stat.S_IMODE(found.st_mode), found.st_size, stat.S_ISREG(found.st_mode)) == (0o600, 256 * 1024, True)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the root directory to another user")
def test_a_loose_root_owned_by_another_user_is_refused(tmp_path):
    root = tmp_path / "root"
    root.mkdir(mode=0o755)
    os.chmod(root, 0o755)
    os.chown(root, 65534, 65534)
    with pytest.raises(StorageError, match="other users"):
        ScratchStore(root)
    assert _mode(root) == 0o755 and os.listdir(root) == []


def test_a_pending_blob_file_is_in_place_only_while_that_very_file_is_at_its_name(tmp_path):
    """The commit check of a blob file (``PendingBlob.exists``, one ``lstat`` from the root): True while the file is
    where it was written; False once a delete moved its agent directory to the trash; StorageError once another
    file took its name or a link to it stands there (the last component is never followed) while its directory
    stayed, and once it was released."""
    from scratchfs.engine.blob_file import PendingBlob
    from scratchfs.foundation.checks import new_token

    with ScratchStore(tmp_path / "root") as store:
        blobs = store.blobs
        blobs.segment_entry_bytes = 0  # a blob file of its own
        tokens = {a: new_token() for a in ("stay", "moved", "replaced", "linked")}
        stay, moved, replaced, linked = (blobs.write("run", a, t, [b"x" * 5000]) for a, t in tokens.items())
        assert all(isinstance(p, PendingBlob) and p.exists() for p in (stay, moved, replaced, linked))
        blobs.move_to_trash(blobs.agent_dir("run", "moved"))
        path = Path(blobs.path("run", "replaced", tokens["replaced"]))
        path.unlink()
        path.write_bytes(b"x" * 5000)
        path = Path(blobs.path("run", "linked", tokens["linked"]))
        aside = path.with_name("aside")
        path.rename(aside)
        path.symlink_to(aside)
        assert (stay.exists(), moved.exists()) == (True, False)  # moved by a delete: ordered before it
        for gone in (replaced, linked):  # left its place while its directory stayed: the write fails
            with pytest.raises(StorageError, match="left its place"):
                gone.exists()
        for p in (stay, moved, replaced, linked):
            p.discard()
        with pytest.raises(StorageError, match="released"):
            stay.exists()  # released: never in place again


def test_is_at_confirms_only_the_very_file_at_its_name(tmp_path):
    """``safe_fs.is_at``, the one in-place check of blob files, segments and compaction: one ``lstat``, never a
    link at the name, and a file moved away, replaced or missing is not in place."""
    from scratchfs.engine import safe_fs

    (tmp_path / "runs" / "r").mkdir(parents=True)
    path = tmp_path / "runs" / "r" / "f"
    path.write_bytes(b"x")
    root = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fd = os.open(path, os.O_RDONLY)
    try:
        ident = safe_fs.identity(fd)
        assert ident == (os.stat(path).st_dev, os.stat(path).st_ino)
        assert safe_fs.is_at(root, "runs/r/f", ident)
        assert not safe_fs.is_at(root, "runs/r/g", ident)  # missing
        (tmp_path / "runs" / "r").rename(tmp_path / "trash")
        assert not safe_fs.is_at(root, "runs/r/f", ident)  # its directory moved away (a delete_run)
        (tmp_path / "trash").rename(tmp_path / "runs" / "r")
        assert safe_fs.is_at(root, "runs/r/f", ident)  # and back
        path.rename(path.with_name("aside"))
        path.symlink_to(path.with_name("aside"))
        assert not safe_fs.is_at(root, "runs/r/f", ident)  # a link to it at its name: not followed
        path.unlink()
        path.write_bytes(b"x")
        assert not safe_fs.is_at(root, "runs/r/f", ident)  # another file at its name
    finally:
        os.close(fd)
        os.close(root)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=8), st.integers(1, 97), st.sampled_from([None, 0, 5, 4096]))
def test_write_all_writes_every_buffer_in_order_however_short_the_kernel_writes(tmp_path_factory, buffers, most,
                                                                                 offset):
    # the blob writer's writev and the segment append's pwritev at an offset: one loop (safe_fs.write_all)
    path = tmp_path_factory.mktemp("w") / "f"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    real_writev, real_pwritev = os.writev, os.pwritev
    calls = []

    def short(views):  # the kernel takes at most `most` bytes a call
        room, cut = most, []
        for view in views:
            cut.append(view[:room])
            room -= len(cut[-1])
        calls.append(sum(map(len, cut)))
        return [c for c in cut if len(c)]

    try:
        with mock.patch.object(os, "writev", lambda f, v: real_writev(f, short(v))), \
                mock.patch.object(os, "pwritev", lambda f, v, at: real_pwritev(f, short(v), at)):
            safe_fs.write_all(fd, buffers, offset)
    finally:
        os.close(fd)
    data = b"".join(buffers)
    assert path.read_bytes() == (b"\0" * (offset or 0) + data if data else b"")
    assert sum(calls) == len(data) and all(0 < c <= most for c in calls)


def test_write_all_refuses_a_file_that_takes_no_bytes(tmp_path):
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        with mock.patch.object(os, "pwritev", return_value=0), pytest.raises(StorageError, match="no bytes"):
            safe_fs.write_all(fd, [b"abc"], 0)
    finally:
        os.close(fd)


def _read_all(scope, handle: str, size: int) -> bytes:
    out, offset = b"", 0
    while offset < size:
        piece = scope.read_range(handle, offset, 65536)
        out, offset = out + piece.data, offset + len(piece.data)
    return out


@pytest.mark.parametrize("segment", [False, True], ids=["blob-file", "segment"])
def test_a_copy_of_a_live_blob_in_another_scopes_directory_is_an_orphan_the_original_untouched(tmp_path, segment):
    """Rows were looked up by token alone: a live blob file (or segment) copied into another run/agent directory
    passed as known, never reported nor collected. A file is known only to a row of its own directory's scope."""
    data = FIXTURE_FILES[0].read_bytes()[: 30_000 if segment else None]
    with ScratchStore(tmp_path / "root", orphan_grace=3600) as store:
        if not segment:
            store.blobs.segment_entry_bytes = 0  # a file of its own
        scope = store.scope("run-a", "agent-1")
        handle = scope.spill(data, source_tool="browser.get").handle
        store.scope("run-b", "agent-2").scratch_write("k", b"the other scope's own entry")
        suffix = ".zseg" if segment else ".zst"
        (original,) = [p for p in store.blobs.agent_dir("run-a", "agent-1").iterdir() if p.suffix == suffix]
        copy = store.blobs.agent_dir("run-b", "agent-2") / original.name
        copy.write_bytes(original.read_bytes())
        report = fsck(store)
        if segment:  # a segment no row of its directory's scope names is dead
            assert report.segments.dead_segments == 1 and report.segments.segments == 3
        else:
            assert [(p.kind, p.path) for p in report.problems] == [("orphaned", str(copy))]
        assert store.sweep().orphans_removed == 0 and copy.exists()  # within the grace period
        old = time.time() - 7200
        os.utime(copy, (old, old))
        os.utime(original, (old, old))  # as old as its copy: still live, still kept
        assert store.sweep().orphans_removed == 1
        assert not copy.exists() and original.exists()
        assert _read_all(scope, handle, len(data)) == data
        assert store.scope("run-b", "agent-2").scratch_read("k") == b"the other scope's own entry"
        assert fsck(store).problems == []


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs as root)")
@pytest.mark.parametrize("name", ["runs", "trash", "locks", "index.sqlite", "locks/sweep.lock"])
def test_a_part_of_the_store_another_user_owns_and_opens_to_all_is_refused_by_its_path(tmp_path, name):
    """A directory or file of the store, owned by another user and open to others, is refused (StorageError): the
    message named ``runs`` alone (hostile27), not which store's; it names the path."""
    root = tmp_path / "store"
    ScratchStore(root).close()
    target = root / name
    os.chown(target, 65534, 65534)  # (nobody)
    os.chmod(target, 0o777 if target.is_dir() else 0o666)
    with pytest.raises(StorageError) as got:
        ScratchStore(root)
    assert f"{target} is accessible to other users (mode 0{0o777 if target.is_dir() else 0o666:o}) and owned by " \
           "uid 65534, not by this user: refusing to use it" in str(got.value)
