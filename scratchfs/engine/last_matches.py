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
(itself a sync point). A sink whose windows are kept whole (:attr:`~scratchfs.engine.search.Sink.whole`: lines)
starts the result at a window's first match: a first window whose line's first matches precede it (the count held
began among them) is left to the next call when other windows follow, and, alone, takes those first matches too when
they fit the budget (else the line, over ``max_matches`` or the budget, comes in pieces); that costs one search
from a match before the bytes such a window fits in (at most the budget and a window's reach before it). A first
window whose bytes show matches before its first takes them past ``max_matches`` (one search of its bytes): left to
the next call, its bytes would come again.
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
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from scratchfs.engine.search import Hit, LiteralMatcher, Matcher, PatternMatcher, Searcher, Sink, Window, search
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
_NO_BUDGET = 1 << 62  # (windows searched whole to count their matches: a budget no window reaches)


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
        held: ``max_matches`` ended the matches after a window it would have cut (a line's: :attr:`Sink.whole`),
            left to the next call, so fewer are shown.
    """

    windows: list[Window]
    next_before: int | None
    resume: int | None = None
    backward: bool = True
    held: bool = False


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
    prior: tuple[int, int] | None = None  # the match before the kept ones, when a piece held it too
    while hi > start and len(spans) < max_matches:
        at = sync_point(reader, matcher, max(start, hi - piece), start)
        if at is None:  # no sync point: forward from start, bounded by the deadline
            backward, at = False, start
        searcher = Searcher(reader, matcher, at, line_of_frame, stop=hi, end=end)
        sink = TailSink(max_matches - len(spans) + 1, hi, None if backward else deadline, searcher.size)
        stopped = searcher.run(sink)
        if stopped is not None and stopped < hi:  # the deadline: searched on from there
            return LastResult([], before, resume=stopped, backward=False)
        spans.extendleft(reversed(sink.spans))
        prior = spans.popleft() if len(spans) > max_matches else None
        dropped = sink.seen > len(sink.spans) or prior is not None
        hi, piece = at, min(piece * 2, MAX_PIECE_BYTES)
    count = len(spans)
    if not count:
        return LastResult([], None, backward=backward)
    while True:  # the windows of the last ``count``; fewer when the budget holds fewer
        first = spans[-count][0]
        found = search(reader, matcher, first, context, count, budget, line_of_frame, sink_class, end,
                       floor=0 if end is None else start, exact=True)  # (bounded: no window shows a byte before
        # start either; exact: the matches counted, the last window's line cut at ``before`` if it goes on past it)
        taken = sum(len(w.matches) for w in found.windows)
        if taken >= count or count == 1:  # (one match is always shown, cut to the budget by the reply: no loop)
            break
        count = max(1, taken)
    windows, held = found.windows, False
    look = _Look(reader, matcher, line_of_frame, sink_class, start, end, context, budget)
    if sink_class.whole and (count < len(spans) or hi > start or dropped):  # (a page of lines starts at a line's
        counted = count  # first match)
        count, windows = _whole_first(look, list(spans), count, windows, prior, hi <= start and not dropped)
        first, held = spans[-count][0], count < counted == len(spans)  # (the budget held them all)
    windows, more = _shown_before(look, windows, count < len(spans) or hi > start or dropped)
    return LastResult(windows, windows[0].matches[0].offset if more else None, backward=backward, held=held)


def _shown_before(look: _Look, windows: list[Window], more: bool) -> tuple[list[Window], bool]:
    """``windows`` (the last matches from ``look.start`` on, ``more``: matches may precede them; of lines) with the
    matches its first window's bytes show before its first match taken into it -- its line's first matches, over
    ``max_matches``: left to the next page they would bring the line's bytes again --, and whether a match may
    precede them (``True`` unless the search from a sync point at or before ``start`` finds none)."""
    if not (more and look.sink_class.whole):  # (no match before them: they are all shown)
        return windows, more
    window, start = windows[0], look.start
    first = window.matches[0].offset
    at = sync_point(look.reader, look.matcher, window.offset, start)
    if at is None:
        return windows, True
    searcher = Searcher(look.reader, look.matcher, at, look.line_of_frame, stop=first, end=look.end)
    sink = TailSink(first - at + 2, first, None, searcher.size)  # (every match from ``at``: one a byte at most)
    searcher.run(sink)
    shown = [Hit(s, e - s, window.line) for s, e in sink.spans if s >= window.offset]  # (the window's line: it
    # starts at a line's start or after)
    taken = replace(window, match_offset=shown[0].offset, matches=(*shown, *window.matches)) if shown else window
    return [taken, *windows[1:]], at > start or len(shown) < len(sink.spans)


@dataclass(frozen=True, slots=True)
class _Look:
    """A search :func:`last_matches` makes again from another match: its reader, matcher, lines, sink, ``start``,
    ``end``, ``context`` and ``budget`` (bytes of windows)."""

    reader: SeekableReader
    matcher: Matcher
    line_of_frame: Callable[[int], int]
    sink_class: type[Sink]
    start: int
    end: int | None
    context: int
    budget: int

    def search(self, first: int, count: int, budget: int | None = None) -> list[Window]:
        """The windows of ``count`` matches from the one at byte ``first`` (``budget``: the search's, else)."""
        return search(self.reader, self.matcher, first, self.context, count, self.budget if budget is None else budget,
                      self.line_of_frame, self.sink_class, self.end,
                      floor=0 if self.end is None else self.start, exact=True).windows


def _whole_first(look: _Look, spans: list[tuple[int, int]], count: int, windows: list[Window],
                 prior: tuple[int, int] | None, alone: bool) -> tuple[int, list[Window]]:
    """The last matches of ``spans`` a page shows, ``count`` and their ``windows``, starting at a window's first
    match (``windows[0]`` the whole window of its matches, as a forward search from before finds it): a first
    window that a match before it joins (a line whose first matches precede it) is the next page's when others
    follow it; alone, it takes the line's first matches too when they fit the budget, else (a line's matches over
    ``max_matches`` or a page) it stays: the line comes in pieces. ``prior``: the match before ``spans`` a piece
    held; ``alone``: none precedes ``spans`` (all was read)."""
    window, kept = windows[0], len(spans) - count  # (spans[kept]: the first match kept)
    known = prior is not None or alone
    if kept:
        chain = _chain_start(look, spans, kept, window, prior, known)
        joined = chain is None or chain < kept
    else:  # (joined, the line's matches go past max_matches: it is shown whole on no page)
        chain, joined = None, _joins(look, window, prior, known)
    if not joined:
        return count, windows
    if len(windows) > 1:
        return count - len(window.matches), windows[1:]
    if chain is not None:
        wider = look.search(spans[chain][0], len(spans) - chain)
        if sum(len(w.matches) for w in wider) >= len(spans) - chain:
            return len(spans) - chain, wider
    return count, windows


def _chain_start(look: _Look, spans: list[tuple[int, int]], kept: int, window: Window,
                 prior: tuple[int, int] | None, known: bool) -> int | None:
    """The index in ``spans`` of the first match of the whole window holding ``spans[kept]`` (of which ``window``
    was kept), searched forward from the last match before the bytes such a window within the budget could start
    from (or the first); ``None`` when it starts there and may start before (it is then over the budget or
    ``max_matches``). ``prior``, ``known``: the match before ``spans`` as :func:`_joins` takes it."""
    lowest = window.offset + len(window.data) - look.budget - _reach(look) - 1
    at = max(0, bisect_right([s for s, _ in spans[:kept]], lowest) - 1)
    whole = look.search(spans[at][0], kept - at + 1, _NO_BUDGET)[-1]  # (exactly spans[at:kept + 1]'s windows)
    chain = kept + 1 - len(whole.matches)
    if chain > at:
        return chain
    return None if at or _joins(look, whole, prior, known) else 0


def _reach(look: _Look) -> int:
    """Bytes of content a window of ``look``'s sink shows a side of its matches, at most."""
    return look.sink_class(look.context, 1, look.budget, look.reader.table.size).context


def _joins(look: _Look, window: Window, prior: tuple[int, int] | None, known: bool) -> bool:
    """Whether the match before ``window``'s first joins ``window`` (is in one window with it), so that ``window``
    shows its line's last matches alone. ``prior``: that match's span, or ``None`` for none when ``known``; not
    ``known``, it is found from a sync point before the bytes a window joining ``window`` could start from (a match
    before it ends before them: its window ends before ``window``'s start)."""
    first = window.matches[0].offset
    if not known:
        at = sync_point(look.reader, look.matcher, max(look.start, window.offset - _reach(look) - 1), look.start)
        if at is None:
            return False
        searcher = Searcher(look.reader, look.matcher, at, look.line_of_frame, stop=first, end=look.end)
        sink = TailSink(1, first, None, searcher.size)
        searcher.run(sink)
        prior = sink.spans[0] if sink.spans else None
    if prior is None:
        return False
    pair = look.search(prior[0], 2, _NO_BUDGET)
    return len(pair) == 1 and len(pair[0].matches) == 2
