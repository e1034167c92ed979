"""Restoring one entry's row from its blob (``fsck --rebuild-index``, :mod:`scratchfs.api.rebuild`), and the
recovery of rows written behind by a process killed before it committed them (:mod:`scratchfs.engine.journal`).

Both read a blob's binding frame (:mod:`scratchfs.engine.binding`) and describe its content the way a spill does
(:func:`~scratchfs.api.describe.describe_content`: line counts, shape, preview), so a restored row says what the
spill's row said. :func:`recover_journals` passes :func:`restore_blob` down to the engine's recovery as a callback
(the engine never imports the api).
"""

from __future__ import annotations

import logging
from array import array
from contextlib import nullcontext
from typing import TYPE_CHECKING

from scratchfs.api.describe import describe_content
from scratchfs.engine import journal
from scratchfs.engine.binding import Binding, UnboundBlob
from scratchfs.engine.protocols import BlobFile, Entry
from scratchfs.engine.seekable import FormatError, SeekableReader, read_seek_table
from scratchfs.engine.segment_sweep import known_locations
from scratchfs.engine.segments import token_of
from scratchfs.engine.structure.paging import ReaderSource
from scratchfs.foundation import checks as ids
from scratchfs.foundation.errors import CorruptBlob, InvalidArgument, NotFound, ScratchError
from scratchfs.foundation.limits import LIST_PREVIEW_BYTES, SAMPLE_BYTES

if TYPE_CHECKING:
    from scratchfs.api.settings import Settings
    from scratchfs.api.store import ScratchStore

__all__ = ["adopt_blob", "recover_journals", "restore_blob"]

log = logging.getLogger(__name__)


def recover_journals(store: ScratchStore) -> int:
    """Restore the rows of spills a killed process acknowledged but never committed (write-behind journals of dead
    writers, :func:`scratchfs.engine.journal.recover`): each live spill of a segment such a journal lists, that no
    row names, of a scope not deleted (its segment still at its place), not expired, gets its row as
    ``fsck --rebuild-index`` would give it. Return the journals recovered. A store without local segment files, or
    read-only, recovers nothing (0).

    Raises:
        StorageError, StoreBusy: from the journal directory, the index or the delete lock (a journal not fully
            recovered stays for the next recovery).
    """
    blobs, index = store.blobs, store.index
    if store.read_only or not hasattr(blobs, "scan_segment") or not hasattr(blobs, "root_fd"):
        return 0

    def restore(found: BlobFile) -> None:
        try:
            skipped = restore_blob(store, found, ("handle",))
        except FileNotFoundError:  # a delete moved its segment away since the scan: deleted, nothing to restore
            skipped = ("vanished", "deleted meanwhile")
        except (UnboundBlob, FormatError, CorruptBlob) as exc:
            skipped = ("corrupt", str(exc))
        if skipped is not None and skipped[0] not in ("expired", "kind", "superseded", "vanished", "deleted"):
            log.warning("scratchfs: recovery left %s alone: %s", found.location, skipped[1])

    return journal.recover(blobs, lambda located, where: known_locations(index, located, where), restore)


_EXPIRED = ("expired", "expired (left to the sweeper)")


def restore_blob(store: ScratchStore, found: BlobFile, kinds: tuple[str, ...] = ("handle", "scratch"),
                 created_at: float | None = None) -> tuple[str, str] | None:
    """Insert the row of the blob ``found`` (as listed: an object is opened by its key, its ``location``) if its
    binding's kind is one of ``kinds`` and neither a tombstone of its key nor a delete in progress of its scope is as
    new as it (a delete killed before it marked the record dead or moved the directory); None on success, else why
    not (a :attr:`~scratchfs.api.rebuild.RebuildReport.reasons` key and the words). ``created_at`` (epoch seconds,
    the database's clock): the entry's creation time, weighed against those checks and written in its row, instead
    of its binding's (the writing host's clock at the write's start) -- unless the live row of its key was itself
    restored from its blob (its time is its binding's: the two bindings' times are weighed, one host's clock).

    Raises:
        UnboundBlob: no binding frame. FormatError, CorruptBlob: it does not verify. StorageError, StoreBusy: from
            the file system, the index or the delete lock.
    """
    where, token = (found.run, found.agent), found.token
    source = store.blobs.open_file(found)
    try:
        stored_size = source.size
        table = read_seek_table(source, stored_size)
        b = Binding.of_table(table)
        problem = b.mismatch(token_of(token)) or _check_fields(b, where)  # a segment entry's token: its location
        if problem:
            return "foreign", problem
        if b.kind not in kinds:
            return "kind", f"a {b.kind} entry (restored here: {', '.join(kinds)} only)"
        now = store.now()
        if created_at is None and b.created_at + b.ttl <= now:  # (a rebuild's: its time is its binding's, whatever
            return _EXPIRED  # the live row holds -- no row read for an expired blob)
        live = store.index.lookup(b.run_id, b.agent_id, b.kind, b.key, now)
        created = b.created_at if created_at is None or _restored(store, live) else created_at
        if created + b.ttl <= now:
            return _EXPIRED
        if live is not None and live.created_at >= created:
            return "superseded", "a newer entry holds its key"
        gone = store.index.gone(b.run_id, b.agent_id, b.kind, b.key, now)
        if gone is not None and gone.at >= created:  # a delete killed (or racing) before it marked it dead
            return "deleted", f"{gone.reason} since it was written (a tombstone says so)"
        since = store.index.scope_deleted_at(b.run_id, b.agent_id)
        if since is not None and since >= created:  # a delete_run/agent killed before it moved the directory
            return "deleted", "its run or agent is being deleted since it was written"
        settings = store.settings
        reader = SeekableReader(source, table)
        newlines, head, last = _scan(reader, max(SAMPLE_BYTES, settings.preview_bytes + 4))
        found = describe_content(settings, head, b.size, newlines.tobytes(), last,
                                 lambda: nullcontext(ReaderSource(reader, b.size)))  # as a spill describes it
        listed = _listed(settings, b.kind == "handle" and found.content_type == "html", head, b.size, found.preview)
    finally:
        source.close()
    entry = Entry(b.kind, b.run_id, b.agent_id, b.key, token, b.size, stored_size, b.frames, found.lines,
                  listed, b.tool, found.content_type, found.shape, created, created + b.ttl, b.ttl)
    with store.entries.delete_lock(False):  # counted: close() never closes the descriptor under it
        written, old = store.index.put(entry, newlines.tobytes(),  # its times as the blob's binding records them
                                       lambda: store.blobs.exists(b.run_id, b.agent_id, token), keep_times=True)
    if not written:  # (or a newer entry, or a delete as new of its key or scope, holds it: checked in the put)
        return "vanished", "the file vanished, or its key was written or deleted (or its run or agent), meanwhile"
    if old is not None and old != token:
        store.blobs.unlink(b.run_id, b.agent_id, old)
    return None


def _listed(settings: Settings, page: bool, head: bytes, size: int, preview: str) -> str:
    """The listing preview of a restored row: an HTML ``page``'s text start (``head``: its first bytes, ``size``: its
    bytes), as its spill's stub kept it when the store previews heads; else ``preview`` (its first bytes')."""
    from scratchfs.api.html_preview import view_head  # (loaded when a page's row is restored, not on open)

    viewed = view_head(head, size, settings.preview_bytes) if page and settings.preview_mode == "head" else None
    return preview if viewed is None else viewed.fit(min(settings.preview_bytes, LIST_PREVIEW_BYTES))[0]


def adopt_blob(store: ScratchStore, found: BlobFile, committed_at: float) -> bool:
    """Restore the row of an orphan the fleet sweep found named by a row of the index that owned the blobs before a
    takeover (an old host's acknowledged write: :mod:`scratchfs.engine.takeover`), as :func:`restore_blob` does, as
    created at ``committed_at`` (that row's ``created_at``, epoch seconds on the database's clock as this index's rows
    are; not the old host's clock, which may run ahead of the new owner's writes of its key); True if it did. A blob
    not restored (expired, superseded by a newer entry of its key, deleted since, foreign, corrupt, unbound, gone,
    its row refused as its run is not in the platform's runs table) is left to the sweep, which removes it as an
    orphan; why is logged unless it is expired, superseded, deleted, gone or refused. Whether it is adopted at all
    (not one committed over an hour ago: stale) is :class:`~scratchfs.engine.takeover.OrphanRule`'s, judged by
    :func:`~scratchfs.engine.takeover.adopt_named` before it calls this.

    Raises:
        StorageError, StoreBusy: from the index, the delete lock or the object store (the sweep stops there).
    """
    try:
        skipped = restore_blob(store, found, created_at=committed_at)
    except UnboundBlob:
        skipped = ("unbound", "no binding frame")
    except (FileNotFoundError, NotFound):
        skipped = ("vanished", "removed meanwhile")
    except (FormatError, CorruptBlob) as exc:
        skipped = ("corrupt", str(exc))
    except InvalidArgument as exc:  # its row refused: the platform's runs table has no run of it (deleted there)
        skipped = ("refused", str(exc))
    if skipped is not None and skipped[0] not in ("expired", "superseded", "deleted", "vanished", "refused"):
        log.warning("scratchfs: an orphan a previous owner's row names was not adopted (%s): %s", found.location,
                    skipped[1])
    return skipped is None


def _restored(store: ScratchStore, live: Entry | None) -> bool:
    """Whether the row ``live`` was restored from its blob (a rebuild's, an adoption's): its ``created_at`` is its
    blob's binding's, where a row the store wrote has the database's clock (or the store clock's time at commit).
    One read of its blob's tail; False when it cannot be read (its row is then the sweep's or fsck's)."""
    if live is None:
        return False
    try:
        source = store.blobs.open_source(live.run_id, live.agent_id, live.blob)
        try:
            return Binding.of_table(read_seek_table(source, live.stored_size)).created_at == live.created_at
        finally:
            source.close()
    except (OSError, ValueError, UnboundBlob, FormatError, ScratchError):
        return False


def _check_fields(b: Binding, where: tuple[str, str]) -> str | None:
    """Why a binding cannot be an entry of the directory ``where``, or None."""
    try:
        run_id, agent_id = ids.check_run_id(b.run_id), ids.check_agent_id(b.agent_id)
        (ids.check_handle if b.kind == "handle" else ids.check_key)(b.key)
        ids.check_tool(b.tool)
    except ScratchError as exc:
        return f"the binding holds a bad field: {exc}"
    if b.kind not in ("handle", "scratch"):
        return f"the binding's kind {b.kind!r} is not an entry kind"
    if (ids.path_part(run_id), ids.path_part(agent_id)) != where:
        return "the binding names another scope than the directory the file is in"
    if not b.ttl > 0:
        return "the binding's TTL is not positive"
    return None


def _scan(reader: SeekableReader, head_bytes: int) -> tuple[array, bytes, int | None]:
    """Per-frame newline counts, the first ``head_bytes`` bytes and the last byte, every frame verified."""
    newlines = array("I")
    head = bytearray()
    last = None
    for _, data in reader.iter_frames(ahead=True):
        newlines.append(data.count(b"\n"))
        if len(head) < head_bytes:
            head += data[: head_bytes - len(head)]
        if data:
            last = data[-1]
    return newlines, bytes(head), last
