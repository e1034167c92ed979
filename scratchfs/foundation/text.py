"""UTF-8 helpers: where characters start and end in bytes, so that text is cut on character boundaries; and pairs of
newlines counted from lines already split.

Source: RFC 3629 (UTF-8): a lead byte ``110xxxxx``, ``1110xxxx`` or ``11110xxx`` starts a sequence of 2, 3 or 4
bytes; continuation bytes are ``10xxxxxx``.
"""

from __future__ import annotations

from json.encoder import encode_basestring


def is_digits(text: str) -> bool:
    """True if ``text`` is one or more ASCII digits ``0-9``: what ``int(text)`` parses as a plain decimal number.
    (``str.isdigit`` is true for ``"²"`` and other Unicode digits that ``int`` refuses, and ``isdecimal`` for
    non-ASCII decimal digits that ``int`` takes but no user means.)"""
    return text.isascii() and text.isdigit()


def utf8_lead_length(byte: int) -> int:
    """Bytes in the UTF-8 sequence that ``byte`` starts (RFC 3629): 2 to 4 for a lead byte, else 1."""
    return 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4 if byte >> 3 == 0b11110 else 1


def utf8_partial_tail(data: bytes | memoryview) -> int:
    """How many bytes at the end of ``data`` are a UTF-8 sequence cut short (0 if none)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # ASCII or a lead byte: the last sequence starts here
            return back if utf8_lead_length(byte) > back else 0
    return 0


def utf8_prefix(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` of at most ``limit`` bytes that does not end inside a UTF-8 sequence."""
    if len(data) <= limit:
        return data
    piece = data[:limit]
    return piece[: len(piece) - utf8_partial_tail(piece)]


def utf8_suffix_start(data: bytes | memoryview) -> int:
    """Index of the first byte of ``data`` that starts a UTF-8 character (skips at most 3 continuation bytes)."""
    start = 0
    while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return start


def decode_or_none(data: bytes) -> str | None:
    """``data`` decoded as UTF-8, or ``None`` if it is not valid UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def quote(text: str) -> str:
    """``text`` as a JSON string literal (non-ASCII kept as is), for calls written out for a model: exactly
    ``json.dumps(text, ensure_ascii=False)``, by the C encoder it calls (without building an encoder per call)."""
    return encode_basestring(text)


_PAIRS_FROM_ROWS = 64  # most empty lines counted in pairs from the rows (more: one count over the bytes)


def newline_pairs(rows: list[bytes], sample: bytes) -> int:
    """``sample.count(b"\\n\\n")`` (pairs of newlines, not overlapping), where ``rows`` are ``sample``'s lines (as
    ``split(b"\\n")`` gives them), each ended by a newline but a last one that is not empty. A run of ``k`` empty rows
    is ``k + 1`` newlines in a row (``k`` at the start), which hold ``(k + 1) // 2`` pairs; without empty rows there
    is none, and with few of them the rows say it without a second pass over the bytes."""
    empty = rows.count(b"")
    if not empty:
        return 0
    if empty > _PAIRS_FROM_ROWS:
        return sample.count(b"\n\n")
    pairs, find, at = 0, rows.index, -1
    start = run = 0
    for _ in range(empty):
        at = find(b"", at + 1)
        if run and at == start + run:
            run += 1
            continue
        pairs += (run + (start > 0)) // 2
        start, run = at, 1
    return pairs + (run + (start > 0)) // 2


__all__ = ["decode_or_none", "is_digits", "newline_pairs", "quote", "utf8_lead_length", "utf8_partial_tail",
           "utf8_prefix", "utf8_suffix_start"]
