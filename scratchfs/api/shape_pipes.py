"""The shape of a table drawn with pipes (a Markdown table, ``psql``'s output, a table in ``+----+`` borders as
``mysql`` and ``sqlite3 -table`` print it: :mod:`scratchfs.engine.structure.pipe_lines`), for
:mod:`scratchfs.api.shape`: its form, its columns and its rows, as a CSV's shape says them. Such text stays content
type ``text``; its shape starts with one of :data:`PIPE_SHAPES`, which the reads (``row=``, ``columns=``,
``slurp=true``) and the stub's note look for -- it is read as a table aligned by spaces is, by its layout.

A first test rejects most texts at once: no pipe in the first lines (one scan at C speed); the rest reads the first
lines of the first 8 KiB (:func:`~scratchfs.engine.structure.aligned.head_lines`, as a rows read tells the layout
again), then counts the rows with a scan or two for the line that ends them.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import clip, column_names, plural
from scratchfs.engine.structure import ItemPage
from scratchfs.engine.structure.aligned import HEAD_CHARS, Layout, head_lines
from scratchfs.engine.structure.pipe_lines import BOX, MARKDOWN, MAX_PREAMBLE, PSQL, find_pipes, pipes_near
from scratchfs.engine.structure.table import UNSPLIT_KEY

__all__ = ["PIPE_SHAPES", "is_piped", "piped_note", "piped_noun", "pipes_shape"]

PIPE_SHAPES = {MARKDOWN: "Markdown table", PSQL: "psql table", BOX: "table in +---+ borders"}
"""How the shape of a table drawn with pipes starts, by its form."""
_STARTS = tuple(PIPE_SHAPES.values())
_NOUNS = {MARKDOWN: "a Markdown table", PSQL: "a psql table", BOX: "a table in +---+ borders, as mysql prints it"}
_SHOWN_NAMES = 16
_FIRST_LINES = MAX_PREAMBLE + 3  # (as pipe_lines finds a header: a preamble, a top border, the header, its rule)
_NO_PIPE = re.compile(r"^[^|\n]*$", re.M)  # a line that ends a Markdown or psql table's rows (blank, or no pipe)
_NOT_BOXED = re.compile(r"^(?:(?![|+])|\+(?!(?:[-=]+\+)+[ \r]*$))", re.M)  # ... a box's: no row, no border
_BORDER_PAIR = re.compile(r"^\+(?:[-=]+\+)+[ \r]*\n(?=\+(?:[-=]+\+)+[ \r]*$)", re.M)  # a box's border over a
# border (one table's bottom over the next one's top: mysql -t of several statements): the rows end at the second
_FOOTER = re.compile(r"\((\d+) rows?\)[ \r]*(?:\n|$)")  # psql's "(500 rows)"
_IN_SET = re.compile(r"(?:\d+ rows? in set|Empty set)[^\n]*(?:\n|$)")  # mysql's "5 rows in set (0.00 sec)"
_RULE_LINE = re.compile(r"^[|+ \t:]*-[-|+ \t:=]*\r?$", re.M)  # a line that may be a rule under a later header
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
    said = [f"{_NOUNS[form]} (stored as text): each line split at its pipes"
            + (", \\| a pipe inside a cell" if form == MARKDOWN else "") + ", each cell trimmed; the rule under the "
            "header is no row" + ("; a line that is no row nor a border ends the rows" if form == BOX else
                                  "; a blank line or a line with no pipe ends the rows")] if first else []
    whole = sum(isinstance(row, dict) for row in page.items)
    if whole:
        said.append(f"{whole} row(s) given whole as {{\"{UNSPLIT_KEY}\": line}}: more cells than the header has (a "
                    "value holding a pipe)")
    return "; ".join(said) or None


def pipes_shape(text: str, complete: bool, lines: int) -> str | None:
    """The shape of ``text`` (a content's start; ``complete``: all of it; ``lines``: the whole content's line
    count) when its first lines -- after at most 8 lines of text, which the shape names -- are a table drawn with
    pipes, else ``None``: ``"Markdown table, 3 columns (id, name, total), 500 rows"``; ``"psql table, the header
    is line 3, after 2 lines (line=1, lines=2 reads them); 2 columns (id, name), 40 rows"``."""
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
    before = at - (form == BOX)  # (a box's top border is no preamble)
    listed = ", ".join(column_names(list(names), _SHOWN_NAMES)) + (
        f", … {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")
    lead = f", the header is line {at + 1}, after {plural(before, 'line')} (line=1, lines={before} reads them);" if (
        before) else ","
    return clip(f"{PIPE_SHAPES[form]}{lead} {len(names)} columns ({listed}), "
                f"{_count(text, complete, lines, (at, start), form)}")


def _count(text: str, complete: bool, lines: int, header: tuple[int, int], form: str) -> str:
    """The rows of the table whose header is ``header`` (its line, from 0, and its first character) of ``text`` (or
    a sample of it, not ``complete``), counted as the reads count them
    (:mod:`~scratchfs.engine.structure.pipe_lines`): the lines from the one under its rule up to the first that ends
    them, a box's borders left out; what its footer says when it counts otherwise (``(3 rows)``); where the table
    ends when lines follow, and a later table; about ``lines`` less those before when the sample ends first."""
    at, start = header
    rows_at = text.find("\n", text.find("\n", start) + 1) + 1  # (past the header and its rule)
    if rows_at <= 0:
        return plural(0, "row")
    ending = (_NOT_BOXED if form == BOX else _NO_PIPE).search(text, rows_at)
    stop = len(text) if ending is None or ending.start() >= len(text) else ending.start()
    rule_at = text.find("\n", start) + 1  # (from the rule under the header: an empty table's bottom border is under it)
    pair = _BORDER_PAIR.search(text, rule_at, stop) if form == BOX else None
    if pair is not None:
        stop = pair.end()
    body = text[rows_at:stop]
    count = body.count("\n") + (not body.endswith("\n") and bool(body)) - (
        body.count("\n+") + body.startswith("+") if form == BOX else 0)
    if stop >= len(text) and not complete:  # (the rows run past the sample)
        return f"~{plural(lines - 2 - at, 'row')} (by line count)"
    said = plural(count, "row")
    footer = _FOOTER.match(text, stop) or (_IN_SET.match(text, stop) if form == BOX else None)
    if footer is not None and footer.re is _FOOTER and int(footer.group(1)) != count:
        said += (f" (psql's footer says {int(footer.group(1)):,}: values holding line ends run over more lines, "
                 "each read as a row)")
    after = stop if footer is None else footer.end()  # (a footer is the table's: no line after it)
    if after < len(text) and text[after:].strip():
        later = _later_table(text, after)
        said += f" (the table ends at line {text.count(chr(10), 0, stop):,}; the lines after it are no rows" + (
            f": another table's header is at line {later:,}, which rows reads do not reach)" if later else ")")
    return said


def _later_table(text: str, stop: int) -> int | None:
    """The line (from 1) of the header of a table drawn with pipes after character ``stop`` of ``text`` (a line
    over a rule), among the first lines that may be a rule; else ``None``."""
    for tried, rule in enumerate(_RULE_LINE.finditer(text, stop)):
        if tried >= _MOST_RULES:
            break
        header = text.rfind("\n", stop, rule.start() - 1) + 1  # (the line over the rule, and the one over it)
        over = max(stop, text.rfind("\n", stop, max(header - 1, stop)) + 1)
        if header <= stop:
            continue
        found = find_pipes(text[over : rule.end()].split("\n"))
        if found is not None:
            return text.count("\n", 0, over) + found.at + 1
    return None
