"""How many lines a line read holds within its default size, counted in the bytes the model receives (each line's
JSON string text, escapes included): what sizes the line reads a stub's note names (:mod:`scratchfs.api.stub`), so
that its ``line=-N, lines=N`` fits one reply instead of being cut at the budget (``ps aux``'s long last lines)."""

from __future__ import annotations

import bisect
import itertools

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
    line's text with its newline as ``\\n``, escapes counted), at most :data:`DEFAULT_LINES`: from its start
    (``forward``, ``data`` starting at a line's start) or back from its end (``data`` the content's last bytes). 0
    when the first such line alone is longer; ``None`` when ``data`` is too short to tell (it holds fewer bytes than
    a read may and does not reach the content's end, ``at_end``, or, backward, its start, ``at_start``)."""
    if len(data) <= DEFAULT_READ_BYTES and not (at_end if forward else at_start):
        return None
    data = data[:-1] if not forward and data.endswith(b"\n") else data  # (a last newline ends the last line)
    pieces = data.split(b"\n", DEFAULT_LINES + 1) if forward else data.rsplit(b"\n", DEFAULT_LINES + 1)  # (those
    last = pieces.pop() if forward else pieces.pop(0) if not at_start else b""  # cut by the window (or the rest
    pieces = (pieces + [last] * bool(at_end and last)) if forward else pieces[::-1]  # after a last newline)
    del pieces[DEFAULT_LINES:]  # past the first (last) lines a read names at most: 4 KiB of empty lines not each split)
    ends = list(itertools.accumulate(map(len, pieces)))  # (each line's newline added below)
    back = not forward  # the bytes of the first (last) k lines, newlines in: ends[k-1] + k - back, at most the data's;
    least = list(itertools.accumulate(map((2).__add__, map(len, pieces)), initial=1 - 2 * back))[1:]  # their JSON
    for k in range(len(ends), 0, -1):  # (only the last can run past the data's end: a line no newline ends)
        if ends[k - 1] + k - back <= len(data):
            break
        least[k - 1] = 2 * len(data) + 1 - ends[k - 1]
    escaped = data.translate(None, _NOT_ESCAPED).replace(b"\n", b"")  # text's bytes but for escapes not newlines
    common = [bytes([byte]) for byte in _COMMON_ESCAPES if byte in escaped]  # (each counted at memchr speed)
    plain = len(escaped) == sum(map(escaped.count, common))  # (no other control byte: 2 bytes each)
    low = bisect.bisect_right(least, DEFAULT_READ_BYTES - len(escaped) * (1 if plain else 5))  # (all escapes in)
    high = bisect.bisect_right(least, DEFAULT_READ_BYTES)  # (none): the answer is between, found by halves
    while low < high:
        middle = (low + high + 1) // 2
        held = min(len(data), ends[middle - 1] + middle - back)
        start, end = (0, held) if forward else (len(data) - held, len(data))
        extra = sum(data.count(byte, start, end) for byte in common) if plain else escape_bytes(data[start:end])
        low, high = (middle, high) if least[middle - 1] + extra <= DEFAULT_READ_BYTES else (low, middle - 1)
    return low


_COMMON_ESCAPES = b'"\\\t\r'  # the bytes other than a newline that text's JSON escapes most (in two bytes each)


def escape_bytes(data: bytes) -> int:
    """How many bytes more ``data`` (UTF-8) takes as JSON string text than as it is: one for each byte escaped in
    two (a newline, a quote), five for each other control byte (RFC 8259, section 7: a quote, a backslash and the
    control characters are escaped, ``\\b \\t \\n \\f \\r`` in two bytes, the others as ``\\u00XX``)."""
    escaped = data.translate(None, _NOT_ESCAPED)
    return len(escaped) + 4 * len(escaped.translate(None, _SHORT_ESCAPES))
