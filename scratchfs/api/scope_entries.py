"""A scope's verbs over whole entries (:class:`EntryVerbs`, which :class:`~scratchfs.api.scope.Scope` inherits): the
scratchpad's write, read, listings and delete, a page of the scope's spilled results, a whole content streamed in
constant memory (:meth:`EntryVerbs.iter_content`, for a program rather than a model), and an entry's index row. The
reads of a piece of a content (ranges, lines, searches) are :class:`~scratchfs.api.scope.Scope`'s own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from scratchfs.api.entries import Entries, OpenEntry, reading
from scratchfs.api.results import Page
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import checks
from scratchfs.foundation.errors import Changed, InvalidArgument
from scratchfs.foundation.limits import MAX_KEY_BYTES, MAX_LIST_ENTRIES

if TYPE_CHECKING:
    from scratchfs.api.store import ScratchStore


class EntryVerbs:
    """The verbs of a scope (``store``, ``run_id``, ``agent_id``: :class:`~scratchfs.api.scope.Scope`'s) that take a
    whole entry: the scratchpad, listings, a whole content, an entry's row. Each raises as its docstring says, and as
    every verb of a scope may (:class:`~scratchfs.api.scope.Scope`)."""

    store: ScratchStore
    run_id: str
    agent_id: str

    @property
    def _entries(self) -> Entries:
        return self.store.entries

    # -- scratchpad -----------------------------------------------------------------------------------------------

    def scratch_write(self, key: str, value: object, ttl: float | None = None) -> Entry:
        """Write (or overwrite, atomically) a scratchpad value under ``key``; return its entry.

        Args:
            value: ``bytes``, ``str`` (UTF-8), a binary file object or an iterable of byte chunks.
            ttl: seconds until it expires, 1 to 30 days' worth (default: the store's ``default_ttl``).

        Raises:
            InvalidArgument: bad key, value or TTL.
            QuotaExceeded, StorageError, StoreBusy, OSError: as :meth:`spill`; the previous value, if any, is kept.
        """
        key = checks.check_key(key)
        ttl = checks.check_ttl(ttl, self.store.settings.default_ttl)
        return self._entries.write(self.run_id, self.agent_id, "scratch", key, value, None, ttl)[0]

    def scratch_read(self, key: str) -> bytes:
        """The whole value of a scratchpad key, as bytes.

        Raises:
            InvalidArgument: a bad key.
            NotFound: no live value under this key in this scope (:class:`~scratchfs.foundation.errors.Expired` or
                :class:`~scratchfs.foundation.errors.Deleted` for one of the last hour).
            CorruptBlob: the value's blob is damaged.
        """
        return self._entries.read_whole(self.run_id, self.agent_id, "scratch", checks.check_key(key))

    def scratch_list(self, prefix: str = "") -> list[Entry]:
        """Live scratchpad entries of this scope whose key starts with ``prefix`` (exactly, case-sensitive), oldest
        first.

        Raises:
            InvalidArgument: a bad prefix.
        """
        prefix = checks.check_text(prefix, "prefix", MAX_KEY_BYTES, allow_empty=True)
        self._entries.check_open()
        return self.store.index.list_scope(self.run_id, self.agent_id, "scratch", prefix, self.store.now())

    def scratch_page(self, prefix: str = "", *, limit: int = MAX_LIST_ENTRIES, cursor: str | None = None) -> Page:
        """One :class:`~scratchfs.api.results.Page` of :meth:`scratch_list`: at most ``limit`` live scratchpad
        entries, oldest first, starting after ``cursor`` (a previous page's ``next_cursor``; ``None``: the first).
        A keyset page: its cost does not grow with how deep into the listing it is.

        Raises:
            InvalidArgument: a bad prefix, limit or cursor.
        """
        prefix = checks.check_text(prefix, "prefix", MAX_KEY_BYTES, allow_empty=True)
        return self.store.page(self.run_id, self.agent_id, "scratch", prefix, limit, cursor)

    def spilled_page(self, *, limit: int = MAX_LIST_ENTRIES, cursor: str | None = None) -> Page:
        """One :class:`~scratchfs.api.results.Page` of this scope's live spilled results (``kind="handle"``),
        newest first: at most ``limit``, starting after ``cursor`` (a previous page's ``next_cursor``; ``None``: the
        first). A keyset page, as :meth:`scratch_page`.

        Raises:
            InvalidArgument: a bad limit; BadCursor: a bad cursor or another listing's.
        """
        return self.store.page(self.run_id, self.agent_id, "handle", "", limit, cursor, newest_first=True)

    def scratch_delete(self, key: str) -> bool:
        """Delete a scratchpad key; return True if a live value was deleted (False if there was none).

        Raises:
            InvalidArgument: a bad key. StoreBusy, StorageError: nothing was deleted.
        """
        return self.delete_entry("scratch", checks.check_key(key))

    def delete_entry(self, kind: str, key: str) -> bool:
        """Delete the live entry of ``kind`` (``"handle"`` or ``"scratch"``) named ``key`` (the caller has checked
        it): its row, then its blob, marked dead for a rebuild of a lost index; True if a live entry was deleted.
        A full disk is not an error: the store's reserve file is released to make room, as for ``delete_run``.

        Raises:
            StoreClosed: the store is closed. StoreBusy, StorageError: nothing was deleted.
        """
        self._entries.check_open()
        store = self.store
        live, blob = store.reserve.run(
            lambda: store.index.delete_key(self.run_id, self.agent_id, kind, key, store.now()))
        if blob is not None:
            store.blobs.unlink(self.run_id, self.agent_id, blob)
            store.blobs.forget(self.run_id, self.agent_id, blob)  # a rebuild of a lost index must not restore it
        return live

    def iter_content(self, kind: str, key: str) -> Iterator[bytes]:
        """Every byte of a live entry's content, in order, as chunks of one frame's bytes (128 KiB by default): a
        whole spilled result (``kind="handle"``, ``key`` its handle) or scratchpad value (``kind="scratch"``),
        whatever its size, in constant memory, for a program rather than a model (``scratchfs read-handle --all``).
        The entry is looked up and its blob opened and checked before the first chunk; the blob stays open until the
        iterator ends, is closed or is dropped (even unread), so an overwrite, a delete or a sweep meanwhile changes
        none of the bytes given.

        Raises:
            InvalidArgument: a bad kind, a malformed handle or key. NotFound (Expired, Deleted): no live entry;
            or, from a later chunk, an object store's blob deleted by another host half-way (a local file stays
            readable): the entry's Deleted or Expired, Changed for a value written again (the chunks before are
            sound). CorruptBlob: a damaged blob (raised by the chunk that meets the damage: the chunks before it are
            sound).
            StorageError, StoreBusy, StoreClosed.
        """
        return self.open_content(kind, key)[1]

    def open_content(self, kind: str, key: str) -> tuple[Entry, Iterator[bytes]]:
        """:meth:`iter_content`, with the index row of the entry it opened (its content type, say, for a download's
        file name: the row and the bytes are of one entry, whatever is written meanwhile). Raises as
        :meth:`iter_content` does."""
        if kind not in ("handle", "scratch"):
            raise InvalidArgument(f"kind must be 'handle' or 'scratch', not {kind!r}")
        key = checks.check_handle(key) if kind == "handle" else checks.check_key(key)
        opened = self._entries.open(self.run_id, self.agent_id, kind, key)
        try:
            chunks = self._chunks(opened, key, self._entries)
            next(chunks)  # into its ``with``: dropped or closed from now on, even unread, it closes the blob
        except BaseException:
            opened.close()
            raise
        return opened.entry, chunks

    @staticmethod
    def _chunks(opened: OpenEntry, key: str, entries: Entries) -> Iterator[bytes]:
        """The chunks of :meth:`iter_content`, after one empty chunk the caller takes at once (see there). A blob
        gone half-way (an object store's: its object deleted by another host, where no open reader holds it) ends
        them with the entry's :class:`NotFound` (Deleted with its run, Expired), as a read after it would say, or
        :class:`Changed` (a scratchpad value written again)."""
        with opened:
            frames = opened.reader.iter_frames(ahead=True)
            try:
                yield b""
                while True:
                    with reading(key):
                        try:
                            chunk = next(frames, None)
                        except FileNotFoundError:
                            raise entries.gone(opened.entry)[1] or Changed(
                                f"{key} was written again while it was read, and an object store keeps no old "
                                "value for its readers: read it again from its start") from None
                    if chunk is None:
                        return
                    if chunk[1]:  # (an empty content is one empty frame: no chunk)
                        yield chunk[1]
            finally:
                frames.close()  # the frames read ahead are cancelled

    def entry(self, kind: str, key: str) -> Entry | None:
        """The live entry of ``kind`` (``"handle"`` or ``"scratch"``) named ``key`` (the caller has checked it): its
        index row, one lookup (no blob opened, no expiry refreshed), or ``None``. Raises StorageError, StoreBusy,
        StoreClosed."""
        self._entries.check_open()
        return self.store.index.lookup(self.run_id, self.agent_id, kind, key, self.store.now())

    def list_entries(self) -> list[Entry]:
        """Live entries of this scope (spilled handles and scratchpad keys), oldest first."""
        self._entries.check_open()
        return self.store.index.list_scope(self.run_id, self.agent_id, None, "", self.store.now())


__all__ = ["EntryVerbs"]
