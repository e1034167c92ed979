"""Blob files on disk: where each one lives, how it is written so that no reader sees it half-done, how it goes away.

Layout under the store's root::

    runs/<run>/<agent>/<token>.zst   one seekable blob per entry (see :mod:`scratchfs.seekable`)
    runs/<run>/<agent>/<seg>.zseg    small blobs, appended one after the other (:mod:`scratchfs.engine.segments`)
    trash/<token>/                   a run or agent directory being removed (renamed here first)
    locks/                           lock files (never inside a directory that a delete removes)

``<run>`` and ``<agent>`` are :func:`scratchfs.ids.path_part` encodings; ``<token>`` is a fresh random token per
write (for a spilled result, the handle itself), so a file is never rewritten in place: an overwrite writes a new
file and the index row moves to it.

Atomicity comes from the order of the steps, not from a rename: the file is written completely (and flushed with
``fsync`` when the store is durable) *before* the index row that names it is committed, and a reader only finds files
through rows. A crash mid-write leaves a file with no row (an orphan), which :mod:`scratchfs.sweeper` removes after a
grace period. While a write is in flight its file holds an exclusive ``flock``; the sweeper never removes a locked
file, so a slow writer's file is safe however long it takes; from before it creates its file until it holds that
lock it holds its directory's ``flock`` shared, which the sweeper takes exclusively to judge an orphan.

Nothing here opens a path: every directory below the root is opened from the root's descriptor one component at a
time without following links, and only regular files are opened as blobs (:mod:`scratchfs.engine.safe_fs`). Each
blob ends with a binding frame naming its entry (:mod:`scratchfs.engine.binding`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import stat
import time
from array import array
from collections.abc import Iterable, Mapping
from pathlib import Path

from scratchfs.engine import safe_fs, segments, trash
from scratchfs.engine.binding import binding_payload
from scratchfs.engine.blob_file import LocalSource, PendingBlob
from scratchfs.engine.caches import SeenFiles
from scratchfs.engine.file_names import BLOB_NAME_RE, BLOB_SUFFIX, name_kind
from scratchfs.engine.open_files import OpenFiles
from scratchfs.engine.pairing import LOCAL_CHECK_SECONDS, unchecked
from scratchfs.engine.protocols import BlobFile, BlobInfo
from scratchfs.engine.root_locks import Descriptor, RootLocks
from scratchfs.engine.runs_listing import RunsListing, SegmentScan, walk_runs
from scratchfs.engine.seekable import SeekableWriter, one_frame_blob
from scratchfs.engine.segment_writer import SegmentPending, SegmentWriter
from scratchfs.engine.segments import SegmentSource
from scratchfs.foundation import checks as ids
from scratchfs.foundation.errors import CorruptBlob, ScratchError, StorageError, storage_error
from scratchfs.foundation.limits import OPEN_BLOB_FILES, SEGMENT_ENTRY_BYTES, SMALL_CONTENT_LEVEL

__all__ = ["BLOB_NAME_RE", "BLOB_SUFFIX", "Blobs", "LocalSource", "PendingBlob"]
# LocalSource and PendingBlob live in scratchfs.engine.blob_file, BLOB_NAME_RE and BLOB_SUFFIX in
# scratchfs.engine.file_names, named here for the callers that import them

log = logging.getLogger(__name__)

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_SEEN_ENTRIES = 4096  # blob files whose last check exists() remembers
_KEPT_DIRS = 64  # directory descriptors kept open for reading blobs


class Blobs:
    """The blob files of one store root, reached only through directory descriptors from the root's
    (:mod:`scratchfs.engine.safe_fs`: no link inside the root is followed, only regular files are opened).

    Args:
        root: the store's root directory (must exist; prepared by :func:`scratchfs.engine.root.prepare_root`).
        frame_bytes: decompressed bytes per frame.
        level: zstd compression level (a content small enough for a segment file: at most
            :data:`~scratchfs.foundation.limits.SMALL_CONTENT_LEVEL`).
        durable: ``fsync`` each file and its directory before the row that names it is committed.
        segment_entry_bytes: a content of at most this many bytes goes to a segment file (0: every blob to a file
            of its own).

    The root's descriptor stays open until this object is collected (not at :meth:`close`, so that a call still
    running in another thread never uses a closed, reused descriptor number).

    Raises:
        StorageError: the root cannot be opened.
    """

    def __init__(self, root: Path, frame_bytes: int, level: int, durable: bool = False,
                 segment_entry_bytes: int = SEGMENT_ENTRY_BYTES) -> None:
        self.root, self.runs, self.trash = root, root / "runs", root / "trash"
        try:
            self._root = Descriptor(os.open(root, os.O_RDONLY | os.O_DIRECTORY | _O_CLOEXEC))
        except OSError as exc:
            raise storage_error(exc, f"cannot open the store root {root}") from exc
        self.locks, self.owned = RootLocks(self._root), unchecked  # owned: a PostgreSQL index's OwnerCheck (backends)
        self.frame_bytes, self.level, self.durable, self.segment_entry_bytes = (frame_bytes, level, durable,
                                                                                segment_entry_bytes)
        self.segments = SegmentWriter(self._root.fd, self._create_locked, ids.new_token, durable)
        self._seen = SeenFiles(_SEEN_ENTRIES)  # blob files exists() found, by (run_id, agent_id, blob)
        self._dirs = safe_fs.DirCache(self._root.fd, _KEPT_DIRS)  # agent directories blobs were read from
        self._open = OpenFiles(self._root.fd, OPEN_BLOB_FILES)  # blob and segment files read from, kept open

    @property
    def root_fd(self) -> int:
        """The root directory's descriptor (owned by this object; do not close it)."""
        return self._root.fd

    # -- paths ----------------------------------------------------------------------------------------------------

    def run_dir(self, run_id: str) -> Path:
        """Directory of a (validated) run id."""
        return self.runs / ids.path_part(run_id)

    def agent_dir(self, run_id: str, agent_id: str) -> Path:
        """Directory of a (validated) run id and agent id."""
        return self.runs / ids.path_part(run_id) / ids.path_part(agent_id)

    def path(self, run_id: str, agent_id: str, token: str) -> str:
        """Path of the blob ``token`` of a scope (for messages and tests; this class never opens by path).
        ``token`` must come from :func:`scratchfs.ids.new_token` (checked); for a segment entry's location, the
        segment's path."""
        where = f"{self.root}/{'/'.join(self._parts(run_id, agent_id))}"
        try:
            return f"{where}/{_file_name(token)}"
        except FileNotFoundError:  # a row's blob no file can hold: the directory, and what the row says
            return f"{where} (no file: {ids.shorten(token)!r})"

    @staticmethod
    def segment_dir(run_id: str, agent_id: str) -> tuple[str, str]:
        """The encoded ``(run directory, agent directory)`` names of a scope."""
        return ids.path_part(run_id), ids.path_part(agent_id)

    @staticmethod
    def _parts(run_id: str, agent_id: str) -> tuple[str, str, str]:
        return ("runs", ids.path_part(run_id), ids.path_part(agent_id))

    # -- writing --------------------------------------------------------------------------------------------------

    def write(self, run_id: str, agent_id: str, token: str, chunks: Iterable,
              bound: Mapping | None = None) -> PendingBlob | SegmentPending:
        """Write a new blob from an iterable of byte chunks and return it, still locked, for the index commit.

        A content of at most ``segment_entry_bytes`` (when above 0) is made in memory and appended to the writer's
        segment file (:mod:`scratchfs.engine.segments`; ``info.blob`` of the result is its location); a larger one
        goes to a blob file of its own, the buffered start first, then streamed.

        Args:
            bound: what the blob belongs to besides its token and scope -- ``kind``, ``key``, ``tool``, ``ttl``
                (seconds), ``created_at`` (epoch seconds) -- written into its binding frame
                (:mod:`scratchfs.engine.binding`).

        Raises:
            StorageError: the file system refused (disk full, file-size limit, permissions, a link or other file in
                the way, or the run's directory was removed mid-write); no file is left behind.
            InvalidArgument: from ``chunks`` (bad content), or another index owns the files now (``owned``); no file.
        """
        self.owned(LOCAL_CHECK_SECONDS)  # (a PostgreSQL index a rebuild fenced off writes nothing: a file read)
        parts, name, began = self._parts(run_id, agent_id), _name(token), time.monotonic()  # (PendingWrite.began)
        fields = {"kind": "", "key": "", "tool": None, "ttl": 0.0, "created_at": time.time(), **(bound or {})}

        def payload(size: int, frames: int, digest: str) -> bytes:  # the binding frame's
            return binding_payload(token, run_id, agent_id, size=size, frames=frames, content=digest, **fields)

        limit = self.segment_entry_bytes
        head, rest = segments.buffer_head(chunks, limit) if limit > 0 else ([], iter(chunks))
        if rest is None:
            data, level = head[0] if len(head) == 1 else b"".join(head), min(self.level, SMALL_CONTENT_LEVEL)
            if len(data) <= self.frame_bytes:  # one frame: made at once (the same bytes as the writer's)
                blob, newlines = one_frame_blob(data, level, self.frame_bytes, payload)
                info = BlobInfo(len(data), len(blob), 1, array("I", (newlines,)).tobytes())
                return self.segments.append(parts, token, blob, info)
            blob = bytearray()
            writer = SeekableWriter(blob, self.frame_bytes, level, count_lines=True)
            writer.write(data)
            writer.close(lambda w: payload(w.size, w.frames, w.digest()))
            info = BlobInfo(writer.size, writer.stored_size, writer.frames, writer.frame_newlines.tobytes())
            return self.segments.append(parts, token, blob, info)
        (fd, dir_fd), writer = self._create_locked(parts, name), None
        try:
            writer = SeekableWriter(fd, self.frame_bytes, self.level, count_lines=True)
            for chunk in head:
                writer.write(chunk)
            for chunk in rest:
                writer.write(chunk)
            writer.close(lambda w: payload(w.size, w.frames, w.digest()))
            if self.durable:
                os.fsync(fd)
                os.fsync(dir_fd)
        except BaseException as exc:
            if writer is None or not writer.forked:  # in a fork() child the file is the parent's, still being written
                safe_fs.unlink_quietly(dir_fd, name, OSError)  # (the write's own error is the one to tell)
            os.close(fd)
            os.close(dir_fd)
            if isinstance(exc, OSError) and not isinstance(exc, ScratchError):
                raise storage_error(exc, "cannot write the blob") from exc
            raise
        info = BlobInfo(writer.size, writer.stored_size, writer.frames, writer.frame_newlines.tobytes())
        return PendingBlob(self, parts, name, fd, dir_fd, info, began)

    def _create_locked(self, parts: tuple[str, ...], name: str) -> tuple[int, int]:
        """Create the blob file and take its ``flock``; return it and its directory's descriptor. In the instant
        between the two the new file is empty, has no row and is not locked: the directory's shared ``flock``,
        held from before the creation until the file is locked, keeps a sweep (which takes it exclusively to judge
        an orphan) away from it. Should the file vanish all the same, it is created again."""
        for _ in range(10):
            fd, dir_fd = self._create(parts, name)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                fcntl.flock(dir_fd, fcntl.LOCK_UN)
                if os.fstat(fd).st_nlink:  # still linked: from now on no sweep can remove it
                    return fd, dir_fd
            except BaseException as exc:
                os.close(fd)
                os.close(dir_fd)
                if isinstance(exc, OSError):
                    raise storage_error(exc, "cannot lock the blob file") from exc
                raise
            os.close(fd)
            os.close(dir_fd)
        raise StorageError(f"the blob file {'/'.join(parts)}/{name} was removed as soon as it was created, 10 times")

    def _create(self, parts: tuple[str, ...], name: str) -> tuple[int, int]:
        where = "/".join(parts)
        for _ in range(50):  # a sweep may remove an empty run directory again between its creation and the open
            try:
                dir_fd = safe_fs.walk(self.root_fd, parts, create=True, durable=self.durable)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(dir_fd, fcntl.LOCK_SH)  # released by _create_locked once the file is locked
                # (O_EXCL: a new file of one name; a blob is never written again, so a hard link made to it later
                # changes nothing -- a segment appended to is checked before each append: SegmentWriter._segment)
                return safe_fs.open_file(dir_fd, name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, f"{where}/{name}"), dir_fd
            except FileNotFoundError:
                os.close(dir_fd)
                continue
            except BaseException as exc:
                os.close(dir_fd)
                if isinstance(exc, OSError) and not isinstance(exc, ScratchError):
                    raise storage_error(exc, "cannot create the blob file") from exc
                raise
        if _unlinked(self.root_fd):  # (not a sweep's race: the root itself is gone, and so is every retry)
            raise StorageError(f"cannot create the blob directory {where}: the store root {self.root} was removed "
                               "while this store had it open; reopen the store (restart the process) to make it anew")
        raise StorageError(f"cannot create the blob directory {where}: it was removed again 50 times")

    # -- locks (see :mod:`scratchfs.engine.root_locks`) -----------------------------------------------------------

    def delete_lock(self, exclusive: bool, timeout: float):
        """:meth:`RootLocks.delete_lock`: ``locks/delete.lock``, exclusive for a delete, shared for a write's
        commit. Raises StoreBusy after ``timeout`` seconds, StorageError if the lock file cannot be opened."""
        return self.locks.delete_lock(exclusive, timeout)

    def file_lock(self, name: str, wait: float):
        """:meth:`RootLocks.file_lock`: hold ``locks/<name>`` exclusively, waiting up to ``wait`` seconds."""
        return self.locks.file_lock(name, wait)

    def close(self) -> None:
        """Close the lock descriptors this process opened and retire its segments (idempotent)."""
        self.segments.close()
        self.locks.close()
        self._dirs.close()
        self._open.close()

    # -- reading --------------------------------------------------------------------------------------------------

    def open(self, run_id: str, agent_id: str, token: str) -> int:
        """Open a blob for reading and return its file descriptor (the caller closes it).

        Raises:
            FileNotFoundError: the file is gone (the caller decides what that means).
            CorruptBlob: something other than a regular file is at the blob's name (a link, FIFO, directory).
            StorageError: a directory on the way is not one (a link, ...), or any other file-system failure.
        """
        return self.open_part(self._parts(run_id, agent_id), _file_name(token))

    def open_part(self, parts: tuple[str, ...], name: str) -> int:
        """As :meth:`open`, for the file ``name`` in the directory ``parts`` (path components below the root)."""
        return self._dirs.open_file(parts, name, os.O_RDONLY, f"{'/'.join(parts)}/{name}", CorruptBlob)

    def exists(self, run_id: str, agent_id: str, token: str) -> bool:
        """True if something is at the blob's name (False when it is missing, the way there included, or no file can
        hold it): one ``lstat`` from the root's descriptor for a regular file found before, if it is still the same
        file (:class:`~scratchfs.engine.caches.SeenFiles`); else four, no descriptor opened (each directory a real
        one, no link followed; anything unexpected on the way is left to :func:`safe_fs.walk`, which raises for it).
        Raises StorageError: a directory on the way is a link or not a directory, or the file system failed."""
        ident = (run_id, agent_id, token)
        found = self._seen.check(self.root_fd, ident)
        if found is not None:
            return segments.slice_fits(found, token)
        path = ""
        try:
            name = _file_name(token)
            for part in self._parts(run_id, agent_id):
                path = f"{path}/{part}" if path else part
                if not stat.S_ISDIR(os.stat(path, dir_fd=self.root_fd, follow_symlinks=False).st_mode):
                    return self._exists_by_walk(run_id, agent_id, token)  # raises for what is there
            found = os.stat(f"{path}/{name}", dir_fd=self.root_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        except OSError:
            return self._exists_by_walk(run_id, agent_id, token)
        self._seen.note(ident, f"{path}/{name}", found)
        return segments.slice_fits(found, token)

    def _exists_by_walk(self, run_id: str, agent_id: str, token: str) -> bool:
        try:
            dir_fd = safe_fs.walk(self.root_fd, self._parts(run_id, agent_id))
        except FileNotFoundError:
            return False
        try:
            return segments.slice_fits(os.stat(_file_name(token), dir_fd=dir_fd, follow_symlinks=False), token)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise storage_error(exc, "cannot look for the blob") from exc
        finally:
            os.close(dir_fd)

    # -- removing -------------------------------------------------------------------------------------------------

    def unlink(self, run_id: str, agent_id: str, token: str) -> int:
        """Remove a blob file whose row is gone; return the bytes freed (0 if it was already gone, or could not be
        removed: that is logged as a warning and left to a later sweep, which removes files no row names; or another
        index owns the files now -- :attr:`owned`, read right before: after a takeover the file may be an entry the
        rebuild restored). Never raises. A segment entry's bytes stay where they are (0 is returned): the sweeper
        reclaims a segment once no row names any blob in it."""
        if segments.is_location(token) or not ids.TOKEN_RE.match(token):
            return 0
        try:
            self.owned(0.0)  # (a small file read)
        except ScratchError as exc:
            log.warning("scratchfs: a file left in place, not removed: %s", exc)
            return 0
        return self.unlink_part(self._parts(run_id, agent_id), _name(token))

    def forget(self, run_id: str, agent_id: str, blob: str) -> None:
        """Mark a deleted segment entry's record dead, for a rebuild not to restore it (:func:`segments.forget_at`)."""
        try:
            at, name = self._parts(run_id, agent_id), _file_name(blob)
        except FileNotFoundError:
            return
        segments.forget_at(lambda: self._open_sole(at, name), blob)

    def _open_sole(self, parts: tuple[str, ...], name: str) -> int:
        """The segment ``name`` in ``parts`` opened read-write to mark a record dead. Raises StorageError for one
        with other names too (a hard link, e.g. ``cp -al``: the mark would change the file at the other name; the
        entry's row is gone all the same, only a rebuild of a lost index could restore it), CorruptBlob for what is
        no regular file, as :func:`safe_fs.open_file_stat`."""
        fd, found = self._dirs.open_file_stat(parts, name, os.O_RDWR, name, CorruptBlob)
        if found.st_nlink > 1:
            os.close(fd)
            raise StorageError(f"{name} has {found.st_nlink} names (a hard link, e.g. cp -al): not written")
        return fd

    def unlink_part(self, parts: tuple[str, ...], name: str) -> int:
        """As :meth:`unlink`, for the file ``name`` in the directory ``parts``. A link or FIFO at the name is
        removed itself (its target is never touched); a directory there is left alone."""
        where = f"{'/'.join(parts)}/{name}"
        try:
            dir_fd = safe_fs.walk(self.root_fd, parts)
        except FileNotFoundError:
            return 0
        except (OSError, ScratchError) as exc:
            log.warning("scratchfs: cannot remove %s (%s); a later sweep will", where, exc)
            return 0
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            os.unlink(name, dir_fd=dir_fd)
            self._open.forget(parts, name)  # (its space is freed now, not when the kept descriptor is evicted)
            return st.st_size if stat.S_ISREG(st.st_mode) else 0
        except FileNotFoundError:
            return 0
        except OSError as exc:
            log.warning("scratchfs: cannot remove %s (%s); a later sweep will", where, exc.strerror or exc)
            return 0
        finally:
            os.close(dir_fd)

    def open_source(self, run_id: str, agent_id: str, token: str) -> LocalSource | SegmentSource:
        """Open a blob for reading as a :class:`LocalSource`, or a segment entry's slice as a
        :class:`~scratchfs.engine.segments.SegmentSource` (the caller closes it).

        Raises:
            FileNotFoundError: the file is gone (the caller decides what that means).
            StorageError, CorruptBlob: as :meth:`open`; CorruptBlob also for a segment too short for the slice.
        """
        return self.open_source_part(self._parts(run_id, agent_id), token)

    def open_source_part(self, parts: tuple[str, ...], blob: str) -> LocalSource | SegmentSource:
        """As :meth:`open_source`, for the blob (token or location) ``blob`` in the directory ``parts``."""
        name = _file_name(blob)
        kept = self._open.open((parts, name))  # (read a moment ago: one fstat and a dup)
        fd, st = kept or self._dirs.open_file_stat(parts, name, os.O_RDONLY, f"{'/'.join(parts)}/{name}", CorruptBlob)
        try:
            if not segments.is_location(blob):
                source: LocalSource | SegmentSource = LocalSource(fd, st)
            else:
                where = segments.parse_location(blob)
                if st.st_size < where.offset + where.length:
                    raise CorruptBlob(f"{'/'.join(parts)}/{where.name} holds {st.st_size} bytes, too few for the blob "
                                      f"at byte {where.offset} ({where.length} bytes): the segment was cut short")
                source = SegmentSource(fd, where.offset, where.length, st)
            if kept is None:
                self._open.keep((parts, name), fd)
            return source
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError) and not isinstance(exc, ScratchError):
                raise storage_error(exc, "cannot open the blob") from exc
            raise

    def open_file(self, found: BlobFile) -> LocalSource | SegmentSource:
        """Open a blob listed by :meth:`blob_files` (by its encoded directory names and token or location). Raises
        FileNotFoundError when it is gone, StorageError and CorruptBlob as :meth:`open_source`."""
        return self.open_source_part(("runs", found.run, found.agent), found.token)

    def locate(self, run_id: str | None = None, agent_id: str | None = None, token: str | None = None) -> str:
        """Where a blob is (its path, and for a segment entry its slice), for reports; without arguments, where the
        blobs are (``runs/``)."""
        if run_id is None or agent_id is None or token is None:
            return str(self.runs)
        with contextlib.suppress(ValueError):
            where = segments.parse_location(token) if segments.is_location(token) else None
            path = self.path(run_id, agent_id, token)
            return segments.record_path(path, where.offset, where.length) if where else path
        return self.path(run_id, agent_id, token)

    def detach_scope(self, run_id: str, agent_id: str | None) -> Path | None:
        """Move a run's directory (or one agent's) into ``trash/`` (see :meth:`move_to_trash`); call it under the
        exclusive delete lock. Returns the trash path for :meth:`purge`, or ``None`` if there was no directory.
        Raises InvalidArgument (nothing moved) when a rebuild gave the files to another index (:attr:`owned`)."""
        self.owned(0.0)  # (a small file read)
        directory = self.run_dir(run_id) if agent_id is None else self.agent_dir(run_id, agent_id)
        self._open.forget(directory.relative_to(self.root).parts)  # (their space is freed when the trash is purged)
        return self.move_to_trash(directory)

    def purge(self, detached: Path) -> None:
        """Remove a directory :meth:`detach_scope` moved to the trash (errors are left for the sweeper)."""
        self.remove_tree(detached)

    def move_to_trash(self, directory: Path) -> Path | None:
        """Rename a run or agent directory (a path below ``runs/``) into ``trash/`` (:func:`.trash.move_to_trash`);
        return the trash path, or ``None`` if the directory did not exist. Raises StorageError as it does."""
        target = trash.move_to_trash(self.root_fd, Path(directory).relative_to(self.root).parts)
        return None if target is None else self.trash / target

    def remove_tree(self, path: Path | str) -> bool:
        """Remove an entry of ``trash/`` and everything in it (:func:`.trash.remove_from_trash`); True if it is gone.
        Never raises."""
        return trash.remove_from_trash(self.root_fd, os.path.basename(path))

    # -- walking --------------------------------------------------------------------------------------------------

    def list_parts(self, parts: tuple[str, ...]) -> list[tuple[str, int]]:
        """``(name, st_mode)`` of each entry :meth:`list_stats` gives. Raises StorageError as it does."""
        return [(name, st.st_mode) for name, st in self.list_stats(parts)]

    def list_stats(self, parts: tuple[str, ...]) -> list[tuple[str, os.stat_result]]:
        """:func:`safe_fs.list_stats` of the directory ``parts`` below the root. Raises StorageError as it does."""
        return safe_fs.list_stats(self.root_fd, parts)

    def blob_files(self, listing: RunsListing | None = None) -> list[BlobFile]:
        """A :class:`~scratchfs.engine.protocols.BlobFile` (run directory name, agent directory name, path, token)
        for every regular file under ``runs/`` named like a blob, sorted by name (links, other files and files of
        other names are left alone); from ``listing`` (:meth:`walk_runs`, fsck's one walk) when given, each
        segment's scan kept in its ``scans``.

        Raises:
            StorageError: ``runs/`` is a link or not a directory, or cannot be read.
        """
        found, listing = [], self.walk_runs() if listing is None else listing
        for run, agent, names in listing.agent_dirs():
            for name, st in names:
                kind = name_kind(name) if stat.S_ISREG(st.st_mode) else None
                if kind == "blob":
                    found.append(BlobFile(run, agent, f"{self.runs}/{run}/{agent}/{name}", name[: -len(BLOB_SUFFIX)]))
                elif kind == "segment":
                    found += self._segment_records(run, agent, name, listing.scans)
        return found

    def walk_runs(self) -> RunsListing:
        """:func:`.runs_listing.walk_runs` of this store: every name under ``runs/``, listed once. Raises
        StorageError as it does."""
        return walk_runs(self.root_fd)

    def unread(self) -> list[tuple[str, str]]:
        """None: the files of a local store that are not blobs are told from fsck's walk of ``runs/``
        (:meth:`walk_runs`, whose listing :meth:`blob_files` reads)."""
        return []

    def _segment_records(self, run: str, agent: str, name: str, scans: dict[tuple[str, ...], SegmentScan]
                         ) -> list[BlobFile]:
        """A :class:`BlobFile` per complete record of a segment, its ``token`` the record's location; its scan is
        kept in ``scans`` (:attr:`RunsListing.scans`)."""
        scans[("runs", run, agent, name)] = scan = self.scan_segment(("runs", run, agent), name)
        records = scan[0]
        path = f"{self.runs}/{run}/{agent}/{name}"
        return [BlobFile(run, agent, segments.record_path(path, r.offset, r.length), where)
                for where, r in segments.locations(name, records).items()]

    def scan_segment(self, parts: tuple[str, ...], name: str) -> SegmentScan:
        """:func:`segments.scan` of the segment ``name`` in ``parts``: ``(records, size in bytes, problem)``. Never
        raises: a segment that cannot be opened or read gives no records and the failure as ``problem``."""
        try:
            fd = self.open_part(parts, name)
        except (OSError, ScratchError) as exc:
            return [], 0, f"cannot open it: {exc}"
        try:
            size = os.fstat(fd).st_size
            records, _end, problem = segments.scan(lambda n, at: os.pread(fd, n, at), size)
            return records, size, problem
        except OSError as exc:
            return [], 0, f"cannot read it: {exc}"
        finally:
            os.close(fd)


def _name(token: str) -> str:
    if not ids.TOKEN_RE.match(token):
        raise FileNotFoundError(errno.ENOENT, f"no file can hold the blob {ids.shorten(token)!r}")
    return token + BLOB_SUFFIX


def _file_name(blob: str) -> str:
    """The file a row's ``blob`` names: ``<token>.zst``, or a location's segment file. Raises FileNotFoundError for
    a blob that is neither (a row another kind of store wrote): it reads as a missing blob."""
    try:
        return segments.parse_location(blob).name if segments.is_location(blob) else _name(blob)
    except ValueError:
        raise FileNotFoundError(errno.ENOENT, f"no file can hold the blob {ids.shorten(blob)!r}") from None


def _unlinked(fd: int) -> bool:
    """True if the directory open as ``fd`` was removed from the file system (no link to it is left)."""
    try:
        return os.fstat(fd).st_nlink == 0
    except OSError:
        return False
