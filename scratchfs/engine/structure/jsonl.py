"""JSON lines (JSONL, NDJSON): record ranges and a jq filter applied record by record, streaming.

A record is a line that is not blank (whitespace only), numbered from 1 in content order, parsed with the standard
``json`` module (C speed). Records are read by streaming from the cursor's byte offset, so a page costs the bytes it
shows, not the bytes before it (record N, read first, counts the lines before it: `row_jump`). The jq filter is
compiled once (``jq``, see :mod:`scratchfs.engine.structure.jsondoc` for the choice) and run on each record, in a
worker process killed at the page's time limit (batches of up to 256 records or ~1 MiB per call).
Memory: one batch of records at a time (a record is at most :data:`MAX_RECORD_BYTES`).
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

from scratchfs.engine.structure.jq_compile import compile_filter
from scratchfs.engine.structure.jsondoc import jq_keyed, jq_message, parse_path, run_jq_checked
from scratchfs.engine.structure.numbers import (
    load_exact,
    lone_surrogate,
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
    iter_lines,
    with_as_text,
)
from scratchfs.engine.structure.row_jump import skip_lines
from scratchfs.foundation import limits
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, BadRecord, InvalidArgument, PastLast

__all__ = ["MAX_RECORDS", "MAX_RECORD_BYTES", "MOST_LEADING", "bad_record", "records_page"]

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Longest record (bytes) a read holds in memory; a longer line is refused with InvalidArgument."""
MAX_RECORDS = 10_000
"""Most records a page asks for."""
_BATCH_RECORDS = 256
_BATCH_BYTES = 1024 * 1024


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
        pass_first: a bad record the page starts at, and those right after it (at most :data:`MOST_LEADING`), are
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
            a record start), count or budget, a record past the last one, a line longer than :data:`MAX_RECORD_BYTES`.
        StructureTimeout: the filter ran past ``timeout`` (its compile, or its run over the page's records).
        StoreBusy: no worker came free before the time limit, or none could be started: nothing was run, retry.
    """
    budget = check_budget(budget_bytes)
    records = check_int(records, "records", 1, MAX_RECORDS)
    key = CursorKey("records" if jq is None else f"records\0{jq}", source.size, entry)  # (record=: check_resumes_at)
    number, offset, out_index, chars = _start(source, record, cursor, key, jq is None)
    program = None if jq is None else compile_filter(jq, 1_000_000, time.monotonic() + timeout)
    how = _Start(cursor is not None, pass_first)
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
                  how: _Start) -> ItemPage:
    """The page of records from ``at`` (``(number, offset, 0, characters into it)``) within ``room`` bytes, at
    most ``records``; the bad records it passes over, if any, in its ``passed`` (:func:`_passed`)."""
    number, offset, _index, chars = at
    page, passed, how = ItemPage("records", number), [], how.again()
    items = _values(source, number, offset, lambda text: candidates.append((len(page.items), text)), note, passed,
                    how)
    page = fill_items(page, items, chars, room, records, lambda pos, skip: cursor_of((pos[0], pos[1], 0), skip))
    page.first += how.leading
    page.passed = _passed(passed)
    return page


def _results_fill(program: Any, source: ContentSource, at: tuple[int, int, int, int], records: int, room: int,
                  deadline: float, numbers: bool, candidates: list[tuple[int, str]], note: list[str],
                  cursor_of: Callable[[tuple, int], str], how: _Start) -> ItemPage:
    """The page of the outputs of ``program`` from ``at`` (``(record number, offset, output index, characters into
    it)``) within ``room`` bytes, reading at most ``records`` records until ``deadline`` (``time.monotonic()``);
    the bad record it ends before and passes over, if any, in its ``passed``."""
    number, offset, out_index, chars = at
    page, passed, how = ItemPage("results", out_index + 1, extra={"record": number}), [], how.again()
    outputs = _outputs(program, source, number, offset, out_index, records, deadline,
                       lambda text: candidates.append((len(page.items), text)), note, numbers, passed, how)
    page = fill_items(page, _labelled(page, outputs), chars, room, 1_000_000, cursor_of)
    page.passed = _passed(passed)
    return page


@dataclass(slots=True)
class _Start:
    """How a page treats a bad record at its start: ``resumed`` (by a cursor: passed over, a page of none),
    ``pass_first`` (passed over, the page reading on: :func:`records_page`); ``leading``: how many it passed over
    so (counted as the page is filled)."""

    resumed: bool
    pass_first: bool
    leading: int = 0

    def again(self) -> _Start:
        """A fresh count, for a page filled again (with less room)."""
        return _Start(self.resumed, self.pass_first)


def _passed(passed: list[BadRecord]) -> BadRecord | list[BadRecord] | None:
    """A page's ``passed``: the bad record it passed over (the first of a run at its start, which its note names), or
    both when it also ended before one, or ``None``."""
    return None if not passed else passed[0] if len(passed) == 1 else list(passed)


_NOT_UTF8_KIND, _SURROGATE_KIND, _LEADING, _PASSED, _NUMBERS = "not utf-8", "surrogate", "leading", "passed", "numbers"
"""The kinds of :class:`_RecordNote`: the first record not UTF-8 text, the first lone surrogate escape, the bad
record a page starts by passing over (its note counts those passed over after it), another bad record passed over,
the numbers a double cannot hold (on no one record)."""


class _RecordNote(str):
    """A note of a page of records: its text, what it says as data (``kind``, one of :data:`_NOT_UTF8_KIND`,
    :data:`_SURROGATE_KIND`, :data:`_LEADING`, :data:`_PASSED`, :data:`_NUMBERS`), by which a page notes each kind
    once, and the number of the record it is on (``record``; ``None``: on no one record), by which a page keeps only
    the notes on records it shows (:func:`_noting_what_it_shows`). Both are given where the note is made, never read
    back from its words."""

    kind: str
    record: int | None

    def __new__(cls, text: str, kind: str, record: int | None = None) -> _RecordNote:
        made = super().__new__(cls, text)
        made.kind, made.record = kind, record
        return made


def _noted(note: list[str], kind: str) -> bool:
    """``note`` holds a :class:`_RecordNote` of ``kind``."""
    return any(isinstance(n, _RecordNote) and n.kind == kind for n in note)


def _noting_what_it_shows(page: ItemPage, note: list[str], key: CursorKey) -> ItemPage:
    """``page``, once the notes on records past the last one it shows are dropped from ``note`` (a record read ahead
    of it: the page's record limit or budget ended before it, or it is the bad record that ends the page), so that
    a page notes only what it shows; the next page, which shows that record, notes it."""
    if page.cursor is not None:
        number, _offset, out_index, chars = decode_cursor(page.cursor, 4, key)
        last = number if out_index or chars else number - 1  # (the cursor's record is shown when it resumes in it)
        note[:] = [n for n in note if not isinstance(n, _RecordNote) or n.record is None or n.record <= last]
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
        number, offset = _seek(source, check_int(record, "record", 1))
        return number, offset, 0, 0
    number, offset, out_index, chars = decode_cursor(cursor, 4, key)
    check_line_start(source, offset, "a record start")
    if number < 1 or (plain and out_index):
        raise BadCursor(f"cursor {cursor[:40]!r} names no record of this read: start it again without one")
    return number, offset, out_index, chars


def _seek(source: ContentSource, number: int) -> tuple[int, int]:
    """``(number, byte offset)`` of record ``number``: the lines before it after the first counted at C speed
    (:func:`~scratchfs.engine.structure.row_jump.skip_lines`), the rest read from where they end."""
    # (the first line apart: a byte order mark at the content's start is no part of its text, _blank)
    first = next(iter_lines(source, 0, MAX_RECORD_BYTES), None) if number > 1 else None
    at, seen = 0, 0
    if first is not None:
        seen = int(not _blank(first[1], 0))
        at, passed = skip_lines(source, len(first[1]), number - 1 - seen, _blank, MAX_RECORD_BYTES)
        seen += passed
    for offset, line in iter_lines(source, at, MAX_RECORD_BYTES) if seen == number - 1 or not at else ():
        if not _blank(line, offset):
            seen += 1
            if seen == number:
                return number, offset
    if number == 1 and seen == 0:
        return 1, source.size  # no records: an empty page
    raise PastLast("record", number, seen)


def _records(source: ContentSource, number: int, offset: int, note: list[str],
             ) -> Iterator[tuple[int, int, Any, int, str, bool]]:
    """``(number, byte offset, value, length in bytes, text, exact)`` of each record from ``number`` (at
    ``offset``; a UTF-8 byte order mark at the start of the content is dropped): ``exact`` is False when the value
    cannot hold one of its numbers exactly (:func:`~scratchfs.engine.structure.numbers.load_exact`; the text has
    it). A record that is not all UTF-8 (Latin-1 text) is read as every read shows text, each byte that is part of
    no UTF-8 character as U+FFFD, the first such record noted in ``note``. Raises BadRecord for a record that is not
    JSON or is nested too deeply to parse; InvalidArgument for a blank line at ``offset`` (a cursor's page starts at
    a record)."""
    for start, line in iter_lines(source, offset, MAX_RECORD_BYTES):
        if _blank(line, start):
            if start == offset:
                raise BadCursor(f"cursor points at byte {offset}, which is not a record start of this entry: "
                                "start the read again without a cursor")
            continue
        try:
            text = _record_text(line, start, number, note)
            value, inexact = load_exact(text)
        except (ValueError, RecursionError, MemoryError) as exc:  # UnicodeDecodeError too
            raise bad_record(number, start, len(line), exc) from None
        yield number, start, value, len(line), text, inexact is None
        number += 1


def bad_record(number: int, start: int, length: int, error: BaseException) -> BadRecord:
    """Record ``number`` (``length`` bytes at byte ``start``) as a records read refuses it, its parser having raised
    ``error``: not JSON (a ValueError, whose words it gives), else nested too deeply to parse."""
    where = f"record {number} (bytes {start} to {start + length - 1})"
    if isinstance(error, ValueError):
        return BadRecord(f"{where} is not JSON: {error}", number, start, length, not_json=True)
    return BadRecord(f"{where} is JSON nested too deeply to parse", number, start, length)


def _blank(line: bytes, start: int) -> bool:
    """True if ``line`` (at byte ``start``) is blank, whitespace only: no record (a byte order mark at the content's
    start is no part of its text)."""
    return not (line[len(codecs.BOM_UTF8) :] if start == 0 and line.startswith(codecs.BOM_UTF8) else line).strip()


def _record_text(line: bytes, start: int, number: int, note: list[str]) -> str:
    """Record ``number`` (``line``, at byte ``start``) as text: a byte order mark at the content's start is no part
    of it; a byte that is part of no UTF-8 character is U+FFFD, and the first record holding one is noted."""
    if start == 0 and line.startswith(codecs.BOM_UTF8):
        line, start = line[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not _noted(note, _NOT_UTF8_KIND):
            note.append(_RecordNote(f"record {number} is not UTF-8 text: its bytes that are part of no UTF-8 character "
                                    f"(the first at byte {start + exc.start:,}) are read as U+FFFD (\\ufffd), as in "
                                    "later such records", _NOT_UTF8_KIND, number))
        return line.decode("utf-8", "replace")


def _values(source: ContentSource, number: int, offset: int, as_text: Callable[[str], None], note: list[str],
            passed: list[BadRecord], how: _Start) -> Iterator[tuple[tuple[int, int], Any, bool]]:
    """The records from ``number`` (at ``offset``), a record holding a number no value holds exactly or a lone
    surrogate escape (a character no UTF-8 carries: :func:`~scratchfs.engine.structure.numbers.lone_surrogate`, the
    first one noted in ``note``) as its text (told to ``as_text`` first). A bad record after the first ends the page
    before it and is passed over (:func:`_passing_over`); the first one is raised (BadRecord), unless the page is
    ``resumed`` by a cursor (one that passed over the bad record before it: a run of bad records), whose page passes
    over it the same way, so that no cursor is left that only fails, or ``how.pass_first``: the page passes over it
    and reads on (:func:`_leading`)."""
    while True:
        try:
            for at, start, value, _length, text, exact in _records(source, number, offset, note):
                if exact:
                    yield (at, start), value, False
                else:
                    text = text.strip()
                    escape = lone_surrogate(text)
                    if escape is not None and not _noted(note, _SURROGATE_KIND):
                        note.append(_RecordNote(surrogate_note(escape, f"record {at}", False), _SURROGATE_KIND, at))
                    as_text(text)
                    yield (at, start), text, True
            return
        except BadRecord as exc:
            if exc.record == number and how.pass_first:
                after, going = _leading(source, exc, note, passed, how)
                if going:
                    number, offset = after
                    continue
                if after is not None:
                    yield after, STOP, False
                return
            if exc.record == number and not how.resumed:
                raise
            after = _passing_over(source, exc, note, passed)
            if after is not None:
                yield after, STOP, False
            return


MOST_LEADING = 10
"""Most bad records a page passes over at its start (``pass_first``); the next page passes over those after them."""


def _leading(source: ContentSource, bad: BadRecord, note: list[str], passed: list[BadRecord], how: _Start,
             ) -> tuple[tuple[int, int] | None, bool]:
    """``((number, byte offset) of the record after ``bad``, whether the page reads on there)`` for ``bad``, a bad
    record at the start of a ``pass_first`` page (or right after those it passed over): the first is noted in ``note``
    and put in ``passed``, the others counted in its note. ``(position, False)`` past :data:`MOST_LEADING` (the page
    ends there, its cursor going on), ``(None, False)`` when it is the last record. Raises ``bad`` when it is the
    page's first record and its last (nothing follows it: a cut last line). (A record the filter fails on is never
    given: the callers raise it.)"""
    try:
        after = _after(source, bad)
    except InvalidArgument:  # (a line after it too long to read: the page ends at it, the next one raises it)
        if not how.leading:
            raise bad from None
        return (bad.record, bad.offset), False
    if after is None and not how.leading and not how.resumed:
        raise bad
    how.leading += 1
    if how.leading == 1:
        passed.append(bad)
        note.append(_RecordNote(f"{bad} -- passed over: " + ("the page reads on after it" if after else
                                                              "it is the last record"), _LEADING, bad.record))
    else:
        said = f"{passed[0]} -- passed over: the page reads on after it"
        index = next(i for i, n in enumerate(note) if isinstance(n, _RecordNote) and n.kind == _LEADING)
        more = how.leading - 1
        numbers = ", ".join(str(n) for n in range(passed[0].record + 1, bad.record + 1))
        note[index] = _RecordNote(f"{said}; and {more} more bad record{'s' if more > 1 else ''} after it (record"
                                  f"{'s' if more > 1 else ''} {numbers}), passed over too" + (
                                      "" if after else ", the last of them the last record"), _LEADING,
                                  passed[0].record)
    return (after, how.leading < MOST_LEADING) if after else (None, False)


def _after(source: ContentSource, bad: BadRecord) -> tuple[int, int] | None:
    """``(number, byte offset)`` of the record after ``bad``, or ``None`` when it is the last. Raises
    InvalidArgument for a line after it longer than :data:`MAX_RECORD_BYTES`."""
    for start, line in iter_lines(source, bad.offset + bad.length, MAX_RECORD_BYTES):
        if not _blank(line, start):
            return bad.record + 1, start
    return None


def _passing_over(source: ContentSource, bad: BadRecord, note: list[str], passed: list[BadRecord],
                  ) -> tuple[int, int] | None:
    """``(number, byte offset)`` of the record after ``bad``, a bad record met after the page's first one: the page
    ends before it and its cursor goes on after it, so that the page's next call reads on rather than failing on it
    (the records before it are shown, and no read is left that only fails). ``None`` when it is the last record
    (the page is the last one). ``bad`` is noted in ``note`` (its number, bytes and what is wrong) and put in
    ``passed``. A line after it longer than :data:`MAX_RECORD_BYTES` (which the next page refuses) leaves the
    cursor at ``bad``."""
    try:
        after = _after(source, bad)
    except InvalidArgument:
        return bad.record, bad.offset
    if after is not None:
        passed.append(bad)
        note.append(_RecordNote(f"{bad} -- passed over: the page ends before it and its cursor goes on after it",
                                _PASSED, bad.record))
        return after
    passed.append(bad)
    note.append(_RecordNote(f"{bad} -- passed over: it is the last record", _PASSED, bad.record))
    return None


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
    records_read = enumerate(_records(source, number, offset, note))
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
            if escape is not None and not _noted(note, _SURROGATE_KIND):
                note.append(_RecordNote(surrogate_note(escape, f"record {at}", True), _SURROGATE_KIND, at))
        batch.append((at, start, text, length))
        size += length
        if len(batch) >= _BATCH_RECORDS or size >= _BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _outputs(program: Any, source: ContentSource, number: int, offset: int, out_index: int, records: int,
             deadline: float, as_text: Callable[[str], None], note: list[str], numbers: bool,
             passed: list[BadRecord], how: _Start) -> Iterator[tuple[tuple[int, int, int], Any, bool]]:
    """The filter's outputs from output ``out_index`` of record ``number`` (at ``offset``), an output holding a
    number no value holds exactly as its JSON text (told to ``as_text`` first); the notes go in ``note``:
    :func:`_batches`' and, with ``numbers`` (a filter that may compute), the one on the first number of the records a
    double cannot hold. A bad record after the first (or first, ``resumed`` or ``pass_first``) is passed over, as
    :func:`_values` does."""
    while True:
        try:
            yield from _run_outputs(program, source, number, offset, out_index, records, deadline, as_text, note,
                                    numbers)
            return
        except BadRecord as exc:
            if exc.record == number and how.pass_first and not isinstance(exc, _FilterFailed):
                after, going = _leading(source, exc, note, passed, how)
                if going:
                    (number, offset), out_index = after, 0
                    continue
                if after is not None:
                    yield (*after, 0), STOP, False
                return
            if exc.record == number and not how.resumed:
                raise
            after = _passing_over(source, exc, note, passed)
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
        check = numbers and not _noted(note, _NUMBERS)  # no numbers note yet
        status, detail = run_jq_checked(program, "records", ([text for _, _, text, _ in batch], check), deadline,
                                        "fewer records per page (records=) or a simpler filter")
        failed, message, done = detail if status == "error" else (None, "", detail[0])
        if status == "ok" and detail[1] is not None and check:
            note.append(_RecordNote(numbers_note(detail[1]), _NUMBERS))
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
