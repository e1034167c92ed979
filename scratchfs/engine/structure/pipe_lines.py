"""Tables drawn with pipes -- a Markdown table (GitHub-flavoured, https://github.github.com/gfm/#tables-extension-),
``psql``'s default output, a table boxed in ``+----+`` borders (``mysql``, ``sqlite3 -table``, ``psql`` with
``\\pset border 2``) -- line by line: where one starts in a content's first lines and how each of its lines splits
into cells. Pure, and a leaf (:mod:`~scratchfs.engine.structure.aligned` builds their layouts from what
:func:`find_pipes` finds; each is one more :class:`~scratchfs.engine.structure.aligned.Layout` of the same reads).

The forms (:data:`PIPED`), each a header line of names over a rule:

- ``"markdown"``: ``| id | name |`` over a delimiter row ``|---|:--:|`` with as many cells; the pipes at a line's
  start and end are optional, ``\\|`` is a pipe inside a cell (also inside backticks: GFM splits a row at every pipe
  not escaped, before any inline parsing), each cell trimmed, Markdown inside it kept as written;
- ``"psql"``: `` id | name `` over ``----+------``, whose ``+`` stand where the header's pipes do (in terminal
  columns, as psql pads a cell: a CJK character takes two; so do a box's borders' ``+``); the footer
  ``(500 rows)`` is no row;
- ``"box"``: a header ``| id | name |`` between two borders ``+----+------+`` (the one under it may be ``|----+---|``,
  as ``tabulate``'s ``psql`` format draws it); the borders are no rows;
- drawn with Unicode box-drawing lines (light, heavy or double: ``│ ┃ ║`` between cells, ``─ ━ ═`` in rules), where a
  ``|`` is text: ``"lines"``, a header ``│ id │ name │`` between a top border ``┌────┬──────┐`` and a rule
  ``├────┼──────┤`` (``sqlite3 -box``, ``psql`` with ``\\pset linestyle unicode`` and ``\\pset border 2``);
  ``"duckdb"``, the same with a second header line of the columns' types (``│ varchar │ int64 │``, no row) over the
  rule, as DuckDB's CLI draws it, its ``·`` rows standing for the rows it left out (no rows); ``"psql-lines"``,
  `` id │ name`` over ``────┼──────`` (``psql``'s unicode linestyle). Their rows end at the bottom border
  ``└────┴──────┘`` (or a rule closing the columns, ``├────┴──────┤``, over DuckDB's footer) or any line that is
  neither a row (a vertical first) nor a rule ``├────┼──────┤`` -- a ``"psql-lines"`` table's at a line holding no
  vertical. Their borders are told by the count of their joints (a column name in CJK characters is two columns
  wide, one character).

The rule right under the header is no row (whatever it looks like: a Markdown row of dashes further down is one).
The rows run up to a blank line or a line holding no pipe (psql's footer, mysql's ``5 rows in set``, text after a
Markdown table -- which GFM would make a row of one cell), a box's up to a line that is neither a row (``|`` first) nor
a border, or up to a border right under a border (one table's bottom border over the next one's top: ``mysql -t`` of
several statements prints them so; a grid, ``tabulate``'s with ``+====+`` under its header, draws one border between
two rows). A row of fewer cells than the header is filled with empty ones (as GFM does); one of more -- a value
holding a pipe, which neither ``sqlite3`` nor ``psql`` escapes -- is split at the header's pipes' positions when it
has a pipe at each and ends where the header does (the tools pad every column to its widest value), else its cells
cannot be told for certain (:func:`pipe_cells` gives ``None``: the reads give it whole, where GFM drops the cells past
the header's). A value holding a line end runs over more lines (psql marks them ``+``), each read as a row.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from itertools import accumulate, pairwise
from typing import NamedTuple

__all__ = ["BOX", "CLOSING", "DUCKDB", "LINED", "MARKDOWN", "MAX_PREAMBLE", "MIDDLE_RULE", "OPEN_RULE", "PIPED", "PSQL",
           "PSQL_LINED", "VERTICALS", "PipeTable", "find_pipes", "pipe_border", "pipe_cells", "pipe_ends", "pipe_row",
           "pipes_near"]

MARKDOWN, PSQL, BOX = "markdown", "psql", "box"
LINED, DUCKDB, PSQL_LINED = "lines", "duckdb", "psql-lines"
PIPED = (MARKDOWN, PSQL, BOX, LINED, DUCKDB, PSQL_LINED)
"""The forms of a table drawn with pipes (a :class:`~scratchfs.engine.structure.aligned.Layout`'s ``rule``)."""
MAX_PREAMBLE = 8
"""Most lines before a table's header (a box's top border) -- text a tool or a model writes before it."""
_FIRST_LINES = MAX_PREAMBLE + 3  # (a preamble, a box's top border, the header and the rule under it)
_MIN_COLUMNS = 2
_MAX_HEADER_CHARS = 4096
_UNESCAPED = re.compile(r"(?<!\\)\|")  # a Markdown row's cells part at a pipe not escaped (GFM: `\|` is a pipe)
_DELIMITER_CELL = re.compile(r"[ \t]*:?-+:?[ \t]*")
_PSQL_RULE = re.compile(r"-+(?:\+-+)+")
_BORDER = re.compile(r"\+[-=]+(?:\+[-=]+)*\+")
_UNDER_HEADER = re.compile(r"(?:\+|\|)[-=]+(?:\+[-=]+)*(?:\+|\|)")  # (tabulate's psql format: |----+----|)
_RULE_START = frozenset("|-:+ \t")  # what a rule line's first character is (most lines of text fail here)
VERTICALS = "│┃║"
"""The vertical lines between the cells of a table drawn with Unicode box lines (light, heavy, double)."""
_LINED_FORMS = frozenset((LINED, DUCKDB, PSQL_LINED))
_HORIZONTALS = "─━═"
_VERTICAL = re.compile(f"[{VERTICALS}]")
_TOP = re.compile("[┌┍┎┏╒╓╔╭][─━═┬┭┮┯┰┱┲┳╤╥╦]*[┐┑┒┓╕╖╗╮]")
_TEES = "├┝┞┟┠┡┢┣╞╟╠"
MIDDLE_RULE = f"[{_TEES}][─━═┼┽┾┿╀╁╂╃╄╅╆╇╈╉╊╋╪╫╬]*[┤┥┦┧┨┩┪┫╡╢╣]"
"""A rule between the rows of a table drawn with box lines (``├────┼──────┤``), as a regular expression."""
OPEN_RULE = "[─━═]+(?:[┼┽┾┿╀╁╂╃╄╅╆╇╈╉╊╋╪╫╬][─━═]+)+"
"""The rule under the header of ``psql``'s unicode linestyle (``────┼──────``), as a regular expression."""
CLOSING = "└┕┖┗╘╙╚╰" + _TEES
"""The first characters of the line that closes a table drawn with box lines (its bottom border, or a rule closing
its columns over DuckDB's footer, ``├────┴──────┤``) -- any line so starting that ends its rows."""
_MIDDLE = re.compile(MIDDLE_RULE)
_BOTTOM = re.compile(f"(?:[└┕┖┗╘╙╚╰]|[{_TEES}](?=.*[┴┵┶┷┸┹┺┻╧╨╩]))[─━═┴┵┶┷┸┹┺┻╧╨╩]*[┘┙┚┛╛╜╝╯┤┥┦┧┨┩┪┫╡╢╣]")
_OPEN_RULE = re.compile(OPEN_RULE)
_LINED_RULE_START = frozenset(VERTICALS + _HORIZONTALS + _TEES)  # (DuckDB's: its types row, │ first)
_DOTS = frozenset(VERTICALS + " ·\r")  # (a DuckDB row of · between the rows shown: the rows left out)
_TYPE = re.compile(r"[^\W\d_]|…")  # (a DuckDB type's first character: varchar, int64, decimal(18,3), …)


class PipeTable(NamedTuple):
    """A table drawn with pipes found in a content's first lines: its header's line (from 0), its form, its
    names, and where its header's pipes stand (characters from the line's start)."""

    at: int
    form: str
    names: tuple[str, ...]
    pipes: tuple[int, ...]
    types: tuple[str, ...] = ()
    """The columns' types a DuckDB table names under its names (``()`` for other forms)."""


def pipes_near(text: str, end: int) -> bool:
    """The first test, which most text fails at once: whether ``text[:end]`` (a content's first lines) holds a
    pipe or a vertical box line (a scan at C speed each; those of a vertical cost nothing on ASCII text, which holds
    no character that wide)."""
    return text.find("|", 0, end) >= 0 or text.find("│", 0, end) >= 0 or text.find("║", 0, end) >= 0 or text.find(
        "┃", 0, end) >= 0  # (unrolled: a generator over VERTICALS costs 0.4 us more a text)


def find_pipes(lines: list[str]) -> PipeTable | None:
    """The table drawn with pipes whose header is one of ``lines``' first (after at most :data:`MAX_PREAMBLE` lines
    of text, none holding U+FFFD -- bytes not UTF-8, which a byte offset past them must count as they are; no
    newlines, a trailing ``\\r`` ignored; a byte order mark opening the first no part of it, as a rows read drops
    it), the first found, with 2 columns or more; else ``None``."""
    if lines and lines[0].startswith("\ufeff"):
        lines = [lines[0][1:], *lines[1:]]
    for at in range(min(len(lines) - 1, _FIRST_LINES - 1)):
        if at and "\ufffd" in lines[at - 1]:
            return None
        rule = lines[at + 1].rstrip(" \r")
        if rule[:1] in _RULE_START and ("-" in rule or "=" in rule):  # (a grid's is +====+)
            found = _table_at(lines, at, rule)
        elif rule[:1] in _LINED_RULE_START:
            found = _lined_at(lines, at, rule)
        else:
            continue
        if found is not None:
            return found
    return None


def _lined_at(lines: list[str], at: int, rule: str) -> PipeTable | None:
    """The table drawn with Unicode box lines whose header is ``lines[at]`` over ``rule`` (its next line, trailing
    blanks stripped), or ``None``."""
    header = lines[at].rstrip(" \r")
    bars = _positions(header, LINED)
    if len(header) > _MAX_HEADER_CHARS or not bars or at > MAX_PREAMBLE + 1:
        return None
    types: tuple[str, ...] = ()
    if header[0] in VERTICALS:  # (a header in a frame: a top border over it)
        top = lines[at - 1].rstrip(" \r") if at else ""
        if not (at and _TOP.fullmatch(top) and _joints(top) == len(bars)):
            return None
        if _MIDDLE.fullmatch(rule) and _joints(rule) == len(bars):
            form = LINED
        elif len(_positions(rule, LINED)) == len(bars) and at + 2 < len(lines) and _closes(lines[at + 2], len(bars)):
            form, types = DUCKDB, tuple(_cell(piece, LINED) for piece in _pieces(rule, LINED))
            if not all(_TYPE.match(name) for name in types):
                return None
        else:
            return None
    elif _OPEN_RULE.fullmatch(rule) and _joints(rule) == len(bars) and at <= MAX_PREAMBLE:
        form = PSQL_LINED
    else:
        return None
    names = tuple(_cell(piece, form) for piece in _pieces(header, form))
    return PipeTable(at, form, names, bars, types) if len(names) >= _MIN_COLUMNS else None


def _joints(border: str) -> int:
    """How many verticals a box's ``border`` (a line of box lines) joins: its characters but the horizontals."""
    return len(border) - sum(border.count(line) for line in _HORIZONTALS)


def _closes(line: str, bars: int) -> bool:
    """Whether ``line`` is the rule under a DuckDB table's types (``├──┼──┤``), or its bottom border (no rows), with
    a joint for each of the header's ``bars``."""
    body = line.rstrip(" \r")
    return (_MIDDLE.fullmatch(body) is not None or _BOTTOM.fullmatch(body) is not None) and _joints(body) == bars


def _table_at(lines: list[str], at: int, rule: str) -> PipeTable | None:
    """The table whose header is ``lines[at]`` over ``rule`` (its next line, trailing blanks stripped), or ``None``."""
    header = lines[at].rstrip(" \r")
    if "|" not in header or len(header) > _MAX_HEADER_CHARS:
        return None
    top = lines[at - 1].rstrip(" \r") if at else ""
    if at and _BORDER.fullmatch(top) and header.startswith("|") and _UNDER_HEADER.fullmatch(rule):
        form = BOX  # (the pipes of a box's header stand where its borders' + do)
        if _columns(header, _positions(header, BOX)) != _positions(top, BOX, "+") or at - 1 > MAX_PREAMBLE:
            return None
    elif _PSQL_RULE.fullmatch(rule) and not header.lstrip(" ").startswith("|"):
        form = PSQL
        if _columns(header, _positions(header, PSQL)) != _positions(rule, PSQL, "+") or at > MAX_PREAMBLE:
            return None
    elif "+" not in rule and at <= MAX_PREAMBLE:
        form = MARKDOWN
        delimiters = _pieces(rule, MARKDOWN)
        if not all(_DELIMITER_CELL.fullmatch(cell) for cell in delimiters) or len(delimiters) != len(
                _pieces(header, MARKDOWN)):
            return None
    else:
        return None
    names = tuple(_cell(piece, form) for piece in _pieces(header, form))
    return PipeTable(at, form, names, _positions(header, form)) if len(names) >= _MIN_COLUMNS else None


def _positions(line: str, form: str, char: str = "|") -> tuple[int, ...]:
    """Where ``line``'s pipes (or ``char``) stand: those not escaped, in a Markdown line; its verticals, in a table
    drawn with box lines."""
    if form == MARKDOWN:
        return tuple(found.start() for found in _UNESCAPED.finditer(line))
    if form in _LINED_FORMS:
        return tuple(found.start() for found in _VERTICAL.finditer(line))
    return tuple(at for at, seen in enumerate(line) if seen == char)


def _columns(line: str, at: tuple[int, ...]) -> tuple[int, ...]:
    """``at`` (characters from ``line``'s start) as the terminal columns they stand at, as ``psql`` and ``mysql``
    pad a cell by the columns its text takes: a wide character (East Asian width ``W`` or ``F``: CJK) two, a
    combining one none."""
    if line.isascii():
        return at
    shifts = [(i, 1 if unicodedata.east_asian_width(c) in "WF" else -1) for i, c in enumerate(line) if not c.isascii()
              and (unicodedata.combining(c) or unicodedata.east_asian_width(c) in "WF")]
    ends, sums = [i for i, _ in shifts], [0, *accumulate(shift for _, shift in shifts)]  # (summed once: a sum per
    return tuple(p + sums[bisect_left(ends, p)] for p in at)  # pipe was pipes x characters, 1.5 s of a spill's CPU)


def _pieces(line: str, form: str, cuts: tuple[int, ...] | None = None) -> list[str]:
    """``line`` (trailing blanks stripped) cut at its pipes (at ``cuts``, when given), less the empty pieces before a
    first pipe and after a last one that open and close it (a Markdown or boxed row's)."""
    if cuts is not None:
        pieces = [line[a + 1 : b] for a, b in pairwise((-1, *cuts, len(line)))]
    elif form in _LINED_FORMS:
        pieces = _VERTICAL.split(line)
    else:
        pieces = _UNESCAPED.split(line) if form == MARKDOWN else line.split("|")
    open_ended = form in (PSQL, PSQL_LINED)  # (no pipe opens or closes a psql line)
    if not open_ended and len(pieces) > 1 and not pieces[0].strip(" \t"):
        pieces = pieces[1:]
    if not open_ended and len(pieces) > 1 and not pieces[-1].strip(" \t") and line[-1:] in ("|", *VERTICALS):
        pieces = pieces[:-1]
    return pieces


def _cell(piece: str, form: str) -> str:
    """A cell's text: ``piece`` trimmed, a Markdown cell's ``\\|`` a pipe."""
    cell = piece.strip(" \t")
    return cell.replace("\\|", "|") if form == MARKDOWN and "\\|" in cell else cell


def pipe_cells(line: str, form: str, count: int, pipes: tuple[int, ...]) -> list[str] | None:
    """The ``count`` cells of ``line`` (a row of a table of ``form`` whose header's pipes stand at ``pipes``; no
    newline, a trailing ``\\r`` ignored), fewer filled with ``""``; ``None`` when it has more and no pipe at each of
    ``pipes`` (its cells cannot be told for certain)."""
    body = line.rstrip(" \r\n")
    many = _separators(body, form) > count + 1  # (more cells than ``count`` whatever opens and closes it: not split,
    pieces = [] if many else _pieces(body, form)  # a 15 MiB line of |xy split in 5 million cells held 466 MB)
    if (many or len(pieces) > count) and _padded(body, form, pipes):
        pieces, many = _pieces(body, form, pipes), False  # (a value holding a pipe, in a table padded to its widest)
    if many or len(pieces) > count:
        return None
    return [_cell(piece, form) for piece in pieces] + [""] * (count - len(pieces))


def _separators(body: str, form: str) -> int:
    """How many pipes (verticals, in a table drawn with box lines; those not escaped, in a Markdown one) ``body``
    is cut at: counted at C speed, not split."""
    if form in _LINED_FORMS:
        return sum(body.count(line) for line in VERTICALS)
    return body.count("|") - (body.count("\\|") if form == MARKDOWN else 0)


def _padded(body: str, form: str, pipes: tuple[int, ...]) -> bool:
    """Whether ``body`` (a row) has a pipe where each of the header's stands (``pipes``), as a tool that pads every
    column to its widest value prints it: a boxed or Markdown row then ends at the header's last pipe (a psql
    row's last column is not padded)."""
    bars = VERTICALS if form in _LINED_FORMS else "|"
    return bool(pipes) and pipes[-1] < len(body) and all(body[at] in bars for at in pipes) and (
        form in (PSQL, PSQL_LINED) or pipes[-1] == len(body) - 1)


def pipe_ends(line: str, form: str) -> bool:
    """Whether ``line`` (no newline) -- not the rule under the header -- ends the rows of a table of ``form``: it is
    blank or holds no pipe (a box's: neither a row nor a border; one drawn with box lines: neither a row nor a rule
    between rows -- its bottom border ends them)."""
    body = line.rstrip(" \r")
    if form == BOX:
        return not body.startswith(("|", "+")) or (body[0] == "+" and _BORDER.fullmatch(body) is None)
    if form in (LINED, DUCKDB):
        return not body or (body[0] not in VERTICALS and _MIDDLE.fullmatch(body) is None)
    if form == PSQL_LINED:
        return _VERTICAL.search(body) is None
    return "|" not in body


def pipe_row(line: str, form: str) -> bool:
    """Whether ``line`` (no newline; one :func:`pipe_ends` does not end the rows at), past the rule under the
    header, is a row: a box's borders are not, nor DuckDB's rows of ``·`` (the rows it left out)."""
    if form in (LINED, DUCKDB):
        return bool(line) and line[0] in VERTICALS and not (form == DUCKDB and "·" in line and _DOTS.issuperset(line))
    return form != BOX or not line.startswith("+")


def pipe_border(line: str, form: str) -> bool:
    """Whether ``line`` (no newline) is a border of a table of ``form`` (a box's ``+----+------+``, a rule
    ``├────┼──────┤`` between rows drawn with box lines): the rows end at a border right under another (the
    module's rules)."""
    if form in (LINED, DUCKDB):
        return _MIDDLE.fullmatch(line.rstrip(" \r")) is not None
    return form == BOX and _BORDER.fullmatch(line.rstrip(" \r")) is not None
