"""Streaming search over a seekable blob, frame by frame: substring matches and regular-expression patterns.

The content is decompressed one frame at a time into a sliding buffer; matches are found in the buffer and cut into
windows of context, and the buffer is trimmed behind the search, so memory stays at about one frame plus the reach
bound, the context and the windows being built, whatever the blob's size.

Semantics (what the results equal):

* **Substrings** (:class:`LiteralMatcher`): non-overlapping occurrences, left to right, the search resuming after
  each one -- the offsets a ``bytes.find`` loop reports, wherever they fall (across frame boundaries included).
* **Patterns** (:class:`PatternMatcher`): the non-empty matches of ``re.finditer(pattern, content, re.MULTILINE)``
  over the whole content (bytes semantics: ``.`` is one byte, ``\\w`` and ``(?i)`` are ASCII). A pattern that can
  never match ``\\n`` (most grep-style patterns) is decided line by line, exactly, for lines up to
  :data:`MAX_LINE_BYTES`. A pattern that can match ``\\n`` is exact for every match whose *reach* -- the match plus
  any lookaround -- fits :data:`MAX_REACH_BYTES` (16 KiB): a match is accepted only when twice that bound of content
  follows it in the buffer; one that runs into the margin raises :class:`~scratchfs.errors.PatternTooLong` instead
  of being missed (see :class:`~scratchfs.engine.patterns.PatternMatcher` for the checks). The syntax is Python's
  ``re``, parsed once; the engine is the ``regex`` package, run on the same parse (see
  :mod:`scratchfs.engine.patterns`), with a time limit: a pattern that backtracks past it raises
  :class:`~scratchfs.errors.PatternTimeout` saying where to resume.
* **Prefilter** (as ripgrep does): when every match must contain a literal that begins at most
  :data:`MAX_PREFIX_BYTES` after the match start, the engine runs only at the few positions before each occurrence of
  that literal (found with ``bytes.find``), which is exact: no match can start elsewhere.

Windows whose context overlaps are merged into one window listing each match it contains.

The work is split the way ripgrep's ``grep-searcher`` crate splits it: a :class:`Searcher` streams the frames,
skips the ones no match can start in, asks the matcher for matches, trims its buffer and turns a pattern error after
some matches into a place to resume; a :class:`Sink` takes each match, merges windows, and stops the search at
``max_matches`` or at the byte budget, whose accounting is its :meth:`Sink.cost` and :meth:`Sink.cut` alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from scratchfs.engine.literal_count import count_literal, counts_fast
from scratchfs.engine.patterns import (
    DEFAULT_TIMEOUT,
    MAX_LINE_BYTES,
    MAX_PREFIX_BYTES,
    MAX_REACH_BYTES,
    PatternMatcher,
)
from scratchfs.engine.seekable import SeekableReader
from scratchfs.foundation.errors import InvalidArgument, PatternTimeout, PatternTooLong

__all__ = [
    "DEFAULT_TIMEOUT",  # re-exported from scratchfs.engine.patterns, where the pattern side lives
    "MAX_LINE_BYTES",
    "MAX_PREFIX_BYTES",
    "MAX_REACH_BYTES",
    "READ_AHEAD",
    "CountSink",
    "Hit",
    "LiteralMatcher",
    "Matcher",
    "PatternMatcher",
    "SearchResult",
    "Searcher",
    "Sink",
    "Window",
    "count",
    "search",
]

READ_AHEAD = False
"""Whether a search decompresses its frames ahead on the frame threads (``SeekableReader.iter_frames(ahead=...)``).
Off: the search's ``bytes.find`` over each frame holds the GIL, so the threads that finished a frame wait for it, and
``python bench/read_ahead.py`` (which turns this on to compare) measured a whole-blob search 0.86-1.03× as fast with
frames read ahead as without, on two cores."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One match: ``offset`` (bytes from the start of the content), ``length`` (bytes), ``line`` (1-based)."""

    offset: int
    length: int
    line: int


@dataclass(frozen=True, slots=True)
class Window:
    """The bytes around one match, or around several whose context overlaps.

    Attributes:
        match_offset: byte offset of the window's first match.
        offset: byte offset of the window's first byte (context before the first match, clipped at 0).
        data: the window's bytes: context, the matches and what lies between them, context.
        line: 1-based line of the first match.
        matches: every match in the window, in order (:class:`Hit`).
        line_cut: a window of whole lines (``context="line"``, :class:`~scratchfs.engine.line_windows.LineSink`):
            ``(the line goes on before the window, after it)`` -- a line longer than the window's bound; ``None`` for
            a window of bytes of context.
    """

    match_offset: int
    offset: int
    data: bytes
    line: int
    matches: tuple[Hit, ...]
    line_cut: tuple[bool, bool] | None = None

    @property
    def length(self) -> int:
        """Length of the window in bytes."""
        return len(self.data)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Windows found by :func:`search`, and where the next search starts (``None``: no match is left); ``stopped``:
    the pattern error (time limit, reach) that stopped the search at ``next_offset`` after its windows, else
    ``None``; ``held``: ``max_matches`` ended it before a window it would have cut (:attr:`Sink.whole`), so fewer
    are shown."""

    windows: list[Window]
    next_offset: int | None
    stopped: PatternTimeout | PatternTooLong | None = None
    held: bool = False


class Matcher(Protocol):
    """Finds the next match in a buffer (see :class:`LiteralMatcher` and :class:`PatternMatcher`)."""

    keep_before: int  # bytes of content a match decision may look at before its start

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        """Buffer index before which a match start found in this buffer is final."""
        ...

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        """The first match starting in ``buf[pos:limit]`` as ``(start, end)`` buffer indices, or ``None``.

        ``at_end``: the buffer ends where the content ends. ``base``: the buffer's offset in the content (for errors).
        """
        ...

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """If no match starting at or after content offset ``pos`` can lie in ``buf`` (content from ``base``) plus
        the next frame ``data`` (content from ``frame_start``, where ``buf`` ends), the longest match in bytes, so
        the search may drop all but that much of the frame's end unread; else 0."""
        ...


class LiteralMatcher:
    """Non-overlapping occurrences of a byte string (``bytes.find``)."""

    keep_before = 0

    def __init__(self, needle: bytes) -> None:
        if not needle:
            raise InvalidArgument("match must not be empty")
        self.needle = needle

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        return len(buf) if at_end else len(buf) - len(self.needle) + 1

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        found = buf.find(self.needle, pos)
        if found < 0 or found >= limit:
            return None
        return found, found + len(self.needle)

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        """No occurrence in the frame itself nor at its seam with ``buf`` (checked without joining them): the
        needle's length; else 0."""
        needle = self.needle
        width = len(needle)
        if data.find(needle, max(0, pos - frame_start)) >= 0:
            return 0
        if width > 1 and len(buf):
            seam_from = max(pos, frame_start - width + 1, base)
            if (bytes(buf[seam_from - base :]) + data[: width - 1]).find(needle) >= 0:
                return 0
        return width



class _Lines:
    """1-based line numbers of buffer positions, from the per-frame line counts: counted from the start of the
    position's frame or back from its end, whichever is nearer, so no byte is counted twice over a search."""

    __slots__ = ("bound", "bound_line", "d_offsets", "frame_at", "line_of_frame")

    def __init__(self, reader: SeekableReader, line_of_frame, bound: int) -> None:
        self.d_offsets = reader.table.d_offsets
        self.frame_at = reader.table.frame_at
        self.line_of_frame = line_of_frame
        self.bound = bound  # where the search's content ends (a frame past it is cut there)
        self.bound_line = 0  # the line of byte ``bound``, once the frame holding it was cut (:meth:`cut`)

    def cut(self, frame_start: int, data: bytes) -> bytes:
        """``data`` (the frame starting at content byte ``frame_start``) without its bytes from ``bound`` on, the
        line at ``bound`` noted (counted back from the frame's end, as :meth:`at` counts)."""
        if frame_start + len(data) <= self.bound:
            return data
        frame = self.frame_at(frame_start)
        self.bound_line = self.line_of_frame(frame + 1) - data.count(b"\n", self.bound - frame_start)
        return data[: max(0, self.bound - frame_start)]

    def at(self, buf: bytearray, base: int, offset: int) -> int:
        """Line of content byte ``offset``, which lies in a frame appended whole to ``buf`` (``buf[0]`` is content
        byte ``base``; a frame cut at ``bound``: up to it)."""
        frame = self.frame_at(offset)
        start, end = self.d_offsets[frame], self.d_offsets[frame + 1]
        if start >= base and offset - start <= end - offset:
            return self.line_of_frame(frame) + buf.count(b"\n", start - base, offset - base)
        if end > self.bound:  # the frame was cut at the bound: counted back from there
            return self.bound_line - buf.count(b"\n", offset - base, self.bound - base)
        return self.line_of_frame(frame + 1) - buf.count(b"\n", offset - base, end - base)


class Sink:
    """Takes the matches a :class:`Searcher` finds, in order: merges windows whose context overlaps, and says when
    the search must stop (``max_matches`` taken, or the next window would pass the budget).

    The budget's accounting is :meth:`cost` and :meth:`cut` alone (bytes of window today): a subclass may count
    another measure (e.g. serialized bytes) by replacing those two.

    Args:
        context: bytes of context on each side of a match.
        max_matches: most matches taken.
        budget: most the windows together may cost (see :meth:`cost`).
        size: the content's size in bytes (windows are clipped to it).

    ``floor`` (a content offset in bytes; 0 until :func:`search` sets it from its ``floor``): no window starts
    before it, so a bounded search's windows show the bytes from its offset on alone.
    """

    whole = False
    """A page of its windows ends only between windows, never among a window's matches (unless one window alone is
    over a page): a search ends before a window ``max_matches`` or the budget would cut (unless ``exact``), and one
    from the end leaves out a first window a match before it joins
    (:func:`~scratchfs.engine.last_matches.last_matches`); True for windows of lines, whose bytes a split window
    would show twice. Windows of bytes of context may be split (what comes twice is context)."""

    def __init__(self, context: int, max_matches: int, budget: int, size: int) -> None:
        self.context, self.max_matches, self.budget, self.size = context, max_matches, budget, size
        self.windows: list[Window] = []
        self.lo = self.hi = -1  # the open window (the one being built): content offsets
        self.hits: list[Hit] = []  # the open window's matches
        self.used = 0  # cost of the windows so far
        self.taken = 0  # matches taken so far
        self.floor = 0  # where windows start at the earliest: a bounded search's offset (search's ``floor``)
        self.exact = False  # takes max_matches even among a window's matches (search's ``exact``)
        self.held = False  # max_matches ended the search before a window it would have cut (SearchResult.held)

    def cost(self, lo: int, hi: int) -> int:
        """What a window over content ``[lo, hi)`` costs against the budget: its length in bytes."""
        return hi - lo

    def cut(self, lo: int, hi: int) -> int:
        """Where a lone window from ``lo`` must end to cost no more than the whole budget."""
        return min(hi, lo + self.budget)

    @property
    def open(self) -> bool:
        """A window is being built (its right context may still lie ahead of the buffer)."""
        return bool(self.hits)

    def expired(self) -> bool:
        """The search must stop before its next frame (never, here: a search stops at ``max_matches`` or the
        budget)."""
        return False

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        """Offer the match at content ``[start, end)``; ``line_of(offset)`` gives a 1-based line. ``buf`` holds
        the content from ``base`` (through the open window's end, for closing it).

        Returns:
            ``True`` if taken; ``False`` if the search must stop here (this match is the first one left out, or the
            one :meth:`left_from` names).
        """
        lo, hi = max(self.floor, start - self.context), min(self.size, end + self.context)
        merge = self.open and lo <= self.hi
        cost = self.cost(self.lo, max(hi, self.hi)) - self.cost(self.lo, self.hi) if merge else self.cost(lo, hi)
        if not self.taken and cost > self.budget:  # one match too long for any window: show its start, go on
            hi = self.cut(lo, hi)
            cost = self.cost(lo, hi)
        if self.taken == self.max_matches or self.used + cost > self.budget:
            return False
        if self.open and not merge:
            self.close(buf, base)
        if merge:
            self.hi = max(self.hi, hi)
        else:
            self.lo, self.hi = lo, hi
        self.hits.append(Hit(start, end - start, line_of(start)))
        self.used += cost
        self.taken += 1
        return True

    def left_from(self, start: int) -> int:
        """The first match left out once :meth:`take` refused the match at content offset ``start``: ``start`` here
        (a :class:`~scratchfs.engine.line_windows.LineSink` that gave back the open window's matches: its first)."""
        return start

    def close(self, buf: bytearray, base: int) -> None:
        """Finish the open window from ``buf`` (content from ``base``, through the window's end)."""
        data = bytes(buf[self.lo - base : self.hi - base])
        self.windows.append(Window(self.hits[0].offset, self.lo, data, self.hits[0].line, tuple(self.hits)))
        self.hits = []


class CountSink(Sink):
    """Counts the matches a :class:`Searcher` finds and the lines they start in (as ``grep -c`` counts lines),
    keeping no window, until ``deadline`` (a :func:`time.monotonic` time) passes: the search then stops before the
    next match or frame, and its ``next_offset`` is where counting goes on.

    Attributes:
        taken: matches counted. lines: lines holding the start of a counted match.
    """

    def __init__(self, deadline: float, size: int) -> None:
        super().__init__(0, 0, 0, size)
        self.deadline = deadline
        self.lines = 0
        self.last_line = 0  # the line the last counted match starts in
        self.last_end = -1  # where the last counted match ends (content offset), and its line there
        self.end_line = 0

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        if not self.taken % 256 and self.taken and self.expired():
            return False
        if base <= self.last_end <= start:  # counted on from the last match, whose end is still in the buffer
            line = self.end_line + buf.count(b"\n", self.last_end - base, start - base)
        else:
            line = line_of(start)
        self.lines += line != self.last_line
        self.last_line, self.last_end = line, end
        self.end_line = line + buf.count(b"\n", start - base, end - base)
        self.taken += 1
        return True


def count(reader: SeekableReader, matcher: Matcher, start: int, line_of_frame, deadline: float,
          end: int | None = None) -> tuple[int, int, int | None]:
    """Count the matches of ``matcher`` starting at or after byte ``start`` and the lines they start in, until the
    content ends (at byte ``end``, when given: :class:`Searcher`'s ``end``) or ``deadline`` (:func:`time.monotonic`)
    passes.

    Returns:
        ``(matches, lines, next_offset)``: ``next_offset`` is where counting goes on (the first byte whose matches
        were not counted), ``None`` when the count reached the end. A line holding matches on both sides of
        ``next_offset`` is counted by both counts. A substring that cannot overlap itself and holds no ``\n`` is
        counted by :func:`~scratchfs.engine.literal_count.count_literal` (``bytes.count`` a frame: the same answer).

    Raises:
        FormatError: a damaged frame. PatternTimeout, PatternTooLong: before any match was counted.
    """
    if isinstance(matcher, LiteralMatcher) and counts_fast(matcher.needle):  # (the same answer, at C speed)
        return count_literal(reader, matcher.needle, start, deadline, end)
    searcher = Searcher(reader, matcher, start, line_of_frame, end=end)
    sink = CountSink(deadline, searcher.size)
    next_offset = searcher.run(sink)
    return sink.taken, sink.lines, next_offset


class Searcher:
    """Streams a blob's frames into a sliding buffer and feeds the matches of ``matcher`` to a :class:`Sink`.

    Skips frames no match can start in (when the matcher can tell), trims the buffer behind the search (keeping
    the context, the matcher's look-behind and the open window), and turns a pattern error met after some matches
    into ``next_offset`` (the next call meets the error).

    Args:
        reader: the blob.
        matcher: what to find.
        start: content offset where the search starts (matches start at or after it).
        line_of_frame: ``f(frame index) -> 1-based line number of the frame's first byte``.
        stop: content offset the search need not decide matches past: it reads no frame once every match starting
            before it is decided (``None``: the end). Its sink refuses the matches starting at or after it.
        end: content offset the content is taken to end at (``None``: its size): no byte from it is read, so every
            match lies wholly before it and ``$`` and lookahead see it as the end, as ``re``'s ``endpos`` has it.
    """

    def __init__(self, reader: SeekableReader, matcher: Matcher, start: int, line_of_frame,
                 stop: int | None = None, end: int | None = None) -> None:
        self.reader, self.matcher = reader, matcher
        self.size = reader.table.size if end is None else min(end, reader.table.size)
        self.bounded = self.size < reader.table.size  # (a pattern error's advice then says end= too)
        self.lines = _Lines(reader, line_of_frame, self.size)
        self.buf = bytearray()
        self.base = 0  # content offset of buf[0]
        self.pos = start  # content offset where the next match may start
        self.next_offset: int | None = None
        self.stop = self.size if stop is None else stop
        self.stopped: PatternTimeout | PatternTooLong | None = None  # the pattern error that set next_offset

    def run(self, sink: Sink) -> int | None:
        """Search to the end of the content or until ``sink`` stops it; the open window is closed.

        Returns:
            the content offset of the first match left out (or where a pattern error stood, or where a sink that
            :meth:`Sink.expired` stopped it before a frame, once the search got past its start), or ``None``.

        Raises:
            FormatError: a damaged frame. PatternTimeout, PatternTooLong: before any match was taken.
        """
        if self.pos >= self.size:
            return None
        keep = max(sink.context, self.matcher.keep_before)
        start = self.pos
        first = self.reader.table.frame_at(max(0, self.pos - keep))
        self.base = self.reader.table.d_offsets[first]
        for frame_start, data in self.reader.iter_frames(first, batch_bytes=1024 * 1024, ahead=READ_AHEAD):
            if self.pos >= self.stop and not sink.open:  # every match starting before stop is decided
                break
            data = self.lines.cut(frame_start, data)  # (the content ends at self.size)
            if self.next_offset is None and self.pos > start and sink.expired():  # a count's time bound, once it
                # got on: it goes on from here
                self.next_offset = self.pos
                break
            if self.next_offset is None and self._skip(sink, frame_start, data):
                continue
            self.buf += data
            end = self.base + len(self.buf)
            at_end = end >= self.size
            if self.next_offset is None:
                self._scan(sink, at_end)
            if self.next_offset is not None or at_end:
                if not sink.open or sink.hi <= end:
                    break
                continue  # read on until the open window's right context is in the buffer
            self._trim(sink, keep)
        if sink.open:
            sink.close(self.buf, self.base)
        return self.next_offset

    def _skip(self, sink: Sink, frame_start: int, data: bytes) -> bool:
        """Drop a frame no match starts in (nor at its seam with the buffer), keeping only the tail later matches
        may need (their context before, a match's start), without copying the frame into the buffer. A window still
        open is complete then: no later match can reach it."""
        end = frame_start + len(data)
        if end >= self.size:
            return False
        width = self.matcher.skippable(self.buf, self.base, self.pos, data, frame_start)
        if not width or (sink.open and not (sink.hi <= frame_start and end - width + 1 - sink.context > sink.hi)):
            return False
        if sink.open:
            sink.close(self.buf, self.base)
        tail = sink.context + width
        self.buf = (self.buf + data)[-tail:] if len(data) < tail else bytearray(data[len(data) - tail :])
        self.base = end - len(self.buf)
        self.pos = max(self.pos, end - width + 1)
        return True

    def _scan(self, sink: Sink, at_end: bool) -> None:
        """Feed ``sink`` the matches that start in the buffer before the matcher's limit; a pattern error after
        some matches sets ``next_offset`` to where it stood, before any it is raised."""
        buf, base, matcher = self.buf, self.base, self.matcher
        try:
            limit = base + matcher.limit(buf, self.pos - base, at_end, base)
            while self.pos < limit:
                found = matcher.find(buf, self.pos - base, limit - base, at_end, base)
                if found is None:
                    self.pos = limit  # no match starts before the limit
                    return
                start, end = base + found[0], base + found[1]
                if not sink.take(start, end, self._line_of, buf, base):
                    self.next_offset = sink.left_from(start)
                    return
                self.pos = end
        except (PatternTimeout, PatternTooLong) as exc:
            if not sink.taken and self.bounded:
                raise _bounded_error(exc, self.size) from None
            if not sink.taken:
                raise
            self.next_offset = exc.resume_offset  # return what was found; the next call meets the error
            self.stopped = exc

    def _line_of(self, offset: int) -> int:
        return self.lines.at(self.buf, self.base, offset)

    def _trim(self, sink: Sink, keep: int) -> None:
        """Drop the buffer's bytes no later match, window or line count can need."""
        cut = min(self.pos - keep, sink.lo if sink.open else self.pos)
        if cut > self.base:
            del self.buf[: cut - self.base]
            self.base = cut


def _bounded_error(error: PatternTimeout | PatternTooLong, end: int) -> PatternTimeout | PatternTooLong:
    """``error`` (met by a search that ends at byte ``end``, short of the content's end) saying so: the offsets its
    advice names are a search's with ``end=`` too, which a search without it would pass."""
    said = f" (with end={end}, as this search: without it a search goes on past byte {end})"
    way = error.search_on
    return type(error)(f"{error}{said}" if way is None else replace(way, tail=way.tail + said), error.resume_offset,
                       error.skip_offset)


def search(reader: SeekableReader, matcher: Matcher, start: int, context: int, max_matches: int, budget: int,
           line_of_frame, sink_class: type[Sink] = Sink, end: int | None = None, floor: int = 0,
           exact: bool = False) -> SearchResult:
    """Find matches at or after byte ``start`` and cut merged context windows around them.

    Args:
        reader: the blob.
        matcher: what to find.
        start: content offset where the search starts (matches start at or after it; context may reach before,
            down to ``floor``).
        context: bytes of context on each side of a match.
        max_matches: most matches returned.
        budget: most bytes all windows together may hold; needs ``budget >= 2 * context + longest match``.
        line_of_frame: ``f(frame index) -> 1-based line number of the frame's first byte``.
        sink_class: the :class:`Sink` to collect windows (a subclass may count the budget another way).
        end: where the content searched ends (``None``: its size): matches lie wholly before it, as
            ``re.finditer(content, start, end)`` finds them, and windows' context stops there.
        floor: where windows' context stops before (0: the content's start; a bounded search's offset, so that
            its windows show the bytes ``[floor, end)`` alone, as a range read from ``floor`` to ``end`` does).
        exact: the search ends at ``max_matches`` (or the budget) even among a window's matches, for a sink whose
            pages end between windows (:attr:`Sink.whole`: it gives that window back) -- a search from the end
            showing the matches it counted.

    Returns:
        :class:`SearchResult`; its ``next_offset`` is the first match not returned, or ``None`` when none is left.
        A first match whose window would not fit ``budget`` comes cut to the budget (its :class:`Hit` keeps its
        whole length), so a search always gets past it.
        When a pattern error (time limit, reach) comes after some matches were found, those are returned,
        ``next_offset`` is where the error stood, so the next call meets it, and ``stopped`` is the error.

    Raises:
        FormatError: a damaged frame. PatternTimeout, PatternTooLong: from a
            :class:`~scratchfs.engine.patterns.PatternMatcher`, before any match was found.
    """
    searcher = Searcher(reader, matcher, start, line_of_frame, end=end)
    sink = sink_class(context, max_matches, budget, searcher.size)
    sink.floor, sink.exact = floor, exact
    next_offset = searcher.run(sink)
    return SearchResult(sink.windows, next_offset, searcher.stopped, sink.held)
