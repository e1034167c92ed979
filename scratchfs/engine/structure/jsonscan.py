"""The scanner of the streamed JSON path reads (:mod:`~scratchfs.engine.structure.jsonstream`): a window on a
document in a content source, read ``CHUNK_BYTES`` at a time, that reads tokens (checked: strings, numbers, literals),
keys, values and whole values skipped -- by ``json`` (C) when a container ends within a window, else member by member
(past :data:`_DESCEND` levels, by its brackets and the tokens between them); and jq's short forms of values for its
error messages. Tokens as RFC 8259 (the JSON grammar) writes them; offsets are bytes of the document.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import CHUNK_BYTES, ContentSource, read_whole
from scratchfs.foundation import text as texts
from scratchfs.foundation.errors import NotJson

__all__ = ["KINDS", "OPEN", "REST_ARRAY", "REST_OBJECT", "SCALAR", "TOKEN_CHARS", "VALUE_START", "Scan", "jq_short",
           "jq_string", "not_json", "previous_byte", "read_json_whole", "refuse_unlike_json", "scalar_text",
           "utf8_text"]

_WS = re.compile(rb"[ \t\r\n]*")
_WS_TEXT = re.compile(r"[ \t\r\n]*")
_STR = rb'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUM = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|-?Infinity"
"""A number, or NaN and the infinities as Python's ``json`` writes them (JSON here: numbers.PYTHON_CONSTANTS)."""
_STRING = re.compile(_STR)
SCALAR = re.compile(_STR + b"|" + _NUM + rb"|true|false|null")
"""A string, number or literal token."""
_FLAT = re.compile(rb"(?:[ \t\r\n,:]+|" + _STR + b"|" + _NUM + rb"|true|false|null)*")
_PARTIAL = re.compile(rb'(?:"[^"\\]*(?:\\.[^"\\]*)*\\?|[-+.0-9eEtrufalsnNIiy]*)\Z')
"""What may be the start of a token cut at the end of what has been read so far."""
_B = rb"[ \t\r\n]*"
_ONE = b"(?:" + _STR + b"|" + _NUM + rb"|true|false|null)"
REST_ARRAY = re.compile(b"(?:" + _B + b"," + _B + _ONE + b")*")
"""The next items of an array that are scalars, in one match."""
REST_OBJECT = re.compile(b"(?:" + _B + b"," + _B + _STR + _B + b":" + _B + _ONE + b")*")
"""The next members of an object whose values are scalars, in one match."""
_WINDOWS = (256, 8 * 1024, 256 * 1024)
"""Bytes from a container's start within which ``json`` is asked to parse it whole, in turn."""
_DESCEND = 32
"""Levels of a large value skipped member by member; deeper, by brackets."""


_DECODER = LongIntegers()  # (NaN and Infinity as Python writes them read: numbers.PYTHON_CONSTANTS)
KINDS = {ord("{"): "object", ord("["): "array", ord('"'): "string", ord("t"): "boolean", ord("f"): "boolean",
          ord("n"): "null"}
OPEN = {ord("["): ord("]"), ord("{"): ord("}")}
_CLOSE = frozenset(b"]}")
VALUE_START = frozenset(b'{["-0123456789tfnNI')
_BLANK = frozenset(b" \t\r\n")
TOKEN_CHARS = frozenset(b"-+.0123456789eEtrufalsnNIiy")
_TAIL = re.compile(rb"[-+.0-9eE]*\Z")
"""What may follow a token match at the end of what has been read, where the token may go on."""


def not_json(offset: int, what: str) -> NotJson:
    """The error of a document that is not JSON at byte ``offset`` (``what`` is wrong there), kept as its
    ``offset``."""
    return NotJson(f"the document is not valid JSON: {what} at byte {offset:,}", offset=offset)


_HEAD_BYTES = 4096
"""Bytes at a document's start :func:`refuse_unlike_json` looks at."""


def refuse_unlike_json(source: ContentSource) -> None:
    """Refuse at once a document whose first bytes cannot begin JSON (binary data, most text): after a UTF-8 byte
    order mark and whitespace, a byte that starts no JSON value, a container whose next byte cannot follow its
    opening, or a number or literal that is not one or runs into a byte no value follows -- a jq read would read,
    decode and hand up to 64 MiB to jq first, and run to its time limit. A start that may be JSON (a string, ``NaN``
    or ``Infinity``, which the read names) passes: the parser decides. Reads at most :data:`_HEAD_BYTES` bytes.

    Raises:
        NotJson (an InvalidArgument): ``"the content is not JSON: it starts with '.' at byte 0, which starts no JSON
            value"`` (:func:`_unlike`), naming the content's byte and its offset.
    """
    head = source.read(0, _HEAD_BYTES)
    pos = _WS.match(head, 3 if head.startswith(b"\xef\xbb\xbf") else 0).end()
    if pos >= len(head) or head[pos] in b'"NI':
        return
    first = head[pos]
    if first not in VALUE_START:
        starts = "it starts with" if pos == 0 else "its first character past blanks is"
        raise _unlike(pos, f"{starts} {_shown(first)} at byte {pos:,}, which starts no JSON value")
    if first in OPEN:
        after = _WS.match(head, pos + 1).end()
        fits = (b'"}' if first == ord("{") else VALUE_START | {ord("]")} | frozenset(b"NI"))
        if after < len(head) and head[after] not in fits:
            raise _unlike(after, f"{_shown(head[after])} at byte {after:,} cannot follow the {chr(first)!r} it "
                                 "starts with")
        return
    token = SCALAR.match(head, pos)
    end = pos if token is None else token.end()
    if end < len(head) and head[end] not in _BLANK | VALUE_START | _CLOSE | frozenset(b",NI"):
        raise _unlike(end, f"the value it starts with runs into {_shown(head[end])} at byte {end:,}, which no JSON "
                           "value holds")


def _unlike(offset: int, words: str) -> NotJson:
    """The error of content whose start is no JSON (:func:`refuse_unlike_json`): ``"the content is not JSON: "`` and
    ``words``, which quote the content's bytes as the content's (``it starts with '.' at byte 0``: a filter of
    ``jq="."`` does not read as the byte named), kept as its ``offset``."""
    return NotJson(f"the content is not JSON: {words}", offset=offset)


_CONTROL = bytes(b for b in range(0x20) if b not in b"\t\n\r")
"""Bytes no JSON text holds anywhere (RFC 8259, sections 2 and 7: control characters are escaped in a string, and
only tab, newline and carriage return are whitespace): one of them is where JSON has stopped."""
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL)
_CONTROL_RE = re.compile(b"[" + re.escape(_CONTROL) + b"]")
_MOST_VALUES = 1000  # JSON values (jq reads a stream of them) parsed to find where JSON stops, before the control byte


def read_json_whole(source: ContentSource, limit: int) -> bytes:
    """The whole document (at most ``limit`` bytes), read frame by frame, each checked for a byte no JSON text holds
    (:data:`_CONTROL`, a C ``translate`` at about 800 MB/s): JSON that turns into binary data -- a document followed
    by a compressed or binary payload, or binary data that starts like JSON (which :func:`refuse_unlike_json`
    passes) -- is refused at the frame where the binary data starts, not after reading, decoding and handing up to
    ``limit`` bytes to jq (which then failed or ran to its time limit).

    Raises:
        InvalidArgument: over ``limit`` (naming the bound, as :func:`~.paging.read_whole`); NotJson, one, when the
            document holds a control byte: ``"the document is not valid JSON: ..."`` naming the byte offset where
            its JSON stops (the end of its last whole value, or where the parser stops), that control byte and its
            offset, and the byte range that holds the JSON.
    """
    if source.size > limit:
        return read_whole(source, limit, "jq")  # (raises naming the bound)
    frames: list[bytes] = []
    for _, frame in source.iter_frames():
        frames.append(frame)
        if frame.translate(None, _NOT_CONTROL):
            data = b"".join(frames)
            raise _binary_after_json(data, _CONTROL_RE.search(data, len(data) - len(frame)).start())
    return b"".join(frames)


def _binary_after_json(data: bytes, control: int) -> NotJson:
    """The error of a document whose first control byte is at ``control``: where JSON stops before it, found by
    ``json`` (C) over the bytes before it (each byte that is no UTF-8 kept as one character, so offsets map back):
    the end of its last whole value, or where the parser stops inside its first."""
    text = data[:control].decode("utf-8", "surrogateescape")
    pos, end, values = _WS_TEXT.match(text, 1 if text.startswith("\ufeff") else 0).end(), 0, 0
    while pos < len(text) and values < _MOST_VALUES:
        try:
            end = _DECODER.raw_decode(text, pos)[1]
        except (ValueError, RecursionError) as exc:
            pos = getattr(exc, "pos", pos) if not values else pos
            break
        pos, values = _WS_TEXT.match(text, end).end(), values + 1
    stop = len(text[: end if values else pos].encode("utf-8", "surrogateescape"))
    where = (f"past byte {stop:,}, where its {'last whole ' if values > 1 else ''}JSON value ends" if values
             else f"from byte {stop:,} on, inside its first value")
    return NotJson(
        f"the document is not valid JSON {where} (byte 0x{data[control]:02x} at byte {control:,} is a control "
        f"byte no JSON text holds: binary data follows), so jq reads none of it: read its JSON by byte range "
        f"(offset=0, length={max(1, stop)}) and the rest from offset={stop}")


def _shown(byte: int) -> str:
    """A byte as an error names it: a printable ASCII character quoted, else its hex value."""
    return repr(chr(byte)) if 0x20 < byte < 0x7F else f"byte 0x{byte:02x}"


class Scan:
    """A window on the document: ``buf`` holds its bytes from offset ``base``; ``pos`` indexes ``buf``. Bytes from
    ``hold`` (an index, or ``None``) on are kept when the window moves (a value being read). Every method that reads on
    raises NotJson (:func:`not_json`) where the document is not JSON."""

    def __init__(self, source: ContentSource, offset: int) -> None:
        self.source, self.buf, self.base, self.pos, self.hold = source, b"", offset, 0, None

    @property
    def offset(self) -> int:
        """The document's byte offset of ``pos``."""
        return self.base + self.pos

    def more(self) -> bool:
        """Read on (at least as much as is held past ``pos``, so a long token costs linear time); False at the end."""
        end = self.base + len(self.buf)
        if end >= self.source.size:
            return False
        keep = self.pos if self.hold is None else min(self.hold, self.pos)
        data = self.source.read(end, max(CHUNK_BYTES, len(self.buf) - keep))
        if not data:
            return False
        self.buf, self.base = self.buf[keep:] + data, self.base + keep
        self.pos -= keep
        if self.hold is not None:
            self.hold -= keep
        return True

    def peek(self) -> int | None:
        """The next byte that is not blank (``pos`` at it), or ``None`` at the end."""
        if self.pos < len(self.buf) and self.buf[self.pos] not in _BLANK:
            return self.buf[self.pos]
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return None

    def need(self, what: str) -> int:
        """:meth:`peek`, where the document must go on (``what`` is what it should hold)."""
        byte = self.peek()
        if byte is None:
            raise not_json(self.offset, f"it ends where {what} should be")
        return byte

    def token(self, pattern: re.Pattern[bytes], what: str) -> bytes:
        """The token at ``pos`` matching ``pattern`` (read on until it is whole), ``pos`` past it."""
        while True:
            found = pattern.match(self.buf, self.pos)
            if (found is None or _TAIL.match(self.buf, found.end())) and self.more():
                continue  # what is read may end inside the token
            if found is None:
                raise not_json(self.offset, f"{what} expected")
            self.pos = found.end()
            return found.group()

    def expect(self, byte: int, what: str) -> None:
        """Past ``byte`` (a bracket, a colon), which must come next (``what`` names it in the error)."""
        if self.need(what) != byte:
            raise not_json(self.offset, f"{what} expected, {chr(self.buf[self.pos])!r} found")
        self.pos += 1

    def skip(self) -> None:
        """Past the value at ``pos`` (blanks first). A container is parsed whole by ``json`` (C) when it ends within
        :data:`_WINDOWS`; a larger one member by member, each again so, and past :data:`_DESCEND` levels by its
        brackets (which must match) and the tokens between them."""
        closers: list[int] = []
        while True:
            byte = self.need("a value")
            if byte not in OPEN:
                self.token(SCALAR, "a value")
            elif len(closers) >= _DESCEND:
                self.brackets()
            elif not self.decoded():
                self.pos += 1
                closers.append(OPEN[byte])
                if self.need("a value or a closing bracket") != closers[-1]:
                    if byte == ord("{"):
                        self.key_only()
                    continue
                self.pos += 1
                closers.pop()
            while closers:
                if self.comma(closers[-1]):
                    if closers[-1] == ord("}"):
                        self.key_only()
                    break
                closers.pop()
            if not closers:
                return

    def decoded(self) -> bool:
        """Past the container at ``pos`` when ``json`` parses it whole within one of :data:`_WINDOWS` bytes."""
        for window in _WINDOWS:
            while len(self.buf) - self.pos < window and self.more():
                pass
            text = self.buf[self.pos : self.pos + window].decode("utf-8", "surrogateescape")
            try:
                end = _DECODER.raw_decode(text)[1]
            except (ValueError, RecursionError):
                if len(text) < window:
                    return False
                continue
            self.pos += end if text.isascii() else len(text[:end].encode("utf-8", "surrogateescape"))
            return True
        return False

    def comma(self, closer: int) -> bool:
        """Past a ``,`` (True, at the next member) or the container's closing bracket (False)."""
        byte = self.need("',' or a closing bracket")
        if byte not in (ord(","), closer):
            raise not_json(self.offset, f"',' or {chr(closer)!r} expected, {chr(byte)!r} found")
        self.pos += 1
        if byte == closer:
            return False
        self.need("a value")
        return True

    def key_only(self) -> None:
        """Past the key at ``pos`` and its colon."""
        self.token(_STRING, "a key")
        self.expect(ord(":"), "':'")

    def brackets(self) -> None:
        """Past the container at ``pos`` by its brackets (which must match) and the tokens between them."""
        closers: list[int] = []
        while True:
            byte = self.buf[self.pos]
            if byte in OPEN:
                closers.append(OPEN[byte])
            elif byte in _CLOSE and closers and closers[-1] == byte:
                closers.pop()
                if not closers:
                    self.pos += 1
                    return
            else:
                raise not_json(self.offset, f"unexpected {chr(byte)!r}")
            self.pos += 1
            self.flat()

    def flat(self) -> None:
        """Past the strings, numbers, literals, commas, colons and blanks at ``pos``, to the next bracket."""
        while True:
            end = _FLAT.match(self.buf, self.pos).end()
            if end < len(self.buf) and (self.buf[end] in OPEN or self.buf[end] in _CLOSE):
                self.pos = end
                return
            while end > self.pos and self.buf[end - 1] in TOKEN_CHARS:  # a number may go on: read it again
                end -= 1
            self.pos = end
            if not (_PARTIAL.match(self.buf, end) and self.more()):
                raise not_json(self.offset, "it ends inside a value" if self.pos >= len(self.buf)
                           else f"unexpected {chr(self.buf[self.pos])!r}")

    def value(self) -> bytes:
        """The text of the value at ``pos`` (blanks skipped), ``pos`` past it."""
        self.need("a value")
        self.hold = self.pos
        try:
            self.skip()
            return self.buf[self.hold : self.pos]
        finally:
            self.hold = None

    def key(self) -> str:
        """The key at ``pos`` and the colon after it."""
        self.need("a key")
        raw = self.token(_STRING, "a key")
        self.expect(ord(":"), "':'")
        text = utf8_text(raw, self.offset)
        return text[1:-1] if "\\" not in text else json.loads(text)


def utf8_text(raw: bytes, offset: int) -> str:
    """``raw`` decoded. Raises NotJson: not UTF-8 (the value ends before byte ``offset``)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotJson(f"the document is not UTF-8 text: {exc} (in the value before byte {offset:,})") from None


def jq_short(raw: bytes, string: bool) -> str:
    """jq's short form of a value in an error message: its JSON text, when longer than 29 bytes cut (not inside a
    character) to 26 bytes and ``...`` (a string: 25 bytes and ``..."``)."""
    if len(raw) <= 29:
        return raw.decode("utf-8", "replace")
    cut = 25 if string else 26
    while cut > 0 and raw[cut] & 0xC0 == 0x80:
        cut -= 1
    return raw[:cut].decode("utf-8", "replace") + ('..."' if string else "...")


def jq_string(text: str) -> bytes:
    """jq's JSON text of a string (non-ASCII kept; DEL escaped as jq does; a lone surrogate, which no UTF-8 carries,
    as its ``\\ud800`` escape)."""
    return texts.utf8_text(json.dumps(text, ensure_ascii=False)).replace("\x7f", "\\u007f").encode("utf-8")


def scalar_text(raw: bytes) -> bytes:
    """A scalar's text as jq writes it: numbers in their canonical form (``1e400`` -> ``1E+400``), strings
    re-escaped as jq escapes them."""
    if raw[:1] == b'"':
        return jq_string(json.loads(utf8_text(raw, 0)))
    if raw[:1] in (b"t", b"f", b"n"):
        return raw
    return str(Decimal(raw.decode("ascii"))).encode("ascii")


def previous_byte(source: ContentSource, offset: int) -> int | None:
    """The last byte before ``offset`` that is not blank, or ``None``."""
    window = 64
    while offset > 0:
        start = max(0, offset - window)
        chunk = source.read(start, offset - start).rstrip(b" \t\r\n")
        if chunk:
            return chunk[-1]
        offset, window = start, min(window * 2, CHUNK_BYTES)
    return None
