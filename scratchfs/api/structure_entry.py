"""What every structure read of a scope (:mod:`scratchfs.api.structured`, :mod:`scratchfs.api.page_reads`) shares:
the entry opened and its failures mapped, the reads its stored content type refuses (:func:`check_kind`), and the
identity its cursors are bound to (:func:`entry_identity`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from scratchfs.api.entries import reading
from scratchfs.api.misfit import refusal
from scratchfs.api.shape import binary_format
from scratchfs.engine.segments import token_of
from scratchfs.engine.structure import ReaderSource
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice
from scratchfs.foundation.errors import InvalidArgument

if TYPE_CHECKING:
    from scratchfs.api.entries import OpenEntry
    from scratchfs.api.scope import Scope


def entry_identity(handle: str, blob: str) -> str:
    """What an entry's structure cursors are bound to (a reader's ``entry``,
    :class:`~scratchfs.engine.structure.paging.CursorKey`): its handle and its blob token -- 120 random bits, never
    shown to a model, that no other entry has and that a TTL refresh keeps (a segment entry's location is left out:
    only the token names the blob)."""
    return f"{handle}/{token_of(blob)}"


class EntryReads:
    """The entry a structure read opens, and what the last one opened was (each structure read of a scope:
    :class:`~scratchfs.api.structured.StructureReads`).

    Every read raises InvalidArgument for content nested too deeply to parse (beyond Python's recursion limit).

    Attributes:
        size: bytes of the entry the last read of this object opened (``None`` before the first), so that a caller
            that reports the size does not look the entry up again.
        content_type: the stored content type of that entry (``None`` before the first read or when not detected).
        shape: the stored shape of that entry (``None`` before the first read or when not detected).
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.size: int | None = None
        self.content_type: str | None = None
        self.shape: str | None = None
        self.line_bytes = 0.0  # the entry's average line length, bytes: what the reads that fit it are (misfit)
        self.lines = 0  # the entry's lines (its stub's count): where a line read it names must start

    def over_entry(self, handle: str, read: Callable[[ReaderSource, str, str | None], Any],
                   given: OpenEntry | None = None) -> Any:
        """Open the entry (unless the caller has: ``given``), run ``read(source, blob token, content type)`` over
        it, map damaged data to CorruptBlob and content nested deeper than Python's JSON parser and encoder go (a
        ``RecursionError``) to InvalidArgument, and return what ``read`` returns. The reads pass
        :func:`entry_identity` of the blob token to the readers, which bind their cursors to it. Raises
        InvalidArgument (a malformed handle, such nesting), NotFound (no live entry), CorruptBlob, StorageError,
        StoreBusy, StoreClosed, and what ``read`` raises."""
        scope = self.scope
        handle = checks.check_handle(handle)
        with (nullcontext(given) if given is not None else
              scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle)) as opened, reading(handle):
            self.size, self.content_type, self.shape = opened.entry.size, opened.entry.content_type, opened.entry.shape
            self.line_bytes, self.lines = opened.entry.size / max(1, opened.entry.lines), opened.entry.lines
            try:
                return read(ReaderSource(opened.reader, opened.entry.size), opened.entry.blob,
                            opened.entry.content_type)
            except RecursionError:
                raise InvalidArgument(f"{handle} holds JSON nested too deeply to read by its structure; "
                                      "read it by bytes or lines") from None

    def check_fits(self, content_type: str | None, read: str, handle: str, slurp: Advice | None = None) -> None:
        """Refuse ``read`` of the entry last opened (:func:`check_kind`, with its shape and average line, and
        ``slurp``, a jq read's slurp read): raises InvalidArgument when its ``content_type`` does not take it."""
        check_kind(content_type, read, handle, self.line_bytes, self.shape, slurp)

    def time_limit(self) -> float:
        """Seconds a jq filter, a CSS selector read or an HTML text view may run: the store's ``pattern_timeout``."""
        return self.scope.store.settings.pattern_timeout


_REFUSED = {"json": {"row", "select"}, "jsonl": {"row", "select"}, "csv": {"jq", "record", "select"},
            "html": {"row", "record"}, "xml": {"jq", "row", "record"}}
# (record= on a JSON document is read: a document on one line is one record; over several lines, its first line is
# no JSON and the read says to use jq=. Every read of text, a log or binary data is tried: it may be JSON lines or a
# table the sniffer did not take for one -- a line cut short, a header alone, a CSV whose first column is a
# timestamp, a table holding a NUL -- or a part of an HTML page; rows, records and select= then refuse what their
# parse shows is not one, and jq's parse error is explained.)


def check_kind(content_type: str | None, read: str, handle: str, line_bytes: float = 0.0,
               shape: str | None = None, slurp: Advice | None = None) -> None:
    """Refuse a structure read (``read``: ``"jq"``, ``"record"``, ``"row"`` or ``"select"``) that does not fit the
    entry's stored content type (decided at spill time from its start, :func:`scratchfs.api.shape.describe`): rows
    of JSON, records of a table, jq over a table or XML, rows or records of an HTML page or of XML, a CSS select of
    JSON or a table would parse it as what it is not; so would any read of binary data whose shape names its format
    (gzip, a PNG image: :func:`~scratchfs.api.shape.binary_format`). A read of text, a log, other binary data or
    content of unknown type (``None``) is tried, and its parse decides
    (:class:`~scratchfs.api.structured.StructureReads` refuses what it shows does not fit). Raises InvalidArgument
    naming what the entry is and the reads that fit (by ``shape``, its stored shape, and ``line_bytes``, its average
    line length; a table's refused jq read led by ``slurp``, its slurp read: :func:`scratchfs.api.misfit.refusal`);
    returns None otherwise."""
    if (content_type in _REFUSED and read in _REFUSED[content_type]) or (
            content_type == "binary" and binary_format(shape) is not None):  # gzip, PNG...: no page, table or JSON
        raise InvalidArgument(refusal(handle, content_type, read, line_bytes=line_bytes, shape=shape, slurp=slurp))


__all__ = ["EntryReads", "check_kind", "entry_identity"]
