"""The rows a search of a table finds its matches in: a search window gives the line of its first match, and a
model reading on asked ``row=`` with that line -- another row wherever a quoted cell holds several lines, and one
off by the header everywhere. A search of a CSV/TSV entry says each window's row (and each listed match's), as a
rows read numbers it, and its note names the rows read of the first one (:func:`with_rows`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api.results import Matches
from scratchfs.api.structure_entry import EntryReads, entry_identity
from scratchfs.api.table_footer import footer_cut
from scratchfs.api.table_reads import headless
from scratchfs.engine.caches import LRU
from scratchfs.engine.structure import ReaderSource
from scratchfs.engine.structure.row_marks import RowMarks
from scratchfs.engine.structure.table import rows_at
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import ScratchError

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["ROWS_AT_BYTES", "with_rows"]

ROWS_AT_BYTES = 2 * 1024 * 1024
"""Bytes of a table a search numbers the rows of: a match past them has no row (rows are counted from the table's
start, at C speed where no quote is, else parsed: in dpkg's descriptions, a quoted cell of many lines a row, a
search's one match near 2 MiB takes 118 ms where 2 ms without its row)."""
_MARKS: LRU[str, RowMarks] = LRU(64)
"""Where the rows counted last start, by entry (:class:`~scratchfs.engine.structure.row_marks.RowMarks`, at most
256 pairs of integers each): a search's next page numbers its rows on from the last page's, not from the table's
start."""


def with_rows(scope: Scope, found: Matches) -> Matches:
    """``found`` (a search of ``scope``'s entry ``found.handle``, not of a view nor in an encoding) with ``rows``:
    each match's row (``{match offset: row}``, 0 for the header, :func:`~.table.rows_at`; a table with no header
    line's first row is 1) and a ``note`` saying what they are and naming the rows read of the first window's row,
    when the entry is stored as CSV/TSV and shows windows of which one has a row (or a match past the rows
    counted, which the note explains); else ``found`` as it is (every match in the header: no note). Never raises:
    an entry out of reach is left unnumbered."""
    if not found.windows or found.view or found.encoding or found.binary:
        return found
    offsets = sorted({hit.offset for window in found.windows for hit in window.matches if hit.offset < ROWS_AT_BYTES})
    reads = EntryReads(scope)

    def read(src: ReaderSource, blob: str, kind: str | None) -> tuple[dict[int, int], bool] | None:
        if kind != "csv":
            return None
        headed = not headless(kind, reads.shape)  # (no offset numbered: all past ROWS_AT_BYTES, said so)
        key = f"{entry_identity(found.handle, blob)}\0{headed}"
        marks = _MARKS.get(key)
        if marks is None:
            marks = RowMarks()
            _MARKS.put(key, marks)
        return dict(zip(offsets, rows_at(footer_cut(src, kind, reads.shape), offsets, headed,
                                                        marks) if offsets else [], strict=True)), headed

    try:
        numbered = reads.over_entry(found.handle, read)
    except ScratchError:
        return found
    if numbered is None:
        return found
    rows, headed = numbered
    past = any(hit.offset >= ROWS_AT_BYTES for window in found.windows for hit in window.matches)
    if not past and not any(rows.values()):  # (every match in the header: no window has a row= to explain)
        return found
    edge = found.windows[0] if found.before is None else found.windows[-1]
    row = rows.get(edge.matches[0].offset)
    said = ["row: the row= of a window's first match (and of each in matches; " + (
        "from 1 after the header, none in it" if headed else "from 1 at the first line: no header line") +
        "), not its line: a quoted cell may hold several lines"]
    if past:
        said.append(f"; rows counted in the first {ROWS_AT_BYTES // 2**20} MiB only: a match past them has none")
    if row:
        said += [f"; row {row:,}: ", Call.of("read_handle", handle=found.handle, row=row, rows=1, budget=found.budget)]
    note = Advice.of(*said) if found.note is None else Advice.of(found.note, "; ", *said)
    return replace(found, rows={at: number for at, number in rows.items() if number}, note=note)
