"""A blob file written or opened by :class:`scratchfs.engine.local_blobs.Blobs`: :class:`LocalSource` (open for
reading) and :class:`PendingBlob` (written, waiting for its index row)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scratchfs.engine import safe_fs
from scratchfs.engine.pairing import LOCAL_CHECK_SECONDS
from scratchfs.engine.protocols import BlobInfo
from scratchfs.engine.sources import FileRange, OwnsFd
from scratchfs.foundation.errors import ScratchError, StorageError, storage_error

if TYPE_CHECKING:
    from scratchfs.engine.local_blobs import Blobs

__all__ = ["LocalSource", "PendingBlob"]


class LocalSource(FileRange, OwnsFd):
    """A blob file open for reading: a :class:`~scratchfs.engine.sources.FileRange` that owns its descriptor."""

    __slots__ = ()


class PendingBlob:
    """A blob file written completely but not yet named by an index row; holds the file's ``flock``.

    Call :meth:`exists` inside the index transaction that inserts the row (a concurrent ``delete_run`` may have moved
    the directory away), then :meth:`release` after the commit, or :meth:`discard` if the row was not written.
    """

    gone_means_deleted = True  # (PendingWrite's: exists() is False only when a delete moved the file's directory)

    def __init__(self, blobs: Blobs, parts: tuple[str, ...], name: str, fd: int, dir_fd: int, info: BlobInfo,
                 began: float) -> None:
        self.info, self.began = info, began  # (began: time.monotonic() before the file was made)
        self._blobs, self._parts, self._name = blobs, parts, name
        self._path = "/".join((*parts, name))
        self._fd: int | None = fd
        self._dir_fd: int | None = dir_fd
        try:  # taken now, outside the index transaction that calls exists()
            self._ident = safe_fs.identity(fd)
        except OSError:
            self._ident = (-1, -1)  # matches no file: exists() is False, the write is discarded

    def exists(self) -> bool:
        """True while this very file is still at its path below the root, reached without following a link; False
        once a delete of its run or agent moved its directory away (the write is then ordered before that delete).
        Called inside the index's write transaction: the common case is one ``lstat`` against the file's identity
        taken when it was written (:func:`~scratchfs.engine.safe_fs.is_at`); only a file not found so walks its
        directories to tell a delete from anything else.

        First, when the last read of the files' marker is :data:`~scratchfs.engine.pairing.LOCAL_CHECK_SECONDS`
        old (a file written slowly), it is read again (:attr:`Blobs.owned`): no row is committed after a takeover.

        Raises:
            StorageError: the file left its place while its directory stayed (removed or replaced by something
                other than a delete), or it was already released: the write must fail, not be acknowledged without
                its row. InvalidArgument: another index owns the files now.
        """
        if self._fd is None or self._dir_fd is None:
            raise StorageError("the blob file was released before its row was committed; nothing was stored")
        self._blobs.owned(LOCAL_CHECK_SECONDS)
        if safe_fs.is_at(self._blobs.root_fd, self._path, self._ident):
            return True
        try:
            dir_fd = safe_fs.walk(self._blobs.root_fd, self._parts)
        except (OSError, ScratchError):
            return False
        try:
            here, mine_dir = os.fstat(dir_fd), os.fstat(self._dir_fd)
            found = os.stat(self._name, dir_fd=dir_fd, follow_symlinks=False)
            if (found.st_dev, found.st_ino) == self._ident:
                return True
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise storage_error(exc, "cannot check the blob file") from exc
        finally:
            os.close(dir_fd)
        if (here.st_dev, here.st_ino) != (mine_dir.st_dev, mine_dir.st_ino):
            return False  # its directory is not at its path any more: a delete moved it
        raise StorageError(f"the blob file {self._path} left its place while its row was not yet committed (not by "
                           "a delete of its run or agent); nothing was stored")

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
