"""A table aligned by spaces with no header line (``ls -l`` without its ``total``, ``ps`` output after ``tail -n
+2``, ``df`` without its header, ``docker images`` cut of its first line), for :mod:`scratchfs.api.shape`: text
whose first lines all stand in the same columns, which its shape counts (``", a table of 9 columns aligned by
spaces on each of its first 50 lines, no header line"``) -- where a table with a header is told by
:mod:`scratchfs.api.shape_aligned`, whose names its reads use: this one has none, so it stays text, its rows read
as a CSV's with no header line (columns by number) when its cells are parted by runs of spaces alone
(:func:`runs_starts`; the reads layer splits each line so), else by lines.

The columns are the runs of positions, within the shortest of the lines looked at, where some line holds a
character other than a space, parted by positions where every line holds a space (a gutter); the last column may
run on past the shortest line (a file name, a command). Told when at least :data:`MIN_ROWS` lines are looked at
(the first :data:`ROWS`, none blank, no tab, of the first :data:`_BYTES` bytes, ASCII; some cell padded by
:data:`_PADDING_RE`), they stand in at least
:data:`MIN_COLUMNS` columns, every line holds a character in every column (no empty cell: prose whose spaces
happen to line up leaves some), some line starts at the first column (indented code does not) or the first column
is of numbers (``ps``'s right-aligned PIDs), and no column holds one same mark on every line (code's aligned ``=``
or ``:``, a drawing's ``|``: :data:`_CODE_MARKS`). Each line's spaces are found at C speed (a translation to a
byte a position, the lines' masks and-ed as integers, stopped at the first line that leaves no gutter), the
cells only once those pass.
"""

from __future__ import annotations

import re
from itertools import pairwise

from scratchfs.engine.structure.aligned_lines import is_total
from scratchfs.foundation.text import plural

__all__ = ["COLUMNS_BYTES", "LARGEST_SAID", "MIN_COLUMNS", "MIN_ROWS", "ROWS", "TOTAL_SAID", "columns_said",
           "headless_columns", "keyed_rows", "runs_starts"]

ROWS = 50
"""Most lines looked at (the first ones)."""
MIN_ROWS = 5
"""Fewest lines that make a table."""
MIN_COLUMNS = 3
"""Fewest columns that make a table (two are a list of pairs: a word and a sentence's rest)."""
COLUMNS_BYTES = _BYTES = 8192
"""The first bytes of a text its lines are told from."""
_WIDTH = 512  # (the positions of a line looked at: the last column runs on past them)
_SPACES = bytes(1 if byte == 0x20 else 0 for byte in range(256))  # (a byte a position: 1 where a space)
_CODE_MARKS = frozenset(b"= := += -= == => -> <- : :: | || - -- + * / // # ; , . ... { } ( ) [ ] < > \\".split())
"""A cell that, the same on every line, makes a column of code's or a drawing's (aligned ``=``, ``:``, ``|``)."""
_PADDING_RE = re.compile(rb"[^\s.!?:;,]  ")
"""Two spaces after a word that ends no sentence nor clause: a cell padded to its column's width (prose leaves none
but after a full stop)."""
_FOOTER_CHARS = 60  # (most characters of a footer's words a shape quotes, as a table's with a header)
_RUN_RE = re.compile(rb"\x00+")  # (a run of positions where some line holds no space: a column)
_TOTAL_RE = re.compile(rb"total [0-9]{1,20}(?:[.,][0-9]{1,3})?[KMGTPE]?\r?\n")  # ls -l's first line ("total 1744",
# with -h "total 1.7M"): its blocks, no row, before the rows
TOTAL_SAID = " after line 1 (ls's total)"
"""What the shape says after the lines it counts when a ``total N`` line, ``ls -l``'s, comes before them."""
_SAID_RE = re.compile(r", a table of ([0-9,]+) columns (?:aligned|parted) by spaces on each of its first [0-9,]+ "
                      f"lines(?:{re.escape(TOTAL_SAID)})?(?: \\(a (?:number|digest), then a name\\))?, no header line")
_KEYED_RE = re.compile(rb" *([0-9]+|[0-9a-f]+) +([^ \t][^\t]*)")  # a number or a digest, spaces, a name
_MAX_DIGITS = 20  # (a size, a count: at most 20 digits)
_DIGEST_DIGITS = frozenset((32, 40, 56, 64, 96, 128))  # (md5sum's, sha1sum's, ... sha512sum's, in hexadecimal)
_NUMBER, _DIGEST = "number", "digest"  # (the kinds of a keyed line's first word)
LARGEST_SAID = """; the largest: jq='map(select(.[1] != "total") | (.[0] | tonumber?) as $n | [$n, .[1]]) | \
sort_by(-.[0]) | .[:10]', slurp=true"""
"""What the shape of lines of a number and a name adds: the read of the 10 largest (sizes, counts), past the lines
whose name is ``total`` (``wc``'s, one a batch of ``xargs``) and those whose first word is no number (``find``'s
``find: '/x': Permission denied`` written among them, which also makes the column's every cell a string)."""


def headless_columns(shape: str | None) -> int | None:
    """The count of columns a text's ``shape`` (its stored shape text, ``None``: unknown) says its first lines stand
    in (:func:`columns_said`'s words), else ``None``."""
    found = _SAID_RE.search(shape or "")
    return int(found.group(1).replace(",", "")) if found else None


def columns_said(sample: bytes, whole: bool = False) -> str:
    """What the shape of ``sample`` (a text's first bytes; ``whole``: all of it) adds when its first lines are a
    table aligned by spaces with no header line (the module's docstring): ``", a table of 9 columns aligned by
    spaces on each of its first 50 lines, no header line"``; else ``""``. Read a line at a time, each one's spaces
    and-ed into the gutters of those before it: prose leaves fewer than 2 after 2 or 3 lines, where it stops. The
    content's last line among them that reads as one of totals (``wc``'s ``1252  4490 35013 total``:
    :func:`~scratchfs.engine.structure.aligned_lines.is_total`) is its footer, no row, as the rows reads read it: the
    lines counted stop before it, and the shape names it with its ``line=``. Lines of a number and a name
    (:func:`keyed_rows`) are ``", a table of 2 columns parted by spaces on each of its first 50 lines (a number,
    then a name), no header line"`` and :data:`LARGEST_SAID`, its read of the largest (``(a digest, then a name)``
    of ``sha256sum``'s, no largest). Never raises."""
    told = _told(sample)
    if told is None:
        return ""
    rows, columns, start, keyed = told
    footer = whole and len(rows) > MIN_ROWS and is_total(rows[-1].decode("latin-1")) and sample.rstrip(
        b"\r\n ").count(b"\n") + 1 == len(rows) + (start > 0)  # (the last line of all: no line after it)
    said = f", a table of {plural(len(columns), 'column')} {'parted' if keyed else 'aligned'} by spaces on each of " \
        f"its first {plural(len(rows) - footer, 'line')}{TOTAL_SAID if start else ''}" + (
            f" (a {keyed}, then a name)" if keyed else "") + ", no header line"
    if footer:
        line = len(rows) + (start > 0)
        words = " ".join(rows[-1].decode("utf-8", "replace").split())[:_FOOTER_CHARS]
        said = f'{said}, then a footer, no row (line {line:,}: "{words}", line={line} reads it)'
    return f"{said}{LARGEST_SAID}" if keyed == _NUMBER else said


def runs_starts(sample: bytes) -> tuple[tuple[int, ...], int] | None:
    """``(the character offsets where the columns start, the byte offset of the first row)`` of a text whose first
    bytes ``sample`` make the table :func:`columns_said` tells (the first row: 0, or after ``ls -l``'s ``total N``
    line), when each of its first lines splits at runs of spaces into the same cells as at those columns (each cell
    one word, but the last's: ``line.split(None, columns - 1)``), so that every rows read splits its lines so; else
    ``None`` (a cell holding a space, ``Up 2 hours``: no such split). Lines of a number and a name
    (:func:`keyed_rows`) split so by their rule: their columns start where the first line's do. Never raises."""
    told = _told(sample)
    if told is None:
        return None
    rows, columns, first, keyed = told
    for row in () if keyed else rows:
        words = row.split(None, len(columns) - 1)
        if words != [row[start:end].strip() for start, end in columns]:
            return None
    return tuple(start for start, _end in columns), first


def keyed_rows(sample: bytes, first: int = 0) -> tuple[list[bytes], str] | None:
    """``(the lines, the kind of their first words: "number" or "digest")`` of ``sample`` from byte ``first`` -- at
    most :data:`ROWS` whole lines of its first :data:`COLUMNS_BYTES` bytes, at least :data:`MIN_ROWS`, trailing
    spaces and ``\\r`` stripped -- when each is a number (a size, a count of lines, of blocks) or a hexadecimal
    digest (of 32 to 128 digits, the same for all), spaces, and a name holding no tab: ``find -printf '%s
    %p\\n'``, ``wc -l`` and ``ls -s`` of many files (their numbers right-aligned), ``sha256sum``, ``uniq -c``; else
    ``None``. Text whose lines start with numbers is none of these when the numbers count up by one from line to
    line in half of the lines or more (a numbered list, line-numbered code) or more than a fifth of the names hold
    a space (sentences, code). Never raises."""
    rows: list[bytes] = []
    keys: list[bytes] = []
    spaced = 0
    at = first
    while len(rows) < ROWS:
        end = sample.find(b"\n", at, _BYTES)
        if end < 0:
            break
        row = sample[at:end].rstrip(b"\r ")
        found = _KEYED_RE.fullmatch(row)
        if found is None:
            return None
        rows.append(row)
        keys.append(found.group(1))
        spaced += b" " in found.group(2)
        at = end + 1
    if len(rows) < MIN_ROWS or 5 * spaced > len(rows):
        return None
    if all(len(key) <= _MAX_DIGITS and key.isdigit() for key in keys):
        numbers = list(map(int, keys))
        counted = sum(after == before + 1 for before, after in pairwise(numbers))
        return None if 2 * counted >= len(numbers) - 1 else (rows, _NUMBER)
    return (rows, _DIGEST) if len(set(map(len, keys))) == 1 and len(keys[0]) in _DIGEST_DIGITS else None


def _told(sample: bytes) -> tuple[list[bytes], list[tuple[int, int]], int, str] | None:
    """``(the lines looked at, the columns' spans, the byte offset of the first, "")`` of :func:`columns_said`'s
    table (``ls -l``'s ``total N`` line before it passed over), else for lines of a number or a digest and a name
    (:func:`keyed_rows`) ``(those lines, the spans of the first's two, its offset, the kind of their first
    words)``, else ``None``."""
    total = _TOTAL_RE.match(sample) if sample[:6] == b"total " else None
    first = total.end() if total else 0
    told = _gutters(sample, first)
    if told is not None:
        return (*told, "")
    keyed = keyed_rows(sample, first)
    if keyed is None:
        return None
    rows, kind = keyed
    found = _KEYED_RE.fullmatch(rows[0])
    return None if found is None else (rows, [found.span(1), (found.start(2), len(rows[0]))], first, kind)


def _gutters(sample: bytes, first: int) -> tuple[list[bytes], list[tuple[int, int]], int] | None:
    """:func:`_told`'s table of columns parted by gutters, its first row at byte ``first`` of ``sample``."""
    rows: list[bytes] = []
    at = first
    gutter = -1  # (a byte a position, little-endian: position i is byte i; past a line's end, none)
    while len(rows) < ROWS:
        end = sample.find(b"\n", at, _BYTES)
        if end < 0:
            break
        row = sample[at:end].rstrip(b"\r ")  # (a CRLF's \r, spaces after a line's last cell)
        gutter &= int.from_bytes(row[:_WIDTH].translate(_SPACES), "little")
        if gutter.bit_count() < MIN_COLUMNS - 1:  # (a blank line, or too few positions a space in every line)
            return None
        rows.append(row)
        at = end + 1
    if len(rows) < MIN_ROWS:
        return None
    columns = _columns(rows, gutter.to_bytes(min(_WIDTH, *map(len, rows)), "little"))
    return None if columns is None else (rows, columns, first)


def _columns(rows: list[bytes], marks: bytes) -> list[tuple[int, int]] | None:
    """The columns' spans of ``rows`` (the lines looked at, none blank) whose gutters within the shortest are the
    ones of ``marks`` (a byte a position: 1 where every line holds a space), when they make a table, else ``None``."""
    columns = [found.span() for found in _RUN_RE.finditer(marks)]
    joined = b"\n".join(rows)
    if len(columns) < MIN_COLUMNS or not joined.isascii() or b"\t" in joined or _PADDING_RE.search(joined) is None:
        return None  # (a tab or a wide character shifts the columns; no cell padded: words that happen to line up)
    if columns[0][0] != 0 and not all(row[: columns[0][1]].strip().isdigit() for row in rows):
        return None  # (indented code; ps's PIDs right-aligned)
    columns[-1] = (columns[-1][0], max(map(len, rows)))  # (the last runs on: a name, a command)
    for start, end in columns:
        cells = [row[start:end].strip() for row in rows]
        if not all(cells) or (len(set(cells)) == 1 and cells[0] in _CODE_MARKS):
            return None
    return columns
