"""The two storage seams: what the API asks of an index and of a blob store, and the records they exchange.

Today's implementations are :class:`scratchfs.engine.sqlite_index.Index` (SQLite) and
:class:`scratchfs.engine.local_blobs.Blobs` (per-run/per-agent directories of files); a PostgreSQL index or an
S3-compatible blob store implements the same protocols. Nothing above the engine names SQLite or a path: the API layer
holds an :class:`IndexBackend` and a :class:`BlobStore` and calls only what is declared here.

Ordering rules every implementation keeps (see ``README.md``, "How it works"): a blob is written completely before the
row that names it is committed (:meth:`BlobStore.write` returns a :class:`PendingWrite`, committed by
:meth:`IndexBackend.put`); a row is deleted before its blob; a run's or agent's blobs are detached under the exclusive
delete lock after its rows are deleted, and the write of a row holds that lock shared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from scratchfs.engine.batches import BatchSizer
from scratchfs.engine.sources import RangeSource
from scratchfs.foundation.errors import QUOTA_ADVICE, QuotaExceeded


class Entry(NamedTuple):
    """One live entry, as the index knows it (no content). An immutable record (a named tuple: listing 10,000 of
    them must stay cheap).

    Attributes:
        kind: ``"handle"`` or ``"scratch"``.
        key: the handle (for ``kind="handle"``) or the scratchpad key.
        run_id, agent_id: the entry's scope.
        blob: the token of its blob file, or for a small entry stored in a segment file its location
            (``<token>:<segment>:<offset>:<length>``, :mod:`scratchfs.engine.segments`).
        size: content bytes (uncompressed).
        stored_size: bytes on disk (compressed, seek table included).
        frames: number of zstd frames.
        lines: number of lines (``\\n`` count, plus one for an unterminated last line).
        preview: the first bytes of the content as text, at most :data:`LIST_PREVIEW_BYTES` (see
            :mod:`scratchfs.policy`; a stub's own preview may be longer).
        source_tool: the tool whose result this is (``None`` for scratchpad entries written without one).
        content_type, shape: what the content looks like, when known.
        created_at, expires_at: epoch seconds.
        ttl: the entry's time to live, in seconds.
    """

    kind: str
    run_id: str
    agent_id: str
    key: str
    blob: str
    size: int
    stored_size: int
    frames: int
    lines: int
    preview: str
    source_tool: str | None
    content_type: str | None
    shape: str | None
    created_at: float
    expires_at: float
    ttl: float

    def expires_in(self, now: float) -> float:
        """Seconds from ``now`` (epoch seconds) to the entry's expiry, at most its ``ttl``: an entry born in the
        future (``expires_at - ttl`` ahead of the clock: the clock stepped back since it was written, or a test's
        clock ran ahead) lives at most its ttl from the first read or sweep that sees it, which caps its expiry at
        ``now + ttl``; negative once expired. Never raises."""
        return min(self.expires_at - now, self.ttl)

    def to_dict(self) -> dict:
        """The entry as a JSON-ready dict (without the blob token)."""
        return {name: value for name, value in zip(self._fields, self, strict=False) if name != "blob"}


@dataclass(frozen=True, slots=True)
class Gone:
    """Why an entry of one's own scope is no longer there: ``reason`` (``"expired"``, ``"deleted"``,
    ``"deleted with its run"``, ``"deleted with its agent"``, :func:`repaired`'s, :data:`SWEPT_MISSING`; the
    tombstone's text as the index keeps it) and ``at`` (epoch seconds)."""

    reason: str
    at: float

    @property
    def copy_lost(self) -> bool:
        """Its row was removed because its stored copy was broken or gone (by ``fsck --repair`` or a sweep): its
        reason is one of :data:`COPY_LOST_REASONS`, the texts written for that (a whole text, never a prefix)."""
        return self.reason in COPY_LOST_REASONS


SWEPT_MISSING = "removed by a sweep (its stored copy was missing)"
"""The reason a sweep's tombstone gives for a live row it removed because its blob file or object was gone."""
REPAIRED = "removed by fsck --repair (its stored copy was {})"
"""The reason of a row ``fsck --repair`` removed (:func:`repaired`)."""
REPAIRED_KINDS = ("missing", "corrupt")
"""The problems ``fsck --repair`` removes a row for."""


def repaired(kind: str) -> str:
    """The reason a tombstone gives for a row ``fsck --repair`` removed for the problem ``kind`` (one of
    :data:`REPAIRED_KINDS`): ``"removed by fsck --repair (its stored copy was corrupt)"``."""
    return REPAIRED.format(kind)


COPY_LOST_REASONS = frozenset({SWEPT_MISSING, *(repaired(kind) for kind in REPAIRED_KINDS)})
"""Every reason of a row removed because its stored copy was broken or gone (:attr:`Gone.copy_lost`)."""


@dataclass(frozen=True, slots=True)
class ExpiredRow:
    """An expired row found by :meth:`IndexBackend.expired_batch`."""

    run_id: str
    agent_id: str
    blob: str
    stored_size: int



@dataclass(frozen=True, slots=True)
class BlobInfo:
    """What :meth:`Blobs.write` wrote: ``size`` (decompressed bytes), ``stored_size`` (blob bytes), ``frames``, the
    per-frame newline counts (``frame_newlines``, ``array('I')`` bytes, one per frame), and ``blob``: what the row's
    ``blob`` column must hold when it is not the token (a segment entry's location,
    :mod:`scratchfs.engine.segments`), else ``None``."""

    size: int
    stored_size: int
    frames: int
    frame_newlines: bytes
    blob: str | None = None


def check_quota(entry: Entry, stored: int, count: int, replaced: tuple[int, bool] | None,
                quota: tuple[int | None, int | None]) -> None:
    """The one quota rule every index applies inside the transaction that writes ``entry``.

    Args:
        entry: the row about to be written (``stored_size`` bytes on disk).
        stored, count: the run's live stored bytes and entries now.
        replaced: ``(stored bytes, still live)`` of the row ``entry`` replaces, or ``None``.
        quota: ``(run_quota_bytes, run_quota_entries)``; ``None`` for no limit.

    Raises:
        QuotaExceeded: the run would go over a quota (nothing is written); ``alone`` when the entry by itself is
            over the byte quota.
    """
    if replaced is not None and replaced[1]:  # the row being replaced is live: it no longer counts
        stored -= replaced[0]
        count -= 1
    max_bytes, max_entries = quota
    if max_bytes is not None and entry.stored_size > max_bytes:
        raise QuotaExceeded(f"the entry alone takes {entry.stored_size:,} stored bytes, over run {entry.run_id!r}'s "
                            f"quota of {max_bytes:,}: no deletion makes room for it; store less", alone=True)
    if max_bytes is not None and stored + entry.stored_size > max_bytes:
        raise QuotaExceeded(f"run {entry.run_id!r} would hold {stored + entry.stored_size:,} stored bytes, over its "
                            f"quota of {max_bytes:,}; {QUOTA_ADVICE}")
    if max_entries is not None and count + 1 > max_entries:
        raise QuotaExceeded(f"run {entry.run_id!r} would hold {count + 1:,} {'entry' if count == 0 else 'entries'}, "
                            f"over its quota of {max_entries:,}; {QUOTA_ADVICE}")


class BlobFile(NamedTuple):
    """A blob found by :meth:`BlobStore.blob_files`: the scope's encoded ``run`` and ``agent`` names, a ``location``
    (a path or object key, for reports only) and the blob's ``token``."""

    run: str
    agent: str
    location: str
    token: str


class BlobSource(RangeSource, Protocol):
    """An open blob: a :class:`~scratchfs.engine.seekable.RangeSource` that must be closed."""

    def close(self) -> None:
        """Release what the source holds (a file descriptor, a connection). Idempotent."""
        ...


class PendingWrite(Protocol):
    """A blob written completely but not yet named by a row (see :meth:`BlobStore.write`)."""

    info: BlobInfo
    began: float | None
    """``time.monotonic()`` as the write began (an S3 object's upload; a local file's or segment record's making),
    which the PostgreSQL index dates on the database's clock and orders a delete that removed the blob against
    (:func:`scratchfs.engine.postgres_expiry.write_start`); ``None``: no start known (the row's ``created_at``
    is compared). The SQLite index orders deletes by the store's delete lock alone."""
    gone_means_deleted: bool
    """True when :meth:`exists` is False only if a delete of the run or agent moved the blob away (a local file's or
    segment's directory moved), any other removal raising: a delete took it, so the write's start is dated never
    late. False for an S3 object, which a ``HEAD`` finds gone whoever removed it: dated never early."""

    def exists(self) -> bool:
        """True while the blob is still in place (called inside the row's transaction); False when a delete of its
        run or agent moved it away (the write is then ordered before that delete). Local blobs raise StorageError
        when it is gone any other way (such a write must fail, never be acknowledged without its row); an S3 object
        cannot tell a delete from another removal."""
        ...

    def release(self) -> None:
        """The row is committed: let go of the blob (idempotent)."""
        ...

    def discard(self) -> None:
        """The row was not written: remove the blob (idempotent)."""
        ...


class IndexBackend(Protocol):
    """What the API asks of an index. Times are epoch seconds of the store's clock; sizes are bytes. Every method
    raises :class:`~scratchfs.foundation.errors.StoreBusy` (a lock past the busy timeout) or
    :class:`~scratchfs.foundation.errors.StorageError`; writes are short transactions. ``migrated_from``: the schema
    version the index was migrated from in place when this object opened it, or ``None``."""

    migrated_from: int | None

    def lookup(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Entry | None: ...
    def lookup_with_lines(self, run_id: str, agent_id: str, kind: str, key: str,
                          now: float) -> tuple[Entry, bytes] | None: ...
    def gone(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> Gone | None: ...
    def scope_deleted_at(self, run_id: str, agent_id: str) -> float | None: ...
    def usage(self, run_id: str, now: float) -> tuple[int, int]: ...
    def put(self, entry: Entry, frame_newlines: bytes, check: Callable[[], bool],
            quota: tuple[int | None, int | None] = (None, None), keep_times: bool = False,
            began: float | None = None, proven: bool = False) -> tuple[bool, str | None]: ...
    def delete_key(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> tuple[bool, str | None]: ...
    def delete_scope(self, run_id: str, agent_id: str | None, now: float) -> int: ...
    def list_scope(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str,
                   now: float) -> list[Entry]: ...
    def list_page(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, now: float,
                  after: tuple[float, str, str, str] | None, limit: int, *,
                  newest_first: bool = False) -> list[Entry]: ...
    def list_all(self, now: float) -> list[Entry]: ...
    def touch(self, run_id: str, agent_id: str, kind: str, key: str, blob: str, expires_at: float,
              now: float) -> None: ...
    def pop_expired(self, now: float, limit: int) -> list[ExpiredRow]: ...
    def forget_tombstones(self, now: float) -> int: ...
    def blob_rows(self) -> list[tuple[int, str, str, str]]: ...
    def blobs(self) -> set[str]: ...
    def has_blob(self, blob: str) -> bool: ...
    def blob_scopes(self, blobs: list[str]) -> dict[str, tuple[str, str]]: ...
    def delete_rows(self, rows: list[tuple[int, str]], *, reason: str | None = None, now: float = 0.0) -> int: ...
    def integrity_check(self) -> str: ...
    def close(self) -> None: ...

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written (a sentence naming the cause), or ``None``."""
        ...

    def check_writable(self, doing: str) -> None:
        """Raise StoreClosed when closed, StorageError naming the cause when the index cannot be written."""
        ...

    def release_thread(self) -> None:
        """Close the calling thread's resources now (a thread about to end)."""
        ...


class PagedIndex(IndexBackend, Protocol):
    """Keyset pages of live entries in the order ``(run_id, created_at, id)``, filtered in the query by run, agent
    and kind (:mod:`scratchfs.engine.keyset`; both indexes implement it). An index without them (``hasattr``) is
    listed whole and filtered in memory."""

    def page(self, now: float, after: tuple[str, float, int] | None, limit: int, run_id: str | None = None,
             agent_id: str | None = None, kind: str | None = None) -> list[tuple[Entry, tuple[str, float, int]]]: ...
    def count_after(self, now: float, after: tuple[str, float, int] | None, run_id: str | None = None,
                    agent_id: str | None = None, kind: str | None = None) -> int: ...


class ScaleIndex(PagedIndex, Protocol):
    """What a large store asks of an index beyond :class:`IndexBackend` (issue 13; the SQLite index implements it,
    see :mod:`scratchfs.engine.sqlite_scale`): deletes hidden in one short transaction then drained in batches,
    expiry capped after a clock step, expired rows read before their files go, bounded slices and pages, aggregates.
    An index without these methods (``hasattr``) gets the whole-scope delete, ``pop_expired``, full reconciliation
    and in-memory listings instead."""

    def hide_scope(self, run_id: str, agent_id: str | None, now: float) -> int: ...
    def drain_scope(self, run_id: str, agent_id: str | None, upto: int, now: float,
                    sizer: BatchSizer | None = None) -> tuple[int, float]: ...
    def pending_deletes(self) -> list[tuple[str, str | None, int, float]]: ...
    def cap_future(self, now: float, run_id: str | None = None, agent_id: str = "", kind: str = "",
                   key: str = "") -> int: ...
    def expired_batch(self, now: float, limit: int) -> list[ExpiredRow]: ...
    def delete_expired(self, rows: list[ExpiredRow], now: float, sizer: BatchSizer | None = None) -> int: ...
    def expire_now(self, run_id: str, agent_id: str, kind: str, key: str, now: float) -> str | None: ...
    def known_blobs(self, tokens: list[str]) -> set[str]: ...
    def blob_rows_after(self, after_id: int, limit: int) -> list[tuple[int, str, str, str]]: ...
    def scope_stats(self, now: float, soon: float, run_id: str | None = None) -> list[tuple]: ...



class BlobStore(Protocol):
    """What the API asks of a blob store. Every method raises :class:`~scratchfs.foundation.errors.StorageError`
    for a failing file system or object store; ``run_id`` and ``agent_id`` are validated ids, ``token`` a blob
    token (:func:`scratchfs.foundation.checks.new_token`)."""

    def write(self, run_id: str, agent_id: str, token: str, chunks: Iterable,
              bound: Mapping | None = None) -> PendingWrite:
        """Write a new blob from byte chunks (seekable format), bound to its entry (``bound``: ``kind``, ``key``,
        ``tool``, ``ttl``, ``created_at``, written into the blob so a lost index can be rebuilt), and return it,
        pending its row."""
        ...

    def open_source(self, run_id: str, agent_id: str, token: str) -> BlobSource:
        """Open a blob for reading. Raises ``FileNotFoundError`` when it is gone (the caller decides what that
        means)."""
        ...

    def open_file(self, found: BlobFile) -> BlobSource:
        """Open a blob listed by :meth:`blob_files` for reading. Raises ``FileNotFoundError`` when it is gone."""
        ...

    def locate(self, run_id: str | None = None, agent_id: str | None = None, token: str | None = None) -> str:
        """Where a blob is (a path or object key), for reports only; without arguments, where the blobs are."""
        ...

    def exists(self, run_id: str, agent_id: str, token: str) -> bool:
        """True if the blob is still there (cheaper than opening it)."""
        ...

    def unlink(self, run_id: str, agent_id: str, token: str) -> int:
        """Remove a blob whose row is gone; return the bytes freed (0 if already gone). Never raises."""
        ...

    def forget(self, run_id: str, agent_id: str, token: str) -> None:
        """After an explicit delete of the entry whose blob is ``token`` (after :meth:`unlink`): make sure a rebuild
        of a lost index cannot restore it (a blob that outlives its row, as a segment entry does, is marked dead).
        Never raises."""
        ...

    def delete_lock(self, exclusive: bool, timeout: float) -> AbstractContextManager[None]:
        """Held exclusively by a delete of a run or agent, shared by a write while it commits its row."""
        ...

    def detach_scope(self, run_id: str, agent_id: str | None) -> object | None:
        """Move a run's (or one agent's) blobs out of reach at once (under the exclusive delete lock); return what
        :meth:`purge` then removes, or ``None`` if there was nothing."""
        ...

    def purge(self, detached: object) -> None:
        """Remove what :meth:`detach_scope` moved away (errors are left for the sweeper)."""
        ...

    def blob_files(self) -> list[BlobFile]:
        """Every blob in the store (for orphan reconciliation and fsck)."""
        ...

    def unread(self) -> list[tuple[str, str]]:
        """``(location, why)`` of what the store holds and never reads (an S3 store's: a local store's ``.zseg``
        copied under its prefix), for fsck and a rebuild to name; a local store's odd files are told by fsck's walk."""
        ...

    def close(self) -> None: ...


__all__ = [
    "COPY_LOST_REASONS",
    "REPAIRED",
    "REPAIRED_KINDS",
    "SWEPT_MISSING",
    "BlobFile",
    "BlobInfo",
    "BlobSource",
    "BlobStore",
    "Entry",
    "ExpiredRow",
    "Gone",
    "IndexBackend",
    "PagedIndex",
    "PendingWrite",
    "ScaleIndex",
    "check_quota",
    "repaired",
]
