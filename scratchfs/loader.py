"""Load a folder of recorded tool outputs into a scope (``scratchfs load DIR``), for tests that start from fixtures.

The folder is walked by directory descriptors (``openat``), never by whole paths: a file as deep as the file system
holds is loaded even when its path is longer than ``PATH_MAX``. No link is followed, only regular files are read,
and one entry that cannot be loaded -- not a regular file, unreadable (``EACCES``), a link loop, a name too long,
gone by the time it is opened (``ENOENT``), a read error -- is skipped and named with its reason (:class:`Skipped`);
the others are loaded. The store's own root directory, when it lies inside the folder (a store in a test's
``tmp_path`` loaded from ``tmp_path``), is skipped -- and a folder inside it (its ``runs/``) is not walked --,
told by its device and inode: its index, locks and blobs are no tool outputs. So is a folder that is another
scratchfs store (``index.sqlite`` beside ``runs/`` and ``locks/``: the fixtures' old store, say). A file is loaded
as it was when it was opened: its size then, as tar reads it (bytes appended while it is read are not followed, so a
file another process keeps writing never keeps a load going; one that shrinks gives what is left). A file larger
than :data:`MAX_FILE_BYTES` (or ``max_file_bytes``) is left out unread, named with its size.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument, ScratchError

if TYPE_CHECKING:  # (annotations only: the CLI imports this module for every command, a load alone spills)
    from scratchfs.api.scope import Scope
    from scratchfs.api.stub import Stub

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # no link followed, no FIFO waited on
_LINK = "a symbolic link, not followed"
_STORE = "the store's own directory"
_OTHER_STORE = "another scratchfs store"
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFLNK: _LINK, stat.S_IFDIR: "a folder"}


MAX_FILE_BYTES = 4 * 1024**3
"""Largest file :func:`load_dir` reads by default (4 GiB): a larger one is left out unread (a sparse file of
terabytes takes a second to make and a day to read)."""
TOO_LARGE = "larger than the limit of"
"""How the reason of a file left out for its size starts (:attr:`Skipped.too_large` says it is one)."""


class Skipped(NamedTuple):
    """An entry of the folder that was not loaded."""

    path: str
    """Its path relative to the folder, with ``/``."""
    reason: str
    """Why: what kind of entry it is (``"a FIFO"``), or the error that stopped it (``"Permission denied
    (EACCES)"``)."""
    failed: bool
    """True when it could not be read (an error: permissions, a name too long, gone, a read error), False when it
    is left out by rule (not a regular file, or too large)."""
    too_large: bool = False
    """True when it is a regular file left out unread for its size (larger than ``max_file_bytes``)."""


def _error(exc: OSError) -> str:
    """``OSError``'s reason, ``"<strerror> (<ERRNO>)"``; a link met where none was expected reads as a link."""
    if exc.errno == errno.ELOOP:
        return _LINK
    name = errno.errorcode.get(exc.errno or 0, "")
    text = exc.strerror or str(exc)
    if exc.errno == errno.ENOENT:
        text = "gone before it was read"
    return f"{text} ({name})" if name else text


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _listing(dir_fd: int, prefix: str, skipped: list[Skipped]) -> list[tuple[str, bool]]:
    """The entries of the open directory ``dir_fd`` to walk, as ``(name, is a folder)``, sorted so that the walk
    gives paths in the order of their text (a folder's name sorts with a ``/`` after it); names starting with ``.``
    are left out silently, entries that are neither regular files nor folders are added to ``skipped``."""
    out: list[tuple[str, bool, str]] = []
    try:
        with os.scandir(dir_fd) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError as exc:
                    skipped.append(Skipped(prefix + name, _error(exc), True))
                    continue
                if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                    out.append((name, stat.S_ISDIR(mode), name + "/" if stat.S_ISDIR(mode) else name))
                else:
                    skipped.append(Skipped(prefix + name, _kind(mode), False))
    except OSError as exc:  # cannot be listed (permissions, gone): the folder is named
        skipped.append(Skipped(prefix.rstrip("/") or ".", _error(exc), True))
    out.sort(key=lambda item: item[2])
    return [(name, is_dir) for name, is_dir, _ in out]


def _identity(fd: int) -> tuple[int, int]:
    found = os.fstat(fd)
    return found.st_dev, found.st_ino


def _within(dir_fd: int, avoid: tuple[int, int]) -> bool:
    """Whether the open directory ``dir_fd`` is the directory ``avoid`` names or lies inside it (its parents are
    opened by ``..`` up to the file system's root, whatever path named the folder): a folder inside the store's root
    (its ``runs/``) holds the store's blobs, no tool outputs."""
    here, fd = _identity(dir_fd), dir_fd
    try:
        while here != avoid:
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            if fd != dir_fd:
                os.close(fd)
            fd, above = parent, _identity(parent)
            if above == here:  # the root of the file system
                return False
            here = above
        return True
    except OSError:  # a parent that cannot be opened: nothing more to tell
        return False
    finally:
        if fd != dir_fd:
            os.close(fd)


def _walk(root_fd: int, skipped: list[Skipped], avoid: tuple[int, int] | None = None) -> Iterator[tuple[str, int, str]]:
    """Every regular file (as listed) under the open directory ``root_fd``, in the order of its relative path:
    ``(relative path, descriptor of its directory, name)``, the descriptor open while the caller holds the item.
    A folder that cannot be opened is added to ``skipped``, and so is the folder whose ``(st_dev, st_ino)`` is
    ``avoid`` (the store's root), not walked -- ``root_fd`` itself too when it is that folder or inside it. One
    descriptor is open per level of depth; past the process's limit (``EMFILE``) the folders deeper are skipped,
    named."""
    if avoid is not None and _within(root_fd, avoid):
        skipped.append(Skipped(".", _STORE, False))
        return
    stack = [(root_fd, "", iter(_listing(root_fd, "", skipped)))]
    try:
        while stack:
            dir_fd, prefix, entries = stack[-1]
            item = next(entries, None)
            if item is None:
                stack.pop()
                if dir_fd != root_fd:
                    os.close(dir_fd)
                continue
            name, is_dir = item
            if not is_dir:
                yield prefix + name, dir_fd, name
                continue
            try:
                sub = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                skipped.append(_unopened(dir_fd, name, prefix + name, exc))
                continue
            own = avoid is not None and _identity(sub) == avoid
            if own or _is_store(sub):
                reason = _STORE if own else _OTHER_STORE
                os.close(sub)
                skipped.append(Skipped(prefix + name, reason, False))
                continue
            stack.append((sub, prefix + name + "/", iter(_listing(sub, prefix + name + "/", skipped))))
    finally:
        for dir_fd, _, _ in stack:
            if dir_fd != root_fd:
                os.close(dir_fd)


def _unopened(dir_fd: int, name: str, path: str, exc: OSError) -> Skipped:
    """The :class:`Skipped` of the folder ``name`` of ``dir_fd`` (at ``path``) that could not be opened: one that
    became a link since it was listed is a link, left out by rule as any other (``O_DIRECTORY | O_NOFOLLOW`` on a
    link fails with ``ENOTDIR``, not ``ELOOP``); any other error is a failure."""
    if exc.errno in (errno.ENOTDIR, errno.ELOOP):
        try:
            if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return Skipped(path, _LINK, False)
        except OSError:
            pass
    return Skipped(path, _error(exc), True)


def _is_store(dir_fd: int) -> bool:
    """Whether the open directory ``dir_fd`` is a scratchfs store's root: an ``index.sqlite`` file beside ``runs/``
    and ``locks/`` folders (``lstat``: no link followed)."""
    try:
        return (stat.S_ISREG(os.stat("index.sqlite", dir_fd=dir_fd, follow_symlinks=False).st_mode)
                and all(stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
                        for name in ("runs", "locks")))
    except OSError:
        return False


def _open_root(folder: str | os.PathLike[str]) -> int:
    """A descriptor of the folder (a link to a folder given as the folder itself is followed). Raises
    InvalidArgument: not a folder, or it cannot be opened."""
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        missing = exc.errno in (errno.ENOTDIR, errno.ENOENT)
        what = "not a folder" if missing else f"cannot open the folder ({_error(exc)})"
        raise InvalidArgument(f"{what}: {os.fspath(folder)!r}") from None


def iter_files(folder: str | os.PathLike[str], skipped: list[Skipped] | None = None) -> list[Path]:
    """Every regular file under ``folder``, recursively, sorted by relative path; names starting with ``.`` (and
    everything under such folders) are skipped, and symbolic links are not followed. The other entries left out --
    links, FIFOs, devices, sockets, folders that cannot be opened or listed -- are appended to ``skipped`` when given
    (:class:`Skipped`, sorted by path). A path may be longer than ``PATH_MAX`` (see :func:`load_dir`).

    Raises:
        InvalidArgument: ``folder`` is not a directory, or cannot be opened.
    """
    root = Path(folder)
    root_fd = _open_root(root)
    found: list[Path] = []
    left: list[Skipped] = []
    try:
        found = [root / name for name, _, _ in _walk(root_fd, left)]
    finally:
        os.close(root_fd)
    if skipped is not None:
        skipped.extend(sorted(left))
    return found


class _Source:
    """A file being spilled, read up to the ``size`` it had when it was opened (as tar reads a file: what another
    process appends meanwhile is not followed, so a writer that stays ahead of the load cannot keep it going);
    remembers the error its own reads raised (not the store's)."""

    def __init__(self, file: BinaryIO, size: int) -> None:
        self.file, self.error, self.left = file, None, size

    def read(self, size: int = -1) -> bytes:
        want = self.left if size < 0 else min(size, self.left)
        if want <= 0:
            return b""
        try:
            data = self.file.read(want)
        except OSError as exc:
            self.error = exc
            raise
        self.left -= len(data)
        return data


def _load_one(scope: Scope, dir_fd: int, name: str, tool: str | None, ttl: float | None,
              most: int | None) -> Stub | tuple[str, bool] | tuple[str, bool, bool]:
    """Spill the file ``name`` of ``dir_fd`` (of at most ``most`` bytes, when given): its stub, or ``(reason,
    failed[, too_large])`` when it was not loaded (as :class:`Skipped`). Raises the store's errors
    (:meth:`Scope.spill`), not the file's."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        return _error(exc), exc.errno != errno.ELOOP  # ELOOP: it became a link
    with os.fdopen(fd, "rb") as file:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):  # it changed since it was listed
            return _kind(found.st_mode), False
        if most is not None and found.st_size > most:
            return f"{TOO_LARGE} {most} bytes ({found.st_size} bytes)", False, True
        source = _Source(file, found.st_size)
        try:
            return scope.spill(source, source_tool=tool or checks.clean_tool(Path(name).stem), ttl=ttl)
        except (OSError, ScratchError):
            if source.error is None:
                raise
            return _error(source.error), True


def load_dir(scope: Scope, folder: str | os.PathLike[str], *, tool: str | None = None,
             ttl: float | None = None, skipped: list[Skipped] | None = None,
             into: dict[str, Stub] | None = None, max_file_bytes: int | None = MAX_FILE_BYTES) -> dict[str, Stub]:
    """Spill every regular file of ``folder`` (see :func:`iter_files`) into ``scope``, streaming each from disk.

    A file that cannot be loaded is skipped, and the rest are loaded: one that is not a regular file (any more), a
    link, or that cannot be opened or read (permissions, a link loop, a name too long, gone since it was listed, a
    read error); so is a folder that cannot be opened or listed. Each file is read up to the size it had when it was
    opened (bytes appended while it is read are not followed). The store's root directory, when it is inside
    ``folder`` (or is ``folder``, or holds ``folder``), is skipped (reason ``"the store's own directory"``, not
    failed): found by its device and inode as the walk opens each folder, whatever path names it. Paths longer
    than ``PATH_MAX`` are loaded (the walk opens each folder from its parent's descriptor).

    Args:
        tool: the source tool recorded for every file; default: each file's name without its last suffix
            (``browser.get.html`` -> ``browser.get``; control characters dropped, cut to the tool name's limit).
        ttl: seconds until the entries expire (default: the store's).
        skipped: a list the entries not loaded are appended to, each a :class:`Skipped` ``(path, reason,
            failed, too_large)``, sorted by path.
        into: the dict to return, filled as each file is spilled: after a failure of the store (a quota hit), it
            still names every file stored before it.
        max_file_bytes: a file larger than this many bytes (:data:`MAX_FILE_BYTES` by default; None: no limit) is
            left out unread, as ``Skipped(path, "larger than the limit of N bytes (M bytes)", False, True)``.

    Returns:
        ``{relative path (with "/"): stub}``, in the order spilled (of the relative paths).

    Raises:
        InvalidArgument: ``folder`` is not a directory (or cannot be opened), or a bad ``tool``, ``ttl`` or
            ``max_file_bytes`` (not a positive integer).
        StorageError, StoreBusy, QuotaExceeded: as :meth:`Scope.spill` (the store's failures, not a file's); files
            spilled before the failure stay in the store.
    """
    tool = checks.check_tool(tool) or None
    checks.check_ttl(ttl, 0.0)
    if max_file_bytes is not None:
        checks.check_int(max_file_bytes, "max_file_bytes", 1, 2**63 - 1)
    try:
        store = os.stat(scope.store.root)
        avoid: tuple[int, int] | None = (store.st_dev, store.st_ino)
    except OSError:  # no root directory (any more): nothing of it to meet
        avoid = None
    root_fd = _open_root(folder)
    stubs: dict[str, Stub] = {} if into is None else into
    left: list[Skipped] = []
    walk = _walk(root_fd, left, avoid)
    try:
        for rel, dir_fd, name in walk:
            loaded = _load_one(scope, dir_fd, name, tool, ttl, max_file_bytes)
            if isinstance(loaded, tuple):
                left.append(Skipped(rel, *loaded))
            else:
                stubs[rel] = loaded
    finally:
        walk.close()
        os.close(root_fd)
        if skipped is not None:
            skipped.extend(sorted(left))
    return stubs


__all__ = ["MAX_FILE_BYTES", "TOO_LARGE", "Skipped", "iter_files", "load_dir"]
