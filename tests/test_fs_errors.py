"""Typed errors for file operations (issue 9): each errno injected at each file operation gives the documented
``StorageError``/``StoreBusy`` with its cause (never a raw ``OSError``), and nothing stored is lost -- every earlier
entry still reads back its exact bytes, from this store and from a fresh one.

The injection replaces one function of :mod:`os` for the length of one call, failing only the calls that operation
makes (a blob's creation, a lock file's open, a directory's creation, ...). SQLite does its own I/O in C and is not
touched: the index side is tested with the index.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from contextlib import contextmanager

import pytest

from scratchfs import ScratchStore
from scratchfs.foundation.errors import StorageError, StoreBusy

from .conftest import FIXTURE_FILES

pytestmark = pytest.mark.usefixtures("segments_on_for_segment_cases")

ERRNOS = [errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EMFILE, errno.EACCES, errno.EROFS, errno.ELOOP]


def _name(args) -> str:
    return str(args[0]) if args and isinstance(args[0], (str, bytes, os.PathLike)) else ""


def _flags(args) -> int:
    return args[1] if len(args) > 1 else 0


# operation -> (function of os to fail, which of its calls fail)
POINTS: dict[str, tuple[str, Callable]] = {
    "create": ("open", lambda a: _name(a).endswith((".zst", ".zseg")) and _flags(a) & os.O_CREAT),
    "blob file create": ("open", lambda a: _name(a).endswith(".zst") and _flags(a) & os.O_CREAT),
    "write": ("writev", lambda a: True),
    "segment write": ("pwritev", lambda a: True),
    "fsync": ("fsync", lambda a: True),
    "directory creation": ("mkdir", lambda a: True),
    "open for read": ("open", lambda a: _name(a).endswith((".zst", ".zseg")) and not _flags(a) & os.O_CREAT),
    "pread": ("pread", lambda a: True),
    "directory open": ("open", lambda a: bool(_flags(a) & os.O_DIRECTORY) and _name(a) != "."),
    "lock file": ("open", lambda a: _name(a).endswith(".lock")),
    "rename": ("rename", lambda a: True),
    "unlink": ("unlink", lambda a: True),
    "sweep walk": ("listdir", lambda a: True),
}


@contextmanager
def failing(function: str, when: Callable, code: int):
    """Make ``os.<function>`` raise ``OSError(code)`` on the calls ``when`` accepts, in this thread only."""
    real = getattr(os, function)
    me = threading.get_ident()
    hits = []

    def fake(*args, **kwargs):
        if threading.get_ident() == me and when(args):
            hits.append(args)
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    setattr(os, function, fake)
    try:
        yield hits
    finally:
        setattr(os, function, real)


def _errnos(exc: BaseException) -> set[int]:
    found, seen = set(), set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if getattr(exc, "errno", None):
            found.add(exc.errno)
        exc = exc.__cause__ or exc.__context__
    return found


def _payloads() -> list[bytes]:
    return [p.read_bytes()[:40_000] for p in FIXTURE_FILES]


def _check_all(store: ScratchStore, written: dict) -> None:
    """Every entry written before the fault reads back its exact bytes."""
    for (kind, key), content in written.items():
        scope = store.scope("keep", "a")
        if kind == "scratch":
            assert scope.scratch_read(key) == content
        else:
            assert scope.read_handle(key, 0, 65536).data == content


def _operation(store: ScratchStore, point: str) -> Callable[[], object]:
    """The public call that reaches the file operation ``point``."""
    scope = store.scope("new-run", "agent")
    spill = lambda: scope.spill(b"fresh content\n" * 500, source_tool="t")  # noqa: E731 - to a segment file
    big = lambda: scope.spill(b"fresh content\n" * 5000, source_tool="t")  # noqa: E731 - over 64 KiB: its own file
    keep = store.scope("keep", "a")
    handle = next(e.key for e in keep.list_entries() if e.kind == "handle")
    return {
        "create": spill, "blob file create": big, "write": big, "segment write": spill, "fsync": spill,
        "directory creation": spill, "lock file": store.sweep,
        "open for read": lambda: keep.read_handle(handle, 0, 100),
        "pread": lambda: keep.read_handle(handle, 1000, 100),
        "directory open": lambda: keep.read_handle(handle, 0, 100),
        "rename": lambda: store.delete_run("doomed"),
        "unlink": lambda: (store.scope("doomed", "a").scratch_delete("x"), store.sweep()),
        "sweep walk": store.sweep,
    }[point]


@pytest.mark.parametrize("code", ERRNOS, ids=[errno.errorcode[c] for c in ERRNOS])
@pytest.mark.parametrize("point", list(POINTS))
def test_each_errno_at_each_file_operation_is_typed_and_loses_nothing(tmp_path, point, code):
    with ScratchStore(tmp_path, durable=point == "fsync", orphan_grace=0) as store:
        keep = store.scope("keep", "a")
        written = {}
        for i, content in enumerate(_payloads()):
            written[("handle", keep.spill(content, source_tool="t").handle)] = content
            keep.scratch_write(f"k{i}", content)
            written[("scratch", f"k{i}")] = content
        store.scope("doomed", "a").scratch_write("x", b"to delete" * 8000)  # a file of its own, for "unlink"
        store.entries.drop_value_cache()  # reads go to the files
        call = _operation(store, point)
        function, when = POINTS[point]
        with failing(function, when, code) as hits:
            if point == "unlink":  # a removal that fails is logged and left to a later sweep (the row is gone)
                call()
            else:
                with pytest.raises((StorageError, StoreBusy)) as caught:
                    call()
                assert code in _errnos(caught.value), f"{caught.value!r} lacks errno {errno.errorcode[code]}"
        assert hits, f"no call reached {point}"
        _check_all(store, written)
        store.sweep()  # and the store recovers once the fault is gone
        _check_all(store, written)
    with ScratchStore(tmp_path) as again:
        _check_all(again, written)


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES], ids=["EROFS", "EACCES"])
def test_a_sweep_of_a_read_only_store_names_the_cause_and_reads_still_work(tmp_path, code):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        content = FIXTURE_FILES[0].read_bytes()[:30_000]
        handle = scope.spill(content, source_tool="t").handle
        scope.scratch_write("k", b"value")
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        store.entries.drop_value_cache()
        with failing("open", lambda a: bool(_flags(a) & writes), code), \
                failing("unlink", lambda a: True, code), failing("mkdir", lambda a: True, code), \
                failing("rmdir", lambda a: True, code), failing("rename", lambda a: True, code):
            with pytest.raises(StorageError, match="read-only" if code == errno.EROFS else "permission denied"):
                store.sweep()
            with pytest.raises(StorageError):
                scope.spill(b"more", source_tool="t")
            assert scope.read_handle(handle, 0, 65536).data == content
            assert scope.read_handle(handle, match="a").windows
            assert scope.scratch_read("k") == b"value"


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to name a descriptor's directory")
def test_a_durable_spill_into_a_new_run_syncs_every_directory_it_created(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)

    with ScratchStore(tmp_path / "root", durable=True) as store:
        monkeypatch.setattr(os, "fsync", fsync)
        store.scope("new run", "new agent").spill(b"x" * 1000, source_tool="t")
        run_dir, agent_dir = store.blobs.run_dir("new run"), store.blobs.agent_dir("new run", "new agent")
    # the new entries in runs/, in the run directory and in the agent directory all reach the disk
    assert {str(store.root / "runs"), str(run_dir), str(agent_dir)} <= set(synced)
