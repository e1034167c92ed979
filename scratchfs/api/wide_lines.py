"""Line reads of UTF-16 text (``read_handle(..., line=N, encoding="utf-16le"|"utf-16be")``): its lines end at a
newline code unit (``0a 00`` in UTF-16LE, ``00 0a`` in UTF-16BE) at an even offset from the content's start, as
``data.decode("utf-16-le").split("\\n")`` has them, never at a ``0a`` byte inside another character's code unit
(``上`` is ``0a 4e`` in UTF-16LE, and many CJK characters hold one).

The store's line index counts ``0a`` bytes (:mod:`scratchfs.engine.lines`), so it cannot serve this text: each such
read scans the content from its start, counting newline code units a frame at a time at C speed (``array.count``),
within :data:`WIDE_SCAN_BYTES`; longer content is refused, naming the byte and search reads that work on it.

Source: RFC 2781 (UTF-16; a surrogate is 0xD800-0xDFFF, so no half of a pair is the code unit 0x000A).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from scratchfs.api.bounds import offset_past_end
from scratchfs.api.encodings import WIDE, newline_ends
from scratchfs.api.entries import reading
from scratchfs.api.results import LineSlice
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_LINES, MAX_LINES, MAX_READ_BYTES
from scratchfs.foundation.text import plural

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["WIDE_SCAN_BYTES", "lines_or_search", "scanned_line_starts", "wide_lines"]

WIDE_SCAN_BYTES = 64 * 1024 * 1024
"""The most content a UTF-16 line read scans for its newlines (bytes); longer content's line reads are refused."""


def _line_starts(scope: Scope, handle: str, encoding: str, bound: int | None, *, capped: bool = False
                 ) -> tuple[array, int]:
    """``(the byte each line starts at, content size)`` of the lines in bytes ``[0, bound)`` of ``handle``'s content
    (``bound``: ``None`` the size; ``capped``: at most :data:`WIDE_SCAN_BYTES` of it, no refusal). Raises
    InvalidArgument for a ``bound`` past the end or (not ``capped``) content longer than :data:`WIDE_SCAN_BYTES`,
    NotFound and CorruptBlob as :meth:`Scope.read_range`."""
    starts = array("Q", [0])
    with scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle) as opened, reading(handle):
        size = opened.entry.size
        if bound is not None and bound > size:  # (as a line read without encoding= refuses it)
            raise InvalidArgument(f"end={bound} is past the content's end ({plural(size, 'byte')}): give end= at "
                                  f"most {size}")
        bound = size if bound is None else bound
        bound = min(bound, WIDE_SCAN_BYTES) if capped else bound
        if bound > WIDE_SCAN_BYTES:
            raise _too_long(handle, size, encoding)
        if not bound:
            return starts, size
        carry, base = b"", 0
        for frame_start, data in opened.reader.iter_frames(0):
            chunk = (carry + data)[: max(0, bound - base)]
            starts.extend(base + end for end in newline_ends(chunk, base, encoding) if base + end < bound)
            carry, base = chunk[len(chunk) // 2 * 2 :], base + len(chunk) // 2 * 2
            if frame_start + len(data) >= bound:
                break
    return starts, size


def scanned_line_starts(scope: Scope, handle: str, encoding: str) -> tuple[array, int]:
    """``(the byte each line starts at, bytes scanned)`` of UTF-16 text ``handle`` (``encoding``: ``"utf-16le"`` or
    ``"utf-16be"``): its lines in its first :data:`WIDE_SCAN_BYTES` bytes at most, as a line read counts them (a
    line's start past the bytes scanned is not in it). Raises NotFound and CorruptBlob as :meth:`Scope.read_range`."""
    starts, size = _line_starts(scope, handle, encoding, None, capped=True)
    return starts, min(size, WIDE_SCAN_BYTES)


def _too_long(handle: str, size: int, encoding: str) -> InvalidArgument:
    return InvalidArgument(Advice.of(
        f"{handle} is {plural(size, 'byte')} of {encoding} text, and a line read of UTF-16 text counts its newlines "
        f"by a scan of at most {WIDE_SCAN_BYTES // 2**20} MiB (its stored line index counts 0a bytes, which "
        "characters hold too): read it by bytes, ", Call.of("read_handle", handle=handle, offset=0, encoding=encoding),
        " (offsets in bytes), or search it, ", Call.of("read_handle", handle=handle, match="TEXT", encoding=encoding)))


def wide_lines(scope: Scope, handle: str, encoding: str, line: int | None = None, lines: int | None = None, *,
               offset: int | None = None, cap: int = MAX_READ_BYTES, end: int | None = None) -> LineSlice:
    """:meth:`Scope.read_lines` of UTF-16 text (``encoding``: ``"utf-16le"`` or ``"utf-16be"``): ``lines`` lines
    (50 by default, at most 10,000; at most ``cap`` bytes, a longer line cut at an even byte) from 1-based ``line``
    (negative: from the end; with ``offset=`` too, no further back than the line holding that byte) or from byte
    ``offset`` (the rest of the line it falls in, from its next even byte), counted in bytes ``[0, end)``
    (``None``: all of it), its lines ending at newline code units (:func:`~scratchfs.api.encodings.newline_ends`).

    Raises:
        InvalidArgument: a malformed handle, ``line`` 0 or past the last line, ``offset`` or ``end`` past the end,
            a positive ``line`` with ``offset``, ``lines`` or ``cap`` out of range, content longer than
            :data:`WIDE_SCAN_BYTES`. NotFound (Expired, Deleted), CorruptBlob: as :meth:`Scope.read_range`.
    """
    handle = checks.check_handle(handle)
    first = checks.check_line(1 if line is None else line)
    start = None if offset is None else checks.check_int(offset, "offset", 0)
    if line is not None and first > 0 and start:
        raise InvalidArgument("a line read starts at a line or at a byte offset, not both")
    count = checks.check_int(DEFAULT_LINES if lines is None else lines, "lines", 1, MAX_LINES)
    cap = max(2, checks.check_int(cap, "cap", 1, MAX_READ_BYTES))
    starts, size = _line_starts(scope, handle, encoding, end)
    bound = size if end is None else min(end, size)
    total = len(starts) if bound else 0
    if start is not None and start > size:
        raise offset_past_end(handle, start, size)
    asked = first if first < 0 else None
    if first < 0:
        first = max(1, total + 1 + first, bisect_right(starts, start or 0))
        at = starts[first - 1] if total else 0
    elif line is None:
        at = min(bound, (start or 0) + (start or 0) % 2)
        first = bisect_right(starts, at) if at < bound else max(total, 1)
    elif first > max(total, 1):
        raise InvalidArgument(Advice.of(
            f"line {first} is past the end of {handle} ({plural(total, 'line')}): line=-1 is its last line; ",
            Call.of("read_handle", handle=handle, line=-min(total, DEFAULT_LINES) or -1,
                    lines=min(total, DEFAULT_LINES) or 1, encoding=encoding), " reads its last lines"))
    else:
        at = starts[first - 1] if total else 0
    stop = starts[first - 1 + count] if first - 1 + count < len(starts) else bound
    stop = min(stop, at + cap // 2 * 2)
    data = scope.read_range(handle, at, stop - at).data if stop > at else b""
    ends = newline_ends(data, at, encoding)
    cut = bool(data) and not (ends and ends[-1] == len(data))
    more = stop < bound
    return LineSlice(handle, at, data, size, first, len(ends) + cut, total, first + len(ends) if more else None,
                     stop if more else None, cut and more, count, True, asked=asked, encoding=encoding, end=end,
                     start=start if asked is not None and start else None)


def lines_or_search(scope: Scope, handle: str, single: str | None, offset: int, length: int | None,
                    **read: Any) -> Any:
    """:meth:`Scope.read_handle`'s line read or search; a line read of UTF-16 text (``single``, no search argument
    in ``read``) :func:`wide_lines`'s, its search's lines its decoded ones (:mod:`scratchfs.api.wide_search`): its
    lines end at newline code units. Raises what they raise."""
    if single in WIDE and not any(read[name] for name in ("match", "pattern", "ignore_case")) and all(
            read[name] is None for name in ("context", "max_matches", "before")):
        return wide_lines(scope, handle, single, read["line"], read["lines"], offset=offset or None, cap=read["cap"],
                          end=read["end"])
    if single in WIDE and length is None and read["line"] is None and read["lines"] is None and (
            read["match"] is not None or read["pattern"] is not None):  # (its matches and lines: the decoded text's)
        return scope.search(handle, read["match"], read["pattern"], offset, encoding=single, **{
            name: read[name] for name in ("ignore_case", "context", "max_matches", "cap", "before", "end", "budget")})
    return scope.read_handle(handle, offset, length, **read)
