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
most :data:`MAX_TRIES` per bad document; past them the bad document runs to the content's end (named so).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from scratchfs.foundation.errors import BadRecord

__all__ = ["MAX_TRIES", "next_document", "walk_documents"]

MAX_TRIES = 20_000
"""Most candidate starts of a next document tried after one bad document."""
_BLANKS = re.compile(r"[ \t\r\n]*")
_OPENING = re.compile(r"[{\[]")
"""Where a next document may start: streams of JSON texts are of objects and arrays."""


def walk_documents(text: str, base: int = 0) -> Iterator[tuple[int, int, BadRecord | None]]:
    """The documents of ``text`` in order, each ``(start, end, bad)``: its character range, and ``None`` when it
    parses, else the :class:`BadRecord` naming it (``record``: its number from 1, counting every document;
    ``offset``, ``length``: its bytes in the content, ``base`` bytes before ``text``; ``not_json``: True).

    A bad document ends where the next document that parses starts (the module docstring says how it is found),
    blanks before it left out, or at ``text``'s end."""
    decoder, pos, at, number = json.JSONDecoder(), 0, base, 0
    while True:
        start = _BLANKS.match(text, pos).end()
        if start >= len(text):
            return
        at += _bytes(text, pos, start)
        number += 1
        try:
            end = decoder.raw_decode(text, start)[1]
        except (ValueError, RecursionError) as exc:
            found = next_document(text, start, getattr(exc, "pos", start), decoder)
            end = found
            while end > start and text[end - 1] in " \t\r\n":
                end -= 1
            length = _bytes(text, start, end)
            reason = (f"{exc.msg} at byte {at + _bytes(text, start, exc.pos):,}" if isinstance(
                exc, json.JSONDecodeError) else str(exc)[:200] or "nested too deeply to parse")
            yield start, end, BadRecord(f"document {number:,} (bytes {at} to {at + length - 1}) is not JSON: "
                                        f"{reason}", number, at, length, not_json=True)
        else:
            yield start, end, None
        at += _bytes(text, start, end)
        pos = end


def _bytes(text: str, start: int, end: int) -> int:
    """UTF-8 bytes of ``text[start:end]`` (a lone surrogate counted as its three bytes)."""
    return len(text[start:end].encode("utf-8", "surrogatepass"))


def next_document(text: str, start: int, stopped: int, decoder: json.JSONDecoder) -> int:
    """Where the next document after the bad one at ``start`` begins (the parser stopped at ``stopped``), or
    ``len(text)``: the first ``{`` or ``[`` past ``start`` that parses and is followed by the end or another ``{`` or
    ``[``, or that follows a ``}`` or ``]`` (no value does in JSON: a next document broken too); before ``stopped``
    (text that parsed: a value cut short, say), or where a candidate that failed stopped, only one where a document
    may start (:func:`_may_start`)."""
    tries = 0
    for found in _OPENING.finditer(text, start + 1):
        at = found.start()
        if at < stopped and not _may_start(text, at):
            continue
        tries += 1
        if tries > MAX_TRIES:
            break
        try:
            end = decoder.raw_decode(text, at)[1]
        except (ValueError, RecursionError) as exc:
            if _after_close(text, at):  # (no value follows a '}' or ']' in JSON: the next document, broken too)
                return at
            stopped = max(stopped, getattr(exc, "pos", at))  # (what parsed of it holds no document either: a cut
            continue  # array's items on lines of their own are its own)
        after = _BLANKS.match(text, end).end()
        if after >= len(text) or text[after] in "{[":
            return at
    return len(text)


def _after_close(text: str, at: int) -> bool:
    """Whether the last character before ``at`` but blanks is a ``}`` or ``]``."""
    j = at - 1
    while j >= 0 and text[j] in " \t\r\n":
        j -= 1
    return j >= 0 and text[j] in "}]"


def _may_start(text: str, at: int) -> bool:
    """Whether a document may start at ``at``, in text that parsed as part of the document before: right after a
    ``}`` or ``]`` (no value follows one in JSON), or on a line of its own after a ``:`` (a value cut short took it:
    a nested value starts on its key's line, as ``jq .`` and ``json.dumps`` write it). An item of an array on a line
    of its own is the array's, not a document: a cut ``jq .`` of an array ends with such items."""
    j, line = at - 1, False
    while j >= 0 and text[j] in " \t\r\n":
        line = line or text[j] == "\n"
        j -= 1
    return j >= 0 and (text[j] in "}]" or (line and text[j] == ":"))
