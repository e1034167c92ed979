"""Search replies: the windows of a ``match`` / ``pattern`` search as the model-facing JSON, fitted into a budget
(:mod:`scratchfs.api.contract` documents the reply; every face builds it here)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from scratchfs.api.counting import MatchCount, empty_match_note
from scratchfs.api.encodings import encode_needle
from scratchfs.api.fixed import Squeeze
from scratchfs.api.results import Matches
from scratchfs.api.search_misses import NOT_UTF8_MISS
from scratchfs.api.views import piece, reply_size
from scratchfs.engine.search import Window
from scratchfs.engine.structure.terminal import render_fragment
from scratchfs.engine.structure.terminal_match import drawn_edges
from scratchfs.foundation.limits import LINE_WINDOW_BYTES, MAX_REPLY_BYTES
from scratchfs.foundation.text import plural


def window_json(window: Window, size: int, binary: bool, rendered: bool = False, encoding: str | None = None
                ) -> dict[str, Any]:
    """One search window: ``{line, offset, length, data}`` (plus ``replaced``/``encoding``), each fact once: ``line``
    is its first match's (1-based); a window of one match gives the match's start as ``match_offset`` when it is
    not ``offset`` (context before it) and its length as ``match_length`` when it does not end where the window
    ends (context after it, or a match longer than the window, cut to the budget); a window of several matches
    lists them, ``matches: [{offset, length, line}]``. :func:`window_hits` reads the matches back from either.
    A window of whole lines (``context="line"``) whose line goes on past it (:data:`LINE_WINDOW_BYTES` bytes a side
    at most) says where: ``cut`` is ``"before"``, ``"after"`` or ``"both"``, as a line read's ``cut`` says it stops
    inside a line; a line's bytes are shown whole at its ends, an invalid byte there included (as U+FFFD).
    ``rendered`` (terminal output searched in its text view): ``data`` is the bytes ``offset``/``length`` name as the
    view renders them (:func:`~scratchfs.engine.structure.terminal.render_fragment`: escapes drawn as nothing,
    overstrikes and ``\r`` redraws applied), every offset and length still the stored bytes'. ``encoding``
    (``"latin-1"``, ``"cp1252"``): each byte one character of it (:func:`~scratchfs.api.views.piece`)."""
    hits = window.matches
    match_end = max(h.offset + h.length for h in hits) if hits else window.match_offset
    keep_from, keep_to = window.match_offset, match_end
    before, after = window.line_cut or (True, True)
    if window.line_cut is not None:  # a line's ends are character boundaries: nothing there is left out
        keep_from = keep_from if before else window.offset
        keep_to = keep_to if after else window.offset + len(window.data)
    shown = piece(window.data, window.offset, size, binary, encoding, before=None, keep_from=keep_from,
                  keep_to=keep_to)
    out: dict[str, Any] = {"line": window.line, **shown.fields()}
    if window.line_cut is not None and (before or after):
        out["cut"] = "both" if before and after else "before" if before else "after"
    if len(hits) > 1:
        out["matches"] = [{"offset": h.offset, "length": h.length, "line": h.line} for h in hits]
    elif hits:
        if hits[0].offset != shown.offset:
            out["match_offset"] = hits[0].offset
        if hits[0].offset + hits[0].length != shown.offset + shown.length:
            out["match_length"] = hits[0].length
    content = shown.content_fields()
    if rendered and not binary:
        start = shown.offset - window.offset
        content["data"] = render_fragment(window.data[start : start + shown.length])
    return {**out, **content}


def window_hits(window: dict[str, Any]) -> list[dict[str, Any]]:
    """The matches of a window as :func:`window_json` gives it: ``[{offset, length, line}]``, in order (its
    ``matches``, or the one match its ``match_offset`` / ``match_length`` or its own bytes make). Raises KeyError
    for a dict that is not a window."""
    if "matches" in window:
        return list(window["matches"])
    start = window.get("match_offset", window["offset"])
    length = window.get("match_length", window["offset"] + window["length"] - start)
    return [{"offset": start, "length": length, "line": window["line"]}]


def matches_reply(found: Matches, budget: int) -> dict[str, Any]:
    """A search as the contract's JSON object, fitted into ``budget`` bytes: fewer windows, then fewer matches of the
    first window, then less context, then the first match cut; ``next_offset`` is the first match not shown. The
    echoed ``match``/``pattern`` and ``next_call`` are measured first (:class:`~scratchfs.api.fixed.Squeeze`)."""
    windows = found.windows
    if windows:  # the floor: one match's first byte alone, the search going on past it
        edge = windows[0] if found.before is None else windows[-1]
        hit = edge.matches[0] if found.before is None else edge.matches[-1]
        floor = _matches_json(found, [Window(hit.offset, hit.offset, edge.data[hit.offset - edge.offset:][
            :1], hit.line, (hit,))], found.size, budget)
    else:
        floor = _matches_json(found, [], found.next_offset, budget)
    squeeze = Squeeze(floor, budget, {"match": ("match",), "pattern": ("pattern",)})

    def shown(part: list[Window], next_offset: int | None, quiet: bool = False) -> dict[str, Any]:
        return squeeze(_matches_json(found, part, next_offset, budget, quiet))

    reply = shown(windows, found.next_offset)
    if reply_size(reply) <= budget or not windows:
        return reply
    if found.before is not None:
        return _fit_last(found, budget, shown)
    count = _most(len(windows) - 1, lambda n: reply_size(shown(windows[:n], _first_hit(windows[n]))) <= budget)
    if count:
        return shown(windows[:count], _first_hit(windows[count]))
    after = _first_hit(windows[1]) if len(windows) > 1 else found.next_offset
    return _fit_one_window(found, windows[0], after, budget, shown)


def _fit_last(found: Matches, budget: int, shown: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """A search from the end over budget: its last windows, then its last window's last match alone, cut as
    :func:`_fit_one_window` cuts a first one; the next call's ``before`` is the first match shown."""
    windows = found.windows

    def tail(part: list[Window], _next: int | None = None, quiet: bool = False) -> dict[str, Any]:
        first = _first_hit(part[0]) if part else None
        return shown(part, found.next_offset if first == _first_hit(windows[0]) else first, quiet)

    count = _most(len(windows) - 1, lambda n: reply_size(tail(windows[len(windows) - n:])) <= budget)
    if count:
        return tail(windows[len(windows) - count:])
    last = windows[-1]
    hit = last.matches[-1]
    lo = max(last.offset, hit.offset - (LINE_WINDOW_BYTES if found.context == "line" else int(found.context)))
    line_cut = None if last.line_cut is None else (last.line_cut[0] or lo > last.offset, last.line_cut[1])
    alone = Window(hit.offset, lo, last.data[lo - last.offset:], hit.line, (hit,), line_cut)
    return _fit_one_window(found, alone, None, budget, tail)


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
    """The first window alone is over budget: keep its first matches, then less context, then the match's start
    (``shown(windows, next_offset)``: the reply showing those windows)."""
    hits = window.matches
    reach = LINE_WINDOW_BYTES if found.context == "line" else int(found.context)

    def cut(first: int, last: int, keep: int) -> Window:
        """The window's bytes ``[first, last)`` holding its first ``keep`` hits (a window of lines cut shorter says
        its line goes on)."""
        lo, hi = max(first, window.offset), min(last, window.offset + len(window.data))
        data = window.data[lo - window.offset : hi - window.offset]
        line_cut = None if window.line_cut is None else (
            window.line_cut[0] or lo > window.offset, window.line_cut[1] or hi < window.offset + len(window.data))
        return Window(hits[0].offset, lo, data, hits[0].line, tuple(hits[:keep]), line_cut)

    def with_hits(n: int) -> dict[str, Any]:
        end = hits[n - 1].offset + hits[n - 1].length + reach
        return shown([cut(window.offset, end, n)], hits[n].offset if n < len(hits) else after)

    keep = _most(len(hits), lambda n: n >= 1 and reply_size(with_hits(n)) <= budget)
    if keep:
        return with_hits(keep)
    first = hits[0]
    rest = hits[1].offset if len(hits) > 1 else after

    def with_context(c: int) -> dict[str, Any]:
        narrow = cut(first.offset - c, first.offset + first.length + c, 1)
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
    most = _most(first.length, lambda n: n >= 1 and reply_size(
        shown([cut(first.offset, first.offset + n, 1)], rest)) <= budget)
    return shown([cut(first.offset, first.offset + max(1, most), 1)], rest)


def _matches_json(found: Matches, windows: list[Window], next_offset: int | None, budget: int,
                  quiet: bool = False) -> dict[str, Any]:
    """The reply showing ``windows``, the search going on at ``next_offset``; a ``note`` says when the reply's
    ``budget`` (bytes) cut it: fewer matches shown than ``max_matches`` while more follow (``quiet``: the caller
    says how instead)."""
    if found.rendered:  # (a window cut to fit: its edges off what it would render otherwise than the view)
        windows = [_drawn(window, found.windows) for window in windows]
    shown = replace(found, windows=windows, next_offset=next_offset)
    if found.pattern is not None:
        what: dict[str, Any] = {"pattern": found.pattern, "ignore_case": found.ignore_case}
    else:
        what = {"match": found.needle_text}
        if found.ignore_case:
            what["ignore_case"] = True
    what.update({"view": found.view} if found.view else {})
    what.update({"encoding": found.encoding} if found.encoding else {})
    reply = {"handle": found.handle, **what, "size": found.size, "next_offset": shown.next_offset,
             "more": shown.more, "remaining": shown.remaining, "next_call": shown.next_call,
             "windows": [window_json(w, found.size, found.binary, found.rendered, found.encoding) for w in windows]}
    if found.before is not None:  # from the end: where the next call ends, not starts
        reply = {("next_before" if k == "next_offset" else k): v for k, v in reply.items()}
    count = shown.match_count
    if shown.more and count < found.max_matches and not quiet and (found.view or not found.note):  # (a note of a
        # search not of a view: why none is shown; of terminal output's view: how to read a window rendered)
        narrower = " or a smaller context=" if found.context else ""
        grouped = f" in {plural(len(windows), 'window')}" if len(windows) != count else ""  # (near matches merge)
        total = "" if found.view else "; count=true counts them all"  # (a text view is not counted)
        total += f"; before={found.size} shows the last ones" if found.before is None and not found.view else ""
        reply["note"] = (f"the budget ({budget} bytes) cut this reply to {count} of max_matches={found.max_matches} "
                         f"matches{grouped}; next_call goes on (a larger budget=, up to {MAX_REPLY_BYTES},{narrower} "
                         f"shows more matches a reply){total}")
    elif not windows and shown.next_offset is None and (empty := empty_match_note(found.pattern, found.ignore_case)):
        reply["note"] = empty
    if found.note:
        reply["note"] = f"{reply['note']}; {found.note}" if reply.get("note") else found.note
    return reply


def _drawn(window: Window, found: list[Window]) -> Window:
    """A window of terminal output searched in its view, cut from one of the windows ``found`` (whose edges
    :func:`~scratchfs.api.view_search.view_search` set), with its edges moved as
    :func:`~scratchfs.engine.structure.terminal_match.drawn_edges` moves them, by the bytes of the window it was
    cut from."""
    end = window.offset + len(window.data)
    whole = next((w for w in found if w.offset <= window.offset and end <= w.offset + len(w.data)), None)
    if whole is None or not window.matches or (window.offset, end) == (whole.offset, whole.offset + len(whole.data)):
        return window
    last = max(hit.offset + hit.length for hit in window.matches)
    lo, hi = (at + whole.offset for at in drawn_edges(whole.data, window.offset - whole.offset, end - whole.offset,
                                                      window.matches[0].offset - whole.offset, last - whole.offset))
    return window if (lo, hi) == (window.offset, end) else replace(
        window, offset=lo, data=window.data[lo - window.offset : hi - window.offset])


def as_given(found: Matches, match: str | bytes | None, pattern: str | None) -> Matches:
    """A search of text in a single-byte encoding (``found.encoding``: its ``match`` and ``pattern`` sought as
    :func:`~scratchfs.api.encodings.search_form` writes them over the stored bytes) as the call gave it: ``match``
    that encoding's bytes, ``pattern`` the call's, which its next_call repeats; and no note that the stored bytes
    are not UTF-8 (:func:`~scratchfs.api.search_misses.single_byte_note`): they were sought as they are. A search
    without an encoding is returned as it is."""
    if found.encoding is None:
        return found
    note = None if found.note is not None and found.note.startswith(NOT_UTF8_MISS) else found.note
    return replace(found, match=None if match is None else encode_needle(match, found.encoding), pattern=pattern,
                   note=note)


def count_reply(counted: MatchCount, budget: int) -> dict[str, Any]:
    """A count (``count=true``) as the contract's JSON object: ``{handle, match (or pattern, ignore_case), offset,
    size, matches, lines, next_offset, remaining, next_call}``, and a ``note`` when the time bound stopped it
    before the end (how far it got; ``next_call`` counts on). Fitted into ``budget`` bytes (a long echoed needle
    shortened, :class:`~scratchfs.api.fixed.Squeeze`)."""
    what: dict[str, Any] = {"pattern": counted.pattern} if counted.pattern is not None else {"match": counted.match}
    if counted.ignore_case or counted.pattern is not None:
        what["ignore_case"] = counted.ignore_case
    if counted.encoding:
        what["encoding"] = counted.encoding
    end = counted.size if counted.next_offset is None else counted.next_offset
    reply: dict[str, Any] = {"handle": counted.handle, **what, "offset": counted.offset, "size": counted.size,
                             "matches": counted.matches, "lines": counted.lines, "next_offset": counted.next_offset,
                             "remaining": counted.size - end, "next_call": counted.next_call}
    if counted.next_offset is not None:
        reply["note"] = (f"counted bytes {counted.offset}-{end} of {counted.size} in the time bound "
                         f"({counted.seconds:g} s); next_call counts on from next_offset: add up the counts (a line "
                         "with matches on both sides of next_offset is in both lines counts)")
    elif not counted.matches and (empty := empty_match_note(counted.pattern, counted.ignore_case)):
        reply["note"] = empty
    return Squeeze(reply, budget, {"match": ("match",), "pattern": ("pattern",)})(reply)


__all__ = ["as_given", "count_reply", "matches_reply", "window_hits", "window_json"]
