"""JSON texts one after another (documents, as ``jq -s`` reads them), walked past a document that does not parse.

A document that does not parse is not taken for the content's end: the walk looks for the next document and goes on
from there. A *next document* is an object or an array (the stub tells a stream of JSON texts by them) starting past
the point where the parser stopped, or before it (text that parsed: the next document taken as a value cut short)
right after a ``}`` or ``]`` or on a line of its own after a ``:``; it must parse, and be followed by the content's
end or another ``{`` or ``[`` (a value inside the broken document is followed by ``,``, ``:``, ``}`` or ``]``: passed
over). A cut document that reads the next as its own value on the same line (``{"n": `` then ``{"n": 2}``), or as
an array's item (a cut ``[`` or ``,``, then the next on its line: an indented array's items look just so), takes it
into the bad document's bytes, as jq would. A ``{`` or ``[`` right after a ``}`` or ``]`` (blanks between) that
does not parse starts the next bad document (no value follows a closing bracket in JSON); another that does not
parse is taken as part of the bad one, and so is what parsed of it (a later broken array's items are its own).
The bytes from the bad document's start to the next document's (blanks at its end left out) are one bad document,
named with its number, byte range and the parser's message; with no next document it runs to the content's end (a
last document cut short, the common case: an output cut at its size limit).

Cost: each candidate start is parsed once (a failing one stops where it fails, an inner value at its own end), at
most :data:`WORK_PER_CHAR` characters parsed per character after a bad document; past them it runs to the content's
end (named so).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.foundation.errors import BadRecord

__all__ = ["MOST_BAD", "WORK_PER_CHAR", "next_document", "walk_documents"]

MOST_BAD = 1_000
"""Most documents not JSON a walk passes over one by one; past them the rest of the text is one (named so)."""
WORK_PER_CHAR = 8
"""Most characters parsed in trying candidate starts after one bad document, per character after it (plus
:data:`_WORK_FLOOR`): a document cut short is tried inner value by inner value, each parsed to its own end, about its
size times its depth in all; text of brackets nested past the parser's depth (``[1,[1,...``) fails at every one."""
_WORK_FLOOR = 64 * 1024
_TRY_WORK = 32
"""Characters counted for each candidate tried, whatever it parses (bounds the tries: a run of '{')."""
_DEEP_WORK = 4096
"""Characters counted for a candidate nested too deeply to parse (the parser stops past its depth, about 1,000)."""
_BLANKS = re.compile(r"[ \t\r\n]*")
_OPENING = re.compile(r"[{\[]")
"""Where a next document may start: streams of JSON texts are of objects and arrays."""


def walk_documents(text: str, base: int = 0) -> Iterator[tuple[int, int, BadRecord | None]]:
    """The documents of ``text`` in order, each ``(start, end, bad)``: its character range, and ``None`` when it
    parses, else the :class:`BadRecord` naming it (``record``: its number from 1, counting every document;
    ``offset``, ``length``: its bytes in the content, ``base`` bytes before ``text``; ``not_json``: True).

    A bad document ends where the next document that parses starts (the module docstring says how it is found),
    blanks before it left out, or at ``text``'s end; past :data:`MOST_BAD` bad documents, the rest of ``text`` is
    one more."""
    decoder, pos, at, number, bad = LongIntegers(), 0, base, 0, 0
    while (start := _BLANKS.match(text, pos).end()) < len(text):
        at += _bytes(text, pos, start)
        number += 1
        try:
            if bad >= MOST_BAD:
                raise _Stop(f"{MOST_BAD:,} documents before it are not JSON: the rest is read as one", start)
            end = _parse(decoder, text, start, window=False)
        except (_Stop, RecursionError) as exc:
            bad += 1
            stopped = exc.pos if isinstance(exc, _Stop) else start
            end = len(text) if bad > MOST_BAD else next_document(text, start, stopped, decoder)
            while end > start and text[end - 1] in " \t\r\n":
                end -= 1
            length = _bytes(text, start, end)
            reason = (f"{exc.msg} at byte {at + _bytes(text, start, stopped):,}" if isinstance(exc, _Stop)
                      else "nested too deeply to parse")
            yield start, end, BadRecord(f"document {number:,} (bytes {at} to {at + length - 1}) is not JSON: "
                                        f"{reason}", number, at, length, not_json=True)
        else:
            yield start, end, None
        at += _bytes(text, start, end)
        pos = end


class _Stop(ValueError):
    """Where and why a parse stopped (``pos``: in the whole text; ``msg``: the parser's words)."""

    def __init__(self, msg: str, pos: int) -> None:
        super().__init__(msg)
        self.msg, self.pos = msg, pos


_WINDOW = 4096
"""Characters a parse is first tried on: the parser's error counts the lines before where it stopped, from the
text's start (a cost of the whole text per failure, before)."""


def _parse(decoder: json.JSONDecoder, text: str, at: int, window: bool = True) -> int:
    """Where the JSON value at ``at`` ends; raises _Stop (where and why it does not parse) or RecursionError. With
    ``window``, tried on :data:`_WINDOW` characters first, so that a failure costs those, not the text before ``at``
    (a walk's own documents, once each, are parsed in place: no copy)."""
    if not window:
        try:
            return decoder.raw_decode(text, at)[1]
        except ValueError as exc:
            raise _stop(exc, at, 0) from None
    part = text[at : at + _WINDOW]
    try:
        return at + decoder.raw_decode(part)[1]
    except ValueError as exc:
        stop = _stop(exc, at, at)
        if len(part) < _WINDOW or stop.pos < at + len(part) - 1:  # (a value longer than the window: the whole text)
            raise stop from None
    try:
        return decoder.raw_decode(text, at)[1]
    except ValueError as exc:
        raise _stop(exc, at, 0) from None


def _stop(exc: ValueError, at: int, base: int) -> _Stop:
    """The _Stop of a parse of the value at ``at`` that raised ``exc``: the parser's words and place (``base``
    characters before the text it parsed); a ValueError of a decoder's hook -- ``parse_constant`` refusing a NaN
    (:func:`~scratchfs.engine.structure.numbers.refuse_constant`) -- names no place: the value's start, ``at``."""
    if isinstance(exc, json.JSONDecodeError):
        return _Stop(exc.msg, base + exc.pos)
    return _Stop(str(exc), at)


def _bytes(text: str, start: int, end: int) -> int:
    """UTF-8 bytes of ``text[start:end]`` (a lone surrogate counted as its three bytes)."""
    return len(text[start:end].encode("utf-8", "surrogatepass"))


def next_document(text: str, start: int, stopped: int, decoder: json.JSONDecoder) -> int:
    """Where the next document after the bad one at ``start`` begins (the parser stopped at ``stopped``), or
    ``len(text)``: the first ``{`` or ``[`` past ``start`` that parses and is followed by the end or another ``{`` or
    ``[``, or that follows a ``}`` or ``]`` (no value does in JSON: a next document broken too); before ``stopped``
    (text that parsed: a value cut short, say), or where a candidate that failed stopped, only one where a document
    may start (:func:`_may_start`)."""
    work, most = 0, WORK_PER_CHAR * (len(text) - start) + _WORK_FLOOR
    for found in _OPENING.finditer(text, start + 1):
        at = found.start()
        if at < stopped and not _may_start(text, at):
            continue
        work += _TRY_WORK
        if work > most:
            break
        try:
            end = _parse(decoder, text, at)
        except (_Stop, RecursionError) as exc:
            if _after_close(text, at):  # (no value follows a '}' or ']' in JSON: the next document, broken too)
                return at
            work += exc.pos - at + 1 if isinstance(exc, _Stop) else _DEEP_WORK
            stopped = max(stopped, getattr(exc, "pos", at))  # (what parsed of it holds no document either: a cut
            continue  # array's items on lines of their own are its own)
        work += end - at
        after = _BLANKS.match(text, end).end()
        if after >= len(text) or text[after] in "{[":
            return at
    return len(text)


def _after_close(text: str, at: int) -> bool:
    """Whether the last character before ``at`` but blanks is a ``}`` or ``]``."""
    return _before(text, at)[0] in ("}", "]")


def _may_start(text: str, at: int) -> bool:
    """Whether a document may start at ``at``, in text that parsed as part of the document before: right after a
    ``}`` or ``]`` (no value follows one in JSON), or on a line of its own after a ``:`` (a value cut short took it:
    a nested value starts on its key's line, as ``jq .`` and ``json.dumps`` write it). An item of an array on a line
    of its own is the array's, not a document: a cut ``jq .`` of an array ends with such items."""
    last, line = _before(text, at)
    return last in ("}", "]") or (line and last == ":")


def _before(text: str, at: int) -> tuple[str, bool]:
    """``(the last character before at but blanks -- "" at the text's start --, whether a newline is among those
    blanks)``."""
    j, line = at - 1, False
    while j >= 0 and text[j] in " \t\r\n":
        line = line or text[j] == "\n"
        j -= 1
    return (text[j] if j >= 0 else ""), line
