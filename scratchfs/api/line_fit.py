"""How many lines a line read holds within its default size, counted in the bytes the model receives (each line's
JSON string text, escapes included): what sizes the line reads a stub's note names (:mod:`scratchfs.api.stub`), so
that its ``line=-N, lines=N`` fits one reply instead of being cut at the budget (``ps aux``'s long last lines)."""

from __future__ import annotations

from scratchfs.foundation.limits import DEFAULT_LINES, DEFAULT_READ_BYTES

__all__ = ["LAST_LINES_BYTES", "escape_bytes", "lines_within"]

_ESCAPED = bytes(range(0x20)) + b'"\\'  # the bytes a JSON string escapes (RFC 8259, section 7): none is in a
_NOT_ESCAPED = bytes(sorted(set(range(256)) - set(_ESCAPED)))  # multi-byte UTF-8 character
_SHORT_ESCAPES = b'"\\\b\t\n\f\r'  # escaped in 2 bytes; another control character in 6 (\u00XX)

LAST_LINES_BYTES = DEFAULT_READ_BYTES + 2
"""Bytes of a content's end that size the stub's read of its last lines (``line=-N``): the bytes such a read may hold,
the newline that ends the last line and the one before the first (a spill keeps at least these,
:func:`~scratchfs.api.stub.build_stub`)."""


def lines_within(data: bytes, at_end: bool, at_start: bool, forward: bool) -> int | None:
    """How many whole lines of ``data`` a line read holds within :data:`DEFAULT_READ_BYTES` bytes of JSON text (each
    line's text with its newline as ``\\n``, escapes counted, and one byte more), at most :data:`DEFAULT_LINES`: from
    its start (``forward``, ``data`` starting at a line's start) or back from its end (``data`` the content's last
    bytes; a last newline ends the last line). 0 when the first such line alone is longer; ``None`` when ``data`` is
    too short to tell (it holds fewer bytes than a read may and does not reach the content's end, ``at_end``, or,
    backward, its start, ``at_start``).

    Counted on ``data`` with each byte JSON escapes written as many times as its escape has bytes (a newline as two
    newlines): there a byte's offset is its JSON text's, and the lines that fit are the pairs of newlines within the
    bytes a read holds, one ``bytes.count`` of newlines halved -- unless all of ``data``'s JSON text fits in a
    read (told from its escaped bytes alone, a 4 KiB spill's read after its preview): then each of its lines."""
    if len(data) <= DEFAULT_READ_BYTES and not (at_end if forward else at_start):
        return None
    if not forward and data.endswith(b"\n"):
        data = data[:-1]  # (the newline that ends the last line: a read's text does not hold it)
    escaped = data.translate(None, _NOT_ESCAPED)
    extra = len(escaped) + 4 * len(escaped.translate(None, _SHORT_ESCAPES))  # (data's JSON text: this more)
    if len(data) + extra <= _MOST_TEXT:  # (all of data: its last line, or first, no newline ends; every newline
        if forward:  # within the bytes a read holds)
            return min(escaped.count(b"\n") + (at_end and data[-1:] not in b"\n"), DEFAULT_LINES)
        return min(escaped.count(b"\n") + at_start, DEFAULT_LINES)
    count = _near_the_edge(data, extra, escaped.count(b"\n"), forward)
    if count is None:  # (more JSON text than a read holds: where it stops is found in data written as its text)
        expanded = data
        for byte in set(escaped):  # (each kind of escaped byte: a newline, a quote, a tab)
            expanded = expanded.replace(_BYTES[byte], _ESCAPED_AS[byte])
        if forward:
            count = expanded.count(b"\n", 0, _MOST_TEXT) // 2
        else:  # (a pair the bounds cut counts one newline: not a line)
            count = expanded.count(b"\n", max(0, len(expanded) - _MOST_TEXT - 2)) // 2
    return min(count, DEFAULT_LINES)


def _near_the_edge(data: bytes, extra: int, newlines: int, forward: bool) -> int | None:
    """:func:`lines_within`'s count of ``data`` whose JSON text (``extra`` bytes more than it) holds more than a
    read, with ``newlines`` newlines, told without writing it out: forward, the line a newline at ``i`` ends is held
    when ``i``, the bytes its escapes add before it and its own two are within the read's (:data:`_MOST_TEXT`) -- so
    surely when ``i + extra + 2`` are, never when ``i + 2`` are not --, and back from the end the line after it when
    the bytes after it and all they add are; the newlines between those bounds (fewer than :data:`_EDGE_NEWLINES`,
    else ``None``: written out) each by the escapes of the few bytes from the edge to it."""
    if forward:
        low, high = max(0, _MOST_TEXT - 1 - extra), max(0, _MOST_TEXT - 1)  # (held: a newline before low; not: from
        count = newlines - data.count(b"\n", low)  # high on)
        if count >= DEFAULT_LINES or data.count(b"\n", low, high) >= _EDGE_NEWLINES:
            return count if count >= DEFAULT_LINES else None
        at = data.find(b"\n", low, high)
        while at != -1 and at + extra - escape_bytes(data[at:]) + 2 <= _MOST_TEXT:
            count, at = count + 1, data.find(b"\n", at + 1, high)
        return count
    low, high = max(0, len(data) - 1 - _MOST_TEXT), max(0, len(data) - 1 - _MOST_TEXT + extra)  # (held: a newline
    count = newlines - data.count(b"\n", 0, high)  # from high on; not: before low)
    if count >= DEFAULT_LINES or data.count(b"\n", low, high) >= _EDGE_NEWLINES:
        return count if count >= DEFAULT_LINES else None
    at = data.rfind(b"\n", low, high)
    while at != -1 and len(data) - at - 1 + extra - escape_bytes(data[: at + 1]) <= _MOST_TEXT:
        count, at = count + 1, data.rfind(b"\n", low, at)
    return count


_EDGE_NEWLINES = 12  # most newlines between the bounds counted one by one (each a translate of a few hundred bytes)
_MOST_TEXT = DEFAULT_READ_BYTES - 1  # a read's JSON bytes for its lines: their escaped text and one byte more
_BYTES = [bytes([byte]) for byte in range(256)]
_ESCAPED_AS = [one * (2 if one in _SHORT_ESCAPES else 6) for one in _BYTES]  # (\n or \u00XX: 2 or 6 bytes)


def escape_bytes(data: bytes) -> int:
    """How many bytes more ``data`` (UTF-8) takes as JSON string text than as it is: one for each byte escaped in
    two (a newline, a quote), five for each other control byte (RFC 8259, section 7: a quote, a backslash and the
    control characters are escaped, ``\\b \\t \\n \\f \\r`` in two bytes, the others as ``\\u00XX``)."""
    escaped = data.translate(None, _NOT_ESCAPED)
    return len(escaped) + 4 * len(escaped.translate(None, _SHORT_ESCAPES))
