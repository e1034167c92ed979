"""Blob files on disk: where each one lives, how it is written so that no reader sees it half-done, how it goes away.

Layout under the store's root::

    runs/<run>/<agent>/<token>.zst   one seekable blob per entry (see :mod:`scratchfs.seekable`)
    trash/<token>/                   a run or agent directory being removed (renamed here first)
    locks/                           lock files (never inside a directory that a delete removes)

``<run>`` and ``<agent>`` are :func:`scratchfs.ids.path_part` encodings; ``<token>`` is a fresh random token per
write (for a spilled result, the handle itself), so a file is never rewritten in place: an overwrite writes a new
file and the index row moves to it.

Atomicity comes from the order of the steps, not from a rename: the file is written completely (and flushed with
``fsync`` when the store is durable) *before* the index row that names it is committed, and a reader only finds files
through rows. A crash mid-write leaves a file with no row (an orphan), which :mod:`scratchfs.sweeper` removes after a
grace period. While a write is in flight its file holds an exclusive ``flock``; the sweeper never removes a locked
file, so a slow writer's file is safe however long it takes.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from scratchfs.engine.protocols import BlobFile, BlobInfo
from scratchfs.engine.seekable import FileRange, SeekableWriter
from scratchfs.foundation import checks as ids
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StorageError, StoreBusy, storage_error

log = logging.getLogger(__name__)

BLOB_SUFFIX = ".zst"
BLOB_NAME_RE = re.compile(r"([a-z2-7]{24})\.zst\Z")
_FILE_MODE = 0o600
_DIR_MODE = 0o700
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class LocalSource(FileRange):
    """A blob file open for reading: a :class:`~scratchfs.engine.seekable.FileRange` that owns its descriptor."""

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

    def __init__(self, path: str, fd: int, info: BlobInfo) -> None:
        self.path = path
        self.info = info
        self._fd: int | None = fd

    def exists(self) -> bool:
        """True while the file is still at its path (not moved away by a delete)."""
        return os.path.exists(self.path)

    def release(self) -> None:
        """Drop the lock and close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None

    def discard(self) -> None:
        """Remove the file and release it (idempotent; a file already gone is fine)."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        finally:
            self.release()


class _Descriptor:
    """A file descriptor closed when this object is collected (a thread's dies with the thread) or by :meth:`close`."""

    __slots__ = ("__weakref__", "_finalizer", "fd")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._finalizer = weakref.finalize(self, _close_quietly, fd)

    def close(self) -> None:
        self._finalizer()

    def detach(self) -> int:
        """Forget the descriptor without closing it; return it."""
        self._finalizer.detach()
        return self.fd


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class _LockLocal(threading.local):
    lock: _Descriptor | None = None
    generation = -1


class Blobs:
    """The blob files of one store root.

    Args:
        root: the store's root directory (must exist).
        frame_bytes: decompressed bytes per frame.
        level: zstd compression level.
        durable: ``fsync`` each file and its directory before the row that names it is committed.
    """

    def __init__(self, root: Path, frame_bytes: int, level: int, durable: bool = False) -> None:
        self.root = root
        self.runs = root / "runs"
        self._runs = str(self.runs)
        self._delete_lock_path = str(root / "locks" / "delete.lock")
        self._local = _LockLocal()
        self._locks: weakref.WeakSet[_Descriptor] = weakref.WeakSet()
        self._inherited: list[int] = []  # a fork() parent's descriptors: kept open, never used here
        self._fds_lock = threading.Lock()
        self.trash = root / "trash"
        self.frame_bytes = frame_bytes
        self.level = level
        self.durable = durable

    # -- paths ----------------------------------------------------------------------------------------------------

    def run_dir(self, run_id: str) -> Path:
        """Directory of a (validated) run id."""
        return self.runs / ids.path_part(run_id)

    def agent_dir(self, run_id: str, agent_id: str) -> Path:
        """Directory of a (validated) run id and agent id."""
        return self.runs / ids.path_part(run_id) / ids.path_part(agent_id)

    def path(self, run_id: str, agent_id: str, token: str) -> str:
        """Path of the blob ``token`` of a scope. ``token`` must come from :func:`scratchfs.ids.new_token` (checked)."""
        if not ids.TOKEN_RE.match(token):
            raise ValueError(f"not a blob token: {token!r}")
        return f"{self._runs}/{ids.path_part(run_id)}/{ids.path_part(agent_id)}/{token}{BLOB_SUFFIX}"

    # -- writing --------------------------------------------------------------------------------------------------

    def write(self, run_id: str, agent_id: str, token: str, chunks: Iterable) -> PendingBlob:
        """Write a new blob from an iterable of byte chunks and return it, still locked, for the index commit.

        Raises:
            StorageError: the file system refused (disk full, file-size limit, permissions, or the run's directory
                was removed mid-write); no file is left behind.
            InvalidArgument: from ``chunks`` (bad content); no file is left behind.
        """
        path = self.path(run_id, agent_id, token)
        fd = self._create_locked(path)
        try:
            writer = SeekableWriter(fd, self.frame_bytes, self.level, count_lines=True)
            for chunk in chunks:
                writer.write(chunk)
            writer.close()
            if self.durable:
                os.fsync(fd)
                _fsync_dir(os.path.dirname(path))
        except BaseException as exc:
            _unlink_quietly(path)
            os.close(fd)
            if isinstance(exc, OSError):
                raise storage_error(exc, "cannot write the blob") from exc
            raise
        info = BlobInfo(writer.size, writer.stored_size, writer.frames, writer.frame_newlines.tobytes())
        return PendingBlob(path, fd, info)

    def _create_locked(self, path: str) -> int:
        """Create the blob file and take its ``flock``. In the instant between the two the new file is empty, has no
        row and is not locked, so a sweep with a short grace period may remove it; then it is created again."""
        for _ in range(10):
            fd = self._create(path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                if os.fstat(fd).st_nlink:  # still linked: from now on no sweep can remove it
                    return fd
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        raise StorageError(f"the blob file {path} was removed as soon as it was created, 10 times")

    def _create(self, path: str) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC
        for attempt in range(10):  # a sweep may remove an empty directory again between makedirs and open
            try:
                return os.open(path, flags, _FILE_MODE)
            except FileNotFoundError:
                if attempt == 9:
                    raise StorageError(f"cannot create the blob directory {os.path.dirname(path)}") from None
                self._make_dirs(Path(path).parent)
            except OSError as exc:
                raise storage_error(exc, "cannot create the blob file") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _make_dirs(self, directory: Path) -> None:
        try:
            os.makedirs(directory, mode=_DIR_MODE, exist_ok=True)
            if self.durable:
                _fsync_dir(directory.parent)
                _fsync_dir(directory.parent.parent)
        except FileNotFoundError:
            pass  # a sweep removed the empty run directory while makedirs was creating the agent directory: retry
        except OSError as exc:
            raise storage_error(exc, "cannot create the blob directory") from exc

    @contextmanager
    def delete_lock(self, exclusive: bool, timeout: float) -> Iterator[None]:
        """Hold ``locks/delete.lock``: exclusively while a delete commits its rows and moves its directory to the
        trash, shared while a write commits its row. So no row is committed for a file that a delete then moves
        away, and the delete can commit before it moves the directory: a crash between the two leaves orphan
        files (which a sweep removes), never rows whose files are gone. A killed holder's ``flock`` is released by
        the kernel.

        Raises:
            StoreBusy: the lock stayed busy for ``timeout`` seconds.
            StorageError: the lock file cannot be opened.
        """
        fd = self._delete_lock_fd()
        operation = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        try:
            fcntl.flock(fd, operation)
        except BlockingIOError:
            deadline, delay = time.monotonic() + timeout, 0.001
            while True:
                if time.monotonic() >= deadline:
                    raise StoreBusy(f"the delete lock stayed busy past the busy timeout ({timeout:g} s)") from None
                time.sleep(delay)
                delay = min(2 * delay, 0.05)
                try:
                    fcntl.flock(fd, operation)
                    break
                except BlockingIOError:
                    continue
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _delete_lock_fd(self) -> int:
        """This thread's descriptor of ``locks/delete.lock`` (a ``flock`` belongs to an open file description, so
        threads must not share one; a ``fork()`` child opens its own)."""
        local = self._local
        if local.generation != forks.generation or local.lock is None:
            if local.lock is not None:  # opened by the parent of this fork() child: neither use nor close it
                self._inherited.append(local.lock.detach())
            try:
                fd = os.open(self._delete_lock_path, os.O_RDWR | os.O_CREAT | _O_CLOEXEC, _FILE_MODE)
            except OSError as exc:
                raise storage_error(exc, "cannot open the delete lock") from exc
            local.lock, local.generation = _Descriptor(fd), forks.generation
            with self._fds_lock:
                self._locks.add(local.lock)
        return local.lock.fd

    def close(self) -> None:
        """Close the lock descriptors this process opened (idempotent)."""
        with self._fds_lock:
            locks = list(self._locks)
            self._locks = weakref.WeakSet()
        for lock in locks:
            lock.close()
        self._local = _LockLocal()

    # -- reading --------------------------------------------------------------------------------------------------

    def open(self, run_id: str, agent_id: str, token: str) -> int:
        """Open a blob for reading and return its file descriptor (the caller closes it).

        Raises:
            FileNotFoundError: the file is gone (the caller decides what that means).
            StorageError: any other file-system failure.
        """
        try:
            return os.open(self.path(run_id, agent_id, token), os.O_RDONLY | _O_CLOEXEC)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise storage_error(exc, "cannot open the blob") from exc

    def open_source(self, run_id: str, agent_id: str, token: str) -> LocalSource:
        """Open a blob for reading as a :class:`LocalSource` (the caller closes it).

        Raises:
            FileNotFoundError: the file is gone (the caller decides what that means).
            StorageError: any other file-system failure.
        """
        fd = self.open(run_id, agent_id, token)
        try:
            return LocalSource(fd)
        except OSError as exc:
            os.close(fd)
            raise storage_error(exc, "cannot open the blob") from exc

    # -- removing -------------------------------------------------------------------------------------------------

    def detach_scope(self, run_id: str, agent_id: str | None) -> Path | None:
        """Move a run's directory (or one agent's) into ``trash/`` (see :meth:`move_to_trash`); call it under the
        exclusive delete lock. Returns the trash path for :meth:`purge`, or ``None`` if there was no directory."""
        directory = self.run_dir(run_id) if agent_id is None else self.agent_dir(run_id, agent_id)
        return self.move_to_trash(directory)

    def purge(self, detached: Path) -> None:
        """Remove a directory :meth:`detach_scope` moved to the trash (errors ignored: the sweeper retries)."""
        self.remove_tree(detached)

    def unlink(self, run_id: str, agent_id: str, token: str) -> int:
        """Remove a blob file whose row is gone; return the bytes freed (0 if it was already gone, or could not be
        removed: that is logged as a warning and left to a later sweep, which removes files no row names). Never
        raises."""
        path = self.path(run_id, agent_id, token)
        try:
            size = os.stat(path).st_size
            os.unlink(path)
            return size
        except FileNotFoundError:
            return 0
        except OSError as exc:
            log.warning("scratchfs: cannot remove %s (%s); a later sweep will", path, exc.strerror or exc)
            return 0

    def move_to_trash(self, directory: Path) -> Path | None:
        """Rename a run or agent directory into ``trash/`` (atomic), so that no new file can land in it; return the
        trash path, or ``None`` if the directory did not exist."""
        target = self.trash / ids.new_token()
        try:
            os.makedirs(self.trash, mode=_DIR_MODE, exist_ok=True)
            os.rename(directory, target)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise storage_error(exc, "cannot remove the directory") from exc
        return target

    def blob_files(self) -> list[BlobFile]:
        """A :class:`~scratchfs.engine.protocols.BlobFile` (run directory name, agent directory name, path, token) for
        every regular file under ``runs/`` named like a blob, sorted by name (files of other names are not ours and
        are left alone)."""
        found = []
        for run in list_dir(self.runs):
            for agent in list_dir(run.path):
                for entry in list_dir(agent.path):
                    match = BLOB_NAME_RE.match(entry.name)
                    if match and entry.is_file(follow_symlinks=False):
                        found.append(BlobFile(run.name, agent.name, entry.path, match.group(1)))
        return found

    @staticmethod
    def remove_tree(path: Path) -> None:
        """Remove a directory tree that was moved to the trash (errors ignored: the sweeper retries)."""
        shutil.rmtree(path, ignore_errors=True)


def list_dir(path: Path | str) -> list[os.DirEntry]:
    """The directories and regular files in ``path``, sorted by name (none if it is missing or not a directory)."""
    try:
        with os.scandir(path) as it:
            return sorted((e for e in it if e.is_dir(follow_symlinks=False) or e.is_file(follow_symlinks=False)),
                          key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(directory: Path | str) -> None:
    fd = os.open(directory, os.O_RDONLY | _O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
