"""Searches and counts of UTF-16 text (``read_handle(..., match=..., encoding="utf-16le"|"utf-16be")``): a match's
``line``, a count's ``lines`` and a ``context="line"`` window's extent are its decoded lines
(``data.decode("utf-16-le").split("\\n")``, numbered from 1), which end at a newline code unit (``0a 00`` in
UTF-16LE, ``00 0a`` in UTF-16BE) at an even offset, never at a ``0a`` byte inside another character (``上`` is
``0a 4e`` in UTF-16LE): the store's line index counts ``0a`` bytes, so the search's sinks take the lines of the
text's own index instead (:func:`~scratchfs.api.wide_lines.text_lines`, :mod:`scratchfs.api.wide_index`).

A ``context="line"`` window follows :mod:`scratchfs.engine.line_windows`' rule in code units: from its line's start
(at most ``LINE_WINDOW_BYTES`` before the match) to its line's end, before the newline code unit and the ``\\r``
code unit of a CRLF (at most ``LINE_WINDOW_BYTES`` after the match).

Source: RFC 2781 (UTF-16; no surrogate is the code unit 0x000A or 0x000D).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scratchfs.api.encodings import WIDE
from scratchfs.api.wide_index import WideText
from scratchfs.api.wide_lines import text_lines
from scratchfs.engine.line_windows import LineSink
from scratchfs.engine.search import CountSink, Matcher, Searcher, Sink
from scratchfs.foundation.limits import LINE_WINDOW_BYTES

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["EvenMatcher", "WideLines", "wide_count", "wide_parts"]


class WideLines:
    """The decoded lines of UTF-16 text ``handle``: ``text`` (its :class:`~scratchfs.api.wide_index.WideText`),
    ``encoding`` (``"utf-16le"`` or ``"utf-16be"``)."""

    def __init__(self, handle: str, encoding: str, text: WideText) -> None:
        self.handle, self.encoding, self.text = handle, encoding, text
        self.newline = b"\n\x00" if encoding == "utf-16le" else b"\x00\n"
        self.cr = b"\r\x00" if encoding == "utf-16le" else b"\x00\r"

    @classmethod
    def of(cls, scope: Scope, handle: str, encoding: str) -> WideLines:
        """Those of ``handle`` in ``scope``. Raises NotFound and CorruptBlob as :meth:`Scope.read_range`."""
        return cls(handle, encoding, text_lines(scope, handle, encoding))

    def line_of(self, offset: int) -> int:
        """The 1-based line holding content byte ``offset``. Raises Changed (the entry written again meanwhile),
        NotFound and CorruptBlob as :meth:`Scope.read_range`."""
        return self.text.match_line(offset)

    def newline_before(self, buf: bytearray, base: int, lo: int, hi: int) -> int:
        """The content offset just after the last newline code unit (at an even offset) lying in ``[lo, hi)``,
        or -1 (``buf[0]`` is content byte ``base``)."""
        stop = hi - base
        while (at := buf.rfind(self.newline, lo - base, stop)) >= 0 and (base + at) % 2:
            stop = at + 1  # (an odd offset: two characters' halves)
        return -1 if at < 0 else base + at + 2

    def newline_after(self, buf: bytearray, base: int, lo: int, hi: int) -> int:
        """The content offset of the first newline code unit (at an even offset) lying in ``[lo, hi)``, or -1."""
        at = lo - base - 1
        while (at := buf.find(self.newline, at + 1, hi - base)) >= 0 and (base + at) % 2:
            pass
        return -1 if at < 0 else base + at


class EvenMatcher:
    """The matches of ``inner`` (a :class:`~scratchfs.engine.search.Matcher`) that start at an even content offset:
    UTF-16 text's, whose code units start there (one at an odd offset is the halves of two characters, which a
    search's windows drop too: :func:`~scratchfs.api.search_encoded.as_given`)."""

    def __init__(self, inner: Matcher) -> None:
        self.inner = inner
        self.keep_before = inner.keep_before

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        return self.inner.limit(buf, pos, at_end, base)

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        while (found := self.inner.find(buf, pos, limit, at_end, base)) is not None and (base + found[0]) % 2:
            pos = found[0] + 1  # (an odd start: the next one from the byte after it)
        return found

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        return self.inner.skippable(buf, base, pos, data, frame_start)


def wide_parts(scope: Scope, handle: str, encoding: str | None, matcher: Matcher, sink: type[Sink]
               ) -> tuple[Matcher, type[Sink]]:
    """``(matcher, sink class)`` of a search of ``handle`` (``matcher`` and ``sink``: a search's of its stored
    bytes, :class:`~scratchfs.engine.line_windows.LineSink` for windows of whole lines), as they are but for UTF-16
    text (``encoding``: ``"utf-16le"`` or ``"utf-16be"``): then ``matcher``'s matches at even offsets alone
    (:class:`EvenMatcher`) and each match's line, and a whole line's window, its decoded line's. Raises NotFound and
    CorruptBlob as :meth:`Scope.read_range` (the text's lines are scanned: :class:`WideLines`)."""
    if encoding not in WIDE:
        return matcher, sink
    lines = WideLines.of(scope, handle, encoding)
    whole = issubclass(sink, LineSink)
    return EvenMatcher(matcher), type("WideLineSink" if whole else "WideSink",
                                      (_WideWindows if whole else _WideBytes,), {"text": lines})


def wide_count(opened: Any, matcher: Matcher, offset: int, deadline: float, end: int | None, lines: WideLines
               ) -> tuple[int, int, int | None]:
    """:func:`~scratchfs.engine.search.count` of UTF-16 text (``opened``: its open entry; ``matcher``: an
    :class:`EvenMatcher`): the lines its matches start in are its decoded ones (``lines``; a match past their scan
    refused, :meth:`WideLines.line_of`). Raises as :func:`~scratchfs.engine.search.count` and that."""
    searcher = Searcher(opened.reader, matcher, offset, opened.lines.line_of_frame, end=end)
    sink = type("WideCountSink", (_WideCount,), {"text": lines})(deadline, searcher.size)
    next_offset = searcher.run(sink)
    return sink.taken, sink.lines, next_offset


class _WideBytes(Sink):
    text: WideLines

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        return super().take(start, end, self.text.line_of, buf, base)


class _WideCount(CountSink):
    text: WideLines

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        if not self.taken % 256 and self.taken and self.expired():
            return False
        line = self.text.line_of(start)
        self.lines += line != self.last_line
        self.last_line = line
        self.taken += 1
        return True


class _WideWindows(LineSink):
    """:class:`~scratchfs.engine.line_windows.LineSink` of UTF-16 text: its lines end at newline code units."""

    text: WideLines

    def __init__(self, context: int, max_matches: int, budget: int, size: int) -> None:
        super().__init__(context, max_matches, budget, size)
        self.context = LINE_WINDOW_BYTES + 2  # (a newline before the bound is a code unit: two bytes)

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        return super().take(start, end, self.text.line_of, buf, base)

    def _start(self, buf: bytearray, base: int, start: int) -> tuple[int, bool]:
        frm = max(self.floor, start - self.bound - 2, base)
        after = self.text.newline_before(buf, base, frm, start)
        if after >= 0:
            return after, False
        if start - self.bound - 2 < self.floor:
            return self.floor, False
        return start - self.bound, True

    def _end(self, buf: bytearray, base: int, start: int, end: int) -> tuple[int, bool, bool]:
        reach = end + self.bound
        frm, stop = max(start, end - 2), min(self.size, reach + 4)
        look = min(stop, base + len(buf))
        newline = self.text.newline_after(buf, base, frm, look)
        if newline >= 0:  # (a \r code unit before it is the CRLF line end's, not shown; a match holding it is)
            cr = newline - 2 >= base and buf[newline - 2 - base : newline - base] == self.text.cr
            text_end = newline - 2 if cr else newline
        elif look < stop:
            return stop, True, False
        else:
            text_end = self.size if stop == self.size else reach + 1
        hi = max(end, min(text_end, reach))
        return hi, text_end > hi, True
