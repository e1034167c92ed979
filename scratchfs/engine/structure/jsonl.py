"""JSON lines (JSONL, NDJSON): record ranges and a jq filter applied record by record, streaming.

A record is a line that is not blank (whitespace only), numbered from 1 in content order, parsed with the standard
``json`` module (C speed). Records are read by streaming from the cursor's byte offset, so a page costs the bytes it
shows, not the bytes before it (the first read of record N scans the N-1 records before it once). The jq filter is
compiled once (``jq``, see :mod:`scratchfs.engine.structure.jsondoc` for the choice) and run on each record, in a
worker process killed at the page's time limit (batches of up to 256 records or ~1 MiB per call).
Memory: one batch of records at a time (a record is at most :data:`MAX_RECORD_BYTES`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from scratchfs.engine.structure.jsondoc import compile_filter, jq_message, run_jq_checked
from scratchfs.engine.structure.paging import (
    STOP,
    ContentSource,
    CursorKey,
    ItemPage,
    check_budget,
    check_line_start,
    decode_cursor,
    encode_cursor,
    fill_items,
    iter_lines,
)
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_RECORDS", "MAX_RECORD_BYTES", "records_page"]

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Longest record (bytes) a read holds in memory; a longer line is refused with InvalidArgument."""
MAX_RECORDS = 10_000
"""Most records a page asks for."""
_BATCH_RECORDS = 256
_BATCH_BYTES = 1024 * 1024


def records_page(source: ContentSource, record: int = 1, records: int = 50, *, jq: str | None = None,
                 cursor: str | None = None, budget_bytes: int = 8192,
                 timeout: float = limits.PATTERN_TIMEOUT, entry: str | None = None) -> ItemPage:
    """Read records ``record`` to ``record + records - 1`` of a JSON-lines content, or their jq outputs.

    Args:
        source: the content.
        record: the first record, from 1 (ignored when ``cursor`` is given).
        records: most records per page (1 to :data:`MAX_RECORDS`); with ``jq``, most records *read* per page.
        jq: a jq filter applied to each record; the page lists its outputs (a record with none adds nothing).
        cursor: ``page.cursor`` of the previous page of the same read.
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        timeout: seconds (wall clock) the filter may run over the page's records, in a worker process killed at the
            limit (:mod:`scratchfs.engine.structure.jq_worker`).
        entry: the entry's identity its cursors are bound to (:class:`~scratchfs.engine.structure.paging.CursorKey`;
            with ``jq`` and the size): a cursor of another entry or read is refused.

    Returns:
        an :class:`ItemPage` named ``records`` (``first`` is the number of the first record shown), or, with ``jq``,
        named ``results`` with ``extra["record"]``: the record the page starts reading at (``first`` numbers the
        outputs of that record from 1). A record or output larger
        than the page comes as ``part`` pieces of its compact JSON.

    Raises:
        InvalidArgument: a record that is not JSON (its number and the parser's message) or is nested too deeply
            to parse, a filter that does not compile or fails on a record, a bad cursor (edited, of another entry or
            read, or not at a record start), count or budget, a record
            past the last one, a line longer than :data:`MAX_RECORD_BYTES`.
        StructureTimeout: the filter ran past ``timeout`` over the page's records.
        StoreBusy: every worker process stayed busy until the time limit, or none could be started (out of
            descriptors or memory); nothing was run: retry.
    """
    budget = check_budget(budget_bytes)
    records = check_int(records, "records", 1, MAX_RECORDS)
    key = CursorKey("records" if jq is None else f"records\0{jq}", source.size, entry)
    if cursor is not None:
        number, offset, out_index, chars = decode_cursor(cursor, 4, key)
        check_line_start(source, offset, "a record start")
        if number < 1 or (jq is None and out_index):
            raise InvalidArgument(f"cursor {cursor[:40]!r} names no record of this read: start it again without one")
    else:
        number, offset, out_index, chars = check_int(record, "record", 1), 0, 0, 0
        number, offset = _seek(source, number)
    program = compile_filter(jq, 1_000_000) if jq is not None else None

    def cursor_of(position: tuple[int, int, int], skip: int) -> str:
        return encode_cursor((*position, skip), key)

    if program is None:
        page = ItemPage("records", number)
        return fill_items(page, _values(source, number, offset), chars, budget, records,
                          lambda pos, skip: cursor_of((pos[0], pos[1], 0), skip))
    page = ItemPage("results", out_index + 1, extra={"record": number})
    outputs = _outputs(program, source, number, offset, out_index, records, time.monotonic() + timeout)
    return fill_items(page, outputs, chars, budget, 1_000_000, cursor_of)


def _seek(source: ContentSource, number: int) -> tuple[int, int]:
    """``(number, byte offset)`` of record ``number`` (scanning from the start)."""
    seen = 0
    for offset, line in iter_lines(source, 0, MAX_RECORD_BYTES):
        if line.strip():
            seen += 1
            if seen == number:
                return number, offset
    if number == 1 and seen == 0:
        return 1, source.size  # no records: an empty page
    raise InvalidArgument(f"record {number} is past the last record ({seen:,})")


def _records(source: ContentSource, number: int, offset: int) -> Iterator[tuple[int, int, Any, int]]:
    """Records from record ``number``, which starts at byte ``offset``: ``(number, start, value, line bytes)``.
    Raises InvalidArgument: a record that is not JSON, or a blank line at ``offset`` (a page starts at a record)."""
    for start, line in iter_lines(source, offset, MAX_RECORD_BYTES):
        if not line.strip():
            if start == offset:
                raise InvalidArgument(f"cursor points at byte {offset}, which is not a record start of this entry: "
                                      "start the read again without a cursor")
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise InvalidArgument(f"record {number} (at byte {start}) is not JSON: {exc}") from None
        except (RecursionError, MemoryError):
            raise InvalidArgument(f"record {number} (at byte {start}) is JSON nested too deeply to parse") from None
        yield number, start, value, len(line)
        number += 1


def _values(source: ContentSource, number: int, offset: int) -> Iterator[tuple[tuple[int, int], Any, bool]]:
    for at, start, value, _length in _records(source, number, offset):
        yield (at, start), value, False


def _batches(source: ContentSource, number: int, offset: int, records: int,
             ) -> Iterator[list[tuple[int, int, Any]]]:
    """The first ``records`` records from ``number`` in lists of at most :data:`_BATCH_RECORDS` records and about
    :data:`_BATCH_BYTES` bytes (one worker call each), then ``[]`` if a record is left after them."""
    batch: list[tuple[int, int, Any]] = []
    size = 0
    for read, (at, start, value, length) in enumerate(_records(source, number, offset)):
        if read >= records:
            if batch:
                yield batch
            yield [(at, start, STOP)]  # the page's record limit: the next page starts here
            return
        batch.append((at, start, value))
        size += length
        if len(batch) >= _BATCH_RECORDS or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _outputs(program: Any, source: ContentSource, number: int, offset: int, out_index: int, records: int,
             deadline: float) -> Iterator[tuple[tuple[int, int, int], Any, bool]]:
    for batch in _batches(source, number, offset, records):
        if batch[0][2] is STOP:
            yield (batch[0][0], batch[0][1], 0), STOP, False
            return
        status, detail = run_jq_checked(program, "values", [value for _, _, value in batch], deadline,
                                        "fewer records per page (records=) or a simpler filter")
        failed, message, done = detail if status == "error" else (None, "", detail)
        for (at, start, _value), outputs in zip(batch, done, strict=False):  # a page may fill before a failure
            for index, output in enumerate(outputs):
                if at == number and index < out_index:
                    continue
                yield (at, start, index), output, False
        if failed is not None:
            raise InvalidArgument(f"jq failed on record {batch[failed][0]}: {jq_message(message)}")
