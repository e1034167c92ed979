"""Where the JSON part of a content is when a few lines of text come before or after it -- a command run with its
stderr merged (``cmd 2>&1``): ``ruff check --output-format=json`` prints ``warning: ...`` lines first, ``pip list
--format=json`` ends with pip's ``[notice] A new release of pip is available`` lines, a ``python -c`` prints a
``DeprecationWarning`` before its ``json.dumps``. The one place that decides it (:func:`json_part`): the shape
(:func:`scratchfs.api.shape.describe`) tells it, and the structure reads read that part only.

The text around the JSON is bounded: at most :data:`MAX_TEXT_LINES` lines and :data:`MAX_TEXT_BYTES` bytes before
it, and as many after it; anything else stays text. Only a content's first and last :data:`EDGE_BYTES` are looked
at, so the decision costs the same whatever the content's size.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from scratchfs.api.shape_words import clip, shape_limit, within
from scratchfs.engine.seekable import FormatError
from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument, NotJson, ScratchError
from scratchfs.foundation.text import plural

__all__ = ["EDGE_BYTES", "MAX_TEXT_BYTES", "MAX_TEXT_LINES", "PART_SHAPE", "JsonPart", "PartSource", "around_said",
           "described_part", "further_json", "further_said", "json_further", "json_part",
           "may_follow_text", "part_of", "part_said", "told_part"]

MAX_TEXT_LINES = 8
"""Most lines of text before (and, apart, after) a JSON part."""
MAX_TEXT_BYTES = 4096
"""Most bytes of text before (and, apart, after) a JSON part."""
EDGE_BYTES = MAX_TEXT_BYTES + 1024
"""Bytes of a content's start and end that :func:`json_part` reads."""
_FIRST_CHARS = 60  # of the first line of text, in the shape

_OPENS = re.compile(rb'\[\s*(?:["{\[\]\-\d]|true\b|false\b|null\b)|\[\s*$|\{\s*(?:"|}|$)')
"""A line that opens a JSON array or object (``[notice] ...`` and ``[WARN] ...`` do not: ``[n`` must be ``null``)."""
_CLOSES = re.compile(rb"[}\]][ \t\r]*$")
_CLOSING = re.compile(rb"[}\]][}\] \t\r]*$")
"""A line that ends a JSON document: brackets that close alone from its first column (a pretty-printed document's
last line: an inner one is indented, or ends with a comma), or a line that opens one there and ends with one (a
document on one line; not ``[notice] ... [x]``)."""
_OPENS_LINE = re.compile(rb"\n[{\[]")  # (a regex finds it ten times faster than bytes.find of the two bytes)


@dataclass(frozen=True, slots=True)
class JsonPart:
    """The JSON part of a content: bytes ``start`` to ``end`` (from 0, end excluded), after ``before`` lines of text
    and followed by ``after`` lines of text (each up to :data:`MAX_TEXT_LINES`); ``first``: the first line of that
    text, shortened (``""`` if none)."""

    start: int
    end: int
    before: int
    after: int
    first: str

    @property
    def size(self) -> int:
        """Bytes of the JSON part."""
        return self.end - self.start


def may_follow_text(head: bytes) -> bool:
    """Whether ``head`` (a content's first bytes) may be text lines then JSON: its first byte past blanks is not
    ``{``/``[`` and a line that opens one comes within :data:`MAX_TEXT_BYTES` -- the cheap test that plain text
    passes (its first lines only searched, no parse)."""
    start = head[:16].lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not start or start in b"{[":
        return False
    if head.find(b"{", 1, MAX_TEXT_BYTES + 1) < 0 and head.find(b"[", 1, MAX_TEXT_BYTES + 1) < 0:
        return False  # (the search's bracket, after its newline, within its bytes: memchr finds none in 0.1 us)
    return _OPENS_LINE.search(head, 0, MAX_TEXT_BYTES + 1) is not None


def json_part(head: bytes, tail: bytes, size: int) -> JsonPart | None:
    """The JSON part of a content of ``size`` bytes whose first bytes are ``head`` and last ``tail`` (each at least
    :data:`EDGE_BYTES`, or the whole content): a line that opens a JSON array or object after at most
    :data:`MAX_TEXT_LINES` lines and :data:`MAX_TEXT_BYTES` bytes of text, and text lines as bounded after the last
    line that closes one; ``None`` when no text is around it (JSON alone, text alone, more text than the bounds).
    The JSON in between is not parsed here (the shape parses it; a read meets its errors). Never raises."""
    start, before, first = 0, 0, ""
    if may_follow_text(head):
        found = _lead(head[:EDGE_BYTES])
        if found is None:
            return None
        start, before, first = found
    tail = tail[-EDGE_BYTES:]
    end, after, last_first = _trail(tail, size)
    if end <= start or not (before or after):
        return None
    return JsonPart(start, end, before, after, first or last_first)


def _lead(head: bytes) -> tuple[int, int, str] | None:
    """(where the JSON starts, lines of text before it, the first of them) in ``head``, or ``None``."""
    at, lines = 0, 0
    while lines < MAX_TEXT_LINES:
        stop = head.find(b"\n", at, MAX_TEXT_BYTES + 1)
        if stop < 0:
            return None
        at, lines = stop + 1, lines + 1
        line_end = head.find(b"\n", at, at + 256)
        if _OPENS.match(head, at, at + 256 if line_end < 0 else line_end):
            return at, lines, _short(head[: head.find(b"\n")])
    return None


def _trail(tail: bytes, size: int) -> tuple[int, int, str]:
    """(where the JSON ends, lines of text after it, the first of them) in ``tail``, the last bytes of a content
    of ``size`` bytes; ``(size, 0, "")`` when none are text (or one opens JSON: a record cut short, a stream's)."""
    base = size - len(tail)
    body = tail.rstrip(b" \t\r\n")
    at, lines = len(body), 0
    while True:
        stop = body.rfind(b"\n", 0, at)
        line = body[stop + 1 : at]
        opens = _OPENS.match(line) or (stop < 0 < base)  # (a line longer than the tail: its start unseen)
        if _CLOSING.match(line) or (opens and _CLOSES.search(line)):
            if not lines:
                return size, 0, ""
            text = tail[stop + 1 + len(line) :].lstrip(b" \t\r\n")  # (the lines after it, blank ones too)
            first = _short(text[: text.find(b"\n") % (len(text) + 1)])
            return base + stop + 1 + len(line), text.rstrip(b" \t\r\n").count(b"\n") + 1, first
        if line.strip():
            lines += 1
        if stop < 0 or lines > MAX_TEXT_LINES or len(body) - stop > MAX_TEXT_BYTES or _json_line(line):
            return size, 0, ""
        at = stop


def _json_line(line: bytes) -> bool:
    """Whether ``line`` (after a JSON document) is JSON rather than text: it opens a document (JSON lines, a
    record cut short, a stream), is a JSON value whole (``"a string"``, ``42``: a stream) or part of one."""
    line = line.strip()
    if line[:1] == b'"' or line[-1:] in (b",", b"{", b"[") or _OPENS.match(line):  # (a member or an item of one)
        return True
    if line[:1] not in b"-0123456789tfn" or not line:  # (no value starts so: no parse tried)
        return False
    try:
        LongIntegers().decode(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # (Python's NaN and Infinity are JSON here: numbers.PYTHON_CONSTANTS)
        return False
    return True


def _one_document(text: str) -> bool:
    """Whether ``text`` is one JSON document (blanks around it aside; Python's NaN and Infinity read)."""
    try:
        _, end = LongIntegers().raw_decode(text)
    except (ValueError, RecursionError):
        return False
    return not text[end:].strip()


def _short(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return text if len(text) <= _FIRST_CHARS else text[: _FIRST_CHARS - 1] + "…"


def part_said(part: JsonPart) -> str:
    """What a shape says of ``part`` and the text around it: ``"JSON document (27,573 bytes at byte 388, after 3
    lines of text: warning: The top-level…)"``."""
    around = []
    if part.before:
        around.append(f"after {plural(part.before, 'line')} of text")
    if part.after:
        around.append(f"followed by {plural(part.after, 'line')} of text")
    return f"JSON document ({plural(part.size, 'byte')} at byte {part.start:,}, {' and '.join(around)}: {part.first})"


PART_SHAPE = "JSON document ("
"""How the shape of a JSON part with text around it starts (:func:`part_said`): the reads read the part only."""


def told_part(shape: str | None, source: ContentSource) -> JsonPart | None:
    """The JSON part of an entry whose stored shape is ``shape`` (one that starts with :data:`PART_SHAPE`:
    :func:`part_of` its content, ``source``), else ``None``. Raises what ``source.read`` raises."""
    return part_of(source) if shape and shape.startswith(PART_SHAPE) else None


def around_said(handle: str, part: JsonPart) -> Advice:
    """What a structure read of ``part`` (of entry ``handle``) says once of the text around it, with the line reads
    that show it: ``"read the JSON document at bytes 226-27,961; 3 lines of text before it: read_handle(...,
    line=1, lines=3)"``."""
    said: list[str | Call] = [f"read the JSON document at bytes {part.start:,}-{part.end:,}"]
    if part.before:
        said += [f"; {plural(part.before, 'line')} of text before it: ",
                 Call.of("read_handle", handle=handle, line=1, lines=part.before)]
    if part.after:
        said += [f"; {plural(part.after, 'line')} of text after it: ",
                 Call.of("read_handle", handle=handle, line=-part.after, lines=part.after)]
    return Advice.of(*said)


_BLANKED = bytes(b if b == 0x0A else 0x20 for b in range(256))  # every byte a space but the newline


class PartSource:
    """A content source (:class:`~scratchfs.engine.structure.paging.ContentSource`) over ``source`` whose bytes
    outside ``part`` read as spaces (its newlines kept): what a structure read of the JSON part reads -- JSON with
    blanks around it, whose offsets and lines are the entry's own, so that what a parse error names (a byte, a
    line, the line read that shows it) is where it is in the entry."""

    def __init__(self, source: ContentSource, part: JsonPart) -> None:
        self.source, self.start, self.end, self.size = source, part.start, part.end, source.size

    def read(self, offset: int, length: int) -> bytes:
        return self._blanked(offset, self.source.read(offset, length))

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        for at, data in self.source.iter_frames(first_frame):
            yield at, self._blanked(at, data)

    def _blanked(self, at: int, data: bytes) -> bytes:
        if at >= self.start and at + len(data) <= self.end:
            return data
        cut, stop = min(len(data), max(0, self.start - at)), max(0, min(len(data), self.end - at))
        return (bytes(data[:cut]).translate(_BLANKED) + bytes(data[cut:max(cut, stop)])
                + bytes(data[max(cut, stop):]).translate(_BLANKED))


def part_of(source: ContentSource) -> JsonPart | None:
    """:func:`json_part` of the content ``source`` holds (its first and last :data:`EDGE_BYTES` read). Raises what
    ``source.read`` raises."""
    head = source.read(0, EDGE_BYTES)
    tail = head if source.size <= EDGE_BYTES else source.read(source.size - EDGE_BYTES, EDGE_BYTES)
    return json_part(head, tail, source.size)


def described_part(sample: bytes, size: int, source: ContentSource | None,
                   describe_json: Callable[[str, bool, int, ContentSource | None], Any]) -> Any:
    """The shape of a content whose first bytes are ``sample`` (of ``size`` bytes in all; ``source``: all of it,
    or ``None``) when it is a JSON part with text around it (:func:`json_part`): ``describe_json(the part's text
    in the sample, whether the sample holds all of it, its size, the content with the text blanked -- a
    :class:`PartSource` -- or None)``'s (:class:`~scratchfs.api.shape.Shape`), its text led by :func:`part_said`;
    ``None`` when there is no such part, when the sample holds all of it and it is not one JSON document, or when
    ``describe_json`` gives no shape of one document. Never raises (a ``source`` that fails to read: no part)."""
    complete = len(sample) >= size
    try:
        tail = sample if complete else source.read(max(0, size - EDGE_BYTES), EDGE_BYTES) if source else b""
    except (OSError, FormatError, ScratchError):  # (a source that fails to read tells no part: the sample's shape)
        return None
    part = json_part(sample, tail, size)
    if part is None:
        return None
    whole = part.end <= len(sample)
    text = sample[part.start : part.end].decode("utf-8", "replace")
    if whole and not _one_document(text):  # (code whose braces stand alone: no JSON parse of it as lines, a stream)
        return None
    said = part_said(part) + ": "
    with within(shape_limit() - len(said)):  # (the JSON's shape lists fewer keys, saying how many it left out)
        found = describe_json(text, whole, part.size, source if source is None or not part.start  # (a feed of the
                              else PartSource(source, part))  # writer's reads its start only: it stops at its end)
    if found is None or found.content_type != "json" or found.top is None:  # (one document: no JSON lines, stream)
        return None
    return dataclasses.replace(found, text=clip(said + found.text))


FURTHER_BYTES = 64 * 1024
"""Bytes of a text's start searched for JSON further on (:func:`json_further`)."""


def json_further(head: bytes) -> tuple[int, int] | None:
    """``(byte, line)`` (from 0 and from 1) of the first line of ``head`` past its first that opens a JSON array or
    object, within :data:`FURTHER_BYTES`: where a text that is no JSON at its start holds some further on (more
    text before it than :func:`json_part` takes); ``None`` when no such line is there. Never raises."""
    head = head[:FURTHER_BYTES]
    at = 0
    while (at := _next_open(head, at)) >= 0:
        line_end = head.find(b"\n", at, at + 256)
        if _OPENS.match(head, at, at + 256 if line_end < 0 else line_end):
            return at, head.count(b"\n", 0, at) + 1
    return None


def _next_open(head: bytes, at: int) -> int:
    """The start of the next line after byte ``at`` of ``head`` that starts with ``{`` or ``[``, else -1."""
    found = [n for n in (head.find(b"\n{", at), head.find(b"\n[", at)) if n >= 0]
    return min(found) + 1 if found else -1


def further_said(handle: str, head: bytes) -> Advice | None:
    """What a jq read's refusal of text ``handle`` (whose first bytes are ``head``) adds when JSON starts further on
    (:func:`json_further`): ``"a JSON value starts at byte 9,120 (line 41), after more text than a JSON part
    takes: read it by range, read_handle(..., offset=9120)"``; ``None`` when none does."""
    found = json_further(head)
    if found is None:
        return None
    at, line = found
    return Advice.of(f"a line that opens JSON starts at byte {at:,} (line {line:,}), after more text than jq is "
                     "given: read from it by range, ", Call.of("read_handle", handle=handle, offset=at))


def further_json(exc: InvalidArgument, handle: str, source: ContentSource) -> InvalidArgument:
    """``exc`` (a jq read's failure of entry ``handle``, content ``source``) with :func:`further_said` after it when
    it is a NotJson that stopped before a line further on that opens JSON (:func:`json_further`); ``exc``
    unchanged otherwise. Raises what ``source.read`` raises."""
    if not isinstance(exc, NotJson):
        return exc
    head = source.read(0, FURTHER_BYTES)
    found = json_further(head)
    if found is None or (exc.offset or 0) >= found[0]:
        return exc
    said = further_said(handle, head)
    return NotJson(Advice.of(exc, "; ", said), by_jq=exc.by_jq, line=exc.line, at_end=exc.at_end,
                   too_deep=exc.too_deep, column=exc.column, offset=exc.offset)
