"""Counting a search: how many matches of a substring or a pattern a spilled result holds, and in how many lines,
without a window -- the answer to "how many" that paging through windows gave at the cost of every window (286
commits of a ``git log -p`` took 50 KB of windows to count). Bounded in time as a pattern search is: a count that
cannot finish within the store's ``pattern_timeout`` says how far it got, and its ``next_call`` counts on."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scratchfs.api.bounds import bounded_miss, check_search_end, offset_past_end
from scratchfs.api.empty_arguments import empty_needle
from scratchfs.api.empty_places import EMPTY_ONLY, count_places_note
from scratchfs.api.encodings import Written, case_bound
from scratchfs.api.entries import reading
from scratchfs.api.miss_hints import WITHOUT_OFFSET, no_match_in, whole_too
from scratchfs.api.results import Bounded
from scratchfs.api.search_calls import count_again, on_past, written_as
from scratchfs.api.search_misses import whole_miss_note
from scratchfs.api.wide_search import EvenMatcher, WideLines, wide_count
from scratchfs.engine.patterns import MAX_REACH_BYTES, compile_pattern
from scratchfs.engine.search import LiteralMatcher, Matcher, PatternMatcher, count
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call, render_call
from scratchfs.foundation.errors import InvalidArgument, PatternTimeout, PatternTooLong
from scratchfs.foundation.limits import MAX_NEEDLE_BYTES
from scratchfs.foundation.text import shorten

if TYPE_CHECKING:
    from scratchfs.api.results import Matches
    from scratchfs.api.scope import Scope

COUNT_SHARE = 0.8
"""The share of ``pattern_timeout`` a count runs before it stops to report how far it got (the pattern engine's own
limit, the whole timeout, stays a limit on backtracking)."""


def search_matcher(match: object, pattern: object, ignore_case: bool, timeout: float,
                   again: Callable[..., Call] | None = None) -> tuple[bytes | None, Matcher]:
    """``(the needle or None, the matcher)`` of a search: a substring (``match``; text searched as UTF-8; with
    ``ignore_case`` a case-blind pattern of it) or a Python ``re`` pattern over the bytes, ``timeout`` seconds in
    the regex engine. Raises InvalidArgument (both or neither of them; an empty, too long or invalid needle or
    pattern; ignore_case with a needle of bytes; a case-blind needle past its rewrite's bound,
    :func:`~scratchfs.api.encodings.case_bound`; a pattern over :data:`MAX_NEEDLE_BYTES`, but one the store wrote
    from a match, :class:`~scratchfs.api.encodings.Written`); ``again(match=...)`` / ``again(pattern=...)``: the
    same search with another needle, which the refusal of a pattern that does not parse names
    (:func:`~scratchfs.api.search_calls.written_as`)."""
    if match is not None and pattern is not None:
        raise InvalidArgument("give match (a substring) or pattern (a regular expression), not both")
    if match is None and pattern is None:
        raise InvalidArgument("a search needs match (a substring) or pattern (a regular expression)")
    if again is not None and isinstance(given := pattern if match is None else match, (str, bytes)) and not given:
        raise empty_needle("match" if pattern is None else "pattern", again(match="x"))
    if pattern is None:
        needle = checks.check_needle(match)
        if not ignore_case:
            return needle, LiteralMatcher(needle)
        if not isinstance(match, str):
            raise InvalidArgument("ignore_case with match needs text; use pattern for bytes")
        try:
            return needle, PatternMatcher(re.escape(match), True, timeout=timeout, named=f"match {shorten(match)}")
        except InvalidArgument as refused:  # (an escaped needle parses: its case-blind rewrite is past the bound)
            if type(refused) is not InvalidArgument:
                raise
            raise case_bound(match, "utf-8") from None
    if isinstance(pattern, str) and not isinstance(pattern, Written) and \
            len(pattern.encode("utf-8", "surrogatepass")) > MAX_NEEDLE_BYTES:  # (Written: a match's own bound)
        raise InvalidArgument(f"pattern is longer than the limit of {MAX_NEEDLE_BYTES} bytes")
    try:
        return None, PatternMatcher(pattern, ignore_case, timeout=timeout, named=f"match {shorten(pattern.match)}"
                                    if isinstance(pattern, Written) else None)
    except InvalidArgument as refused:
        if again is None:
            raise
        raise written_as(refused, pattern, ignore_case, again) from None


_EMPTY_PROBE = b"ab cd\n\nef\n"
"""Text a pattern is tried on to learn whether it matches empty text (at a line's start or end, a word's edge)."""


def empty_match_note(found: Matches | MatchCount) -> str | None:
    """What a search or count (``found``) that found nothing says when its pattern matches empty text (``x*``,
    ``(?:ab)*``): searches skip empty matches, so 'pattern="^", count=true' counted 0 lines of 100,000 with no
    word (atk27). ``None`` for a needle, a pattern that matches no empty text (told on a short probe text), or one
    whose note already says where it matches only empty strings (:mod:`scratchfs.api.empty_places`: ``^``,
    ``(?=def)``). Never raises."""
    pattern, ignore_case = found.pattern, found.ignore_case
    if pattern is None or str(found.note or "").startswith(EMPTY_ONLY):
        return None
    try:
        compiled = compile_pattern(pattern, ignore_case, MAX_REACH_BYTES)[0]
        empty = any(found.start() == found.end() for found in compiled.finditer(_EMPTY_PROBE, timeout=0.1))
    except (InvalidArgument, TimeoutError):  # (a note is never worth an error: the search said what was wrong)
        return None
    if not empty:
        return None
    return ("no matches: this pattern matches empty text (as ^, $ or \\b alone do), and a search skips empty "
            'matches; give it something to match, e.g. pattern="^." (each line that is not empty) or '
            'pattern="\\n" (each line end)')


@dataclass(frozen=True, slots=True)
class MatchCount(Bounded):
    """A count of a search's matches from byte ``offset``: ``matches``, and ``lines`` (the lines their starts are
    in), over ``[offset, next_offset)`` -- to the end when ``next_offset`` is ``None``, else as far as the time
    bound (``seconds``) let it go; ``size`` is the content's, in bytes; ``budget`` the caller's and ``encoding``
    (``"latin-1"``, ``"cp1252"``: what ``match``/``pattern`` are written in, :mod:`scratchfs.api.encodings`)
    repeated by ``next_call``; ``note``: why a count of the whole content found nothing, when a reason is known
    (:func:`~scratchfs.api.search_misses.whole_miss_note`), or where a bounded count looked, else ``None``; ``end``:
    the byte the count stops before (matches wholly before it; the next call repeats it), ``None``: the size."""

    handle: str
    match: str | None
    pattern: str | None
    ignore_case: bool
    offset: int
    size: int
    matches: int
    lines: int
    next_offset: int | None
    seconds: float
    budget: int | None = None
    encoding: str | None = None
    note: str | Advice | None = None
    end: int | None = None

    @property
    def remaining(self) -> int:
        """Bytes from ``next_offset`` to the end (``end``, when given), not counted yet (0 when the count is
        whole)."""
        return self.left_from(self.next_offset)

    @property
    def next_call(self) -> str | None:
        """The call that counts on from ``next_offset`` (``None`` when the count is whole)."""
        if self.next_offset is None:
            return None
        return render_call("read_handle", handle=self.handle, match=self.match, pattern=self.pattern,
                           ignore_case=True if self.ignore_case else None, offset=self.next_offset, count=True,
                           budget=self.budget, encoding=self.encoding, end=self.end)


def count_matches(scope: Scope, handle: str, match: str | None, pattern: str | None, offset: int = 0, *,
                  ignore_case: bool = False, budget: int | None = None, end: int | None = None,
                  even: str | None = None) -> MatchCount:
    """Count the matches of ``match`` or ``pattern`` (as :meth:`Scope.search` finds them) starting at or after byte
    ``offset`` (and ending by byte ``end``, when given: the bytes ``[offset, end)`` alone are counted, as a search
    with ``end`` finds them; ``even``: ``"utf-16le"`` or ``"utf-16be"``, those that start at an even offset alone,
    :class:`EvenMatcher`, as UTF-16 text's are, in its decoded lines, :mod:`scratchfs.api.wide_search`), and the
    lines they start in, within :data:`COUNT_SHARE` of the store's
    ``pattern_timeout`` (seconds); a count from byte 0 to the end that finds none says why in its ``note`` when it
    can, and a bounded one where it looked.

    Raises:
        InvalidArgument: a malformed handle; both or neither of ``match``/``pattern``; a bad needle, pattern or
            offset (past the end included); ``end`` (checked by :func:`~scratchfs.api.bounds.check_end`) past
            the end or not after ``offset``.
        PatternTimeout, PatternTooLong: as :meth:`Scope.search`, before any match was counted (the call that
            counts on past the trouble in its message).
        NotFound, CorruptBlob: as :meth:`Scope.read_range`.
    """
    handle = checks.check_handle(handle)
    offset = checks.check_int(offset, "offset", 0)
    if (match is None) == (pattern is None):
        raise InvalidArgument("count counts the matches of match= (a substring) or pattern= (a regular expression): "
                              "give one of them")
    ignore_case = checks.check_flag(ignore_case, "ignore_case")
    timeout = scope.store.settings.pattern_timeout
    needle, matcher = search_matcher(match, pattern, ignore_case, timeout, lambda **sought: Call.of(
        "read_handle", handle=handle, **sought, count=True, offset=offset, end=end, ignore_case=ignore_case or None,
        budget=budget))
    matcher = EvenMatcher(matcher) if even else matcher
    wide = WideLines.of(scope, handle, even) if even else None
    again = count_again(handle, match, pattern, ignore_case, budget)
    with scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle) as opened:
        size = opened.entry.size
        if offset > size:
            raise offset_past_end(handle, offset, size, search="count", end=end, again=again)
        end = check_search_end(end, offset, size)
        with reading(handle):
            try:
                found, lines, next_offset = count(opened.reader, matcher, offset, opened.lines.line_of_frame,
                                                  time.monotonic() + COUNT_SHARE * timeout, end) if not wide else \
                    wide_count(opened, matcher, offset, time.monotonic() + COUNT_SHARE * timeout, end, wide)
            except (PatternTimeout, PatternTooLong) as exc:  # (the count from past its trouble, as a call)
                raise on_past(exc, lambda words, at: again(words, offset=at, end=end)) from None
            none = not found and next_offset is None  # (counted to the end: no match)
            missed = count_places_note(opened, handle, pattern, ignore_case, offset, end, budget) if none else None
            if none and missed is None and end is not None:  # (bounded: where it looked)
                missed = bounded_miss(offset, end, size)
            elif none and missed is None and not offset:  # (none in all of it: markup, escapes, CRLF, another
                # encoding may be why)
                missed = whole_miss_note(opened, handle, needle, pattern, ignore_case, budget, encoding=even)
            elif none and missed is None:  # (none from offset=: the bytes before it unsearched, and their count)
                missed = whole_too(no_match_in(offset, size), again(WITHOUT_OFFSET, end=end))
    return MatchCount(handle, match, pattern, ignore_case, offset, size, found, lines, next_offset,
                      COUNT_SHARE * timeout, budget, note=missed, end=end)


__all__ = ["COUNT_SHARE", "MatchCount", "count_matches", "search_matcher"]
