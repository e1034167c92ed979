"""Text in a single-byte encoding -- Latin-1 (ISO 8859-1) or cp1252 (windows-1252) -- or in UTF-16 read as such:
the ``encoding`` argument of ``read_handle``'s byte, line and search reads. UTF-8 is the default, and every other
read shows a byte that is not UTF-8 as U+FFFD; with ``encoding="latin-1"`` or ``"cp1252"`` each byte is one
character, so a reply's offsets and lengths are exact byte counts of what its ``data`` shows, and a search's
``match`` / ``pattern`` is written in that encoding (its non-ASCII characters sought as their one byte each).

With ``"utf-16le"`` or ``"utf-16be"`` (``"utf-16"``: the one its byte order mark names, :func:`resolve_bom`) a read
shows whole code units from an even offset (a surrogate pair never split, :func:`wide_piece`), offsets and lengths
still bytes; a ``match`` is sought as its UTF-16 bytes, at even offsets only (``ignore_case``: each character's case
variants, as ``re.IGNORECASE`` over the text); a ``pattern`` is refused, naming ``match`` (a class or a ``.`` would
match one byte, not one character).

Sources: RFC 2781 (UTF-16, its byte order mark and surrogate pairs); ISO/IEC 8859-1 (bytes 0x00-0xFF are
U+0000-U+00FF, Python's ``latin-1`` codec); windows-1252 as the WHATWG Encoding Standard defines it
(https://encoding.spec.whatwg.org/index-windows-1252.txt): Python's ``cp1252`` codec, whose five undefined bytes
(0x81, 0x8D, 0x8F, 0x90, 0x9D) are U+0081... as in the WHATWG index, so that every byte is one character.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Callable

from scratchfs.engine.case_variants import alternation, variants
from scratchfs.engine.pattern_syntax import MAX_PATTERN_BYTES
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.checks import check_needle
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import plural

__all__ = [
    "ENCODINGS",
    "WIDE",
    "Written",
    "byte_pattern",
    "case_bound",
    "check_encoding",
    "decode_single",
    "encode_needle",
    "least_bytes",
    "newline_ends",
    "resolve_bom",
    "search_form",
    "sought_in",
    "wide_piece",
]

ENCODINGS = ("utf-8", "latin-1", "cp1252", "utf-16le", "utf-16be", "utf-16")
"""The encodings a read takes (``utf-8``: the default, each invalid byte shown as U+FFFD)."""
WIDE = {"utf-16le": "utf-16-le", "utf-16be": "utf-16-be"}
"""The two-byte encodings a read takes, to Python's codec of each."""
_LONE = re.compile("[\ud800-\udfff]")
"""A surrogate code unit left alone (no pair), which a read shows as U+FFFD."""
_CP1252 = str.maketrans({byte: bytes([byte]).decode("cp1252") for byte in range(0x80, 0xA0)
                         if byte not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)})
"""Latin-1's characters 0x80-0x9F (C1 controls) as cp1252 maps their bytes."""
_GROUP_NAME = re.compile(r"\(\?(?:P?<(?![=!])[^>]*>|P=[^)]*\)|\([^)]*\))")
"""A group's name where a pattern names one, ``(?P<name>``, ``(?P=name)`` or ``(?(name)``, at a ``(``."""


class Written(str):
    """A pattern the store wrote from a call's case-blind ``match=`` (:func:`search_form`; ``match``: that text):
    held to :data:`~scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES`, the bound of a case-blind rewrite, not to
    the limit of a pattern the caller writes (:data:`~scratchfs.foundation.limits.MAX_NEEDLE_BYTES`), refused past it
    as the ``match=`` it is (:func:`case_bound`), and named as that match where a search stops (a time limit)."""

    match: str

    def __new__(cls, pattern: str, match: str) -> Written:
        written = super().__new__(cls, pattern)
        written.match = match
        return written

    def __reduce__(self):
        return (type(self), (str(self), self.match))


def case_bound(match: str, encoding: str, size: int | None = None) -> InvalidArgument:
    """The refusal of a case-blind ``match`` (text) whose pattern, each character written as all its case variants
    in ``encoding`` (``"utf-8"`` or one of :data:`ENCODINGS`), is ``size`` bytes (``None``: not known, past the
    bound), more than :data:`~scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES`: what to do instead. Raises
    nothing."""
    said = f"match= is {plural(len(match), 'character')}, " + (
        f"{plural(size, 'byte')} of pattern once each is written as all its case variants in {encoding}, more than "
        f"the limit of {MAX_PATTERN_BYTES}" if size is not None else f"more than the limit of {MAX_PATTERN_BYTES} "
        f"bytes of pattern once each is written as all its case variants in {encoding}")
    return InvalidArgument(f"{said}: search a shorter part of it with ignore_case, or the text as it is written "
                           "without ignore_case")


def check_encoding(encoding: object) -> str | None:
    """``encoding`` checked: ``None`` for UTF-8 (``None`` or ``"utf-8"``: the reads' own rule), else ``"latin-1"``
    or ``"cp1252"``. Raises InvalidArgument for anything else."""
    if encoding is None or encoding == "utf-8":
        return None
    if encoding not in ENCODINGS:
        shown = encoding[:40] if isinstance(encoding, str) else type(encoding).__name__
        raise InvalidArgument(f"encoding must be one of {', '.join(ENCODINGS)}, not {shown!r}")
    return str(encoding)


def resolve_bom(encoding: str, head: bytes, asked: dict[str, object] | None = None) -> str:
    """``encoding`` (a :func:`check_encoding` result), but ``"utf-16"`` as the byte order mark of ``head`` (the
    content's first two bytes) names it: ``ff fe`` ``"utf-16le"``, ``fe ff`` ``"utf-16be"``. Raises InvalidArgument
    for ``"utf-16"`` of content with no mark, naming the read ``asked`` (a ``read_handle`` call's arguments, ``None``
    for those not given) with each of the two as calls (``None``: in words)."""
    if encoding != "utf-16":
        return encoding
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16le" if head[:2] == b"\xff\xfe" else "utf-16be"
    said = (f"encoding='utf-16' takes the byte order of the content's mark (ff fe or fe ff), and it starts "
            f"{head[:2].hex(' ') or 'empty'}: give encoding='utf-16le' or 'utf-16be'")
    if asked is None:
        raise InvalidArgument(said)
    kept = {name: value for name, value in asked.items() if name != "encoding"}
    le, be = (Call.of("read_handle", **kept, encoding=wide).shown_when_long(f"the same read with encoding='{wide}'")
              for wide in WIDE)
    raise InvalidArgument(Advice.of(said, ": ", le, " or ", be))


def _wide_text(raw: bytes, encoding: str) -> tuple[str, int]:
    """``(text, bytes shown as U+FFFD)`` of ``raw`` in a :data:`WIDE` encoding: a lone surrogate or odd last byte."""
    even = len(raw) - len(raw) % 2
    text = raw[:even].decode(WIDE[encoding], "surrogatepass")
    lone = len(_LONE.findall(text))
    text = _LONE.sub("\ufffd", text) + "\ufffd" * (len(raw) - even)
    return text, 2 * lone + len(raw) - even


def _unit(raw: bytes, at: int, encoding: str) -> int:
    return int.from_bytes(raw[at:at + 2], "little" if encoding == "utf-16le" else "big")


def wide_piece(raw: bytes, offset: int, size: int, encoding: str, before: bytes | None = b""
               ) -> tuple[int, int, str, int]:
    """``(skip, length, text, replaced)``: what a read shows of ``raw`` (content bytes from ``offset``; ``size``: the
    byte its read ends at, content's end or a bound) in a :data:`WIDE` encoding: from the first even offset (after a
    low surrogate whose pair started in ``before``, the bytes just before; ``None``: unknown, a search's context)
    through the last whole code unit, never the first half of a pair, unless the content ends there (then its last
    bytes too, as U+FFFD). ``replaced``: bytes shown as U+FFFD. Never raises."""
    skip = offset % 2
    prior = None if before is None else (before + raw[:skip])[-2:]  # (the code unit before the first whole one)
    if len(raw) >= skip + 2 and 0xDC00 <= _unit(raw, skip, encoding) <= 0xDFFF and (
            prior is None or (len(prior) == 2 and 0xD800 <= _unit(prior, 0, encoding) <= 0xDBFF)):
        skip += 2  # (the second half of a pair begun before: the read before shows it)
    end = len(raw)
    if offset + len(raw) < size:
        end = skip + (len(raw) - skip) // 2 * 2
        if end - skip >= 2 and 0xD800 <= _unit(raw, end - 2, encoding) <= 0xDBFF:
            end -= 2  # (a pair's first half: its pair is read next)
    end = max(end, skip)
    text, replaced = _wide_text(raw[skip:end], encoding)
    return skip, end - skip, text, replaced


def newline_ends(data: bytes, offset: int, encoding: str) -> list[int]:
    """Indexes in ``data`` (content bytes from ``offset``) just after each newline code unit of ``encoding``
    (``"utf-16le"`` or ``"utf-16be"``) at an even content offset. Never raises."""
    skip = offset % 2
    units = array("H", data[skip : skip + (len(data) - skip) // 2 * 2])
    unit = 0x000A if (encoding == "utf-16le") == (sys.byteorder == "little") else 0x0A00
    ends, at = [], -1
    for _ in range(units.count(unit)):
        at = units.index(unit, at + 1)
        ends.append(skip + 2 * at + 2)
    return ends


def least_bytes(encoding: str | None) -> int:
    """The fewest bytes a read takes to show one character in ``encoding`` (1: a single-byte one; UTF-16: an odd
    byte, a pair's second half skipped, and a pair)."""
    return 7 if encoding in WIDE else 1


def decode_single(raw: bytes, encoding: str) -> str:
    """``raw`` as text of ``encoding`` (:data:`ENCODINGS` but UTF-8): one character a byte, or UTF-16 (a lone
    surrogate shown as U+FFFD)."""
    if encoding in WIDE:
        return _wide_text(raw, encoding)[0]
    text = raw.decode("latin-1")
    return text.translate(_CP1252) if encoding == "cp1252" else text


_BYTES_OF = {encoding: {decode_single(bytes([byte]), encoding): byte for byte in range(256)}
             for encoding in ENCODINGS[1:]}
"""Each single-byte encoding's characters to their bytes: the inverse of :func:`decode_single`, so a search seeks
every character a read shows (cp1252's five bytes its codec leaves undefined among them, U+0081...)."""


def _byte_of(char: str, encoding: str) -> int:
    """The one byte ``char`` is in ``encoding``, as a read shows it (:data:`_BYTES_OF`). Raises InvalidArgument when
    it is none."""
    byte = _BYTES_OF[encoding].get(char)
    if byte is None:
        raise InvalidArgument(f"{char!r} (U+{ord(char):04X}) is no character of {encoding}, the encoding given: "
                              "it cannot be in content written in it")
    return byte


def encode_needle(text: str | bytes, encoding: str) -> bytes:
    """A search's ``match`` as the bytes of ``encoding`` (bytes are taken as they are). Raises InvalidArgument for a
    character the encoding has no byte for."""
    if isinstance(text, bytes):
        return text
    if encoding in WIDE:
        return text.encode(WIDE[encoding], "surrogatepass")
    if text.isascii():
        return text.encode("ascii")
    return bytes(_byte_of(char, encoding) for char in text)


def byte_pattern(pattern: str, encoding: str) -> str:
    """A search's ``pattern`` with each non-ASCII character written as the ``\\xHH`` escape of its byte in
    ``encoding`` (the pattern is matched against the stored bytes, where a UTF-8 ``é`` would be two). An escaped
    one (``\\é``, ``[\\é]``: a literal é, as ``re`` reads it) becomes that escape alone, never a backslash before
    it (which would seek the four characters ``\\xe9``); a group name is left as written (the pattern's parse
    refuses one that is not ASCII, saying so), but what looks like one in a character class (``[(?<é>]``: its
    characters). Raises InvalidArgument for a character the encoding has no byte for."""
    if pattern.isascii():
        return pattern
    out: list[str] = []
    i = 0
    opened = None  # where the character class the pattern is in opened ("[é(?<x>]" holds no group, no name)
    while i < len(pattern):
        char = pattern[i]
        name = _GROUP_NAME.match(pattern, i) if char == "(" and opened is None else None
        if name is not None:
            out.append(name.group())
            i = name.end()
            continue
        if char == "[" and opened is None:
            opened = i + 1 + (pattern.startswith("^", i + 1))  # (a "]" first in a class is one of its characters)
        elif char == "]" and opened is not None and i > opened:
            opened = None
        if char == "\\" and i + 1 < len(pattern):  # an escape: the backslash and the character it escapes
            char = pattern[i + 1]
            out.append(f"\\x{_byte_of(char, encoding):02x}" if not char.isascii() else "\\" + char)
            i += 2
            continue
        out.append(char if char.isascii() else f"\\x{_byte_of(char, encoding):02x}")
        i += 1
    return "".join(out)


def search_form(match: str | bytes | None, pattern: str | None, ignore_case: bool, encoding: str
                ) -> tuple[bytes | None, str | None]:
    """``(needle, pattern)`` that seek over the stored bytes what ``match`` or ``pattern`` say in ``encoding``: a
    needle of its bytes, or a pattern whose non-ASCII characters are ``\\xHH`` escapes (a ``match`` with
    ``ignore_case`` too: a case-blind pattern of it, :class:`Written`). Raises InvalidArgument for a character the
    encoding has no byte for, and (:func:`case_bound`) for a case-blind ``match`` whose pattern would pass
    :data:`~scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES`."""
    if encoding in WIDE:
        return _wide_form(match, pattern, ignore_case, encoding)
    if pattern is not None:
        return None, byte_pattern(pattern, encoding)
    if match is None:
        return None, None
    if ignore_case and isinstance(match, str):
        check_needle(encode_needle(match, encoding))  # (as long as a needle may be, case-blind or not)
        written = byte_pattern(re.escape(match), encoding)
        if len(written) > MAX_PATTERN_BYTES:
            raise case_bound(match, encoding, len(written))
        return None, Written(written, match)
    return encode_needle(match, encoding), None


def _wide_form(match: str | bytes | None, pattern: str | None, ignore_case: bool, encoding: str
               ) -> tuple[bytes | None, str | None]:
    """:func:`search_form` in a :data:`WIDE` encoding: ``match`` as its bytes; with ``ignore_case``, a pattern of
    the bytes of each character's case variants as ``re.IGNORECASE`` reads them over text (``σ``: ``Σ ς σ``;
    :func:`~scratchfs.engine.case_variants.variants`), no byte folded. Raises InvalidArgument for a ``pattern``, and
    for a ``match`` whose pattern would pass :data:`~scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES`."""
    if pattern is not None:
        raise InvalidArgument(f"pattern= does not read {encoding} text (a class or a '.' is one byte of it, not one "
                              f"character): search with match=\"TEXT\", encoding={encoding!r} (ignore_case=true "
                              "for either case)")
    if isinstance(match, str) and (lone := _LONE.search(match)) is not None:
        raise InvalidArgument(f"match= holds U+{ord(lone.group()):04X}, half of a surrogate pair (no character; a "
                              "read shows a lone one in the content as U+FFFD): search with match=\"TEXT\" of whole "
                              f"characters, encoding={encoding!r}, or read the bytes with offset= and length=")
    if match is None or isinstance(match, bytes) or not ignore_case:
        return (None if match is None else encode_needle(match, encoding)), None
    check_needle(encode_needle(match, encoding))  # (as long as a needle may be, case-blind or not)
    written = "(?-i:" + "".join(alternation(set(variants(char)), WIDE[encoding]) for char in match) + ")"
    if len(written) > MAX_PATTERN_BYTES:
        raise case_bound(match, encoding, len(written))
    return None, Written(written, match)


def sought_in(encoding: str | None, head: Callable[[], bytes], asked: dict[str, object]
              ) -> tuple[str | None, tuple[bytes | str | None, str | None]]:
    """``(encoding, (match, pattern))`` a read seeks: ``encoding`` as :func:`resolve_bom` gives it (``head()``: the
    content's first two bytes, read only for ``"utf-16"``; ``asked``: the read's arguments, ``None`` for those not
    given, which its refusal names with each byte order), ``asked``'s ``match`` and ``pattern`` as
    :func:`search_form` writes them (as given for UTF-8: ``None``). Raises InvalidArgument as those do."""
    match, pattern = asked.get("match"), asked.get("pattern")
    if encoding is None:
        return None, (match, pattern)  # type: ignore[return-value]
    encoding = resolve_bom(encoding, head(), asked) if encoding == "utf-16" else encoding
    return encoding, search_form(match, pattern, bool(asked.get("ignore_case")), encoding)  # type: ignore[arg-type]
