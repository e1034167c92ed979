"""Each row of a table aligned by spaces read under the header's columns -- or, when that is not certain, given
whole (:data:`UNSPLIT`), never cut wrong.

The columns' starts (:class:`~scratchfs.engine.structure.aligned.Layout`) come from the first lines only; a later row
may hold a value wider than its column (``ps``' larger ``VSZ``, a long path in ``df``), which either extends left
(a number right-aligned under its name) or pushes the cells after it right (``ps`` and ``top`` print each cell at
its place when it fits, else one space after the one before), and any row may leave a cell empty (``docker ps``'
``PORTS``). What a row's cells are is told from where its words stand (a word: a run of non-spaces), as a person
reads them under the header:

- each column's cells, in the first lines, start at one position (*left-aligned*), or end at one (*right-aligned*,
  numbers), or both, or neither (*free*); a column with no cell there takes its name's start and end;
- a cell is the words of one column: it starts where its column's cells start or ends where they end, or it is
  *pushed*: the cell before it (or the line's start) reaches too near to where it would stand, and it starts 1 to
  ``pad`` spaces after that cell (at 0; ``pad``: the fewest spaces between the cells of two neighbouring columns
  in the first lines -- not across an empty cell, which widens the space: ``lsof``'s kernel threads); a cell of
  a free column starts within its column's span, or is pushed past its start;
- within a cell (the last column's aside, which takes the rest of the line -- unless it is placed by its end), words
  are at most ``gap`` spaces apart:
  the most its column's cells of the first lines hold (0: one word), or ``pad - 1`` up to 2 when they hold none; a
  word where a later column's cells start or end is no word of an earlier cell;
- any cell may be empty.

A row whose words can be grouped so in one way only is split so; one with no such grouping or several is
:data:`UNSPLIT`. A row whose cut at the columns' starts already meets these rules, no other grouping possible, costs
one pass over its words before the last column's start: the words after its first word there are the last cell's,
in that cut, and are told apart only by whether a gap of more than its ``gap`` parts two of them (a search of the
line's text: a row of 500,000 words took 0.3 to 0.9 s a read when every word was read, every read past it too,
hostile7; ``tests/test_aligned_fit.py::test_a_row_of_half_a_million_words_is_cut_in_one_search`` times its cut,
:meth:`Fit.cells`, under 0.1 s now). One that must be grouped otherwise and is longer than
:data:`MAX_GROUPED_CHARS` is :data:`UNSPLIT`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

__all__ = ["UNSPLIT", "Fit", "learn_fit"]

UNSPLIT = None
"""What :meth:`Fit.cells` gives for a row whose cells cannot be told for certain."""
_WORD = re.compile(r"[^ ]+")
MAX_GROUPED_CHARS = 65536
"""Longest row whose words are grouped otherwise than by the columns' starts (longer: :data:`UNSPLIT`)."""
_CAP = 2  # groupings counted: one, or more than one
_GAP = 2  # most spaces between two words of a cell of a column empty in the first lines (``Up 2 hours``)


@dataclass(frozen=True, slots=True)
class Fit:
    """How a table's rows are split (module docstring): for each column its ``starts`` (the layout's), ``lefts``
    and ``rights`` (where its cells start and end, ``-1`` when they vary), ``gaps`` (most spaces between two words
    of one cell), and ``pad`` (fewest spaces between two neighbouring columns' cells, at least 1)."""

    starts: tuple[int, ...]
    lefts: tuple[int, ...]
    rights: tuple[int, ...]
    gaps: tuple[int, ...]
    pad: int

    def cells(self, line: str) -> list[str] | None:
        """The cells of ``line`` (no newline; a trailing ``\\r`` and spaces ignored), one per column, ``""`` for an
        empty one; :data:`UNSPLIT` when they cannot be told for certain."""
        line = line.rstrip(" \r\n")
        words = self._words(line)
        groups = self._at_starts(words)
        if groups is not None:
            return [line[words[j][0] : words[k - 1][1]] if k > j else "" for j, k in groups]
        if len(line) > MAX_GROUPED_CHARS:
            return UNSPLIT
        words = [m.span() for m in _WORD.finditer(line)]
        groups = self._at_starts(words)
        if groups is None:
            grouping = _Grouping(self, words)
            groups = grouping.only()
            if groups is None and grouping.several():
                groups = self._by_anchors(words)
            if groups is None:
                return UNSPLIT
        return [line[words[j][0] : words[k - 1][1]] if k > j else "" for j, k in groups]

    def _words(self, line: str) -> list[tuple[int, int]]:
        """The spans of the words of ``line`` up to the first one starting at or past the last column's start; the
        rest of the line after it as one span, or as two parted by its first gap wider than the last column's
        ``gap`` (for :meth:`_at_starts`, which puts them all in the last cell, they are the words themselves: the
        cell's end and whether its words are ``gap`` apart are theirs)."""
        words, last = [], self.starts[-1]
        for found in _WORD.finditer(line):
            words.append(found.span())
            if found.start() >= last:
                break
        else:
            return words
        after = words[-1][1]
        if after == len(line):
            return words
        wide = re.compile(f" {{{self.gaps[-1] + 1},}}").search(line, after)
        if wide is None or wide.end() == len(line):
            words[-1] = (words[-1][0], len(line))
        else:
            words[-1] = (words[-1][0], wide.start())
            words.append((wide.end(), len(line)))
        return words

    def _at_starts(self, words: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
        """The words grouped by the column each starts in, when no word runs across a column's start, every cell
        meets the rules and cells are ``pad`` spaces apart or more (no other grouping then meets them); else
        ``None``."""
        count = len(self.starts)
        if max(self.gaps[:-1], default=0) >= self.pad:
            return None
        bounds = [0] * (count + 1)
        column, end = 0, -1
        for at, (a, b) in enumerate(words):
            now = bisect_right(self.starts, a) - 1
            if now < count - 1 and b > self.starts[now + 1]:
                return None  # (a word across the next column's start)
            if now != column:
                if end >= 0 and a - end < self.pad:
                    return None
                for c in range(column + 1, now + 1):
                    bounds[c] = at
                column = now
            end = b
        for c in range(column + 1, count + 1):
            bounds[c] = len(words)
        groups = [(bounds[c], bounds[c + 1]) for c in range(count)]
        for c, (j, k) in enumerate(groups):
            if k > j and not self.holds(c, words, j, k):
                return None
        return groups

    def _by_anchors(self, words: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
        """Of several groupings that meet the rules, the one a person reads, or ``None``: each word in the one
        column where it starts or ends as that column's cells do (a number right-aligned under its name, wider
        than the first lines' and so starting left of its column, in the place of the column before, which holds
        a cell before it), else in the column it starts in; no word running across the next column's start, the
        columns in order and every cell meeting the rules. Columns empty in the first lines allow cells of words
        one space apart, so a row filling two of them side by side (``lsof``'s ``TID`` and ``TASKCMD`` of a
        thread, ``PID`` and ``TID`` wider than the first lines') has more than one grouping."""
        count = len(self.starts)
        columns: list[int] = []
        for a, b in words:
            anchored = [d for d in range(count) if a == self.lefts[d] or b == self.rights[d]]
            at = bisect_right(self.starts, a) - 1
            column = anchored[0] if len(anchored) == 1 else at
            if column > at and (column > at + 1 or not columns or columns[-1] != at):
                return None  # (a value starting in the place of a column left empty: that column's, overrunning?)
            if column < count - 1 and b > self.starts[column + 1]:
                return None  # (a word across the next column's start: a value wider than its column, pushing)
            if columns and column < columns[-1]:
                return None
            columns.append(column)
        groups = [(bisect_left(columns, c), bisect_right(columns, c)) for c in range(count)]
        for c, (j, k) in enumerate(groups):
            if k == j:
                groups[c] = (j, j) if c == 0 else (groups[c - 1][1], groups[c - 1][1])
            elif not self.holds(c, words, j, k):
                return None
        return groups

    def holds(self, c: int, words: list[tuple[int, int]], j: int, k: int) -> bool:
        """Whether ``words[j:k]`` (``k > j``) may be column ``c``'s cell, the word before them (if any) the end of
        the cell before."""
        last = c == len(self.starts) - 1
        if not last and not self._together(c, words, j, k):
            return False
        a, b = words[j][0], words[k - 1][1]
        left, right = self.lefts[c], self.rights[c]
        before = words[j - 1][1] if j else -1  # (a first cell pushed by the line's start: it starts at 0)
        if left < 0 and right < 0:  # (a free column: starting within its span, or pushed)
            return (a >= self.starts[c] and (last or a < self.starts[c + 1])) or (
                1 <= a - before <= self.pad and before + self.pad > self.starts[c])
        ends = not last or self._together(c, words, j, k)  # (the last cell takes the rest: aligned by its end,
        if a == left or (b == right and ends):  # its words are as far apart as the first lines' only)
            return True
        if not last and self.starts[c] <= a and b <= self.starts[c + 1] - 1:  # (within its column's positions,
            return True  # a gutter on each side: lsof's FD '0r', its mode one past the numbers' end)
        if not 1 <= a - before <= self.pad:
            return False
        return (left >= 0 and a > left and before + self.pad > left) or (
            ends and right >= 0 and b > right and before + self.pad > right - (b - a))

    def _together(self, c: int, words: list[tuple[int, int]], j: int, k: int) -> bool:
        """Whether the words ``words[j:k]`` may be one cell of (not last) column ``c``: at most ``gaps[c]`` spaces
        apart, none but the first where a later column's cells start or end."""
        for at in range(j + 1, k):
            a, b = words[at]
            if a - words[at - 1][1] > self.gaps[c] or self._anchored(c, a, b):
                return False
        return True

    def _anchored(self, c: int, a: int, b: int) -> bool:
        """Whether a word at ``a:b`` stands where a column after ``c`` has its cells start or end."""
        return any(a == self.lefts[d] or b == self.rights[d] for d in range(c + 1, len(self.starts)))


class _Grouping:
    """The groupings of a row's words into its columns' cells that meet the rules, counted up to :data:`_CAP`."""

    def __init__(self, fit: Fit, words: list[tuple[int, int]]) -> None:
        self.fit = fit
        self.words = words
        self.known: dict[tuple[int, int], tuple[int, int]] = {}  # (column, word) -> (groupings, end of its cell)

    def only(self) -> list[tuple[int, int]] | None:
        """The one grouping (each column's ``(first word, end word)``), or ``None`` when there are none or
        several."""
        if self._count(0, 0) != 1:
            return None
        groups, j = [], 0
        for c in range(len(self.fit.starts)):
            k = self.known[(c, j)][1]
            groups.append((j, k))
            j = k
        return groups

    def several(self) -> bool:
        """Whether more than one grouping meets the rules."""
        return self._count(0, 0) >= _CAP

    def _count(self, c: int, j: int) -> int:
        """Groupings of ``words[j:]`` into columns ``c`` on (at most :data:`_CAP`); the end of column ``c``'s cell
        of the first is kept in :attr:`known`."""
        key = (c, j)
        if key in self.known:
            return self.known[key][0]
        fit, words, m = self.fit, self.words, len(self.words)
        if c == len(fit.starts) - 1:
            found = (1, m) if j == m or fit.holds(c, words, j, m) else (0, m)
            self.known[key] = found
            return found[0]
        total, end = self._count(c + 1, j), j  # (column c empty)
        for k in range(j + 1, m + 1):
            if k > j + 1 and (words[k - 1][0] - words[k - 2][1] > fit.gaps[c]):
                break  # (a wider gap: no longer cell is one either)
            if total >= _CAP:
                break
            if fit.holds(c, words, j, k):
                more = self._count(c + 1, k)
                if more and not total:
                    end = k
                total += more
        self.known[key] = (min(total, _CAP), end)
        return self.known[key][0]


def learn_fit(starts: list[int], spans: list[tuple[int, int]], rows: list[str]) -> Fit:
    """The :class:`Fit` of a table whose columns start at ``starts`` and whose header has their names at ``spans``
    (one per column, ``(0, 0)`` for a first column with no name), told from ``rows`` (its first rows, trailing
    spaces stripped): those no word of which runs across a column's start."""
    count = len(starts)
    lefts: list[set[int]] = [set() for _ in starts]
    rights: list[set[int]] = [set() for _ in starts]
    gaps = [0] * count
    pad = None
    for row in rows:
        words = [m.span() for m in _WORD.finditer(row)]
        columns = [bisect_right(starts, a) - 1 for a, _b in words]
        if any(c < count - 1 and b > starts[c + 1] for c, (_a, b) in zip(columns, words, strict=True)):
            continue
        for at, (c, (a, b)) in enumerate(zip(columns, words, strict=True)):
            if at and columns[at - 1] == c:
                gaps[c] = max(gaps[c], a - words[at - 1][1])
            else:
                lefts[c].add(a)
                if at and columns[at - 1] == c - 1:  # (cells of neighbouring columns: empty ones between two
                    pad = a - words[at - 1][1] if pad is None else min(pad, a - words[at - 1][1])  # cells widen it)
            if at + 1 == len(words) or columns[at + 1] != c:
                rights[c].add(b)
    pad = max(1, pad or 1)
    edges = [(_one(lefts[c]), _one(rights[c])) if lefts[c] else spans[c] for c in range(count)]
    return Fit(tuple(starts), tuple(e[0] for e in edges), tuple(e[1] for e in edges),
               tuple(g if lefts[c] else min(pad - 1, _GAP) for c, g in enumerate(gaps)), pad)


def _one(values: set[int]) -> int:
    """The one value of ``values``, or ``-1`` when they are several."""
    return next(iter(values)) if len(values) == 1 else -1
