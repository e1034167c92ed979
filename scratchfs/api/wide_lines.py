"""Line reads of UTF-16 text (``read_handle(..., line=N, encoding="utf-16le"|"utf-16be")``): its lines end at a
newline code unit (``0a 00`` in UTF-16LE, ``00 0a`` in UTF-16BE) at an even offset from the content's start, as
``data.decode("utf-16-le").split("\\n")`` has them, never at a ``0a`` byte inside another character's code unit
(``上`` is ``0a 4e`` in UTF-16LE, and many CJK characters hold one).

The store's line index counts ``0a`` bytes (:mod:`scratchfs.engine.lines`), so it cannot serve this text: its own
index, the newline code units counted per frame at the first such read and kept in memory
(:mod:`scratchfs.api.wide_index`), finds the frame that holds a line, which alone is scanned.

Source: RFC 2781 (UTF-16; a surrogate is 0xD800-0xDFFF, so no half of a pair is the code unit 0x000A).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scratchfs.api.bounds import offset_past_end
from scratchfs.api.encodings import WIDE, newline_ends
from scratchfs.api.entries import reading
from scratchfs.api.results import LineSlice
from scratchfs.api.wide_index import WideText, wide_text
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_LINES, MAX_LINES, MAX_READ_BYTES
from scratchfs.foundation.text import plural

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["lines_or_search", "text_lines", "wide_lines"]


def text_lines(scope: Scope, handle: str, encoding: str) -> WideText:
    """The lines of UTF-16 text ``handle`` (``encoding``: ``"utf-16le"`` or ``"utf-16be"``) through its index
    (:mod:`scratchfs.api.wide_index`, counted now if no read has yet), each frame it looks at read again live.
    Raises NotFound (Expired, Deleted) and CorruptBlob as :meth:`Scope.read_range`."""
    entries, where = scope.store.entries, (scope.run_id, scope.agent_id, "handle", handle)

    def fetch(offset: int, length: int) -> tuple[str, bytes]:
        entry, data = entries.read_range(*where, offset, length)
        return entry.blob, data

    with entries.open(*where) as opened, reading(handle):
        return wide_text(opened, encoding, fetch)


def wide_lines(scope: Scope, handle: str, encoding: str, line: int | None = None, lines: int | None = None, *,
               offset: int | None = None, cap: int = MAX_READ_BYTES, end: int | None = None) -> LineSlice:
    """:meth:`Scope.read_lines` of UTF-16 text (``encoding``: ``"utf-16le"`` or ``"utf-16be"``): ``lines`` lines
    (50 by default, at most 10,000; at most ``cap`` bytes, a longer line cut at an even byte) from 1-based ``line``
    (negative: from the end; with ``offset=`` too, no further back than the line holding that byte) or from byte
    ``offset`` (the rest of the line it falls in, from its next even byte), counted in bytes ``[0, end)``
    (``None``: all of it), its lines ending at newline code units (:func:`~scratchfs.api.encodings.newline_ends`),
    found through the text's index (:mod:`scratchfs.api.wide_index`): a read scans the frames it reads from.

    Raises:
        InvalidArgument: a malformed handle, ``line`` 0 or past the last line, ``offset`` or ``end`` past the end,
            a positive ``line`` with ``offset``, ``lines`` or ``cap`` out of range. NotFound (Expired, Deleted),
            CorruptBlob: as :meth:`Scope.read_range`; Changed: the entry written again during the read.
    """
    handle = checks.check_handle(handle)
    first = checks.check_line(1 if line is None else line)
    start = None if offset is None else checks.check_int(offset, "offset", 0)
    if line is not None and first > 0 and start:
        raise InvalidArgument("a line read starts at a line or at a byte offset, not both")
    count = checks.check_int(DEFAULT_LINES if lines is None else lines, "lines", 1, MAX_LINES)
    cap = max(2, checks.check_int(cap, "cap", 1, MAX_READ_BYTES))
    text = text_lines(scope, handle, encoding)
    size = text.size
    if end is not None and end > size:  # (as a line read without encoding= refuses it)
        raise InvalidArgument(f"end={end} is past the content's end ({plural(size, 'byte')}): give end= at most "
                              f"{size}")
    bound = size if end is None else end
    total = text.lines(bound)
    if start is not None and start > size:
        raise offset_past_end(handle, start, size)
    asked = first if first < 0 else None
    if first < 0:
        first = max(1, total + 1 + first, text.line_of(start or 0, bound))
        at = text.line_start(first) if total else 0
    elif line is None:
        at = min(bound, (start or 0) + (start or 0) % 2)
        first = text.line_of(at, bound) if at < bound else max(total, 1)
    elif first > max(total, 1):
        raise InvalidArgument(Advice.of(
            f"line {first} is past the end of {handle} ({plural(total, 'line')}): line=-1 is its last line; ",
            Call.of("read_handle", handle=handle, line=-min(total, DEFAULT_LINES) or -1,
                    lines=min(total, DEFAULT_LINES) or 1, encoding=encoding), " reads its last lines"))
    else:
        at = text.line_start(first) if total else 0
    stop = text.line_start(first + count) if first - 1 + count < total else bound
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
