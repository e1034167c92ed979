"""How a jq read goes on when its filter fails on an output after the first: jq stops at its first error, so the
page before it ends there (its ``failure``) and the page that starts at it is refused; both say which output failed
and how to go on (:func:`failed_page`, :func:`failed_at`).

A filter that runs a step on each item of an array -- ``P[] | X`` or ``P[]S`` (``P`` and ``S`` paths, ``.[] | .x.y``,
``.items[].id``) -- reads on past the failure with the call whose filter is
``[P[] | (X)?] | .[N-1:][]``: ``X`` on each item, the items it fails on passed over (``?``), from the output after
the ``N-1`` already read; its first ``N-1`` outputs are the failing filter's, so nothing is read twice or skipped
but the failures. Any other filter is told the output number and how to narrow it (a ``?`` on the failing step, or
a ``select``), in words: no call is sure to mean what it meant.
"""

from __future__ import annotations

import json
import re

from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.engine.structure.paging import ContentSource, ItemPage, cursor_position
from scratchfs.engine.structure.row_jump import (
    blank_after_line,
    broken_start,
    line_place,
    record_at_line,
    records_in_lines,
)
from scratchfs.foundation.calls import Advice, Call, add_said
from scratchfs.foundation.errors import InvalidArgument, JqFailed, NotJson

__all__ = ["AROUND_BYTES", "CALL_FILTER_CHARS", "LONG_COLUMN_BYTES", "bytes_around", "each_item", "failed_at",
           "failed_page", "first_is_object", "read_on", "records_not_array", "rows_slurped", "slurped_array",
           "stream_broken"]

_STEP = r'(?:\.[A-Za-z_][A-Za-z0-9_]*|\."(?:[^"\\]|\\.)*"|\.?\[(?:-?\d+|"(?:[^"\\]|\\.)*")\])'
"""One step of a path: ``.name``, ``."a name"``, ``[3]``, ``.["a name"]``."""
_EACH = re.compile(rf"\s*(\.|(?:{_STEP})+)\s*\.?\[\]\s*((?:{_STEP}|\[\])*)\s*(\|.*)?\Z", re.DOTALL)
"""A filter ``P[]``, then path steps ``S``, then nothing or ``| REST`` (the steps after ``[]`` bind tighter than
``|``: ``P[]S | REST`` is ``P[] | .S | REST``)."""
_EACH_FIRST = re.compile(r"\s*(?:\.\[\]|map\(|\[\s*\.\[\])")
"""A filter that starts by taking the slurped array's items (``.[]``, ``map(``, ``[.[]``)."""
_OVER_ARRAY = re.compile(r"\s*(?:\.\[\s*(?:-?\d|:)|(?:length|add|reverse|sort|unique|first|last)\s*(?:\||$)|"
                         r"(?:group_by|sort_by|unique_by|min_by|max_by)\s*\()")
"""A filter that starts with what only an array takes (``.[0]``, ``length``, ``group_by(``...): one written for the
array of all the rows, not for one row (``length`` of one is its key count)."""
CALL_FILTER_CHARS = 300
"""Longest filter a note or refusal writes again in a call (a longer one is named in words: its text stays small)."""


def each_item(filter: str) -> tuple[str, str] | None:
    """``(P, X)`` when ``filter`` runs ``X`` on each item of the array at path ``P`` (``P[] | X`` or ``P[]S``, X
    then ``.S``), else ``None`` (``X`` is never ``.``: a filter that only iterates fails on no item)."""
    found = _EACH.match(filter)
    if found is None:
        return None
    path, steps, rest = found.group(1), found.group(2), (found.group(3) or "")[1:].strip()
    head = ("." + steps if steps.startswith("[") else steps) if steps else ""
    each = f"{head} | {rest}" if head and rest else head or rest
    if not each:
        return None
    return ("." if path == "." else path), each


def read_on(handle: str, filter: str, output: int, budget: int | None, slurp: bool) -> Advice:
    """How to read on past output ``output`` (from 1), which ``filter`` fails on (a read of ``handle``, ``slurp``
    for a slurp read, with the reply ``budget`` the caller gave, ``None``: none): the call reading the outputs after
    the ``output - 1`` shown, the items the step fails on passed over (:func:`each_item`'s filters), or words."""
    found = each_item(filter) if len(filter) <= CALL_FILTER_CHARS else None
    if found is None:
        return Advice.of("jq stops at its first error, so no output of this filter follows it: put a ? after the "
                         "failing step (.x.y?) or select the values it takes (select(.x != null)), and read again "
                         "without a cursor")
    path, each = found
    on = f"[{'.[]' if path == '.' else path + '[]'} | ({each})?] | .[{output - 1}:][]"
    return Advice.of(f"read on past it, each item ({each}) fails on passed over: ",
                     Call.of("read_handle", handle=handle, jq=on, slurp=True if slurp else None, budget=budget))


def stream_broken(exc: InvalidArgument, handle: str, filter: str, budget: int | None,
                  jsonl: ContentSource | None) -> Advice | None:
    """How to go on past the parse error ``exc`` in a stream of JSON documents (JSON lines, or JSON texts one after
    another) after its first outputs: jq reads nothing past it, and no ``?`` in the filter helps. With ``jsonl``
    (JSON lines: their content), jq's error or our scan's of the first bytes (a :class:`NotJson` with its
    ``offset``), the records read from the record on that line
    (:func:`~scratchfs.engine.structure.row_jump.record_at_line`) -- or on the line before it where the broken record
    starts, when one cut inside a string or a bracket took the newline in
    (:func:`~scratchfs.engine.structure.row_jump.broken_start`, from the error's ``offset``, or from its line's
    first byte when jq was given other bytes than the content's: one not UTF-8 anywhere) -- with the same
    ``filter`` (at most :data:`CALL_FILTER_CHARS`), which passes over a record that is not JSON, naming its bytes --
    or, when that record is the last (jq met the end in it, or only blanks follow its line), that no record follows
    it; else the text there (:func:`_there`), and for JSON texts (no ``jsonl``) the slurp read of
    ``.[] | (filter)``, which passes over each document that is not JSON, naming it. ``None``: ``exc`` is no such
    parse error (a JSON text cut at the end: the caller's words stand)."""
    return _broken(exc, handle, filter, budget, jsonl)[0]


def _broken(exc: InvalidArgument, handle: str, filter: str, budget: int | None, jsonl: ContentSource | None
            ) -> tuple[Advice | None, bool]:
    """:func:`stream_broken`'s advice, and whether it says the record is the last (the read ends there)."""
    if not isinstance(exc, NotJson) or (exc.at_end and jsonl is None):
        return None, False
    if exc.by_jq:  # (column 0: the newline that ends line L - 1 ended the bad token there)
        line = None if exc.line is None else exc.line - 1 if exc.column == 0 and exc.line > 1 else exc.line
    else:  # (our scan's of the first bytes: the line of its byte, counted in them)
        line = None
        if jsonl is not None and exc.offset is not None and exc.offset < _SCANNED_BYTES:
            line = jsonl.read(0, exc.offset).count(b"\n") + 1
    if line is None:
        return None, False
    where = f"the content is not JSON at line {line:,}, and jq reads nothing past it, whatever the filter; "
    long = len(filter) > CALL_FILTER_CHARS  # (not written again in a call)
    if jsonl is None or long:
        there = Advice.of(where, "the text there: ", _there(handle, exc, line))
        if long:
            return there, False
        slurped = Call.of("read_handle", handle=handle, jq=f".[] | ({filter})", slurp=True, budget=budget)
        return Advice.of(there, "; slurp=true reads every document, those after it too (each one not JSON passed "
                         "over, named): ", slurped), False
    # (no byte: jq read no bytes of ours -- a byte not UTF-8 --, its lines are ours: one pass finds line and record)
    record, at = (None, exc.offset) if exc.offset is not None else line_place(jsonl, line)
    back, start = (0, None) if at is None else broken_start(jsonl, at)
    if back:  # (jq read a record cut inside a string or a bracket on into the lines after it)
        line -= back
        where = (f"the record on line {line:,} is not JSON (jq read it on into line {line + back:,}), and jq reads "
                 "nothing past it, whatever the filter; ")
        record = None if record is None else record - records_in_lines(jsonl, start, back)
    record = record_at_line(jsonl, line) if record is None else record
    if (exc.at_end and not back) or (start is not None and blank_after_line(jsonl, start)):
        return Advice.of(f"record {record:,} (line {line:,}), the last, is not JSON and no record follows it: the "
                         "outputs before it are all the filter gives"), True
    return Advice.of(where, f"read on record by record from it (record {record:,}), those that are not JSON passed "
                     "over: ", Call.of("read_handle", handle=handle, record=record, jq=filter, budget=budget)), False


_SCANNED_BYTES = 64 * 1024
"""Bytes from the start within which a reader's own parse error (not jq's: our scan of a document's first bytes,
4 KiB) is placed on its line by counting newlines."""
LONG_COLUMN_BYTES = 2048
"""Bytes into its line past which a parse error is shown by a byte range around it (:func:`bytes_around`), not by
its lines (a line read of a long line may end before the byte)."""
AROUND_BYTES = 200
"""Bytes a range read shows around the byte where a parser stopped (half before it)."""


def bytes_around(handle: str, offset: int) -> Call:
    """The range read of ``handle`` that shows the :data:`AROUND_BYTES` bytes around byte ``offset`` (from 0; half
    before it, none before byte 0). Never raises."""
    return Call.of("read_handle", handle=handle, offset=max(0, offset - AROUND_BYTES // 2), length=AROUND_BYTES)


def _there(handle: str, exc: NotJson, line: int) -> Call:
    """The read that shows where ``exc`` stopped, on ``line``: the bytes around its ``offset`` when it is known and
    past :data:`LONG_COLUMN_BYTES` bytes into its line (jq's ``column``), else its line and those around it."""
    if exc.offset is not None and (exc.column or 0) > LONG_COLUMN_BYTES:
        return bytes_around(handle, exc.offset)
    return Call.of("read_handle", handle=handle, line=max(1, line - 2), lines=5)


def failed_page(page: ItemPage, handle: str, filter: str, budget: int | None, slurp: bool = False,
                jsonl: ContentSource | None = None) -> ItemPage:
    """``page`` (of a jq or slurp read of ``handle`` with ``filter``), which ends before the output its filter fails
    on (``page.failure``, jq's message): its note says which output and how to go on (:func:`read_on`,
    :func:`stream_broken` of ``jsonl``, JSON lines' content), its ``calls`` the call it names, as data; when the
    failure is JSON lines' last record, that the read ends there (no cursor: nothing follows it); ``page``
    unchanged otherwise."""
    failure = page.failure
    number = None if failure is None or page.cursor is None else cursor_position(page.cursor)
    if number is None:
        return page
    told = f"jq: {failure.reason}" if isinstance(failure, JqFailed) else str(failure)  # (its next step left out)
    broken, last = (None, False) if slurp else _broken(failure, handle, filter, budget, jsonl)
    if last and page.part is None:  # (a next_call would only meet the refusal of the last record)
        page.cursor = None
        said = Advice.of(f"{told} on output {number + 1:,}: this page ends before it, and so does the read; ", broken)
    else:
        said = Advice.of(f"{told} on output {number + 1:,}: this page ends before it and next_call meets it; ",
                         broken or read_on(handle, filter, number + 1, budget, slurp))
    add_said(page.extra, said)
    return page


def failed_at(exc: InvalidArgument, handle: str, filter: str, cursor: str | None, budget: int | None,
              slurp: bool = False, jsonl: ContentSource | None = None, stream: bool = False) -> InvalidArgument:
    """``exc`` again, or, when it is jq's failure of a step (:class:`JqFailed`) on the first output of a page after
    the first (``cursor``, the page's: it starts at that output), the failure at its output number and how to read
    on (:func:`read_on`); when it is jq's parse error of a stream of documents there, how to read past it
    (:func:`stream_broken`) -- of JSON lines (``jsonl``, their content) and of JSON texts one after another
    (``stream``) on any page, the first too (``cursor`` ``None``: no output named; a first record that is not JSON,
    whether jq's parser or our scan of the first bytes stopped there, was refused as a document "jq reads none of",
    where the records read passes over it; and a filter with no output before a broken document in the middle of a
    stream, where jq read those before it and the slurp read passes over it)."""
    number = None if cursor is None else cursor_position(cursor)
    known = number is not None or jsonl is not None or stream
    broken = stream_broken(exc, handle, filter, budget, jsonl) if known and not slurp else None
    if broken is not None:
        assert isinstance(exc, NotJson)
        column = "" if exc.column is None else f", column {exc.column:,}"
        output = "" if number is None else f", output {number + 1:,}"
        said = f"jq: parse error at line {exc.line:,}{column}{output}; " if exc.by_jq else f"{exc}{output}; "
        return NotJson(Advice.of(said, broken), by_jq=exc.by_jq, line=exc.line, column=exc.column,
                       offset=exc.offset)
    if not isinstance(exc, JqFailed) or number is None:
        return exc
    return JqFailed(Advice.of(f"jq: {exc.reason} on output {number + 1:,}; ",
                              read_on(handle, filter, number + 1, budget, slurp)), exc.reason, exc.keyed)


def rows_slurped(handle: str, filter: str, budget: int | None, cells: bool = False) -> Advice:
    """The slurp read of a table ``handle`` (CSV/TSV, aligned by spaces or drawn with pipes) that does what jq
    ``filter``, given without slurp=true (which a table's rows refuse), means: ``filter`` as it is when it begins with
    the array's items or with what only an array takes (``.[]``, ``map(``, ``length``, ``group_by(``), every row
    (``.[]``) for ``.``, else ``.[] | FILTER``, the filter on each row; within the reply ``budget`` the caller gave
    (``None``: none); a call past :data:`~scratchfs.foundation.limits.LONG_CALL_BYTES` named in words (a face writes it
    whole); with ``cells`` (a table whose stub found no header line), that each row is then an array of its cells,
    indexed by number (a filter naming columns, ``.size``, fails on every row)."""
    text = filter.strip()
    if _EACH_FIRST.match(text) or _OVER_ARRAY.match(text):
        each, said, shown = text, "your filter over that array", "the same call with slurp=true"
    elif text == ".":
        each, said, shown = ".[]", "every row", 'the same call with jq=".[]" and slurp=true'
    else:
        each, said, shown = f".[] | {text}", "your filter on each row", (
            'the same call with ".[] | " before your filter, and slurp=true')
    if cells and _KEY_STEP.search(text):  # (a call naming columns by name: it fails on every row)
        return Advice.of("with slurp=true, jq reads all its rows at once (. is the array of them); but ", _CELLS,
                         ": write your filter so, with slurp=true")
    call = Call.of("read_handle", handle=handle, jq=each, slurp=True, budget=budget)
    return Advice.of(f"with slurp=true, jq reads all its rows at once (. is the array of them); {said}: ",
                     call.shown_when_long(shown), *(("; " + _CELLS,) if cells else ()))


_KEY_STEP = re.compile(r'(?<![\w\])"])\.(?:[A-Za-z_]|")')
"""A step by key in a jq filter (``.size``, ``."a b"``), not a number's point, a field access after a value or
``.[1]``."""


_CELLS = ("this table has no header line, so each of its rows is an array of its cells, not an object: index a row's "
          "cells by number from 0, as its columns are numbered (.[1], not .name: max_by(.[1]), "
          '.[] | select(.[0] == "x"))')
"""What a jq read of the rows of a table with no header line is told of them."""


def slurped_array(exc: InvalidArgument, handle: str, filter: str, budget: int | None,
                  cells: bool = False) -> InvalidArgument:
    """``exc`` again, or, when it is jq's ``Cannot index array with string`` (:class:`JqFailed` whose ``keyed`` is
    ``"array"``) on the first page of a slurp read of ``handle``: with ``cells`` (its rows are arrays: a table whose
    stub found no header line), that error saying a row is an array of its cells, indexed by number (``.[1]``, not
    ``.size``), whatever the filter; else, when ``filter`` (at most :data:`CALL_FILTER_CHARS`) begins with neither
    the array's items nor what only an array takes (``.[]``, ``map(``, ``max_by(``, ``length``) -- a filter written
    for one record, run on the array of all of them --, that error saying so, with the call that runs it on each
    record (``.[] | FILTER``, within the reply ``budget`` the caller gave). A filter written for the array
    (``max_by(.size)``) is never told to run on each row: there it fails again."""
    if not isinstance(exc, JqFailed) or exc.keyed != "array":
        return exc
    if cells:
        return JqFailed(f"jq: {exc.reason}: {_CELLS}", exc.reason, exc.keyed)
    text = filter.strip()
    if len(filter) > CALL_FILTER_CHARS or _EACH_FIRST.match(text) or _OVER_ARRAY.match(text):
        return exc
    return JqFailed(Advice.of(
        f"jq: {exc.reason}: with slurp=true the filter's input is one array of all the records (rows); "
        "to run it on each of them: ", Call.of("read_handle", handle=handle, jq=f".[] | {filter}", slurp=True,
                                               budget=budget)), exc.reason, exc.keyed)


def first_is_object(source: ContentSource) -> bool:
    """Whether the first line of ``source`` (JSON lines), read within its first 64 KiB, is a JSON object. Never
    raises but what ``source.read`` raises."""
    head = source.read(0, _SCANNED_BYTES)
    try:
        return isinstance(json.loads(head.split(b"\n", 1)[0], cls=LongIntegers), dict)
    except ValueError:  # (not JSON, not UTF-8, or cut by the 64 KiB)
        return False


def records_not_array(exc: InvalidArgument, handle: str, filter: str, budget: int | None,
                      objects: bool) -> InvalidArgument:
    """``exc`` again, or, when it is jq's failure of a step (:class:`JqFailed`) on the first page of a jq read
    (no slurp) of JSON lines whose records are objects (``objects``) with a ``filter`` (at most
    :data:`CALL_FILTER_CHARS`) written for the array of all the records -- one that begins with its items or with
    what only an array takes (``.[] | select(.status >= 500)``, ``map(``, ``group_by(``) --, that error saying jq
    runs the filter on each record, with the call that runs it once over the array of them (``slurp=true``) and,
    for ``.[] | X``, the call that runs ``X`` on each record. jq's own advice (a ``?`` or a ``select`` on the
    failing step) is no use there: the step fails on every record."""
    text = filter.strip()
    if not isinstance(exc, JqFailed) or not objects or len(filter) > CALL_FILTER_CHARS or not (
            _EACH_FIRST.match(text) or _OVER_ARRAY.match(text)):
        return exc
    found = each_item(text)
    each = None if found is None or found[0] != "." else Call.of("read_handle", handle=handle, jq=found[1],
                                                                 budget=budget)
    return JqFailed(Advice.of(
        f"jq: {exc.reason}: jq runs the filter on each record of these JSON lines (an object), not on an array of "
        "them; ", *(("on each record: ", each, "; ") if each is not None else ()),
        "once over the array of all the records: ", Call.of("read_handle", handle=handle, jq=filter, slurp=True,
                                                            budget=budget)), exc.reason, exc.keyed)
