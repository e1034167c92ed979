"""A small reserve file the store releases when the disk is full, so that deleting can always proceed.

Deleting needs a little space before it frees any: SQLite writes the pages of a delete to its write-ahead log before
a single blob can be removed safely (a delete first hides its scope in the index, see
:mod:`scratchfs.engine.sqlite_scale`). On a disk filled to the last byte that first write fails with "database or
disk is full". So the store keeps ``<root>/reserve`` (:data:`RESERVE_BYTES` of zeros, really allocated): a delete or
sweep that fails because the disk is full releases it and tries once more, and the reserve is written again once
there is room (:meth:`Reserve.ensure`, best effort, after each delete and sweep and when a store opens).

The sweep itself needs no reserve (it removes files before their rows, :mod:`scratchfs.engine.sweeper`); the reserve
is for ``delete_run``/``delete_agent`` and for a sweep's bookkeeping on a disk that something else filled.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import TypeVar

from scratchfs.foundation.errors import StorageError, StoreClosed

T = TypeVar("T")

RESERVE_BYTES = 256 * 1024
"""Size of the reserve file, in bytes: room for the write-ahead log of a delete's first transactions."""

_SQLITE_FULL = 13
"""SQLite's primary result code ``SQLITE_FULL``, a write that found the disk (or the file-size limit) full: the
``sqlite_code`` of the :class:`StorageError` :func:`~scratchfs.engine.sqlite_errors.index_error` makes."""
_CHUNK = b"\0" * 65536
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def is_disk_full(exc: BaseException) -> bool:
    """True if ``exc`` says the disk is full: an error whose ``errno`` is ``ENOSPC``/``EDQUOT`` (an ``OSError``, or a
    :class:`StorageError` wrapping one: a blob write's, "the disk is full", "the disk quota is exhausted"), or a
    :class:`StorageError` of SQLite's ``SQLITE_FULL`` ("database or disk is full"), which carries no ``errno`` but
    its ``sqlite_code`` (:func:`~scratchfs.engine.sqlite_errors.index_error`). Read by those fields alone, never
    by the words: a message that says "the disk is full" among others (a row not written "(the disk is full, or the
    index locked)") is not one.

    A :class:`StorageError` is an ``OSError`` too, so its ``errno`` alone decides nothing: SQLite's errors have none."""
    if getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT):
        return True
    return isinstance(exc, StorageError) and getattr(exc, "sqlite_code", None) == _SQLITE_FULL


class Reserve:
    """The reserve file of one store root.

    Args:
        path: the file (``<root>/reserve``).
        size: its size in bytes (0: no reserve).
    """

    def __init__(self, path: str | os.PathLike[str], size: int = RESERVE_BYTES) -> None:
        self.path = os.fspath(path)
        self.size = size

    def ensure(self) -> bool:
        """Write the reserve if it is missing, or is no private regular file of this user's (a link, a FIFO, a copy
        whose mode a restore loosened: replaced, never followed), 0600 (zeros, so the blocks are really allocated;
        written beside and renamed into place, so a half-written reserve is never mistaken for a whole one). Return
        True if it is in place.
        Never raises: on a full or read-only disk it stays missing until a later call. A reserve of 0 bytes (a store
        with no local index) is never written."""
        if self.size <= 0:
            return False
        try:
            st = os.lstat(self.path)
            if stat.S_ISREG(st.st_mode) and st.st_size >= self.size and not st.st_mode & 0o077 \
                    and st.st_uid == os.geteuid():  # (a link or FIFO, or a file a restore loosened, is replaced below)
                return True
        except OSError:
            pass
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            fd = os.open(tmp, _FLAGS, 0o600)
            try:
                left = self.size
                while left > 0:
                    left -= os.write(fd, _CHUNK[:left])
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
            return True
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return False

    def release(self) -> int:
        """Remove the reserve; return the bytes freed (0 if it was not there). Never raises."""
        try:
            size = os.lstat(self.path).st_size
            os.unlink(self.path)
            return size
        except OSError:
            return 0

    def free_bytes(self) -> int | None:
        """Bytes free for an unprivileged writer on the file system holding the reserve, or None if unknown."""
        try:
            st = os.statvfs(os.path.dirname(self.path) or ".")
        except OSError:
            return None
        return st.f_bavail * st.f_frsize

    def is_full(self, exc: BaseException) -> bool:
        """True if ``exc`` says the disk is full (:func:`is_disk_full`), or is a :class:`StorageError` (not
        :class:`StoreClosed`) raised while the file system has less room than the reserve: SQLite reports some writes
        that ran out of space as I/O errors (``SQLITE_IOERR_WRITE``, ``SQLITE_IOERR_SHMSIZE``), not ``SQLITE_FULL``."""
        if is_disk_full(exc):
            return True
        if not isinstance(exc, StorageError) or isinstance(exc, StoreClosed):
            return False
        free = self.free_bytes()
        return free is not None and free < self.size

    def run(self, operation: Callable[[], T]) -> T:
        """Run ``operation``; if it fails because the disk is full, release the reserve and run it once more. Write
        the reserve again afterwards (best effort).

        Raises:
            whatever ``operation`` raises (the second time, if it was retried).
        """
        try:
            result = operation()
        except (StorageError, OSError) as exc:
            if not self.is_full(exc) or not self.release():
                raise
            result = operation()
        self.ensure()
        return result


__all__ = ["RESERVE_BYTES", "Reserve", "is_disk_full"]
