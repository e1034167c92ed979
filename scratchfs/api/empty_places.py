"""What a search or count of a pattern that matches only empty strings says: ``(?=foo)``, ``\\b(?=bar)``, ``^``,
``$``, ``\\b`` alone consume no byte, so a search (which skips empty matches) shows none and a count counts none,
where ``re.finditer`` finds one at each place. Its reply said "no match in the whole content" (a lookahead the
short probe of :func:`~scratchfs.api.counting.empty_match_note` lacks the words of); it now says the pattern
matches only empty strings, at how many places of the bytes searched (the first :data:`PLACES_PROBE_BYTES` of
them looked at) and the first one's offset, and names the call that shows them: the pattern with a consuming part
(``(?=foo)[\\s\\S]``, one byte after each place, in its window).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from scratchfs.engine.patterns import MAX_REACH_BYTES, compiled_pattern
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import plural

__all__ = ["EMPTY_ONLY", "PLACES_PROBE_BYTES", "count_places_note", "empty_only", "encoded", "places_note",
           "search_places"]

PLACES_PROBE_BYTES = 1 << 20
"""Bytes from the search's start in which the places a pattern matches empty strings at are counted."""

EMPTY_ONLY = "this pattern matches only empty strings"
"""How the note starts (:func:`~scratchfs.api.counting.empty_match_note` says nothing more of such a pattern)."""

_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")  # flags that must stay at the pattern's start
_MARGIN = 4096  # bytes read on each side of the counted ones: what a lookbehind, \b or ^ looks at
_SECONDS = 0.25  # each count's time bound: a note is never worth more


def _empty_only(pattern: str | None, ignore_case: bool):
    """The compiled ``pattern`` if it matches nothing but empty strings, else ``None``. Never raises."""
    if pattern is None:
        return None
    try:
        compiled, analysis = compiled_pattern(pattern, ignore_case, MAX_REACH_BYTES)
    except InvalidArgument:
        return None
    return compiled if analysis.starts == frozenset() else None


def _consuming(pattern: str, ignore_case: bool) -> str | None:
    """``pattern`` followed by one byte of any kind (``[\\s\\S]``): a match at each of its places; ``None`` if
    that does not compile."""
    flags = _GLOBAL_FLAGS.match(pattern)
    head, body = (flags.group(), pattern[flags.end() :]) if flags else ("", pattern)
    written = head + "|".join(arm + r"[\s\S]" for arm in _arms(body))  # (each arm's: the search's prefilter
    # finds each arm's literal, where (?:(?=a)|(?=b))[\s\S] ran into the time bound at 200 KiB)
    try:
        compiled_pattern(written, ignore_case, MAX_REACH_BYTES)
    except InvalidArgument:
        return None
    return written


def _arms(pattern: str) -> list[str]:
    """``pattern`` split at each ``|`` outside groups and classes (an escaped one, ``\\|``, is none)."""
    arms, start, depth, at, inside = [], 0, 0, 0, False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 1
        elif inside:
            inside = char != "]"
        elif char == "[":
            inside, at = True, at + (2 if pattern[at + 1 : at + 2] == "^" else 1)
            at += pattern[at : at + 1] == "]"  # (a ] first in a class is one of its members)
            continue
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and not depth:
            arms, start = [*arms, pattern[start:at]], at + 1
        at += 1
    return [*arms, pattern[start:]]


def _places(reader: Any, compiled, start: int, stop: int) -> tuple[int, int | None, int] | None:
    """(places, the first one's offset, the byte counted to) of the empty matches starting in ``[start, stop)``,
    at most :data:`PLACES_PROBE_BYTES` of them looked at; ``None`` past the time bound."""
    until = min(stop, start + PLACES_PROBE_BYTES)
    lead = min(start, _MARGIN)
    data = reader.read(start - lead, until - start + lead + _MARGIN)
    try:  # (those from the start less those from the end: each place's match is its own, whatever came before;
        # subn counts in C, 0.035 s for 131,545 places of \b in 1 MiB, where finditer took 0.055 s)
        places = (compiled.subn(b"", data, pos=lead, timeout=_SECONDS)[1] -
                  compiled.subn(b"", data, pos=lead + until - start, timeout=_SECONDS)[1])
        first = compiled.search(data, lead, timeout=_SECONDS) if places else None
    except TimeoutError:
        return None
    return places, None if first is None else start - lead + first.start(), until


def _note(reader: Any, pattern: str, ignore_case: bool, start: int, stop: int, size: int,
          call: Any, what: str = "content") -> Advice | str | None:
    """The note of a search or count of ``pattern`` over bytes ``[start, stop)`` that found nothing, if the pattern
    matches only empty strings, else ``None``; ``call(pattern)``: the same search or count of another pattern;
    ``what``: what the bytes are (``"content"``, ``"text view"``)."""
    compiled = _empty_only(pattern, ignore_case)
    if compiled is None:
        return None
    counted = _places(reader, compiled, start, stop)
    lead = (f"{EMPTY_ONLY} (it consumes no byte, as a lookaround, ^, $ or \\b alone), which a search skips and a "
            "count leaves out")
    if counted is None:
        return lead
    places, first, until = counted
    where = (f"the whole {what} ({plural(size, 'byte')})" if (start, until) == (0, size) else
             f"bytes {start}-{until}" + (f" of the {what}" if what != "content" else "") +
             ("" if until == stop else " (the first MiB searched, looked at)"))
    if not places:
        return f"{lead}; it matches at no place in {where}"
    consuming = _consuming(pattern, ignore_case)
    said = f"{lead}: it matches at {plural(places, 'place')} in {where}, the first at byte {first}"
    return said if consuming is None else Advice.of(f"{said}; to see them give it a consuming part, e.g. ",
                                                    call(consuming))


def places_note(reader: Any, found: Any, start: int, stop: int, size: int, what: str = "content",
                **extra: object) -> Advice | str | None:
    """The note of ``found`` (a search's :class:`~scratchfs.api.results.Matches` settings: handle, pattern,
    ignore_case, end, budget), which found nothing in bytes ``[start, stop)`` of ``reader`` (``size`` bytes: its
    ``read(offset, length)``), if its pattern matches only empty strings (:func:`_note`), else ``None``; its call the
    same search (``extra``: its other arguments, ``before=``, ``view=``) with a consuming part. ``what``: what the
    bytes are (``"content"``, ``"text view"``). Raises what ``reader.read`` raises (NotFound, CorruptBlob)."""
    if found.pattern is None:
        return None
    return _note(reader, found.pattern, found.ignore_case, start, stop, size,
                 lambda pattern: Call.of("read_handle", handle=found.handle, pattern=pattern, offset=start or None,
                                         end=found.end, ignore_case=found.ignore_case or None, **extra,
                                         budget=found.budget), what)


def search_places(opened: Any, result: Any, offset: int, end: int | None) -> Any:
    """``result``, a search of ``opened``'s stored content from ``offset`` (to ``end``) that found nothing, with
    :func:`places_note`'s note if its pattern matches only empty strings; ``result`` as it is otherwise. Raises what
    a read of the entry raises (NotFound, CorruptBlob)."""
    if result.windows or result.next_offset is not None or result.stopped is not None or result.encoding:
        return result
    size = opened.entry.size
    note = places_note(opened.reader, replace(result, end=end), offset, size if end is None else end, size)
    return result if note is None else replace(result, note=note)


def empty_only(note: object) -> bool:
    """``note`` (a reply's, text or :class:`~scratchfs.foundation.calls.Advice`) is an empty-only pattern's. Never
    raises."""
    return str(note).startswith(EMPTY_ONLY)


def encoded(note: object, encoding: str | None) -> object:
    """``note`` with ``encoding=`` in each of its calls when it is an empty-only pattern's (:data:`EMPTY_ONLY`) and
    ``encoding`` is given (a single-byte one's search or count: its pattern sought as that encoding's bytes); any
    other note as it is. Never raises."""
    if encoding is None or not isinstance(note, Advice) or not empty_only(note):
        return note
    return Advice.of(*(part.given(encoding=encoding) if isinstance(part, Call) else part for part in note.parts))


def count_places_note(opened: Any, handle: str, pattern: str | None, ignore_case: bool, offset: int,
                      end: int | None, budget: int | None) -> Advice | str | None:
    """The note of a count of ``pattern`` from ``offset`` (to ``end``) in ``opened``'s stored content that counted
    none, if the pattern matches only empty strings (:func:`_note`), else ``None``. Raises what a read of the entry
    raises (NotFound, CorruptBlob)."""
    if pattern is None:
        return None
    size = opened.entry.size
    return _note(opened.reader, pattern, ignore_case, offset, size if end is None else end, size,
                 lambda written: Call.of("read_handle", handle=handle, pattern=written, count=True,
                                         offset=offset or None, end=end, ignore_case=ignore_case or None,
                                         budget=budget))
