"""An operator's store on a shared host (newuser21): another user's store, and the commands ``fsck`` prints.

- A root that is there but not this user's to open (another user's store, made 0700 by its owner) is a storage
  error, exit 4, as the README's exit codes say of permissions, naming whose root it is -- not click's usage error
  ("Directory ... is not readable", exit 2) for ``--root``, nor "cannot create the store root" for a root that
  exists. Tests run as root, which ignores permission bits: the command runs in a child that drops to ``nobody``.
- ``fsck``'s problems table names, in a detail that says to run ``scratchfs fsck --repair``, the store it checked
  (``--root ROOT``), as its closing stderr line does: pasted without it, the repair ran on the default store.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore, StorageError
from scratchfs.cli.app import main

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "store-407dd2b"

CHILD = """
    import os, sys
    from scratchfs.cli.app import main
    warm, root, uid, gid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    try:  # every module ls imports, loaded while the interpreter's files are still readable
        main(["ls", "--root", warm], standalone_mode=False)
    except SystemExit:
        pass
    if uid != os.getuid():
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    main(["ls", "--root", root])
"""


def test_another_users_root_is_a_storage_error_naming_its_owner(shared_tmp):
    warm, root = shared_tmp / "warm", shared_tmp / "theirs"
    for path in (warm, root):
        with ScratchStore(path) as store:
            store.scope("r", "a").scratch_write("k", b"v")
    if os.geteuid() == 0:
        user = pwd.getpwnam("nobody")
        uid, gid = user.pw_uid, user.pw_gid
    else:  # (not root: this user's own root, closed to it)
        uid, gid = os.getuid(), os.getgid()
        root.chmod(0)
    argv = [sys.executable, "-c", textwrap.dedent(CHILD), str(warm), str(root), str(uid), str(gid)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # (this checkout's scratchfs, from cwd /)
    proc = subprocess.run(argv, capture_output=True, timeout=120, cwd="/", env=env)
    err = proc.stderr.decode()
    assert proc.returncode == 4, err
    assert err.startswith(f"scratchfs: storage: cannot open the store root {root}: permission denied"), err
    if os.geteuid() == 0:
        assert f"(owned by uid 0, mode 0700; this process runs as uid {uid}: " in err, err
    assert "Traceback" not in err and "usage" not in err


def test_fsck_tables_repair_command_names_the_store(tmp_path, monkeypatch):
    root = tmp_path / "old"
    shutil.copytree(FIXTURE, root)
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    result = CliRunner().invoke(main, ["fsck", "--root", str(root)])
    assert result.exit_code == 3, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("corrupt\t")]
    assert len(rows) == 4, result.stdout
    for row in rows:  # each detail's command repairs this store, not the default one
        assert f"`scratchfs fsck --repair --root {root}` binds it" in row, row


@pytest.mark.parametrize("size", [100_000, 10])  # a blob file of its own, a segment's record
def test_a_write_after_the_root_was_removed_says_so(tmp_path, size):
    """An operator's ``rm -rf`` of the root under a running server: each later write said "cannot create the blob
    directory runs/r/a: it was removed again 50 times", as if a sweep raced it, and not that the root was gone."""
    root = tmp_path / "s"
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        scope.spill(b"x" * 100_000)
        shutil.rmtree(root)
        with pytest.raises(StorageError) as caught:
            scope.scratch_write("k", b"y" * size)
    assert str(caught.value) == (f"cannot create the blob directory runs/r/a: the store root {root} was removed "
                                 "while this store had it open; reopen the store (restart the process) to make it "
                                 "anew")
