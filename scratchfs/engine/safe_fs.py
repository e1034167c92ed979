"""File-system steps that never follow a symbolic link inside the store's root and never open anything but what
they expect: every path is walked one component at a time from a directory file descriptor.

The rule (README, "Security"): below the root, directories are opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to
their parent's descriptor (``dir_fd=``), files with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat`` to be
regular files, and files and directories are created, renamed and removed relative to directory descriptors. So a
link planted anywhere in the root (a run directory pointing outside, ``trash/`` or ``runs/`` replaced by a link, a
lock file that is a link) is never followed, a FIFO never blocks an open or a read, and a directory is never read as
a file; each such find becomes a typed error that names what was found (:func:`unexpected`).

The standard library has the primitives (``os.open`` with ``dir_fd``, ``O_NOFOLLOW``) but no walk over them;
``shutil.rmtree`` takes ``dir_fd`` only from Python 3.11 on, so :func:`remove_tree_at` is ours (a few lines).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading

from scratchfs.foundation import forks
from scratchfs.foundation.errors import ScratchError, StorageError, storage_error

__all__ = [
    "DIR_FLAGS",
    "FILE_FLAGS",
    "DirCache",
    "describe",
    "identity",
    "is_at",
    "list_stats",
    "open_dir",
    "open_file",
    "open_file_stat",
    "remove_tree_at",
    "storage_error",
    "unexpected",
    "unlink_quietly",
    "walk",
    "write_all",
]

log = logging.getLogger(__name__)

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _O_CLOEXEC
"""Flags of every directory opened below the root."""
FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | _O_CLOEXEC
"""Flags added to every file opened below the root (with ``O_RDONLY``, ``O_RDWR`` or ``O_WRONLY``)."""
MAX_DEPTH = 32
"""Deepest directory tree :func:`remove_tree_at` descends into (ours are 2 levels deep)."""

def describe(dir_fd: int, name: str) -> str:
    """What ``name`` in the directory ``dir_fd`` is, without following it: ``"a symbolic link"``, ``"a FIFO"``,
    ``"a directory"``, ``"a regular file"``, ... or ``"missing"``."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return "missing"
    return _kind(mode)


def identity(fd: int) -> tuple[int, int]:
    """``(st_dev, st_ino)`` of the open file ``fd``: what :func:`is_at` compares. Raises OSError from ``fstat``."""
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def is_at(root: int, path: str, ident: tuple[int, int], sole: bool = False) -> bool:
    """True while ``path`` (relative to the directory ``root``, for example ``runs/<run>/<agent>/<name>``) names the
    very file whose :func:`identity` is ``ident``, reached without a link: one ``lstat`` (``fstatat`` without
    following the last component) of it and one of each directory above it, never an ``open``. A file whose
    directory was moved away (a ``delete_run`` renames it to the trash), removed, or replaced is not found there
    (False; so is any failure of the lookup); so is one reached through a directory swapped for a symbolic link
    (the very file, moved out of the root with its directory: it was appended to and read from there). With
    ``sole``, a file with another name too (a hard link: writing it in place would change the file there) is not
    found either (the same ``lstat``)."""
    try:
        found = os.stat(path, dir_fd=root, follow_symlinks=False)
        if (found.st_dev, found.st_ino) != ident or (sole and found.st_nlink > 1):
            return False
        above = path.rfind("/")
        while above > 0:
            if not stat.S_ISDIR(os.stat(path[:above], dir_fd=root, follow_symlinks=False).st_mode):
                return False
            above = path.rfind("/", 0, above)
    except OSError:
        return False
    return True


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"), (stat.S_ISREG,
                       "a regular file"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return "of an unknown file type"


def unexpected(dir_fd: int, name: str, where: str, wanted: str, error: type[ScratchError] = StorageError
               ) -> ScratchError:
    """The typed error for finding something other than ``wanted`` at ``where`` (a path relative to the root); its
    ``errno`` is ``ELOOP`` for a link, ``ENOTDIR``/``EISDIR``/``ENXIO`` for other misfits."""
    found = describe(dir_fd, name)
    err = error(f"{where} is {found}, not {wanted}; scratchfs never follows links or opens other kinds of files "
                "inside its root")
    err.errno = (errno.ELOOP if found == "a symbolic link" else errno.EISDIR if found == "a directory"
                 else errno.ENOTDIR if wanted == "a directory" else errno.ENXIO)
    return err


def open_dir(parent: int, name: str, where: str, create: bool = False, durable: bool = False) -> int:
    """Open the directory ``name`` in ``parent`` (creating it 0700 when ``create``, then ``fsync``-ing ``parent``
    when ``durable``) without following a link.

    Raises:
        FileNotFoundError: it does not exist (and not ``create``).
        StorageError: it is not a directory (a link, a file, ...), or the file system failed.
    """
    for _ in range(2):
        try:
            return os.open(name, DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and describe(parent, name) != "a directory":
                raise unexpected(parent, name, where, "a directory") from exc
            raise storage_error(exc, f"cannot open {where}") from exc
        try:
            os.mkdir(name, 0o700, dir_fd=parent)
            if durable:
                os.fsync(parent)
        except FileExistsError:
            pass
        except FileNotFoundError:
            raise  # the parent was removed meanwhile: the caller walks again
        except OSError as exc:
            raise storage_error(exc, f"cannot create {where}") from exc
    raise FileNotFoundError(errno.ENOENT, f"{where} vanished as it was created")


def walk(root: int, parts: tuple[str, ...], create: bool = False, durable: bool = False) -> int:
    """A new descriptor of the directory ``root/parts[0]/parts[1]/...`` (the caller closes it), each component
    opened with :func:`open_dir`. Raises as :func:`open_dir`."""
    fd = root
    try:
        for depth, part in enumerate(parts):
            child = open_dir(fd, part, "/".join(parts[: depth + 1]), create, durable)
            if fd != root:
                os.close(fd)
            fd = child
    except BaseException:
        if fd != root:
            os.close(fd)
        raise
    return fd if fd != root else os.dup(root)


def open_file(dir_fd: int, name: str, flags: int, where: str, error: type[ScratchError] = StorageError,
              mode: int = 0o600) -> int:
    """Open the regular file ``name`` in ``dir_fd`` with ``flags | FILE_FLAGS`` (``O_CREAT`` makes it ``mode``);
    anything else found there (a link, FIFO, directory, device) is closed unread and raised as ``error``.

    Raises:
        FileNotFoundError: it does not exist (and no ``O_CREAT``).
        StorageError: the file system failed; or ``error`` for something that is not a regular file.
    """
    return open_file_stat(dir_fd, name, flags, where, error, mode)[0]


def open_file_stat(dir_fd: int, name: str, flags: int, where: str, error: type[ScratchError] = StorageError,
                   mode: int = 0o600) -> tuple[int, os.stat_result]:
    """As :func:`open_file`, with the ``fstat`` of the file opened (taken by the check anyway: a reader needs no
    second one). Raises as :func:`open_file`."""
    try:
        fd = os.open(name, flags | FILE_FLAGS, mode, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if (exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR)
                and describe(dir_fd, name) not in ("a regular file", "missing")):
            raise unexpected(dir_fd, name, where, "a regular file", error) from exc
        raise storage_error(exc, f"cannot open {where}") from exc
    try:
        found = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise storage_error(exc, f"cannot open {where}") from exc
    if not stat.S_ISREG(found.st_mode):
        os.close(fd)
        raise error(f"{where} is {_kind(found.st_mode)}, not a regular file; scratchfs never follows links or opens "
                    "other kinds of files inside its root")
    return fd, found


def remove_tree_at(parent: int, name: str, depth: int = 0) -> None:
    """Remove ``name`` in the directory ``parent`` and, if it is a directory, everything in it, without following
    any link (a link is removed itself, never its target). What can be removed is, past a failure: a part that
    cannot (a tree deeper than :data:`MAX_DEPTH`, a file the file system refuses to remove) is left with the
    directories above it.

    Raises:
        OSError: the first failure, once everything else was removed (the caller retries later).
    """
    st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent)
        return
    if depth >= MAX_DEPTH:
        raise OSError(errno.ELOOP, f"directory tree deeper than {MAX_DEPTH} levels")
    fd = os.open(name, DIR_FLAGS, dir_fd=parent)
    first: OSError | None = None
    try:
        for child in os.listdir(fd):
            try:
                remove_tree_at(fd, child, depth + 1)
            except FileNotFoundError:
                pass  # removed meanwhile (another sweep)
            except OSError as exc:
                first = first or exc
    finally:
        os.close(fd)
    if first is not None:
        raise first
    os.rmdir(name, dir_fd=parent)


class DirCache:
    """Descriptors of directories below ``root`` that :func:`walk` opened (no link followed), kept so that opening a
    file in one again costs one ``lstat`` of the directory's path instead of a walk (three ``open`` and ``close``
    calls). A kept descriptor is used only while that path still names the very same directory (inode and device):
    one moved away, removed or replaced is walked again (so is one that lacks the file: a removed directory has no
    entries, and a new one may reuse its inode number), and the file is always opened from the descriptor with
    :func:`open_file` (no link followed). The ``lstat`` s find every directory on the path a directory, not a
    link (:func:`is_at`: a kept directory moved out of the root and linked back is not used). At most
    ``max_entries`` are kept (then all are closed and it starts again); thread-safe (a lock keeps a descriptor from
    being closed while a file is opened from it).
    """

    def __init__(self, root: int, max_entries: int) -> None:
        self._root = root
        self._max_entries = max_entries
        self._dirs: dict[tuple[str, ...], tuple[int, str, tuple[int, int]]] = {}
        self._lock = threading.Lock()
        self._generation = forks.generation

    def _locked(self) -> threading.Lock:
        if self._generation != forks.generation:  # a fork() child: a parent's thread may have held it
            self._lock, self._generation = threading.Lock(), forks.generation
        return self._lock

    def open_file(self, parts: tuple[str, ...], name: str, flags: int, where: str,
                  error: type[ScratchError] = StorageError) -> int:
        """As :func:`open_file` of ``name`` in the directory ``walk(root, parts)``. Raises as :func:`walk` and
        :func:`open_file`."""
        return self.open_file_stat(parts, name, flags, where, error)[0]

    def open_file_stat(self, parts: tuple[str, ...], name: str, flags: int, where: str,
                       error: type[ScratchError] = StorageError) -> tuple[int, os.stat_result]:
        """As :meth:`open_file`, with the file's ``fstat`` (:func:`open_file_stat`)."""
        kept = self._dirs.get(parts)
        if kept is not None:
            same = is_at(self._root, kept[1], kept[2])
            with self._locked():
                if self._dirs.get(parts) is kept:
                    if same:
                        try:
                            return open_file_stat(kept[0], name, flags, where, error)
                        except FileNotFoundError:
                            pass  # a removed directory whose inode a new one took: walk to the new one
                    del self._dirs[parts]
                    os.close(kept[0])
        dir_fd = walk(self._root, parts)
        try:
            ident = identity(dir_fd)  # before the file is opened: a failure here leaves no file descriptor open
            opened = open_file_stat(dir_fd, name, flags, where, error)
        except BaseException:
            os.close(dir_fd)
            raise
        with self._locked():
            if len(self._dirs) >= self._max_entries:
                self._close_all()
            if parts in self._dirs:
                os.close(dir_fd)
            else:
                self._dirs[parts] = (dir_fd, "/".join(parts), ident)
        return opened

    def _close_all(self) -> None:
        dirs, self._dirs = self._dirs, {}
        for fd, _path, _identity in dirs.values():
            os.close(fd)

    def close(self) -> None:
        """Close every kept descriptor (idempotent; the cache may be used again)."""
        with self._locked():
            self._close_all()


def write_all(fd: int, buffers: list, offset: int | None = None) -> None:
    """Write every buffer (bytes-like), in order, with as few ``writev`` calls as the kernel allows -- ``pwritev`` at
    ``offset`` (bytes from the file's start) when one is given, else at the file's position.

    Raises:
        OSError: from the file system (disk full, file-size limit); StorageError (an OSError) if a call takes no
            bytes. What was written before stays.
    """
    views = [memoryview(b).cast("B") for b in buffers if len(b)]
    while views:
        written = os.writev(fd, views) if offset is None else os.pwritev(fd, views, offset)
        if written <= 0:
            raise StorageError("the file took no bytes")
        if offset is not None:
            offset += written
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]


def list_stats(root_fd: int, parts: tuple[str, ...]) -> list[tuple[str, os.stat_result]]:
    """``(name, lstat)`` of every entry of the directory ``parts`` below ``root_fd`` (reached by :func:`walk`),
    sorted by name, links not followed (an entry gone between the listing and its ``lstat`` is left out); none if it
    is missing.

    Raises:
        StorageError: it (or a directory on the way) is a link or not a directory, or cannot be read.
    """
    try:
        fd = walk(root_fd, parts)
    except FileNotFoundError:
        return []
    try:
        found = []
        for name in sorted(os.listdir(fd)):
            try:
                found.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
            except FileNotFoundError:
                continue
        return found
    except OSError as exc:
        raise storage_error(exc, f"cannot list {'/'.join(parts)}") from exc
    finally:
        os.close(fd)


def unlink_quietly(dir_fd: int, name: str, ignore: type[OSError] | tuple[type[OSError], ...] = FileNotFoundError
                   ) -> None:
    """Remove the file ``name`` of the directory ``dir_fd`` (a link itself, never its target), an error of the kinds
    ``ignore`` (by default: it is gone already) left unsaid; any other OSError is raised."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except ignore:
        pass
