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

import re
from collections.abc import Callable

from scratchfs.engine.structure.paging import ItemPage, cursor_position
from scratchfs.foundation.calls import Advice, Call, add_said
from scratchfs.foundation.errors import InvalidArgument, JqFailed, NotJson

__all__ = ["CALL_FILTER_CHARS", "each_item", "failed_at", "failed_page", "read_on", "slurped_array", "stream_broken"]

_STEP = r'(?:\.[A-Za-z_][A-Za-z0-9_]*|\."(?:[^"\\]|\\.)*"|\.?\[(?:-?\d+|"(?:[^"\\]|\\.)*")\])'
"""One step of a path: ``.name``, ``."a name"``, ``[3]``, ``.["a name"]``."""
_EACH = re.compile(rf"\s*(\.|(?:{_STEP})+)\s*\.?\[\]\s*((?:{_STEP}|\[\])*)\s*(\|.*)?\Z", re.DOTALL)
"""A filter ``P[]``, then path steps ``S``, then nothing or ``| REST`` (the steps after ``[]`` bind tighter than
``|``: ``P[]S | REST`` is ``P[] | .S | REST``)."""
_EACH_FIRST = re.compile(r"\s*(?:\.\[\]|map\(|\[\s*\.\[\])")
"""A filter that starts by taking the slurped array's items (``.[]``, ``map(``, ``[.[]``)."""
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
                  record_of: Callable[[int], int] | None) -> Advice | None:
    """How to go on past jq's parse error ``exc`` in a stream of JSON documents (JSON lines, or JSON texts one after
    another) after its first outputs: jq reads nothing past it, and no ``?`` in the filter helps. With ``record_of``
    (JSON lines: the record on a line, :func:`~scratchfs.engine.structure.row_jump.record_at_line`), the records
    read from that record with the same ``filter`` (at most :data:`CALL_FILTER_CHARS`), which passes over a record
    that is not JSON, naming its bytes; else the line read there, and for JSON texts (no ``record_of``) the slurp read
    of ``.[] | (filter)``, which passes over each document that is not JSON, naming it. ``None``: ``exc`` is no such
    parse error."""
    if not isinstance(exc, NotJson) or not exc.by_jq or exc.at_end or exc.line is None:
        return None
    where = f"the content is not JSON at line {exc.line:,}, and jq reads nothing past it, whatever the filter; "
    long = len(filter) > CALL_FILTER_CHARS  # (not written again in a call)
    if record_of is None or long:
        there = Advice.of(where, "the text there: ",
                          Call.of("read_handle", handle=handle, line=max(1, exc.line - 2), lines=5))
        if long:
            return there
        return Advice.of(there, "; slurp=true reads every document, those after it too (each one not JSON passed "
                         "over, named): ",
                         Call.of("read_handle", handle=handle, jq=f".[] | ({filter})", slurp=True, budget=budget))
    record = record_of(exc.line)
    return Advice.of(where, f"read on record by record from it (record {record:,}), those that are not JSON passed "
                     "over: ", Call.of("read_handle", handle=handle, record=record, jq=filter, budget=budget))


def failed_page(page: ItemPage, handle: str, filter: str, budget: int | None, slurp: bool = False,
                record_of: Callable[[int], int] | None = None) -> ItemPage:
    """``page`` (of a jq or slurp read of ``handle`` with ``filter``), which ends before the output its filter fails
    on (``page.failure``, jq's message): its note says which output and how to go on (:func:`read_on`), its
    ``calls`` the call it names, as data; ``page`` unchanged otherwise."""
    failure = page.failure
    number = None if failure is None or page.cursor is None else cursor_position(page.cursor)
    if number is None:
        return page
    told = f"jq: {failure.reason}" if isinstance(failure, JqFailed) else str(failure)  # (its next step left out)
    broken = None if slurp else stream_broken(failure, handle, filter, budget, record_of)
    said = Advice.of(f"{told} on output {number + 1:,}: this page ends before it and next_call meets it; ",
                     broken or read_on(handle, filter, number + 1, budget, slurp))
    add_said(page.extra, said)
    return page


def failed_at(exc: InvalidArgument, handle: str, filter: str, cursor: str | None, budget: int | None,
              slurp: bool = False, record_of: Callable[[int], int] | None = None,
              stream: bool = False) -> InvalidArgument:
    """``exc`` again, or, when it is jq's failure of a step (:class:`JqFailed`) on the first output of a page after
    the first (``cursor``, the page's: it starts at that output), the failure at its output number and how to read
    on (:func:`read_on`); when it is jq's parse error of a stream of documents there, how to read past it
    (:func:`stream_broken`) -- of JSON lines (``record_of``) and of JSON texts one after another (``stream``) on any
    page, the first too (``cursor`` ``None``: no output named; a first record that is not JSON was refused as a
    document "jq reads none of", where the records read passes over it, and a filter with no output before a broken
    document in the middle of a stream, where jq read those before it and the slurp read passes over it)."""
    number = None if cursor is None else cursor_position(cursor)
    known = number is not None or record_of is not None or stream
    broken = stream_broken(exc, handle, filter, budget, record_of) if known and not slurp else None
    if broken is not None:
        column = "" if exc.column is None else f", column {exc.column:,}"
        output = "" if number is None else f", output {number + 1:,}"
        return NotJson(Advice.of(f"jq: parse error at line {exc.line:,}{column}{output}; ", broken),
                       by_jq=True, line=exc.line, column=exc.column)
    if not isinstance(exc, JqFailed) or number is None:
        return exc
    return JqFailed(Advice.of(f"jq: {exc.reason} on output {number + 1:,}; ",
                              read_on(handle, filter, number + 1, budget, slurp)), exc.reason, exc.keyed)


def slurped_array(exc: InvalidArgument, handle: str, filter: str, budget: int | None) -> InvalidArgument:
    """``exc`` again, or, when it is jq's ``Cannot index array with string`` (:class:`JqFailed` whose ``keyed`` is
    ``"array"``) on the first page of a slurp read of
    ``handle`` whose ``filter`` (at most :data:`CALL_FILTER_CHARS`) does not begin with the array's items -- a
    filter written for one record, run on the array of all of them --, that error saying so, with the call that runs
    it on each record (``.[] | FILTER``, within the reply ``budget`` the caller gave)."""
    if not isinstance(exc, JqFailed) or exc.keyed != "array" or len(filter) > CALL_FILTER_CHARS or \
            _EACH_FIRST.match(filter):
        return exc
    return JqFailed(Advice.of(
        f"jq: {exc.reason}: with slurp=true the filter's input is one array of all the records (rows); "
        "to run it on each of them: ", Call.of("read_handle", handle=handle, jq=f".[] | {filter}", slurp=True,
                                               budget=budget)), exc.reason, exc.keyed)
