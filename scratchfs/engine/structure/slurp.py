"""jq over all the records of JSON lines, all the JSON texts of a stream of them (documents one after another, as
``jq .`` prints them), or all the rows of a CSV/TSV table, at once ("slurp"), paged as a JSON document's jq read is.

The content is turned into one JSON array -- the records in order (blank lines skipped), the documents in order (as
``jq -s`` reads them), or the rows after the header as objects keyed by the header, or, for a table with no header,
every row as an array -- and
:func:`~scratchfs.engine.structure.jsondoc.jq_page` runs the filter once over it: the same outputs, pages, cursors,
notes and errors as a jq read of a document holding that array. A table's cells are strings, as the ``csv`` module
gives them, but in its number columns (:func:`type_number_columns`: every non-empty cell a strict JSON number, decided
over all the rows), whose cells are numbers and empty cells ``null``.

**A row of a table that cannot be read** (a field past the ``csv`` module's field limit, a quote left open until
then) is passed over, as the pages of a rows read pass over it (the ``csv`` module's reader reading on after the
error): jq is given the rows those pages give, no more and no fewer, and every page's ``extra["note"]`` says how
many rows were left out, names the first (its number, bytes and what is wrong; as many more as fit a quarter of the
page's budget, at most :data:`~.slurp_notes._MOST_NAMED`) and the numbers of the next
:data:`~.slurp_notes.MOST_NUMBERED`; the page's ``passed`` lists those named (BadRecords), for the reads layer to
add the byte read that shows each. Why not refuse, as jq refuses input it cannot parse: a table's row that cannot be
read is one the tools that read tables (Python's ``csv``, DuckDB's ``ignore_errors``) read past, and a refusal would
leave no whole-table read at all (a rows read takes no jq): a count or a sum over the rows read, said to be so,
answers the question, and a model that needs every row sees which were not read. A header that cannot be read is
refused (no row can be keyed by it).

**A record of JSON lines that is not JSON** (cut short inside a string, say, or nested too deeply to parse) is passed
over likewise, wherever it is (:func:`_records`; before newuser9's trial only the last line was, and one in the
middle refused the read, where the records read and the stub pass over it): the note names it as a records read
names it, and the records after it are read.

**A document of JSON texts one after another that is not JSON** (cut short, a stray byte) is passed over too, named
with its byte range (and the byte read that shows it), and the documents after it are read: the walk finds the next
document (:mod:`~scratchfs.engine.structure.jsontexts`) rather than take the bad one for the last and drop the rest.

Memory: bounded by :data:`MAX_SLURP_BYTES` of content and :data:`MAX_ARRAY_BYTES` of array text. The reading process
holds the content, the array text and (for a table) a chunk of rows; the jq worker holds the array text and jq's
tree of it. Peak RSS (VmHWM) at the bound with a group-count filter, ``python bench/slurp_memory.py`` (2026-12-03):
16 MiB of JSON lines (194,368 records), the reading process 90 -> 129 MiB and the jq worker 240 MiB, 3.8 s; 16 MiB
of CSV (203,152 rows of 6 columns, a 26 MiB array), 93 -> 164 MiB (237 MiB when the rows were all held at once,
before atk27) and 307 MiB, 5.6 s, before number columns were typed (a first pass over the rows decides them: 0.6 s
for this CSV on a loaded 2-core machine). At a load of 3 on 2 cores both ran past the default 5 s
``pattern_timeout`` (jq's reading of the array counts). Array texts are kept for the next pages (:data:`_ARRAYS`):
up to 32 MiB more, held between reads.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from scratchfs.engine.caches import LRU
from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.jsondoc import jq_page
from scratchfs.engine.structure.jsonl_records import bad_record
from scratchfs.engine.structure.jsontexts import walk_documents
from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import BytesSource, ContentSource, ItemPage, check_page, read_whole
from scratchfs.engine.structure.row_keys import EXTRA_CELLS, row_keys
from scratchfs.engine.structure.slurp_notes import MOST_NUMBERED, NO_WHOLE, Whole, table_note
from scratchfs.engine.structure.stray_quotes import REAL, RealCells, cell_lines, runaway_said, stray_cell
from scratchfs.engine.structure.table import UNSPLIT_KEY, iter_rows
from scratchfs.engine.structure.table_start import DELIMITERS
from scratchfs.foundation import limits
from scratchfs.foundation.errors import BadRecord, InvalidArgument, SlurpTooLarge, StructureTimeout

__all__ = ["EXTRA_CELLS", "MAX_ARRAY_BYTES", "MAX_EXACT_INTEGER", "MAX_SLURP_BYTES", "row_keys", "slurp_page",
           "type_number_columns"]

MAX_SLURP_BYTES = 16 * 1024 * 1024
"""Largest content (bytes) a slurp read takes; a larger one is refused with InvalidArgument."""
MAX_ARRAY_BYTES = 2 * MAX_SLURP_BYTES
"""Largest JSON array text (bytes) a slurp read of a table builds for jq; a table whose rows make a larger one (its
rows are objects repeating the header's names: 16 MiB of short cells under long names made 1,654 MiB) is refused
with InvalidArgument. JSON lines' array is their records' text: it stays under :data:`MAX_SLURP_BYTES`."""
MAX_EXACT_INTEGER = 2**53
"""Largest magnitude of an integer cell read as a number (jq's doubles hold every integer up to it exactly)."""
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
"""JSON's number grammar (RFC 8259, section 6): what a cell must be to be read as a number."""
_ARRAYS: LRU[str, tuple[bytes, tuple[BadRecord, ...], Whole]] = LRU(4, max_weight=MAX_ARRAY_BYTES,
                                                             weigh=lambda kept: len(kept[0]),
                                                             max_item_weight=MAX_ARRAY_BYTES)
"""The array texts slurp reads built, by blob token and form, with the rows each passed over: the next pages of a
read do not build them again."""


def slurp_page(source: ContentSource, filter: str, form: str, *, cursor: str | None = None,
               budget_bytes: int = 8192, cache_key: str | None = None, timeout: float = limits.PATTERN_TIMEOUT,
               entry: str | None = None, layout: Layout | None = None, budget_name: str = "budget_bytes") -> ItemPage:
    """One page of the outputs of jq ``filter`` run once over the array of all of ``source``'s records or rows.

    Args:
        source: the content, at most :data:`MAX_SLURP_BYTES` bytes.
        filter: a jq filter (jq 1.7), given the array as ``.`` (e.g. ``group_by(.unit) | map([.[0].unit, length])``).
        form: ``"records"`` (JSON lines: the array of records), ``"documents"`` (JSON texts one after another: the
            array of the documents, each its own text; one that is not JSON passed over, named, the walk going on
            to the next: :mod:`~scratchfs.engine.structure.jsontexts`), ``"rows"``
            (CSV/TSV with a header: the array of
            rows after it, each an object keyed by the header's names -- the n-th column of a repeated name keyed
            ``name_n``, a missing cell ``null``, cells past the header listed under :data:`EXTRA_CELLS` (keys as
            :func:`row_keys` gives them; the page's ``extra["note"]`` names any key that is not the header's name)
            -- or ``"arrays"`` (a table with no header: every row, an array). A table's cells are strings, but in its
            number columns (:func:`type_number_columns`): numbers, an empty cell ``null``.
        cursor, budget_bytes, timeout: as :func:`~scratchfs.engine.structure.jsondoc.jq_page`.
        cache_key: names the content (a blob token): the array text built is kept under it (:data:`_ARRAYS`, 32 MiB
            over all reads) and jq's outputs as ``jq_page`` keeps them, so the next pages neither rebuild nor rerun.
        entry: the entry's identity; the cursors are bound to it and to the slurp read (a cursor of a plain jq,
            record or row read of the entry is refused, and the other way round).
        layout: for ``"rows"``/``"arrays"``, a table aligned by spaces (:mod:`~scratchfs.engine.structure.aligned`):
            its lines split by the layout, as a rows read splits them, instead of read as CSV (a row whose cells
            cannot be told for certain: its names all ``null``, its line under ``"_unsplit"``).
        budget_name: the name a refused budget is given by (the caller's keyword: ``"budget"`` for a store's read).

    Returns:
        an :class:`ItemPage` named ``results``, as :func:`~scratchfs.engine.structure.jsondoc.jq_page` gives it; a
        table's row that cannot be read, a record or a document that is not JSON, is passed over, its
        ``note`` naming it (the module docstring says why): that note, the renamed keys', is the first page's alone.

    Raises:
        InvalidArgument: content over :data:`MAX_SLURP_BYTES`, a table whose rows make an array over
            :data:`MAX_ARRAY_BYTES`, an unknown ``form``, a table whose header cannot be read (as
            :func:`~scratchfs.engine.structure.table.iter_rows` with ``passed``), and what ``jq_page`` raises.
        StructureTimeout: the filter ran past ``timeout`` (jq's reading of the array counts: for an array of
            :data:`_BIG_ARRAY_BYTES` or more the message says so and names the paged reads). StoreBusy: as jq_page.
    """
    if form not in ("records", "documents", "rows", "arrays"):
        raise InvalidArgument(f"form must be 'records', 'documents', 'rows' or 'arrays', not {str(form)[:20]!r}")
    check_page(cursor, budget_bytes, budget_name=budget_name)
    data, passed, whole = _array(source, form, cache_key, layout)
    keyed, room, named = (None, 0, ()) if cursor is not None else (  # (advice4: said again on every page)
        table_note(source, form, layout, passed, budget_bytes, whole, filter))
    try:
        page = jq_page(BytesSource(data), filter, cursor, max(256, budget_bytes - room),  # (the note fits beside it)
                       cache_key=None if cache_key is None else f"slurp:{form}:{cache_key}", timeout=timeout,
                       entry=f"{entry or ''}/slurp:{source.size}")
    except StructureTimeout as exc:  # (its advice, a path read such as '.items[3]', is no slurp read's)
        said = exc.stopped
        if len(data) < _BIG_ARRAY_BYTES:
            raise StructureTimeout(f"{said}; try a simpler filter (select early, avoid range/repeat/recursion)",
                                   said) from None
        raise StructureTimeout(
            f"{said}: jq reads the array of all the {form if form != 'arrays' else 'rows'} "
            f"({len(data) / 2**20:.1f} MiB of JSON) within that limit too, so a filter as simple as 'length' can run "
            f"past it on a busy machine; read pages instead ({_PAGED.get(form, _PAGED['rows'])}), or count with "
            "count=true and match= or pattern=", said) from None
    return _noted(page, keyed, named)


_PAGED = {"records": "record=1, records=10000 and a jq filter run on each record",
          "documents": "jq= alone, run on each document", "rows": "row=1, rows=10000 and columns= the ones needed"}
"""The paged reads a slurp read's time-out names, by form (``"arrays"``: as ``"rows"``)."""


def _noted(page: ItemPage, keyed: str | None, named: tuple[BadRecord, ...]) -> ItemPage:
    """``page`` (a fresh one, whose note is jq's read's alone) with the table's note
    (:func:`~.slurp_notes.table_note`) before its own, and ``named`` (the rows passed over it names) as its
    ``passed`` (``None``: none)."""
    if keyed is not None:
        page.extra["note"] = "; ".join(n for n in (keyed, page.extra.get("note")) if n)
    page.passed = list(named) or None
    return page


def _array(source: ContentSource, form: str, cache_key: str | None, layout: Layout | None,
           ) -> tuple[bytes, tuple[BadRecord, ...], Whole]:
    """``(the JSON array text of source's records or rows, the rows passed over as they could not be read, the rows
    given whole: :func:`~.slurp_notes._whole_note`)``, kept in :data:`_ARRAYS` under ``cache_key`` (built once for
    the pages of a read)."""
    kept = None if cache_key is None else _ARRAYS.get(f"{form}:{cache_key}")
    made = kept if kept is not None else (
        (*_records(source), NO_WHOLE) if form == "records" else
        (*_documents(source), NO_WHOLE) if form == "documents" else _rows(source, form == "rows", layout))
    if cache_key is not None and kept is None:
        _ARRAYS.put(f"{form}:{cache_key}", made)
    return made


def _records(source: ContentSource) -> tuple[bytes, tuple[BadRecord, ...]]:
    """``(the JSON array text of the records of JSON lines: each non-blank line's own text, in order; the records
    that are not JSON or nested too deeply to parse, passed over)``: each named as a records read names it
    (:func:`~scratchfs.engine.structure.jsonl_records.bad_record`: its number, counting every record, its bytes and the
    parser's words), and those after it read -- a record cut short in the middle drops none after it, and a content
    cut at a size limit ends inside its last one (or a tool adds a line such as '[output truncated]'), which the
    stub counts out too."""
    data = read_whole(source, MAX_SLURP_BYTES, "slurp")
    kept: list[bytes] = []
    passed: list[BadRecord] = []
    start, size = 0, len(data)
    for line in data.split(b"\n"):
        text = line[len(codecs.BOM_UTF8) :] if not start and line.startswith(codecs.BOM_UTF8) else line  # (a byte
        ended = start + len(line) < size  # order mark at the start is no part of record 1, as a record read has it)
        if text.strip():  # (parsed with its \n, as a records read parses it: a bad one's words are that read's)
            try:
                json.loads(text.decode("utf-8", "replace") + ("\n" if ended else ""), cls=LongIntegers)
            except (ValueError, RecursionError) as exc:
                passed.append(bad_record(len(kept) + len(passed) + 1, start, len(line) + ended, exc))
            else:
                kept.append(text)
        start += len(line) + 1
    del data
    return b"[" + b",\n".join(kept) + b"]", tuple(passed)


def _documents(source: ContentSource) -> tuple[bytes, tuple[BadRecord, ...]]:
    """``(the JSON array text of the JSON texts one after another that source holds -- each document's own text, in
    order, blanks between them, as ``jq -s`` reads them --, the documents that are not JSON, passed over)``: the
    walk goes on past a bad one to the next document that parses
    (:func:`~scratchfs.engine.structure.jsontexts.walk_documents`), so a document broken in the middle drops none
    after it; a last one cut short (an output cut at its size limit) runs to the end."""
    data = read_whole(source, MAX_SLURP_BYTES, "slurp")
    bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0  # (no part of the first document)
    text, kept, passed = data[bom:].decode("utf-8", "replace"), [], []
    del data
    for start, end, bad in walk_documents(text, bom):
        if bad is None:
            kept.append(text[start:end].encode("utf-8"))
        else:
            passed.append(bad)
    return b"[" + b",\n".join(kept) + b"]", tuple(passed)


def _rows(source: ContentSource, header: bool, layout: Layout | None = None,
          ) -> tuple[bytes, tuple[BadRecord, ...], Whole]:
    """The JSON array text of a table's rows (objects keyed by the header when ``header``, else arrays), the cells
    of its number columns numbers (:func:`type_number_columns`, decided by a first pass over the rows), at most
    :data:`MAX_ARRAY_BYTES`: built :data:`_CHUNK_ROWS` rows at a time, and refused (InvalidArgument, naming the row
    it got to) once it grows past the bound -- each row repeats the header's names, so 2 MiB of one-character cells
    under fifty 200-character names made a 206 MiB array (3.6 GB of memory for 16 MiB of them, before jq refused
    it). Returns it, the rows passed over (:func:`~scratchfs.engine.structure.table.iter_rows`) and the rows given
    whole (:func:`~.slurp_notes._whole_note`)."""
    if source.size > MAX_SLURP_BYTES:
        read_whole(source, MAX_SLURP_BYTES, "slurp")  # raises naming the bound
    numbers = _number_columns(source, header, layout)
    passed: list[BadRecord] = []
    names: list[str] | None = None
    extra = EXTRA_CELLS
    chunk: list[Any] = []
    parts: list[bytes] = []
    size, count, whole, stray, width, real = 1, 0, [], "", 0, RealCells()  # (real: rows stray_quotes.REAL)
    for start, cells in iter_rows(source, layout=layout, passed=passed, headed=header):
        width = width or len(cells)  # (the header's, or the first row's: the rows' width)
        if header and names is None:
            names, extra = row_keys(cells)
            continue
        if not stray and layout is None and isinstance(cells, list) and real.worth(cells):
            said = _stray(source, start, cells, width, count + 1 + len(passed))
            stray = said or ""
            if said is None:
                real.saw(cells)
        chunk.append(cells)
        count += 1
        if isinstance(cells, dict):  # (a row given whole: its number as a rows read gives it, those passed counted)
            whole.append(count + len(passed))
        if len(chunk) >= _CHUNK_ROWS:
            size += _put(_shaped(chunk, names, extra, numbers), parts, size, count)
            chunk = []
    _put(_shaped(chunk, names, extra, numbers), parts, size, count)
    key = _whole_key(names, extra) if whole and names is not None else UNSPLIT_KEY
    return b"[" + b",".join(parts) + b"]", tuple(passed), (len(whole), key, tuple(whole[:MOST_NUMBERED]), stray)


def _stray(source: ContentSource, start: int, cells: list[str], width: int, row: int) -> str | None:
    """What a slurp page says of row ``row`` (its ``cells``, starting at byte ``start``; ``width`` cells a row) when
    one of its cells holds rows swallowed by a quote never closed (:mod:`~.stray_quotes`; the delimiter is the one
    its lines hold), ``None`` when one only looks so (:data:`~.stray_quotes.REAL`), else ``""``."""
    for delimiter in DELIMITERS:
        at = stray_cell(source, start, cells, delimiter, width)
        if at == REAL:
            return None
        if at is not None:
            return runaway_said(source, row, start, cell_lines(cells[at]), delimiter)
    return ""


def _shaped(chunk: list[list[Any]], names: list[str] | None, extra: str, numbers: list[int]) -> list[Any]:
    """``chunk``'s rows as the array holds them: the cells of the ``numbers`` columns numbers (an empty one
    ``None``), and each row an object keyed by ``names`` (cells past them under ``extra``), or its list of cells
    when ``names`` is ``None``."""
    split = [cells for cells in chunk if not isinstance(cells, dict)]  # (a row given whole is no cells)
    for c in numbers:
        column = [cells[c] if c < len(cells) else "" for cells in split]
        for cells, value in zip(split, json.loads("[" + ",".join([cell or "null" for cell in column]) + "]"),
                                strict=True):
            if c < len(cells):
                cells[c] = value
    if names is None:
        return chunk
    rows = []
    for cells in chunk:
        row: dict[str, Any] = dict.fromkeys(names)
        if isinstance(cells, dict):  # (a row of a table aligned by spaces left whole: its line, cells null)
            row[_whole_key(names, extra)] = cells[UNSPLIT_KEY]
            rows.append(row)
            continue
        row.update(zip(names, cells, strict=False))
        if len(cells) > len(names):
            row[extra] = cells[len(names):]
        rows.append(row)
    return rows


def _number_columns(source: ContentSource, header: bool, layout: Layout | None) -> list[int]:
    """The indexes of a table's number columns (see :func:`type_number_columns`), judged :data:`_CHUNK_ROWS` rows
    at a time so that the rows are never all held: a column stops being one at its first chunk that is not all
    numbers, and is one if some chunk held a number in it."""
    width: int | None = None
    out: set[int] = set()
    lost: set[int] = set()
    chunk: list[list[str]] = []
    rows = iter(iter_rows(source, layout=layout, passed=[], headed=header))  # (rows that cannot be read: passed over,
    # as by _rows)
    if header:
        width = len(next(rows, (0, []))[1])
    for _start, cells in rows:
        chunk.append(cells)
        if len(chunk) >= _CHUNK_ROWS:
            _judge(chunk, width, out, lost)
            chunk = []
    _judge(chunk, width, out, lost)
    return sorted(out - lost)


def _judge(chunk: list[list[str]], width: int | None, out: set[int], lost: set[int]) -> None:
    """Add to ``out`` the columns (before ``width``) ``chunk`` holds numbers in, to ``lost`` those it holds other
    text in (:func:`_numbers`)."""
    chunk = [cells for cells in chunk if not isinstance(cells, dict)]  # (a row given whole is no cells)
    longest = max(map(len, chunk), default=0)
    for c in range(longest if width is None else min(width, longest)):
        if c in lost:
            continue
        column = [cells[c] if c < len(cells) else "" for cells in chunk]
        if any(column):
            (out if _numbers(column) is not None else lost).add(c)


def _whole_key(names: list[str], extra: str) -> str:
    """The key of the line of a row given whole (:data:`~scratchfs.engine.structure.table.UNSPLIT_KEY`, ``_``
    before it, or ``_2``... after it when the header has a column of that name)."""
    key, n = f"_{UNSPLIT_KEY}", 1
    while key in names or key == extra:
        n += 1
        key = f"_{UNSPLIT_KEY}_{n}"
    return key


_BIG_ARRAY_BYTES = 1024 * 1024
"""An array from which size up a slurp read's timeout says that jq's reading of it counts toward the limit."""
_CHUNK_ROWS = 1024
"""Rows turned into JSON text at a time (one ``json.dumps`` each: the array's size is known as it grows)."""


def _put(chunk: list[Any], parts: list[bytes], size: int, count: int) -> int:
    """Put the JSON text of ``chunk``'s rows (the array's items, no brackets) in ``parts`` and empty ``chunk``;
    return its bytes. ``size``: the bytes of the array so far; ``count``: the rows so far. Raises SlurpTooLarge (an
    InvalidArgument) when the array would grow past :data:`MAX_ARRAY_BYTES`."""
    if not chunk:
        return 0
    text = json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")[1:-1]
    chunk.clear()
    if size + len(text) + 1 > MAX_ARRAY_BYTES:
        raise SlurpTooLarge(
            f"slurp=true gives jq the rows as one JSON array of at most {MAX_ARRAY_BYTES // 2**20} MiB, and this "
            f"table's rows make more by row {count:,} (each row an object repeating the header's names): read pages "
            "of its rows instead")
    parts.append(text)
    return len(text) + 1


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
