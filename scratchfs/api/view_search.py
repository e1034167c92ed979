"""Searches of a text view (``read_handle`` with ``view="text"`` and ``match=`` or ``pattern=``): an HTML page's
text view is rendered and searched (:meth:`~scratchfs.api.page_reads.PageReads.text_search`, offsets the
view's); terminal output is searched over its stored bytes for the text its view shows -- a needle found across the
escape sequences and overstrikes between its characters
(:class:`~scratchfs.engine.structure.terminal_match.RenderedMatcher`) -- its offsets, lengths and lines the
stored output's, each window's bytes shown rendered (``Matches.rendered``; its edges moved off the escape sequences
they cut), and read on rendered with ``view="text", raw_offset=<its offset>`` (the reply's ``note`` gives that call
for its first window).

Why not render terminal output and search the rendering, as for an HTML page: an output of any size would be
rendered whole at each search (an HTML page's view is bounded and kept), and the view's offsets could not be read
back but by rendering from the start; the stored offsets are what ``raw_offset`` takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api.bounds import offset_past_end
from scratchfs.api.empty_places import places_note
from scratchfs.api.entries import reading
from scratchfs.api.misfit import plain_view, view_misfit
from scratchfs.api.miss_hints import (
    HINT_SECONDS,
    HINT_SPAN_BYTES,
    SPACED_WORDS,
    WITHOUT_OFFSET,
    case_hinted,
    case_pattern,
    no_match_in,
    quoted_hit,
    spaced_hinted,
    spaced_pattern,
    whole_too,
)
from scratchfs.api.results import Matches, stopped_note
from scratchfs.api.search_calls import same_search
from scratchfs.api.stub_reads import placeholder_said
from scratchfs.engine.patterns import PatternMatcher
from scratchfs.engine.search import Matcher, SearchResult, Sink, Window, search
from scratchfs.engine.seekable import SeekableReader
from scratchfs.engine.structure import BytesSource, ReaderSource
from scratchfs.engine.structure.terminal_match import (
    MAX_RENDERED_NEEDLE_CHARS,
    RenderedMatcher,
    drawn_edges,
)
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument, ScratchError

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["EDGE_BYTES", "RENDERED_KINDS", "TERMINAL_PATTERN_REFUSAL", "view_search"]

RENDERED_KINDS = ("log", "text", None)
"""Content types whose ``view="text"`` is terminal output rendered (what
:meth:`~scratchfs.api.page_reads.PageReads.text` renders so)."""
TERMINAL_PATTERN_REFUSAL = (
    'view="text" with pattern= searches an HTML page\'s text view; terminal output\'s view is searched with match= '
    "(a substring, found across the escape sequences and backspace overstrikes between its characters) and "
    'view="text"; or search its stored bytes with pattern= alone, allowing for them (e.g. (?:\\x1b\\[[0-9;]*[mK])* '
    'between characters), then read a window rendered with view="text", raw_offset=<its offset>')
_ALONE = "with pattern= alone, "  # (where the refusal names that search, as a call of the pattern given)
"""The refusal of ``pattern=`` with ``view="text"`` on terminal output (a pattern's text is the stored bytes'
syntax; no rewrite of an arbitrary pattern passes over escapes as a needle's does)."""


def view_search(scope: Scope, asked: Matches, matcher: Matcher, offset: int, how: tuple[int, type[Sink], int],
                shown: object = None) -> Matches:
    """The matches of a ``view="text"`` search (see the module docstring) from byte ``offset`` (of the view for an
    HTML page, of the stored output for terminal output): ``asked`` is the empty result carrying the search's
    settings (handle, needle, pattern, ignore_case, context, max_matches, view), ``matcher`` its matcher over an HTML
    page's view, ``how`` is ``(bytes of context the engine keeps, the sink, cap)``; ``shown``: the needle as the
    caller wrote it, before its Unicode spaces were written as ``" "`` for an HTML page's view (terminal output's
    view shows a no-break space as one: the needle sought there is ``shown`` when it is text). A search of terminal
    output that shows windows has a ``note`` naming the rendered read of its first window.

    Raises:
        InvalidArgument: ``view`` not ``"text"``; text or a log the view would show as it is
            (:func:`~scratchfs.api.misfit.plain_view`); ``pattern=`` on terminal output
            (:data:`TERMINAL_PATTERN_REFUSAL`); a needle the view cannot show or over
            :data:`~scratchfs.engine.structure.terminal_match.MAX_RENDERED_NEEDLE_CHARS` characters
            (:class:`~scratchfs.engine.structure.terminal_match.RenderedMatcher`); an offset past the end;
            what :meth:`~scratchfs.api.page_reads.PageReads.text_search` raises for other contents.
        PatternTimeout, PatternTooLong, NotFound (Expired, Deleted), CorruptBlob: as the search raises them.
    """
    reach, sink, cap = how
    handle = checks.check_handle(asked.handle)
    if asked.view == "text":
        with scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle) as opened:
            entry = opened.entry
            if plain_view(ReaderSource(opened.reader, entry.size).read, entry.content_type, entry.shape):
                raise InvalidArgument(view_misfit(handle, entry.content_type, entry.shape,
                                                  entry.size / max(1, entry.lines)))
            if opened.entry.content_type in RENDERED_KINDS:
                if isinstance(shown, str):
                    asked = replace(asked, match=shown.encode("utf-8", "surrogatepass"))
                rendered = _rendered_matcher(asked, scope.store.settings.pattern_timeout, offset)
                size = opened.entry.size
                if offset > size:
                    raise offset_past_end(handle, offset, size, search="view",
                                          again=lambda words, **changed: same_search(asked, words, **changed))
                with reading(handle):
                    found = search(opened.reader, rendered, offset, reach, asked.max_matches, cap,
                                   opened.lines.line_of_frame, sink)
                    frames = _Frames(opened.reader)
                    windows = [_off_escapes(frames, size, w) for w in found.windows]
                    missed = None if windows else _view_miss(found, offset, size, asked, (lambda: search(
                        opened.reader, _rendered_matcher(replace(asked, ignore_case=True), HINT_SECONDS, offset),
                        offset, 0, 1, 4096, opened.lines.line_of_frame, Sink)) if size - offset <= HINT_SPAN_BYTES
                        else None)
                return replace(asked, windows=windows, size=size, next_offset=found.next_offset, rendered=True,
                               note=_rendered_note(handle, windows[0].match_offset, asked.budget) if windows
                               else missed,
                               stopped=stopped_note(found.stopped, scope.store.settings.pattern_timeout))
            found, size = scope.structure.text_search(handle, "text", matcher, (offset, reach, asked.max_matches,
                                                                                 cap), sink, opened)
            note = _page_note(handle, found.windows[0].offset, asked.budget) if found.windows else _view_places(
                scope, found, asked, offset, size) or _view_miss(
                found, offset, size, asked, lambda: scope.structure.text_search(handle, "text", _ignoring_case(asked), (
                    offset, 0, 1, 4096), Sink, opened)[0], spaced_pattern(asked))
            return replace(asked, windows=found.windows, size=size, next_offset=found.next_offset, note=note,
                           held=found.held, stopped=stopped_note(found.stopped, scope.store.settings.pattern_timeout))
    found, size = scope.structure.text_search(handle, str(asked.view), matcher, (offset, reach, asked.max_matches,
                                                                                  cap), sink)
    return replace(asked, windows=found.windows, size=size, next_offset=found.next_offset, held=found.held,
                   stopped=stopped_note(found.stopped, scope.store.settings.pattern_timeout))


def _view_places(scope: Scope, found: SearchResult, asked: Matches, offset: int, size: int) -> str | Advice | None:
    """The note of a search of an HTML page's text view (``size`` bytes) from ``offset`` that found nothing, if its
    pattern matches only empty strings (:func:`~scratchfs.api.empty_places.places_note`, over the view's bytes),
    else ``None``. Raises what rendering the view raises (StructureTimeout, NotFound, CorruptBlob)."""
    if asked.pattern is None or found.next_offset is not None or found.stopped is not None:
        return None
    text = BytesSource(scope.structure.text_view(asked.handle)[0].encode("utf-8"))  # (rendered once: kept)
    return places_note(text, asked, offset, size, size, "text view", view="text")


def _view_miss(found: SearchResult, offset: int, size: int, asked: Matches,
               ignoring_case: Callable[[], SearchResult] | None = None, spaced: str | None = None
               ) -> str | Advice | None:
    """Where a text view search that found nothing looked -- ``"no match in the whole text view (N bytes)"`` or
    ``"in bytes OFFSET-SIZE of the text view (from offset= to the end)"``, ``size`` the reply's --, or ``None`` when it
    stopped before the end (its ``next_offset`` or ``stopped`` says so). A search of the view that said nothing on
    a miss read as one cut short (helper hostile8; a stored content's search says where it looked:
    :func:`~scratchfs.api.miss_hints.plain_miss`); from an ``offset`` past 0, with the search of the whole view
    (``asked``'s, :func:`~scratchfs.api.miss_hints.whole_too`); else, when the search did not ignore case and
    ``ignoring_case()`` (the same search ignoring case, stopping at its first match, within
    :data:`~scratchfs.api.miss_hints.HINT_SECONDS` of the regex engine; ``None``: past the bound of what is searched
    again) finds one, with it and the call that finds it, as a search of the stored bytes says
    (:func:`~scratchfs.api.miss_hints.case_hinted`): newuser12's match="What is ownership" in the view of the Rust
    book (1.8 MiB) said no more, where the view holds "What is Ownership?". ``spaced``: the pattern
    ``ignoring_case()`` sought instead of the needle, its white space as any
    (:func:`~scratchfs.api.miss_hints.spaced_pattern`: an HTML page's view breaks words across lines); a match it
    finds that the needle ignoring case would not is hinted with that pattern's call
    (:func:`~scratchfs.api.miss_hints.spaced_hinted`). The stub's placeholder sought
    (``match="TEXT"``, its call run as written) is said to be one, with no hint ("TEXT" ignoring case matches any
    "text")."""
    if found.next_offset is not None or found.stopped is not None:
        return None
    said = no_match_in(offset, size, view=True)
    if offset:
        return whole_too(said, same_search(asked, WITHOUT_OFFSET, offset=None), True)
    name, sought = ("pattern", asked.pattern) if asked.pattern is not None else (
        "match", (asked.match or b"").decode("utf-8", "replace"))
    if (placeholder := placeholder_said(name, sought)) is not None:  # (the stub's call run as written: no spelling
        return f"{said}; {placeholder}"  # of it was meant)
    if asked.ignore_case or ignoring_case is None:
        return said
    try:
        again = ignoring_case()
    except ScratchError:  # (a note is never worth an error: the time limit, a needle the view cannot show)
        return said
    if not again.windows:
        return said
    window = again.windows[0]
    hit = window.matches[0]
    data = window.data[hit.offset - window.offset:]
    text = quoted_hit(data, hit.length)
    if spaced is not None and data[:hit.length].lower() != (asked.match or b"").lower():  # (spaced otherwise; the
        # engine ignores ASCII case alone, as bytes.lower)
        return spaced_hinted(said, text, hit.line, same_search(replace(asked, match=None, pattern=spaced,
                                                                       ignore_case=True), SPACED_WORDS))
    return case_hinted(said, text, hit.line,
                       same_search(replace(asked, ignore_case=True), "the same call with ignore_case=true"))


def _ignoring_case(asked: Matches) -> PatternMatcher:
    """The matcher of ``asked``'s needle or pattern ignoring case (:func:`~scratchfs.api.miss_hints.case_pattern`)
    -- a needle's white space as any (:func:`~scratchfs.api.miss_hints.spaced_pattern`: the view breaks a page's
    words across lines) --, over an HTML page's text view, within :data:`~scratchfs.api.miss_hints.HINT_SECONDS`.
    Raises what PatternMatcher raises (BadPattern: caught by the caller, as every error of the check)."""
    return PatternMatcher(spaced_pattern(asked) or case_pattern(asked), True, timeout=HINT_SECONDS)


_REDRAW = re.compile(rb"\r(?!\r*\n)|\x1b\[[0-9;]*(?:[GCD]|[12]K)|\x08\x08")
"""What draws over a line's earlier columns (a ``\r`` that ends no line, a cursor move, an erasure before the
cursor, a backspace over more than one character): a piece of such a line renders otherwise than its whole."""


EDGE_BYTES = 1024
"""Bytes read each side of a window of terminal output for the escape sequence its edge may cut (one that begins
further back -- an OSC hyperlink of over 1 KiB -- is not seen)."""


class _Frames:
    """Reads of a blob that keep the last frames they decompressed: a page's windows lie in a few frames, and each
    window reads the bytes each side of it (``python bench/terminal_view_windows.py``: 1,000 windows over 710 KB,
    1.55 s reading each frame again, against 0.32 s without the reads)."""

    def __init__(self, reader: SeekableReader) -> None:
        self.reader = reader
        self.kept: dict[int, bytes] = {}

    def read(self, offset: int, length: int) -> bytes:
        """The content's bytes ``[offset, offset + length)``, clipped to its end. Raises what the reader raises."""
        table = self.reader.table
        end = min(offset + length, table.size)
        parts = []
        for index in range(table.frame_at(offset), table.frame_at(end - 1) + 1) if offset < end else ():
            data = self.kept.get(index)
            if data is None:
                if len(self.kept) >= 4:
                    self.kept.clear()
                data = self.kept[index] = self.reader.frame(index)
            start = table.d_offsets[index]
            parts.append(data[max(offset, start) - start : min(end, table.d_offsets[index + 1]) - start])
        return b"".join(parts)


def _off_escapes(reader: _Frames, size: int, window: Window) -> Window:
    """``window`` (of terminal output of ``size`` bytes, read by ``reader``) with its edges moved so that the bytes
    it shows render as the view shows them, never into its matches: off the escape sequences they cut (``31m`` of a
    cut ``ESC[01;31m`` is no text of the view) and off a character a backspace overstrikes just past its end; and a
    piece of a line at an edge that holds no match and redraws (:data:`_REDRAW`: a progress bar's ``\r``) left
    out, to its line's end or start (the piece would show a state the view does not). Reads up to
    :data:`EDGE_BYTES` bytes each side of it. Raises what the reader raises."""
    lo, hi = window.offset, window.offset + len(window.data)
    first = window.matches[0].offset
    last = max(hit.offset + hit.length for hit in window.matches)
    before = reader.read(lo - min(lo, EDGE_BYTES), min(lo, EDGE_BYTES))
    after = reader.read(hi, min(size - hi, EDGE_BYTES))
    joined = before + window.data + after
    data, shift = window.data, len(before) - lo  # (joined[at + shift] is content byte at)
    new_lo, new_hi = (at - shift for at in drawn_edges(joined, lo + shift, hi + shift, first + shift, last + shift))
    head = data.find(b"\n", new_lo - lo, first - lo)  # the piece of a line before the first match's line
    if head >= 0 and joined[new_lo + shift - 1 : new_lo + shift] not in (b"\n", b"") and _REDRAW.search(
            data, new_lo - lo, head):
        new_lo = lo + head + 1
    tail = data.rfind(b"\n", last - lo, new_hi - lo)  # the piece of a line after the last match's line
    if tail >= 0 and joined[new_hi + shift : new_hi + shift + 1] not in (b"\n", b"") and _REDRAW.search(
            data, tail + 1, new_hi - lo):
        new_hi = lo + tail + 1
    if (new_lo, new_hi) == (lo, hi):
        return window
    return replace(window, offset=new_lo, data=data[new_lo - lo : new_hi - lo])


def _rendered_matcher(asked: Matches, timeout: float, offset: int) -> RenderedMatcher:
    """The matcher of ``asked``'s needle in terminal output as rendered (``timeout`` seconds in the regex engine).
    Raises InvalidArgument (a pattern: naming, as a call, the search of the stored bytes from ``offset``; a needle of
    bytes that are not UTF-8, one the view cannot show or too long)."""
    if asked.pattern is not None:
        head, tail = TERMINAL_PATTERN_REFUSAL.split(_ALONE)
        raise InvalidArgument(Advice.of(head, _ALONE, same_search(asked, "the same call without view=", view=None,
                                                                 offset=offset or None),
                                        ", ", tail))
    try:
        needle = (asked.match or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument('match= with view="text" on terminal output takes text (UTF-8), as the view shows '
                              "it; search bytes without view=\"text\"") from None
    return RenderedMatcher(needle, asked.ignore_case, timeout)


def _rendered_note(handle: str, offset: int, budget: int | None) -> Advice:
    """What a search of terminal output's view says of its windows, the first at ``offset`` (about 330 bytes; its
    call with the reply ``budget`` the search gave)."""
    see = Call.of("read_handle", handle=handle, view="text", raw_offset=offset, budget=budget)
    return Advice.of("matched in the text as rendered (escape sequences and backspace overstrikes between its "
                     "characters passed over); data is each window rendered, its offsets, lengths and lines the "
                     'stored output\'s: read on from a window rendered with view="text", raw_offset=<its offset>, '
                     "the first: ", see)


def _page_note(handle: str, offset: int, budget: int | None) -> Advice:
    """What a search of an HTML page's text view says of its windows, the first at ``offset`` (about 200 bytes; its
    call with the reply ``budget`` the search gave): their offsets are the view's, which a read without
    ``view="text"`` (the page's source) takes otherwise."""
    see = Call.of("read_handle", handle=handle, view="text", offset=offset, budget=budget)
    return Advice.of("offsets, lines and size are the page's text view's, not its source's: read on from a window "
                     'with view="text", offset=<its offset>, the first: ', see)


def rendered_hint(handle: str, needle: str, ignore_case: bool, context: int | str, max_matches: int,
                  budget_call: bool, budget: int | None = None) -> str | Call:
    """The way on from a miss in terminal output's stored bytes: the same needle searched with ``view="text"``,
    as an exact call when ``budget_call`` (else named; the call repeats ``budget``, the reply budget the search
    gave), or a part of it when it is over
    :data:`~scratchfs.engine.structure.terminal_match.MAX_RENDERED_NEEDLE_CHARS` characters."""
    if len(needle) > MAX_RENDERED_NEEDLE_CHARS:
        return f'search a part of it (at most {MAX_RENDERED_NEEDLE_CHARS} characters) with view="text"'
    if not budget_call:
        return 'the same call with view="text"'
    return Call.of("read_handle", handle=handle, match=needle, view="text",
                   ignore_case=True if ignore_case else None, context=context, max_matches=max_matches,
                   budget=budget)
