"""The columns a rows read of a table shows (:func:`~scratchfs.engine.structure.table.rows_page`): ``columns=``
given as header names or 0-based numbers, checked against the header (a name it repeats, a name misspelled, a number
past its last column, each refused saying what to give instead), and the header those columns make, refused when it
leaves the page too little room for rows (:class:`~scratchfs.foundation.errors.WideHeader`)."""

from __future__ import annotations

import json
from itertools import accumulate

from scratchfs.engine.structure.paging import json_bytes
from scratchfs.engine.structure.row_keys import row_keys
from scratchfs.foundation.checks import closest
from scratchfs.foundation.errors import InvalidArgument, WideHeader
from scratchfs.foundation.limits import MAX_COLUMN_CHARS, MAX_COLUMNS
from scratchfs.foundation.text import plural

__all__ = ["ROW_ROOM", "header_shown", "select_columns"]

ROW_ROOM = 128
"""Bytes a page after the first keeps for its rows beside the header (a row is cut in parts if it must)."""


def select_columns(header: list[str], columns: object, headed: bool = True) -> list[int] | None:
    """The 0-based numbers of the ``columns`` (names of ``header`` or numbers, in the order given) a read keeps;
    ``None`` for all (``columns`` is ``None``). A name may also be the key a slurp read gives a repeated name
    (``COMMAND_2``: :func:`~scratchfs.engine.structure.row_keys.row_keys`). ``headed=False``: a table with no header
    line, whose columns are numbers only.

    Raises:
        InvalidArgument: ``columns`` not a non-empty list; more than :data:`MAX_COLUMNS` of them or a name over
            :data:`MAX_COLUMN_CHARS` characters; a name without a header; an item neither text nor an integer; a
            name the header repeats (naming its numbers); an unknown name or number (listing the columns, and the
            name meant when one is close).
    """
    if columns is None:
        return None
    if isinstance(columns, (str, bytes)) or not isinstance(columns, (list, tuple)) or not columns:
        raise InvalidArgument("columns must be a non-empty list of column names or 0-based numbers")
    if not headed and any(isinstance(column, str) for column in columns):
        raise InvalidArgument(f"the table has no header line (its stub says so), so its columns have no names: "
                              f"select them by number, from 0 to {len(header) - 1} (columns=[0])")
    if len(columns) > MAX_COLUMNS or any(isinstance(c, str) and len(c) > MAX_COLUMN_CHARS for c in columns):
        raise InvalidArgument(f"columns are at most {MAX_COLUMNS} names (each at most {MAX_COLUMN_CHARS} characters) "
                              "or numbers")
    picked = []
    keys = row_keys(header)[0]  # a slurp read's keys: a repeated name's numbered (COMMAND_2)
    for column in columns:
        if isinstance(column, bool) or not isinstance(column, (int, str)):  # 1.0 is no column name (nor number)
            raise InvalidArgument(f"columns are column names (text) or 0-based column numbers (integers); "
                                  f"{str(column)[:60]!r} is a {type(column).__name__}")
        if isinstance(column, int) and 0 <= column < len(header):
            picked.append(column)
        elif isinstance(column, str) and column not in header and column in keys:
            picked.append(keys.index(column))  # a repeated name's key in a slurp read's rows
        elif isinstance(column, str) and column in header:
            picked.append(_only_one(header, keys, column))
        else:
            raise InvalidArgument(_no_such_column(header, column))
    return picked


def _only_one(header: list[str], keys: list[str], column: str) -> int:
    """The number of the column named ``column``; InvalidArgument when the header repeats the name (the first alone
    would hide the others: a join's ``SELECT *`` repeats names)."""
    at = [i for i, name in enumerate(header) if name == column]
    if len(at) > 1:
        keyed = ", ".join(keys[i] for i in at[:3])
        raise InvalidArgument(f"column {json.dumps(column[:60], ensure_ascii=False)} is in the header "
                              f"{len(at)} times (column numbers {', '.join(map(str, at[:10]))}, counting "
                              f"from 0): name the ones needed by number, e.g. columns={at[:10]}, or by the "
                              f"keys slurp=true gives them ({keyed})")
    return at[0]


def _no_such_column(header: list[str], column: int | str) -> str:
    """The refusal of a ``column`` the header does not have: the columns it has (quoted and escaped, as the header
    is given), and the name meant when one is close (a typo: ``nme``)."""
    names = json.dumps(header[:20], ensure_ascii=False)
    if len(names) > 300:
        names = names[:299] + "…"
    if isinstance(column, int):
        which = f"no column number {column} (numbers count from 0: 0 to {len(header) - 1})"
    else:
        meant = closest(column, header[:MAX_COLUMNS])
        which = f"no column {json.dumps(column[:60], ensure_ascii=False)}"
        if meant:
            which += f" (did you mean {json.dumps(meant[:60], ensure_ascii=False)}?)"
    are = "is" if len(header) == 1 else "are"
    return f"{which}; the {plural(len(header), 'column')} {are}: {names}"


def header_shown(header: list[str], picked: list[int] | None, budget: int, first: bool) -> list[str]:
    """The ``picked`` columns of ``header`` (all for ``None``), the header a page shows.

    Raises:
        WideHeader: it takes over half the ``budget`` of a read's ``first`` page, or all but :data:`ROW_ROOM` bytes
            of it on a page after the first (whose budget less the echoed cursor may be under what the first page
            had); it names the first 16 at most of the columns that fit in three quarters of that room.
    """
    shown = header if picked is None else [header[i] for i in picked]
    room = budget // 2 if first else budget - ROW_ROOM
    if json_bytes(shown) > room:
        # the first k fit when 1 + their bytes and commas do in 3/4 of the room (echoed)
        used = accumulate(json_bytes(name) + 1 for name in shown[:16])
        fitting = sum(1 for size in used if 4 * size < 3 * room)
        raise WideHeader(f"the header alone takes {plural(json_bytes(shown), 'byte')} of the {budget:,}-byte "
                         "budget; select fewer columns", tuple(picked or range(len(header)))[:fitting])
    return shown
