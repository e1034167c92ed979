"""The top level of a JSON document of any size, by streaming: its members, their kinds and counts, and the keys
a model needs to aim a read (an object's first keys, an array's first item's keys).

A scanner walks the document two levels deep and hands every value below that to the standard library's
``json.JSONDecoder.raw_decode`` (C speed: each item of a top-level array is decoded whole, then dropped), so it
reads about 100 MB/s of dense JSON where an event-by-event parser (ijson, ~1 µs per event in Python) reads
1.5 to 15 MB/s. Memory: the text buffer (at most :data:`MAX_BUFFER_CHARS` characters, consumed text dropped as it
goes) plus one decoded item. A value too large for the buffer, or the byte or time bound, ends the scan with
``complete=False``.
"""

from __future__ import annotations

import codecs
import re
import time
from collections import deque
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import CHUNK_BYTES, ContentSource

__all__ = ["FEED_TAIL_BYTES", "MAX_BUFFER_CHARS", "TopEntry", "TopLevel", "TopLevelFeed", "top_level"]

FEED_TAIL_BYTES = 64 * 1024
"""The last bytes of its content a :class:`TopLevelFeed` keeps, for :meth:`TopLevelFeed.read` (how JSON lines end)."""

MAX_BUFFER_CHARS = 32 * 1024 * 1024
"""Most characters of text the scanner holds (a single second-level value larger than this ends the scan)."""

_WS = re.compile(r"[ \t\r\n]*")
_DECODER = LongIntegers()


@dataclass(slots=True)
class TopEntry:
    """One top-level member of a JSON document: ``key`` (``None`` for an array's first item), ``kind`` (``object``,
    ``array``, ``str``, ``int``, ``float``, ``bool``, ``null``), ``count`` (keys or items; bytes of a ``str``) and
    ``names`` (an object's first keys; an array's items' first keys, in the order first seen), ``item_kind`` (an
    array's first item's kind), ``mixed`` (an array's items read are of more than one kind: numbers, whole or not,
    are one), ``common`` (of an array of objects: the keys every item read holds), ``cut``: the scan stopped inside
    its value (its count is of what was read: at least that many); ``chars``: characters of JSON text a member's
    value spans, from its first to its last (0 for an array's items and a value the scan stops inside)."""

    key: str | None
    kind: str = "null"
    count: int = 0
    chars: int = 0
    names: list[str] = field(default_factory=list)
    item_kind: str = ""
    cut: bool = False
    common: set[str] | None = None
    mixed: bool = False


@dataclass(slots=True)
class TopLevel:
    """The top level of a JSON document: ``kind`` (``object``, ``array`` or a scalar type), ``count`` (keys or
    items), ``entries`` (the first members, see :class:`TopEntry`), ``complete`` (read to its end within the bounds)
    and ``read_bytes`` (bytes read)."""

    kind: str
    count: int = 0
    entries: list[TopEntry] = field(default_factory=list)
    complete: bool = True
    read_bytes: int = 0


class _Stop(Exception):
    """The scan stops here: the bounds, a value too large for the buffer, or a malformed document."""


_MORE = object()  # what the ``_now`` methods return when the buffer must be refilled first


class _Text:
    """The document's text, decoded incrementally, consumed from the front. Its bytes come from whoever drives the
    scan: :meth:`fill` yields how many bytes it wants and is sent them (the driver sends exactly that many, fewer
    only at the content's end). ``size`` is ``None`` while a fed content's end is unknown (more bytes follow)."""

    def __init__(self, size: int | None, max_bytes: int, deadline: float) -> None:
        self.size, self.max_bytes, self.deadline = size, max_bytes, deadline
        if size is not None:
            self.max_bytes = min(max_bytes, size)
        self.read_bytes = 0
        self.text = ""
        self.pos = 0
        self.dropped = 0  # characters consumed and dropped from the front: text[pos] is character dropped + pos
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.stop: _Stop | None = None  # where a refill ahead of need stopped: raised at the next real need

    @property
    def at_end(self) -> bool:
        return self.size is not None and self.read_bytes >= self.size

    def ends_at(self, size: int) -> None:
        """The content is ``size`` bytes long (told before its last bytes are sent)."""
        self.size, self.max_bytes = size, min(self.max_bytes, size)

    def fill(self) -> Generator[int, bytes, None]:
        """Append the next chunk. Raises _Stop at the bounds."""
        if self.stop is not None:
            raise self.stop
        if self.read_bytes >= self.max_bytes or time.monotonic() > self.deadline:
            raise _Stop("bound")
        data = yield min(CHUNK_BYTES * 4, self.max_bytes - self.read_bytes)
        if not data:
            raise _Stop("end")
        self.read_bytes += len(data)
        if self.pos > CHUNK_BYTES:
            self.text, self.dropped, self.pos = self.text[self.pos :], self.dropped + self.pos, 0
        if len(self.text) - self.pos > MAX_BUFFER_CHARS:
            raise _Stop("a value larger than the buffer")
        try:
            self.text += self.decoder.decode(data, final=self.at_end)
        except UnicodeDecodeError:
            raise _Stop("not UTF-8") from None

    def fill_ahead(self) -> Generator[int, bytes, None]:
        """:meth:`fill` before the text is needed: where it stops, the text there is still read, and the next
        :meth:`fill` raises that stop -- so a scan stops just where filling only on need would have stopped."""
        try:
            yield from self.fill()
        except _Stop as stop:
            self.stop = stop

    def peek(self) -> Generator[int, bytes, str]:
        """The next character that is not white space ('' at the end of the document)."""
        while (found := self.peek_now()) is None:
            yield from self.fill()
        return found

    def peek_now(self) -> str | None:
        """:meth:`peek` without refilling: ``None`` when the buffer must be refilled first."""
        self.pos = _WS.match(self.text, self.pos).end()
        if self.pos < len(self.text):
            return self.text[self.pos]
        return "" if self.at_end else None

    def value_now(self) -> Any:
        """:meth:`value` without refilling: ``_MORE`` when the buffer must be refilled first (or the value is
        malformed: :meth:`value` then tells)."""
        if self.peek_now() is None:
            return _MORE
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except ValueError:
            return _MORE
        if end == len(self.text) and not self.at_end:
            return _MORE
        self.pos = end
        return value

    def value(self) -> Generator[int, bytes, Any]:
        """Decode the next value whole (refilling until it is complete: a number may go on in the next chunk)."""
        while (value := self.value_now()) is _MORE:
            if self.at_end:
                raise _Stop("malformed")
            yield from self.fill()
        return value


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if value is None:
        return "null"
    return {str: "str", int: "int", float: "float"}.get(type(value), "null")


_KINDS = {dict: "object", list: "array", str: "str", int: "number", float: "number", bool: "bool", type(None): "null"}
"""The kind of an array's item, by its type, as :attr:`TopEntry.mixed` compares them (numbers are one kind)."""
_KIND_TYPES = {"object": dict, "array": list, "str": str, "int": int, "float": float, "bool": bool, "null": type(None)}
"""The type of each of :func:`_kind`'s kinds."""

_DONE, _SHORT, _NEED = "done", "short", "need"  # how _walk left a container: closed, refill ahead, refill
_OPEN = "open"  # how _open left it: the buffer ended before the character after its opening


def _children(text: _Text, entry: TopEntry, max_names: int) -> Generator[int, bytes, None]:
    """Walk the container that starts at the cursor, counting its children (each decoded whole by ``raw_decode``).

    :func:`_walk` reads children as far as the buffer goes; when the buffer runs out (``IndexError``, or
    ``ValueError`` from a value cut by the buffer's end) it is refilled and the child read again from its start --
    which happens about once, not at every refill: when fewer characters are left than the last child took, the
    buffer is refilled first (:meth:`_Text.fill_ahead`)."""
    is_object = (yield from text.peek()) == "{"
    text.pos += 1
    yield from _rest(text, entry, is_object, max_names, *_open(text, entry, is_object, max_names))


def _open(text: _Text, entry: TopEntry, is_object: bool, max_names: int) -> tuple[str, int]:
    """Read the container whose opening was just read as far as the buffer goes, without refilling: ``(_DONE, 0)``
    for an empty one, ``(_OPEN, 0)`` when the buffer ends before the character after the opening, else
    :func:`_walk`'s answer."""
    after = text.peek_now()
    if after is None:
        return _OPEN, 0
    if after == ("}" if is_object else "]"):
        text.pos += 1
        return _DONE, 0
    return _walk(text, entry, is_object, max_names, 0)


def _rest(text: _Text, entry: TopEntry, is_object: bool, max_names: int, state: str, room: int
          ) -> Generator[int, bytes, None]:
    """The rest of a container :func:`_open` or :func:`_walk` left in ``state``, refilling as it says."""
    while state is not _DONE:
        if state is _SHORT:
            yield from text.fill_ahead()
        elif text.at_end:
            raise _Stop("malformed")
        else:
            yield from text.fill()
        if state is _OPEN:
            state, room = _open(text, entry, is_object, max_names)
        else:
            state, room = _walk(text, entry, is_object, max_names, room)


def _walk(text: _Text, entry: TopEntry, is_object: bool, max_names: int, room: int) -> tuple[str, int]:
    """Read the children of an open container from the cursor as far as the buffer goes, on local variables,
    committing ``text.pos`` after each child and its separator; return how it stopped and the last child's length
    in characters (``room``: fewer left than that, and more to come, is ``_SHORT``)."""
    t, pos = text.text, text.pos
    n = len(t)
    ahead = text.stop is None and not text.at_end
    decode = _DECODER.raw_decode
    names = entry.names
    closing = "}" if is_object else "]"
    try:
        while True:
            while t[pos] in " \t\r\n":
                pos += 1
            if ahead and n - pos <= room:
                return _SHORT, room
            start = pos
            if is_object:
                key, pos = decode(t, pos)
                while t[pos] in " \t\r\n":
                    pos += 1
                if t[pos] != ":":
                    raise _Stop("malformed")
                pos += 1
                while t[pos] in " \t\r\n":
                    pos += 1
            child, pos = decode(t, pos)
            if pos >= n:
                return _NEED, room  # a number may go on in the next chunk
            while t[pos] in " \t\r\n":
                pos += 1
            following = t[pos]
            pos += 1
            entry.count += 1
            text.pos = pos
            room = pos - start
            if is_object:
                if len(names) < max_names:
                    names.append(str(key))
            elif entry.count == 1:
                entry.item_kind = _kind(child)
                if isinstance(child, dict):
                    names[:] = [str(k) for k in list(child)[:max_names]]
                    entry.common = set(child)
            else:
                if not entry.mixed and _KINDS.get(type(child)) != _KINDS.get(_KIND_TYPES[entry.item_kind]):
                    entry.mixed = True
                if isinstance(child, dict) and entry.common is not None:
                    _more_keys(entry, child, max_names)
            if following == closing:
                return _DONE, room
            if following != ",":
                raise _Stop("malformed")
    except (IndexError, ValueError):
        return _NEED, room


def _more_keys(entry: TopEntry, item: dict, max_names: int) -> None:
    """An array's later object ``item``: keys it lacks leave ``entry.common``, new keys join ``entry.names`` (up to
    ``max_names``); set operations at C speed when it holds the keys seen so far and no other."""
    common = entry.common
    if common is not None and not common.issubset(item.keys()):
        common.intersection_update(item.keys())
    names = entry.names
    if len(names) < max_names and not item.keys() <= set(names):
        names.extend([str(k) for k in item if k not in names][: max_names - len(names)])


def top_level(source: ContentSource | TopLevelFeed, max_bytes: int = 256 * 1024 * 1024, max_seconds: float = 2.0,
              max_entries: int = 64, max_names: int = 8) -> TopLevel | None:
    """The top level of the JSON document in ``source``, reading at most ``max_bytes`` and for about
    ``max_seconds``; past either bound (or past a second-level value larger than :data:`MAX_BUFFER_CHARS`)
    ``complete`` is False. ``None`` when the content is not a JSON object or array (or is malformed within what
    was read). Never raises for any content; errors of the source itself (``OSError``, a damaged blob) propagate.
    ``source`` may be a closed :class:`TopLevelFeed` that read the document as it was written: its answer is
    returned (the bounds it was made with apply, not these).
    """
    if isinstance(source, TopLevelFeed):
        return source.result()
    text = _Text(source.size, max_bytes, time.monotonic() + max_seconds)
    scan = _scan(text, max_entries, max_names)
    try:
        want = next(scan)
        while True:
            want = scan.send(source.read(text.read_bytes, want))
    except StopIteration as done:
        return done.value


def _scan(text: _Text, max_entries: int, max_names: int) -> Generator[int, bytes, TopLevel | None]:
    """:func:`top_level`'s scan, asking its driver for the document's bytes (see :meth:`_Text.fill`)."""
    found: TopLevel | None = None
    try:
        first = yield from text.peek()
        if first not in ("{", "["):
            return None
        found = TopLevel("object" if first == "{" else "array")
        if first == "[":  # its items are counted as an array member's are; the first describes them
            items = TopEntry(None, "array")
            found.entries.append(items)
            try:
                yield from _children(text, items, max_names)
            finally:
                found.count = items.count
        else:
            text.pos += 1
            if (yield from text.peek()) == "}":
                text.pos += 1
            else:
                yield from _members(text, found, max_entries, max_names)
        if (yield from text.peek()) not in ("", "{", "["):  # text after it, not another document (as jq reads a
            return None  # stream of them): a log of "[   1] CC x.o" lines, dmesg's "[    0.000000] Linux ..."
    except _Stop as stop:
        if found is None or str(stop) == "malformed" or text.at_end:
            return None
        found.complete = False
    except (ValueError, IndexError):
        return None
    found.read_bytes = text.read_bytes
    return found


class TopLevelFeed:
    """The top level of a JSON document read while the document is written, from the bytes the writer takes.

    Feed it the content's bytes in order (:meth:`feed`), then :meth:`close` it; ``top_level(feed)`` then answers
    what :func:`top_level` answers reading the whole content with the same bounds: the scan sees the same bytes in
    the same pieces (a piece is handed over once the bytes after it, or the content's end, are known). The time
    bound counts only the time spent scanning, not the writer's. The scan starts once more than ``start_after``
    bytes were fed (a shorter content is never scanned); the bytes held meanwhile are at most
    ``max(start_after, 1 MiB) + 1`` plus the borrowed part of the last chunk; nothing is held once the scan ends.

    Args:
        max_bytes, max_seconds, max_entries, max_names: as :func:`top_level`'s.
        start_after: bytes fed before the scan starts.
    """

    def __init__(self, max_bytes: int, max_seconds: float, start_after: int = 0, max_entries: int = 64,
                 max_names: int = 8) -> None:
        self.size = 0
        """Bytes fed so far (the content's size once closed)."""
        self._text = _Text(None, max_bytes, 0.0)
        self._left = max_seconds  # of the time bound
        self._start_after = start_after
        self._limits = (max_entries, max_names)
        self._pending: list[memoryview] = []
        self._pending_bytes = 0
        self._scan: Generator[int, bytes, TopLevel | None] | None = None
        self._want = 0
        self._started = self._done = self._closed = False
        self._answer: TopLevel | None = None
        self._error: BaseException | None = None
        self._tail: deque[bytes | memoryview] = deque()  # the last FEED_TAIL_BYTES at least (no more than a piece)
        self._tail_bytes = 0

    @property
    def started(self) -> bool:
        """Whether the scan started (more than ``start_after`` bytes were fed)."""
        return self._started

    def feed(self, chunk: bytes | bytearray | memoryview) -> None:
        """The content's next bytes (``bytes``, or a memoryview of ``bytes``, is borrowed; others are copied as far
        as they are kept)."""
        view = memoryview(chunk).cast("B")
        borrowed = isinstance(chunk, bytes) or isinstance(view.obj, bytes)
        self.size += len(view)
        self._keep_tail(view if borrowed else memoryview(bytes(view[-FEED_TAIL_BYTES:])))
        if self._done:
            return
        room = self._text.max_bytes + 1 - self._text.read_bytes - self._pending_bytes  # one more tells "more follow"
        if room > 0 and len(view):
            kept = view[:room]
            self._pending.append(kept if borrowed else memoryview(bytes(kept)))
            self._pending_bytes += len(kept)
        if (self._pending_bytes > self._want) if self._scan is not None else self.size > self._start_after:
            self._run()

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes of the content from ``offset``, of its last :data:`FEED_TAIL_BYTES` (or more) only:
        OSError for an offset before them."""
        start = self.size - self._tail_bytes
        if offset < start:
            raise OSError(f"a feed keeps its content's last {self._tail_bytes:,} bytes, from {start:,}: not {offset:,}")
        return b"".join(self._tail)[offset - start : offset - start + length]

    def _keep_tail(self, view: memoryview) -> None:
        self._tail.append(view[-FEED_TAIL_BYTES:])
        self._tail_bytes += len(self._tail[-1])
        while self._tail_bytes - len(self._tail[0]) >= FEED_TAIL_BYTES:
            self._tail_bytes -= len(self._tail.popleft())

    def close(self) -> None:
        """The content ended: finish the scan."""
        self._closed = True
        if not self._done and self.size > self._start_after:
            self._text.ends_at(self.size)
            self._run()
        self._finish()

    def result(self) -> TopLevel | None:
        """The answer (see :func:`top_level`); raises what the scan raised (a ``RecursionError`` on a document
        nested deeper than the parser goes) and ``ValueError`` before :meth:`close`."""
        if not self._closed:
            raise ValueError("the feed is not closed")
        if self._error is not None:
            raise self._error
        return self._answer

    def _run(self) -> None:
        deadline = time.monotonic() + self._left
        self._text.deadline = deadline
        try:
            if self._scan is None:
                self._started = True
                self._scan = _scan(self._text, *self._limits)
                self._want = next(self._scan)
            while self._pending_bytes > self._want or (self._closed and self._pending_bytes):
                self._want = self._scan.send(self._take(self._want))
            if self._closed:  # (never: the bytes it may ask for are held) an end it did not expect
                self._scan.send(b"")
        except StopIteration as done:
            self._answer = done.value
            self._finish()
        except Exception as exc:  # given back by result(), as top_level would have raised it
            self._error = exc
            self._finish()
        self._left = deadline - time.monotonic()

    def _take(self, want: int) -> bytes:
        parts, taken = [], 0
        while taken < want and self._pending:
            part = self._pending[0]
            if len(part) > want - taken:
                part, self._pending[0] = part[: want - taken], part[want - taken :]
            else:
                self._pending.pop(0)
            parts.append(part)
            taken += len(part)
        self._pending_bytes -= taken
        return b"".join(parts)

    def _finish(self) -> None:
        self._done = True
        self._pending, self._pending_bytes, self._scan = [], 0, None


def _members(text: _Text, found: TopLevel, max_entries: int, max_names: int) -> Generator[int, bytes, None]:
    """The members of the object whose ``{`` was just read (each value's first character told by
    :meth:`_Text.peek_now` and a scalar read by :meth:`_Text.value_now`: no generator per member unless the buffer
    runs out)."""
    while True:
        key = text.value_now()
        if key is _MORE:
            key = yield from text.value()
        colon = text.peek_now()
        if (colon if colon is not None else (yield from text.peek())) != ":":
            raise _Stop("expected ':'")
        text.pos += 1
        found.count += 1
        entry = TopEntry(str(key), cut=True)  # listed now: a value the scan stops inside is named, as far as read
        if len(found.entries) < max_entries:
            found.entries.append(entry)
        first = text.peek_now()
        if first is None:
            first = yield from text.peek()
        start = text.dropped + text.pos
        if first in "{[" and first:  # (its opening and first children read here: no generator unless it runs out)
            entry.kind = "object" if first == "{" else "array"
            text.pos += 1
            state, room = _open(text, entry, first == "{", max_names)
            if state is not _DONE:
                yield from _rest(text, entry, first == "{", max_names, state, room)
        else:
            entry.kind = "str" if first == '"' else "value"  # until read (a string the scan stops inside)
            value = text.value_now()
            if value is _MORE:
                value = yield from text.value()
            entry.kind = _kind(value)
            entry.count = len(value.encode("utf-8")) if isinstance(value, str) else 0
        entry.cut, entry.chars = False, text.dropped + text.pos - start
        following = text.peek_now()
        if following is None:
            following = yield from text.peek()
        text.pos += 1
        if following == "}":
            return
        if following != ",":
            raise _Stop("malformed")
