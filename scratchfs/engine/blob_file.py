"""A blob file written or opened by :class:`scratchfs.engine.local_blobs.Blobs`: :class:`LocalSource` (open for
reading) and :class:`PendingBlob` (written, waiting for its index row)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scratchfs.engine import safe_fs
from scratchfs.engine.protocols import BlobInfo
from scratchfs.engine.sources import FileRange

if TYPE_CHECKING:
    from scratchfs.engine.local_blobs import Blobs

__all__ = ["LocalSource", "PendingBlob"]


class LocalSource(FileRange):
    """A blob file open for reading: a :class:`~scratchfs.engine.sources.FileRange` that owns its descriptor."""

    __slots__ = ()

    def close(self) -> None:
        """Close the file descriptor (idempotent)."""
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)


class PendingBlob:
    """A blob file written completely but not yet named by an index row; holds the file's ``flock``.

    Call :meth:`exists` inside the index transaction that inserts the row (a concurrent ``delete_run`` may have moved
    the directory away), then :meth:`release` after the commit, or :meth:`discard` if the row was not written.
    """

    def __init__(self, blobs: Blobs, parts: tuple[str, ...], name: str, fd: int, dir_fd: int, info: BlobInfo) -> None:
        self.info = info
        self._blobs, self._name = blobs, name
        self._path = "/".join((*parts, name))
        self._fd: int | None = fd
        self._dir_fd: int | None = dir_fd
        try:  # taken now, outside the index transaction that calls exists()
            self._ident = safe_fs.identity(fd)
        except OSError:
            self._ident = (-1, -1)  # matches no file: exists() is False, the write is discarded

    def exists(self) -> bool:
        """True while this very file (its inode and device when written) is still at its path below the root, not
        moved away by a delete: one ``lstat`` (:func:`~scratchfs.engine.safe_fs.is_at`), called inside the index's
        write transaction."""
        return self._fd is not None and safe_fs.is_at(self._blobs.root_fd, self._path, self._ident)

    def release(self) -> None:
        """Drop the lock and close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    def discard(self) -> None:
        """Remove the file (from its directory, wherever a delete moved it) and release it (idempotent)."""
        try:
            if self._dir_fd is not None:
                os.unlink(self._name, dir_fd=self._dir_fd)
        except OSError:
            pass
        finally:
            self.release()
