"""What a slurp page of a table says of a column of percentages its jq filter names: ``python -m trace --summary``'s
``cov%``, ``df``'s ``Use%``, a coverage report's ``Cover`` hold ``"4%"``, ``"17%"``, ``"100%"`` -- text to jq, as
every cell that is no plain number is (:func:`~scratchfs.engine.structure.slurp.type_number_columns`), so
``sort_by(.["cov%"])`` sorted ``"100%"`` first and ``max_by``, ``select(.["Use%"] > "50%")`` compared text without
a word: the model took the first of that order for the lowest (modeltask6, fixtures/tools/trace-summary.txt). The
note names the column and the filter that gives its number, ``(.["cov%"] | rtrimstr("%") | tonumber)``.

A column is one of percentages when every non-empty cell of its first :data:`ROWS_JUDGED` rows is a number followed
by ``%`` (a cell elsewhere that is not still fails that filter, with jq's words); the filter names it when it holds
the column's name (as ``.name``, ``."name"`` or ``.["name"]`` all do) and uses it as text: a path to it that the
same expression turns into a number (``sort_by(.Cover | rtrimstr("%") | tonumber)``, ``(."Use%"[:-1] | tonumber)``)
is not that, any other mention is (helper leftovers8: the note was ~250 bytes a read about a filter that compared
numbers).
"""

from __future__ import annotations

import itertools
import json
import re

from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.row_keys import row_keys
from scratchfs.engine.structure.table import iter_rows

__all__ = ["ROWS_JUDGED", "percent_note"]

ROWS_JUDGED = 200
"""Rows after the header whose cells decide that a column holds percentages."""
_PERCENT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?%")
_MOST_NAMED = 3
"""Most columns a note names."""
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[()\[\]{}]|[;,<>]|[!=]=|\b(?:and|or|tonumber)\b')
"""What ends the expression a path stands in, or turns it into a number: a string (skipped), a bracket, an operator
of the expression around it, ``tonumber``."""


def percent_note(source: ContentSource, layout: Layout | None, filter: str) -> str | None:
    """The note of a slurp read of a headed table (``layout``: as :func:`~.table.iter_rows` takes it) whose
    ``filter`` names a column of percentages (see the module's words), else ``None``. Reads the header, and
    :data:`ROWS_JUDGED` rows when the filter names a column; never raises for a table it cannot read (``None``)."""
    try:
        rows = iter_rows(source, layout=layout, passed=[])
        keys, _ = row_keys(next(rows, (0, []))[1])
        asked = [(at, key) for at, key in enumerate(keys) if key and _used_as_text(filter, key)]
        cells = [cells for _, cells in itertools.islice(rows, ROWS_JUDGED if asked else 0) if isinstance(cells, list)]
    except Exception:  # (a header that cannot be read: the slurp read itself says so)
        return None
    named = [key for at, key in asked if _percentages(cells, at)]
    if not named:
        return None
    first = json.dumps(named[0], ensure_ascii=False)
    columns = ", ".join(json.dumps(key, ensure_ascii=False) for key in named[:_MOST_NAMED])
    return (f"{columns} {'holds' if len(named) == 1 else 'hold'} percentages as text (\"17%\"): sort_by, max_by and "
            f"< compare them as text (\"100%\" before \"17%\"); the number: (.[{first}] | rtrimstr(\"%\") | "
            "tonumber)")


def _percentages(rows: list[list[str]], at: int) -> bool:
    """Whether every non-empty cell of column ``at`` of ``rows`` is a percentage, and one is."""
    column = [cells[at] for cells in rows if at < len(cells) and cells[at]]
    return bool(column) and all(_PERCENT.fullmatch(cell) for cell in column)


def _used_as_text(filter: str, key: str) -> bool:
    """Whether ``filter`` mentions ``key`` other than as a path to it (``.key``, ``."key"``, ``.["key"]``) followed,
    in the same expression, by ``tonumber``."""
    quoted = re.escape(json.dumps(key, ensure_ascii=False))
    bare = rf"{re.escape(key)}(?![A-Za-z0-9_])|" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else ""
    paths = list(re.finditer(rf"\.(?:{bare}{quoted}|\[\s*{quoted}\s*\])", filter))
    if len(paths) < filter.count(key):
        return True
    return not all(_made_a_number(filter, path.end()) for path in paths)


def _made_a_number(filter: str, at: int) -> bool:
    """Whether the expression going on at ``at`` of ``filter`` reaches ``tonumber`` before it ends (its bracket
    closes, or ``;``, ``,``, a comparison, ``and``, ``or`` at its level)."""
    depth = 0
    for token in _TOKEN.finditer(filter, at):
        word = token.group()
        if word == "tonumber":
            return True
        if word in ("(", "[", "{"):
            depth += 1
        elif word in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return False
        elif not word.startswith('"') and depth == 0:
            return False
    return False
