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
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from scratchfs.engine.structure.paging import CHUNK_BYTES, ContentSource

__all__ = ["MAX_BUFFER_CHARS", "TopEntry", "TopLevel", "top_level"]

MAX_BUFFER_CHARS = 32 * 1024 * 1024
"""Most characters of text the scanner holds (a single second-level value larger than this ends the scan)."""

_WS = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


@dataclass(slots=True)
class TopEntry:
    """One top-level member of a JSON document: ``key`` (``None`` for an array's first item), ``kind`` (``object``,
    ``array``, ``str``, ``int``, ``float``, ``bool``, ``null``), ``count`` (keys or items; bytes of a ``str``) and
    ``names`` (an object's first keys; an array's first item's keys), ``item_kind`` (an array's first item's kind)."""

    key: str | None
    kind: str = "null"
    count: int = 0
    names: list[str] = field(default_factory=list)
    item_kind: str = ""


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


class _Text:
    """The document's text from a content source, decoded incrementally, consumed from the front."""

    def __init__(self, source: ContentSource, max_bytes: int, deadline: float) -> None:
        self.source, self.max_bytes, self.deadline = source, min(max_bytes, source.size), deadline
        self.read_bytes = 0
        self.text = ""
        self.pos = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    @property
    def at_end(self) -> bool:
        return self.read_bytes >= self.source.size

    def fill(self) -> None:
        """Append the next chunk. Raises _Stop at the bounds."""
        if self.read_bytes >= self.max_bytes or time.monotonic() > self.deadline:
            raise _Stop("bound")
        data = self.source.read(self.read_bytes, min(CHUNK_BYTES * 4, self.max_bytes - self.read_bytes))
        if not data:
            raise _Stop("end")
        self.read_bytes += len(data)
        if self.pos > CHUNK_BYTES:
            self.text, self.pos = self.text[self.pos :], 0
        if len(self.text) - self.pos > MAX_BUFFER_CHARS:
            raise _Stop("a value larger than the buffer")
        try:
            self.text += self.decoder.decode(data, final=self.at_end)
        except UnicodeDecodeError:
            raise _Stop("not UTF-8") from None

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the document)."""
        while True:
            self.pos = _WS.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                return self.text[self.pos]
            if self.at_end:
                return ""
            self.fill()

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise _Stop(f"expected {char!r}")
        self.pos += 1

    def value(self) -> Any:
        """Decode the next value whole (refilling until it is complete)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except ValueError:
                if self.at_end:
                    raise _Stop("malformed") from None
                self.fill()
                continue
            if end == len(self.text) and not self.at_end:
                self.fill()  # a number may go on in the next chunk
                continue
            self.pos = end
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


def _children(text: _Text, entry: TopEntry, max_names: int) -> None:
    """Walk the container that starts at the cursor, counting its children (each decoded whole by ``raw_decode``).

    The inner loop works on local variables and commits ``text.pos`` after each child and its separator; when the
    buffer runs out (``IndexError``, or ``ValueError`` from a value cut by the buffer's end) it is refilled and the
    child read again from its start."""
    is_object = text.peek() == "{"
    closing = "}" if is_object else "]"
    text.pos += 1
    if text.peek() == closing:
        text.pos += 1
        return
    decode = _DECODER.raw_decode
    names = entry.names
    while True:
        t, pos = text.text, text.pos
        n = len(t)
        try:
            while True:
                while t[pos] in " \t\r\n":
                    pos += 1
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
                    raise IndexError  # a number may go on in the next chunk
                while t[pos] in " \t\r\n":
                    pos += 1
                following = t[pos]
                pos += 1
                entry.count += 1
                text.pos = pos
                if is_object:
                    if len(names) < max_names:
                        names.append(str(key))
                elif entry.count == 1:
                    entry.item_kind = _kind(child)
                    if isinstance(child, dict):
                        names[:] = [str(k) for k in list(child)[:max_names]]
                if following == closing:
                    return
                if following != ",":
                    raise _Stop("malformed")
        except (IndexError, ValueError):
            if text.at_end:
                raise _Stop("malformed") from None
            text.fill()


def _member(text: _Text, key: str | None, max_names: int) -> TopEntry:
    entry = TopEntry(key)
    first = text.peek()
    if first in "{[" and first:
        entry.kind = "object" if first == "{" else "array"
        _children(text, entry, max_names)
    else:
        value = text.value()
        entry.kind = _kind(value)
        entry.count = len(value.encode("utf-8")) if isinstance(value, str) else 0
    return entry


def top_level(source: ContentSource, max_bytes: int = 256 * 1024 * 1024, max_seconds: float = 2.0,
              max_entries: int = 64, max_names: int = 8) -> TopLevel | None:
    """The top level of the JSON document in ``source``, reading at most ``max_bytes`` and for about
    ``max_seconds``; past either bound (or past a second-level value larger than :data:`MAX_BUFFER_CHARS`)
    ``complete`` is False. ``None`` when the content is not a JSON object or array (or is malformed within what
    was read). Never raises for any content; errors of the source itself (``OSError``, a damaged blob) propagate.
    """
    text = _Text(source, max_bytes, time.monotonic() + max_seconds)
    found: TopLevel | None = None
    try:
        first = text.peek()
        if first not in ("{", "["):
            return None
        found = TopLevel("object" if first == "{" else "array")
        if first == "[":  # its items are counted as an array member's are; the first describes them
            items = TopEntry(None, "array")
            found.entries.append(items)
            try:
                _children(text, items, max_names)
            finally:
                found.count = items.count
        else:
            text.pos += 1
            if text.peek() == "}":
                text.pos += 1
            else:
                _members(text, found, max_entries, max_names)
    except _Stop as stop:
        if found is None or str(stop) == "malformed" or text.at_end:
            return None
        found.complete = False
    except (ValueError, IndexError):
        return None
    found.read_bytes = text.read_bytes
    return found


def _members(text: _Text, found: TopLevel, max_entries: int, max_names: int) -> None:
    while True:
        key = text.value()
        text.expect(":")
        found.count += 1
        entry = _member(text, str(key), max_names)
        if len(found.entries) < max_entries:
            found.entries.append(entry)
        following = text.peek()
        text.pos += 1
        if following == "}":
            return
        if following != ",":
            raise _Stop("malformed")
