"""The public face of scratchfs: :class:`ScratchStore` (one root) and :class:`Scope` (one run and agent in it).

How the main paths flow (each module has one job)::

    spill        Scope.spill -> policy (preview, note) -> blobs.write (frames + seek table, file locked)
                              -> index.put (one short transaction that also checks the file is still there)
    read_handle  Scope.read_handle -> index.lookup (scoped, live rows only) -> blobs.open
                              -> seekable (frames covering the range) or search (frames streamed for matches)
    delete_run   under the delete lock (exclusive; writes hold it shared while they commit):
                              index.delete_scope (rows deleted, committed) -> directory moved to trash
                              -> trash removed
    sweep        sweeper.sweep (expired rows, then their files; orphans; leftovers)
"""

from __future__ import annotations

import logging
import math
import operator
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import platformdirs

from . import ids
from .blobs import Blobs, iter_chunks
from .errors import CorruptBlob, InvalidArgument, NotFound, ScratchError, StorageError
from .index import Entry, Index
from .policy import (
    NEVER_SPILL_TOOLS,
    SPILL_CLASSES,
    Observation,
    Stub,
    make_note,
    make_preview,
    should_spill,
)
from .search import Window, find_windows
from .seekable import (
    DEFAULT_FRAME_BYTES,
    DEFAULT_LEVEL,
    MAX_FRAME_BYTES,
    MIN_FRAME_BYTES,
    FormatError,
    SeekableReader,
    SeekTableCache,
)
from .sweeper import Sweeper, SweepResult, sweep

log = logging.getLogger(__name__)

MAX_READ_BYTES = 64 * 1024
"""Most bytes one ``read_handle`` call returns (a range, or all windows of a search together)."""
MAX_CONTEXT_BYTES = 8 * 1024
"""Largest ``context`` of a search, in bytes on each side of a match."""
MAX_NEEDLE_BYTES = 4 * 1024
"""Longest ``match`` needle, in UTF-8 bytes."""
MAX_MATCHES = 1000
"""Largest ``max_matches`` of a search."""
MAX_TTL = 30 * 24 * 3600.0
"""Longest TTL, in seconds (30 days): this is temporary data."""
DEFAULT_READ_BYTES = 4096

ENV_ROOT = "SCRATCHFS_ROOT"


@dataclass(frozen=True, slots=True)
class Slice:
    """The result of a range read.

    Attributes:
        handle: the handle (or key) read.
        offset: byte offset of ``data`` in the content.
        data: the bytes read (at most :data:`MAX_READ_BYTES`).
        size: the content's total size, in bytes.
        next_offset: where the next read starts, or ``None`` at the end.
    """

    handle: str
    offset: int
    data: bytes
    size: int
    next_offset: int | None


@dataclass(frozen=True, slots=True)
class Matches:
    """The result of a search.

    Attributes:
        handle: the handle searched.
        match: the needle, as bytes.
        windows: one :class:`~scratchfs.search.Window` per match, in content order.
        size: the content's total size, in bytes.
        next_offset: pass it as ``offset=`` to resume after these windows; ``None`` when no match is left.
    """

    handle: str
    match: bytes
    windows: list[Window]
    size: int
    next_offset: int | None


def _check_ttl(ttl: object, default: float) -> float:
    if ttl is None:
        return default
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)):
        raise InvalidArgument(f"ttl must be a number of seconds, not {type(ttl).__name__}: {ttl!r}")
    if not 0 < ttl <= MAX_TTL:  # false for NaN; compares huge ints exactly (math.isfinite would overflow)
        raise InvalidArgument(f"ttl must be positive, finite seconds of at most {MAX_TTL:.0f}: {ttl!r}")
    return float(ttl)


def _check_int(value: object, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise InvalidArgument(f"{what} must be an integer, not a bool: {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidArgument(f"{what} must be an integer, not {type(value).__name__}: {value!r}") from None
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidArgument(f"{what} must be {bound}: {number}")
    return number


def _needle(match: object) -> bytes:
    if isinstance(match, str):
        try:
            needle = match.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidArgument(f"match is not valid UTF-8 text: {match!r}") from None
    elif isinstance(match, (bytes, bytearray, memoryview)):
        needle = bytes(match)
    else:
        raise InvalidArgument(f"match must be text or bytes, not {type(match).__name__}")
    if not needle:
        raise InvalidArgument("match must not be empty")
    if len(needle) > MAX_NEEDLE_BYTES:
        raise InvalidArgument(f"match is {len(needle)} bytes, longer than the limit of {MAX_NEEDLE_BYTES}")
    return needle


class ScratchStore:
    """A scratch store at one root directory: a SQLite index beside per-run, per-agent blob directories.

    Args:
        root: the root directory; else ``$SCRATCHFS_ROOT``; else the user cache directory for ``scratchfs``
            (``platformdirs``). Created if missing.
        default_ttl: seconds an entry lives when no TTL is given (positive, finite, at most :data:`MAX_TTL`).
        spill_threshold_bytes: :meth:`Scope.offload` spills results larger than this many bytes.
        preview_bytes: most bytes of content shown in a stub's preview.
        frame_bytes: decompressed bytes per zstd frame (see :mod:`scratchfs.seekable`).
        level: zstd compression level.
        busy_timeout: seconds to wait for a busy index or lock before :class:`~scratchfs.errors.StoreBusy`.
        orphan_grace: seconds a file with no index row is left alone before a sweep removes it.
        durable: ``fsync`` each blob and its directory before its row is committed, and run SQLite with
            ``synchronous=FULL``: what returned then survives a power loss, not only a process crash.
        clock: the one clock of expiry, returning epoch seconds (``time.time`` by default; tests pass a fake).
        never_spill_tools, spill_classes: the spill policy's lists (see :mod:`scratchfs.policy`).

    Raises:
        InvalidArgument: a bad setting.
        StorageError: the root cannot be created or its index opened.
        StoreBusy: the index stayed locked past ``busy_timeout`` while opening.

    Threads may share a store; a ``fork()`` child may keep using the parent's store object (it opens its own
    connections) but should not share one across processes at once with its parent through threads.
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        default_ttl: float = 3600.0,
        spill_threshold_bytes: int = 8192,
        preview_bytes: int = 1024,
        *,
        frame_bytes: int = DEFAULT_FRAME_BYTES,
        level: int = DEFAULT_LEVEL,
        busy_timeout: float = 30.0,
        orphan_grace: float = 300.0,
        durable: bool = False,
        clock: Callable[[], float] = time.time,
        never_spill_tools: Iterable[str] = NEVER_SPILL_TOOLS,
        spill_classes: Iterable[str] = SPILL_CLASSES,
    ) -> None:
        self.default_ttl = _check_ttl(default_ttl, 3600.0)
        self.spill_threshold_bytes = _check_int(spill_threshold_bytes, "spill_threshold_bytes", 0)
        self.preview_bytes = _check_int(preview_bytes, "preview_bytes", 0, MAX_READ_BYTES)
        frame_bytes = _check_int(frame_bytes, "frame_bytes", MIN_FRAME_BYTES, MAX_FRAME_BYTES)
        level = _check_int(level, "level", -7, 22)
        for name, value in (("busy_timeout", busy_timeout), ("orphan_grace", orphan_grace)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise InvalidArgument(f"{name} must be a finite, non-negative number of seconds: {value!r}")
        self.busy_timeout = float(busy_timeout)
        self.orphan_grace = float(orphan_grace)
        self.durable = bool(durable)
        self.clock = clock
        self.never_spill_tools = frozenset(never_spill_tools)
        self.spill_classes = frozenset(spill_classes)
        if root is None:
            root = os.environ.get(ENV_ROOT) or platformdirs.user_cache_dir("scratchfs")
        self.root = Path(root).expanduser().absolute()
        try:
            for sub in ("", "runs", "locks"):
                os.makedirs(self.root / sub, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create the store root {self.root}: {exc.strerror or exc}") from None
        self._locks = self.root / "locks"
        self.index = Index(self.root / "index.sqlite", self._locks, self.busy_timeout, self.durable)
        self.blobs = Blobs(self.root, frame_bytes, level, self.durable)
        self._tables = SeekTableCache()
        self._sweeper: Sweeper | None = None
        self._sweeper_lock = threading.Lock()
        self.closed = False

    # -- life cycle ---------------------------------------------------------------------------------------------

    def __enter__(self) -> ScratchStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the background sweeper (if any) and close this process's connections. Idempotent."""
        self.stop_sweeper()
        self.closed = True
        self.index.close()

    def __repr__(self) -> str:
        return f"ScratchStore(root={str(self.root)!r})"

    # -- scopes ---------------------------------------------------------------------------------------------------

    def scope(self, run_id: str, agent_id: str) -> Scope:
        """The scope of one ``(run_id, agent_id)``; every read and write through it is limited to that pair.

        Raises:
            InvalidArgument: a bad run id or agent id (see :mod:`scratchfs.ids`).
        """
        return Scope(self, ids.check_run_id(run_id), ids.check_agent_id(agent_id))

    def now(self) -> float:
        """The store clock's time, epoch seconds."""
        return float(self.clock())

    # -- whole runs -----------------------------------------------------------------------------------------------

    def list_entries_for_run(self, run_id: str) -> list[Entry]:
        """Every live entry of every agent of a run, oldest first (no content).

        Raises:
            InvalidArgument: a bad run id.
        """
        return self.index.list_scope(ids.check_run_id(run_id), None, None, "", self.now())

    def list_entries(self) -> list[Entry]:
        """Every live entry of every run, ordered by run, agent and age (no content)."""
        return self.index.list_all(self.now())

    def delete_run(self, run_id: str) -> int:
        """Delete every entry of a run, with its directory; return the number of rows deleted.

        Raises:
            InvalidArgument: a bad run id.
            StoreBusy: the index or the delete lock stayed busy; nothing was deleted.
            StorageError: the index failed (nothing was deleted), or the directory could not be moved (the rows
                are deleted; the next sweeps remove the files).
        """
        run_id = ids.check_run_id(run_id)
        return self._delete_dir(run_id, None, self.blobs.run_dir(run_id))

    def delete_agent(self, run_id: str, agent_id: str) -> int:
        """Delete every entry of one agent of a run, with its directory; return the number of rows deleted.

        Raises:
            InvalidArgument: a bad run id or agent id.
            StoreBusy, StorageError: as :meth:`delete_run`.
        """
        run_id, agent_id = ids.check_run_id(run_id), ids.check_agent_id(agent_id)
        return self._delete_dir(run_id, agent_id, self.blobs.agent_dir(run_id, agent_id))

    def _delete_dir(self, run_id: str, agent_id: str | None, directory: Path) -> int:
        with self.blobs.delete_lock(True, self.busy_timeout):  # no write commits between the two steps
            count = self.index.delete_scope(run_id, agent_id)
            moved = self.blobs.move_to_trash(directory)
        if moved is not None:
            self.blobs.remove_tree(moved)
        return count

    # -- retention ------------------------------------------------------------------------------------------------

    def sweep(self, wait: float | None = None) -> SweepResult:
        """Delete expired entries and their files, rows whose file is gone, and orphan files older than the grace
        period (see :mod:`scratchfs.sweeper`).

        Args:
            wait: seconds to wait if another process is sweeping (default: the busy timeout); 0 returns at once
                with ``skipped=True``.

        Raises:
            StoreBusy, StorageError: from the index.
        """
        return sweep(self.index, self.blobs, str(self._locks / "sweep.lock"), self.now(), self.orphan_grace,
                     self.busy_timeout if wait is None else wait)

    def start_sweeper(self, interval: float = 300.0) -> None:
        """Sweep in a background daemon thread every ``interval`` seconds until :meth:`stop_sweeper` or
        :meth:`close`. Calling it again while it runs changes nothing.

        Raises:
            InvalidArgument: ``interval`` is not a positive, finite number of seconds.
        """
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 < interval < math.inf:
            raise InvalidArgument(f"interval must be positive, finite seconds: {interval!r}")
        with self._sweeper_lock:
            if self._sweeper is not None and self._sweeper.is_alive():
                return
            self._sweeper = Sweeper(lambda: self.sweep(wait=0), float(interval))
            self._sweeper.start()

    def stop_sweeper(self) -> None:
        """Stop the background sweeper, if one runs (waits up to the busy timeout for a sweep in progress)."""
        with self._sweeper_lock:
            sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.stop(self.busy_timeout)

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` of the index (``"ok"`` when sound)."""
        return self.index.integrity_check()

    # -- internals used by Scope ----------------------------------------------------------------------------------

    def _write(self, scope: Scope, kind: str, key: str, content: object, tool: str | None, ttl: float
               ) -> tuple[Entry, int]:
        """Write one entry (blob, then row); return it and the bytes of content its preview covers."""
        if self.closed:
            raise StorageError("the store is closed")
        token = ids.new_token()
        head = _Head(self.preview_bytes)
        chunks = head.watch(iter_chunks(content))
        pending = self.blobs.write(scope.run_id, scope.agent_id, token, chunks)
        try:
            info = pending.info
            preview, covered = make_preview(head.data, self.preview_bytes)
            now = self.now()
            lines = sum(memoryview(info.frame_newlines).cast("I")) + (1 if head.last_byte not in (None, 0x0A) else 0)
            entry = Entry(kind, scope.run_id, scope.agent_id, key, token, info.size, info.stored_size, info.frames,
                          lines, preview, tool, None, None, now, now + ttl, ttl)
            with self.blobs.delete_lock(False, self.busy_timeout):
                written, old = self.index.put(entry, info.frame_newlines, pending.exists)
            if not written:
                raise StorageError(f"run {scope.run_id!r} was deleted while this entry was being written")
        except BaseException:
            pending.discard()
            raise
        pending.release()
        if old is not None and old != token:
            self.blobs.unlink(scope.run_id, scope.agent_id, old)
        return entry, covered

    def _open(self, scope: Scope, kind: str, key: str) -> tuple[Entry, int]:
        """Look up a live entry and open its blob; a blob replaced meanwhile (an overwrite) is looked up again."""
        for _ in range(5):
            entry = self.index.lookup(scope.run_id, scope.agent_id, kind, key, self.now())
            if entry is None:
                break
            try:
                return entry, self.blobs.open(scope.run_id, scope.agent_id, entry.blob)
            except FileNotFoundError:
                again = self.index.lookup(scope.run_id, scope.agent_id, kind, key, self.now())
                if again is None or again.blob == entry.blob:
                    break  # its file is gone (removed from outside): the next sweep drops the row
        raise NotFound(f"no {'handle' if kind == 'handle' else 'key'} {key!r} in this scope (or it has expired)")

    def _reader(self, entry: Entry, fd: int, name: str) -> SeekableReader:
        try:
            table = self._tables.get(fd, entry.blob)
        except FormatError as exc:
            raise CorruptBlob(f"{name}: {exc}") from None
        if table.size != entry.size:
            raise CorruptBlob(f"{name}: the blob holds {table.size} bytes, the index says {entry.size}")
        return SeekableReader(fd, table)


class _Head:
    """Keeps the first bytes of a stream (for the preview) and its last byte (for the line count)."""

    __slots__ = ("data", "last_byte", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit + 4
        self.data = b""
        self.last_byte: int | None = None

    def watch(self, chunks: Iterable) -> Iterator:
        for chunk in chunks:
            if len(chunk):
                if len(self.data) < self.limit:
                    self.data += bytes(chunk[: self.limit - len(self.data)])
                self.last_byte = chunk[-1]
            yield chunk


class Scope:
    """One ``(run_id, agent_id)`` of a store: spills, reads and the scratchpad, all limited to that pair.

    Obtain one with :meth:`ScratchStore.scope`. Another scope's handle or key, an expired one and a missing one all
    raise the same :class:`~scratchfs.errors.NotFound`.
    """

    def __init__(self, store: ScratchStore, run_id: str, agent_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.agent_id = agent_id

    def __repr__(self) -> str:
        return f"Scope(run_id={self.run_id!r}, agent_id={self.agent_id!r})"

    # -- spilling -------------------------------------------------------------------------------------------------

    def spill(self, content: object, source_tool: str | None = None, ttl: float | None = None) -> Stub:
        """Store a result out of context (always, whatever its size) and return its stub.

        Args:
            content: ``bytes``, ``str`` (stored as UTF-8), a binary file object, or an iterable of byte chunks;
                streams are never held in memory whole.
            source_tool: the tool that produced it.
            ttl: seconds until it expires (default: the store's ``default_ttl``).

        Returns:
            a :class:`~scratchfs.policy.Stub`: ``handle``, ``preview``, ``size`` (bytes), ``note``.

        Raises:
            InvalidArgument: bad content, tool name or TTL.
            StorageError: the file system refused (disk full, file-size limit), or the run was deleted meanwhile;
                nothing was stored.
            StoreBusy: the index stayed locked past the busy timeout; nothing was stored.
        """
        tool = ids.check_tool(source_tool)
        ttl = _check_ttl(ttl, self.store.default_ttl)
        handle = ids.new_handle()
        entry, covered = self.store._write(self, "handle", handle, content, tool, ttl)
        return Stub(handle, entry.preview, entry.size, make_note(handle, entry.size, covered, tool), tool)

    def offload(self, obs: Observation) -> Observation:
        """Apply the spill policy to a tool result: return it unchanged, or with its content replaced by the stub
        (compact JSON text) and the :class:`~scratchfs.policy.Stub` attached as ``stub``.

        Never raises for a failed spill: the original observation goes through unchanged and the failure is logged
        at ERROR level with its exception.
        """
        store = self.store
        try:
            if not should_spill(obs, store.spill_threshold_bytes, never_spill_tools=store.never_spill_tools,
                                spill_classes=store.spill_classes):
                return obs
            stub = self.spill(obs.content, source_tool=obs.tool)
        except Exception:
            log.error("scratchfs: spilling the result of %r failed; passing it through whole", obs.tool,
                      exc_info=True)
            return obs
        return replace(obs, content=stub.to_json(), stub=stub)

    # -- reading --------------------------------------------------------------------------------------------------

    def read_handle(
        self,
        handle: str,
        offset: int = 0,
        length: int | None = None,
        *,
        match: str | bytes | None = None,
        context: int = 200,
        max_matches: int = 20,
    ) -> Slice | Matches:
        """Read a spilled result back: a byte range, or the windows around matches of a substring.

        Range mode (no ``match``): bytes ``[offset, offset + length)`` with ``length`` (default 4096) capped at
        :data:`MAX_READ_BYTES`; returns a :class:`Slice` whose ``next_offset`` is where the next read starts
        (``None`` at the end). Decompresses only the frames that cover the range.

        Match mode: non-overlapping matches of ``match`` (text is searched as UTF-8) starting at or after byte
        ``offset``, each with up to ``context`` bytes on either side; at most ``max_matches`` windows, and all
        windows together within :data:`MAX_READ_BYTES`. Returns :class:`Matches`; pass its ``next_offset`` as
        ``offset=`` to resume. Streams the blob frame by frame.

        Raises:
            InvalidArgument: a malformed handle; ``offset`` not an integer in ``[0, size]``; ``length``, ``context``
                or ``max_matches`` out of range; an empty or too long ``match``; ``length`` given with ``match``.
            NotFound: no live entry of this scope has this handle (another scope's, expired, deleted, missing).
            CorruptBlob: the blob is damaged (the message names the handle); no bytes are returned.
        """
        handle = ids.check_handle(handle)
        offset = _check_int(offset, "offset", 0)
        if match is None:
            length = _check_int(DEFAULT_READ_BYTES if length is None else length, "length", 0)
            return self._read_range("handle", handle, offset, min(length, MAX_READ_BYTES))
        if length is not None:
            raise InvalidArgument("length applies to range reads; a search takes context and max_matches")
        needle = _needle(match)
        context = _check_int(context, "context", 0, MAX_CONTEXT_BYTES)
        max_matches = _check_int(max_matches, "max_matches", 1, MAX_MATCHES)
        return self._search(handle, offset, needle, context, max_matches)

    def _read_range(self, kind: str, key: str, offset: int, length: int) -> Slice:
        store = self.store
        entry, fd = store._open(self, kind, key)
        try:
            if offset > entry.size:
                raise InvalidArgument(f"offset {offset} is past the end of {key} ({entry.size} bytes)")
            reader = store._reader(entry, fd, key)
            try:
                data = reader.read(offset, length)
            except FormatError as exc:
                raise CorruptBlob(f"{key}: {exc}") from None
        finally:
            os.close(fd)
        end = offset + len(data)
        return Slice(key, offset, data, entry.size, end if end < entry.size else None)

    def _search(self, handle: str, offset: int, needle: bytes, context: int, max_matches: int) -> Matches:
        store = self.store
        entry, fd = store._open(self, "handle", handle)
        try:
            if offset > entry.size:
                raise InvalidArgument(f"offset {offset} is past the end of {handle} ({entry.size} bytes)")
            reader = store._reader(entry, fd, handle)
            try:
                windows, next_offset = find_windows(reader, needle, offset, context, max_matches, MAX_READ_BYTES)
            except FormatError as exc:
                raise CorruptBlob(f"{handle}: {exc}") from None
        finally:
            os.close(fd)
        return Matches(handle, needle, windows, entry.size, next_offset)

    # -- scratchpad -----------------------------------------------------------------------------------------------

    def scratch_write(self, key: str, value: object, ttl: float | None = None) -> Entry:
        """Write (or overwrite, atomically) a scratchpad value under ``key``; return its entry.

        Args:
            value: ``bytes``, ``str`` (UTF-8), a binary file object or an iterable of byte chunks.
            ttl: seconds until it expires (default: the store's ``default_ttl``).

        Raises:
            InvalidArgument: bad key, value or TTL.
            StorageError, StoreBusy: as :meth:`spill`; the previous value, if any, is kept.
        """
        key = ids.check_key(key)
        ttl = _check_ttl(ttl, self.store.default_ttl)
        return self.store._write(self, "scratch", key, value, None, ttl)[0]

    def scratch_read(self, key: str) -> bytes:
        """The whole value of a scratchpad key, as bytes.

        Raises:
            InvalidArgument: a bad key.
            NotFound: no live value under this key in this scope.
            CorruptBlob: the value's blob is damaged.
        """
        key = ids.check_key(key)
        store = self.store
        entry, fd = store._open(self, "scratch", key)
        try:
            reader = store._reader(entry, fd, key)
            try:
                return b"".join(data for _, data in reader.iter_frames())
            except FormatError as exc:
                raise CorruptBlob(f"{key}: {exc}") from None
        finally:
            os.close(fd)

    def scratch_list(self, prefix: str = "") -> list[Entry]:
        """Live scratchpad entries of this scope whose key starts with ``prefix`` (exactly, case-sensitive), oldest
        first.

        Raises:
            InvalidArgument: a bad prefix.
        """
        prefix = ids.check_text(prefix, "prefix", ids.MAX_KEY_BYTES, allow_empty=True)
        return self.store.index.list_scope(self.run_id, self.agent_id, "scratch", prefix, self.store.now())

    def scratch_delete(self, key: str) -> bool:
        """Delete a scratchpad key; return True if a live value was deleted (False if there was none).

        Raises:
            InvalidArgument: a bad key.
        """
        key = ids.check_key(key)
        store = self.store
        live, blob = store.index.delete_key(self.run_id, self.agent_id, "scratch", key, store.now())
        if blob is not None:
            store.blobs.unlink(self.run_id, self.agent_id, blob)
        return live

    def list_entries(self) -> list[Entry]:
        """Live entries of this scope (spilled handles and scratchpad keys), oldest first."""
        return self.store.index.list_scope(self.run_id, self.agent_id, None, "", self.store.now())


__all__ = ["Matches", "Scope", "ScratchError", "ScratchStore", "Slice"]
