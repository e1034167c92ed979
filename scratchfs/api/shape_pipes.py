"""The shape of a table drawn with pipes (a Markdown table, ``psql``'s output, a table in ``+----+`` borders as
``mysql`` and ``sqlite3 -table`` print it, or in Unicode box-drawing lines as ``sqlite3 -box``, DuckDB's CLI and
``psql``'s unicode linestyle do: :mod:`scratchfs.engine.structure.pipe_lines`), for
:mod:`scratchfs.api.shape`: its form, its columns and its rows, as a CSV's shape says them. Such text stays content
type ``text``; its shape starts with one of :data:`PIPE_SHAPES`, which the reads (``row=``, ``columns=``,
``slurp=true``) and the stub's note look for -- it is read as a table aligned by spaces is, by its layout.

A first test rejects most texts at once: no pipe nor vertical box line in the first lines (a scan at C speed; none
for a vertical in ASCII text); the rest reads the first
lines of the first 8 KiB (:func:`~scratchfs.engine.structure.aligned.head_lines`, as a rows read tells the layout
again), then counts the rows with a scan or two for the line that ends them.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import clip, column_names, plural
from scratchfs.engine.structure import ItemPage
from scratchfs.engine.structure.aligned import HEAD_CHARS, Layout, head_lines
from scratchfs.engine.structure.pipe_lines import (
    BOX,
    CLOSING,
    DUCKDB,
    LINED,
    MARKDOWN,
    MAX_PREAMBLE,
    MIDDLE_RULE,
    OPEN_RULE,
    PSQL,
    PSQL_LINED,
    VERTICALS,
    find_pipes,
    pipes_near,
)
from scratchfs.engine.structure.table import UNSPLIT_KEY

__all__ = ["PIPE_SHAPES", "is_piped", "piped_note", "piped_noun", "pipes_shape"]

PIPE_SHAPES = {MARKDOWN: "Markdown table", PSQL: "psql table", BOX: "table in +---+ borders",
               LINED: "table in box-drawing lines", DUCKDB: "DuckDB table", PSQL_LINED: "psql table"}
"""How the shape of a table drawn with pipes starts, by its form (psql's, in ASCII or in box lines alike)."""
_STARTS = tuple(PIPE_SHAPES.values())
_NOUNS = {MARKDOWN: "a Markdown table", PSQL: "a psql table", BOX: "a table in +---+ borders, as mysql prints it",
          LINED: "a table in box-drawing lines, as sqlite3 -box prints it",
          DUCKDB: "a DuckDB table, in box-drawing lines with the columns' types under their names",
          PSQL_LINED: "a psql table in box-drawing lines"}
_FRAMED = (BOX, LINED, DUCKDB)  # (a top border over the header: no preamble)
_SHOWN_NAMES = 16
_FIRST_LINES = MAX_PREAMBLE + 3  # (as pipe_lines finds a header: a preamble, a top border, the header, its rule)
_NO_PIPE = re.compile(r"^[\x00-\t\x0b-{}-\U0010ffff]*$", re.M)  # a line that ends a Markdown or psql table's rows
# (blank, or no pipe: [^|\n] as the ranges it is, which re checks by a bitmap, a negated pair by a step each: 0.55x)
_NOT_BOXED = re.compile(r"^(?:(?![|+])|\+(?!(?:[-=]+\+)+[ \r]*$))", re.M)  # ... a box's: no row, no border
_BORDER_PAIR = re.compile(r"^\+(?:[-=]+\+)+[ \r]*\n(?=\+(?:[-=]+\+)+[ \r]*$)", re.M)  # a box's border over a
# border (one table's bottom over the next one's top: mysql -t of several statements): the rows end at the second
_FOOTER = re.compile(r"\((\d{1,18}) rows?\)[ \r]*(?:\n|$)")  # psql's "(500 rows)" (a count int() reads: no
# more digits than a row count has -- 5,000 digits were past int()'s limit, a ValueError out of the spill)
_IN_SET = re.compile(r"(?:\d+ rows? in set|Empty set)[^\n]*(?:\n|$)")  # mysql's "5 rows in set (0.00 sec)"
_NO_VERTICAL = re.compile(f"^[^{VERTICALS}\n]*$", re.M)  # ... a psql table's in box lines (no │)
_UNLINED = re.compile(f"^(?![{VERTICALS}]|{MIDDLE_RULE}[ \r]*$)", re.M)  # ... a box's in lines: no row, no rule
_LINED_ROW = re.compile(f"^[{VERTICALS}]", re.M)
_DOT_ROW = re.compile(f"^[{VERTICALS}](?=[^\n]*·)[{VERTICALS} ·]*\r?$", re.M)  # DuckDB's · rows: rows left out
_COUNT = r"\d[\d,]{0,24}"  # (a count of DuckDB's footer: bounded, as int() reads it and a search of a long run of
# digits for one tried each of its starts to its end, quadratic: 40,000 digits took 8 s)
_DUCK_PART = (rf"(?:{_COUNT} rows?|\({_COUNT} shown\)|{_COUNT} columns?(?: \({_COUNT} shown\))?"
              r"|use \.last to show entire result)")
_DUCK_LINE = re.compile(f"{_DUCK_PART}(?: +{_DUCK_PART})*")  # a line of DuckDB's footer (in its box, or under it)
_DUCK_ROWS = re.compile(rf"({_COUNT}) rows?(?: +\(({_COUNT}) shown\))?")
_DUCK_COLUMNS = re.compile(rf"({_COUNT}) columns? \(({_COUNT}) shown\)")
_RULE_LINE = re.compile(f"^(?:[|+ \t:]*-[-|+ \t:=]*|{MIDDLE_RULE}|{OPEN_RULE})\r?$", re.M)  # a line that may be
# a rule under a later header
_MOST_RULES = 16  # most such lines looked at for a later table


def is_piped(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is a table drawn with pipes."""
    return content_type == "text" and shape is not None and shape.startswith(_STARTS)


def piped_noun(shape: str | None) -> str:
    """What a table drawn with pipes whose shape is ``shape`` is, as a noun phrase: ``"a Markdown table"``."""
    return next((_NOUNS[form] for form, start in PIPE_SHAPES.items() if (shape or "").startswith(start)),
                "a table drawn with pipes")


def piped_note(layout: Layout, page: ItemPage, first: bool) -> str | None:
    """What a rows page of a table drawn with pipes (``layout``) says of how its lines were split (when it is the
    ``first`` page of a read) and of its rows given whole (when it shows any)."""
    form = layout.rule
    lined = form in (LINED, DUCKDB, PSQL_LINED)
    said = [f"{_NOUNS[form]} (stored as text): each line split at its " + (
        "vertical lines (│ ┃ ║; a | is text)" if lined else "pipes") + (
        ", \\| a pipe inside a cell" if form == MARKDOWN else "") + ", each cell trimmed; " + (
        "the types line under the names and the rule under it are no rows, nor the · rows standing for the rows "
        "DuckDB left out" if form == DUCKDB else "the rule under the header is no row") + _ENDS_SAID[form]] if (
        first) else []
    whole = sum(isinstance(row, dict) for row in page.items)
    if whole:
        said.append(f"{plural(whole, 'row')} given whole as {{\"{UNSPLIT_KEY}\": line}}: more cells than the header "
                    "has (a value holding a " + ("vertical line)" if lined else "pipe)"))
    return "; ".join(said) or None


_ENDS_SAID = dict.fromkeys((MARKDOWN, PSQL), "; a blank line or a line with no pipe ends the rows") | {
    BOX: "; a line that is no row nor a border ends the rows", PSQL_LINED: "; a line with no │ ends the rows"} | (
    dict.fromkeys((LINED, DUCKDB), "; the bottom border, or a line that is no row nor a rule, ends the rows"))


def pipes_shape(text: str, complete: bool, lines: int) -> str | None:
    """The shape of ``text`` (a content's start; ``complete``: all of it; ``lines``: the whole content's line
    count) when its first lines -- after at most 8 lines of text, which the shape names -- are a table drawn with
    pipes, else ``None``: ``"Markdown table, 3 columns (id, name, total), 500 rows"``; ``"psql table, the header
    is line 3, after 2 lines (line=1, lines=2 reads them); 2 columns (id, name), 40 rows"``; a DuckDB table's
    columns with their types, its footer's count when it left rows out: ``"DuckDB table, 2 columns (i int64, j
    int64), 6 rows (of 100: DuckDB left out 94 where its · rows stand, after row 3)"``."""
    if text.isascii() and text.find("|", 0, HEAD_CHARS) < 0:  # (ASCII text holds no box line: no pipe in the head,
        return None  # one scan at C speed, is none in its first lines)
    end = -1
    for _ in range(_FIRST_LINES):  # (the first test: a pipe in the first lines, which most text has not)
        end = text.find("\n", end + 1, HEAD_CHARS)
        if end < 0:
            break
    if not pipes_near(text, end if end >= 0 else HEAD_CHARS):
        return None
    lines_seen = head_lines(text, complete)
    found = find_pipes(lines_seen)  # (as a rows read finds it again: pipes_layout)
    if found is None:
        return None
    at, form, names = found.at, found.form, found.names
    start = sum(len(line) + 1 for line in lines_seen[:at])  # (the header's first character)
    before = at - (form in _FRAMED)  # (a box's top border is no preamble)
    listed = ", ".join(name + (f" {clip(kind, 24)}" if kind else "") for name, kind in zip(
        column_names(list(names), _SHOWN_NAMES), found.types or [""] * len(names), strict=False)) + (
        f", … {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")
    lead = f", the header is line {at + 1}, after {plural(before, 'line')} (line=1, lines={before} reads them);" if (
        before) else ","
    return clip(f"{PIPE_SHAPES[form]}{lead} {len(names)} columns ({listed}), "
                f"{_count(text, complete, lines, (at, start), form)}")


def _count(text: str, complete: bool, lines: int, header: tuple[int, int], form: str) -> str:
    """The rows of the table whose header is ``header`` (its line, from 0, and its first character) of ``text`` (or
    a sample of it, not ``complete``), counted as the reads count them
    (:mod:`~scratchfs.engine.structure.pipe_lines`): the lines from the one under its rule up to the first that ends
    them, a box's borders (and DuckDB's · rows) left out; what its footer says when it counts otherwise (``(3
    rows)``, DuckDB's ``4486 rows (40 shown)``); where the table ends when lines follow, and a later table; about
    ``lines`` less those before when the sample ends first."""
    at, start = header
    if not complete:  # (the sample's last line, cut short, is no line of the table's: a row cut before its first
        text = text[: text.rfind("\n") + 1]  # pipe would end the rows there)
    rule_at = text.find("\n", start) + 1  # (from the rule under the header: an empty table's bottom border is under it)
    rows_at = text.find("\n", rule_at) + 1  # (past the header and its rule; DuckDB's: its types line)
    if rows_at <= 0:
        return plural(0, "row")
    ending = _ENDS[form].search(text, rows_at)
    stop = len(text) if ending is None or ending.start() >= len(text) else ending.start()
    if stop >= len(text) and not complete:  # (the rows run past the sample)
        return f"~{plural(lines - 2 - at, 'row')} (by line count)"
    pair = _BORDER_PAIR.search(text, rule_at, stop) if form == BOX else None
    if pair is not None:
        stop = pair.end()
    body = text[rows_at:stop]
    if form in (LINED, DUCKDB):
        dots = _DOT_ROW.search(body) if form == DUCKDB and "·" in body else None
        count = len(_LINED_ROW.findall(body)) - (0 if dots is None else len(_DOT_ROW.findall(body)))
        if text.startswith(tuple(CLOSING), stop):  # (its bottom border: the table's own, and its footer under it)
            stop = len(text) if text.find("\n", stop) < 0 else text.find("\n", stop) + 1
        said, after = _duckdb_footer(text, stop, count, None if dots is None else len(_LINED_ROW.findall(
            body, 0, dots.start()))) if form == DUCKDB else (plural(count, "row"), stop)
    else:
        count = body.count("\n") + (not body.endswith("\n") and bool(body)) - (
            body.count("\n+") + body.startswith("+") if form == BOX else 0)
        said, after = plural(count, "row"), stop
    footer = _FOOTER.match(text, stop) or (_IN_SET.match(text, stop) if form == BOX else None)
    if footer is not None and footer.re is _FOOTER and int(footer.group(1)) != count:
        said += (f" (psql's footer says {int(footer.group(1)):,}: values holding line ends run over more lines, "
                 "each read as a row)")
    after = after if footer is None else footer.end()  # (a footer is the table's: no line after it)
    if after < len(text) and text[after:].strip():
        later = _later_table(text, after)
        said += f" (the table ends at line {text.count(chr(10), 0, stop):,}; the lines after it are no rows" + (
            f": another table's header is at line {later:,}, which rows reads do not reach)" if later else ")")
    return said


_ENDS = {MARKDOWN: _NO_PIPE, PSQL: _NO_PIPE, BOX: _NOT_BOXED, LINED: _UNLINED, DUCKDB: _UNLINED,
         PSQL_LINED: _NO_VERTICAL}


def _duckdb_footer(text: str, stop: int, count: int, dots: int | None) -> tuple[str, int]:
    """A DuckDB table's ``count`` rows as its shape says them, with what its footer (at character ``stop``: under
    its bottom border, or in its box over it) says when it left rows out (``dots``: the rows before its first ·
    row) or columns, and where the footer ends."""
    said, at = [], stop
    for _ in range(4):  # (DuckDB's footer: a line or two, in its box or under it)
        end = text.find("\n", at)
        end = len(text) if end < 0 else end + 1
        line = text[at:end].strip(" \r\n" + VERTICALS)
        if line and not line.strip("─━═┴┘└"):  # (the bottom of the box the footer is in)
            at = end
            continue
        if not line or _DUCK_LINE.fullmatch(line) is None:
            break
        said.append(line)
        at = end
    words = " ".join(said)
    rows, columns = _DUCK_ROWS.search(words), _DUCK_COLUMNS.search(words)
    told = plural(count, "row")
    total = int(rows.group(1).replace(",", "")) if rows is not None else count
    if total != count:
        told += f" (of {total:,}: DuckDB left out {total - count:,}" + (
            f" where its · rows stand, after row {dots})" if dots is not None else ")")
    if columns is not None:
        told += (f" (DuckDB's footer says {columns.group(1)} columns, {columns.group(2)} shown: its column named … "
                 "stands for those left out)")
    return told, at if said else stop


def _later_table(text: str, stop: int) -> int | None:
    """The line (from 1) of the header of a table drawn with pipes after character ``stop`` of ``text`` (up to 3
    lines over a rule: a header, a box's top border over it, DuckDB's types under it), among the first lines that
    may be a rule; else ``None``."""
    for tried, rule in enumerate(_RULE_LINE.finditer(text, stop)):
        if tried >= _MOST_RULES:
            break
        over = rule.start()
        for _ in range(3):
            if over > stop:
                over = max(stop, text.rfind("\n", stop, over - 1) + 1)
        if over >= rule.start():
            continue
        found = find_pipes(text[over : rule.end()].split("\n"))
        if found is not None:
            return text.count("\n", 0, over) + found.at + 1
    return None
