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

import datetime as _dt
import json
import logging
import operator
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import platformdirs

from scratchfs.api.policy import (
    NEVER_SPILL_TOOLS,
    PREVIEW_MODES,
    SPILL_CLASSES,
    Observation,
    Stub,
    build_stub,
    make_preview,
    should_spill,
)
from scratchfs.api.shape import SAMPLE_BYTES, describe_blob
from scratchfs.engine.lines import LineTable, read_lines
from scratchfs.engine.local_blobs import Blobs, iter_chunks, storage_error
from scratchfs.engine.search import DEFAULT_TIMEOUT, LiteralMatcher, Matcher, PatternMatcher, Window, search
from scratchfs.engine.seekable import (
    DEFAULT_FRAME_BYTES,
    DEFAULT_LEVEL,
    MAX_FRAME_BYTES,
    MIN_FRAME_BYTES,
    FormatError,
    SeekableReader,
    SeekTableCache,
)
from scratchfs.engine.sqlite_index import LIST_PREVIEW_BYTES, Entry, Index
from scratchfs.engine.sweeper import Sweeper, SweepResult, sweep
from scratchfs.foundation import checks as ids
from scratchfs.foundation.errors import (
    CorruptBlob,
    Deleted,
    Expired,
    InvalidArgument,
    NotFound,
    QuotaExceeded,
    ScratchError,
    StorageError,
)

log = logging.getLogger(__name__)

MAX_READ_BYTES = 64 * 1024
"""Most bytes one ``read_handle`` call returns (a range, or all windows of a search together)."""
MAX_CONTEXT_BYTES = 8 * 1024
"""Largest ``context`` of a search, in bytes on each side of a match."""
MAX_NEEDLE_BYTES = 4 * 1024
"""Longest ``match`` needle, in UTF-8 bytes."""
MAX_MATCHES = 1000
"""Largest ``max_matches`` of a search."""
MAX_LINES = 10_000
"""Largest ``lines`` of a line read (the bytes are capped by :data:`MAX_READ_BYTES` too)."""
MAX_CACHED_VALUE_BYTES = 64 * 1024
"""Largest scratchpad value kept in the in-memory value cache, in bytes (the cache holds at most 16 MiB)."""
DEFAULT_LINES = 50
"""Lines a line read returns when no ``lines`` is given."""
DEFAULT_CONTEXT = 200
"""Bytes of context on each side of a match when no ``context`` is given."""
DEFAULT_MATCHES = 20
"""Matches a search returns when no ``max_matches`` is given."""
MAX_TTL = 30 * 24 * 3600.0
"""Longest TTL, in seconds (30 days): this is temporary data."""
DEFAULT_READ_BYTES = 4096
"""Bytes a range read returns when no ``length`` is given."""

ENV_ROOT = "SCRATCHFS_ROOT"
T = TypeVar("T")


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Slice:
    """The result of a range read.

    Attributes:
        handle: the handle (or key) read.
        offset: byte offset of ``data`` in the content.
        data: the bytes read (at most :data:`MAX_READ_BYTES`).
        size: the content's total size, in bytes.
        next_offset: where the next read starts, or ``None`` at the end.
        requested: the length asked for, capped at :data:`MAX_READ_BYTES` (the next call asks for as much).
    """

    handle: str
    offset: int
    data: bytes
    size: int
    next_offset: int | None
    requested: int = DEFAULT_READ_BYTES

    @property
    def remaining(self) -> int:
        """Bytes after this slice, not read yet."""
        return self.size - self.offset - len(self.data)

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on -- the next range of the same length -- or ``None`` at the end."""
        if self.next_offset is None:
            return None
        return f"read_handle(handle={_quote(self.handle)}, offset={self.next_offset}, length={self.requested})"


@dataclass(frozen=True, slots=True)
class LineSlice:
    """The result of a line-range read.

    Attributes:
        handle: the handle read.
        offset: byte offset of ``data`` (the start of ``first_line``).
        data: whole lines, line ends as they are (at most :data:`MAX_READ_BYTES`; the last one may be cut, see
            ``cut``).
        size: the content's total size, in bytes.
        first_line: 1-based number of the first line in ``data``.
        lines: number of lines in ``data`` (a cut or unterminated last line counts).
        total_lines: the content's line count.
        next_line: the first line not started in ``data`` (read on by lines), or ``None`` at the end.
        next_offset: the first byte not in ``data`` (read on by bytes, e.g. the rest of a cut line), or ``None``.
        cut: the read cap stopped ``data`` inside a line, which continues at ``next_offset``.
        requested: the number of lines asked for (the next call asks for as many).
    """

    handle: str
    offset: int
    data: bytes
    size: int
    first_line: int
    lines: int
    total_lines: int
    next_line: int | None
    next_offset: int | None
    cut: bool
    requested: int = DEFAULT_LINES

    @property
    def remaining(self) -> int:
        """Bytes after this read, not read yet."""
        return self.size - self.offset - len(self.data)

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on (the rest of a cut line by bytes, else the next lines), or ``None``."""
        if self.cut and self.next_offset is not None:
            return f"read_handle(handle={_quote(self.handle)}, offset={self.next_offset}, length={MAX_READ_BYTES})"
        if self.next_line is None:
            return None
        return f"read_handle(handle={_quote(self.handle)}, line={self.next_line}, lines={self.requested})"


@dataclass(frozen=True, slots=True)
class Matches:
    """The result of a search, by substring (``match``) or by regular expression (``pattern``).

    Attributes:
        handle: the handle searched.
        match: the needle as bytes (substring search), else ``None``.
        pattern: the regular expression (pattern search), else ``None``.
        windows: :class:`~scratchfs.search.Window` objects in content order; overlapping windows are merged and
            list each of their matches.
        size: the content's total size, in bytes.
        next_offset: pass it as ``offset=`` to resume after these windows; ``None`` when no match is left.
        ignore_case: matched ignoring ASCII case.
        context, max_matches: the search's settings (the next call uses them too).
    """

    handle: str
    match: bytes | None
    windows: list[Window]
    size: int
    next_offset: int | None
    pattern: str | None = None
    ignore_case: bool = False
    context: int = DEFAULT_CONTEXT
    max_matches: int = DEFAULT_MATCHES

    @property
    def more(self) -> bool:
        """True when more matches follow ``next_offset``."""
        return self.next_offset is not None

    @property
    def remaining(self) -> int:
        """Bytes from ``next_offset`` to the end, not searched yet (0 when the search is complete)."""
        return 0 if self.next_offset is None else self.size - self.next_offset

    @property
    def match_count(self) -> int:
        """Number of matches in the windows."""
        return sum(len(w.matches) for w in self.windows)

    @property
    def next_call(self) -> str | None:
        """The exact call that finds the next matches, or ``None`` when no match is left."""
        if self.next_offset is None:
            return None
        if self.pattern is not None:
            what = f"pattern={_quote(self.pattern)}"
        else:
            what = f"match={_quote((self.match or b'').decode('utf-8', 'replace'))}"
        if self.ignore_case:
            what += ", ignore_case=True"
        return (f"read_handle(handle={_quote(self.handle)}, {what}, offset={self.next_offset}, "
                f"context={self.context}, max_matches={self.max_matches})")


def _check_ttl(ttl: object, default: float) -> float:
    """``default`` for ``None``, else a TTL in ``(0, MAX_TTL]`` seconds. Raises InvalidArgument."""
    return default if ttl is None else _check_seconds(ttl, "ttl", MAX_TTL)


def _check_seconds(value: object, what: str, maximum: float, zero_ok: bool = False) -> float:
    """A number of seconds in ``(0, maximum]`` (``[0, maximum]`` when ``zero_ok``), as a float.

    Raises:
        InvalidArgument: not a real number (bools refused), NaN, infinite, or out of range; huge integers included.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{what} must be a number of seconds, not {type(value).__name__}: {ids.shorten(value)}")
    # false for NaN; compares huge integers exactly (math.isfinite would overflow)
    if not ((value >= 0) if zero_ok else (value > 0)) or not value <= maximum:
        low = "non-negative" if zero_ok else "positive"
        raise InvalidArgument(f"{what} must be {low}, finite seconds of at most {maximum:.0f}: {ids.shorten(value)}")
    return float(value)


def _check_int(value: object, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool):
        raise InvalidArgument(f"{what} must be an integer, not a bool: {ids.shorten(value)}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidArgument(f"{what} must be an integer, not {type(value).__name__}: {ids.shorten(value)}") from None
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidArgument(f"{what} must be {bound}: {ids.shorten(number)}")
    return number


def _check_mode(mode: object) -> str:
    if mode not in PREVIEW_MODES:
        raise InvalidArgument(f"preview mode must be one of {', '.join(PREVIEW_MODES)}: {mode!r}")
    return str(mode)


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
        preview_bytes: most bytes of content shown in a stub's preview (0 to 65,536; the stub's 1.5 KiB budget may
            show fewer).
        frame_bytes: decompressed bytes per zstd frame (see :mod:`scratchfs.seekable`).
        level: zstd compression level (-7 to 22; 3 by default).
        busy_timeout: seconds to wait for a busy index or lock before :class:`~scratchfs.errors.StoreBusy`.
        orphan_grace: seconds a file with no index row is left alone before a sweep removes it.
        durable: ``fsync`` each blob and its directory before its row is committed, and run SQLite with
            ``synchronous=FULL``: what returned then survives a power loss, not only a process crash.
        clock: the one clock of expiry, returning epoch seconds (``time.time`` by default; tests pass a fake).
        never_spill_tools, spill_classes: the spill policy's lists (see :mod:`scratchfs.policy`).
        preview_mode: ``"head"`` or ``"head+tail"`` (:data:`~scratchfs.policy.PREVIEW_MODES`): the stub preview of
            a spill when neither the call nor ``preview_modes`` says otherwise.
        preview_modes: preview mode per result class, for :meth:`Scope.offload` (e.g. ``{"workspace":
            "head+tail"}``).
        detect_shape: detect each spill's content type and shape (from its first 512 KiB) for the stub.
        refresh_on_read: a read pushes the entry's expiry forward by its TTL.
        run_quota_bytes: most stored (compressed) bytes a run may hold, or ``None``.
        run_quota_entries: most entries a run may hold, or ``None``.
        pattern_timeout: seconds one pattern search may spend in the regex engine.

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
        preview_mode: str = "head",
        preview_modes: Mapping[str, str] | None = None,
        detect_shape: bool = True,
        refresh_on_read: bool = False,
        run_quota_bytes: int | None = None,
        run_quota_entries: int | None = None,
        pattern_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.default_ttl = _check_ttl(default_ttl, 3600.0)
        self.spill_threshold_bytes = _check_int(spill_threshold_bytes, "spill_threshold_bytes", 0)
        self.preview_bytes = _check_int(preview_bytes, "preview_bytes", 0, MAX_READ_BYTES)
        frame_bytes = _check_int(frame_bytes, "frame_bytes", MIN_FRAME_BYTES, MAX_FRAME_BYTES)
        level = _check_int(level, "level", -7, 22)
        self.busy_timeout = _check_seconds(busy_timeout, "busy_timeout", 86_400.0, zero_ok=True)
        self.orphan_grace = _check_seconds(orphan_grace, "orphan_grace", MAX_TTL, zero_ok=True)
        self.durable = bool(durable)
        self.clock = clock
        self.never_spill_tools = frozenset(never_spill_tools)
        self.spill_classes = frozenset(spill_classes)
        self.preview_mode = _check_mode(preview_mode)
        self.preview_modes = {str(k): _check_mode(v) for k, v in (preview_modes or {}).items()}
        self.detect_shape = bool(detect_shape)
        self.refresh_on_read = bool(refresh_on_read)
        self.quota = (
            None if run_quota_bytes is None else _check_int(run_quota_bytes, "run_quota_bytes", 0),
            None if run_quota_entries is None else _check_int(run_quota_entries, "run_quota_entries", 0),
        )
        self.pattern_timeout = _check_seconds(pattern_timeout, "pattern_timeout", 3600.0)
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
        self._values = _ValueCache(MAX_CACHED_VALUE_BYTES, 16 * 1024 * 1024)
        self._line_tables: dict[str, LineTable] = {}
        self._line_tables_lock = threading.Lock()
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
        self.blobs.close()

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
            count = self.index.delete_scope(run_id, agent_id, self.now())
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
        interval = _check_seconds(interval, "interval", 86_400.0)
        with self._sweeper_lock:
            if self._sweeper is not None and self._sweeper.is_alive():
                return
            self._sweeper = Sweeper(lambda: self.sweep(wait=0), interval)
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

    def _write(self, scope: Scope, kind: str, key: str, content: object, tool: str | None, ttl: float,
               preview_mode: str | None = None) -> tuple[Entry, Stub | None]:
        """Write one entry (blob, then row); return it and, for a spill, its stub."""
        if self.closed:
            raise StorageError("the store is closed")
        quota = self.quota
        if quota != (None, None) and kind == "handle":  # a spill replaces nothing: refuse before writing
            stored, count = self.index.usage(scope.run_id, self.now())
            if (quota[0] is not None and stored >= quota[0]) or (quota[1] is not None and count >= quota[1]):
                raise QuotaExceeded(f"run {scope.run_id!r} is at its quota ({stored:,} stored bytes, {count:,} "
                                    "entries); delete entries or wait for them to expire")
        token = ids.new_token()
        tail_mode = kind == "handle" and (preview_mode or self.preview_mode) == "head+tail"
        tap = _Tap(max(SAMPLE_BYTES, self.preview_bytes + 4) if self.detect_shape else self.preview_bytes + 4,
                   self.preview_bytes if tail_mode else 0)
        pending = self.blobs.write(scope.run_id, scope.agent_id, token, tap.watch(iter_chunks(content)))
        try:
            info = pending.info
            lines = sum(memoryview(info.frame_newlines).cast("I")) + (1 if tap.last_byte not in (None, 0x0A) else 0)
            if self.detect_shape:
                shape = describe_blob(tap.head, info.size, lines, pending.path)
                content_type, shape_text = shape.content_type, shape.text
            else:
                content_type = shape_text = None
            stub = None if kind != "handle" else build_stub(
                key, tap.head, tap.tail, info.size, lines, content_type, shape_text, tool, self.preview_bytes,
                preview_mode or self.preview_mode)
            preview = make_preview(tap.head, b"", info.size, min(self.preview_bytes, LIST_PREVIEW_BYTES))[0]
            now = self.now()
            entry = Entry(kind, scope.run_id, scope.agent_id, key, token, info.size, info.stored_size, info.frames,
                          lines, preview, tool, content_type, shape_text, now, now + ttl, ttl)
            with self.blobs.delete_lock(False, self.busy_timeout):
                written, old = self.index.put(entry, info.frame_newlines, pending.exists, quota)
            if not written:
                raise StorageError(f"run {scope.run_id!r} was deleted while this entry was being written")
        except BaseException:
            pending.discard()
            raise
        pending.release()
        if old is not None and old != token:
            self.blobs.unlink(scope.run_id, scope.agent_id, old)
        return entry, stub

    def _with_entry(self, scope: Scope, kind: str, key: str, attempt: Callable[[Entry, bytes], T]) -> T:
        """Look up a live entry and return ``attempt(entry, per-frame newline counts)``. If its file is gone because
        the entry was replaced meanwhile (an overwrite), look it up again; if it is gone otherwise (removed from
        outside), it is not found (the next sweep drops the row).

        Raises:
            NotFound: no live entry (or its file is gone).
        """
        index = self.index
        for _ in range(5):
            now = self.now()
            found = index.lookup_with_lines(scope.run_id, scope.agent_id, kind, key, now)
            if found is None:
                break
            entry, newlines = found
            if self.refresh_on_read:  # before the attempt, which may open a file that a failure here would leak
                index.touch(scope.run_id, scope.agent_id, kind, key, entry.blob, now + entry.ttl)
            try:
                return attempt(entry, newlines)
            except FileNotFoundError:
                again = index.lookup(scope.run_id, scope.agent_id, kind, key, self.now())
                if again is None or again.blob == entry.blob:
                    break
        raise self._not_found(scope, kind, key)

    def _open(self, scope: Scope, kind: str, key: str) -> tuple[Entry, int, bytes]:
        """Look up a live entry and open its blob: ``(entry, file descriptor, per-frame newline counts)``; the caller
        closes the descriptor. Raises NotFound."""
        return self._with_entry(scope, kind, key, lambda entry, newlines: (
            entry, self.blobs.open(scope.run_id, scope.agent_id, entry.blob), newlines))

    def _read_whole(self, scope: Scope, kind: str, key: str) -> bytes:
        """The whole content of a live entry; a small one (at most :data:`MAX_CACHED_VALUE_BYTES`) from the value
        cache when its file is still there. Raises NotFound, CorruptBlob."""

        def attempt(entry: Entry, _newlines: bytes) -> bytes:
            path = self.blobs.path(scope.run_id, scope.agent_id, entry.blob)
            data = self._values.get(entry.blob)
            if data is not None:
                os.stat(path)  # FileNotFoundError when removed from outside
                return data
            fd = self.blobs.open(scope.run_id, scope.agent_id, entry.blob)
            try:
                reader = self._reader(entry, fd, key)
                with _reading(key):
                    data = b"".join(chunk for _, chunk in reader.iter_frames())
            finally:
                os.close(fd)
            self._values.put(entry.blob, data)
            return data

        return self._with_entry(scope, kind, key, attempt)

    def _not_found(self, scope: Scope, kind: str, key: str) -> NotFound:
        what = f"{'handle' if kind == 'handle' else 'key'} {key!r}"
        gone = self.index.gone(scope.run_id, scope.agent_id, kind, key, self.now())
        if gone is None:
            return NotFound(f"no {what} in this scope")
        when = f"{_utc(gone.at)} (epoch {gone.at:.3f})"
        if gone.reason == "expired":
            return Expired(f"{what} expired at {when}; write it again if it is still needed")
        return Deleted(f"{what} was {gone.reason} at {when}")

    def _line_table(self, blob: str, newlines: bytes) -> LineTable:
        """The cumulative line counts of a blob (cached by blob token: a token's file never changes)."""
        table = self._line_tables.get(blob)
        if table is None:
            table = LineTable(newlines)
            with self._line_tables_lock:
                if len(self._line_tables) >= 256:
                    self._line_tables.pop(next(iter(self._line_tables)))
                self._line_tables[blob] = table
        return table

    def _line_reader(self, entry: Entry, fd: int, newlines: bytes, name: str) -> tuple[SeekableReader, LineTable]:
        """The blob's reader and its line table, checked against each other. Raises CorruptBlob."""
        reader = self._reader(entry, fd, name)
        table = self._line_table(entry.blob, newlines)
        if len(table.newlines_before) != reader.table.frames + 1:
            raise CorruptBlob(f"{name}: the index's line counts do not match the blob's frames")
        return reader, table

    def _reader(self, entry: Entry, fd: int, name: str) -> SeekableReader:
        with _reading(name):
            table = self._tables.get(fd, entry.blob)
        if table.size != entry.size:
            raise CorruptBlob(f"{name}: the blob holds {table.size} bytes, the index says {entry.size}")
        return SeekableReader(fd, table)


class _ValueCache:
    """Small decompressed values by blob token, least recently used first out, thread-safe. Safe to share between
    threads and across ``fork()``: a token names one file, written once and never changed."""

    def __init__(self, max_value: int, max_total: int) -> None:
        self._values: OrderedDict[str, bytes] = OrderedDict()
        self._max_value = max_value
        self._max_total = max_total
        self._total = 0
        self._lock = threading.Lock()

    def get(self, token: str) -> bytes | None:
        with self._lock:
            data = self._values.get(token)
            if data is not None:
                self._values.move_to_end(token)
            return data

    def put(self, token: str, data: bytes) -> None:
        if len(data) > self._max_value:
            return
        with self._lock:
            if token in self._values:
                return
            self._values[token] = data
            self._total += len(data)
            while self._total > self._max_total:
                _, old = self._values.popitem(last=False)
                self._total -= len(old)


@contextmanager
def _reading(name: str) -> Iterator[None]:
    """Turn what reading a blob can raise into the store's errors: damaged data into :class:`CorruptBlob` (naming
    the handle or key), a failing file system into :class:`StorageError`."""
    try:
        yield
    except FormatError as exc:
        raise CorruptBlob(f"{name}: {exc}") from None
    except OSError as exc:
        raise storage_error(exc, f"cannot read {name}") from exc


def _utc(epoch: float) -> str:
    return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Tap:
    """Keeps the first bytes of a stream (preview and shape sample), its last bytes (the tail preview) and its last
    byte (the line count), while the stream flows through to the writer."""

    __slots__ = ("head_len", "head_limit", "head_parts", "last_byte", "tail", "tail_limit")

    def __init__(self, head_limit: int, tail_limit: int) -> None:
        self.head_limit = head_limit
        self.tail_limit = tail_limit
        self.head_parts: list[bytes] = []
        self.head_len = 0
        self.tail = b""
        self.last_byte: int | None = None

    @property
    def head(self) -> bytes:
        if len(self.head_parts) > 1:
            self.head_parts = [b"".join(self.head_parts)]
        return self.head_parts[0] if self.head_parts else b""

    def watch(self, chunks: Iterable) -> Iterator:
        for chunk in chunks:
            size = len(chunk)
            if size:
                if self.head_len < self.head_limit:
                    piece = bytes(chunk[: self.head_limit - self.head_len])
                    self.head_parts.append(piece)
                    self.head_len += len(piece)
                if self.tail_limit:
                    if size >= self.tail_limit:
                        self.tail = bytes(chunk[size - self.tail_limit :])
                    else:
                        self.tail = (self.tail + bytes(chunk))[-self.tail_limit :]
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

    def spill(self, content: object, source_tool: str | None = None, ttl: float | None = None, *,
              preview: str | None = None) -> Stub:
        """Store a result out of context (always, whatever its size) and return its stub.

        Args:
            content: ``bytes``, ``str`` (stored as UTF-8), a binary file object, or an iterable of byte chunks;
                streams are never held in memory whole.
            source_tool: the tool that produced it.
            ttl: seconds until it expires (default: the store's ``default_ttl``).
            preview: ``"head"`` or ``"head+tail"`` (default: the store's ``preview_mode``).

        Returns:
            a :class:`~scratchfs.policy.Stub`: ``handle``, ``preview``, ``size`` (bytes), ``lines``,
            ``content_type``, ``shape``, ``note``; its compact JSON is at most 1.5 KiB.

        Raises:
            InvalidArgument: bad content, tool name, TTL or preview mode.
            QuotaExceeded: the run would go over ``run_quota_bytes`` or ``run_quota_entries``; nothing was stored.
            StorageError: the file system refused (disk full, file-size limit), or the run was deleted meanwhile;
                nothing was stored.
            StoreBusy: the index stayed locked past the busy timeout; nothing was stored.
        """
        tool = ids.check_tool(source_tool)
        ttl = _check_ttl(ttl, self.store.default_ttl)
        mode = None if preview is None else _check_mode(preview)
        _, stub = self.store._write(self, "handle", ids.new_handle(), content, tool, ttl, mode)
        assert stub is not None
        return stub

    def offload(self, obs: Observation) -> Observation:
        """Apply the spill policy to a tool result: return it unchanged, or with its content replaced by the stub
        (compact JSON text) and the :class:`~scratchfs.policy.Stub` attached as ``stub``. The preview mode is the
        store's ``preview_modes`` entry for the observation's result class, else its ``preview_mode``.

        Never raises for a failed spill: the original observation goes through unchanged and the failure is logged
        at ERROR level with its exception.
        """
        store = self.store
        try:
            if not should_spill(obs, store.spill_threshold_bytes, never_spill_tools=store.never_spill_tools,
                                spill_classes=store.spill_classes):
                return obs
            mode = store.preview_modes.get(obs.result_class or "", store.preview_mode)
            stub = self.spill(obs.content, source_tool=ids.clean_tool(obs.tool), preview=mode)
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
        pattern: str | None = None,
        ignore_case: bool = False,
        context: int | None = None,
        max_matches: int | None = None,
        line: int | None = None,
        lines: int | None = None,
    ) -> Slice | LineSlice | Matches:
        """Read a spilled result back: a byte range, a line range, or the windows around matches.

        * **Range** (default): bytes ``[offset, offset + length)``, ``length`` 4096 by default, capped at
          :data:`MAX_READ_BYTES`. Returns :class:`Slice`. Decompresses only the frames that cover the range.
        * **Lines** (``line=N``, ``lines=K``): lines N to N+K-1, 1-based, a line ending at ``\\n`` only (see
          :mod:`scratchfs.lines`); ``lines`` 50 by default, at most :data:`MAX_LINES`, and the bytes capped at
          :data:`MAX_READ_BYTES` (a longer line is cut and ``next_offset`` says where it continues). Returns
          :class:`LineSlice`. Finds line N from per-frame line counts: no scan of earlier frames.
        * **Search** (``match=TEXT`` or ``pattern=REGEX``): non-overlapping matches starting at or after byte
          ``offset`` -- a substring (text is searched as UTF-8), or a Python ``re`` pattern over the bytes with
          ``^``/``$`` per line and ASCII ``ignore_case`` (see :mod:`scratchfs.search`); empty matches are not
          reported. Each match gets up to ``context`` bytes (default 200) on each side; overlapping windows are
          merged; at most ``max_matches`` matches (default 20) and :data:`MAX_READ_BYTES` of windows per call.
          Returns :class:`Matches`; pass its ``next_offset`` as ``offset=`` to resume. Streams the blob frame by
          frame.

        Every result says how to go on: ``next_offset`` / ``next_line``, ``remaining`` bytes and ``next_call``.

        Raises:
            InvalidArgument: a malformed handle; ``offset`` not an integer in ``[0, size]``; ``line`` past the last
                line; ``length``, ``lines``, ``context`` or ``max_matches`` out of range; an empty, too long or
                invalid ``match``/``pattern``; options of different modes mixed.
            PatternTimeout: the pattern search ran past ``pattern_timeout`` (its ``resume_offset`` says where it
                stood). PatternTooLong: a pattern match is longer than the reach bound (16 KiB).
            NotFound: no live entry of this scope has this handle (another scope's, deleted, missing); its
                subclasses :class:`~scratchfs.errors.Expired` and :class:`~scratchfs.errors.Deleted` say what
                happened to an entry of this scope within the last hour.
            CorruptBlob: the blob is damaged (the message names the handle); no bytes are returned.
            StoreBusy: the index stayed locked past the busy timeout. StorageError: the file system failed.
        """
        handle = ids.check_handle(handle)
        offset = _check_int(offset, "offset", 0)
        searching = match is not None or pattern is not None
        if match is not None and pattern is not None:
            raise InvalidArgument("give match (a substring) or pattern (a regular expression), not both")
        if not searching and (context is not None or max_matches is not None):
            raise InvalidArgument("context and max_matches apply to searches (match or pattern)")
        if line is not None or lines is not None:
            if searching or length is not None or offset:
                raise InvalidArgument("a line read takes line and lines; offset, length, match and pattern are for "
                                      "other reads")
            first = _check_int(1 if line is None else line, "line", 1)
            count = _check_int(DEFAULT_LINES if lines is None else lines, "lines", 1, MAX_LINES)
            return self._read_lines(handle, first, count)
        if not searching:
            if ignore_case:
                raise InvalidArgument("ignore_case applies to searches (match or pattern)")
            length = _check_int(DEFAULT_READ_BYTES if length is None else length, "length", 1)
            return self._read_range("handle", handle, offset, min(length, MAX_READ_BYTES))
        if length is not None:
            raise InvalidArgument("length applies to range reads; a search takes context and max_matches")
        context = _check_int(DEFAULT_CONTEXT if context is None else context, "context", 0, MAX_CONTEXT_BYTES)
        max_matches = _check_int(DEFAULT_MATCHES if max_matches is None else max_matches, "max_matches", 1,
                                 MAX_MATCHES)
        if not isinstance(ignore_case, bool):
            raise InvalidArgument(f"ignore_case must be True or False: {ignore_case!r}")
        needle: bytes | None = None
        matcher: Matcher
        if pattern is None:
            needle = _needle(match)
            if not ignore_case:
                matcher = LiteralMatcher(needle)
                return self._search(handle, offset, matcher, needle, None, False, context, max_matches)
            if not isinstance(match, str):
                raise InvalidArgument("ignore_case with match needs text; use pattern for bytes")
            search_pattern = re.escape(match)
        else:
            search_pattern = pattern
            if isinstance(pattern, str) and len(pattern.encode("utf-8", "surrogatepass")) > MAX_NEEDLE_BYTES:
                raise InvalidArgument(f"pattern is longer than the limit of {MAX_NEEDLE_BYTES} bytes")
        matcher = PatternMatcher(search_pattern, ignore_case, timeout=self.store.pattern_timeout)
        return self._search(handle, offset, matcher, needle, pattern, ignore_case, context, max_matches)

    def _read_range(self, kind: str, key: str, offset: int, length: int) -> Slice:
        store = self.store
        entry, fd, _ = store._open(self, kind, key)
        try:
            if offset > entry.size:
                raise InvalidArgument(f"offset {offset} is past the end of {key} ({entry.size} bytes)")
            reader = store._reader(entry, fd, key)
            with _reading(key):
                data = reader.read(offset, length)
        finally:
            os.close(fd)
        end = offset + len(data)
        return Slice(key, offset, data, entry.size, end if end < entry.size else None, length)

    def _read_lines(self, handle: str, line: int, count: int) -> LineSlice:
        store = self.store
        entry, fd, newlines = store._open(self, "handle", handle)
        try:
            if line > max(entry.lines, 1):
                raise InvalidArgument(f"line {line} is past the end of {handle} ({entry.lines} lines)")
            reader, table = store._line_reader(entry, fd, newlines, handle)
            with _reading(handle):
                got = read_lines(reader, table, line, count, MAX_READ_BYTES)
        finally:
            os.close(fd)
        end = got.offset + len(got.data)
        # the next line to start: after the last whole line, or after the line the cap cut
        next_line = line + got.newlines + (1 if got.cut else 0)
        more = end < entry.size and next_line <= entry.lines
        return LineSlice(handle, got.offset, got.data, entry.size, line, got.lines, entry.lines,
                         next_line if more else None, end if end < entry.size else None, got.cut, count)

    def _search(self, handle: str, offset: int, matcher: Matcher, needle: bytes | None, pattern: str | None,
                ignore_case: bool, context: int, max_matches: int) -> Matches:
        store = self.store
        entry, fd, newlines = store._open(self, "handle", handle)
        try:
            if offset > entry.size:
                raise InvalidArgument(f"offset {offset} is past the end of {handle} ({entry.size} bytes)")
            reader, table = store._line_reader(entry, fd, newlines, handle)
            with _reading(handle):
                found = search(reader, matcher, offset, context, max_matches, MAX_READ_BYTES, table.line_of_frame)
        finally:
            os.close(fd)
        return Matches(handle, needle, found.windows, entry.size, found.next_offset, pattern, ignore_case, context,
                       max_matches)

    # -- scratchpad -----------------------------------------------------------------------------------------------

    def scratch_write(self, key: str, value: object, ttl: float | None = None) -> Entry:
        """Write (or overwrite, atomically) a scratchpad value under ``key``; return its entry.

        Args:
            value: ``bytes``, ``str`` (UTF-8), a binary file object or an iterable of byte chunks.
            ttl: seconds until it expires (default: the store's ``default_ttl``).

        Raises:
            InvalidArgument: bad key, value or TTL.
            QuotaExceeded, StorageError, StoreBusy: as :meth:`spill`; the previous value, if any, is kept.
        """
        key = ids.check_key(key)
        ttl = _check_ttl(ttl, self.store.default_ttl)
        return self.store._write(self, "scratch", key, value, None, ttl)[0]

    def scratch_read(self, key: str) -> bytes:
        """The whole value of a scratchpad key, as bytes.

        Raises:
            InvalidArgument: a bad key.
            NotFound: no live value under this key in this scope (:class:`~scratchfs.errors.Expired` or
                :class:`~scratchfs.errors.Deleted` for one of the last hour).
            CorruptBlob: the value's blob is damaged.
            StoreBusy, StorageError: the index stayed locked past the busy timeout; the file system failed.
        """
        return self.store._read_whole(self, "scratch", ids.check_key(key))

    def scratch_list(self, prefix: str = "") -> list[Entry]:
        """Live scratchpad entries of this scope whose key starts with ``prefix`` (exactly, case-sensitive), oldest
        first.

        Raises:
            InvalidArgument: a bad prefix.
            StoreBusy, StorageError: the index stayed locked past the busy timeout, or failed.
        """
        prefix = ids.check_text(prefix, "prefix", ids.MAX_KEY_BYTES, allow_empty=True)
        return self.store.index.list_scope(self.run_id, self.agent_id, "scratch", prefix, self.store.now())

    def scratch_delete(self, key: str) -> bool:
        """Delete a scratchpad key; return True if a live value was deleted (False if there was none).

        Raises:
            InvalidArgument: a bad key.
            StoreBusy, StorageError: the index stayed locked past the busy timeout, or failed; nothing was deleted.
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


__all__ = ["LineSlice", "Matches", "Scope", "ScratchError", "ScratchStore", "Slice"]
