"""Text in a single-byte encoding -- Latin-1 (ISO 8859-1) or cp1252 (windows-1252) -- read as such: the ``encoding``
argument of ``read_handle``'s byte, line and search reads. UTF-8 is the default, and every other read shows a byte
that is not UTF-8 as U+FFFD; with ``encoding="latin-1"`` or ``"cp1252"`` each byte is one character, so a reply's
offsets and lengths are exact byte counts of what its ``data`` shows, and a search's ``match`` / ``pattern`` is
written in that encoding (its non-ASCII characters sought as their one byte each).

Sources: ISO/IEC 8859-1 (bytes 0x00-0xFF are U+0000-U+00FF, Python's ``latin-1`` codec); windows-1252 as the WHATWG
Encoding Standard defines it (https://encoding.spec.whatwg.org/index-windows-1252.txt): Python's ``cp1252`` codec,
whose five undefined bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D) are U+0081... as in the WHATWG index, so that every byte
is one character.
"""

from __future__ import annotations

import re

from scratchfs.foundation.errors import InvalidArgument

__all__ = ["ENCODINGS", "byte_pattern", "check_encoding", "decode_single", "encode_needle", "search_form"]

ENCODINGS = ("utf-8", "latin-1", "cp1252")
"""The encodings a read takes (``utf-8``: the default, each invalid byte shown as U+FFFD)."""
_CP1252 = str.maketrans({byte: bytes([byte]).decode("cp1252") for byte in range(0x80, 0xA0)
                         if byte not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)})
"""Latin-1's characters 0x80-0x9F (C1 controls) as cp1252 maps their bytes."""
_GROUP_NAME = re.compile(r"\(\?(?:P?<(?![=!])[^>]*>|P=[^)]*\)|\([^)]*\))")
"""A group's name where a pattern names one, ``(?P<name>``, ``(?P=name)`` or ``(?(name)``, at a ``(``."""


def check_encoding(encoding: object) -> str | None:
    """``encoding`` checked: ``None`` for UTF-8 (``None`` or ``"utf-8"``: the reads' own rule), else ``"latin-1"``
    or ``"cp1252"``. Raises InvalidArgument for anything else."""
    if encoding is None or encoding == "utf-8":
        return None
    if encoding not in ENCODINGS:
        shown = encoding[:40] if isinstance(encoding, str) else type(encoding).__name__
        raise InvalidArgument(f"encoding must be one of {', '.join(ENCODINGS)}, not {shown!r}")
    return str(encoding)


def decode_single(raw: bytes, encoding: str) -> str:
    """``raw`` as text of a single-byte ``encoding`` (:data:`ENCODINGS` but UTF-8): one character a byte."""
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
    ``ignore_case`` too: a case-blind pattern of it). Raises InvalidArgument for a character the encoding has no
    byte for."""
    if pattern is not None:
        return None, byte_pattern(pattern, encoding)
    if match is None:
        return None, None
    if ignore_case and isinstance(match, str):
        return None, byte_pattern(re.escape(match), encoding)
    return encode_needle(match, encoding), None
