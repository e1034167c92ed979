"""The last matches of a search: the tail of what a forward search gives, found reading from the end.

What the result equals: of the matches a forward :func:`~scratchfs.engine.search.search` from ``start`` finds (the
non-overlapping left-to-right sequence), those that start before ``before``, the last ``max_matches`` of them (fewer
when their windows pass the budget), in file order, with the same windows, lines and merging.

How, without a scan from ``start``: the forward sequence from a *sync point* ``p`` -- a byte that no match, of any
start, straddles -- is the forward sequence from ``start`` restricted to the matches at or after ``p`` (the scan from
``start`` reaches ``p`` with no match open, and a match's extent depends only on where it starts). So the engine takes
a piece ``[p, hi)`` before ``before`` (256 KiB, doubling up to 4 MiB), collects its matches with the forward
:class:`~scratchfs.engine.search.Searcher`, and steps back piece by piece until ``max_matches`` matches are held
(or ``start`` is reached: a search from the end never proves that no match precedes the ones it holds, which would
cost a pass over all the bytes before them); the windows are then the forward search from the first match kept
(itself a sync point).
Sync points:

* a substring (:class:`~scratchfs.engine.search.LiteralMatcher`): a byte no occurrence of the needle straddles
  (found by stepping back over the occurrences that do, for a needle that overlaps itself, ``aa``);
* a pattern that can never match or look at ``\\n`` (``PatternMatcher.mode == "lines"``): a line's start.

A pattern that can span lines (``mode`` ``"bounded"`` or ``"reach"``) has no sync point known without deciding every
start before it: it is searched forward from ``start`` (keeping only the last matches), bounded by ``deadline``; a
search the deadline stops says where it got (:attr:`LastResult.resume`) and searches on from there. So does a needle
that overlaps itself along more than :data:`MAX_STEPS_BACK` occurrences (a run of ``a`` searched for ``aa``).

Cost: the pieces read from the end (and a frame for a sync point), not the content -- ``bench/last_match.py``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from scratchfs.engine.search import LiteralMatcher, Matcher, PatternMatcher, Searcher, Sink, Window, search
from scratchfs.engine.seekable import SeekableReader

__all__ = ["FIRST_PIECE_BYTES", "MAX_PIECE_BYTES", "MAX_STEPS_BACK", "LastResult", "TailSink", "last_matches",
           "sync_point", "syncs"]

FIRST_PIECE_BYTES = 256 * 1024
"""Bytes before ``before`` the first piece takes; each piece further back is twice the one before, up to
:data:`MAX_PIECE_BYTES`."""
MAX_PIECE_BYTES = 4 * 1024 * 1024
"""Largest piece: a piece is searched whole, so this bounds how far past the last match the search reads (with
pieces doubling without bound, a match 25 MB from the end was found in a 16 MiB piece read to its start: twice the
bytes of a forward pass from there)."""
MAX_STEPS_BACK = 4096
"""Most occurrences of a self-overlapping needle stepped back over to find a sync point before the search goes
forward instead."""
_LINE_LOOK = 64 * 1024  # bytes read at a time looking back for a line's start


@dataclass(frozen=True, slots=True)
class LastResult:
    """The last matches found by :func:`last_matches`.

    Attributes:
        windows: the windows, in file order (as :func:`~scratchfs.engine.search.search` cuts them).
        next_before: the first match shown when bytes before it (from ``start``) are left unsearched -- the search
            stops once it holds ``max_matches``, so matches *may* start before it (the next call says) -- or when the
            budget left matches out: the next call's ``before``; ``None`` when no match starts before it.
        resume: a forward search stopped by its deadline: the byte it got to (its matches are not shown; the search
            goes on from it, ``before`` the same); else ``None``.
        backward: the matches were found reading back from ``before`` (``False``: searched forward from ``start``).
    """

    windows: list[Window]
    next_before: int | None
    resume: int | None = None
    backward: bool = True


class TailSink(Sink):
    """Keeps the spans ``(start, end)`` of the last ``keep`` matches starting before ``stop``, no window; refuses a
    match at or after ``stop`` and, past ``deadline`` (:func:`time.monotonic`, ``None``: none), stops before the next
    match or frame. Without a deadline (a piece read back) ``taken`` stays 0, so a pattern error is raised; with one
    (a forward search) a pattern error after a match becomes the place to search on from, as a count's does."""

    def __init__(self, keep: int, stop: int, deadline: float | None, size: int) -> None:
        super().__init__(0, 0, 0, size)
        self.spans: deque[tuple[int, int]] = deque(maxlen=keep)
        self.stop, self.deadline = stop, deadline
        self.seen = 0  # matches taken (taken stays 0)

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        if start >= self.stop:
            return False
        if self.seen % 256 == 255 and self.expired():
            return False
        self.spans.append((start, end))
        self.seen += 1
        if self.deadline is not None:
            self.taken = self.seen
        return True


def sync_point(reader: SeekableReader, matcher: Matcher, at: int, start: int) -> int | None:
    """A sync point at or before ``at`` and at or after ``start`` (``start`` itself is one), or ``None`` when the
    matcher has none this engine can find (a pattern that can span lines; a needle overlapping itself over
    :data:`MAX_STEPS_BACK` occurrences)."""
    if not syncs(matcher):
        return None
    if at <= start:
        return start
    if isinstance(matcher, LiteralMatcher):
        return _literal_sync(reader, matcher.needle, at, start)
    while at > start:  # the start of the line holding byte ``at`` (a \n before it), or ``start``
        lo = max(start, at - _LINE_LOOK)
        found = reader.read(lo, at - lo).rfind(b"\n")
        if found >= 0:
            return lo + found + 1
        at = lo
    return start


def syncs(matcher: Matcher) -> bool:
    """The matcher has sync points this engine finds: a substring, or a pattern within lines."""
    return isinstance(matcher, LiteralMatcher) or (isinstance(matcher, PatternMatcher) and matcher.mode == "lines")


def _literal_sync(reader: SeekableReader, needle: bytes, at: int, start: int) -> int | None:
    """A byte at or before ``at`` that no occurrence of ``needle`` straddles: ``at``, or the start of the occurrence
    straddling it, stepped back until none does."""
    width = len(needle)
    for _ in range(MAX_STEPS_BACK):
        if at <= start or width == 1:
            return max(at, start)
        lo = max(0, at - width + 1)
        around = reader.read(lo, at + width - 1 - lo)
        found = around.find(needle)
        if found < 0 or lo + found >= at:
            return at
        at = lo + found  # the first occurrence straddling ``at``: step back to its start
    return None


def last_matches(reader: SeekableReader, matcher: Matcher, start: int, before: int, context: int, max_matches: int,
                 budget: int, line_of_frame, sink_class: type[Sink] = Sink, deadline: float | None = None,
                 first_piece: int = FIRST_PIECE_BYTES, end: int | None = None) -> LastResult:
    """The last matches of ``matcher`` that a forward search from byte ``start`` finds starting before byte
    ``before``, at most ``max_matches`` and ``budget`` bytes of windows (``context``, ``sink_class`` as
    :func:`~scratchfs.engine.search.search` takes them), in file order (see the module docstring).

    Args:
        deadline: a :func:`time.monotonic` time bounding a forward search (a pattern that can span lines).
        first_piece: bytes of the first piece read back (:data:`FIRST_PIECE_BYTES`; tests use fewer).
        end: where the content searched ends (``None``: its size; at least ``before``): the forward search is
            :func:`~scratchfs.engine.search.search`'s with that ``end`` (matches wholly before it) and windows show
            bytes ``[start, end)`` alone.

    Returns:
        :class:`LastResult`. When the budget holds fewer than ``max_matches`` windows, the last ones it holds.

    Raises:
        FormatError: a damaged frame. PatternTimeout, PatternTooLong: a pattern error in the bytes read (its
            ``resume_offset`` says where: a search from past it, ``offset=``, finds the matches after it).
    """
    if before <= start:
        return LastResult([], None)
    spans: deque[tuple[int, int]] = deque()
    hi, piece, at = before, first_piece, start
    backward, dropped = True, False  # dropped: a piece held more matches than were kept
    while hi > start and len(spans) < max_matches:
        at = sync_point(reader, matcher, max(start, hi - piece), start)
        if at is None:  # no sync point: forward from start, bounded by the deadline
            backward, at = False, start
        searcher = Searcher(reader, matcher, at, line_of_frame, stop=hi, end=end)
        sink = TailSink(max_matches - len(spans), hi, None if backward else deadline, searcher.size)
        stopped = searcher.run(sink)
        if stopped is not None and stopped < hi:  # the deadline: searched on from there
            return LastResult([], before, resume=stopped, backward=False)
        spans.extendleft(reversed(sink.spans))
        dropped = sink.seen > len(sink.spans)
        hi, piece = at, min(piece * 2, MAX_PIECE_BYTES)
    count = len(spans)
    if not count:
        return LastResult([], None, backward=backward)
    while True:  # the windows of the last ``count``; fewer when the budget holds fewer
        first = spans[-count][0]
        found = search(reader, matcher, first, context, count, budget, line_of_frame, sink_class, end,
                       floor=0 if end is None else start)  # (bounded: no window shows a byte before start either)
        taken = sum(len(w.matches) for w in found.windows)
        if taken >= count or count == 1:  # (one match is always shown, cut to the budget by the reply: no loop)
            break
        count = max(1, taken)
    more = count < len(spans) or hi > start or dropped
    return LastResult(found.windows, first if more else None, backward=backward)
