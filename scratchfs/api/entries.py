"""One entry's way in and out: write-then-commit, and lookup-then-open, over the two storage seams.

* **Write** (:meth:`Entries.write`): a spill or scratchpad value is streamed into a new blob (the blob store writes
  frames and a seek table, sampling the head and tail on the way for the preview and the shape), then one short
  transaction inserts the row that names it, holding the delete lock shared and checking that the blob is still in
  place, so a concurrent ``delete_run`` can never leave a row whose blob moved away. A write that a ``delete_run`` or
  ``delete_agent`` of its scope overtook (the blob moved away with the directory before the row was committed) is not
  an error: it behaves as if it had come entirely before the delete, which then deleted it (no row; its blob goes
  with the directory). A blob that left its place any other way (removed while its directory stayed) fails the
  write with :class:`~scratchfs.foundation.errors.StorageError`: it is never acknowledged without its row. A failure
  at any step discards the blob: nothing half-written is ever visible. An overwrite's old blob is removed after the
  commit. A spill whose blob went to a segment file (local index and blobs, ``index_write_behind``, no run quota)
  has its row queued instead (:mod:`scratchfs.engine.write_behind`): it is acknowledged on its segment record, the
  row committed with others in one transaction, before any other use of the index in the process; a killed
  writer's rows are restored from its journal (:attr:`Entries.recover`, tried once before a handle is NotFound).
* **Open** (:meth:`Entries.open`): the live row is looked up in the caller's scope, its blob opened and its seek table
  checked against the row (:class:`OpenEntry`). An entry born in the future (the clock stepped back since it was
  written) first has its expiry capped at ``now + ttl``; a read that reports an entry Expired removes its row, so a
  clock stepping back never revives it (see :mod:`scratchfs.engine.sqlite_scale`). A blob gone because the row moved
  to a new blob meanwhile (an overwrite) is looked up again; gone otherwise, it is
  :class:`~scratchfs.foundation.errors.NotFound`, said to have lost its stored copy.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from scratchfs.api import missing
from scratchfs.api.describe import Description, describe_content, json_start
from scratchfs.api.line_fit import LAST_LINES_BYTES
from scratchfs.api.settings import Settings
from scratchfs.api.wide_count import WideCount
from scratchfs.engine.caches import LRU
from scratchfs.engine.chunks import ContentFailed, iter_chunks
from scratchfs.engine.lines import LineTable, longest_line_bound
from scratchfs.engine.protocols import BlobInfo, BlobSource, BlobStore, Entry, IndexBackend
from scratchfs.engine.seekable import FormatError, SeekableReader, SeekTableCache
from scratchfs.engine.segments import is_location
from scratchfs.engine.structure.paging import ReaderSource
from scratchfs.engine.write_behind import WriteBehind
from scratchfs.foundation import checks, forks
from scratchfs.foundation.errors import (
    QUOTA_ADVICE,
    CorruptBlob,
    NotFound,
    QuotaExceeded,
    ScratchError,
    StorageError,
    StoreClosed,
    storage_error,
)
from scratchfs.foundation.limits import (
    CLOCK_SLACK_SECONDS,
    LINE_TABLE_CACHE_ENTRIES,
    MAX_CACHED_VALUE_BYTES,
    SAMPLE_BYTES,
    VALUE_CACHE_BYTES,
)
from scratchfs.foundation.text import plural

if TYPE_CHECKING:  # (shape detection and the stub's modules load when a spill describes its content: _describe)
    from scratchfs.api.stub import Stub
    from scratchfs.engine.structure.toplevel import TopLevelFeed

T = TypeVar("T")
_COUNT_BYTES = array("I").itemsize  # bytes per frame of an entry's per-frame newline counts


class _Reading:
    """The context manager of :func:`reading` (a class: a generator-based one costs a microsecond more per read)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object) -> bool:
        if kind is None:
            return False
        if issubclass(kind, FormatError):
            raise CorruptBlob(f"{self.name}: {exc}") from None
        if issubclass(kind, OSError) and not issubclass(kind, ScratchError):  # a store error (busy) stays as it is
            raise storage_error(exc, f"cannot read {self.name}") from exc
        return False


def reading(name: str) -> _Reading:
    """Turn what reading a blob can raise into the store's errors: damaged data into :class:`CorruptBlob` (naming
    the handle or key), a failing file system into :class:`~scratchfs.foundation.errors.StorageError` (a context
    manager)."""
    return _Reading(name)


@dataclass
class OpenEntry:
    """A live entry with its blob open: ``entry`` (the row), ``source`` (the blob), ``newlines`` (per-frame ``\\n``
    counts, ``array('I')`` bytes), and ``reader``/``lines`` once :meth:`Entries.open` checked them. Close it (or use
    it as a context manager)."""

    entry: Entry
    source: BlobSource
    reader: SeekableReader
    lines: LineTable

    def __enter__(self) -> OpenEntry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.source.close()


class _Sample:
    """Keeps the first bytes of a stream (preview and shape sample), its last bytes (the tail preview) and its last
    byte (the line count), while the stream flows through to the blob store. With ``stream`` (the bounds of
    :class:`TopLevelFeed`), a content longer than the head that starts as JSON gets a ``feed``, given the head and
    then each chunk once the blob store took it, so that its top level is read while its frames compress. Content
    whose head says UTF-16 text gets a ``wide`` count of its lines (:class:`WideCount`), given the head once it is
    full and then each chunk (``wide_told``: the head was looked at)."""

    __slots__ = ("feed", "head_len", "head_limit", "head_parts", "last_byte", "stream", "tail", "tail_limit", "wide",
                 "wide_told")

    def __init__(self, head_limit: int, tail_limit: int, stream: tuple[int, float] | None = None) -> None:
        self.stream = stream
        self.feed: TopLevelFeed | None = None
        self.head_limit, self.tail_limit = head_limit, tail_limit
        self.head_parts: list[bytes] = []
        self.head_len, self.tail = 0, b""
        self.last_byte: int | None = None
        self.wide: WideCount | None = None
        self.wide_told = False

    @property
    def head(self) -> bytes:
        if len(self.head_parts) > 1:
            self.head_parts = [b"".join(self.head_parts)]
        return self.head_parts[0] if self.head_parts else b""

    def watch(self, chunks: Iterable) -> Iterator:
        seen = 0
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
                if self.wide is not None:
                    self.wide.feed(chunk)
                elif not self.wide_told and self.head_len >= self.head_limit:  # (the bytes past the head, too)
                    self.wide_told = True
                    self.wide = WideCount.told(self.head, memoryview(chunk)[self.head_limit - seen :])
            yield chunk
            seen += size
            if self.feed is not None:
                self.feed.feed(chunk)
            elif self.stream is not None and seen > self.head_limit:  # longer than the head: JSON is streamed
                if json_start(self.head):
                    from scratchfs.engine.structure.toplevel import TopLevelFeed  # (loaded on first use)

                    self.feed = TopLevelFeed(*self.stream)
                    self.feed.feed(self.head)
                    self.feed.feed(memoryview(chunk)[size - (seen - self.head_limit) :])
                self.stream = None
        if self.feed is not None:
            self.feed.close()
        if not self.wide_told:  # (content shorter than the head: the head is all of it)
            self.wide = WideCount.told(self.head, b"")


class Entries:
    """Writing and opening entries of one store.

    Args:
        settings, index, blobs: the store's settings, index backend and blob store.
        is_closed: returns True once the store is closed (every call then raises
            :class:`~scratchfs.foundation.errors.StoreClosed`).
    """

    def __init__(self, settings: Settings, index: IndexBackend, blobs: BlobStore,
                 is_closed: Callable[[], bool]) -> None:
        self.settings, self.index, self.blobs, self._is_closed = settings, index, blobs, is_closed
        self._lock_users = 0  # calls holding the blobs' delete lock: close_blobs() leaves it to the last one
        self._lock_users_lock = threading.Lock()
        self._lock_users_generation, self._close_blobs = forks.generation, False
        self._tables = SeekTableCache()
        self._line_tables: LRU[str, LineTable] = LRU(LINE_TABLE_CACHE_ENTRIES)
        self._values: LRU[str, bytes] = LRU(1 << 30, max_weight=VALUE_CACHE_BYTES, weigh=len,
                                            max_item_weight=MAX_CACHED_VALUE_BYTES)
        self.behind: WriteBehind | None = None
        """Where a small spill's row is queued (:mod:`scratchfs.engine.write_behind`), set by the store."""
        self.recover: Callable[[], ScratchError | None] | None = None
        """Restores rows of dead writers' journals (set by the store): tried once before a handle is NotFound; returns
        the error that left one unrecovered, or None."""

    def drop_value_cache(self) -> None:
        """Stop serving whole scratchpad values from memory: from now on every read goes to the blob (after blobs
        were restored or damaged by hand, and in tests of damage)."""
        self._values = LRU(0)

    def now(self) -> float:
        """The store clock's time, epoch seconds. Raises InvalidArgument: the clock gave no finite number."""
        return checks.clock_reading(self.settings.clock())

    def check_open(self) -> None:
        """Raise :class:`StoreClosed` once the store is closed."""
        if self._is_closed():
            raise StoreClosed("the store is closed")

    # -- the delete lock and closing ------------------------------------------------------------------------------

    def _users_lock(self) -> threading.Lock:
        if self._lock_users_generation != forks.generation:  # a fork() child: a parent's thread may hold it
            self._lock_users_lock, self._lock_users = threading.Lock(), 0
            self._lock_users_generation = forks.generation
        return self._lock_users_lock

    @contextmanager
    def delete_lock(self, exclusive: bool) -> Iterator[None]:
        """The blob store's delete lock (shared for a write's commit, exclusive for a delete), counted so that
        :meth:`close_blobs` never closes a lock descriptor a call is using.

        Raises:
            StoreClosed: the store is closed. StoreBusy, StorageError: from the lock.
        """
        with self._users_lock():
            self.check_open()
            self._lock_users += 1
        try:
            with self.blobs.delete_lock(exclusive, self.settings.busy_timeout):
                yield
        finally:
            with self._users_lock():
                self._lock_users -= 1
                last = self._close_blobs and self._lock_users == 0
                if last:
                    self._close_blobs = False
            if last:
                self.blobs.close()

    def close_blobs(self) -> None:
        """Close the blob store's descriptors now, or when the last call holding the delete lock lets it go (the
        store is closed first, so no call takes it again)."""
        with self._users_lock():
            self._close_blobs = self._lock_users > 0
            now = not self._close_blobs
        if now:
            self.blobs.close()

    # -- writing --------------------------------------------------------------------------------------------------

    def write(self, run_id: str, agent_id: str, kind: str, key: str, content: object, tool: str | None, ttl: float,
              preview_mode: str | None = None) -> tuple[Entry, Stub | None]:
        """Write one entry (blob, then row); return it and, for a spill (``kind="handle"``), its stub.

        Raises:
            InvalidArgument: bad content. QuotaExceeded: the run is at its quota; nothing was stored.
            StorageError, StoreBusy, StoreClosed: nothing was stored (an overwritten value is kept).
            OSError: what reading ``content`` raised (a file's ``read``, a chunk iterator), as it was; nothing stored.
        """
        self.check_open()
        self.index.check_writable("writing an entry")
        if kind == "handle":
            self._check_quota(run_id)  # a spill replaces nothing: refuse before writing
        token = checks.new_token()
        mode = preview_mode or self.settings.preview_mode
        sample = self._sample(kind, mode)
        now = self.now()  # the row's created_at and the blob's binding say the same time (a rebuild restores it)
        bound = {"kind": kind, "key": key, "tool": tool, "ttl": ttl, "created_at": now}
        try:
            pending = self.blobs.write(run_id, agent_id, token, sample.watch(iter_chunks(content)), bound)
        except ContentFailed as exc:  # the content's own read error, as it was (not the blob store's StorageError)
            raise exc.original from None
        try:
            blob = pending.info.blob or token  # a small entry's location in a segment file
            entry, stub = self._describe(run_id, agent_id, kind, key, blob, pending.info, sample, tool, ttl, mode,
                                         now)
            if self._behind(kind, blob) and self.behind.accept(entry, pending):
                return entry, stub  # its segment record is the durable record; the row follows (write_behind)
            old = self._commit(entry, pending)
        except BaseException:
            pending.discard()
            raise
        pending.release()
        if old is not None and old != blob:
            self.blobs.unlink(run_id, agent_id, old)
        return entry, stub

    def _behind(self, kind: str, blob: str) -> bool:
        """True if the row of this write is queued rather than committed now: a spill whose blob went to a segment
        file, with write-behind on and no run quota (a quota must count every row before the next write)."""
        settings = self.settings
        return (self.behind is not None and kind == "handle" and is_location(blob)
                and settings.run_quota_bytes is None and settings.run_quota_entries is None)

    def _check_quota(self, run_id: str) -> None:
        quota = (self.settings.run_quota_bytes, self.settings.run_quota_entries)
        if quota == (None, None):
            return
        stored, count = self.index.usage(run_id, self.now())
        hit = ([f"{stored:,} stored bytes, its quota {quota[0]:,}"] if quota[0] is not None and stored >= quota[0]
               else []) + ([f"{count:,} {'entry' if count == 1 else 'entries'}, its quota {quota[1]:,}"]
                           if quota[1] is not None and count >= quota[1] else [])
        if hit:
            raise QuotaExceeded(f"run {run_id!r} is at its quota: it holds {' and '.join(hit)}; {QUOTA_ADVICE}")

    def _sample(self, kind: str, mode: str) -> _Sample:
        preview = self.settings.preview_bytes
        head, stream = preview + 4, None
        if self.settings.detect_shape:  # (shape detection's modules load here, on a write's first use)
            from scratchfs.api import shape_json

            head = max(SAMPLE_BYTES, head)
            stream = (shape_json.STREAM_BYTES, shape_json.STREAM_SECONDS)  # (now)
        tail = max(preview if mode == "head+tail" else 0, LAST_LINES_BYTES) if kind == "handle" else 0  # (the
        return _Sample(head, tail, stream)  # stub's read of the last lines is sized on them)

    def _describe(self, run_id: str, agent_id: str, kind: str, key: str, token: str, info: BlobInfo,
                  sample: _Sample, tool: str | None, ttl: float, mode: str, now: float) -> tuple[Entry, Stub | None]:
        """The entry's row (created at ``now``, epoch seconds) and, for a spill, its stub (:func:`describe_content`
        gives the line count, content type, shape and list preview)."""
        settings = self.settings
        feed = sample.feed  # the document read as it was written, else the blob read back
        found = describe_content(settings, sample.head, info.size, info.frame_newlines, sample.last_byte,
                                 (lambda: nullcontext(feed)) if feed is not None and feed.size == info.size
                                 else lambda: self._whole(run_id, agent_id, token, info.size))
        from scratchfs.api.stub import build_stub, wide_encoding  # (loaded on a write's first use)

        lines = found.lines  # (UTF-16 text's stub: its lines end at newline code units, not at each 0a byte)
        if kind == "handle" and sample.wide is not None and \
                sample.wide.encoding == wide_encoding(found.content_type, found.shape):  # (counted as it streamed)
            lines = sample.wide.lines(info.size)
        stub = None if kind != "handle" else build_stub(
            key, sample.head, sample.tail, info.size, lines, found.content_type, found.shape, tool,
            settings.preview_bytes, mode, longest_line_bound(info.frame_newlines, info.size), found.next_read,
            found.top, found.first_error)
        listed = found.preview if stub is None or stub.listed is None else stub.listed  # (an HTML page's: its text's
        entry = Entry(kind, run_id, agent_id, key, token, info.size, info.stored_size, info.frames, found.lines,
                      listed, tool, found.content_type, found.shape, now, now + ttl, ttl)  # start, the stub's)
        return entry, stub

    @contextmanager
    def _whole(self, run_id: str, agent_id: str, token: str, size: int) -> Iterator[ReaderSource]:
        """The blob just written, open as a content source of ``size`` bytes (closed on leaving)."""
        source = self.blobs.open_source(run_id, agent_id, token)
        try:
            yield ReaderSource(SeekableReader(source, self._tables.get(source)), size)
        finally:
            source.close()

    def _commit(self, entry: Entry, pending) -> str | None:
        """Insert the row under the shared delete lock; return the blob token of the row it replaced, if any.

        If a delete of the entry's run or agent moved the blob away first, nothing is inserted and ``None`` is
        returned: the write is ordered before that delete, which deleted it (an earlier value of a scratchpad key
        was deleted by the same delete). A blob gone any other way raises StorageError (from ``pending.exists``)."""
        quota = (self.settings.run_quota_bytes, self.settings.run_quota_entries)
        with self.delete_lock(False):
            written, old = self.index.put(entry, pending.info.frame_newlines, pending.exists, quota,
                                          began=pending.began, proven=pending.gone_means_deleted)
        return old if written else None

    # -- opening --------------------------------------------------------------------------------------------------

    def with_entry(self, run_id: str, agent_id: str, kind: str, key: str, attempt: Callable[[Entry, bytes], T]) -> T:
        """Look up a live entry and return ``attempt(entry, per-frame newline counts)``, again if its blob is gone
        because the entry was replaced meanwhile (an overwrite); gone otherwise (removed from outside): NotFound.

        Raises:
            NotFound: no live entry (or its blob is gone). StoreClosed: the store is closed. StorageError: a spill
            acknowledged whose row waits in the write-behind queue (:meth:`WriteBehind.check_not_queued`), or a
            handle not found while a dead writer's journal, which may hold it, cannot be recovered (disk full).
        """
        self.check_open()
        index = self.index
        recover, lost, failed = self.recover if kind == "handle" else None, False, None
        for _ in range(5):
            now = self.now()
            found = index.lookup_with_lines(run_id, agent_id, kind, key, now)
            if found is None and recover is not None:
                recover, failed = None, recover()  # a killed writer's spill: its row restored from its journal, once
                found = index.lookup_with_lines(run_id, agent_id, kind, key, self.now())
            if found is None and self.behind is not None:  # acknowledged, its row not committable now: no NotFound
                self.behind.check_not_queued(run_id, agent_id, kind, key)
            if found is None and failed is not None and index.gone(run_id, agent_id, kind, key, self.now()) is None:
                raise StorageError(f"handle {key!r} is not in the index, but a stopped writer's spills could not be "
                                   f"given their rows ({failed}): it may be one of them; read it again once space is "
                                   "freed (a sweep, delete-run) -- they are recovered then, nothing is lost")
            if found is None:
                break
            entry, newlines = found
            if entry.expires_at - entry.ttl > now + CLOCK_SLACK_SECONDS and self._cap(run_id, agent_id, kind, key, now):
                continue  # born in the future (the clock stepped back): capped at now + ttl, looked up again
            if self.settings.refresh_on_read:  # before the attempt, which may open a blob a failure here would leak
                at = self.now()  # read again: a sweep that judged the row expired since the lookup read a time <= it
                index.touch(run_id, agent_id, kind, key, entry.blob, at + entry.ttl, at)
            try:
                return attempt(entry, newlines)
            except FileNotFoundError:
                lost, gone = self.gone(entry)
                if gone is not None:
                    raise gone from None
        raise self.not_found(run_id, agent_id, kind, key, lost=lost)

    def gone(self, entry: Entry) -> tuple[bool, NotFound | None]:
        """After ``entry``'s blob was found gone while read: ``(lost, error)``. ``lost``: its row is still live with
        that blob (removed from outside the store); ``error``: the :class:`NotFound` to raise (Expired, Deleted: the
        entry is gone too, or lost), else ``None``: the key names another blob now (an overwrite: read it again).
        Raises StorageError, StoreBusy."""
        run_id, agent_id, kind, key = entry.run_id, entry.agent_id, entry.kind, entry.key
        again = self.index.lookup(run_id, agent_id, kind, key, self.now())
        lost = again is not None and again.blob == entry.blob
        return lost, self.not_found(run_id, agent_id, kind, key, lost=lost) if again is None or lost else None

    def _cap(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> bool:
        """Cap the expiry of an entry born in the future at ``now + ttl``; False if the index refused (a read-only
        store: the entry is served as it is)."""
        cap_future = getattr(self.index, "cap_future", None)
        try:
            return cap_future is not None and cap_future(now, run_id, agent_id, kind, key) > 0
        except ScratchError:
            return False

    def open(self, run_id: str, agent_id: str, kind: str, key: str) -> OpenEntry:
        """Look up a live entry and open its blob, checked against its row (the caller closes it).

        Raises:
            NotFound: no live entry. CorruptBlob: the blob does not match its row. StorageError, StoreBusy,
            StoreClosed.
        """

        def attempt(entry: Entry, newlines: bytes) -> OpenEntry:
            source = self.blobs.open_source(run_id, agent_id, entry.blob)
            try:
                reader = self.reader(entry, source, key)
                lines = self._line_table(entry.blob, newlines)
                if len(lines.newlines_before) != reader.table.frames + 1:
                    raise CorruptBlob(f"{key}: the index's line counts do not match the blob's frames")
            except BaseException:
                source.close()
                raise
            return OpenEntry(entry, source, reader, lines)

        return self.with_entry(run_id, agent_id, kind, key, attempt)

    def read_range(self, run_id: str, agent_id: str, kind: str, key: str, offset: int, length: int,
                   check: Callable[[Entry], None] | None = None) -> tuple[Entry, bytes]:
        """A live entry's row and its bytes ``[offset, offset + length)`` (clipped to the content): :meth:`open`,
        ``reader.read`` and close in one step, the hot path of every range read (no line table is built; the row's
        line counts are still checked against the blob's frames). ``check(row)``, if given, runs before the offset
        is checked (a page of a value written again since is refused as such, not as an offset past its end) and
        raises the caller's error.

        Raises:
            InvalidArgument: ``offset`` past the end of the content. NotFound, CorruptBlob, StorageError, StoreBusy,
            StoreClosed: as :meth:`open`. What ``check`` raises.
        """

        def attempt(entry: Entry, newlines: bytes) -> tuple[Entry, bytes]:
            source = self.blobs.open_source(run_id, agent_id, entry.blob)
            try:
                with reading(key):  # (one for the seek table and the read; what else is raised here passes through)
                    reader = self._reader(entry, source, key)
                    if len(newlines) != _COUNT_BYTES * reader.table.frames:
                        raise CorruptBlob(f"{key}: the index's line counts do not match the blob's frames")
                    if check is not None:
                        check(entry)
                    if offset > entry.size:
                        from scratchfs.api.bounds import offset_past_end  # (loaded for the refusal alone)

                        raise offset_past_end(key, offset, entry.size, kind)
                    return entry, reader.read(offset, length)
            finally:
                source.close()

        return self.with_entry(run_id, agent_id, kind, key, attempt)

    def read_whole(self, run_id: str, agent_id: str, kind: str, key: str) -> bytes:
        """The whole content of a live entry; a small one from the value cache while its blob is still there.

        Raises:
            NotFound, CorruptBlob, StorageError, StoreBusy, StoreClosed.
        """

        def attempt(entry: Entry, _newlines: bytes) -> bytes:
            data = self._values.get(entry.blob)
            if data is not None:  # served only while its blob is still there (a sweep or an outsider may remove it)
                if not self.blobs.exists(run_id, agent_id, entry.blob):
                    raise FileNotFoundError(entry.blob)
                return data
            source = self.blobs.open_source(run_id, agent_id, entry.blob)  # FileNotFoundError when removed
            try:
                reader = self.reader(entry, source, key)
                with reading(key):
                    data = b"".join(chunk for _, chunk in reader.iter_frames(ahead=True))
            finally:
                source.close()
            self._values.put(entry.blob, data)
            return data

        return self.with_entry(run_id, agent_id, kind, key, attempt)

    def reader(self, entry: Entry, source: BlobSource, name: str) -> SeekableReader:
        """A reader of an entry's blob, its seek table checked against the row. Raises CorruptBlob, StorageError."""
        with reading(name):
            return self._reader(entry, source, name)

    def _reader(self, entry: Entry, source: BlobSource, name: str) -> SeekableReader:
        """:meth:`reader` inside the caller's :func:`reading` (which turns what the seek table's read raises)."""
        table = self._tables.get(source, entry.blob)
        if table.size != entry.size:
            raise CorruptBlob(f"{name}: the blob holds {plural(table.size, 'byte')}, the index says {entry.size}")
        return SeekableReader(source, table)

    def _line_table(self, blob: str, newlines: bytes) -> LineTable:
        """The cumulative line counts of a blob (cached by blob token: a token's blob never changes)."""
        table = self._line_tables.get(blob)
        if table is None:
            table = LineTable(newlines)
            self._line_tables.put(blob, table)
        return table

    def not_found(self, run_id: str, agent_id: str, kind: str, key: str, reading: bool = True,
                  lost: bool = False) -> NotFound:
        """The :class:`NotFound` for a key of this scope (:func:`scratchfs.api.missing.not_found`): Expired or
        Deleted when the index knows it, else naming the handle or key of this scope likely meant, or how to go
        on; ``lost``: its row is live but its blob is gone (removed from outside the store)."""
        return missing.not_found(self, run_id, agent_id, kind, key, reading, lost)


__all__ = ["Description", "Entries", "OpenEntry", "describe_content", "reading"]
