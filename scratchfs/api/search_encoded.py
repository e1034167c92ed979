"""A search or count of text in a single-byte or UTF-16 encoding (``encoding=``, :mod:`scratchfs.api.encodings`) as
the call gave it: its reply's ``match``, ``pattern`` and note (:func:`as_given`), and a refusal's calls
(:func:`refused_as_given`) say the text as the call wrote it, not as the scope sought it over the stored bytes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace

from scratchfs.api.empty_places import encoded
from scratchfs.api.encodings import WIDE, encode_needle
from scratchfs.api.miss_hints import unhinted
from scratchfs.api.results import Matches
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument, PatternTimeout, PatternTooLong

_Resumable = (PatternTimeout, PatternTooLong)
_AS_GIVEN = (InvalidArgument, *_Resumable)
"""The refusals whose calls are said as the call gave them: a plain one (an offset past the end) and a stopped
search's way on (:func:`~scratchfs.api.search_calls.on_past`)."""


def as_given(found: Matches, match: str | bytes | None, pattern: str | None) -> Matches:
    """A search of text in a single-byte encoding (``found.encoding``: its ``match`` and ``pattern`` sought as
    :func:`~scratchfs.api.encodings.search_form` writes them over the stored bytes) as the call gave it: ``match``
    that encoding's bytes, ``pattern`` the call's, which its next_call repeats; and no note that the stored bytes
    are not UTF-8 (:func:`~scratchfs.api.search_misses.single_byte_note`): they were sought as they are; nor the
    spelling a miss's note names (:func:`~scratchfs.api.miss_hints.unhinted`: its call seeks the rewritten
    needle). A search without an encoding is returned as it is. UTF-16's keeps the matches at even offsets alone
    (one at an odd offset is the halves of two characters); windows left with no match are dropped. Returns a new
    :class:`~scratchfs.api.results.Matches` (``found`` is not changed). Raises InvalidArgument for a ``match``
    character the encoding has no byte for (:func:`~scratchfs.api.encodings.encode_needle`) -- a search with it
    was refused before it ran, so after one it never raises."""
    if found.encoding is None:
        return found
    if found.encoding in WIDE:
        kept = (replace(window, matches=hits, match_offset=hits[0].offset) for window in found.windows
                if (hits := tuple(hit for hit in window.matches if hit.offset % 2 == 0)))
        found = replace(found, windows=tuple(kept))
    return replace(found, match=None if match is None else encode_needle(match, found.encoding), pattern=pattern,
                   note=encoded(unhinted(found.note), found.encoding))  # (an empty-only pattern's: its call too)


@contextlib.contextmanager
def refused_as_given(match: str | bytes | None, pattern: str | None, encoding: str | None) -> Iterator[None]:
    """Runs a search or count of text in a single-byte ``encoding`` (``None``: UTF-8, nothing done); a refusal it
    raises (a plain InvalidArgument: an offset or ``before=`` past the end; a PatternTimeout's or PatternTooLong's
    way on past its trouble, raised again as such from the same offsets) names its calls as the scope sought the
    text (``match`` as the encoding's bytes, shown as UTF-8 with U+FFFD; a ``pattern``, or an ``ignore_case`` match,
    as a pattern over the bytes, ``\\xe9``): it is raised again with them as the call gave them, ``encoding=``
    repeated."""
    try:
        yield
    except InvalidArgument as exc:
        if encoding is None or (match is None and pattern is None) or type(exc) not in _AS_GIVEN or \
                exc.advice is None:  # (no search: a line read's refusal names its calls as they are)
            raise
        given = {"match": match} if match is not None else {"pattern": pattern}

        def as_given(call: Call) -> Call:
            sought = [name for name, _ in call.arguments if name in ("match", "pattern")]
            if call.verb != "read_handle" or not sought:
                return call
            arguments = [(name, value) for name, value in call.arguments if name != sought[0]]
            return Call.of(call.verb, **{**dict(arguments[:1]), **given, **dict(arguments[1:]), "encoding": encoding})

        advice = Advice.of(*(as_given(part) if isinstance(part, Call) else part for part in exc.advice.parts))
        if isinstance(exc, _Resumable):  # (a time limit's or reach bound's way on: from the same offsets)
            raise type(exc)(advice, exc.resume_offset, exc.skip_offset) from None
        raise InvalidArgument(advice) from None


__all__ = ["as_given", "refused_as_given"]
