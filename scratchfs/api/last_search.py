"""A search from the end (``before=``): the last matches of a substring or a pattern, "the last error in this log",
without paging forward through every match before it. :meth:`Scope.search` checks the search's other arguments and
calls :func:`last_search`; the engine is :mod:`scratchfs.engine.last_matches`.

Why ``before`` (a byte offset) and not ``last=true`` or a negative ``max_matches``: a search from the end must also
say where its next call ends, as a forward search's ``offset`` says where the next one starts; one argument that is
that end does both -- ``before=<size>`` (the stub's ``size``) asks for the last matches, and ``next_call`` repeats
the call with ``before=`` the first match shown. ``offset`` keeps its meaning (where the forward sequence starts) and
``max_matches`` its range.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api.bounds import bounded_miss, check_search_end
from scratchfs.api.counting import COUNT_SHARE
from scratchfs.api.empty_places import places_note
from scratchfs.api.entries import reading
from scratchfs.api.results import Matches
from scratchfs.api.search_calls import same_search
from scratchfs.api.search_misses import whole_miss_note
from scratchfs.engine.last_matches import last_matches
from scratchfs.engine.search import Matcher, Sink
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import plural

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["last_search"]


def last_search(scope: Scope, found: Matches, matcher: Matcher, offset: int, before: object,
                shape: tuple[int, type[Sink], int]) -> Matches:
    """The last matches of ``matcher`` starting at or after ``offset`` and before byte ``before``: exactly the tail
    of the matches a forward search from ``offset`` finds before ``before`` (at most ``found.max_matches``, fewer
    when their windows pass ``cap``), in file order, with the usual windows. ``found`` is the empty result carrying
    the search's settings (handle, needle, pattern, ignore_case, context, max_matches, view, ``end``: where the
    content searched ends, matches wholly before it); ``shape`` is ``(bytes of context the engine keeps, the sink,
    cap)``.

    A substring, or a pattern that never matches a line end, is read back from ``before`` piece by piece; a pattern
    that can span lines is searched forward from ``offset`` within :data:`~scratchfs.api.counting.COUNT_SHARE` of
    ``pattern_timeout``: one that cannot finish shows no window, its ``note`` says how far it got and its
    ``next_call`` searches on from there (the matches before that byte: ``offset=``, ``before=`` that byte).

    Raises:
        InvalidArgument: ``before`` not an integer from ``offset`` to the content's size (to ``end``); a ``view``;
            ``end`` past the size or not after ``offset``.
        PatternTimeout, PatternTooLong: a pattern error in the bytes read (its ``resume_offset`` says where).
        NotFound (Expired, Deleted), CorruptBlob: as :meth:`Scope.read_range`.
    """
    handle, before = found.handle, checks.check_int(before, "before", 0)
    if found.view is not None:
        raise InvalidArgument(Advice.of(
            'before (the last matches) searches the stored content, not view="text": give before= without view= (its '
            "windows are the stored bytes), ", same_search(found, "the same call without view=", view=None,
                                                           offset=offset or None, before=before),
            '; or search the view forward from offset= with view="text", ',
            same_search(found, "the same call without before=", offset=offset or None)))
    reach, sink, cap = shape
    timeout = scope.store.settings.pattern_timeout
    with scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle) as opened:
        size, binary = opened.entry.size, opened.entry.content_type == "binary"
        end = check_search_end(found.end, offset, size)
        _check_before(found, offset, before, end, size)
        with reading(handle):
            got = last_matches(opened.reader, matcher, offset, before, reach, found.max_matches, cap,
                               opened.lines.line_of_frame, sink, time.monotonic() + COUNT_SHARE * timeout, end=end)
            none = not (got.windows or got.resume is not None or got.next_before is not None)
            missed = places_note(opened.reader, replace(found, end=end), offset, before, size, before=before) \
                if none else None  # (a pattern that matches only empty strings: where, as a forward search says)
            none = none and missed is None
            if none and end is not None:  # (bounded: where it looked)
                missed = bounded_miss(offset, before, size, "before")
            elif none and not offset and before == size:  # (no match in all of it, said as a forward search's
                # note says it, with its reason, if any)
                missed = whole_miss_note(opened, handle, found.match, found.pattern, found.ignore_case,
                                         found.budget, said=True, encoding=found.encoding)
            elif none:  # (as a forward search from offset= says where it looked)
                missed = _between(found, offset, before)
    origin, next_before, note = offset, got.next_before, missed
    if got.resume is not None:
        origin, next_before = got.resume, before
        note = (f"a pattern that can match a line end is searched forward from offset (no line start is a safe "
                f"place to begin from the end): bytes {offset}-{got.resume} searched in the time bound "
                f"({COUNT_SHARE * timeout:g} s), no match shown; next_call searches on from {got.resume} (the "
                f"matches before it: offset={offset}, before={got.resume})")
    return Matches(handle, found.match, got.windows, size, next_before, found.pattern, found.ignore_case,
                   found.context, found.max_matches, binary, before=before, origin=origin, note=note, end=end,
                   held=got.held)


def _between(found: Matches, offset: int, before: int) -> str | Advice:
    """The note of a search from the end that found nothing from ``offset`` to ``before``: where it looked, or, when
    they are one byte (nothing searched), the search of the last matches before it (the same without offset=)."""
    if offset < before:
        return f"no match in bytes {offset}-{before} (from offset= to before=)"
    return Advice.of(f"offset={offset} equals before={before}: no byte lies between them to search; the last matches "
                     f"before byte {before}: ", same_search(found, "the same call without offset=", offset=None,
                                                           before=before))


def _check_before(found: Matches, offset: int, before: int, end: int | None, size: int) -> None:
    """Raises InvalidArgument when ``before`` is past ``end`` (the search's bound) or the content's ``size``, or
    ``offset`` is after it, naming the search that works (:func:`~scratchfs.api.search_calls.same_search`)."""
    handle = found.handle
    if end is not None and before > end:  # (before= past the size too: before=end is what works)
        raise InvalidArgument(Advice.of(
            f"before={before} is past end={end}: before=end gives the last matches before it, ",
            same_search(found, f"the same call with before={end}", offset=offset or None, before=end, end=end)))
    if before > size:
        raise InvalidArgument(Advice.of(
            f"before {before} is past the end of {handle} ({plural(size, 'byte')}): before={size} gives the last "
            "matches, ", same_search(found, f"the same call with before={size}", offset=offset or None,
                                     before=size)))
    if offset > before:
        raise InvalidArgument(f"offset {offset} is after before={before}: a search from the end shows the last "
                              "matches that start from offset up to before")
