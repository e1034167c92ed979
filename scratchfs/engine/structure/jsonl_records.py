"""The records of a JSON-lines content as a page reads them (:mod:`scratchfs.engine.structure.jsonl` pages them and
runs jq over them): where record N starts, each record from a byte offset parsed, the notes a page makes on them,
and the bad records -- not JSON, nested too deeply -- a page passes over rather than failing on them.

A record is a line that is not blank (whitespace only; a UTF-8 byte order mark at the content's start is no part of
its text), numbered from 1 in content order, parsed with the standard ``json`` module (C speed), a number a double
cannot hold kept as the record's text (:func:`~scratchfs.engine.structure.numbers.load_exact`). A record is at most
:data:`MAX_RECORD_BYTES`; the lines before record N are counted at C speed
(:func:`~scratchfs.engine.structure.row_jump.skip_lines`).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.structure.numbers import load_exact, lone_surrogate, surrogate_note
from scratchfs.engine.structure.paging import STOP, ContentSource, iter_lines
from scratchfs.engine.structure.row_jump import skip_lines
from scratchfs.foundation.errors import BadCursor, BadRecord, InvalidArgument, PastLast

__all__ = ["MAX_RECORD_BYTES", "MOST_LEADING", "NUMBERS_KIND", "SURROGATE_KIND", "PageStart", "RecordNote",
           "bad_record", "iter_records", "iter_values", "noted", "page_passed", "pass_leading", "pass_over",
           "seek_record"]

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Longest record (bytes) a read holds in memory; a longer line is refused with InvalidArgument."""


@dataclass(slots=True)
class PageStart:
    """How a page treats a bad record at its start: ``resumed`` (by a cursor: passed over, a page of none),
    ``pass_first`` (passed over, the page reading on: :func:`~scratchfs.engine.structure.jsonl.records_page`);
    ``leading``: how many it passed over
    so (counted as the page is filled)."""

    resumed: bool
    pass_first: bool
    leading: int = 0

    def again(self) -> PageStart:
        """A fresh count, for a page filled again (with less room)."""
        return PageStart(self.resumed, self.pass_first)


def page_passed(passed: list[BadRecord]) -> BadRecord | list[BadRecord] | None:
    """A page's ``passed``: the bad record it passed over (the first of a run at its start, which its note names), or
    both when it also ended before one, or ``None``."""
    return None if not passed else passed[0] if len(passed) == 1 else list(passed)


_NOT_UTF8_KIND, SURROGATE_KIND, _LEADING, _PASSED = "not utf-8", "surrogate", "leading", "passed"
NUMBERS_KIND = "numbers"
"""The kinds of :class:`RecordNote`: the first record not UTF-8 text, the first lone surrogate escape, the bad
record a page starts by passing over (its note counts those passed over after it), another bad record passed over,
the numbers a double cannot hold (on no one record)."""


class RecordNote(str):
    """A note of a page of records: its text, what it says as data (``kind``, one of :data:`_NOT_UTF8_KIND`,
    :data:`SURROGATE_KIND`, :data:`_LEADING`, :data:`_PASSED`, :data:`NUMBERS_KIND`), by which a page notes each kind
    once, and the number of the record it is on (``record``; ``None``: on no one record), by which a page keeps only
    the notes on records it shows (:mod:`scratchfs.engine.structure.jsonl`). Both are given where the note is made,
    never read back from its words."""

    kind: str
    record: int | None

    def __new__(cls, text: str, kind: str, record: int | None = None) -> RecordNote:
        made = super().__new__(cls, text)
        made.kind, made.record = kind, record
        return made


def noted(note: list[str], kind: str) -> bool:
    """``note`` holds a :class:`RecordNote` of ``kind``."""
    return any(isinstance(n, RecordNote) and n.kind == kind for n in note)


def seek_record(source: ContentSource, number: int) -> tuple[int, int]:
    """``(number, byte offset)`` of record ``number``: the lines before it after the first counted at C speed
    (:func:`~scratchfs.engine.structure.row_jump.skip_lines`), the rest read from where they end. Raises PastLast
    past the last record, InvalidArgument for a line longer than :data:`MAX_RECORD_BYTES`."""
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


def iter_records(source: ContentSource, number: int, offset: int, note: list[str],
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
        if not noted(note, _NOT_UTF8_KIND):
            note.append(RecordNote(f"record {number} is not UTF-8 text: its bytes that are part of no UTF-8 character "
                                    f"(the first at byte {start + exc.start:,}) are read as U+FFFD (\\ufffd), as in "
                                    "later such records", _NOT_UTF8_KIND, number))
        return line.decode("utf-8", "replace")


def iter_values(source: ContentSource, number: int, offset: int, as_text: Callable[[str], None], note: list[str],
            passed: list[BadRecord], how: PageStart) -> Iterator[tuple[tuple[int, int], Any, bool]]:
    """The records from ``number`` (at ``offset``), a record holding a number no value holds exactly or a lone
    surrogate escape (a character no UTF-8 carries: :func:`~scratchfs.engine.structure.numbers.lone_surrogate`, the
    first one noted in ``note``) as its text (told to ``as_text`` first). A bad record after the first ends the page
    before it and is passed over (:func:`pass_over`); the first one is raised (BadRecord), unless the page is
    ``resumed`` by a cursor (one that passed over the bad record before it: a run of bad records), whose page passes
    over it the same way, so that no cursor is left that only fails, or ``how.pass_first``: the page passes over it
    and reads on (:func:`pass_leading`)."""
    while True:
        try:
            for at, start, value, _length, text, exact in iter_records(source, number, offset, note):
                if exact:
                    yield (at, start), value, False
                else:
                    text = text.strip()
                    escape = lone_surrogate(text)
                    if escape is not None and not noted(note, SURROGATE_KIND):
                        note.append(RecordNote(surrogate_note(escape, f"record {at}", False), SURROGATE_KIND, at))
                    as_text(text)
                    yield (at, start), text, True
            return
        except BadRecord as exc:
            if exc.record == number and how.pass_first:
                after, going = pass_leading(source, exc, note, passed, how)
                if going:
                    number, offset = after
                    continue
                if after is not None:
                    yield after, STOP, False
                return
            if exc.record == number and not how.resumed:
                raise
            after = pass_over(source, exc, note, passed)
            if after is not None:
                yield after, STOP, False
            return


MOST_LEADING = 10
"""Most bad records a page passes over at its start (``pass_first``); the next page passes over those after them."""


def pass_leading(source: ContentSource, bad: BadRecord, note: list[str], passed: list[BadRecord], how: PageStart,
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
        note.append(RecordNote(f"{bad} -- passed over: " + ("the page reads on after it" if after else
                                                              "it is the last record"), _LEADING, bad.record))
    else:
        said = f"{passed[0]} -- passed over: the page reads on after it"
        index = next(i for i, n in enumerate(note) if isinstance(n, RecordNote) and n.kind == _LEADING)
        more = how.leading - 1
        numbers = ", ".join(str(n) for n in range(passed[0].record + 1, bad.record + 1))
        note[index] = RecordNote(f"{said}; and {more} more bad record{'s' if more > 1 else ''} after it (record"
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


def pass_over(source: ContentSource, bad: BadRecord, note: list[str], passed: list[BadRecord],
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
        note.append(RecordNote(f"{bad} -- passed over: the page ends before it and its cursor goes on after it",
                                _PASSED, bad.record))
        return after
    passed.append(bad)
    note.append(RecordNote(f"{bad} -- passed over: it is the last record", _PASSED, bad.record))
    return None
