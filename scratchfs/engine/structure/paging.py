"""Pages within a byte budget, cursors and content-source access shared by the structure readers, and the store
errors a reader's worker-process call ends in (:func:`in_worker`).

A *content source* is any object with ``size`` (bytes), ``read(offset, length) -> bytes`` and
``iter_frames(first_frame=0)`` yielding ``(content offset, bytes)`` -- :class:`scratchfs.engine.seekable.SeekableReader`
is one, :class:`BytesSource` wraps plain bytes. Every reader returns an :class:`ItemPage` or a :class:`TextPage`
whose compact JSON (``json.dumps(page.to_dict(), ensure_ascii=False, separators=(",", ":"))``, escapes included) is at
most the caller's ``budget_bytes`` UTF-8 bytes, and a ``cursor`` that resumes exactly where the page stopped.

Cursors are small opaque strings: dot-separated integers (a position) and a 10-character tag, 60 bits of a keyed
BLAKE2b MAC over the numbers, the kind of read and its arguments (:class:`CursorKey`: ``read``), the content size and
keyed by the entry's identity (``entry``: the API layer passes the handle and the blob token, 120 random bits the model
never sees; a TTL refresh changes neither). A cursor edited by hand, guessed, or taken from another entry (of the same
size or not) or from another read of the same entry is refused with ``BadCursor`` (an ``InvalidArgument``) rather
than read from the wrong place; each reader also checks on use that the position is one it could have made (a record,
row or line start, a character start), where that is cheap, refusing it with ``BadCursor`` too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from scratchfs.engine.structure.page_words import with_words
from scratchfs.engine.worker_pipe import NoWorker, PoolBusy
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, InvalidArgument, StoreBusy, StructureTimeout
from scratchfs.foundation.text import is_digits, plural

__all__ = [
    "CHUNK_BYTES",
    "MAX_BUDGET_BYTES",
    "MIN_BUDGET_BYTES",
    "STOP",
    "WORDS_MIN_BUDGET",
    "BytesSource",
    "ContentSource",
    "CursorKey",
    "ItemPage",
    "ReaderSource",
    "TextPage",
    "check_budget",
    "check_line_start",
    "check_page",
    "check_resumes_at",
    "cursor_position",
    "decode_cursor",
    "encode_cursor",
    "fill_items",
    "fill_text",
    "in_worker",
    "iter_chunks",
    "iter_lines",
    "json_bytes",
    "read_whole",
    "with_as_text",
]

MIN_BUDGET_BYTES = 256
"""Smallest ``budget_bytes`` a reader accepts (room for the page's own fields and some content)."""
MAX_BUDGET_BYTES = 64 * 1024
"""Largest ``budget_bytes`` a reader accepts (the hard ceiling of a reply)."""
CHUNK_BYTES = 256 * 1024
"""Bytes read from a content source per call when streaming."""
_CURSOR_ROOM = 64  # bytes kept for the cursor's JSON when a page is filled (its numbers, dots and 10-character tag)
STOP = object()
"""An item value that ends a page at its position (a reader's own limit), with a cursor there."""


class ContentSource(Protocol):
    """What the readers read: ``size`` in bytes, ``read(offset, length)`` and ``iter_frames(first_frame=0)``."""

    size: int

    def read(self, offset: int, length: int) -> bytes: ...

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]: ...


class BytesSource:
    """A content source over plain bytes, cut into frames of ``frame_bytes`` (for tests and the benchmark)."""

    def __init__(self, data: bytes, frame_bytes: int = 128 * 1024) -> None:
        self.data = bytes(data)
        self.size = len(self.data)
        self.frame_bytes = max(1, frame_bytes)

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset : offset + max(0, length)]

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        for start in range(first_frame * self.frame_bytes, self.size, self.frame_bytes):
            yield start, self.data[start : start + self.frame_bytes]


class ReaderSource:
    """A content source over a reader that has ``read`` and ``iter_frames`` but no ``size`` (such as
    :class:`~scratchfs.engine.seekable.SeekableReader`, whose size is ``reader.table.size``)."""

    def __init__(self, reader: Any, size: int | None = None) -> None:
        self.reader = reader
        self.size = reader.table.size if size is None else size

    def read(self, offset: int, length: int) -> bytes:
        return self.reader.read(offset, length)

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        return self.reader.iter_frames(first_frame)


def json_bytes(value: Any) -> int:
    """UTF-8 bytes of the compact JSON text of ``value`` (non-ASCII kept as is, escapes counted)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def check_budget(budget_bytes: object, name: str = "budget_bytes") -> int:
    """``budget_bytes`` checked: an int in ``[MIN_BUDGET_BYTES, MAX_BUDGET_BYTES]``. Raises InvalidArgument naming
    ``name``, the keyword the caller gave it as (the engine readers' ``budget_bytes``; ``scope.structure``'s
    ``budget``)."""
    return check_int(budget_bytes, name, MIN_BUDGET_BYTES, MAX_BUDGET_BYTES)


def check_page(cursor: object, budget_bytes: object, *, budget_name: str = "budget_bytes", **counts: object) -> None:
    """A structure read's arguments checked before the read, or the advice its error builds, uses any of them:
    ``cursor`` ``None`` or a string (:func:`decode_cursor` checks the rest), ``budget_bytes`` (:func:`check_budget`,
    named ``budget_name``) and each of ``counts`` (a row, a record, a count of them) an integer of at least 1 (its
    reader checks its upper bound). Raises InvalidArgument (BadCursor, one, for a cursor that is no string)."""
    if cursor is not None and not isinstance(cursor, str):
        raise BadCursor(f"cursor must be the string a previous read returned, not {type(cursor).__name__}")
    check_budget(budget_bytes, budget_name)
    for name, count in counts.items():
        check_int(count, name, 1)


_TAG_CHARS = 10  # base64url characters of the MAC in a cursor: 60 bits
_MAX_CURSOR_CHARS = 120


@dataclass(frozen=True, slots=True)
class CursorKey:
    """What a reader's cursors are bound to: the read (its kind and every argument that decides what its positions
    mean, e.g. ``"jq\0.items[]"``, and for a view where it started: a cursor given beside another ``offset=`` than
    its read's -- a model editing a ``next_call`` to jump ahead -- is refused, never obeyed in silence; a row or
    record reader ignores ``row=``/``record=`` beside its cursor, which the API checks against the one the cursor
    goes on at, :func:`check_resumes_at`, and its ``next_call`` names), the content's ``size`` in bytes, and the
    entry's identity ``entry``: a text that differs between any two entries and holds a secret the model never sees
    (the API layer passes ``"<handle>/<blob token>"``). ``entry=None`` (plain content, tests and the benchmark)
    binds to the read and the size only, with an unkeyed hash."""

    read: str
    size: int
    entry: str | None = None

    def mac(self, body: str) -> str:
        """The tag of a cursor whose numbers are ``body``: :data:`_TAG_CHARS` base64url characters (60 bits)."""
        key = b"" if self.entry is None else self.entry.encode("utf-8", "surrogatepass")
        if len(key) > 64:  # BLAKE2b takes keys of at most 64 bytes
            key = hashlib.blake2b(key, digest_size=32).digest()
        message = f"{len(self.read)}:{self.read}/{self.size}/{body}".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(message, digest_size=8, key=key, person=b"scratchfs-cursor").digest()
        return base64.urlsafe_b64encode(digest).decode("ascii")[:_TAG_CHARS]


def encode_cursor(numbers: Iterable[int], key: CursorKey) -> str:
    """An opaque cursor for ``numbers`` (non-negative ints), bound to ``key`` (the entry, its size and the read)."""
    body = ".".join(str(int(n)) for n in numbers)
    return f"{body}.{key.mac(body)}"


def cursor_position(cursor: object) -> int | None:
    """The first number of a cursor of :func:`encode_cursor` (a row or record reader's: where its page starts), or
    ``None`` when it has none or is no string; unchecked (:func:`decode_cursor` checks a cursor given back)."""
    if not isinstance(cursor, str):
        return None
    head = cursor.split(".", 1)[0]
    return int(head) if head.isdigit() and len(head) <= 20 else None


def check_resumes_at(cursor: str, given: object, what: str, numbers: int) -> None:
    """Refuse a row or record reader's cursor given beside a ``what=`` (``"row"``, ``"record"``) other than the one
    it goes on at (:func:`cursor_position`; the reader checks the rest): a model that edits a next_call to jump
    ahead is refused, never obeyed in silence. ``numbers``: how many the reader's cursors hold before their tag; a
    cursor of another shape (a jq read's, passed to a record read) is left to the reader's refusal, not told to go
    on at its first number, where it would be refused again.

    Raises:
        BadCursor: (an InvalidArgument) such a cursor, naming the ``what=`` it goes on at."""
    number = cursor_position(cursor)
    if number is not None and given != number and cursor.count(".") == numbers:
        raise BadCursor(f"cursor {cursor[:40]!r} was not made by this read of this entry at {what}={given}: it "
                        f"goes on at {what} {number}; pass it with {what}={number} (next_call does), or start "
                        "the read again without a cursor")


def decode_cursor(cursor: object, count: int, key: CursorKey) -> list[int]:
    """The ``count`` numbers of a cursor made by :func:`encode_cursor` with the same ``key``.

    Raises:
        BadCursor: (an InvalidArgument) not a string, malformed, edited, or made by another kind of read, another
            read's arguments or another entry; the message says to pass the cursor exactly as the reply gave it or
            to start over.
    """
    if not isinstance(cursor, str) or len(cursor) > _MAX_CURSOR_CHARS:
        shown = cursor[:40] if isinstance(cursor, str) else type(cursor).__name__  # (not str() of a huge object)
        raise BadCursor(f"cursor must be the string a previous read returned: {shown!r}")
    body, _, tag = cursor.rpartition(".")
    parts = body.split(".")
    if (len(parts) != count or not all(is_digits(p) and len(p) <= 20 for p in parts)
            or not hmac.compare_digest(tag.encode("utf-8", "replace"), key.mac(body).encode("ascii"))):
        raise BadCursor(f"cursor {cursor[:40]!r} was not made by this read of this entry (edited, or of another "
                        "entry or another read): pass the cursor exactly as the last reply gave it, with the "
                        "same read arguments (next_call does), or start the read again without a cursor")
    return [int(p) for p in parts]


def check_line_start(source: ContentSource, offset: int, what: str, ends: bytes = b"\n") -> int:
    """``offset``, checked to be a line start of ``source`` (0, or just after a ``\n``, or after any byte of
    ``ends``) within its size: where a reader's cursor may point (``what`` names it in the message). Reads one byte.

    Raises:
        BadCursor: (an InvalidArgument) past the content's end, or not at a line start.
    """
    before = source.read(offset - 1, 1) if 0 < offset <= source.size else b"\n"  # (0: a line start)
    if offset > source.size or not before or before[0] not in ends:
        raise BadCursor(f"cursor points at byte {offset}, which is not {what} of this entry: start the read "
                        "again without a cursor")
    return offset


def read_whole(source: ContentSource, limit: int, what: str) -> bytes:
    """The whole content, when it is at most ``limit`` bytes. Raises InvalidArgument naming the bound."""
    if source.size > limit:  # (in bytes when MiB to one decimal would not tell it over: "at most 32 MiB; this one
        # is 32.0 MiB" read as no reason)
        size = f"{source.size / (1024 * 1024):.1f} MiB"
        same = size == f"{limit / (1024 * 1024):.1f} MiB"
        told = f" ({limit:,} bytes); this one is {source.size:,} bytes" if same else f"; this one is {size}"
        raise InvalidArgument(f"{what} reads documents of at most {limit // (1024 * 1024)} MiB{told}")
    return b"".join(chunk for _, chunk in source.iter_frames())


def iter_chunks(source: ContentSource, offset: int = 0, chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The content from ``offset`` on, ``chunk_bytes`` at a time."""
    while offset < source.size:
        data = source.read(offset, chunk_bytes)
        if not data:
            return
        offset += len(data)
        yield data


def iter_lines(source: ContentSource, offset: int = 0, max_line_bytes: int = 64 * 1024 * 1024,
               ) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, line)`` for each line from ``offset`` on, line ends kept (a line ends at ``\\n``). A line
    that spans chunks is held as its pieces and joined once when it ends: each byte is copied a bounded number of
    times, however long the line.

    Raises:
        InvalidArgument: a line is longer than ``max_line_bytes`` (the bound on what is held in memory).
    """
    held: list[bytes] = []  # the pieces of a line not yet ended, in order
    held_bytes = 0
    start = offset
    for chunk in iter_chunks(source, offset):
        pos = 0
        while True:
            end = chunk.find(b"\n", pos)
            if end < 0:
                break
            line = chunk[pos : end + 1]
            if held:
                held.append(line)
                line, held, held_bytes = b"".join(held), [], 0
            yield start, line
            start += len(line)
            pos = end + 1
        if pos < len(chunk):
            held.append(chunk[pos:] if pos else chunk)
            held_bytes += len(chunk) - pos
            if held_bytes > max_line_bytes:
                raise InvalidArgument(f"a line at byte {start} is longer than {max_line_bytes:,} bytes")
    if held:
        yield start, b"".join(held)


WORDS_MIN_BUDGET = 1024
"""The least page budget (bytes) whose page says what its ``part``, ``as_text``, ``record`` and ``first`` are (up to
about 470 bytes of words: :mod:`~scratchfs.engine.structure.page_words`)."""


@dataclass(slots=True)
class ItemPage:
    """One page of items (jq outputs, records, rows, element texts).

    Attributes:
        name: the items' field name in :meth:`to_dict` (``results``, ``records``, ``rows``, ``elements``).
        first: number of the first item shown (of ``part`` when it is set), counted from 1.
        items: whole items, JSON values.
        part: a piece of the compact JSON text of item ``first`` (of its text, for text items), when that item is
            longer than the budget; the cursor continues it.
        cursor: resumes after this page; ``None`` at the end.
        extra: format fields shown before the items (CSV ``header``).
        failure: the error the read meets after this page's items, when it is known already (a jq run that failed
            past them: the page that starts there raises it -- a :class:`~scratchfs.foundation.errors.JqFailed`, or
            :class:`~scratchfs.foundation.errors.NotJson` for a document after them that jq cannot parse); not in
            :meth:`to_dict`.
        passed: the bad record (a BadRecord) a JSON-lines page ended before and passed over (its cursor goes on
            after it); for rows, the list of those a page passed over (BadRecords); not in :meth:`to_dict`.
        start: the record a page of jq outputs over records started reading at (its ``record`` then says more
            than the read asked: :func:`~scratchfs.engine.structure.page_words.page_words`); ``None`` otherwise.
        words: :meth:`to_dict` says what the page's fields are (false on a page filled within less than
            :data:`WORDS_MIN_BUDGET` bytes, where they would crowd out its items).
        texts: the items are strings whose ``part`` is a piece of that text (an HTML element's text), not of their
            compact JSON text (an XML element's object, a row, a jq output); set by the caller, which knows.
    """

    name: str
    first: int
    items: list = field(default_factory=list)
    part: str | None = None
    cursor: str | None = None
    extra: dict = field(default_factory=dict)
    failure: InvalidArgument | None = None
    passed: Any = None
    start: int | None = None
    words: bool = True
    texts: bool = False

    @property
    def more(self) -> bool:
        """True when more follows (the cursor is set)."""
        return self.cursor is not None

    def to_dict(self) -> dict[str, Any]:
        """``{**extra, first, [part], <name>: items, cursor, more}``, the JSON a caller sends on, its ``note`` saying
        what its ``part``, ``as_text``, ``record`` and ``first`` are when it has them
        (:func:`~scratchfs.engine.structure.page_words.with_words`)."""
        out: dict[str, Any] = dict(self.extra)
        out["first"] = self.first
        if self.part is not None:
            out["part"] = self.part
        out[self.name] = self.items
        out["cursor"] = self.cursor
        out["more"] = self.more
        return with_words(out, self.name, self.start, self.texts) if self.words else out


@dataclass(slots=True)
class TextPage:
    """One page of a text view: ``text`` starts at byte ``offset`` of the view's UTF-8 text; ``cursor`` resumes."""

    offset: int
    text: str
    cursor: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def more(self) -> bool:
        """True when more follows (the cursor is set)."""
        return self.cursor is not None

    def to_dict(self) -> dict[str, Any]:
        """``{**extra, offset, text, cursor, more}``."""
        return {**self.extra, "offset": self.offset, "text": self.text, "cursor": self.cursor, "more": self.more}


def _fit_text(text: str, room: int) -> str:
    """The longest prefix of ``text`` whose JSON string (quotes included) is at most ``room`` UTF-8 bytes."""
    if len(text) <= room and json_bytes(text) <= room:  # a JSON string costs at least its length + 2
        return text
    lo, hi = 0, min(len(text), room)
    while lo < hi:  # JSON cost grows with the prefix: bisect on characters
        mid = (lo + hi + 1) // 2
        if json_bytes(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def fill_items(page: ItemPage, items: Iterator[tuple[Any, Any, bool]], skip_chars: int, budget: int, limit: int,
               cursor_of: Callable[[Any, int], str], on_cut: Callable[[Any, str], None] | None = None) -> ItemPage:
    """Fill ``page`` from ``items`` within ``budget`` bytes of JSON and at most ``limit`` items.

    Args:
        items: ``(position, value, is_text)`` in order; ``cursor_of(position, chars)`` makes the cursor that starts
            at that item, ``chars`` characters into its text. ``is_text``: the value is a string whose own text is
            cut when it is too large (else its compact JSON text is cut).
        skip_chars: characters of the first item's text already returned (resuming a cut item).
        on_cut: called with ``(position, text)`` when an item's text is cut (a caller may keep it for the next page).

    An item too large for the page alone goes into ``page.part``, cut, with a cursor into it; a cut item counts as
    one of the ``limit`` items on the page where it ends. A page costs what it shows, not what its items hold: a text
    item too long for the page is not encoded whole, and only the piece a page may show is taken from it.

    Raises:
        InvalidArgument: ``skip_chars`` is not inside the first item's text (a cursor into an item that is not there,
            or shorter than that).
    """
    page.words = budget >= WORDS_MIN_BUDGET
    used, count = 0, 0  # (used: set at the first item, which may label the page)
    for position, value, is_text in items:
        if not count and page.part is None:  # (the first item may label the page: its record, first and their words)
            used = _fixed_cost(page)
        if skip_chars and value is STOP:
            _not_inside(skip_chars)
        if count >= limit or value is STOP:
            page.cursor = cursor_of(position, skip_chars)
            return page
        if not skip_chars and not (is_text and len(value) + 3 > budget - used):  # a text costs at least that
            cost = json_bytes(value) + 1
            if used + cost <= budget:
                page.items.append(value)
                used += cost
                count += 1
                continue
        if count or page.part is not None:  # the page has items: this one starts the next page
            page.cursor = cursor_of(position, 0)
            return page
        text = value if is_text else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if skip_chars >= len(text):
            _not_inside(skip_chars)
        part_cost = _part_cost(page)
        room = max(8, budget - used - part_cost)
        piece = _fit_text(text[skip_chars : skip_chars + room], room)  # a character costs a byte at least
        page.part = piece
        used += json_bytes(piece) + part_cost
        if skip_chars + len(piece) < len(text):
            page.cursor = cursor_of(position, skip_chars + len(piece))
            if on_cut is not None:
                on_cut(position, text)
            return page
        skip_chars = 0
        count += 1
    if skip_chars:
        _not_inside(skip_chars)
    page.cursor = None
    return page


def _fixed_cost(page: ItemPage) -> int:
    """Bytes ``page`` takes before its items: its fields and their words, and room for the longest cursor."""
    return json_bytes(page.to_dict()) + _CURSOR_ROOM + json_bytes(page.name) + 8


def _part_cost(page: ItemPage) -> int:
    """Bytes a ``part`` adds to ``page`` (which has none yet) beside its text: ``,"part":`` and the words saying how
    to join the parts. Leaves ``page.part`` empty."""
    bare = json_bytes(page.to_dict())
    page.part = ""
    return json_bytes(page.to_dict()) - bare - 2  # (the empty text's quotes: the piece's own cost counts them)


def _not_inside(skip_chars: int) -> None:
    raise BadCursor(f"cursor points {plural(skip_chars, 'character')} into an item that is not that long (or not "
                    "there): start the read again without a cursor")


def with_as_text(fill: Callable[[int], ItemPage], budget: int, candidates: list[tuple[int, str]],
                 note: list[str] | None = None) -> ItemPage:
    """The page ``fill(room)`` makes within ``budget`` bytes, with ``extra["as_text"]``: the indexes (from 0) of its
    items given as their JSON text (a string) because they hold a number no JSON value here holds exactly, and
    ``extra["note"]``: the notes ``fill`` put in ``note`` as it read. ``fill`` empties ``candidates`` (and
    ``note``) and appends ``(index on the page, text)`` before it offers such an item (the page's length then);
    those the page kept are listed. When they do not fit beside the page, the page is made again with room for
    them (they can only shorten)."""

    def finish(page: ItemPage) -> ItemPage:
        shown = [i for i, text in candidates if i < len(page.items) and page.items[i] is text]
        extra = {"note": "; ".join(note)} if note else {}  # (each note a clause)
        if shown:
            extra["as_text"] = shown
        page.extra = {**extra, **page.extra}
        return page

    page = fill(budget)
    plain = len(page.extra)
    page = finish(page)
    if len(page.extra) == plain or json_bytes(page.to_dict()) <= budget:
        return page
    full = json_bytes(page.to_dict())
    for key in ("note", "as_text"):
        page.extra.pop(key, None)
    room = full - json_bytes(page.to_dict())  # what they cost, with the words saying what `as_text` is
    return finish(fill(max(MIN_BUDGET_BYTES // 2, budget - room)))


def fill_text(text_bytes: bytes, offset: int, budget: int, page: TextPage) -> tuple[TextPage, int]:
    """Put the text from byte ``offset`` of ``text_bytes`` into ``page`` within ``budget`` bytes of JSON, cut on a
    UTF-8 character boundary; returns the page and the byte offset where the next page starts."""
    room = budget - json_bytes(page.to_dict()) - _CURSOR_ROOM
    take = max(4, room)
    while True:
        end = min(len(text_bytes), offset + take)
        while end < len(text_bytes) and end > offset and text_bytes[end] & 0xC0 == 0x80:
            end -= 1  # not inside a character
        text = text_bytes[offset:end].decode("utf-8", "replace")
        cost = json_bytes(text) - 2
        if cost <= room or take <= 4:
            break
        take = max(4, min(take - 1, int(take * room / max(1, cost))))
    page.text = text
    return page, end


def in_worker(run: Callable[[], Any], deadline: float, what: str, advice: str, died: str | None = None) -> Any:
    """The answer of ``run()``, a call of a structure worker (``run_jq``, ``run_html``) until ``deadline`` (a
    ``time.monotonic()`` value, seconds), with its failures as store errors; ``what`` names the read in messages
    (``"the jq filter"``), ``advice`` ends the timeout's message (``"try {advice}"``) and ``died`` a death's (after
    "ran out of memory or died"; by default ``"; try {advice}"``).

    Raises:
        StructureTimeout: the deadline passed (the worker was stopped). InvalidArgument: the worker ran out of memory
            or died (``run`` answered a tuple ``("died", last words)``; the message ends with the last line the worker
            wrote to its stderr, when it wrote one). StoreBusy: every worker process stayed busy until
            the deadline, or none could be started (out of descriptors or memory); the read was not run.
    """
    try:
        answer = run()
    except NoWorker as exc:
        raise StoreBusy(f"{what} was not run: {exc}; retry later") from None
    except PoolBusy as exc:
        raise StoreBusy(f"{what}: {exc} (pattern_timeout); retry") from None
    except TimeoutError:
        late = max(0.0, time.monotonic() - deadline)
        stopped = f"{what} ran past its time limit (pattern_timeout; stopped {late:.1f} s after it) and was stopped"
        raise StructureTimeout(f"{stopped}; try {advice}", stopped) from None
    if isinstance(answer, tuple) and answer[0] == "died":
        tail = f"; try {advice}" if died is None else died
        words = answer[1] if len(answer) > 1 and isinstance(answer[1], str) and answer[1] else ""
        said = f" (its last words: {json.dumps(words, ensure_ascii=False)})" if words else ""
        raise InvalidArgument(f"{what} stopped: its worker process ran out of memory or died{tail}{said}")
    return answer
