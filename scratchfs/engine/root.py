"""Preparing a store's root: private from the moment it exists.

:func:`prepare_root` creates the root (0700) with ``runs/``, ``locks/`` and ``trash/`` (0700), the index file
``index.sqlite`` and the lock files (0600) *before* SQLite or a lock opens them -- SQLite creates its ``-wal`` and
``-shm`` files with the main file's permissions, so they are 0600 too, whatever the umask. An existing root that is
group- or world-accessible is tightened when it is ours (same owner), refused otherwise; its subdirectories
(``journal/`` too when it is a directory: the write-behind journals', never made here), index files and lock files
are tightened the same way. Nothing below the root is followed: a link, FIFO or other file where a directory, index
or lock file should be is refused with a :class:`~scratchfs.errors.StorageError` naming what was found (at
``journal/`` it is left for ``fsck`` to report and sweeps to work around). An existing directory that is not empty
and holds none of a store's own names (:data:`STORE_NAMES`) is refused with
:class:`~scratchfs.errors.InvalidArgument` before anything in it is changed: a mistyped root such as ``~`` or
``/etc`` is never made private nor filled with store files. One holding only ``lost+found`` (the mount point
of a new file system, :data:`EMPTY_NAMES`) counts as empty.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import stat
from pathlib import Path

from scratchfs.engine import safe_fs
from scratchfs.engine.safe_fs import storage_error
from scratchfs.foundation.errors import InvalidArgument, StorageError

__all__ = ["DIR_MODE", "EMPTY_NAMES", "FILE_MODE", "INDEX_FILES", "INDEX_NAME", "OWN_FILES", "STORE_NAMES",
           "index_names", "odd_own_files", "prepare_root", "stray_names"]

DIR_MODE = 0o700
"""Mode of the root and every directory in it."""
FILE_MODE = 0o600
"""Mode of every file in the root."""
INDEX_NAME = "index.sqlite"
SUBDIRS = ("runs", "locks", "trash")
JOURNAL_DIR = "journal"  # the write-behind journals' (engine.journal): tightened when it is a directory, never made
INDEX_FILES = (INDEX_NAME, INDEX_NAME + "-wal", INDEX_NAME + "-shm", INDEX_NAME + "-journal")
LOCK_FILES = ("delete.lock", "delete.gate", "sweep.lock", "index.lock")
STORE_NAMES = frozenset((*SUBDIRS, *INDEX_FILES, "reserve"))
"""Names only a store's root holds (every root, also one with a PostgreSQL index, gets them all): a non-empty
directory holding none of them is not a store."""
EMPTY_NAMES = frozenset(("lost+found",))
"""Names an otherwise empty directory may hold and still be taken as a new root (the mount point of a new file
system holds ``lost+found``)."""


def prepare_root(root: Path) -> None:
    """Create or check the store root ``root`` (see the module docstring).

    Raises:
        InvalidArgument: the root is an existing directory that is not empty and holds none of :data:`STORE_NAMES`
            (it is not a store: nothing in it is changed); it is there and not a directory (a file, a FIFO, a link
            to one or to nothing); it is no store yet and lies inside another store's own directories
            (:func:`_refuse_nested`).
        StorageError: the root cannot be created or opened; it is group- or world-accessible
            and owned by another user; a link or another kind of file is where a directory, index file or lock file
            belongs; or the file system refused (read-only, permissions). A read-only store whose modes are already
            private is accepted as it is.
    """
    _refuse_no_directory(root)
    _refuse_nested(root)
    try:
        os.makedirs(root, mode=DIR_MODE, exist_ok=True)
    except OSError as exc:
        if exc.errno == errno.EEXIST:  # something else made there meanwhile
            raise InvalidArgument(f"store root {root} is not a directory; choose a new or empty directory") from None
        raise storage_error(exc, f"cannot create the store root {root}") from exc
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:  # (there, and not this user's to open: another user's store, made 0700 by its owner)
        err = storage_error(exc, f"cannot open the store root {root}")
        raise _with_owner(err, root) from exc
    try:
        _refuse_foreign(fd, root)
        _tighten(fd, str(root), DIR_MODE)
        for name in SUBDIRS:
            _prepare_dir(fd, name, root)
        if _is_real_dir(fd, JOURNAL_DIR):  # made by the first writer behind; anything else there is fsck's to report
            _prepare_dir(fd, JOURNAL_DIR, root)
        _prepare_file(fd, INDEX_NAME, "", create=True, root=root)
        for name in INDEX_FILES[1:]:
            _prepare_file(fd, name, "", create=False, root=root)
        try:
            locks = safe_fs.open_dir(fd, "locks", "locks")
        except FileNotFoundError:
            return
        try:
            for name in LOCK_FILES:  # created here 0600: a lock library's own default mode may be looser
                _prepare_file(locks, name, "locks/", create=True, root=root)
        finally:
            os.close(locks)
    finally:
        os.close(fd)


OWN_FILES = ("reserve", "locks/sweep.cursor")
"""Files of the root that no open checks (the reserve a full disk releases; where the last sweep's slices stopped)."""


def odd_own_files(root_fd: int) -> list[tuple[str, str]]:
    """``(path relative to the root, what)`` of each of :data:`OWN_FILES` that is there and no regular file (a link,
    FIFO, directory), or a cursor with other names too (a hard link): the reserve is then not kept (a full disk has
    nothing to release), the sweep cursor not saved (a sweep removes what is at its name, so the next sweeps go on
    where the last stopped). Nothing is followed."""
    found = []
    for path in OWN_FILES:
        kind = safe_fs.describe(root_fd, path)  # (an lstat: the directories above it are the root's own, checked)
        if kind == "a regular file" and path != "reserve" and _names(root_fd, path) > 1:  # (the reserve: never written)
            found.append((path, "a file with other names too (a hard link): never written, as that would change a "
                                "file elsewhere; the next sweep removes this name"))
        elif kind not in ("a regular file", "missing"):
            found.append((path, f"{kind}, not a regular file: scratchfs never follows links or opens other kinds of "
                                "files inside its root; " + ("a full disk has no reserve to release (move it away)"
                                                             if path == "reserve" else "the next sweep removes it")))
    return found


def _names(root_fd: int, path: str) -> int:
    """How many names (hard links) the file at ``path`` has (an ``lstat``); 1 when it cannot be looked at."""
    try:
        return os.lstat(path, dir_fd=root_fd).st_nlink
    except OSError:
        return 1


_ROOT_NAMES = STORE_NAMES | EMPTY_NAMES | {JOURNAL_DIR, "store-id"}
_ROOT_TEMPORARY = re.compile(r"index\.sqlite\.damaged-.*|store-id\.[0-9a-f]+\.tmp|reserve\.[0-9]+\.tmp")
# (a damaged index moved aside, with its -wal and -shm; a marker's and the reserve's file before their rename)
_LOCK_NAMES = frozenset((*LOCK_FILES, "sweep.cursor"))


def stray_names(root_fd: int) -> list[tuple[str, str]]:
    """``(path relative to the root, what)`` of each entry at the top of the root or in ``locks/`` that no store
    writes there (what: ``"regular file"``, ``"symbolic link"``, ``"FIFO"``, ...), sorted: someone else's, never
    opened or followed (an ``lstat`` each). Under ``runs/``, fsck's walk of it finds them. ``[]`` for a directory
    that cannot be listed (``locks/`` a link: the store refuses it as it opens). Never raises."""
    found = []
    for where, known in (("", _ROOT_NAMES), ("locks", _LOCK_NAMES)):
        try:
            names = safe_fs.list_stats(root_fd, (where,) if where else ())
        except (OSError, StorageError):
            continue
        found += [(f"{where}/{name}" if where else name, _kind(st.st_mode)) for name, st in names
                  if name not in known and not (not where and _ROOT_TEMPORARY.fullmatch(name))]
    return sorted(found)


def _kind(mode: int) -> str:
    return "symbolic link" if stat.S_ISLNK(mode) else "directory" if stat.S_ISDIR(mode) else next(
        (kind.removeprefix("a ") for test, kind in _KINDS if test(mode)), "special file")


_KINDS = ((stat.S_ISREG, "a regular file"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _refuse_no_directory(root: Path) -> None:
    """Refuse (InvalidArgument) a root that is there and no directory (a link is followed, as the root is opened;
    a link to nothing is refused): a bad root, not a failing disk. Nothing is opened (a FIFO would block). A path
    that goes through a file is left to the creation below (a StorageError, as any directory it cannot make)."""
    try:
        mode = os.stat(root).st_mode
    except FileNotFoundError:
        if os.path.islink(root):  # (a store is not made behind a link)
            raise InvalidArgument(f"store root {root} is a symbolic link to nothing, not a directory; choose a new "
                                  "or empty directory") from None
        return  # missing: made below
    except OSError:
        return  # a failure the creation below reports
    if not stat.S_ISDIR(mode):
        kind = next((kind for test, kind in _KINDS if test(mode)), "a special file")
        raise InvalidArgument(f"store root {root} is {kind}, not a directory; choose a new or empty directory")


def _refuse_nested(root: Path) -> None:
    """Refuse (InvalidArgument) making a new store inside one of another store's own directories (``runs/``,
    ``trash/``, ``journal/``, ``locks/``; links resolved): in its ``trash/`` the other's next sweep removed it at
    once, in a run's or agent's folder its ``delete-run`` does, with every entry the new store was given. (A folder
    directly in another store's root is that store's ``fsck``'s to report, never removed: let be.) A root that is a
    store already is opened as it is (its entries readable, to move). Nothing is made or changed; a directory that
    cannot be looked at is let be (the open reports it)."""
    try:
        if not STORE_NAMES.isdisjoint(os.listdir(root)):
            return
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        return
    here = Path(os.path.realpath(root))
    for above in here.parents:
        if here.relative_to(above).parts[0] in _OWN_DIRS and _is_store_root(above):
            raise InvalidArgument(f"store root {root} is inside the scratchfs store at {above} "
                                  f"({here.relative_to(above)}): what is inside it is that store's to sweep, repair "
                                  "and delete (its trash/ emptied, a run's folder removed with the run); choose a "
                                  "directory outside that store")


_OWN_DIRS = frozenset((*SUBDIRS, JOURNAL_DIR))


def _is_store_root(path: Path) -> bool:
    """Whether ``path`` holds a store's index file and its ``runs/`` and ``locks/`` directories (``lstat``s)."""
    try:
        return (stat.S_ISREG(os.lstat(path / INDEX_NAME).st_mode) and stat.S_ISDIR(os.lstat(path / "runs").st_mode)
                and stat.S_ISDIR(os.lstat(path / "locks").st_mode))
    except (OSError, ValueError):
        return False


def _is_real_dir(fd: int, name: str) -> bool:
    """Whether ``name`` in the directory ``fd`` is a directory itself (``lstat``: a link to one is not)."""
    try:
        return stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode)
    except OSError:
        return False


def _with_owner(err: StorageError, root: Path) -> StorageError:
    """``err`` (the root there and not opened), saying whose the root is when it is another user's: ``...: permission
    denied (owned by uid 1001, mode 0700; this process runs as uid 1002: each user keeps a store of their own)``."""
    try:
        st = os.stat(root)
    except OSError:
        return err
    if st.st_uid == os.geteuid():
        return err
    said = StorageError(f"{err} (owned by uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):04o}; this process runs "
                        f"as uid {os.geteuid()}: each user keeps a store of their own)")
    said.errno = err.errno
    return said


def _refuse_foreign(fd: int, root: Path) -> None:
    """Refuse the open root directory ``fd`` when it is not empty and holds none of :data:`STORE_NAMES`; a
    ``lost+found`` alone (the mount point of a new file system) does not count when it is a directory (not a link,
    not a file)."""
    try:
        names = os.listdir(fd)
    except OSError as exc:
        raise storage_error(exc, f"cannot list the store root {root}") from exc
    if (set(names) - EMPTY_NAMES or not all(_is_real_dir(fd, name) for name in names)) \
            and STORE_NAMES.isdisjoint(names):
        raise InvalidArgument(f"store root {root} is not a scratchfs store and not empty; "
                              "choose a new or empty directory")


def _tighten(fd: int, where: str, mode: int) -> None:
    """Give the open file or directory ``fd`` exactly ``mode`` if it has group or other bits; refuse if not ours."""
    st = os.fstat(fd)
    if not st.st_mode & 0o077:
        return
    if st.st_uid != os.geteuid():
        raise StorageError(f"{where} is accessible to other users (mode {stat.S_IMODE(st.st_mode):04o}) and owned by "
                           f"uid {st.st_uid}, not by this user: refusing to use it")
    try:
        os.fchmod(fd, mode)
    except OSError as exc:
        if exc.errno == errno.EROFS:
            return  # a read-only store: nothing new will be written there
        raise storage_error(exc, f"cannot make {where} private (mode {mode:04o})") from exc


def _prepare_dir(root: int, name: str, path: Path) -> None:
    """Create or check the directory ``name`` of the open store root ``root`` (at ``path``: the errors' words)."""
    try:
        fd = safe_fs.open_dir(root, name, name, create=True)
    except FileNotFoundError as exc:
        raise storage_error(exc, f"cannot create {name}") from exc
    except StorageError as exc:
        if exc.errno == errno.EROFS and safe_fs.describe(root, name) == "missing":
            return  # a read-only store without it: nothing to write there anyway
        raise
    try:
        _tighten(fd, str(path / name), DIR_MODE)
    finally:
        os.close(fd)


def _prepare_file(dir_fd: int, name: str, prefix: str, create: bool, root: Path) -> None:
    """Create (``create``) or check the file ``name`` of the open directory ``dir_fd``, ``prefix`` from the store
    root ``root`` (the errors' words)."""
    flags = os.O_RDONLY | (os.O_CREAT if create else 0)
    try:
        fd, found = safe_fs.open_file_stat(dir_fd, name, flags, prefix + name)
    except FileNotFoundError:
        return
    except StorageError as exc:
        if create and exc.errno in (errno.EROFS, errno.EACCES) and safe_fs.describe(dir_fd, name) == "missing":
            return  # read-only and no index yet: the index reports what it can and cannot open
        raise
    try:
        if found.st_nlink > 1 and name in INDEX_FILES:  # (a lock file is only flock-ed, never written: let be)
            raise StorageError(index_names(root / (prefix + name), found.st_nlink))
        _tighten(fd, str(root / (prefix + name)), FILE_MODE)
    finally:
        os.close(fd)


def index_names(path: str | Path, names: int) -> str:
    """What to say of the index file at ``path`` (``index.sqlite`` or its ``-wal``, ``-shm``, ``-journal``) found
    with ``names`` names (hard links): every write the store makes to it in place would change the other name's file
    too, so the store writes none. Its commands name the file by its whole path (shell-quoted), so that they can be
    pasted from any directory."""
    quoted = shlex.quote(str(path))
    return (f"{path} has {names} names (a hard link, e.g. cp -al): every write to it would change the file at the "
            f"other name too, so scratchfs does not write it; remove the other name (find / -xdev -samefile {quoted} "
            "lists them), or give this store its own copy while no store has it open (cp -p "
            f"{quoted} {shlex.quote(str(path) + '.own')} && mv {shlex.quote(str(path) + '.own')} {quoted})")
