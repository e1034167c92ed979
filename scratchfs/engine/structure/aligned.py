"""Tables aligned by spaces (``ps aux``, ``df -h``, ``pip list``, ``free -m``, ``ss -tan``, ``lsblk``, ``lsof``,
``docker ps``, ``kubectl get pods``): where their columns are, told from their first lines, and how a line splits
into cells.

A table aligned by spaces has a header line of column names and lines of rows under it, each cell under its name.
Its layout (:func:`find_layout`) is told from the header and the rows of the first lines: the header's names are its
runs of non-spaces, a name that starts with a lowercase letter one space after a capitalised one continuing it
(``Mounted on``, ``Editable project location``); a *gutter* is a position, before the last name, where no line has a
character (lines shorter count as blank there). Two names with no gutter between them are one (``CONTAINER ID``,
``Local Address:Port``: a row's value runs across the space) when both are capitalised (words of text are not: no
table), but for a last name no row reaches (``ss -tan``'s empty ``Process``: a column of its own, starting at its
name); each column starts right after the last gutter before its name (numbers right-aligned under their name start
left of it), the first at 0 -- a first column with no name (``free``'s ``Mem:``) when the header starts with spaces
the rows write in. The last column runs to the line's end.

Two rules split a line (:attr:`Layout.rule`):

- ``"runs"`` -- runs of spaces, the last column taking the rest of the line, cells missing at the end empty: chosen
  when it gives every row of the first lines the same cells as the columns' positions do (no cell of them empty but
  at the end, none holding a space but the last) -- or, for a row whose value runs across a column's start (the one
  row that may cross a gutter: a number wider than the rest), a cell for each column. It holds when a later row's
  value is wider than the first rows' (``ps`` widens no column for it);
- ``"fixed"`` -- the columns' positions: cells may hold single spaces (``Up 2 hours``) or be empty (``docker ps``'s
  ``PORTS``), as tools that size each column to its widest value over all rows print them.

A line of dashes and equal signs drawing a rule under the header (``pip list``) is no row; a blank line (spaces only)
ends the rows (what follows -- ``systemctl list-units``' legend, ``kubectl get all``'s next table -- is none), and so
does such a rule after rows (``unzip -l``'s closing rule over its ``225 files``) or a last line of totals (``df
--total``, ``wc``): a footer, no row (:func:`~scratchfs.engine.structure.aligned_lines.rows_end`). Lines
are compared as they are (a tab is no space: text holding a tab is no such table). Everything here is pure and costs
the first lines only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from scratchfs.engine.structure.aligned_fit import Fit, learn_fit
from scratchfs.engine.structure.aligned_lines import is_blank, is_row, rows_end
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.pipe_lines import PIPED, find_pipes, pipe_border, pipe_cells, pipe_ends, pipe_row

__all__ = ["FIXED", "HEAD_CHARS", "HEAD_LINES", "MAX_PREAMBLE", "RUNS", "Layout", "find_layout", "find_table",
           "head_lines", "header_candidates", "headless_layout", "may_be_header", "pipes_layout", "source_layout"]

RUNS = "runs"
FIXED = "fixed"
MAX_PREAMBLE = 8
"""Most lines before a table's header (``top -bn1``'s summary, ``w``'s uptime line)."""
HEAD_LINES = 50
"""The first lines (the header one of them) a layout is told from."""
HEAD_CHARS = 8192
"""Characters of the start of a content whose lines (at most :data:`HEAD_LINES`) a layout is told from."""
_MAX_HEADER_CHARS = 1024
_MAX_NAMES = 64
_MIN_ROWS = 2
_TOLERANT_ROWS = 10  # rows from which one writing across a gutter leaves it one
_WORD = re.compile(r"[^ ]+")
_SPACES = re.compile(r" +")
_STATUS = re.compile(r"[|/]+")  # dpkg -l's first name, "||/", over its status column
_MASK = bytes([1] * 32 + [0] + [1] * 223)  # a space is blank, any other byte a character
_WORDY = re.compile(r"[^\W\d_]{3}")  # a name starting with a digit holds a word (1K-blocks; 4.0K is a size)
_LINE_NUMBER = re.compile(r":\d+[:-]")  # grep's path:line: (a header names no line)
_NUMBER = re.compile(r"[-+]?\d[\d.,:%]*[A-Za-z]?")  # (a size, a time, a percentage: 4.0K, 07:51, 25.2)
_PUSH = 2  # most spaces between a value that overflows its column and the cell it pushes (ps: 1)
_GLUED = re.compile(r"[a-z]([A-Z][a-z]+)(?= |$)")  # a capitalised name glued to the end of the one before


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a table's columns are: ``names`` (the header's, ``""`` for a first column with no name), ``starts``
    (the character offset in a line where each column starts, ``0`` first), ``rule`` (``"runs"`` or ``"fixed"``,
    see the module docstring), ``fit`` (how each row is split: :meth:`cells`), ``start`` (the byte offset of the
    header line in the content: past a preamble) and ``headed`` (``False``: a table with no header line, its first
    line row 1 and its ``names`` its columns' numbers, ``"0"``, ``"1"``...: :func:`headless_layout`); ``pushed``:
    for a table split at runs of spaces, how a row its ``fit`` cannot tell is read as ``ps`` prints it
    (:class:`Pushed`: a 6-digit ``RSS`` in a column of 5 after ``USER``'s padding, in a row past the first lines).

    A table drawn with pipes (:mod:`~scratchfs.engine.structure.pipe_lines`: :func:`pipes_layout`) is one more
    layout of the same reads: its ``rule`` its form (one of
    :data:`~scratchfs.engine.structure.pipe_lines.PIPED`: ``"markdown"``, ``"psql"``, ``"box"``, ``"lines"``...),
    its ``starts`` where its header's pipes (or vertical box lines) stand, in characters, its lines split at them."""

    names: tuple[str, ...]
    starts: tuple[int, ...]
    rule: str
    fit: Fit | Pushed | None = None
    start: int = 0
    headed: bool = True
    pushed: Pushed | None = None

    @property
    def key(self) -> str:
        """The layout as text: what a read's cursor is bound to (the same content gives the same key)."""
        return f"{self.rule}:{','.join(map(str, self.starts))}" + (f"@{self.start}" if self.start else "") + (
            "" if self.headed else ":no header")

    @property
    def piped(self) -> bool:
        """Whether the table is drawn with pipes: the line under its header is its rule, no row."""
        return self.rule in PIPED

    def ends(self, line: str) -> bool:
        """Whether ``line`` (no newline) ends the rows: a blank line (:func:`is_blank`); of a table drawn with
        pipes, also a line holding none (:func:`~scratchfs.engine.structure.pipe_lines.pipe_ends`)."""
        return pipe_ends(line, self.rule) if self.rule in PIPED else is_blank(line)

    def border(self, line: str) -> bool:
        """Whether ``line`` (no newline) is a box's border: the rows end at one right under another
        (:func:`~scratchfs.engine.structure.pipe_lines.pipe_border`); never, for other tables."""
        return pipe_border(line, self.rule)

    def is_row(self, line: str) -> bool:
        """Whether ``line`` (no newline; no line :meth:`ends` the rows at) is a row: no rule of dashes
        (:func:`is_row`), no border of a box."""
        return pipe_row(line, self.rule) if self.rule in PIPED else is_row(line)

    def cells(self, line: str) -> list[str] | None:
        """The cells of ``line`` (a row; no newline) as a person reads them under the header, one per column, or
        ``None`` when they cannot be told for certain (:mod:`~scratchfs.engine.structure.aligned_fit`): a row after
        the first lines may hold a value wider than its column, or leave a cell empty, where :meth:`split` would
        cut a value or shift the cells after it; a row drawn with pipes holding more cells than the header
        (:func:`~scratchfs.engine.structure.pipe_lines.pipe_cells`)."""
        if self.rule in PIPED:
            return pipe_cells(line, self.rule, len(self.names), self.starts)
        if self.fit is None:
            return self.split(line)
        cells = self.fit.cells(line)
        return self.pushed.cells(line) if cells is None and self.pushed is not None else cells

    def split(self, line: str) -> list[str]:
        """The cells of ``line`` (no newline; a trailing ``\\r`` ignored): one per column, ``""`` for an empty
        one, spaces around each stripped."""
        line = line.rstrip(" \r\n")
        count = len(self.starts)
        if self.rule == RUNS:
            cells = _SPACES.split(line.lstrip(" "), count - 1) if line.strip(" ") else []
            return cells + [""] * (count - len(cells))
        starts = self.starts
        cells = [line[start:end].strip(" ") for start, end in pairwise(starts)]
        cells.append(line[starts[-1] :].strip(" "))  # (the last column runs to the line's end)
        return cells


@dataclass(frozen=True, slots=True)
class Pushed:
    """How the rows of a table printed as ``ps`` prints it are split, when no gutter parts its columns in the first
    lines (:func:`_pushed`): each column has its width, numbers right-aligned, text left-aligned, and a value wider
    than its column pushes the cells after it right, one space after it (``ps -eo pid,rss,vsz,comm --sort=-rss``'s
    first rows, each with its 6-digit ``RSS`` and 7-digit ``VSZ``). ``spans``: the header's names' ``(start, end)``,
    one per column. A row is split at runs of spaces, the last column taking the rest of the line, when it has a
    word for each column and each (the last column's first) stands where :meth:`placed` allows; else it is
    :data:`~scratchfs.engine.structure.aligned_fit.UNSPLIT` (``None``): never cut wrong."""

    spans: tuple[tuple[int, int], ...]

    def cells(self, line: str) -> list[str] | None:
        """The cells of ``line`` (no newline; a trailing ``\\r`` and spaces ignored), one per column, or ``None``
        when it does not read so."""
        line = line.rstrip(" \r\n")
        words = [m.span() for m in _WORD.finditer(line)]
        if not self.placed(words):
            return None
        count = len(self.spans)
        return [line[a:b] for a, b in words[: count - 1]] + [line[words[count - 1][0] :]]

    def placed(self, words: list[tuple[int, int]]) -> bool:
        """Whether a row whose words stand at ``words`` reads as a row of the table: a word for each column (the
        last column's words the rest), each starting at or after its name's start (text) or ending at or after
        its name's end (a number right-aligned; not the last column's words when they are several), and none
        in the place of the next column's name unless pushed there -- 2 spaces or fewer after the cell before."""
        spans, count = self.spans, len(self.spans)
        if len(words) < count:
            return False
        before = -1
        for c, (start, end) in enumerate(spans):
            a, b = words[c]
            if c == count - 1 and len(words) > count:
                b = -1  # (the rest of the line: aligned by its start only)
            if a < start and b < end:
                return False
            if c < count - 1 and a >= spans[c + 1][0] and not (c and a - before <= _PUSH):
                return False
            before = b
        return True


def _pushed(header: str, rows: list[str]) -> tuple[list[str], list[tuple[int, int]]] | None:
    """The names and spans of the columns of a table whose header is ``header`` and whose rows ``rows`` (trailing
    spaces stripped) are as ``ps`` prints them when values wider than their columns push the cells after them
    (:class:`Pushed`) and leave no gutter, each row a word for each column where :meth:`Pushed.placed` allows;
    else ``None``."""
    spans = _names(header)
    if not 2 <= len(spans) <= _MAX_NAMES:
        return None
    pushed = Pushed(tuple(spans))
    if not all(pushed.placed([m.span() for m in _WORD.finditer(row)]) for row in rows):
        return None
    return [header[start:end] for start, end in spans], spans


def _names(header: str) -> list[tuple[int, int]]:
    """The spans of the header's names: its runs of non-spaces, a lowercase word one space after a capitalised
    name joined to it (``Mounted on``)."""
    spans: list[tuple[int, int]] = []
    for word in _WORD.finditer(header):
        start, end = word.span()
        if spans and start == spans[-1][1] + 1 and header[start].islower() and header[spans[-1][0]].isupper():
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _occupied(lines: list[str], width: int) -> tuple[bytes, bytes]:
    """Two masks of the positions before ``width``: first, 1 where some line has a character there -- 2 lines or
    more of 10 or more: one row's value wider than its column, past the ones above it, leaves the gutter it crosses
    one -- else 0; second, 1 where any line has one (each line masked at C speed: one byte a character, as Latin-1
    with ``?`` for any other; the masks OR-ed as integers)."""
    taken = twice = 0
    for line in lines:
        mask = int.from_bytes(line[:width].ljust(width).encode("latin-1", "replace").translate(_MASK), "big")
        twice |= taken & mask
        taken |= mask
    strict = taken.to_bytes(width, "big")
    return (twice.to_bytes(width, "big") if len(lines) >= _TOLERANT_ROWS else strict), strict


def _glued(header: str, spans: list[tuple[int, int]], rows: list[str]) -> list[tuple[int, int]]:
    """``spans`` with the last name parted where a capitalised name is glued to it (``ss -p``'s ``Peer
    Address:PortProcess``: the peer's column is as wide as its name, and ``Process`` follows with no space) when
    the rows write under that second name, after a gutter -- no row has a character just before it -- as under a
    column of its own (a name in camel case, ``NodeName``, has its values under both parts, or none past them)."""
    start, end = spans[-1] if spans else (0, 0)
    glued = _GLUED.search(header, start, end)
    if glued is None or not any(len(row) > glued.start(1) for row in rows):
        return spans
    at = glued.start(1)
    return spans if _occupied(rows, at)[0][at - 1] else [*spans[:-1], (start, at), (at, end)]


def _joined(header: str, before: tuple[int, int], name: tuple[int, int], taken: bytes) -> bool:
    """Whether ``name`` continues the name ``before`` it though a gutter parts them: one space between, nothing of
    any row under ``before``, and ``name`` an address with its port (``ss -p``'s ``Peer Address:Port``, whose
    right-aligned values start past ``Peer``)."""
    return name[0] == before[1] + 1 and 1 not in taken[before[0] : name[0]] and ":" in header[name[0] : name[1]] \
        and header[before[0]].isupper() and header[name[0]].isupper()


def _shifted(header: str, before: int, start: int, rows: list[str]) -> bool:
    """Whether the name starting at ``start``, one space after the name before it (ending at ``before``) with no
    gutter between them, heads a column of its own set one place right of it: no row writes under its first
    letter, 2 rows or more write right after it, and it is capitalised and no address with its port (``ss
    -tanp``'s ``Peer Address:Port Process``: ss writes ``Process`` one place left of its column, the peers running
    up to it -- ``127.0.0.1:34630 users:((...``)."""
    if start != before + 1 or not header[start].isupper() or ":" in header[start:].split(" ", 1)[0]:
        return False
    reach = [row for row in rows if len(row) > start + 1]
    return len(reach) >= _MIN_ROWS and all(row[start] == " " for row in reach) and sum(
        row[start + 1] != " " for row in reach) >= _MIN_ROWS


def _columns(header: str, rows: list[str]) -> tuple[list[str], list[int], list[tuple[int, int]]] | None:
    """The names, starts and names' spans in the header (``(0, 0)`` for a first column with no name) of the
    columns, or ``None`` when the header's names have no gutters between them. A last name that no row reaches is
    a column of its own, empty in those rows, even where the cells before it run up to it (``ss -tan``'s
    ``Process``, right after the longest ``Peer Address:Port``): it starts at its name; so is one that the rows
    reaching it write after a blank (``ss -tupna``'s processes, beside peers that run up to it)."""
    spans = _glued(header, _names(header), rows)
    if not 2 <= len(spans) <= _MAX_NAMES:
        return None
    taken, strict = _occupied(rows, spans[-1][0])
    last = spans[-1][0]  # (no row reaches the last name, ss -tan's empty Process; or every row that does leaves the
    unreached = all(len(row) <= last or row[last - 1] == " " for row in rows)  # place before it blank: ss -tupna's)
    merged = [spans[0]]
    for at, (start, end) in enumerate(spans[1:], 2):  # (a name with no gutter before it continues the one before)
        if start == merged[-1][1]:  # (a name glued to the one before: a column of its own, _glued)
            merged.append((start, end))
        elif (0 not in taken[merged[-1][1] : start] and not (at == len(spans) and unreached) and not _shifted(
                header, merged[-1][1], start, rows)) or _joined(header, merged[-1], (start, end), taken):
            if header[start].islower() or header[merged[-1][0]].islower():
                return None  # (names of several words are capitalised: CONTAINER ID; words of text are not)
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    if len(merged) < 2:
        return None
    names = [header[start:end] for start, end in merged]
    if any("  " in name for name in names):  # rows' values run across wide gaps of the header: no columns
        return None
    starts = [_start(taken, strict, merged[i - 1][1], start) for i, (start, _end) in enumerate(merged) if i]
    first = merged[0][0]
    lead = taken.rfind(0, 0, first) + 1 if first else 0  # (the start of the first name's column)
    if lead and 1 in taken[:lead]:  # rows write before the first name's column: a column with no name
        return ["", *names], [0, lead, *starts], [(0, 0), *merged]
    return names, [0, *starts], merged


def _start(taken: bytes, strict: bytes, after: int, name: int) -> int:
    """Where the column whose name starts at ``name`` starts, the name before ending at ``after``: right after the
    last gutter between them that no row crosses (``strict``: a number wider than the rest, right-aligned under
    the name, reaches left of the gutter the others leave -- ``ps``' ``13832`` under ``  RSS`` over ``    0``),
    else after the last one that at most one row crosses (``taken``), else at the name."""
    return (strict.rfind(0, after, name) + 1) or (taken.rfind(0, after, name) + 1) or name


def find_layout(lines: list[str], header: int = 0) -> Layout | None:
    """The layout of the table whose header is ``lines[header]`` (the lines before it a preamble, at most
    :data:`MAX_PREAMBLE`, holding no U+FFFD: :attr:`Layout.start` is the header's byte offset) and whose rows are
    the rest (:func:`find_table`'s), its :attr:`Layout.fit` told, or ``None``."""
    if not 0 <= header <= MAX_PREAMBLE or any("\ufffd" in line for line in lines[:header]):
        return None
    found = _table(lines[header:])
    if found is None:
        return None
    layout, _cells, spans, rows = found
    start = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines[:header])
    if isinstance(layout.fit, Pushed):
        return replace(layout, start=start)
    pushed = Pushed(tuple(spans)) if layout.rule == RUNS else None  # (for rows the fit cannot tell)
    return replace(layout, fit=learn_fit(list(layout.starts), spans, rows), start=start, pushed=pushed)


def header_candidates(lines: list[str]) -> list[int]:
    """The lines that may be a table's header, in order: the line over the first rule of dashes after line 1 when
    line 1 is no rule (``unzip -l``: after its ``Archive:`` line; ``dpkg -l``: after its legend), then those of
    line 0, line 1 (``w``: after an uptime line), the line after the first blank line before line
    :data:`MAX_PREAMBLE` (``top -bn1``: after its summary), the line after the first line
    ending in ``:`` before line :data:`MAX_PREAMBLE` (``readelf -Ws``: after its title, ``Symbol table '.dynsym'
    contains 125 entries:``) and the lines after the other
    blank lines before line :data:`MAX_PREAMBLE` (``python -m cProfile -s cumtime``: after its totals and its
    ``Ordered by:`` line) that pass :func:`may_be_header`."""
    if not any(map(may_be_header, lines[: MAX_PREAMBLE + 1])):  # (every candidate is one of these: most text stops)
        return []
    after = [at + 1 for at in range(1, min(len(lines) - 1, MAX_PREAMBLE)) if is_blank(lines[at])]  # (top -bn1:
    # after its summary; python -m cProfile: after its totals and its "Ordered by" line, each followed by a blank)
    ruled = next((at - 1 for at in range(2, min(len(lines), MAX_PREAMBLE + 2)) if not is_row(lines[at])
                  and not is_blank(lines[at])), 0)  # (the line over a rule of dashes: dpkg -l's header)
    titled = next((at + 1 for at in range(min(len(lines) - 1, MAX_PREAMBLE))
                   if lines[at].rstrip(" \r").endswith(":")), 0)  # (a title naming the table: readelf -Ws's
    # "Symbol table '.dynsym' contains 125 entries:" after a blank line)
    first = (ruled,) if ruled and is_row(lines[1]) else ()  # (a rule of dashes under a later line, none under
    # line 0: that line is the header, tried first -- unzip -l's "Length  Date  Time  Name" under "Archive:  a.zip")
    return [at for at in dict.fromkeys((*first, 0, 1, *after[:1], ruled, titled, *after[1:])) if at < len(lines)
            and may_be_header(lines[at])]


def may_be_header(line: str) -> bool:
    """The first test of a header line, which most text fails at once: a run of 2 spaces between two of its
    words, no tab, its first character a letter, a space, ``%``, ``#`` or ``_`` (or ``||/ ``, ``dpkg -l``'s)."""
    return "  " in line.strip(" \r") and "\t" not in line and (line[:1].isalpha() or line[:1] in " %#_" or
                                                                 line.startswith("||/ "))


def find_table(lines: list[str]) -> tuple[Layout, list[list[str]]] | None:
    """The layout of the table whose header is ``lines[0]`` and whose rows are the rest (at most
    :data:`HEAD_LINES` are looked at; no newlines, the caller leaves out a last line its sample may have cut) and
    those rows' cells, or ``None`` when they make no such table: a header of 2 to 64 names (each starting with a
    letter, ``%``, ``#`` or ``_``, or holding 3 letters in a row; none holding a run of spaces) with a run of 2
    spaces or more between two of them, at most 1,024 characters, no ``:digits:`` (grep's line numbers); no tab in
    any line; 2 rows or more before the first blank line, none the header again, each with 2 cells or more, 60% of
    all their cells filled; by the columns' positions (the runs rule aside), no last cell holding a run of spaces.
    When no gutter parts its columns, the table may be one whose wide values push the cells after them
    (:class:`Pushed`: ``ps`` sorted by memory), split at runs of spaces. Its :attr:`Layout.fit` is ``None`` (what a
    shape needs; :func:`find_layout` tells it too, as reads need it) but for such a table: its :class:`Pushed`."""
    found = _table(lines)
    return None if found is None else found[:2]


def _table(lines: list[str]) -> tuple[Layout, list[list[str]], list[tuple[int, int]], list[str]] | None:
    """:func:`find_table`'s layout and cells, the spans of the header's names (one per column) and the rows."""
    header = lines[0].rstrip(" \r") if lines else ""
    if len(header) > _MAX_HEADER_CHARS or "  " not in header.strip(" ") or "\t" in header:
        return None
    if _LINE_NUMBER.search(header):  # (first: grep output's lines are the text most often tried here)
        return None
    words = header.split()
    if not all(word[0].isalpha() or word[0] in "%#_" or _WORDY.search(word) or (at == 0 and _STATUS.fullmatch(word))
               for at, word in enumerate(words)):
        return None
    body = lines[1:HEAD_LINES]
    end = rows_end(body, 0, False, False)[0]  # (a blank line ends the rows; so does a rule after them, or a last
    # line of totals: a footer's, no row)
    rows = [line.rstrip(" \r") for line in body[:end] if is_row(line)]
    if len(rows) < _MIN_ROWS or any("\t" in row or row == header for row in rows):
        return None  # (a row that repeats the first line: that line is no header)
    found = _columns(header, rows)
    if found is None or len(found[0]) < len(_names(header)):  # (no gutters, or names joined where none parts
        joined = set() if found is None else {end for _start, end in found[2]}  # them: cells pushed?)
        return _pushed_table(header, rows, joined) or _gutters_table(header, rows, found)
    return _gutters_table(header, rows, found)


def _gutters_table(header: str, rows: list[str], found: tuple[list[str], list[int], list[tuple[int, int]]] | None
                   ) -> tuple[Layout, list[list[str]], list[tuple[int, int]], list[str]] | None:
    """:func:`_table`'s answer for the columns the gutters part (``found``: :func:`_columns`'), or ``None``."""
    if found is None:
        return None
    names, starts, spans = found
    fixed = Layout(tuple(names), tuple(starts), FIXED)
    cells = [fixed.split(row) for row in rows]
    if not _filled(cells):
        return None
    runs, split = Layout(fixed.names, fixed.starts, RUNS), []
    for row, row_cells in zip(rows, cells, strict=True):
        row_split = runs.split(row)
        if row_split != row_cells and (not _crosses(row, starts) or "" in row_split):  # (a row whose value runs
            break  # across a gutter: split at runs of spaces when they give it a cell for each column)
        split.append(row_split)
    else:
        return runs, split, spans, rows
    if any("  " in row[-1] for row in cells):  # the last cell across a gap: a column the header does not name
        return None  # where it stands (ss -p's "Peer Address:PortProcess")
    return fixed, cells, spans, rows


def _crosses(row: str, starts: list[int]) -> bool:
    """Whether a word of ``row`` runs across a column's start (a character on each side of it): the one row of
    10 or more that may cross a gutter (:func:`_occupied`), a number wider than the rest right-aligned under its
    name (``ps``' ``132026017`` under ``RSS`` over ``0``), which the columns' positions would cut in two; when
    runs of spaces give it a cell for each column, it is no reason to split the table at the positions."""
    return any(0 < start < len(row) and row[start - 1] != " " and row[start] != " " for start in starts)


def _pushed_table(header: str, rows: list[str], ends: set[int]
                  ) -> tuple[Layout, list[list[str]], list[tuple[int, int]], list[str]] | None:
    """:func:`_table`'s answer for a table whose columns no gutter parts (:func:`_pushed`): split at runs of
    spaces, its :attr:`Layout.fit` a :class:`Pushed`, its columns starting at its names' starts. ``ends``: where
    the names the gutters part end (empty: none parted), when gutters joined names: then a name joined to the one
    after it must be over numbers in every row -- a value wider than its column, pushing the next, is a number
    (``ps``) --, else ``None``: the names are one (``Nikos Mavroyanopoulos`` over people's names)."""
    found = _pushed(header, rows)
    if found is None:
        return None
    names, spans = found
    layout = Layout(tuple(names), (0, *(start for start, _end in spans[1:])), RUNS, Pushed(tuple(spans)))
    cells = [layout.split(row) for row in rows]
    joined = [c for c, (_start, end) in enumerate(spans[:-1]) if ends and end not in ends]
    if any(_NUMBER.fullmatch(row[c]) is None for c in joined for row in cells):
        return None
    return (layout, cells, spans, rows) if _filled(cells) else None


def _filled(cells: list[list[str]]) -> bool:
    """Whether rows whose cells (by the columns' positions) are ``cells`` fill a table: 2 cells or more in at least
    4 of 5 rows (``lsblk -f``'s unformatted disk fills its name alone), and a third of all their cells (60% before)
    -- ``lsof``, as a user who may not read other users' processes, fills 5 or 6 of its 11 columns on a
    kernel thread's row (``TID``, ``TASKCMD``, ``DEVICE``, ``SIZE/OFF`` and ``NODE`` empty), where a text laid out
    otherwise leaves most cells empty."""
    filled = [sum(map(bool, row)) for row in cells]
    return 5 * sum(count >= 2 for count in filled) >= 4 * len(cells) and (
        3 * sum(filled) >= len(cells[0]) * len(cells))


def head_lines(head: str, whole: bool) -> list[str]:
    """The lines a layout is told from: those of ``head`` (a content's start as text) in its first
    :data:`HEAD_CHARS` characters, at most :data:`HEAD_LINES`, the last left out unless ``whole`` (``head`` is all
    of the content and no longer than that: its last line is not cut)."""
    lines = head[:HEAD_CHARS].split("\n", HEAD_LINES)
    return lines[:HEAD_LINES] if whole and len(head) <= HEAD_CHARS and len(lines) <= HEAD_LINES else lines[:-1]


def headless_layout(starts: tuple[int, ...], start: int = 0) -> Layout:
    """The layout of a table aligned by spaces with no header line whose columns start at ``starts`` (character
    offsets, ``0`` first), told from its first lines by the reads layer (every line filling every column, each cell
    one word but the last's, so that runs of spaces part them): its lines split at runs of spaces, the last column
    taking the rest of the line, as ``line.split(None, len(starts) - 1)`` splits it; its columns named by number;
    its first row at byte ``start`` (past ``ls -l``'s ``total N`` line, no row)."""
    return Layout(tuple(map(str, range(len(starts)))), starts, RUNS, start=start, headed=False)


def pipes_layout(lines: list[str]) -> Layout | None:
    """The layout of the table drawn with pipes whose header is one of ``lines``' first (:func:`head_lines`;
    :func:`~scratchfs.engine.structure.pipe_lines.find_pipes`), :attr:`Layout.start` its header's byte offset, or
    ``None``."""
    found = find_pipes(lines)
    if found is None:
        return None
    start = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines[: found.at])
    return Layout(found.names, found.pipes, found.form, start=start)


def source_layout(source: ContentSource, header: int = 0, piped: bool = False) -> Layout | None:
    """:func:`find_layout` of a whole content's :func:`head_lines` (it reads its first 32 KiB), its header at line
    ``header`` (from 0): what a spill's shape found from the same lines; ``piped``: :func:`pipes_layout` of them
    instead (a table drawn with pipes). Raises what ``source.read`` raises."""
    data = source.read(0, 4 * HEAD_CHARS + 4)
    lines = head_lines(data.decode("utf-8", "replace"), len(data) >= source.size)
    return pipes_layout(lines) if piped else find_layout(lines, header)
