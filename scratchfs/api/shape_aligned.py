"""The shape of a table aligned by spaces (``ps aux``, ``df -h``, ``pip list``, ``docker ps``), for
:mod:`scratchfs.api.shape`: its columns and rows, and the rule its lines split by
(:mod:`scratchfs.engine.structure.aligned`). Such text stays content type ``text``; its shape starts with
:data:`ALIGNED_SHAPE`, which the reads (``row=``, ``columns=``, ``slurp=true``) and the stub's note look for.

A first test rejects most texts at once (the first line: a run of 2 spaces between names, no tab); the rest reads
the first 50 lines of the first 8 KiB only, and, for a whole content, counts its rows with one split.
"""

from __future__ import annotations

from scratchfs.api.shape_table import first_row_is_data
from scratchfs.api.shape_words import clip, plural, short_name
from scratchfs.engine.structure.aligned import HEAD_CHARS, RUNS, find_table, head_lines, is_blank, is_row

__all__ = ["ALIGNED_SHAPE", "aligned_shape", "is_aligned"]

ALIGNED_SHAPE = "table aligned by spaces"
"""How the shape of a table aligned by spaces starts."""
_SHOWN_NAMES = 16


def is_aligned(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is a table aligned by spaces."""
    return content_type == "text" and shape is not None and shape.startswith(ALIGNED_SHAPE)


def aligned_shape(text: str, complete: bool, lines: int) -> str | None:
    """The shape of ``text`` (a content's start; ``complete``: all of it; ``lines``: the whole content's line
    count) when its first lines are a table aligned by spaces whose first line is a header (not a row of data like
    the others: :func:`~scratchfs.api.shape_table.first_row_is_data`), else ``None``: ``"table aligned by spaces,
    11 columns: USER, PID, ..., COMMAND (the rest of the line), 110 rows; split at runs of spaces"``."""
    end = text.find("\n", 0, HEAD_CHARS)
    first = text[: end if end >= 0 else HEAD_CHARS]
    if "  " not in first or "\t" in first or not (first[:1].isalpha() or first[:1] in " %#_"):
        return None  # (the first test: most text stops here)
    found = find_table(head_lines(text, complete))
    if found is None:
        return None
    layout, body = found
    if first_row_is_data([list(layout.names), *body]):
        return None
    names = [short_name(name, 24) if name else '""' for name in layout.names]
    listed = ", ".join(names[:_SHOWN_NAMES]) + (
        f", … {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else "")
    count = _count(text, complete, lines)
    if layout.rule == RUNS:
        rest = "" if len(names) > _SHOWN_NAMES else " (the rest of the line)"
        rule = "split at runs of spaces"
    else:
        rest, rule = "", "cells at the header's column positions (a cell may hold spaces or be empty)"
    return clip(f"{ALIGNED_SHAPE}, {len(names)} columns: {listed}{rest}, {count}; {rule}")


def _count(text: str, complete: bool, lines: int) -> str:
    """The rows of a table whose text (or sample, not ``complete``) is ``text``: those before its first blank line
    that lines follow (which ends them), exact when the sample shows it or holds all; else about ``lines - 1``."""
    parts = text.split("\n")
    if not complete or parts[-1] == "":
        parts.pop()  # (the rest after the last newline: empty, or maybe cut)
    blank = next((at for at, part in enumerate(parts) if at and is_blank(part)), len(parts))
    if blank < len(parts) and not all(map(is_blank, parts[blank:])):
        rows = plural(sum(map(is_row, parts[1:blank])), "row")
        return f"{rows} (up to the blank line at line {blank + 1:,}; the lines after it are no rows)"
    if complete:
        return plural(sum(map(is_row, parts)) - 1, "row")
    return f"~{plural(lines - 1, 'row')} (by line count)"
