"""Resource limits met for real (atk28): a command run under an address-space limit (``ulimit -v``) in a subprocess
ends in the content stored or one stderr line and a documented exit code -- never a traceback, never another
library's own message and exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scratchfs import ScratchStore

REPO = Path(__file__).resolve().parent.parent

UNDER_A_MEMORY_LIMIT = """
import resource, sys
def address_space():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
from scratchfs.cli import main
margin = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (address_space() + margin, resource.RLIM_INFINITY))
sys.argv = ["scratchfs", *sys.argv[2:]]
main()
"""


def _cli(*args: str, stdin=None, margin: int | None = None) -> subprocess.CompletedProcess:
    """``scratchfs ARGS`` in a subprocess; with ``margin``, under an address-space limit of the interpreter's
    address space (scratchfs's CLI imported) plus ``margin`` bytes, set just before the command runs."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if margin is None:
        command = [sys.executable, "-m", "scratchfs", *args]
    else:
        command = [sys.executable, "-c", UNDER_A_MEMORY_LIMIT, str(margin), *args]
    return subprocess.run(command, stdin=stdin, capture_output=True, env=env, cwd=REPO, timeout=300)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the address space from /proc")
@pytest.mark.parametrize("margin_mib", [1, 16, 64])
def test_a_spill_under_a_memory_limit_is_stored_or_one_line_exit_4(tmp_path, margin_mib):
    content = os.urandom(8 << 20)
    source = tmp_path / "content.bin"
    source.write_bytes(content)
    root = tmp_path / "root"
    scope = ("--root", str(root), "--run", "r", "--agent", "a")
    # the root made first: a new root's schema is written by sqlite-utils (the package chosen for it), whose import
    # brings numpy when installed, and numpy's OpenBLAS ends a process under a memory limit with a line of its own
    ScratchStore(root).close()
    with source.open("rb") as stdin:
        done = _cli("spill", "-", "--tool", "t", *scope, stdin=stdin, margin=margin_mib << 20)
    err = done.stderr.decode()
    assert done.returncode in (0, 4), (done.returncode, err[-2000:])
    if done.returncode == 4:  # before: a MemoryError traceback, exit 1; or numpy's OpenBLAS's own line, exit 1
        assert err.count("\n") == 1, err[-2000:]  # Python's MemoryError, or SQLite's map of the -shm file failing
        assert err.startswith("scratchfs: out of memory: ") or (
            err.startswith("scratchfs: storage: ") and "out of memory or address space" in err), err[-2000:]
        assert b'"handle"' not in done.stdout
    else:
        handle = next(line.split('"')[3] for line in done.stdout.decode().splitlines() if '"handle"' in line)
        read = _cli("read-handle", handle, "--all", *scope)
        assert read.returncode == 0 and read.stdout == content
    check = _cli("fsck", "--root", str(root))  # a spill stopped half way left nothing behind
    assert check.returncode == 0, check.stderr.decode()
    assert b"missing 0, corrupt 0, orphaned 0, unexpected 0, incomplete writes 0" in check.stdout, check.stdout


def test_a_store_opened_again_imports_neither_sqlite_utils_nor_numpy_nor_pandas(tmp_path):
    """Creating the index's schema imports sqlite-utils, which imports numpy and pandas when installed: 100 ms, tens
    of MiB, and numpy's OpenBLAS threads, whose allocation failure under ``ulimit -v`` ends the process. Only a new
    root (or a migration) writes the schema: every later opening of the store imports none of them."""
    ScratchStore(tmp_path / "root").close()
    code = ("import sys; from scratchfs import ScratchStore\n"
            "with ScratchStore(sys.argv[1]) as store:\n"
            "    store.scope('r', 'a').spill(b'x' * 100000, source_tool='t')\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'sqlite_utils') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "root")], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


FSCK_WITHOUT_DESCRIPTORS = """
import errno, json, os, resource, sys
from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.foundation.errors import ScratchError
store = ScratchStore(sys.argv[1])
for i in range(3):
    store.scope("r", "a").spill(os.urandom(20_000), source_tool="t")
fsck(store)  # the index's connection and every module are ready: only the checks' own files are left to open
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
try:
    report = fsck(store)
    out = {"problems": [p.detail for p in report.problems]}
except ScratchError as exc:
    out = {"error": type(exc).__name__, "errno": getattr(exc, "errno", None), "message": str(exc)}
for fd in held:
    os.close(fd)
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
out["after"] = [p.detail for p in fsck(store).problems]
print(json.dumps(out))
"""


def test_fsck_out_of_descriptors_is_a_storage_error_not_problems_of_the_store(tmp_path):
    """Under ``ulimit -n 8``, ``scratchfs fsck`` listed every entry, runs/ and trash/ as 'unexpected' problems ('cannot
    open runs/r1: too many open files in this process') and exited 3, corrupt, with '`scratchfs fsck --repair`
    removes them' (atk28): the store was sound, the check could not look. It is the StorageError (EMFILE), exit 4."""
    import errno
    import json

    done = subprocess.run([sys.executable, "-c", FSCK_WITHOUT_DESCRIPTORS, str(tmp_path / "root")],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out.get("error") == "StorageError" and out["errno"] == errno.EMFILE, out
    assert "too many open files" in out["message"]
    assert out["after"] == []


@pytest.mark.parametrize(("name", "code", "memory"), [
    ("SQLITE_IOERR_SHMMAP", 5386, True), ("SQLITE_IOERR_NOMEM", 3082, True), ("SQLITE_NOMEM", 7, True),
    ("SQLITE_IOERR_WRITE", 778, False), ("SQLITE_IOERR_SHMSIZE", 4874, False)])
def test_sqlite_out_of_memory_is_named_as_memory_not_as_a_failing_disk(name, code, memory):
    """Under ``ulimit -v`` SQLite's map of the ``-shm`` file fails first (``SQLITE_IOERR_SHMMAP``, a CI run's spill
    at 1 MiB of margin): the one line said "an I/O error (disk full, file-size limit or a failing device)"."""
    import sqlite3

    from scratchfs.engine.sqlite_errors import index_error

    exc = sqlite3.OperationalError("disk I/O error" if code & 0xFF == 10 else "out of memory")
    exc.sqlite_errorcode, exc.sqlite_errorname = code, name
    text = str(index_error(exc, "opening the index"))
    assert ("out of memory or address space" in text) is memory, text
    assert ("failing device" in text) is (not memory), text


def test_a_file_system_call_out_of_memory_is_told_as_sqlites_is():
    """ENOMEM from a file-system call (the root's listing under ``ulimit -v``, as the CI's memory-limit spill met it)
    said only "Cannot allocate memory", where SQLite's own out-of-memory says what limit to look at: both say the
    same now, which the spill under a memory limit above names as one of its two one-line exits."""
    import errno

    from scratchfs.foundation.errors import storage_error

    said = str(storage_error(OSError(errno.ENOMEM, os.strerror(errno.ENOMEM)), "cannot list the store root /r"))
    assert said == ("cannot list the store root /r: out of memory or address space (the process's memory limit, "
                    "ulimit -v, or the machine's)")


def test_cpythons_import_failing_an_allocation_is_out_of_memory_not_a_traceback(tmp_path, monkeypatch):
    """Under ``ulimit -v`` with 1 MiB of margin, a module loaded when first used failed inside CPython's import
    machinery with ``SystemError: error return without exception set`` (an allocation failed and no MemoryError was
    set): the command ended in a traceback, exit 1 (CI, 2026-12-08). It is out of memory: one line, exit 4. Another
    SystemError is a bug and still raises."""
    from scratchfs.api.store import ScratchStore as Store
    from tests.cli_run import invoke  # (the in-process runner)

    def failing(*_args, **_kwargs):
        raise SystemError("error return without exception set")

    Store(tmp_path / "root").close()
    monkeypatch.setattr(Store, "scope", failing)
    done = invoke(tmp_path / "root", "scratch-read", "k")
    assert done.exit_code == 4 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("scratchfs: out of memory: "), done.stderr

    def buggy(*_args, **_kwargs):
        raise SystemError("some other internal error")

    monkeypatch.setattr(Store, "scope", buggy)
    with pytest.raises(SystemError, match="some other"):
        invoke(tmp_path / "root", "scratch-read", "k")
