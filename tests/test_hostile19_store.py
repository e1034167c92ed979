"""hostile19: the local store as a hostile co-tenant and a crashing host meet it (concurrency, kills, a hostile
file system under the root, resource exhaustion). Each test is one finding: it failed before its fix.
"""

from __future__ import annotations

import os

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.cli import main

# -- the root itself a link -------------------------------------------------------------------------------------------


def test_a_root_that_is_a_link_to_a_directory_is_that_directory(tmp_path):
    """The root as given may be a link (``~/.cache/scratchfs`` moved to a bigger disk and linked back): it is followed
    as the root is opened, as the README says (only a link to nothing, or to no directory, is refused). Before, the
    store-id check opened it ``O_NOFOLLOW`` and refused it with ``StorageError: cannot open the store root ...: Not a
    directory`` (CLI exit 4) -- after ``prepare_root`` had already made an index and directories in the target."""
    real = tmp_path / "disk" / "scratch"
    real.mkdir(parents=True)
    link = tmp_path / "scratch"
    link.symlink_to(real, target_is_directory=True)
    with ScratchStore(link) as store:  # a new store behind the link
        handle = store.scope("r", "a").spill(b"behind a link\n" * 5000).handle
        store.scope("r", "a").scratch_write("k", b"v" * 70000)
    assert os.path.islink(link) and os.readlink(link) == str(real)  # the link itself is left as it was
    assert (real / "index.sqlite").is_file() and (real / "runs").is_dir()
    with ScratchStore(link) as store:  # an existing store behind the link reopens
        scope = store.scope("r", "a")
        assert scope.read_range(handle, 0, 14).data == b"behind a link\n"
        assert scope.scratch_read("k") == b"v" * 70000
    with ScratchStore(real) as store:  # and is the very store at the target
        assert store.scope("r", "a").scratch_read("k") == b"v" * 70000
    result = CliRunner().invoke(main, ["--root", str(link), "ls", "--json"])
    assert result.exit_code == 0, result.output
    assert handle in result.stdout


# -- what someone else left in the root ------------------------------------------------------------------------------


def test_fsck_names_what_someone_else_left_at_the_top_of_the_root_and_in_locks(tmp_path):
    """A file (0644, another user's), a FIFO and a link to a file outside, put at the top of the root or in
    ``locks/``: never opened or followed, each named by fsck as ``unexpected`` and left by a repair. Before, fsck named
    such finds under ``runs/`` but was silent about these (clean, exit 0). The store's own names, a damaged index moved
    aside and a marker's or reserve's temporary file are no finds."""
    root = tmp_path / "root"
    outside = tmp_path / "secret"
    outside.write_bytes(b"outside the root")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(b"kept\n" * 3000).handle
        store.flush()
    for path in (root / "notes.txt", root / "locks" / "x.lock"):
        path.write_bytes(b"someone else's")
        os.chmod(path, 0o644)
        os.chown(path, 65534, 65534)
    os.mkfifo(root / "pipe")
    (root / "index.sqlite.bak").symlink_to(outside)
    for own in ("index.sqlite.damaged-20261206T000000Z", "store-id.0a1b2c3d.tmp", "reserve.123.tmp"):
        (root / own).write_bytes(b"")
        os.chmod(root / own, 0o600)
    planted = {str(root / name) for name in ("notes.txt", "locks/x.lock", "pipe", "index.sqlite.bak")}
    with ScratchStore(root) as store:
        report = fsck(store)
        assert {p.path for p in report.problems} == planted and not report.clean
        assert all(p.kind == "unexpected" and "scratchfs did not write" in p.detail for p in report.problems)
        assert fsck(store, repair=True).problems and all(os.path.lexists(p) for p in planted)  # left as they are
        assert store.scope("r", "a").read_range(handle, 0, 5).data == b"kept\n"
    assert outside.read_bytes() == b"outside the root"
