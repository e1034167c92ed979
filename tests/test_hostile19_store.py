"""hostile19: the local store as a hostile co-tenant and a crashing host meet it (concurrency, kills, a hostile
file system under the root, resource exhaustion). Each test is one finding: it failed before its fix.
"""

from __future__ import annotations

import os

from click.testing import CliRunner

from scratchfs import ScratchStore
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
