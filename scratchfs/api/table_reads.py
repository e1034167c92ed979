"""What the rows reads of a table say beside its rows, and which tables they read as what: a table with no header
line (its stub says "no header"), one aligned by spaces or drawn with pipes, text in which no table was found when it
was stored."""

from __future__ import annotations

from scratchfs.api.shape_pipes import piped_note
from scratchfs.api.shape_table import is_headless
from scratchfs.api.shape_words import plural
from scratchfs.engine.structure import ItemPage, ReaderSource, iter_rows
from scratchfs.engine.structure.aligned import RUNS, Layout
from scratchfs.engine.structure.table import UNSPLIT_KEY
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["NO_HEADER_AGAIN", "NO_HEADER_NOTE", "SNIFFED_NO_TABLE", "headless", "noted_rows", "table_like"]

SNIFFED_NO_TABLE = ("text", "log", "binary")
"""The content types in which no table was found when they were stored (a rows read of them is tried)."""
NO_HEADER_NOTE = ("the table has no header line (its stub says so): rows are numbered from its first line, as the "
                  "stub counts them, and columns= takes column numbers (from 0)")
"""What the first page of a rows read of a table with no header line says (:func:`headless`)."""
NO_HEADER_AGAIN = "no header line: row 1 is its first line, columns= by number"
"""What the pages after it say (:data:`NO_HEADER_NOTE` once is enough: each page keeps its next call)."""
_TABLE_RECORDS = 50  # the first records of text, a log or binary data that must make a table for a rows read of it
_TABLE_BYTES = 32 * 1024  # ... among those starting in its first bytes


def headless(kind: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``kind`` with ``shape`` is a table with no header line (its shape says
    "no header": ``sqlite3 -csv``, ``git log --format=%H%x09%s``, ``du -ah``): every read of its rows takes its first
    line for row 1 -- a rows read (no ``header`` then), ``slurp=true`` (an array of arrays), the web inspector's
    table -- so that the row count the stub gives is the count they give."""
    return kind == "csv" and shape is not None and is_headless(shape)


_TOTAL_ROW_1 = "its line 2 is row 1 (line 1, ls -l's total, is no row)"
"""What :data:`HEADLESS_COLUMNS_NOTE` says of row 1 when ``ls -l``'s ``total N`` line comes before the rows."""
HEADLESS_COLUMNS_NOTE = ("a table aligned by spaces with no header line (stored as text): each line split at runs of "
                        "spaces, the last column taking the rest of the line, as Python's str.split; its first line "
                        "is row 1 and its columns are named by number from 0 (columns=[0, 2])")
"""What the first page of a rows read of text whose lines stand in columns with no header line says of it."""


def noted_rows(page: ItemPage, kind: str | None, layout: Layout | None, headed: bool, first: bool) -> ItemPage:
    """``page`` (of a rows read of an entry stored as ``kind``; ``layout``: a table aligned by spaces or drawn
    with pipes; ``headed``: read with a header line; ``first``: the read's first page) with what its ``note`` says
    of how it was read before what it said: how the lines of such a table split, that no table was found in text
    when it was stored, or that the table has no header line (the last two in full on the first page, in short on
    the next)."""
    said = None
    if layout is not None and not layout.headed:  # (text whose lines stand in columns: its shape's words)
        said = (HEADLESS_COLUMNS_NOTE if not layout.start else HEADLESS_COLUMNS_NOTE.replace(
            "its first line is row 1", _TOTAL_ROW_1)) if first else None
    elif layout is not None:  # (how its lines split: on the first page of a read only)
        said = (piped_note if layout.piped else _aligned_note)(layout, page, first)
    elif kind in SNIFFED_NO_TABLE:  # (in full on the first page, in short on the next: each keeps its next call)
        said = (f"stored as {kind}: no table was found in its first lines when it was stored; these are its "
                "lines cut at the delimiter of its first line" if first else f"stored as {kind}: lines cut, no table")
    elif not headed:  # (sqlite3 -csv, git log --format, du: rows numbered as the stub counts them)
        said = NO_HEADER_NOTE if first else NO_HEADER_AGAIN
    if said is not None:
        page.extra["note"] = "; ".join(filter(None, (said, page.extra.get("note"))))
    return page


def _aligned_note(layout: Layout, page: ItemPage, first: bool) -> str | None:
    """What a rows page of a table aligned by spaces says of how its lines were split (when it is the ``first``
    page of a read) and of its rows given whole (when it shows any)."""
    how = ("split at runs of spaces, the last column taking the rest of the line" if layout.rule == RUNS else
           "cut at the header's column positions")
    whole = sum(isinstance(row, dict) for row in page.items)
    said = [f"a table aligned by spaces (stored as text): each line {how}, each cell where its words stand under "
            "the header; a line of dashes under the header is no row; a blank line, a line of dashes after rows or a "
            "last line of totals (a footer, no row) ends the rows"
            + ("; the first column has no name in the header" if layout.names[0] == "" else "")] if first else []
    if whole:
        said.append(f"{plural(whole, 'row')} given whole as {{\"{UNSPLIT_KEY}\": line}}: "
                    + ("its" if whole == 1 else "their") + " cells could not be told for certain (a value wider than "
                    "its column, cells not under their names)")
    return "; ".join(said) or None


def table_like(source: ReaderSource) -> bool:
    """Whether the first records of ``source`` (at most :data:`_TABLE_RECORDS`, those starting in its first
    :data:`_TABLE_BYTES` bytes) make a table as a rows read parses them: a header of 2 columns or more, and in at
    least 4 of 5 records 2 cells or more and no more than the header has -- a ragged table (short rows, as exports
    that drop trailing empty fields write them) is one; lines of text, most of which hold no delimiter, are not, nor
    are lines that hold commas here and there, as many as their words do (``strace`` output: 1 to 6 cells a line,
    the first line's 4 no header's)."""
    header, records, wide = 0, 0, 0
    try:
        for count, (start, cells) in enumerate(iter_rows(source)):
            if count >= _TABLE_RECORDS or start >= _TABLE_BYTES:
                break
            if count == 0:
                header = len(cells)
                if header < 2:
                    return False
                continue
            records += 1
            wide += 2 <= len(cells) <= header
    except InvalidArgument:
        return False
    return header >= 2 and wide * 5 >= records * 4
