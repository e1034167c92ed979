"""The start of a CSV/TSV table: its delimiter, told from the header line or named on a first line ``sep=;``, and
the comment lines before its header -- one rule for the shape a spill describes (:mod:`scratchfs.api.shape`) and for
every rows read (:mod:`~scratchfs.engine.structure.table`)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import repeat

from scratchfs.engine.structure.row_lines import LINE_END_TEXT, first_lines

__all__ = ["COMMENT_HEAD_CHARS", "DELIMITERS", "UTF8_BOM", "VOTE_COLUMNS", "any_number", "cell_pattern",
           "column_patterns", "data_votes", "detect_delimiter", "header_votes", "is_number", "leading_comments",
           "named_separator", "vote_columns"]

DELIMITERS = ("\t", ",", ";")
"""The delimiters a table's header line is told by (:func:`detect_delimiter`), in the order a steadier one is
sought: tab, comma, semicolon."""
_DELIMITER_BYTES = tuple(d.encode() for d in DELIMITERS)


def detect_delimiter(first_line: bytes | str, after: str | None = None) -> str:
    """The delimiter of a table whose header line is ``first_line``: ``"\\t"`` when it has at least one tab and no
    more commas than tabs; else ``";"`` when it has more semicolons than commas (the CSV that spreadsheets write
    where a comma is the decimal separator, ``id;price`` then ``7;12,50``); else ``","``. ``after``: the text after
    that line (as text; its first :data:`COMMENT_HEAD_CHARS` characters looked at, the last line, maybe cut, left
    out): when that rule's delimiter is not in the line as often as in 4 of 5 of the lines after it (at most
    :data:`_AFTER_LINES`) and another's is (tab, comma, semicolon, in that order), that one -- ``git log
    --format=%H%x09%an%x09%s`` whose newest subject holds more commas than the line has tabs is still tab-separated.
    One rule for the shape a spill describes and for every rows read."""
    tab, comma, semicolon = DELIMITERS if isinstance(first_line, str) else _DELIMITER_BYTES
    tabs, commas = first_line.count(tab), first_line.count(comma)  # type: ignore[arg-type]
    semicolons = first_line.count(semicolon)  # type: ignore[arg-type]
    found = "\t" if tabs and tabs >= commas else ";" if semicolons > commas else ","
    if after is None or (tabs > 0) + (commas > 0) + (semicolons > 0) < 2:
        return found  # (one delimiter in the line, or none: no other is steady in it, the lines after not read)
    line = first_line.decode("utf-8", "surrogateescape") if isinstance(first_line, bytes) else first_line
    after = after[:COMMENT_HEAD_CHARS]  # (split at "\n" at C speed, but where a lone "\r" ends a line)
    lines = first_lines(after, _AFTER_LINES + 1)[:-1][:_AFTER_LINES]  # (the last, maybe cut, left out)
    lines = list(filter(None, lines))  # (the empty ones left out, at C speed)
    if not lines or _steady(found, line, lines):
        return found
    return next((other for other in DELIMITERS if other != found and _steady(other, line, lines)), found)  # (found
    # is not steady: not tried again)


def _steady(delimiter: str, line: str, lines: list[str]) -> bool:
    """Whether ``delimiter`` is in ``line`` and as often in at least 4 of 5 of ``lines`` (their counts taken at C
    speed: no Python step a line)."""
    count = line.count(delimiter)
    return count > 0 and 5 * [*map(str.count, lines, repeat(delimiter, len(lines)))].count(count) >= 4 * len(lines)


UTF8_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark (U+FEFF) that Excel and other Windows tools put at the start of a CSV export."""
_SEP_LINE = re.compile(r"(?:\ufeff)?sep=([,;\t|])\r?")


def named_separator(first_line: bytes | str) -> str | None:
    """The delimiter a first line ``sep=;`` names (Excel's way to name a table's separator: ``,``, ``;``, tab or
    ``|``; after a byte order mark, before a ``\\r``), or ``None``; the table then starts on the next line."""
    line = first_line.decode("utf-8", "replace") if isinstance(first_line, bytes) else first_line
    found = _SEP_LINE.fullmatch(line[:8])
    return found.group(1) if found and len(line) <= 8 else None


_COMMENT_LINES = 64  # most comment lines looked past before a table's header
COMMENT_HEAD_CHARS = 8192
"""Characters of a table's start its comment lines and the lines after them are told from (the shape's and every
rows read's: the same characters, so the same answer)."""
_AFTER_LINES = 20  # the lines after the comment lines that tell whether the last of them is the header


def leading_comments(head: str) -> tuple[int, int]:
    """``(characters, lines)`` of the comment lines ``head`` (a table's first lines, as text; only its first
    :data:`COMMENT_HEAD_CHARS` characters are looked at) starts with: lines starting with ``#`` (a data source, a
    licence: matplotlib's ``Stocks.csv``, tzdata's ``zone1970.tab``), at most :data:`_COMMENT_LINES`, before the
    header line. The last of them is the header itself (VCF's ``#CHROM`` line after its ``##`` meta lines, a
    ``#id,name`` header) when :func:`_is_header` says so. ``(0, 0)``: no comment line, or nothing but comments in
    ``head``. A line ends at ``\n``, ``\r\n`` or a lone ``\r``, as a rows read's
    (:mod:`scratchfs.engine.structure.row_lines`). Raises nothing."""
    head = head[:COMMENT_HEAD_CHARS]
    at, last, count = 0, 0, 0
    while count < _COMMENT_LINES and head.startswith("#", at):
        end = LINE_END_TEXT.search(head, at)
        if end is None:
            return 0, 0  # (a comment running past the head: no header after it here)
        last, at, count = at, end.end(), count + 1
    if at == 0 or at >= len(head):
        return 0, 0
    return (last, count - 1) if _is_header(LINE_END_TEXT.sub("", head[last:at]), head[at:]) else (at, count)


def _is_header(line: str, rest: str) -> bool:
    """Whether ``line``, the last comment line before ``rest`` (the text after it), is the table's header: it
    splits (at its own delimiter, :func:`detect_delimiter`) into as many fields as most of the lines after it do
    (at most :data:`_AFTER_LINES`, whole), and the line after it is no header of its own -- it splits otherwise
    than those lines (a ragged first row: data, as a header has every name), or it holds data like the lines under
    it (:func:`data_votes`: more for data than for a header; no vote either way, as for words over words, keeps
    the line the header). A comment of words that holds as many commas as the rows stays a comment over a header
    of names above typed rows."""
    lines = LINE_END_TEXT.split(rest, _AFTER_LINES)
    lines = [piece for piece in lines[:-1] or lines if piece]  # (the last piece may be cut by the head's end)
    if not lines:
        return False
    delimiter = detect_delimiter(line)  # (a header line's, as a rows read tells it)
    widths = [piece.count(delimiter) for piece in lines]
    most = Counter(widths).most_common(1)[0][0]  # (a tie: the first width met)
    if not most or line.count(delimiter) != most:
        return False
    return widths[0] != most or data_votes([piece.split(delimiter) for piece in lines]) >= 0


_RUN = re.compile(r"\d+|[^\W\d_]+")
_ASCII_DIGITS, _ASCII_LETTERS = re.compile(r"[0-9]+"), re.compile(r"[A-Za-z]+")
_TYPED_PATTERNS = 3  # most patterns the cells of a column of typed data (sizes, dates, versions) take
_HEADER_BODY = 20  # rows under the first one looked at
VOTE_COLUMNS = 64
"""Most columns of a table a vote on its first line looks at (:func:`vote_columns`): the vote costs a few
microseconds a column, 33 ms over 4,000 columns when it looked at every one (``python bench/wide_tables.py``)."""


def vote_columns(width: int) -> range | list[int]:
    """The columns (from 0) of a table ``width`` columns wide that a vote on its first line looks at: every one up
    to :data:`VOTE_COLUMNS`; past that, the first half of them and the other half spread evenly over the rest, the
    last column among them -- a wide table's columns repeat a few kinds (a measure a month, a sensor a reading), so
    a sample of them votes as all of them do, at the cost of a narrow table's vote."""
    if width <= VOTE_COLUMNS:
        return range(width)
    first = VOTE_COLUMNS // 2
    rest, spread = width - first, VOTE_COLUMNS - first
    return [*range(first), *(first + (rest - 1) * step // (spread - 1) for step in range(spread))]


def cell_pattern(cell: str) -> str:
    """A cell's pattern: each run of digits ``9``, each run of letters ``a``, other characters as they are
    (``4.0K`` and ``8.0K``: ``9.9a``; ``Thu Dec 3 13:28:20 2026``: ``a a 9 9:9:9 9``)."""
    cell = cell.strip()
    if cell.isascii():  # (two substitutions at C speed, no call a run: ASCII digits and letters are the runs)
        return _ASCII_LETTERS.sub("a", _ASCII_DIGITS.sub("9", cell))
    return _RUN.sub(lambda run: "9" if run.group()[0].isdigit() else "a", cell)


def data_votes(rows: list[list[str]]) -> int:
    """How much more the first of a table's ``rows`` reads as data like the rows under it than as a header: a vote
    over its columns that hold typed data -- the cells of the (at least 4, at most :data:`_HEADER_BODY`) rows under
    it take at most :data:`_TYPED_PATTERNS` patterns, each with a digit (:func:`cell_pattern`) --, each +1 (data)
    when the first row's cell has one of those patterns, else -1 (a header). Columns of words or free text do not
    vote; 0 with fewer than 4 rows under it. Of a table wider than :data:`VOTE_COLUMNS`, the columns
    :func:`vote_columns` names vote."""
    body = rows[1 : _HEADER_BODY + 1]
    if len(body) < 4:
        return 0
    votes = 0
    for column in vote_columns(len(rows[0])):
        patterns = _typed_patterns([row[column] for row in body if column < len(row)])
        if patterns is not None:
            votes += 1 if cell_pattern(rows[0][column]) in patterns else -1
    return votes


def _typed_patterns(cells: list[str]) -> set[str] | None:
    """The patterns of a column's ``cells`` (:func:`cell_pattern`'s) when each holds a digit and they are at most
    :data:`_TYPED_PATTERNS`, else ``None`` (a column that does not vote: :func:`data_votes`). The first cell's pattern
    first (a column of words stops there); then, cells all ASCII with no NUL, all of them made into runs at once
    (:func:`_ascii_patterns` of the cells joined by NULs), else one at a time, stopped at the first that says no."""
    if cells and "9" not in cell_pattern(cells[0]):
        return None
    joined = "\x00".join(cells)
    if joined.isascii() and joined.count("\x00") == len(cells) - 1:
        found = set(map(str.strip, _ascii_patterns(joined).split("\x00"))) if cells else set()
        return found if len(found) <= _TYPED_PATTERNS and all("9" in pattern for pattern in found) else None
    found = set()
    for cell in cells:
        pattern = cell_pattern(cell)
        found.add(pattern)
        if "9" not in pattern or len(found) > _TYPED_PATTERNS:
            return None
    return found


_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d+)*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?")
_DIGIT = re.compile(r"\d")


def is_number(cell: str) -> bool:
    """Whether ``cell`` (spaces around it aside) is a number as a person reads one: digits with a sign, a decimal
    point, thousands separators, an exponent or a ``%`` (``2024``, ``-1.5``, ``1,234.5``, ``6.02e23``, ``12%``)."""
    return _NUMBER.fullmatch(cell.strip()) is not None


def any_number(cells: list[str]) -> bool:
    """Whether any of ``cells`` :func:`is_number`, at C speed (no call a cell: 4,000 names without a digit cost
    0.1 ms, one search of their join; with digits 0.27 us a cell -- ``python -m timeit`` of both, helper fr-api,
    load 2)."""
    if _DIGIT.search("".join(cells)) is None:
        return False  # (every number has a digit)
    return any(map(_NUMBER.fullmatch, map(str.strip, cells)))


_PLAIN = re.compile(r"a(?:[ _-]a)*")  # the pattern of plain words (``Mounted on``, ``eol-server``, ``max_kib``)
_MISSING = frozenset({"", "-", "na", "n/a", "nan", "null", "none", "nil", "?"})  # (a missing value's words)


def header_votes(rows: list[list[str]]) -> tuple[int, bool]:
    """``(votes, named)``: how much more the first of a table's ``rows`` reads as data like the rows under it than
    as a header, by the evidence a person reads it by -- each column's cells in the first line against the (at most
    :data:`_HEADER_BODY`, at least 1) rows under it, missing values (empty, ``NA``, ``null``, ``-``...) aside:

    - a column of numbers votes +1 (data) when the first cell is a number too, else -1 (``count`` over counts);
    - a column of typed data (at most :data:`_TYPED_PATTERNS` patterns, each with a digit, a leading sign aside:
      dates, sizes, versions, coordinates) +1 when the first cell has one of its patterns, -1 when it holds no
      digit (another pattern with digits, ``1.3.3.post3`` over ``1.0.0`` and ``1.0.0b1``, does not vote);
    - a column of 4 words or more, no digit in any, all of one length (codes: ``AD``, ``AE``) +1 when the first
      cell, with no digit, has that length too, else -1 -- but one word repeated +1 when the first cell is that word,
      else no vote;
    - a first cell missing (``pandas``' index column has no name) or opened by a space where the rows' cells are
      not (a record cut at its start), and a column of free text, do not vote.

    ``named``: a column of numbers or typed data, or of 4 cells or more of at most :data:`_TYPED_PATTERNS` patterns
    none of plain words (paths: ``/api/a``), has a first cell with no digit (and none of those patterns: ``count``
    over counts, ``Date`` over dates, ``endpoint`` over paths): a name, where no row of data writes one -- as a
    pivot's ``month,2024,2025`` over months and counts is a header, its years voting for data. Costs a pattern a
    cell of at most :data:`_TYPED_PATTERNS` + 1 cells of a column of free text; of a table wider than
    :data:`VOTE_COLUMNS`, the columns :func:`vote_columns` names vote (and name), at a 64-column table's cost."""
    body = rows[1 : _HEADER_BODY + 1]
    votes, named = 0, False
    width = len(rows[0])  # (rows all as wide as the first or wider -- cut to the narrowest --, no wider than a
    wide = bool(body) and width <= VOTE_COLUMNS and min(map(len, body)) >= width  # vote looks: one transpose)
    columns = list(zip(*body, strict=False)) if wide else None
    for column in vote_columns(width):
        cell = rows[0][column]
        cells = _present(columns[column]) if columns is not None else [
            row[column] for row in body if column < len(row) and row[column].strip().lower() not in _MISSING]
        if not cells or cell.strip().lower() in _MISSING or (cell[:1] == " " and 2 * sum(
                piece[:1] == " " for piece in cells) < len(cells)):
            continue  # (a first cell opened by a space where the rows' are not: the end of a record cut at its start)
        digits = _DIGIT.search(cell) is not None
        if all(map(_NUMBER.fullmatch, map(str.strip, cells))):  # (is_number of each, no call a cell)
            votes += 1 if is_number(cell) else -1
            named = named or not digits
            continue
        patterns = column_patterns(cells)
        if patterns is not None and all("9" in pattern for pattern in patterns):  # (typed data)
            votes += 1 if _signless(cell) in patterns else 0 if digits else -1  # (another version: no vote)
            named = named or not digits
            continue
        if patterns is not None and len(cells) >= 4 and not any(map(_PLAIN.fullmatch, patterns)):  # (paths)
            named = named or (not digits and _signless(cell) not in patterns)
        if not digits and len(cells) >= 4 and len(set(map(len, cells))) == 1 and not any(map(_DIGIT.search, cells)):
            if len(set(cells)) > 1:  # (codes of one length: AD, AE, AF)
                votes += 1 if len(cell) == len(cells[0]) else -1
            elif cell == cells[0]:  # (one word repeated: a first line like it is data, another word no evidence)
                votes += 1
    return votes, named


_LONG_CELLS = 10  # characters a cell, on average, past which a column's other characters are looked at first
_ASCII_ALNUM = b"0123456789" + bytes(range(65, 91)) + bytes(range(97, 123))
_RUN_MARKS = bytes.maketrans(_ASCII_ALNUM, b"9" * 10 + b"a" * 52)


def _ascii_patterns(text: str) -> str:
    """``text`` (ASCII) with each run of digits ``9`` and each run of letters ``a`` (:func:`cell_pattern`'s two
    substitutions, without their call a run): each digit made ``9`` and each letter ``a`` by one translation, then
    runs of them halved until none is longer than 1 (a pass a doubling of the longest run's length)."""
    marked = text.encode("ascii").translate(_RUN_MARKS)
    for run in (b"99", b"aa"):
        while run in marked:
            marked = marked.replace(run, run[:1])
    return marked.decode("ascii")


def _present(cells: tuple[str, ...]) -> list[str]:
    """The ``cells`` of a column that hold no missing value (:data:`_MISSING`, spaces around them and case
    aside): all of them, at C speed, when none does."""
    keys = list(map(str.lower, map(str.strip, cells)))
    if _MISSING.isdisjoint(keys):
        return list(cells)
    return [cell for cell, key in zip(cells, keys, strict=True) if key not in _MISSING]


def column_patterns(cells: list[str]) -> set[str] | None:
    """The patterns of a column's ``cells`` (:func:`cell_pattern`'s, without a sign before the first number:
    ``+4230+00131`` and ``-1230+00131`` are both ``9+9``), or ``None`` past :data:`_TYPED_PATTERNS` of them (free
    text). Cells all ASCII, no NUL among them, are told in one substitution over the column
    (:func:`cell_pattern`'s two, on the cells joined by NULs: no call a cell)."""
    joined = "\x00".join(cells)
    if cells and joined.isascii() and joined.count("\x00") == len(cells) - 1:
        if len(joined) > _LONG_CELLS * len(cells) and len(set("\x00".join(map(  # (cells of one pattern keep the same
                str.lstrip, map(str.strip, cells), repeat("+-", len(cells)))).encode().translate(  # characters but
                None, _ASCII_ALNUM).split(b"\x00"))) > _TYPED_PATTERNS:  # letters and digits; a sign before a
            return None  # number is no pattern's, _signless: free text told so, no run made -- short cells, dates and
            # versions, cost less made into runs at once)
        told = set(map(str.strip, _ascii_patterns(joined).split("\x00")))
        signless = {pattern[1:] if pattern[:2] in ("+9", "-9") else pattern for pattern in told}
        return signless if len(signless) <= _TYPED_PATTERNS else None
    found: set[str] = set()
    for cell in cells:
        found.add(_signless(cell))
        if len(found) > _TYPED_PATTERNS:
            return None
    return found


def _signless(cell: str) -> str:
    """:func:`cell_pattern` without a sign before its first number (``+4230+00131`` and ``-1230+00131``: ``9+9``)."""
    pattern = cell_pattern(cell)
    return pattern[1:] if pattern[:2] in ("+9", "-9") else pattern
