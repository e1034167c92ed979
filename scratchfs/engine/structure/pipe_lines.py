"""Tables drawn with pipes -- a Markdown table (GitHub-flavoured, https://github.github.com/gfm/#tables-extension-),
``psql``'s default output, a table boxed in ``+----+`` borders (``mysql``, ``sqlite3 -table``, ``psql`` with
``\\pset border 2``) -- line by line: where one starts in a content's first lines and how each of its lines splits
into cells. Pure, and a leaf (:mod:`~scratchfs.engine.structure.aligned` builds their layouts from what
:func:`find_pipes` finds; each is one more :class:`~scratchfs.engine.structure.aligned.Layout` of the same reads).

The three forms (:data:`PIPED`), each a header line of names over a rule:

- ``"markdown"``: ``| id | name |`` over a delimiter row ``|---|:--:|`` with as many cells; the pipes at a line's
  start and end are optional, ``\\|`` is a pipe inside a cell (also inside backticks: GFM splits a row at every pipe
  not escaped, before any inline parsing), each cell trimmed, Markdown inside it kept as written;
- ``"psql"``: `` id | name `` over ``----+------``, whose ``+`` stand where the header's pipes do; the footer
  ``(500 rows)`` is no row;
- ``"box"``: a header ``| id | name |`` between two borders ``+----+------+`` (the one under it may be ``|----+---|``,
  as ``tabulate``'s ``psql`` format draws it); the borders are no rows.

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
from itertools import pairwise
from typing import NamedTuple

__all__ = ["BOX", "MARKDOWN", "MAX_PREAMBLE", "PIPED", "PSQL", "PipeTable", "find_pipes", "pipe_border", "pipe_cells",
           "pipe_ends", "pipe_row", "pipes_near"]

MARKDOWN, PSQL, BOX = "markdown", "psql", "box"
PIPED = (MARKDOWN, PSQL, BOX)
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


class PipeTable(NamedTuple):
    """A table drawn with pipes found in a content's first lines: its header's line (from 0), its form, its
    names, and where its header's pipes stand (characters from the line's start)."""

    at: int
    form: str
    names: tuple[str, ...]
    pipes: tuple[int, ...]


def pipes_near(text: str, end: int) -> bool:
    """The first test, which most text fails at once: whether ``text[:end]`` (a content's first lines) holds a
    pipe (one scan at C speed)."""
    return text.find("|", 0, end) >= 0


def find_pipes(lines: list[str]) -> PipeTable | None:
    """The table drawn with pipes whose header is one of ``lines``' first (after at most :data:`MAX_PREAMBLE` lines
    of text, none holding U+FFFD -- bytes not UTF-8, which a byte offset past them must count as they are; no
    newlines, a trailing ``\\r`` ignored), the first found, with 2 columns or more; else ``None``."""
    for at in range(min(len(lines) - 1, _FIRST_LINES - 1)):
        if at and "\ufffd" in lines[at - 1]:
            return None
        rule = lines[at + 1].rstrip(" \r")
        if rule[:1] not in _RULE_START or ("-" not in rule and "=" not in rule):  # (a grid's is +====+)
            continue
        found = _table_at(lines, at, rule)
        if found is not None:
            return found
    return None


def _table_at(lines: list[str], at: int, rule: str) -> PipeTable | None:
    """The table whose header is ``lines[at]`` over ``rule`` (its next line, trailing blanks stripped), or ``None``."""
    header = lines[at].rstrip(" \r")
    if "|" not in header or len(header) > _MAX_HEADER_CHARS:
        return None
    top = lines[at - 1].rstrip(" \r") if at else ""
    if at and _BORDER.fullmatch(top) and header.startswith("|") and _UNDER_HEADER.fullmatch(rule):
        form = BOX  # (the pipes of a box's header stand where its borders' + do)
        if _positions(header, BOX) != _positions(top, BOX, "+") or at - 1 > MAX_PREAMBLE:
            return None
    elif _PSQL_RULE.fullmatch(rule) and not header.lstrip(" ").startswith("|"):
        form = PSQL
        if _positions(header, PSQL) != _positions(rule, PSQL, "+") or at > MAX_PREAMBLE:
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
    """Where ``line``'s pipes (or ``char``) stand: those not escaped, in a Markdown line."""
    if form == MARKDOWN:
        return tuple(found.start() for found in _UNESCAPED.finditer(line))
    return tuple(at for at, seen in enumerate(line) if seen == char)


def _pieces(line: str, form: str, cuts: tuple[int, ...] | None = None) -> list[str]:
    """``line`` (trailing blanks stripped) cut at its pipes (at ``cuts``, when given), less the empty pieces before a
    first pipe and after a last one that open and close it (a Markdown or boxed row's)."""
    if cuts is not None:
        pieces = [line[a + 1 : b] for a, b in pairwise((-1, *cuts, len(line)))]
    else:
        pieces = _UNESCAPED.split(line) if form == MARKDOWN else line.split("|")
    if form != PSQL and len(pieces) > 1 and not pieces[0].strip(" \t"):
        pieces = pieces[1:]
    if form != PSQL and len(pieces) > 1 and not pieces[-1].strip(" \t") and line.endswith("|"):
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
    pieces = _pieces(body, form)
    if len(pieces) > count and _padded(body, form, pipes):
        pieces = _pieces(body, form, pipes)  # (a value holding a pipe, in a table padded to its widest values)
    if len(pieces) > count:
        return None
    return [_cell(piece, form) for piece in pieces] + [""] * (count - len(pieces))


def _padded(body: str, form: str, pipes: tuple[int, ...]) -> bool:
    """Whether ``body`` (a row) has a pipe where each of the header's stands (``pipes``), as a tool that pads every
    column to its widest value prints it: a boxed or Markdown row then ends at the header's last pipe (a psql
    row's last column is not padded)."""
    return bool(pipes) and pipes[-1] < len(body) and all(body[at] == "|" for at in pipes) and (
        form == PSQL or pipes[-1] == len(body) - 1)


def pipe_ends(line: str, form: str) -> bool:
    """Whether ``line`` (no newline) -- not the rule under the header -- ends the rows of a table of ``form``: it is
    blank or holds no pipe (a box's: neither a row nor a border)."""
    body = line.rstrip(" \r")
    if form == BOX:
        return not body.startswith(("|", "+")) or (body[0] == "+" and _BORDER.fullmatch(body) is None)
    return "|" not in body


def pipe_row(line: str, form: str) -> bool:
    """Whether ``line`` (no newline; one :func:`pipe_ends` does not end the rows at), past the rule under the
    header, is a row: a box's borders are not."""
    return form != BOX or not line.startswith("+")


def pipe_border(line: str, form: str) -> bool:
    """Whether ``line`` (no newline) is a border of a table of ``form`` (a box's ``+----+------+``): the rows end at
    a border right under another (the module's rules)."""
    return form == BOX and _BORDER.fullmatch(line.rstrip(" \r")) is not None
