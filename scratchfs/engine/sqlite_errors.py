"""SQLite's errors as the store's typed errors, and why an index file cannot be opened or written as the operating
system tells it.

Every :class:`sqlite3.Error` (the standard library's :mod:`sqlite3`; result codes: https://sqlite.org/rescode.html)
becomes :class:`~scratchfs.foundation.errors.StoreBusy` (the lock stayed busy past the busy timeout) or
:class:`~scratchfs.foundation.errors.StorageError` whose message names the operation, SQLite's error name (e.g.
``SQLITE_IOERR_WRITE``, ``SQLITE_FULL``, ``SQLITE_CANTOPEN``) and, for a file that cannot be opened, the operating
system's reason (``EMFILE``, ``EACCES``, ``ENOENT``...): :func:`index_error`. :func:`read_only_reason` says why an
existing index file cannot be written."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from scratchfs.foundation.errors import StorageError, StoreBusy

__all__ = ["DAMAGED_CODES", "index_error", "read_only_reason"]

_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED (primary result codes)
_REASONS = {
    7: "out of memory or address space (the process's memory limit, ulimit -v, or the machine's)",  # SQLITE_NOMEM
    8: "the index is read-only",  # SQLITE_READONLY
    10: "an I/O error (disk full, file-size limit or a failing device)",  # SQLITE_IOERR
    11: "the index file is corrupt",  # SQLITE_CORRUPT
    13: "the disk or the file-size limit is full",  # SQLITE_FULL
    14: "the index file cannot be opened",  # SQLITE_CANTOPEN
    26: "the file is not a SQLite database",  # SQLITE_NOTADB
}
# extended codes of a map or an allocation that failed (ulimit -v): named memory
_MEMORY_NAMES = {"SQLITE_IOERR_NOMEM", "SQLITE_IOERR_SHMMAP", "SQLITE_IOERR_MMAP"}
DAMAGED_CODES = frozenset({11, 26})
"""SQLite's primary result codes of an index file that is damaged (``SQLITE_CORRUPT``) or not a database at all
(``SQLITE_NOTADB``): the ``sqlite_code`` of the :class:`StorageError` :func:`index_error` makes."""
# SQLite's message of each primary code (sqlite3_errstr), for Python 3.10: its errors carry no code
_BY_MESSAGE = {
    "database is locked": (5, "SQLITE_BUSY"),
    "database table is locked": (6, "SQLITE_LOCKED"),
    "out of memory": (7, "SQLITE_NOMEM"),
    "attempt to write a readonly database": (8, "SQLITE_READONLY"),
    "interrupted": (9, "SQLITE_INTERRUPT"),
    "disk I/O error": (10, "SQLITE_IOERR"),
    "database disk image is malformed": (11, "SQLITE_CORRUPT"),
    "database or disk is full": (13, "SQLITE_FULL"),
    "unable to open database file": (14, "SQLITE_CANTOPEN"),
    "file is not a database": (26, "SQLITE_NOTADB"),
}


def index_error(exc: sqlite3.Error, doing: str, path: Path | None = None) -> StorageError | StoreBusy:
    """The typed error for a :class:`sqlite3.Error` raised while ``doing`` (a phrase: "writing an entry").

    Returns :class:`StoreBusy` for a lock still busy after the busy timeout, else :class:`StorageError` naming SQLite's
    error and its cause, with SQLite's primary result code as its ``sqlite_code`` (``None`` when unknown); with
    ``path``, a file that cannot be opened is probed for the operating system's reason, which also sets the error's
    ``errno``, and a damaged one (:data:`DAMAGED_CODES`) gets the ways back in its message. On Python 3.10, whose
    errors carry neither SQLite's code nor its name, both come from SQLite's message (:data:`_BY_MESSAGE`): the
    primary code only (``SQLITE_IOERR``, not ``SQLITE_IOERR_WRITE``). A failed map or allocation is named memory."""
    text = str(exc)
    code = getattr(exc, "sqlite_errorcode", None)
    name = getattr(exc, "sqlite_errorname", None)
    if code is None and text in _BY_MESSAGE:
        code, name = _BY_MESSAGE[text]
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in _BUSY_CODES or (primary is None and ("locked" in text or "busy" in text)):
        return StoreBusy(f"the index stayed busy past the busy timeout while {doing}")
    reason = _REASONS[7] if name in _MEMORY_NAMES else _REASONS.get(primary or 0, text)
    detail = f"{text}, {name}" if name else text
    err_no = None
    if path is not None and (primary == 14 or "unable to open" in text):
        err_no, why = _probe(path)
        if why:
            reason = f"{reason}: {why}"
    if path is not None and primary in DAMAGED_CODES:
        detail += ("; restore it from a copy, or rebuild it from the blobs: scratchfs fsck --rebuild-index (which "
                   "keeps the damaged file beside the new one)")
    err = StorageError(f"the index failed while {doing}: {reason} ({detail})")
    err.errno = err_no
    err.sqlite_code = primary  # type: ignore[attr-defined]
    return err


def _probe(path: Path) -> tuple[int | None, str | None]:
    """Why a database file cannot be opened, as the operating system tells: ``(errno, reason)``."""
    for flags, what in ((os.O_RDWR, "file"), (os.O_RDONLY | os.O_DIRECTORY, "directory")):
        target = path if what == "file" else path.parent
        try:
            os.close(os.open(target, flags | getattr(os, "O_CLOEXEC", 0)))
        except OSError as exc:
            return exc.errno, f"{exc.strerror or exc} ({target})"
    if not os.access(path.parent, os.W_OK):
        return None, f"cannot create the -wal and -shm files in {path.parent}"
    return None, None


def read_only_reason(path: Path) -> str | None:
    """Why an existing index file cannot be written (a read-only file system, no write permission on the file or
    on its directory, where SQLite creates the ``-wal`` and ``-shm`` files), or ``None`` when it can."""
    for target in (path.parent, path):
        if not os.access(target, os.W_OK):
            try:
                readonly_fs = bool(os.statvfs(target).f_flag & os.ST_RDONLY)
            except OSError:
                readonly_fs = False
            if readonly_fs:
                return f"the file system holding {target} is mounted read-only"
            return f"no write permission on {target}"
    return None

