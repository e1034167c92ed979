"""The shape of a table aligned by spaces (``ps aux``, ``df -h``, ``pip list``, ``docker ps``), for
:mod:`scratchfs.api.shape`: its columns and rows, and the rule its lines split by
(:mod:`scratchfs.engine.structure.aligned`). Such text stays content type ``text``; its shape starts with
:data:`ALIGNED_SHAPE`, which the reads (``row=``, ``columns=``, ``slurp=true``) and the stub's note look for.

A first test rejects most texts at once (the first line: a run of 2 spaces between names, no tab); the rest reads
the first 50 lines of the first 8 KiB only, and, for a whole content, counts its rows with one split.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_table import first_row_is_data
from scratchfs.api.shape_words import clip, column_names, plural
from scratchfs.engine.structure.aligned import (
    HEAD_CHARS,
    MAX_PREAMBLE,
    RUNS,
    Layout,
    find_table,
    head_lines,
    header_candidates,
)
from scratchfs.engine.structure.aligned_lines import is_blank, is_row, rows_end
from scratchfs.engine.structure.table_start import header_votes

__all__ = ["ALIGNED_SHAPE", "aligned_shape", "header_line", "is_aligned"]

ALIGNED_SHAPE = "table aligned by spaces"
"""How the shape of a table aligned by spaces starts."""
_SHOWN_NAMES = 16
PREAMBLE = "the header is line"
"""What a shape says of a table after a preamble, before its columns: ``"table aligned by spaces, the header is line
7, after 6 lines (line=1, lines=6 reads them); 8 columns: ..."``."""
_PREAMBLE = re.compile(re.escape(f"{ALIGNED_SHAPE}, {PREAMBLE} ") + r"(\d+), after ")  # (matched at the start:
# the words before any of the content's, which no column name can make and no clip can cut)
_WORD = re.compile(r"[^ ]+")
_FOOTER_CHARS = 60  # (most characters of a footer's words a shape quotes)
_QUICK_CHARS = 2048  # (a text's start whose split finds its first lines when they are short, as most are)


def is_aligned(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is a table aligned by spaces."""
    return content_type == "text" and shape is not None and shape.startswith(ALIGNED_SHAPE)


def aligned_shape(text: str, complete: bool, lines: int) -> str | None:
    """The shape of ``text`` (a content's start; ``complete``: all of it; ``lines``: the whole content's line
    count) when its first lines are a table aligned by spaces whose first line -- or a line after a preamble of a
    few, which the shape names, not under a row of the table (:func:`_a_row`) -- is a header (not a row of
    data like the others: :func:`_data_first`), else ``None``: ``"table aligned by spaces,
    11 columns: USER, PID, ..., COMMAND (the rest of the line), 110 rows; split at runs of spaces"``."""
    header = _header(text, complete)
    if header is None:
        return None
    at, layout = header
    names = layout.names  # (each quoted when it would read as more names, or empty; a repeated one with its key)
    listed = ", ".join(column_names(list(names), _SHOWN_NAMES)) + (
        f", … {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")
    count = _count(text, complete, lines, at)
    if layout.rule == RUNS:
        rest = "" if len(names) > _SHOWN_NAMES else " (the rest of the line)"
        rule = "split at runs of spaces"
    else:
        rest, rule = "", "cells at the header's column positions (a cell may hold spaces or be empty)"
    before = f", {PREAMBLE} {at + 1}, after {plural(at, 'line')} (line=1, lines={at} reads them);" if at else ","
    return clip(f"{ALIGNED_SHAPE}{before} {len(names)} columns: {listed}{rest}, {count}; {rule}")


def header_line(shape: str | None) -> int:
    """The line (from 0) of the header of a table aligned by spaces whose shape is ``shape``: past the preamble it
    names at its start (``"table aligned by spaces, the header is line 7, after 6 lines ..."``), else 0."""
    found = _PREAMBLE.match(shape or "")
    return int(found.group(1)) - 1 if found else 0


def _header(text: str, complete: bool) -> tuple[int, Layout] | None:
    """``(the line of the header, from 0; the layout)`` of the table ``text`` starts with (a preamble of at most
    :data:`~scratchfs.engine.structure.aligned.MAX_PREAMBLE` lines before it: ``top -bn1``, ``w``), else
    ``None``."""
    firsts = _first_lines(text)
    if firsts is None:
        return None
    candidates = header_candidates(firsts)
    if not candidates:
        return None
    lines = head_lines(text, complete)
    for line in candidates:
        found = find_table(lines[line:])
        if found is not None and not _data_first([list(found[0].names), *found[1]]) and not any(
                "\ufffd" in before for before in lines[:line]) and not (line and _a_row(lines[line - 1], found[0])):
            return line, found[0]
    return None


def _first_lines(text: str) -> list[str] | None:
    """The first :data:`~scratchfs.engine.structure.aligned.MAX_PREAMBLE` + 1 lines of ``text`` (each cut at
    :data:`~scratchfs.engine.structure.aligned.HEAD_CHARS` characters; fewer when it ends), a header's candidates,
    or ``None`` when they hold no run of 2 spaces (a header holds one; most text stops here). When the first
    :data:`_QUICK_CHARS` characters end them all, one split of those finds them (none of them cut, no longer
    text copied); else a search a line."""
    count = MAX_PREAMBLE + 1
    quick = text[: min(_QUICK_CHARS, HEAD_CHARS)]
    pieces = quick.split("\n", count)
    if len(pieces) > count:  # (the lines' newlines all in the quick head: each line whole, shorter than the head)
        return pieces[:count] if quick.find("  ", 0, len(quick) - len(pieces[-1]) - 1) >= 0 else None
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1, HEAD_CHARS)
        if end < 0:
            break
    if text.find("  ", 0, end if end >= 0 else HEAD_CHARS) < 0:
        return None
    firsts, at = [], 0
    for _ in range(count):
        end = text.find("\n", at, at + HEAD_CHARS)
        firsts.append(text[at : end if end >= 0 else at + HEAD_CHARS])
        if end < 0:
            break
        at = end + 1
    return firsts


def _data_first(rows: list[list[str]]) -> bool:
    """Whether the first of ``rows`` (a table's header line cut into its names, then its rows' cells) is a row of
    data like them: more of its columns vote for data than for a header and none names a column of numbers or
    typed data (:func:`~scratchfs.engine.structure.table_start.header_votes`; ``ifb0  DOWN`` over ``eth0  UP``)
    when fewer than 4 rows are under it; with more, as before, it is data by the rows under it
    (:func:`~scratchfs.api.shape_table.first_row_is_data`: the vote of its typed columns, at 36 to 64% of the cost
    on 50 rows of ``ps auxww``, ``lsof``, ``ss``, ``pip list``: ``python bench/shape_guards.py``)."""
    if len(rows) > 4:  # (4 rows or more under it: the vote of the rows under it, as before, at its cost)
        return first_row_is_data(rows)
    votes, named = header_votes(rows)
    return votes > 0 and not named


def _a_row(line: str, layout: Layout) -> bool:
    """Whether ``line``, the line over a header found after a preamble, is a row of that table: 2 words or more,
    each before the last column starting where a column starts (``ip -br addr``'s first line over its second,
    ``ifb0  DOWN``, which is no header but a row like it: such a table has no header line)."""
    starts, last = set(layout.starts), layout.starts[-1]
    words = [word.start() for word in _WORD.finditer(line)]
    before = [at for at in words if at < last]
    return len(words) >= 2 and bool(before) and all(at in starts for at in before) and (
        len(before) >= 2 or last in words)


def _count(text: str, complete: bool, lines: int, header: int) -> str:
    """The rows of a table whose text (or sample, not ``complete``) is ``text`` and whose header is line ``header``
    (from 0): those up to where they end (:func:`~scratchfs.engine.structure.aligned_lines.rows_end`: a blank line that
    lines follow, a rule of dashes after rows, a last line of totals), with the footer after them (the line and
    its words), exact when the sample shows it or holds all; else about ``lines - 1 - header``."""
    parts = text.split("\n")
    if not complete or parts[-1] == "":
        parts.pop()  # (the rest after the last newline: empty, or maybe cut)
    end, footer = rows_end(parts, header + 1, False, complete)
    if end == len(parts) and not complete:
        return f"~{plural(lines - 1 - header, 'row')} (by line count)"
    rows = plural(sum(map(is_row, parts[header + 1 : end])), "row")
    past = end if footer is None else footer + 1
    after = "; the lines after it are no rows" if not all(map(is_blank, parts[past:])) else ""
    if footer is not None:
        words = clip(" ".join(parts[footer].split()), _FOOTER_CHARS)
        return f"{rows}, then a footer, no row (line {footer + 1:,}: \"{words}\", line={footer + 1} reads it{after})"
    if after:
        return f"{rows} (up to the {'blank line' if is_blank(parts[end]) else 'rule'} at line {end + 1:,}{after})"
    return rows
