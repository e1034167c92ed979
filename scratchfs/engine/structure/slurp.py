"""jq over all the records of JSON lines, or all the rows of a CSV/TSV table, at once ("slurp"), paged as a JSON
document's jq read is.

The content is turned into one JSON array -- the records in order (blank lines skipped), or the rows after the
header as objects keyed by the header, or, for a table with no header, every row as an array -- and
:func:`~scratchfs.engine.structure.jsondoc.jq_page` runs the filter once over it: the same outputs, pages, cursors,
notes and errors as a jq read of a document holding that array. A table's cells are strings, as the ``csv`` module
gives them, but in its number columns (:func:`type_number_columns`: every non-empty cell a strict JSON number, decided
over all the rows), whose cells are numbers and empty cells ``null``.

Memory: bounded by :data:`MAX_SLURP_BYTES` of content. The reading process holds the content, the array text and (for
a table) the rows; the jq worker holds the array text and jq's tree of it. Peak RSS (VmHWM) at the bound with a
group-count filter, ``python bench/slurp_memory.py`` (2026-12-03): 16 MiB of JSON lines (194,368 records), the
reading process 90 -> 129 MiB and the jq worker 240 MiB, 3.8 s; 16 MiB of CSV (203,152 rows of 6 columns), 93
-> 237 MiB and 307 MiB, 5.6 s (before number columns were typed: that adds a pass over each column, 0.6 s for this
CSV on a loaded 2-core machine, where the bench then timed out in jq with and without it). Array texts are kept for
the next pages (:data:`_ARRAYS`): up to 32 MiB more, held between reads.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.jsondoc import jq_page
from scratchfs.engine.structure.jsonl import records_page
from scratchfs.engine.structure.paging import BytesSource, ContentSource, ItemPage, read_whole
from scratchfs.engine.structure.table import iter_rows
from scratchfs.foundation import limits
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["EXTRA_CELLS", "MAX_EXACT_INTEGER", "MAX_SLURP_BYTES", "slurp_page", "type_number_columns"]

MAX_SLURP_BYTES = 16 * 1024 * 1024
"""Largest content (bytes) a slurp read takes; a larger one is refused with InvalidArgument."""
EXTRA_CELLS = "_extra"
"""The key under which a row's cells past the header's columns are listed (a row longer than its header)."""
MAX_EXACT_INTEGER = 2**53
"""Largest magnitude of an integer cell read as a number (jq's doubles hold every integer up to it exactly)."""
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
"""JSON's number grammar (RFC 8259, section 6): what a cell must be to be read as a number."""
_ARRAYS: LRU[str, bytes] = LRU(4, max_weight=2 * MAX_SLURP_BYTES, weigh=len, max_item_weight=2 * MAX_SLURP_BYTES)
"""The array texts slurp reads built, by blob token and form: the next pages of a read do not build them again."""


def slurp_page(source: ContentSource, filter: str, form: str, *, cursor: str | None = None,
               budget_bytes: int = 8192, cache_key: str | None = None, timeout: float = limits.PATTERN_TIMEOUT,
               entry: str | None = None) -> ItemPage:
    """One page of the outputs of jq ``filter`` run once over the array of all of ``source``'s records or rows.

    Args:
        source: the content, at most :data:`MAX_SLURP_BYTES` bytes.
        filter: a jq filter (jq 1.7), given the array as ``.`` (e.g. ``group_by(.unit) | map([.[0].unit, length])``).
        form: ``"records"`` (JSON lines: the array of records), ``"rows"`` (CSV/TSV with a header: the array of
            rows after it, each an object keyed by the header's names -- a later column of a repeated name wins, a
            missing cell is ``null``, cells past the header are listed under :data:`EXTRA_CELLS`) or ``"arrays"``
            (a table with no header: every row, an array). A table's cells are strings, but in its number columns
            (:func:`type_number_columns`): numbers, an empty cell ``null``.
        cursor, budget_bytes, timeout: as :func:`~scratchfs.engine.structure.jsondoc.jq_page`.
        cache_key: names the content (a blob token): the array text built is kept under it (:data:`_ARRAYS`, 32 MiB
            over all reads) and jq's outputs as ``jq_page`` keeps them, so the next pages neither rebuild nor rerun.
        entry: the entry's identity; the cursors are bound to it and to the slurp read (a cursor of a plain jq,
            record or row read of the entry is refused, and the other way round).

    Returns:
        an :class:`ItemPage` named ``results``, as :func:`~scratchfs.engine.structure.jsondoc.jq_page` gives it.

    Raises:
        InvalidArgument: content over :data:`MAX_SLURP_BYTES`, an unknown ``form``, a malformed table (as
            :func:`~scratchfs.engine.structure.table.iter_rows`), and what ``jq_page`` raises.
        BadRecord (an InvalidArgument): a record that is not JSON (as a record read of it raises it: its number,
            bytes and the parser's message).
        StructureTimeout: the filter ran past ``timeout``. StoreBusy: as ``jq_page``.
    """
    if form not in ("records", "rows", "arrays"):
        raise InvalidArgument(f"form must be 'records', 'rows' or 'arrays', not {str(form)[:20]!r}")
    kept = None if cache_key is None else _ARRAYS.get(f"{form}:{cache_key}")
    data = kept if kept is not None else (
        _records(source, entry) if form == "records" else _rows(source, form == "rows"))
    if cache_key is not None and kept is None:
        _ARRAYS.put(f"{form}:{cache_key}", data)
    return jq_page(BytesSource(data), filter, cursor, budget_bytes,
                   cache_key=None if cache_key is None else f"slurp:{form}:{cache_key}", timeout=timeout,
                   entry=f"{entry or ''}/slurp:{source.size}")


def _records(source: ContentSource, entry: str | None) -> bytes:
    """The JSON array text of the records of JSON lines: each non-blank line's own text, in order. Raises BadRecord
    (through a record read of it) at the first line that is not JSON."""
    data = read_whole(source, MAX_SLURP_BYTES, "slurp")
    kept: list[bytes] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            records_page(source, len(kept) + 1, 1, entry=entry)  # raises the record read's BadRecord
            raise InvalidArgument(f"record {len(kept) + 1:,} is not JSON") from None
        kept.append(line)
    del data
    return b"[" + b",\n".join(kept) + b"]"


def _rows(source: ContentSource, header: bool) -> bytes:
    """The JSON array text of a table's rows (objects keyed by the header when ``header``, else arrays), the cells
    of its number columns numbers (:func:`type_number_columns`)."""
    if source.size > MAX_SLURP_BYTES:
        read_whole(source, MAX_SLURP_BYTES, "slurp")  # raises naming the bound
    table: list[Any] = [cells for _start, cells in iter_rows(source)]
    names = table.pop(0) if header and table else None
    type_number_columns(table, None if names is None else len(names))
    if names is not None:
        for i, cells in enumerate(table):  # each row replaced in place: its list of cells goes as its row comes
            row: dict[str, Any] = dict.fromkeys(names)
            row.update(zip(names, cells, strict=False))
            if len(cells) > len(names):
                row[EXTRA_CELLS] = cells[len(names):]
            table[i] = row
    return json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def type_number_columns(rows: list[list[Any]], width: int | None) -> list[int]:
    """Make the cells of each number column of a table's ``rows`` (after its header; lists of strings, changed in
    place) numbers, and its empty cells ``None``; returns the indexes of those columns.

    A number column: every non-empty cell is a strict number and one at least is -- JSON's number grammar (an
    optional ``-``, no leading zero but in ``0`` itself, no ``+``, no space: ``"01234"``, ``"1."``, ``"NaN"``,
    ``"inf"``, ``" 1"`` are none), an integer (no fraction or exponent) of at most 2**53 in magnitude (jq's doubles
    hold it exactly), any other a finite double (``"1e400"`` is none) -- decided over all the rows, as DuckDB's
    ``read_csv`` and Miller type them: a ``max_by(.size)`` then compares numbers, not text ("9993" > "10000").
    ``width``: the header's column count (cells past it, listed under :data:`EXTRA_CELLS`, stay strings); ``None``:
    a table with no header, every column counts.
    """
    typed = []
    shortest, longest = min(map(len, rows), default=0), max(map(len, rows), default=0)
    for c in range(longest if width is None else min(width, longest)):
        column = [cells[c] for cells in rows] if c < shortest else [
            cells[c] if c < len(cells) else "" for cells in rows]  # (a missing cell: not there to type)
        values = _numbers(column)
        if values is None:
            continue
        typed.append(c)
        for cells, value in zip(rows, values, strict=True):
            if c < len(cells):
                cells[c] = value
    return typed


def _numbers(column: list[str]) -> list[Any] | None:
    """The cells of ``column`` as numbers (an empty one ``None``) if it is a number column (see
    :func:`type_number_columns`), else ``None``."""
    if not any(column) or not all(map(_NUMBER.fullmatch, filter(None, column))):  # (stops at the first text)
        return None
    try:  # the cells are JSON numbers: read at C speed, as json reads them (an integer as an int)
        values = json.loads("[" + ",".join([cell or "null" for cell in column]) + "]")
    except ValueError:  # an integer of more digits than int() converts: no number jq holds
        return None
    numbers = [value for value in values if value is not None]
    low, high = min(numbers), max(numbers)
    if low < -MAX_EXACT_INTEGER or high > MAX_EXACT_INTEGER:  # (else no int is out, and no float infinite)
        if any(type(value) is int and abs(value) > MAX_EXACT_INTEGER for value in numbers):
            return None
        if not all(map(math.isfinite, numbers)):
            return None
    return values
