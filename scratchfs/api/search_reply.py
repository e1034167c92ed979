"""Search replies: the windows of a ``match`` / ``pattern`` search as the model-facing JSON, fitted into a budget
(:mod:`scratchfs.api.contract` documents the replies; every face builds this one here).

A search reply: ``{handle, match (or pattern, ignore_case), size, next_offset, more, remaining,
next_call, windows: [{line, offset, length, data}]}`` (``ignore_case`` only when true; ``more``, true, and
``remaining`` only while matches may follow: a finished one's ``next_offset`` and ``next_call`` are null), each
fact once: a window of one match adds
``match_offset`` and ``match_length`` unless it is that match alone, one of several lists ``matches: [{offset,
length, line}]`` (:func:`~scratchfs.api.search_window.window_json`); windows whose context overlaps are merged;
a search of a table (CSV/TSV) gives each window's ``row`` after its ``line`` and each listed match's, the ``row=``
a rows read takes (:mod:`scratchfs.api.search_rows`); a search of a git log gives each window's ``commit`` after its
``line``, its hash, author and date (:mod:`scratchfs.api.search_commits`); ``context="line"``: each window is the
line holding its matches (:mod:`scratchfs.engine.line_windows`): a whole line's is ``{line, data}`` (and ``row``),
its match in its data, and one cut by the bound of 1 KiB a side (or by the budget) keeps its fields and says
``"cut": "before" | "after" | "both"``;
a reply over budget keeps the windows that fit and the next one cut to fit (its first matches, then less context
after the last; from the end, its last matches and less context before: a window whose context the budget cut
says ``cut`` too) -- but a window of lines that does not fit whole after others is left to the next page (cut,
its line's rest would never be shown: the next page goes on past its matches), which shows it whole or, alone,
cut --, then, for one window alone, less context a side, then the first match cut; ``next_offset`` is
the first match not shown. A window of binary content whose bytes are text is text, ``"encoding": "text"``. A
search a pattern's time limit (or bound) stopped says so in its ``note``, the byte it stopped at; one that found
nothing says where it looked, and a spelling that matches (:mod:`scratchfs.api.miss_hints`).
With ``view="text"`` (an HTML page): ``view`` too, and offsets, lines and ``size`` are the text
view's; of terminal output (``match`` only, :mod:`scratchfs.api.view_search`): the text as its view shows it,
offsets, lengths and lines the stored output's, each window's ``data`` its bytes rendered (``rendered``), and a
``note`` naming the rendered read of the first window.
With ``before`` (the last matches, :mod:`scratchfs.api.last_search`): ``next_before`` for ``next_offset``, the
first match shown when matches precede it (the next call's ``before``), ``remaining`` the bytes before it not
searched; a reply over budget keeps its last windows. With ``encoding`` (``"latin-1"``, ``"cp1252"``,
:mod:`scratchfs.api.encodings`): ``encoding`` too, each window a byte a character."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from scratchfs.api.counting import MatchCount, empty_match_note
from scratchfs.api.empty_places import empty_only, encoded
from scratchfs.api.fixed import Squeeze
from scratchfs.api.results import Matches, bounded_resume
from scratchfs.api.search_window import window_json
from scratchfs.api.views import reply_size
from scratchfs.engine.search import Hit, Window
from scratchfs.engine.structure.terminal_match import drawn_edges
from scratchfs.foundation.calls import Advice, Call, add_said
from scratchfs.foundation.limits import MAX_READ_BYTES, MAX_REPLY_BYTES
from scratchfs.foundation.text import plural


def matches_reply(found: Matches, budget: int, full_windows: bool = False) -> dict[str, Any]:
    """A search as the contract's JSON object, fitted into ``budget`` bytes: the windows that fit and the next one cut
    to fit (:func:`_trim_after`; from the end, :func:`_trim_before`), then, for a first window alone, less context a
    side, then the first match cut; ``next_offset`` is the first match not shown. A window of lines
    (``context="line"``) is cut so only when alone on its page: after a whole one it is the next page's (its first
    match ``next_offset``; from the end, the first match shown ``next_before``), as its line's rest would otherwise
    never be shown; a window of bytes of context is cut to fit (what it loses is context, its matches all shown, and
    the next page's window starts up to ``context`` bytes before its first match: leaving it whole to the next page
    would cost pages for context alone). The echoed ``match``/``pattern`` and ``next_call`` are measured first
    (:class:`~scratchfs.api.fixed.Squeeze`). ``full_windows`` (the web inspector's): a whole line's window keeps
    its offsets and match fields (:attr:`~scratchfs.api.results.Matches.full_windows`), as it does in a bounded
    search's (``end=``, a member's), whose window may start at the search's ``offset`` inside a line (a page after
    one that showed some of the line's matches, ``max_matches`` fewer than the line's): ``{line, data}`` would say
    its piece is the whole line; and in a view's (``view="text"``: an HTML page's text, terminal output rendered),
    whose note reads on from a window by its offset (``offset=``/``raw_offset=``: ``line=`` reads no view)."""
    full = full_windows or found.end is not None or found.view is not None or found.rendered
    found = replace(found, full_windows=found.full_windows or full)
    windows = found.windows
    if windows:  # the floor: one match's first byte alone, the search going on past it
        edge = windows[0] if found.before is None else windows[-1]
        hit = edge.matches[0] if found.before is None else edge.matches[-1]
        floor = _matches_json(found, [Window(hit.offset, hit.offset, edge.data[hit.offset - edge.offset:][
            :1], hit.line, (hit,))], found.size, budget)
    else:
        floor = _matches_json(found, [], found.first_left, budget)
    squeeze = Squeeze(floor, budget, {"match": ("match",), "pattern": ("pattern",)})
    drawn: dict[tuple[int, int, int, tuple[bool, bool]], dict[str, Any]] = {}  # the windows drawn, by extent

    def shown(part: list[Window], next_offset: int | None, quiet: bool = False) -> dict[str, Any]:
        return squeeze(_matches_json(found, part, next_offset, budget, quiet, drawn))

    reply = shown(windows, found.first_left)
    if reply_size(reply) <= budget or not windows:
        return reply
    if found.before is not None:
        return _fit_last(found, budget, shown)
    count = _most(len(windows) - 1, lambda n: reply_size(shown(windows[:n], _first_hit(windows[n]))) <= budget)
    if count and found.context == "line":  # (a line cut here would never be shown whole: the next page shows it)
        return shown(windows[:count], _first_hit(windows[count]))
    after = _first_hit(windows[count + 1]) if count + 1 < len(windows) else found.first_left
    trimmed = _trim_after(found, windows[count], after, budget, lambda part, nxt: shown(windows[:count] + part, nxt),
                          alone=not count)
    if trimmed is not None:
        return trimmed
    if count:
        return shown(windows[:count], _first_hit(windows[count]))
    return _fit_one_window(found, windows[0], after, budget, shown)


def _cut(window: Window, first: int, last: int, hits: tuple[Hit, ...]) -> Window:
    """The bytes ``[first, last)`` of ``window`` (clamped to it) holding ``hits`` (some of its matches, in order): a
    window of lines cut shorter says its line goes on (its ``line_cut``)."""
    lo, hi = max(first, window.offset), min(last, window.offset + len(window.data))
    data = window.data[lo - window.offset : hi - window.offset]
    line_cut = None if window.line_cut is None else (
        window.line_cut[0] or lo > window.offset, window.line_cut[1] or hi < window.offset + len(window.data))
    return Window(hits[0].offset, lo, data, hits[0].line, hits, line_cut)


def _trim_after(found: Matches, window: Window, after: int | None, budget: int,
                shown: Callable[[list[Window], int | None], dict[str, Any]], alone: bool = False
                ) -> dict[str, Any] | None:
    """The reply showing ``window``'s first matches, its context before whole, cut after so that it fits ``budget``:
    the most matches, then the most context after the last of them (never into the next one); ``shown(part,
    next_offset)`` is the reply showing the windows before it and ``part``, ``after`` the first match past
    ``window``. The next call starts at its first match not shown (``after`` when all are, only context cut):
    no match is left out or shown twice. ``None`` when not even its first match fits with no context after, and
    (``alone``: the reply's only window) when its first match alone fits but not with its whole context after
    (:func:`_fit_one_window` narrows its context on both sides instead, the match in the middle)."""
    hits, end = window.matches, window.offset + len(window.data)

    def upto(keep: int, context: int) -> dict[str, Any]:
        last = hits[keep - 1]
        stop = hits[keep].offset if keep < len(hits) else end
        part = _cut(window, window.offset, min(last.offset + last.length + context, stop), hits[:keep])
        return shown([part], hits[keep].offset if keep < len(hits) else after)

    keep = _most(len(hits), lambda n: n >= 1 and reply_size(upto(n, 0)) <= budget)
    if not keep:
        return None
    last = hits[keep - 1]
    room = max(0, min(found.reach, (hits[keep].offset if keep < len(hits) else end) - last.offset - last.length))
    context = _most(room, lambda c: reply_size(upto(keep, c)) <= budget)
    return None if alone and keep == 1 and context < room else upto(keep, context)


def _fit_last(found: Matches, budget: int, shown: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """A search from the end over budget: its last windows, then its last window's last match alone, cut as
    :func:`_fit_one_window` cuts a first one; the next call's ``before`` is the first match shown."""
    windows = found.windows

    def tail(part: list[Window], _next: int | None = None, quiet: bool = False) -> dict[str, Any]:
        first = _first_hit(part[0]) if part else None
        return shown(part, found.first_left if first == _first_hit(windows[0]) else first, quiet)

    count = _most(len(windows) - 1, lambda n: reply_size(tail(windows[len(windows) - n:])) <= budget)
    kept = windows[len(windows) - count:] if count else []
    if count and found.context == "line":  # (as forward: a line not whole is the next page's)
        return tail(kept)
    trimmed = _trim_before(found, windows[len(windows) - count - 1], budget, lambda part: tail(part + kept),
                           alone=not count)
    if trimmed is not None:
        return trimmed
    if count:
        return tail(kept)
    last = windows[-1]
    hit = last.matches[-1]
    lo = max(last.offset, hit.offset - found.reach)
    line_cut = None if last.line_cut is None else (last.line_cut[0] or lo > last.offset, last.line_cut[1])
    alone = Window(hit.offset, lo, last.data[lo - last.offset:], hit.line, (hit,), line_cut)
    return _fit_one_window(found, alone, None, budget, tail)


def _trim_before(found: Matches, window: Window, budget: int, shown: Callable[[list[Window]], dict[str, Any]],
                 alone: bool = False) -> dict[str, Any] | None:
    """:func:`_trim_after` from the end: ``window``'s last matches, its context after whole, cut before them (the
    most matches, then the most context before the first of them, never into the match before it); ``shown(part)``
    is the reply showing ``part`` and the windows after it (the next call's ``before`` its first match shown).
    ``None`` when not even its last match fits with no context before, or (``alone``) fits only so."""
    hits, end = window.matches, window.offset + len(window.data)

    def floor(keep: int) -> int:  # where the match before the last ``keep`` ends (the window's start: none)
        before = hits[len(hits) - keep - 1] if keep < len(hits) else None
        return window.offset if before is None else before.offset + before.length

    def upto(keep: int, context: int) -> dict[str, Any]:
        first = hits[len(hits) - keep]
        return shown([_cut(window, max(first.offset - context, floor(keep)), end, hits[len(hits) - keep:])])

    keep = _most(len(hits), lambda n: n >= 1 and reply_size(upto(n, 0)) <= budget)
    if not keep:
        return None
    room = max(0, min(found.reach, hits[len(hits) - keep].offset - floor(keep)))
    context = _most(room, lambda c: reply_size(upto(keep, c)) <= budget)
    return None if alone and keep == 1 and context < room else upto(keep, context)


def _first_hit(window: Window) -> int:
    return window.matches[0].offset


def _most(high: int, fits: Callable[[int], bool]) -> int:
    """The largest ``n`` in ``[0, high]`` with ``fits(n)`` (``fits`` monotone; ``fits(0)`` assumed), by bisection."""
    low = 0
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _fit_one_window(found: Matches, window: Window, after: int | None, budget: int,
                    shown: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The first window alone is over budget even with its first match alone and no context after it
    (:func:`_trim_after` failed): less context a side, then the match's start (``shown(windows, next_offset)``: the
    reply showing those windows; ``after``: the first match past ``window``)."""
    hits = window.matches
    reach = found.reach

    def cut(first: int, last: int, keep: int) -> Window:
        return _cut(window, first, last, hits[:keep])

    first = hits[0]
    rest = hits[1].offset if len(hits) > 1 else after

    def with_context(c: int) -> dict[str, Any]:  # (never into the window's next match: it shows next)
        narrow = cut(first.offset - c, min(first.offset + first.length + c, hits[1].offset if len(hits) > 1 else
                                           first.offset + first.length + c), 1)
        reply = shown([narrow], rest, c < reach)
        if c < reach:  # said, so that a model asking for wide windows knows what it trades
            if window.line_cut is None:
                cut_note = (f"context cut to {plural(c, 'byte')} a side to fit the budget, one match a reply; a "
                            "smaller context= shows more matches a reply")
            else:  # (a line shorter than the bound is not cut by it: said only when it is)
                shorter = " and its line cut to fit (cut says where)" if narrow.length < window.length else ""
                cut_note = (f"the budget ({budget} bytes) cut this reply to one match{shorter}; a larger budget= or "
                            "a number of bytes as context= shows more matches a reply")
            reply["note"] = f"{reply['note']}; {cut_note}" if reply.get("note") else cut_note
        return reply

    context = _most(reach, lambda c: reply_size(with_context(c)) <= budget)
    if reply_size(with_context(context)) <= budget:
        return with_context(context)
    def match_start(n: int) -> dict[str, Any]:  # (the match's first n bytes, the read of its rest named)
        return _rest_of_match(found, shown([cut(first.offset, first.offset + n, 1)], rest), first, n)

    most = _most(first.length, lambda n: n >= 1 and reply_size(match_start(n)) <= budget)
    if most:
        return match_start(most)
    most = _most(first.length, lambda n: n >= 1 and reply_size(  # (no room for the note: the match's start alone)
        shown([cut(first.offset, first.offset + n, 1)], rest)) <= budget)
    return shown([cut(first.offset, first.offset + max(1, most), 1)], rest)


def _rest_of_match(found: Matches, reply: dict[str, Any], hit: Hit, shown: int) -> dict[str, Any]:
    """``reply``, which shows the first ``shown`` bytes of the match ``hit`` alone: when the match goes on past them,
    its ``note`` says so and names the byte read of its rest (a read of the stored bytes: not for a search of a view,
    whose offsets are another text's), which its ``calls`` give as data."""
    window = reply["windows"][0] if reply["windows"] else None
    if window is not None and "offset" not in window:  # (a whole line: its match whole in it)
        return reply
    upto = shown + hit.offset if window is None else window["offset"] + window["length"]  # (whole characters shown)
    left = hit.offset + hit.length - upto
    if left <= 0 or found.view is not None:
        return reply
    call = Call.of("read_handle", handle=found.handle, offset=upto, length=min(left, MAX_READ_BYTES),
                   budget=found.budget, encoding=found.encoding)
    said = Advice.of(f"the budget cut the match to its first {plural(upto - hit.offset, 'byte')} of "
                     f"{hit.length:,}: read the rest of it by range, ", call)
    add_said(reply, said)
    return reply


def _matches_json(found: Matches, windows: list[Window], next_offset: int | None, budget: int,
                  quiet: bool = False, drawn: dict | None = None) -> dict[str, Any]:
    """The reply showing ``windows``, the search going on at ``next_offset``; a ``note`` says when the reply's
    ``budget`` (bytes) cut it: fewer matches shown than ``max_matches`` while more follow (``quiet``: the caller
    says how instead; ``found.held``: max_matches ended it before a line it would have cut, none), or that a window
    of lines holds more matches than max_matches (those its bytes show, taken with it); ``found.note``
    and ``found.stopped`` (a pattern's time limit stopped the search: every page of it says so, and a page showing
    all it found does not blame the budget) follow it. ``drawn``: the windows'
    JSON kept across the calls of one reply's fitting, by extent (a window's bytes and matches are those of its
    offset, length and match count: pieces of the same windows found)."""
    cuts = _cuts(found, windows)
    if found.rendered:  # (a window cut to fit: its edges off what it would render otherwise than the view)
        starts = [whole.offset for whole in found.windows]  # (in order, not overlapping: bisected)
        windows = [_drawn(window, found.windows, starts) for window in windows]
    stopped = found.stopped is not None and next_offset == found.first_left  # (a pattern error, not the budget)
    next_offset = bounded_resume(found, windows, next_offset)
    shown = replace(found, windows=windows, next_offset=next_offset, left=None)
    what: dict[str, Any] = {"pattern": found.pattern} if found.pattern is not None else {"match": found.needle_text}
    what.update({"ignore_case": True} if found.ignore_case else {})  # (false, the default, is not said)
    what.update({"view": found.view} if found.view else {})
    what.update({"encoding": found.encoding} if found.encoding else {})
    what.update({"end": found.end} if found.end is not None else {})  # (the searched bytes' end: a member's)
    going = {"more": True, "remaining": shown.remaining} if shown.more else {}  # (done: next_offset and next_call
    # null say it; more false and remaining 0 would only repeat them)
    reply = {"handle": found.handle, **what, "size": found.size, "next_offset": shown.next_offset, **going,
             "next_call": shown.next_call,
             "windows": [_drawn_json(found, w, cut, drawn) for w, cut in zip(windows, cuts, strict=True)]}
    if found.before is not None:  # from the end: where the next call ends, not starts
        reply = {("next_before" if k == "next_offset" else k): v for k, v in reply.items()}
    count = shown.match_count
    held = found.held and count == found.match_count  # (max_matches ended it before a line: no note)
    if shown.more and count < found.max_matches and not quiet and not stopped and not held and (
            found.view or not found.note or windows):
        # (a note of a search not of a view: why none is shown -- or, beside windows, that a placeholder found its
        # own text --; of terminal output's view: how to read a window)
        reply["note"] = _budget_note(found, len(windows), count, budget)
    elif not windows and shown.next_offset is None and (empty := empty_match_note(found)):
        reply["note"] = empty
    elif count > found.max_matches:  # (a line's matches its window shows are all taken: its bytes once)
        over = max(windows, key=lambda w: len(w.matches))
        reply["note"] = (f"line {over.line}'s window holds {len(over.matches):,} matches, past max_matches="
                         f"{found.max_matches}: the matches a window's bytes show come with it")
    for said in (found.note, found.stopped):
        if said:
            add_said(reply, said)  # (the calls the note names, as data: a face writes them its own way)
    return reply


def _drawn_json(found: Matches, window: Window, cut: tuple[bool, bool], drawn: dict | None) -> dict[str, Any]:
    """:func:`window_json` of ``window``, kept in ``drawn`` (``None``: not kept)."""
    if drawn is None:
        return window_json(window, found.size, found.binary, found.rendered, cut, found.encoding, found.rows,
                           found.full_windows, found.commits)
    key = (window.offset, len(window.data), len(window.matches), cut)
    out = drawn.get(key)
    if out is None:
        out = drawn[key] = window_json(window, found.size, found.binary, found.rendered, cut, found.encoding,
                                       found.rows, found.full_windows, found.commits)
    return out


def _budget_note(found: Matches, windows: int, count: int, budget: int) -> str:
    """What a reply says when its ``budget`` (bytes) cut it to ``count`` matches in ``windows`` windows, fewer than
    ``max_matches`` while more follow."""
    narrower = (" or a number of bytes as context=" if found.context == "line" else  # (a line has no smaller)
                " or a smaller context=" if found.context else "")
    grouped = f" in {plural(windows, 'window')}" if windows != count else ""  # (near matches merge)
    total = "" if found.view else "; count=true counts them all"  # (a text view is not counted)
    total += f"; before={found.bound} shows the last ones" if found.before is None and not found.view else ""
    return (f"the budget ({budget} bytes) cut this reply to {count} of max_matches={found.max_matches} "
            f"matches{grouped}; next_call goes on (a larger budget=, up to {MAX_REPLY_BYTES},{narrower} "
            f"shows more matches a reply){total}")


def _cuts(found: Matches, windows: list[Window]) -> list[tuple[bool, bool]]:
    """For each of ``windows`` (a piece of one of ``found``'s windows, which do not overlap): whether it was cut
    before and after, its context there shorter than ``found.context`` asks and the content's ends allow (a window
    of terminal output's view: than its window found, whose edges were moved off escape sequences)."""
    reach, starts = found.reach, [whole.offset for whole in found.windows] if found.rendered else []
    out = []
    for window in windows:
        if not window.matches:
            out.append((False, False))
            continue
        lo, hi = 0, found.size
        if starts and (at := bisect_right(starts, window.offset) - 1) >= 0:
            lo, hi = found.windows[at].offset, found.windows[at].offset + len(found.windows[at].data)
        first, last = window.matches[0].offset, window.matches[-1].offset + window.matches[-1].length  # (in order,
        # not overlapping: the last ends last)
        out.append((window.offset > max(lo, first - reach), window.offset + len(window.data) < min(hi, last + reach)))
    return out


def _drawn(window: Window, found: list[Window], starts: list[int]) -> Window:
    """A window of terminal output searched in its view, cut from one of the windows ``found`` (whose edges
    :func:`~scratchfs.api.view_search.view_search` set; ``starts``: their offsets, in order), with its edges moved
    as :func:`~scratchfs.engine.structure.terminal_match.drawn_edges` moves them, by the bytes of the window it was
    cut from."""
    end = window.offset + len(window.data)
    at = bisect_right(starts, window.offset) - 1  # (the one window found that can hold it: they do not overlap)
    whole = found[at] if at >= 0 and end <= found[at].offset + len(found[at].data) else None
    if whole is None or not window.matches or (window.offset, end) == (whole.offset, whole.offset + len(whole.data)):
        return window
    last = max(hit.offset + hit.length for hit in window.matches)
    lo, hi = (at + whole.offset for at in drawn_edges(whole.data, window.offset - whole.offset, end - whole.offset,
                                                      window.matches[0].offset - whole.offset, last - whole.offset))
    return window if (lo, hi) == (window.offset, end) else replace(
        window, offset=lo, data=window.data[lo - window.offset : hi - window.offset])


def count_reply(counted: MatchCount, budget: int) -> dict[str, Any]:
    """A count (``count=true``) as the contract's JSON object: ``{handle, match (or pattern, ignore_case), offset,
    size, matches, lines, next_offset, remaining, next_call}`` (``remaining`` only while it goes on), and a ``note``
    when the time bound stopped it before the end (how far it got; ``next_call`` counts on), or when it counted none
    in the whole content and the content says why (its ``note``: an HTML page's markup, CRLF line ends, another
    encoding...). Fitted into ``budget`` bytes (a long echoed needle shortened, :class:`~scratchfs.api.fixed.Squeeze`).
    """
    what: dict[str, Any] = {"pattern": counted.pattern} if counted.pattern is not None else {"match": counted.match}
    if counted.ignore_case:  # (false, the default, is not said)
        what["ignore_case"] = True
    if counted.encoding:
        what["encoding"] = counted.encoding
    end = counted.bound if counted.next_offset is None else counted.next_offset
    reply: dict[str, Any] = {"handle": counted.handle, **what, "offset": counted.offset,
                             **({} if counted.end is None else {"end": counted.end}), "size": counted.size,
                             "matches": counted.matches, "lines": counted.lines, "next_offset": counted.next_offset,
                             **({} if counted.next_offset is None else {"remaining": counted.remaining}),
                             "next_call": counted.next_call}
    if counted.next_offset is not None:
        reply["note"] = (f"counted bytes {counted.offset}-{end} of {counted.size} in the time bound "
                         f"({counted.seconds:g} s); next_call counts on from next_offset: add up the counts (a line "
                         "with matches on both sides of next_offset is in both lines counts)")
    elif not counted.matches and (empty := empty_match_note(counted)):
        reply["note"] = empty
    elif counted.note is not None and (not counted.encoding or counted.end is not None or empty_only(counted.note)):
        add_said(reply, encoded(counted.note, counted.encoding))  # (a miss over all of it: why, and what finds it;
        # a bounded one: where it looked; an empty-only pattern's: its places, its calls as a search's note gives them)
    return Squeeze(reply, budget, {"match": ("match",), "pattern": ("pattern",)})(reply)


__all__ = ["count_reply", "matches_reply"]
