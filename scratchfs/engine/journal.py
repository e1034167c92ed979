"""Write-behind journals: which segment files a process appended spills to whose rows it had not committed yet
(issue 16; see :mod:`scratchfs.engine.write_behind`).

A process writing rows behind keeps one journal file ``<root>/journal/<fresh token>`` (directory 0700, file 0600,
made through :mod:`scratchfs.engine.safe_fs`: no link is followed) holding the paths, relative to the root, of the
segments it appended such records to, one per line (``runs/<run dir>/<agent dir>/<segment>.zseg``), each appended --
and ``fsync``-ed when the store is durable -- the first time a segment is used that way, before that spill is
acknowledged. Whenever its queue drains (every noted row committed or dropped, no spill between its note and its
queueing), the writer empties its journal (:meth:`Journal.reset`): a long-lived writer's journal names only the
segments that may hold rows not yet committed, not every segment it ever wrote to (which no other process's sweep
would reclaim while it lives). The writer holds ``LOCK_EX`` on its journal for its life and unlinks it on close after
a successful final flush; a journal whose ``flock`` can be taken (``LOCK_EX|LOCK_NB``) is a dead writer's.

* **Recovery** (:func:`recover`): for each dead writer's journal, each listed segment still at its place is scanned
  (:func:`~scratchfs.engine.segments.scan`); each live record no row names is handed to a ``restore`` callback (the
  api's: it reads the blob's binding and, for a live spill of a scope not deleted, inserts its row exactly as
  ``fsck --rebuild-index`` does); then the journal is unlinked. A segment a delete moved away (with its directory)
  is not at its place: its entries were deleted, nothing is restored.
* **The sweeper** never removes or compacts a segment named by another process's journal (:func:`journaled`,
  asked after the sweeper holds the segment's lock): its writer may have died before committing rows for it. A
  segment named only by this process's own live journals is judged as any other: holding its lock means this
  process retired it with every row of it committed or dropped.

A ``fork()`` child keeps none of its parent's journals (their descriptors are closed in the child, so the parent's
lock alone keeps them alive) and starts its own when it first writes behind.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import stat
import threading
import weakref
from collections.abc import Callable

from scratchfs.engine import safe_fs, segments
from scratchfs.engine.file_names import name_kind
from scratchfs.engine.protocols import BlobFile
from scratchfs.foundation import checks, forks
from scratchfs.foundation.errors import ScratchError, StorageError, StoreBusy, StoreClosed, storage_error

__all__ = ["JOURNAL_DIR", "MAX_JOURNAL_BYTES", "Journal", "journaled", "problems", "recover"]

log = logging.getLogger(__name__)

JOURNAL_DIR = "journal"
"""The directory of the journal files, below the store root."""


class Journal:
    """The journal of one writer (one store object): created on the first :meth:`note`.

    Args:
        root_fd: the store root's descriptor (owned by the caller, open for this object's life).
        durable: ``fsync`` each line (and the new file's directory) before :meth:`note` returns.
    """

    def __init__(self, root_fd: int, durable: bool) -> None:
        self._root_fd = root_fd
        self._durable = durable
        self._lock = threading.Lock()
        self._fd = -1
        self.name: str | None = None
        self._noted: set[str] = set()
        self._closed = False  # after close(): no journal is made again (a spill racing the close fails)
        self._generation = forks.generation
        _JOURNALS.add(self)

    def note(self, path: str) -> None:
        """Record that ``path`` (a segment's path relative to the root) holds a record whose row is not yet
        committed; a no-op if it was noted already.

        Raises:
            StorageError: the journal cannot be created or written (the caller then commits the row at once).
            StoreClosed: the journal was closed (its store is closing).
        """
        if self._generation != forks.generation:
            self._after_fork()
        if path in self._noted:
            return
        with self._lock:
            if path in self._noted:
                return
            if self._closed:
                raise StoreClosed("the store is closed")
            try:
                if self._fd < 0:
                    self._open()
                elif os.fstat(self._fd).st_nlink > 1:  # (once a segment, not a spill)
                    self._renew(self._noted)
                safe_fs.write_all(self._fd, [path.encode("ascii") + b"\n"])
                if self._durable:
                    os.fsync(self._fd)
            except OSError as exc:
                if isinstance(exc, ScratchError):
                    raise
                raise storage_error(exc, "cannot write the write-behind journal") from exc
            self._noted.add(path)

    def reset(self) -> None:
        """Every row noted so far is committed or dropped (the caller's queue drained, no spill between its
        :meth:`note` and its queueing): empty the journal (``ftruncate``, not ``fsync``-ed: lines that come back
        after a power loss only keep their segments from sweepers until a recovery) and forget what was noted, so
        that the journal of a long-lived writer names only segments that may hold rows not yet committed, and
        other processes' sweeps reclaim the rest. Never raises (a failure is logged; the lines stay)."""
        if self._generation != forks.generation:
            return
        with self._lock:
            if self._fd < 0 or not self._noted:
                return
            try:
                if os.fstat(self._fd).st_nlink > 1:
                    self._renew(set())
                else:
                    os.ftruncate(self._fd, 0)
            except OSError as exc:
                log.warning("scratchfs: cannot empty the write-behind journal %s/%s (%s)", JOURNAL_DIR, self.name,
                            exc)
                return
            self._noted = set()

    def _renew(self, lines: set[str]) -> None:
        """This writer's journal has other names too (a hard link, e.g. ``cp -al`` of a live store): writing it in
        place would change the file at the other name, so a new journal takes its place, holding ``lines``, before
        this name is removed (call with the lock held). Raises OSError, StorageError (the old journal is kept)."""
        old_fd, old_name = self._fd, self.name
        self._open()
        try:
            if lines:
                safe_fs.write_all(self._fd, [b"".join(line.encode("ascii") + b"\n" for line in sorted(lines))])
                if self._durable:
                    os.fsync(self._fd)
        except BaseException:
            new_fd, new_name, self._fd, self.name = self._fd, self.name, old_fd, old_name
            os.close(new_fd)
            _unlink(self._root_fd, new_name)
            raise
        log.warning("scratchfs: the write-behind journal %s/%s has other names (a hard link): it is %s/%s now",
                    JOURNAL_DIR, old_name, JOURNAL_DIR, self.name)
        try:
            _unlink(self._root_fd, old_name)
        finally:
            os.close(old_fd)

    def _open(self) -> None:
        """Create this writer's journal file and lock it (call with the lock held). Raises OSError, StorageError."""
        for _ in range(10):
            dir_fd = safe_fs.walk(self._root_fd, (JOURNAL_DIR,), create=True, durable=self._durable)
            try:
                name = checks.new_token()
                fd = safe_fs.open_file(dir_fd, name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND,
                                       f"{JOURNAL_DIR}/{name}")
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)  # a recovery that took it first (empty) unlinks it: made again
                    if os.fstat(fd).st_nlink:
                        if self._durable:
                            os.fsync(dir_fd)
                        self._fd, self.name = fd, name
                        return
                except BaseException:
                    os.close(fd)
                    raise
                os.close(fd)
            finally:
                os.close(dir_fd)
        raise StorageError("the write-behind journal was removed as soon as it was created, 10 times")

    def close(self, remove: bool) -> None:
        """Close the journal (dropping its lock); with ``remove``, unlink it first (every row it covers is
        committed). A later :meth:`note` raises StoreClosed (a spill racing its store's close makes no journal that
        would stay locked for the process's life). Idempotent; never raises (a journal left behind is recovered by
        the next open or sweep)."""
        if self._generation != forks.generation:
            self._after_fork()
            return
        with self._lock:
            fd, name, self._fd, self.name = self._fd, self.name, -1, None
            self._noted, self._closed = set(), True
            if fd < 0:
                return
            try:
                if remove:
                    _unlink(self._root_fd, name)
            except (OSError, ScratchError) as exc:
                log.warning("scratchfs: cannot remove the write-behind journal %s/%s (%s); the next open or sweep "
                            "does", JOURNAL_DIR, name, exc)
            finally:
                os.close(fd)

    def _after_fork(self) -> None:
        """In a ``fork()`` child: close the inherited descriptor (the parent's lock stays with the parent) and start
        with no journal."""
        self._lock = threading.Lock()
        if self._fd >= 0:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd, self.name, self._noted, self._generation = -1, None, set(), forks.generation
        self._closed = False


_JOURNALS: weakref.WeakSet[Journal] = weakref.WeakSet()


def _close_in_child() -> None:
    """Right after ``fork()``, in the child: close every inherited journal descriptor, so that a child that lives on
    (a worker) does not keep its parent's journals locked after the parent died (their recovery would wait for it)."""
    for journal in list(_JOURNALS):
        if journal._generation != forks.generation:
            journal._after_fork()


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX (registered after forks', which counts first)
    os.register_at_fork(after_in_child=_close_in_child)


def _unlink(root_fd: int, name: str) -> None:
    try:
        dir_fd = safe_fs.walk(root_fd, (JOURNAL_DIR,))
    except FileNotFoundError:
        return
    try:
        safe_fs.unlink_quietly(dir_fd, name)
    finally:
        os.close(dir_fd)


def _names(root_fd: int) -> list[str]:
    """The journal files' names (regular files named like a token). Raises StorageError."""
    return [name for name, st in safe_fs.list_stats(root_fd, (JOURNAL_DIR,))
            if checks.TOKEN_RE.fullmatch(name) and stat.S_ISREG(st.st_mode)]


MAX_JOURNAL_BYTES = 64 << 20
"""Bytes of a journal file read at most (a writer's journal holds one line per segment it wrote behind into since
its queue last drained: far less); the lines beyond are not read (recovery tells so, and removes the file)."""
_MAX_LINE_BYTES = 4096  # a longer line is no segment path: skipped without being kept
_CHUNK_BYTES = 1 << 20


def _paths(fd: int) -> tuple[list[str], bool]:
    """The distinct segment paths a journal lists (well-formed ones only, in order; a torn last line is left out)
    and whether the whole file was read (False: longer than :data:`MAX_JOURNAL_BYTES`). Read in chunks: a huge or
    sparse file costs neither memory nor more than that many bytes of reading. Raises OSError."""
    size = os.fstat(fd).st_size
    end = min(size, MAX_JOURNAL_BYTES)
    found: dict[str, None] = {}
    tail, at = b"", 0
    while at < end:
        chunk = os.pread(fd, min(_CHUNK_BYTES, end - at), at)
        if not chunk:
            break
        at += len(chunk)
        lines = (tail + chunk).split(b"\n")
        tail = lines.pop()
        if len(tail) > _MAX_LINE_BYTES:
            tail = b"\xff"  # an overlong line: never a path (its rest is dropped with it)
        for line in lines:
            path = _path(line)
            if path is not None:
                found[path] = None
    return list(found), size <= MAX_JOURNAL_BYTES


def _path(line: bytes) -> str | None:
    """The segment path a journal line names, or None if it is no well-formed one."""
    if len(line) > _MAX_LINE_BYTES:
        return None
    parts = line.decode("ascii", "replace").split("/")
    if (len(parts) == 4 and parts[0] == "runs" and all(p not in ("", ".", "..") for p in parts)
            and name_kind(parts[3]) == "segment"):
        return "/".join(parts)
    return None


def problems(root_fd: int) -> list[tuple[str, str]]:
    """What is wrong with the journal directory, as ``(path relative to the root, what)`` pairs, nothing touched or
    followed: ``journal`` itself a link, file, FIFO or other non-directory, or unreadable (then no dead writer's rows
    can be recovered, and sweeps keep every segment holding a live spill no row names); ``journal`` open to other
    users (one this user owns is made private when a store opens); and an entry of it that is no journal a writer
    leaves (a link, FIFO, directory or other file at a journal's name, or a name no writer gives), never read; a
    journal with other names too (a hard link).
    ``[]`` when there is no ``journal`` (no process wrote behind) or all is well."""
    why = ("the write-behind journals cannot be read: a killed writer's spills are not recovered, and sweeps keep the "
           "segments holding live spills no row names; move it away, then run fsck --rebuild-index")
    try:
        dir_st = os.stat(JOURNAL_DIR, dir_fd=root_fd, follow_symlinks=False)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [(JOURNAL_DIR, f"cannot look at it ({exc.strerror}): {why}")]
    try:
        found = safe_fs.list_stats(root_fd, (JOURNAL_DIR,))
    except (OSError, ScratchError) as exc:
        return [(JOURNAL_DIR, f"{exc}: {why}")]
    out = []
    if dir_st.st_mode & 0o077:
        out.append((JOURNAL_DIR, f"the journal directory is accessible to other users (mode "
                                 f"{stat.S_IMODE(dir_st.st_mode):04o}, owner uid {dir_st.st_uid})"))
    for name, st in found:
        if not stat.S_ISREG(st.st_mode):
            out.append((f"{JOURNAL_DIR}/{name}", f"{safe_fs.describe(root_fd, f'{JOURNAL_DIR}/{name}')}, not a "
                        "regular file: no write-behind journal, never opened (remove it)"))
        elif not checks.TOKEN_RE.fullmatch(name):
            out.append((f"{JOURNAL_DIR}/{name}", "a file no writer names a journal so: never read (remove it)"))
        elif st.st_nlink > 1:
            out.append((f"{JOURNAL_DIR}/{name}", f"a journal with {st.st_nlink} names (a hard link, e.g. cp -al): "
                        "never written in place again -- its live writer moves to a new journal on its next write"))
    return out


def _open_journal(dir_fd: int, name: str) -> int | None:
    try:
        return safe_fs.open_file(dir_fd, name, os.O_RDONLY, f"{JOURNAL_DIR}/{name}")
    except FileNotFoundError:
        return None
    except ScratchError as exc:  # something else in the way: told, left alone
        log.warning("scratchfs: %s", exc)
        return None


def journaled(root_fd: int) -> set[str]:
    """The segment paths (relative to the root) named by a journal file other than this process's own live ones:
    a sweep must neither remove nor compact them. Ask after taking the segment's lock.

    Raises:
        StorageError: the journal directory cannot be read (the caller then judges no segment).
    """
    own = {j.name for j in list(_JOURNALS) if j.name is not None and j._generation == forks.generation}
    names = [name for name in _names(root_fd) if name not in own]
    if not names:
        return set()
    found: set[str] = set()
    dir_fd = safe_fs.walk(root_fd, (JOURNAL_DIR,))
    try:
        for name in names:
            fd = _open_journal(dir_fd, name)
            if fd is None:
                continue
            try:
                found.update(_paths(fd)[0])
            except OSError as exc:
                raise storage_error(exc, f"cannot read {JOURNAL_DIR}/{name}") from exc
            finally:
                os.close(fd)
    finally:
        os.close(dir_fd)
    return found


def recover(blobs, known: Callable[[list[str], tuple[str, ...]], set[str]],
            restore: Callable[[BlobFile], object]) -> int:
    """Restore the rows a dead writer acknowledged but never committed (see the module docstring); return the
    journals recovered. ``restore(found)`` gets a :class:`BlobFile` (its ``token`` the record's location) of each
    record of a listed segment that no row names (``known(locations, (run dir, agent dir))``: those a row of that
    scope names, :func:`~scratchfs.engine.segment_sweep.known_locations`), and decides (it restores only live
    spills). A journal whose segments could not all be read or restored is left for the next recovery.

    Raises:
        StorageError: the journal directory cannot be read. StoreBusy, StorageError: from the index.
    """
    names = _names(blobs.root_fd)
    if not names:
        return 0
    done = 0
    dir_fd = safe_fs.walk(blobs.root_fd, (JOURNAL_DIR,))
    try:
        for name in names:
            done += _recover_one(blobs, known, restore, dir_fd, name)
    finally:
        os.close(dir_fd)
    return done


def _recover_one(blobs, known: Callable[[list[str], tuple[str, ...]], set[str]],
                 restore: Callable[[BlobFile], object], dir_fd: int, name: str) -> int:
    fd = _open_journal(dir_fd, name)
    if fd is None:
        return 0
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return 0  # its writer is alive (or another recovery has it)
            raise storage_error(exc, f"cannot lock {JOURNAL_DIR}/{name}") from exc
        if not os.fstat(fd).st_nlink:
            return 0  # recovered (or closed cleanly) meanwhile
        paths, whole = _paths(fd)
        for path in paths:
            _recover_segment(blobs, known, restore, path)
        if not whole:  # no writer's (one emptied whenever its queue drains): not read again at every recovery
            log.warning("scratchfs: the write-behind journal %s/%s is longer than %d bytes: only the segments its "
                        "first bytes name were recovered", JOURNAL_DIR, name, MAX_JOURNAL_BYTES)
        safe_fs.unlink_quietly(dir_fd, name)
        return 1
    except OSError as exc:
        if isinstance(exc, (StorageError, StoreBusy)):
            raise
        raise storage_error(exc, f"cannot recover {JOURNAL_DIR}/{name}") from exc
    finally:
        os.close(fd)


def _recover_segment(blobs, known: Callable[[list[str], tuple[str, ...]], set[str]],
                     restore: Callable[[BlobFile], object], path: str) -> None:
    """Hand each record of the segment ``path`` that no row names to ``restore`` (none if it left its place)."""
    _, run, agent, name = path.split("/")
    parts = ("runs", run, agent)
    records, _size, problem = blobs.scan_segment(parts, name)
    if problem:  # (a segment a delete moved away with its directory cannot be opened: nothing to restore)
        log.debug("scratchfs: recovering %s: %s", path, problem)
    located = segments.locations(name, records)
    named = known(list(located), parts[1:])
    for where, record in located.items():
        if where not in named:
            restore(BlobFile(run, agent, segments.record_path(f"{blobs.runs}/{run}/{agent}/{name}", record.offset,
                                                              record.length), where))
