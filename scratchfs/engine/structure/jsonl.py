"""JSON lines (JSONL, NDJSON): record ranges and a jq filter applied record by record, streaming.

A record is a line that is not blank (whitespace only), numbered from 1 in content order, parsed with the standard
``json`` module (C speed). Records are read by streaming from the cursor's byte offset, so a page costs the bytes it
shows, not the bytes before it (record N, read first, counts the lines before it: `row_jump`). The jq filter is
compiled once (``jq``, see :mod:`scratchfs.engine.structure.jsondoc` for the choice) and run on each record, in a
worker process killed at the page's time limit (batches of up to 256 records or ~1 MiB per call).
Memory: one batch of records at a time (a record is at most
:data:`~scratchfs.engine.structure.jsonl_records.MAX_RECORD_BYTES`). The records themselves -- where record N starts,
each one parsed, the bad ones passed over (at most :data:`~scratchfs.engine.structure.jsonl_records.MOST_LEADING` at
a page's start) -- are read by :mod:`scratchfs.engine.structure.jsonl_records`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from scratchfs.engine.structure.jq_compile import compile_filter
from scratchfs.engine.structure.jsondoc import jq_keyed, jq_message, parse_path, run_jq_checked
from scratchfs.engine.structure.jsonl_records import (
    NUMBERS_KIND,
    SURROGATE_KIND,
    PageStart,
    RecordNote,
    iter_records,
    iter_values,
    noted,
    page_passed,
    pass_leading,
    pass_over,
    seek_record,
)
from scratchfs.engine.structure.numbers import (
    CONSTANTS_SAID,
    constant_literals,
    numbers_note,
    replace_lone_surrogates,
    surrogate_note,
)
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
    with_as_text,
)
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, BadRecord

__all__ = ["MAX_RECORDS", "records_page"]

MAX_RECORDS = 10_000
"""Most records a page asks for."""
_BATCH_RECORDS = 256
_BATCH_BYTES = 1024 * 1024
_CONSTANTS_KIND = "constants"
"""The kind of the note on the first record of a page holding NaN or Infinity as Python writes them."""


def records_page(source: ContentSource, record: int = 1, records: int = 50, *, jq: str | None = None,
                 cursor: str | None = None, budget_bytes: int = 8192,
                 timeout: float = limits.PATTERN_TIMEOUT, entry: str | None = None,
                 pass_first: bool = False) -> ItemPage:
    """Read a page of the records of a JSON-lines content from ``record`` (at most ``records``, fewer when the
    budget fills first: ``cursor`` goes on from the first record not shown), or of their jq outputs.

    Args:
        source: the content.
        record: the first record, from 1 (ignored when ``cursor`` is given).
        records: most records per page (1 to :data:`MAX_RECORDS`); with ``jq``, most records whose outputs the page
            shows (those the filter gives nothing for are passed over: at most :data:`MAX_RECORDS` read a page, for
            half of ``timeout``).
        jq: a jq filter applied to each record; the page lists its outputs (a record with none adds nothing).
        cursor: ``page.cursor`` of the previous page of the same read.
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        timeout: seconds (wall clock) the filter may take to compile and run over the page's records, in a worker
            process killed at the limit (:mod:`scratchfs.engine.structure.jq_worker`).
        entry: the entry's identity its cursors are bound to (:class:`~scratchfs.engine.structure.paging.CursorKey`;
            with ``jq`` and the size): a cursor of another entry or read is refused.
        pass_first: a bad record the page starts at, and those right after it (at most ``MOST_LEADING``), are
            passed over, the page giving the records after them (``note`` names the first, counting the others).

    Returns:
        an :class:`ItemPage` named ``records`` (``first`` is the number of the first record shown), or, with ``jq``,
        named ``results`` with ``extra["record"]``: the record of the first output the page shows, whole or in
        ``part`` (``first`` numbers the outputs of that record from 1; a page showing none names the record it
        started reading at). A record or output larger than the page comes as ``part`` pieces of its compact JSON.
        Its ``note`` names only records it shows and those it passed over (``passed``: the first, or a list).

    Raises:
        BadRecord (an InvalidArgument): the first record the page would show (not by a cursor) is not JSON or too
            deeply nested (with ``pass_first``: only if it is the content's last, a cut last line), or the filter
            fails on it (its number, bytes, the parser's or jq's message); any other is passed over (above).
        InvalidArgument: a filter that does not compile, a bad cursor (edited, of another entry or read, or not at
            a record start), count or budget, a record past the last one, a line longer than ``MAX_RECORD_BYTES``.
        StructureTimeout: the filter ran past ``timeout`` (its compile, or its run over the page's records).
        StoreBusy: no worker came free before the time limit, or none could be started: nothing was run, retry.
    """
    budget = check_budget(budget_bytes)
    records = check_int(records, "records", 1, MAX_RECORDS)
    key = CursorKey("records" if jq is None else f"records\0{jq}", source.size, entry)  # (record=: check_resumes_at)
    number, offset, out_index, chars = _start(source, record, cursor, key, jq is None)
    program = None if jq is None else compile_filter(jq, 1_000_000, time.monotonic() + timeout)
    how = PageStart(cursor is not None, pass_first)
    candidates: list[tuple[int, str]] = []  # (index on the page, text) of items given as their JSON text
    note: list[str] = []  # the notes on numbers a double cannot hold and lone surrogate escapes, each once seen

    def cursor_of(position: tuple[int, int, int], skip: int) -> str:
        return encode_cursor((*position, skip), key)

    def fill(room: int) -> ItemPage:
        candidates.clear()
        note.clear()
        if program is None:
            return _records_fill(source, (number, offset, 0, chars), records, room, candidates, note, cursor_of, how)
        return _results_fill(program, source, (number, offset, out_index, chars), records, room,
                             time.monotonic() + timeout, parse_path(jq) is None, candidates, note, cursor_of, how)

    return with_as_text(lambda room: _noting_what_it_shows(fill(room), note, key), budget, candidates, note)


def _records_fill(source: ContentSource, at: tuple[int, int, int, int], records: int, room: int,
                  candidates: list[tuple[int, str]], note: list[str], cursor_of: Callable[[tuple, int], str],
                  how: PageStart) -> ItemPage:
    """The page of records from ``at`` (``(number, offset, 0, characters into it)``) within ``room`` bytes, at
    most ``records``; the bad records it passes over, if any, in its ``passed``
    (:func:`~scratchfs.engine.structure.jsonl_records.page_passed`)."""
    number, offset, _index, chars = at
    page, passed, how = ItemPage("records", number), [], how.again()
    items = iter_values(source, number, offset, lambda text: candidates.append((len(page.items), text)), note, passed,
                    how)
    page = fill_items(page, items, chars, room, records, lambda pos, skip: cursor_of((pos[0], pos[1], 0), skip))
    page.first += how.leading
    page.passed = page_passed(passed)
    return page


def _results_fill(program: Any, source: ContentSource, at: tuple[int, int, int, int], records: int, room: int,
                  deadline: float, numbers: bool, candidates: list[tuple[int, str]], note: list[str],
                  cursor_of: Callable[[tuple, int], str], how: PageStart) -> ItemPage:
    """The page of the outputs of ``program`` from ``at`` (``(record number, offset, output index, characters into
    it)``) within ``room`` bytes, reading at most ``records`` records until ``deadline`` (``time.monotonic()``);
    the bad record it ends before and passes over, if any, in its ``passed``."""
    number, offset, out_index, chars = at
    page, passed, how = ItemPage("results", out_index + 1, extra={"record": number}, start=number), [], how.again()
    outputs = _outputs(program, source, number, offset, out_index, records, deadline,
                       lambda text: candidates.append((len(page.items), text)), note, numbers, passed, how)
    page = fill_items(page, _labelled(page, outputs), chars, room, 1_000_000, cursor_of)
    page.passed = page_passed(passed)
    return page


def _noting_what_it_shows(page: ItemPage, note: list[str], key: CursorKey) -> ItemPage:
    """``page``, once the notes on records past the last one it shows are dropped from ``note`` (a record read ahead
    of it: the page's record limit or budget ended before it, or it is the bad record that ends the page), so that
    a page notes only what it shows; the next page, which shows that record, notes it."""
    if page.cursor is not None:
        number, _offset, out_index, chars = decode_cursor(page.cursor, 4, key)
        last = number if out_index or chars else number - 1  # (the cursor's record is shown when it resumes in it)
        note[:] = [n for n in note if not isinstance(n, RecordNote) or n.record is None or n.record <= last]
    return page


def _labelled(page: ItemPage, outputs: Iterator[tuple[tuple[int, int, int], Any, bool]],
              ) -> Iterator[tuple[tuple[int, int, int], Any, bool]]:
    """``outputs``, the first taken before the page is filled: the page's ``record`` and ``first`` then name the
    output it shows first (or its ``part``), not the record it starts reading at -- records the filter gives nothing
    for may come before it (a piece labelled with such a record was read as another output than it is)."""
    first = next(outputs, None)
    if first is None:
        return iter(())
    (at, _start, index), value, _is_text = first
    if value is not STOP:
        page.extra["record"], page.first = at, index + 1
    return chain([first], outputs)


def _start(source: ContentSource, record: object, cursor: str | None, key: CursorKey,
           plain: bool) -> tuple[int, int, int, int]:
    """``(record number, its byte offset, output index, characters into it)`` where a page starts: at ``cursor``
    (checked: made with ``key``, at a record start; ``plain``: a read without jq, whose cursors name no output) or at
    record ``record``. Raises InvalidArgument."""
    if cursor is None:
        number, offset = seek_record(source, check_int(record, "record", 1))
        return number, offset, 0, 0
    number, offset, out_index, chars = decode_cursor(cursor, 4, key)
    check_line_start(source, offset, "a record start")
    if number < 1 or (plain and out_index):
        raise BadCursor(f"cursor {cursor[:40]!r} names no record of this read: start it again without one")
    return number, offset, out_index, chars


def _batches(source: ContentSource, number: int, offset: int, records: int, note: list[str],
             ) -> Iterator[list[tuple[int, int, Any, int]]]:
    """Lists of ``(number, byte offset, text, length)``; see below."""
    """The first ``records`` records from ``number`` in lists of at most :data:`_BATCH_RECORDS` records and about
    :data:`_BATCH_BYTES` bytes (one worker call each), then ``[]`` if a record is left after them. A record's lone
    surrogate escapes are written as U+FFFD's (jq refuses a lone high one and reads a lone low one as U+FFFD without
    a word); the note on the first is put in ``note``. A record that is not JSON (BadRecord) is raised after the
    batch of the records read before it: their outputs come first (:func:`_outputs` ends the page before it)."""
    batch: list[tuple[int, int, Any, int]] = []
    size = 0
    records_read = enumerate(iter_records(source, number, offset, note))
    while True:
        try:
            read, (at, start, _value, length, text, _exact) = next(records_read)
        except StopIteration:
            break
        except BadRecord:
            if batch:
                yield batch
            raise
        if read >= records:
            if batch:
                yield batch
            yield [(at, start, STOP, 0)]  # the page's record limit: the next page starts here
            return
        if _exact is False:
            text, escape = replace_lone_surrogates(text)
            _note_inexact(text, escape, at, note)
        batch.append((at, start, text, length))
        size += length
        if len(batch) >= _BATCH_RECORDS or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _note_inexact(text: str, escape: str | None, at: int, note: list[str]) -> None:
    """Note in ``note`` what jq reads of record ``at`` (``text``, which holds a value no Python value holds exactly)
    as other than the record writes it, each kind once a page: its first lone surrogate escape ``escape`` (read as
    U+FFFD) and its NaN or Infinity as Python writes them (read as null or the largest double:
    :data:`~scratchfs.engine.structure.numbers.CONSTANTS_SAID`)."""
    if not noted(note, _CONSTANTS_KIND) and constant_literals(text)[0] is not None:
        note.append(RecordNote(f"record {at} {CONSTANTS_SAID}", _CONSTANTS_KIND, at))
    if escape is not None and not noted(note, SURROGATE_KIND):
        note.append(RecordNote(surrogate_note(escape, f"record {at}", True), SURROGATE_KIND, at))


def _outputs(program: Any, source: ContentSource, number: int, offset: int, out_index: int, records: int,
             deadline: float, as_text: Callable[[str], None], note: list[str], numbers: bool,
             passed: list[BadRecord], how: PageStart) -> Iterator[tuple[tuple[int, int, int], Any, bool]]:
    """The filter's outputs from output ``out_index`` of record ``number`` (at ``offset``), an output holding a
    number no value holds exactly as its JSON text (told to ``as_text`` first); the notes go in ``note``:
    :func:`_batches`' and, with ``numbers`` (a filter that may compute), the one on the first number of the records a
    double cannot hold. A bad record after the first (or first, ``resumed`` or ``pass_first``) is passed over, as
    :func:`~scratchfs.engine.structure.jsonl_records.iter_values` does."""
    while True:
        try:
            yield from _run_outputs(program, source, number, offset, out_index, records, deadline, as_text, note,
                                    numbers)
            return
        except BadRecord as exc:
            if exc.record == number and how.pass_first and not isinstance(exc, _FilterFailed):
                after, going = pass_leading(source, exc, note, passed, how)
                if going:
                    (number, offset), out_index = after, 0
                    continue
                if after is not None:
                    yield (*after, 0), STOP, False
                return
            if exc.record == number and not how.resumed:
                raise
            after = pass_over(source, exc, note, passed)
            if after is not None:
                yield (*after, 0), STOP, False
            return


def _run_outputs(program: Any, source: ContentSource, number: int, offset: int, out_index: int, records: int,
                 deadline: float, as_text: Callable[[str], None], note: list[str], numbers: bool,
                 ) -> Iterator[tuple[tuple[int, int, int], Any, bool]]:
    """The outputs of at most ``records`` records that give some: a record the filter gives nothing for (a
    ``select`` that keeps few) is passed over, not counted -- a page of 10 records read of which none was kept came
    back empty, 295 pages to follow for 55 outputs --, at most :data:`MAX_RECORDS` records read a page and for half
    its time (``deadline``), the next page going on after them."""
    shown, started, half = 0, time.monotonic(), (deadline - time.monotonic()) / 2
    for batch in _batches(source, number, offset, MAX_RECORDS, note):
        at, start = batch[0][0], batch[0][1]
        if batch[0][2] is STOP or shown >= records or (at > number and time.monotonic() - started > half):
            if (not shown and batch[0][2] is not STOP) or at - number >= MAX_RECORDS:
                note.append(f"records {number:,} to {at - 1:,} gave {'no' if not shown else 'few'} outputs: "
                            "next_call reads on")
            yield (at, start, 0), STOP, False  # the page's record limit: the next page starts here
            return
        check = numbers and not noted(note, NUMBERS_KIND)  # no numbers note yet
        status, detail = run_jq_checked(program, "records", ([text for _, _, text, _ in batch], check), deadline,
                                        "fewer records per page (records=) or a simpler filter")
        failed, message, done = detail if status == "error" else (None, "", detail[0])
        if status == "ok" and detail[1] is not None and check:
            note.append(RecordNote(numbers_note(detail[1]), NUMBERS_KIND))
        for (at, start, _text, _length), outputs in zip(batch, done, strict=False):  # a page may fill before a failure
            if shown >= records:
                yield (at, start, 0), STOP, False
                return
            shown += bool(outputs[out_index:] if at == number else outputs)
            for index, (output, is_text) in enumerate(outputs):
                if at == number and index < out_index:
                    continue
                if is_text:
                    as_text(output)
                yield (at, start, index), output, is_text
        if failed is not None:
            at, start, _value, length = batch[failed]
            raise _FilterFailed(f"jq failed on record {at} (bytes {start} to {start + length - 1}): "
                                f"{jq_message(message)}{_not_an_object(message, at)}", at, start, length)


class _FilterFailed(BadRecord):
    """The read's jq filter failed on a record (which is JSON): a fault of the filter more likely than of the data,
    raised at the page's first record even with ``pass_first`` (a filter failing on every record is told at once)."""


def _not_an_object(message: str, number: int) -> str:
    """What a failure on record ``number`` adds when jq's ``message`` says a key was looked up in a record (or a
    value in it) that is not an object -- JSON lines of mixed kinds, an object then arrays -- : how to pass such
    records over; else ``""``."""
    keyed = jq_keyed(message, within=True)
    if keyed is None:
        return ""
    return (f" (a key looked up in {'an' if keyed == 'array' else 'a'} {keyed}, not an object: not every "
            "record, or value in one, is an object holding it -- a path ending in ? (.a?) or a filter starting "
            "objects | passes over the others)")
