"""The plain Python answers that scratchfs's streaming reads are checked against."""

from __future__ import annotations

import re

from scratchfs import MAX_READ_BYTES


def find_loop(data: bytes, needle: bytes, start: int = 0) -> list[tuple[int, int]]:
    """Non-overlapping occurrences of ``needle`` from ``start``: a ``bytes.find`` loop."""
    spans, pos = [], start
    while (found := data.find(needle, pos)) >= 0:
        spans.append((found, found + len(needle)))
        pos = found + len(needle)
    return spans


def regex_spans(data: bytes, pattern: str, start: int = 0, ignore_case: bool = False) -> list[tuple[int, int]]:
    """Non-empty matches of ``re.compile(pattern, re.M).finditer(data, start)``: the search starts at ``start``, as
    ``pos=`` does (the bytes before it are seen by lookbehind and ``^`` only)."""
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    return [m.span() for m in re.compile(pattern.encode(), flags).finditer(data, start) if m.end() > m.start()]


def windows(data: bytes, spans: list[tuple[int, int]], context: int, max_matches: int,
            budget: int = MAX_READ_BYTES) -> tuple[list[tuple[int, int, bytes, tuple[int, ...]]], int | None]:
    """Merged context windows around ``spans``: ``[(first match offset, window offset, bytes, match offsets)]`` and
    the offset of the first match left out (or None)."""
    out: list[list] = []
    used = 0
    for count, (start, end) in enumerate(spans):
        lo, hi = max(0, start - context), min(len(data), end + context)
        merge = bool(out) and lo <= out[-1][1]
        cost = max(hi, out[-1][1]) - out[-1][1] if merge else hi - lo
        if count == max_matches or used + cost > budget:
            return [_close(data, w) for w in out], start
        if merge:
            out[-1][1] = max(out[-1][1], hi)
            out[-1][2].append(start)
        else:
            out.append([lo, hi, [start]])
        used += cost
    return [_close(data, w) for w in out], None


def _close(data: bytes, window: list) -> tuple[int, int, bytes, tuple[int, ...]]:
    lo, hi, starts = window
    return starts[0], lo, data[lo:hi], tuple(starts)


def line_of(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset``, counting ``\\n`` only."""
    return data.count(b"\n", 0, offset) + 1


def lines_of(data: bytes) -> list[bytes]:
    """The content's lines, ``\\n`` kept, as ``grep -n`` and ``sed`` count them (``\\r`` ends nothing)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])  # an unterminated last line
    return lines
