"""Search windows of whole lines (``context="line"``): each window is the line that holds its matches, as ``grep``
prints it, bounded on each side of the matches so that a very long line (minified JavaScript, a 3 MB line of JSON)
does not fill a reply.

The window of a match at content bytes ``[s, e)`` (the rule :class:`LineSink` follows, and the tests' reference):

* it starts at the start of the line holding byte ``s`` (just after the ``\\n`` before it, or at 0), but at most
  :data:`~scratchfs.foundation.limits.LINE_WINDOW_BYTES` (``B``) before ``s``;
* it ends at the end of the line holding byte ``e - 1``: before its ``\\n``, and before the ``\\r`` of a ``\\r\\n``
  line end (a CRLF line's ``\\r`` is not part of the line shown), but at most ``B`` bytes after ``e``, and never
  before ``e`` (a match that takes in a line end shows it);
* a window cut by ``B`` says so: :attr:`~scratchfs.engine.search.Window.line_cut` is ``(the line goes on before,
  the line goes on after)``;
* windows merge as byte-context windows do: the next match joins the open window when its window starts at or
  before the open one's end -- several matches in one line (within ``2 * B`` of each other) make one window;
* a search ends between windows, never among a window's matches (its bytes would come again on the next page, with
  the rest of them): a match ``max_matches`` or the budget refuses that would join the open window gives that window
  back when others precede it (the search's next offset is its first match,
  :meth:`~scratchfs.engine.search.Sink.left_from`); alone, it takes past ``max_matches`` or the budget the
  matches its bytes show (they cost none, and left out the next page would show those bytes again), then ends at the
  first match past them (a line longer than the bound comes in pieces). From the end,
  :func:`~scratchfs.engine.last_matches.last_matches` keeps to the same (:attr:`LineSink.whole`).

Lines end at ``\\n`` only, as :mod:`scratchfs.engine.lines` counts them; a lone ``\\r`` ends nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from scratchfs.engine.search import Hit, Sink, Window
from scratchfs.foundation.limits import LINE_WINDOW_BYTES

__all__ = ["LineSink"]


class LineSink(Sink):
    """A :class:`~scratchfs.engine.search.Sink` whose windows are the lines holding the matches (see the module
    docstring for the rule). The search keeps ``B + 1`` bytes before each match in its buffer (to find the line's
    start, or that it starts before the bound) and reads on to ``B + 2`` bytes after the last one (its end, or that
    it goes on past the bound, a ``\\r\\n`` included), as a byte-context search does for its context.

    Args:
        context: not used (the bound is :data:`~scratchfs.foundation.limits.LINE_WINDOW_BYTES`); as
            :class:`~scratchfs.engine.search.Sink` takes it.
        max_matches, budget, size: as :class:`~scratchfs.engine.search.Sink`; ``budget`` must be at least
            ``2 * B + 5`` bytes for a match of one byte to show its whole window.
    """

    whole = True

    def __init__(self, context: int, max_matches: int, budget: int, size: int) -> None:
        super().__init__(LINE_WINDOW_BYTES + 1, max_matches, budget, size)
        self.bound = LINE_WINDOW_BYTES
        self.last = (0, 0)  # the open window's last match, [start, end): its line end is the window's end
        self.before = False  # the open window's line goes on before it
        self.known = True  # the open window's ``hi`` is its end (else an upper bound: its line end lies ahead)
        self.limit: int | None = None  # where a first match too long for the budget cuts its window
        self.given_back: int | None = None  # the first match of the open window given back (:meth:`_give_back`)
        self.capped = False  # max_matches or the budget reached: only matches the open window shows are taken

    def _start(self, buf: bytearray, base: int, start: int) -> tuple[int, bool]:
        """``(window start, the line goes on before it)`` of a match at content byte ``start``."""
        frm = max(self.floor, start - self.bound - 1, base)  # (a bounded search's floor is its content's start)
        at = buf.rfind(b"\n", frm - base, start - base)
        if at >= 0:
            return base + at + 1, False
        if start - self.bound - 1 < self.floor:
            return self.floor, False
        return start - self.bound, True

    def _end(self, buf: bytearray, base: int, start: int, end: int) -> tuple[int, bool, bool]:
        """``(window end, the line goes on after it, known)`` of a match at ``[start, end)``: ``known`` False when
        the buffer ends before the line's end or the bound does; the end is then where the buffer must reach."""
        reach = end + self.bound
        frm, stop = max(start, end - 1), min(self.size, reach + 2)
        look = min(stop, base + len(buf))
        at = buf.find(b"\n", frm - base, look - base)
        if at >= 0:
            newline = base + at  # (a \r before it is the CRLF line end's, not shown; a match holding it is)
            text_end = newline - 1 if newline > base and buf[newline - 1 - base] == 0x0D else newline
        elif look < stop:
            return stop, True, False
        else:
            text_end = self.size if stop == self.size else reach + 1  # the line goes on past the bound
        hi = max(end, min(text_end, reach))
        return hi, text_end > hi, True

    def take(self, start: int, end: int, line_of: Callable[[int], int], buf: bytearray, base: int) -> bool:
        if self.open and not self.known:  # the buffer reached further since: its end may be known now
            self._settle(buf, base)
        lo, before = self._start(buf, base, start)
        hi, _, known = self._end(buf, base, start, end)
        reach = self.hi if self.known else min(self.size, self.last[1] + self.bound)  # (its end is at most this)
        merge = self.open and lo <= reach
        cost = hi - self.hi if merge else hi - lo  # (merged: the window ends where its last match's line does)
        limit = None
        if not self.taken and cost > self.budget:  # one match too long for any window: show its start, go on
            limit = hi = self.cut(lo, hi)
            cost = hi - lo
        if self.capped or self.taken >= self.max_matches or self.used + cost > self.budget:
            if merge and self.known and end <= self.hi and not self.exact and not self.windows:
                return self._take_shown(start, end, line_of)
            if merge and self.windows and not self.exact:  # (a line's matches would end this page part-way: it
                # is the next page's)
                self._give_back()
            return False
        if self.open and not merge:
            self.close(buf, base)
        if merge:  # a later match's line ends no earlier: its end (or bound) is the window's, an upper bound of
            self.hi = hi  # the open one's given back if it was one
        else:
            self.lo, self.hi, self.before, self.limit = lo, hi, before, limit
        self.last, self.known = (start, end), known
        self.hits.append(Hit(start, end - start, line_of(start)))
        self.used += cost
        self.taken += 1
        return True

    def _take_shown(self, start: int, end: int, line_of: Callable[[int], int]) -> bool:
        """Take a match past ``max_matches`` or the budget whose bytes the open window shows (it ends no later), the
        window as it is: left out, the next page would show its line's bytes again. The search then takes no match
        but such ones (:attr:`capped`)."""
        self.hits.append(Hit(start, end - start, line_of(start)))
        self.taken += 1
        self.capped = True
        return True

    def left_from(self, start: int) -> int:
        return start if self.given_back is None else self.given_back

    def _give_back(self) -> None:
        """Drop the open window, its matches and cost: the search's next call starts at its first match."""
        self.given_back, self.held = self.hits[0].offset, self.taken >= self.max_matches
        self.taken -= len(self.hits)
        self.used -= self.hi - self.lo
        self.hits = []

    def _settle(self, buf: bytearray, base: int) -> tuple[int, bool]:
        """The open window's end and whether its line goes on after it, found again in ``buf`` (the budget given
        back what an upper bound took more)."""
        hi, after, known = self._end(buf, base, *self.last)
        if self.limit is not None and hi > self.limit:
            hi, after = self.limit, True
        if known:
            self.used -= self.hi - hi
            self.hi, self.known = hi, True
        return hi, after

    def close(self, buf: bytearray, base: int) -> None:
        """Finish the open window from ``buf`` (content from ``base``, through ``B + 2`` bytes past its last match,
        or the end)."""
        hi, after = self._settle(buf, base)
        data = bytes(buf[self.lo - base : hi - base])
        self.windows.append(Window(self.hits[0].offset, self.lo, data, self.hits[0].line, tuple(self.hits),
                                   (self.before, after)))
        self.hits = []
