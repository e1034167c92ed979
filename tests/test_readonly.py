"""Read-only stores can be read (issue 9): without write permission or on a read-only mount, reads, listings,
``stats`` and ``fsck`` work, and every write raises one StorageError naming the read-only cause.

Tests run as root, which ignores permission bits: the reader is a child process running as ``nobody`` (or as the
current user, when not root), on a root whose files it owns with the write bits cleared. The read-only mount test
uses a private mount namespace (``unshare -m``) and a read-only bind mount; it is skipped, with the reason, where
the kernel does not allow one.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scratchfs import ScratchStore

DATA = b"".join(b"row %05d of the spilled result\n" % i for i in range(4000))

PRELUDE = """
    import json, os, sys
    import pickle, scratchfs.api.inspector, scratchfs.cli.app, scratchfs.cli.admin, scratchfs.cli.render  # as root
    import rich.console, rich.table, rich.text, scratchfs.engine.search
    import scratchfs.api.scope, scratchfs.api.describe, scratchfs.api.contract, scratchfs.cli.verbs  # (loaded when
    # first used: a scope, a spill, a read's reply -- as root, before the interpreter's files are out of reach)
    uid, gid = int(sys.argv[1]), int(sys.argv[2])
    del sys.argv[1:3]
    if uid != os.getuid():  # drop privileges: the interpreter's own files are not readable by nobody
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
"""

READER = PRELUDE + """
    from scratchfs import ScratchStore
    from scratchfs.api.inspector import fsck
    from scratchfs.foundation.errors import ScratchError, StorageError

    root, handle = sys.argv[1], sys.argv[2]
    out = {"writes": {}}
    with ScratchStore(root, refresh_on_read=True) as store:
        scope = store.scope("run", "agent")
        out["read_only"] = store.read_only
        out["range"] = scope.read_handle(handle, 10, 40).data.decode()
        out["lines"] = scope.read_handle(handle, line=3, lines=2).data.decode()
        out["match"] = len(scope.read_handle(handle, match="row 03999").windows)
        out["scratch"] = scope.scratch_read("k").decode()
        out["wal_only"] = scope.scratch_read("late").decode()
        out["listed"] = sorted(e.key for e in scope.scratch_list())
        out["entries"] = len(store.list_entries())
        report = fsck(store)
        out["fsck"] = [report.index, len(report.problems), report.files_checked]
        writes = {
            "spill": lambda: scope.spill(b"y" * 50_000),
            "scratch_write": lambda: scope.scratch_write("k", b"new"),
            "scratch_delete": lambda: scope.scratch_delete("k"),
            "delete_run": lambda: store.delete_run("run"),
            "delete_agent": lambda: store.delete_agent("run", "agent"),
            "sweep": store.sweep,
        }
        for name, call in writes.items():
            try:
                call()
                out["writes"][name] = "acknowledged"
            except StorageError as exc:
                out["writes"][name] = "StorageError: " + str(exc)
            except BaseException as exc:
                out["writes"][name] = "untyped: " + repr(exc)
        out["scratch_after"] = scope.scratch_read("k").decode()
    print(json.dumps(out))
"""


def _reader_user() -> tuple[int, int]:
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def _fill(root: Path, keep_wal: bool) -> str:
    """A store with a spill and two scratch keys; with ``keep_wal``, a copy taken while open, whose last write is
    only in the ``-wal`` file (so a read-only reader must read the log, not ignore it)."""
    src = root.parent / (root.name + "-src") if keep_wal else root
    store = ScratchStore(src)
    scope = store.scope("run", "agent")
    handle = scope.spill(DATA, source_tool="t").handle
    scope.scratch_write("k", b"old value")
    scope.scratch_write("late", b"written last")
    if keep_wal:
        assert os.path.getsize(f"{src}/index.sqlite-wal") > 0
        shutil.copytree(src, root)
    store.close()
    return handle


def _make_read_only(root: Path, uid: int, gid: int) -> None:
    for dirpath, dirnames, files in os.walk(root):
        for name in files:
            os.chown(os.path.join(dirpath, name), uid, gid)
            os.chmod(os.path.join(dirpath, name), 0o400)
        for name in dirnames:
            os.chown(os.path.join(dirpath, name), uid, gid)
    for dirpath, dirnames, _files in os.walk(root, topdown=False):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o500)
    os.chown(root, uid, gid)
    os.chmod(root, 0o500)


def _run_reader(root: Path, handle: str, user: tuple[int, int], prefix: tuple[str, ...] = ()) -> dict:
    argv = [*prefix, sys.executable, "-c", textwrap.dedent(READER), *map(str, user), str(root), handle]
    proc = subprocess.run(argv, capture_output=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(proc.stdout.decode().splitlines()[-1])


def _check(out: dict, cause: str) -> None:
    assert cause in (out["read_only"] or "")
    assert out["range"] == DATA[10:50].decode()
    assert out["lines"] == b"".join(DATA.splitlines(keepends=True)[2:4]).decode()
    assert out["match"] == 1
    assert out["scratch"] == "old value" and out["scratch_after"] == "old value"
    assert out["wal_only"] == "written last"
    assert out["listed"] == ["k", "late"] or out["listed"] == ["k", "late"][::-1]
    assert out["entries"] == 3
    assert out["fsck"] == ["ok", 0, 3]
    assert set(out["writes"]) == {"spill", "scratch_write", "scratch_delete", "delete_run", "delete_agent", "sweep"}
    for name, outcome in out["writes"].items():
        assert outcome.startswith("StorageError: "), (name, outcome)
        assert "read-only" in outcome and cause in outcome, (name, outcome)


@pytest.mark.parametrize("keep_wal", [False, True], ids=["closed cleanly", "open copy with a -wal"])
def test_a_store_without_write_permission_can_be_read(shared_tmp, keep_wal):
    user = _reader_user()
    root = shared_tmp / "root"
    handle = _fill(root, keep_wal)
    _make_read_only(root, *user)
    before = sorted((p.name, p.stat().st_size) for p in root.rglob("*"))
    out = _run_reader(root, handle, user)
    _check(out, "no write permission")
    assert sorted((p.name, p.stat().st_size) for p in root.rglob("*")) == before  # nothing changed on disk


CLI = PRELUDE + """
    scratchfs.cli.app.main()
"""


def _cli(root: Path, user: tuple[int, int], *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    argv = [*prefix, sys.executable, "-c", textwrap.dedent(CLI), *map(str, user), *args, "--root", str(root)]
    return subprocess.run(argv, capture_output=True, timeout=120, cwd="/")


def test_cli_reads_a_store_without_write_permission(shared_tmp):
    user = _reader_user()
    root = shared_tmp / "root"
    _fill(root, keep_wal=False)
    _make_read_only(root, *user)
    for args in (["ls"], ["stats"], ["fsck"], ["scratch-read", "--run", "run", "--agent", "agent", "k"]):
        proc = _cli(root, user, *args)
        assert proc.returncode == 0, (args, proc.stderr.decode())
    assert _cli(root, user, "scratch-read", "--run", "run", "--agent", "agent", "k").stdout == b"old value"
    proc = _cli(root, user, "sweep")
    assert proc.returncode == 4
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "read-only" in err and "Traceback" not in err


def _unshare_works() -> str | None:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare or mount is not installed"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
    return None if probe.returncode == 0 else f"no private mount namespace here: {probe.stderr.decode().strip()}"


def test_a_store_on_a_read_only_mount_can_be_read(shared_tmp):
    why = _unshare_works()
    if why:
        pytest.skip(why)
    root = shared_tmp / "root"
    handle = _fill(root, keep_wal=False)
    os.chmod(root, 0o755)  # the reader is root here: the mount, not the permissions, is what stops writes
    view = shared_tmp / "view"
    view.mkdir()
    script = f'mount --bind "{root}" "{view}" && mount -o remount,bind,ro "{view}" && exec "$@"'
    prefix = ("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh")
    me = (os.getuid(), os.getgid())
    out = _run_reader(view, handle, me, prefix)
    _check(out, "mounted read-only")
    proc = _cli(view, me, "fsck", prefix=prefix)
    assert proc.returncode == 0, proc.stderr.decode()
