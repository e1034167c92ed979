"""The replies of the reads, each fitted into its budget (the shapes :mod:`scratchfs.api.contract` documents): a
byte range's and a line read's (whole UTF-8 characters, binary content as a hex dump; ``remaining`` while the read goes
on) and a structure read's page (its cursor and the arguments it echoes measured first, then the page read to fit),
and the TTL and seconds as a reply gives them. Moved out of :mod:`~scratchfs.api.contract`, which keeps the tools."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from scratchfs.api.bounds import past_bytes
from scratchfs.api.encodings import least_bytes
from scratchfs.api.fixed import Squeeze, small
from scratchfs.api.results import LineSlice, Slice
from scratchfs.api.scope import Scope
from scratchfs.api.structure_choice import structure_read
from scratchfs.api.views import fit, piece, reads_as_text, reply_size
from scratchfs.engine.structure.paging import cursor_position
from scratchfs.foundation.calls import Call, add_said, render_call
from scratchfs.foundation.checks import check_utf8, integral
from scratchfs.foundation.errors import BadCursor, InvalidArgument
from scratchfs.foundation.text import utf8_lead_length

# -- ranges and lines -----------------------------------------------------------------------------------------------


def going(part: Slice | LineSlice) -> dict[str, int]:
    """``{"remaining": bytes}`` while a read goes on, ``{}`` at its end: ``next_offset`` null says it, as a finished
    search says neither ``more`` nor ``remaining`` (a range and a line read sent ``"remaining": 0`` beside it)."""
    return {} if part.next_offset is None else {"remaining": part.remaining}


def range_reply(sl: Slice, budget: int, before: bytes = b"") -> dict[str, Any]:
    """A range read as the contract's JSON object, fitted into ``budget`` bytes (``before``: up to 3 content bytes
    just before the slice, to tell whether it starts inside a character). A range of binary content is a hex dump,
    or, when its bytes are text (:func:`~scratchfs.api.views.reads_as_text`, decided over the whole slice read),
    text as a text content's range shows it, ``"encoding": "text"`` saying so."""
    name = "key" if sl.kind == "scratch" else "handle"
    single = sl.encoding is not None  # (latin-1, cp1252: a byte a character, api.encodings)
    binary, said = _shown_as(sl, before)

    def build(k: int) -> dict[str, Any]:
        part = sl.prefix(max(k, least_bytes(sl.encoding) if single else
                                first_character(sl.data) if not binary else 1))
        shown = piece(part.data, part.offset, part.bound, binary, sl.encoding, before=before)
        at = shown.offset - part.offset
        part = replace(part, offset=shown.offset, data=part.data[at : at + shown.length])
        part = part.prefix(shown.length)
        reply = {name: sl.handle, **shown.fields(), "size": sl.size, "next_offset": part.next_offset,
                 **going(part), "next_call": part.next_call, **shown.content_fields(), **said,
                 **({"version": sl.version} if guarded else {})}
        if past is not None:  # (from the content's end: why no byte, and how to read its last ones)
            add_said(reply, past)
        return reply

    guarded = sl.kind == "scratch" and sl.version is not None  # a value's next page must be of the same value
    past = past_bytes(sl)
    if small(budget, sl.handle):  # nothing long is echoed: the fixed part is small (the common case, measured first)
        return fit(len(sl.data), lambda k: _unguarded(build(k)), budget)
    squeeze = Squeeze(build(1), budget, {"key": ("key",)} if sl.kind == "scratch" else None,
                      cursor_key="version" if guarded else None,
                      resume="offset=next_offset and version" if guarded else None)
    return fit(len(sl.data), lambda k: squeeze(build(k)), budget)


def lines_reply(ls: LineSlice, budget: int) -> dict[str, Any]:
    """A line read as the contract's JSON object, fitted into ``budget`` bytes (cut inside a line when it must; the
    cursor then resumes there; UTF-16 text's lines: :func:`~scratchfs.api.wide_lines.wide_lines`).
    Lines of binary content are a hex dump, or text when they are (:func:`~scratchfs.api.views.reads_as_text`),
    ``"encoding": "text"`` saying so, as :func:`range_reply` has it."""
    single = ls.encoding is not None
    binary, said = _shown_as(ls)

    def build(k: int, whole: LineSlice | None = None) -> dict[str, Any]:
        part = (whole or ls).prefix(max(k, least_bytes(ls.encoding) if single else
                                        first_character(ls.data) if not binary else 1))
        shown = piece(part.data, part.offset, part.bound, binary, ls.encoding)
        if shown.length < len(part.data):  # a character cut at the end: left for the next read
            part = part.prefix(shown.length)
        reply = {"handle": ls.handle, **shown.fields(), "size": ls.size, "next_offset": part.next_offset,
                 "first_line": part.first_line, "lines": part.lines, "total_lines": part.total_lines,
                 "next_line": part.next_line, "cut": part.cut, **going(part),
                 "next_call": part.next_call, **shown.content_fields(), **said}
        if ls.note:
            add_said(reply, ls.note)  # (the calls it names, as data too)
        return reply

    ls = _last_lines(ls, lambda part: reply_size(build(len(part.data), part)) <= budget)
    if small(budget, ls.handle):  # a handle: always
        return fit(len(ls.data), build, budget)
    squeeze = Squeeze(build(1), budget, resume="next_offset and lines (or next_line)")
    return fit(len(ls.data), lambda k: squeeze(build(k)), budget)


def _last_lines(ls: LineSlice, fits: Callable[[LineSlice], bool]) -> LineSlice:
    """A read from the end that reached it whole (``ls.asked``), without as few of its first lines as make it fit
    (``fits``): its last lines, whole, so that its next_call goes back from the first it keeps (cut at the budget
    from the front, as ``tail`` is, not from the back, where reading on would end the walk back); when its last line
    alone does not fit, that line's last bytes that do (:meth:`LineSlice.last_bytes`). ``ls`` itself when it fits, or
    is of another read."""
    if ls.asked is None or ls.cut or ls.next_offset is not None or fits(ls):
        return ls
    low, high, best = 1, ls.lines - 1, None  # (dropping more lines: a smaller reply)
    while low <= high:
        mid = (low + high) // 2
        if fits(part := ls.after_lines(mid)):
            best, high = part, mid - 1
        else:
            low = mid + 1
    if best is not None:
        return best
    last = ls.after_lines(ls.lines - 1)  # its last line alone does not fit: its last bytes that do
    low, high, best = 1, len(last.data) - 1, last.last_bytes(1)
    while low <= high:
        mid = (low + high) // 2
        if fits(part := last.last_bytes(mid)):
            best, low = part, mid + 1
        else:
            high = mid - 1
    return best


def _shown_as(read: Slice | LineSlice, before: bytes = b"") -> tuple[bool, dict[str, str]]:
    """Whether a range or line read shows a hex dump (binary content read as UTF-8 whose bytes are not text,
    :func:`~scratchfs.api.views.reads_as_text`), and the ``{"encoding": "text"}`` it adds when binary content's
    bytes are text; a single-byte ``encoding`` shows text either way."""
    if not read.binary or read.encoding is not None:
        return False, {}
    binary = not reads_as_text(read.data, read.offset, read.bound, before)
    return binary, {} if binary else {"encoding": "text"}


def _unguarded(reply: dict[str, Any]) -> dict[str, Any]:
    """``reply`` without the ``version`` its ``next_call`` carries (given alone only when next_call is left out)."""
    return {k: v for k, v in reply.items() if k != "version"} if "version" in reply else reply


def first_character(data: bytes) -> int:
    """Bytes of the first UTF-8 character of ``data`` (1 for an invalid byte), so a reply always moves on."""
    return min(len(data), utf8_lead_length(data[0])) if data else 0


# -- structure reads ------------------------------------------------------------------------------------------------

STRUCTURE_ARGUMENTS = frozenset({"jq", "record", "records", "row", "rows", "columns", "view", "raw_offset", "select",
                                 "slurp", "cursor"})
"""The arguments of ``read_handle``'s structure reads."""


def structure_reply(scope: Scope, handle: str, offset: int, given: dict[str, Any], budget: int, *,
                    checked: bool = False, call_budget: int | None = None) -> dict[str, Any]:
    """A structure read as the contract's JSON object: ``{handle, read: {the read's arguments}, size, **page,
    next_call}``
    where the page is ``{first, results|records|rows|elements, more}`` (``header`` for rows, but a table with no
    header line's; ``part`` for an item longer than the budget; ``as_text``, the indexes of items given as their
    JSON text, and ``note`` for numbers no JSON value here holds exactly:
    :func:`~scratchfs.engine.structure.jq_page`) or ``{offset, text, more}`` for ``view="text"``; fitted into ``budget``
    bytes. ``next_call`` repeats the read (and ``call_budget``, the budget the caller gave, if any) with the page's
    cursor; the page's ``cursor`` is given alone only when ``next_call`` does not fit
    (:class:`~scratchfs.api.fixed.Squeeze`, which shortens long echoed arguments too).
    ``checked``: the texts of ``given`` were checked as UTF-8 already (by the schema check of
    :func:`~scratchfs.api.tools.check_arguments`, as :meth:`ScratchTools.call` does); else they are checked here.

    Raises:
        InvalidArgument: unknown or conflicting structure arguments, a text argument that is not valid UTF-8
            (a lone surrogate), and what the reader raises.
        BadCursor: (an InvalidArgument) a cursor this read did not make, or no longer fits its entry: it names the
            same read from its start, without the cursor.
    """
    try:
        return _structure_reply(scope, handle, offset, given, budget, checked, call_budget)
    except BadCursor as exc:  # the read from its start named (its words said "start it again" alone)
        again = Call.of("read_handle", handle=handle, **{k: v for k, v in given.items() if k != "cursor"},
                        budget=call_budget)
        raise exc.from_start(again, "; the read from its start: ") from None


def _structure_reply(scope: Scope, handle: str, offset: int, given: dict[str, Any], budget: int, checked: bool,
                     call_budget: int | None) -> dict[str, Any]:
    unknown = set(given) - STRUCTURE_ARGUMENTS
    if unknown:
        raise InvalidArgument(f"unknown structure arguments: {', '.join(sorted(unknown))}")
    for name, value in () if checked else given.items():  # the reply echoes them and is measured as UTF-8
        check_utf8(value, name)
    reads = scope.structure
    read = structure_read(reads, handle, offset, given, call_budget)
    shown = {k: v for k, v in given.items() if k != "cursor"}
    onward = {k: v for k, v in shown.items() if k != "raw_offset"}  # (a view's cursor says where it goes on)
    place = "row" if {"row", "rows", "columns"} & given.keys() else "record" if {"record", "records"} & \
        given.keys() else None

    def resumed(cursor: str) -> dict[str, Any]:  # a row or record read's names where it goes on, first
        at = {} if place is None else _goes_on_at(place, cursor)
        return {**at, **onward, **at}

    def whole(page: dict[str, Any], cursor: str | None, size: int) -> dict[str, Any]:
        call = render_call("read_handle", handle=handle, **resumed(cursor), cursor=cursor,
                           budget=call_budget) if cursor else None
        return {"handle": handle, "read": shown, "size": size, **page, "next_call": call}

    # the fixed part is measured first, with the longest cursor a page may have and the widest size
    longest, widest = "A" * CURSOR_CHARS, 10 ** 19
    plan = Squeeze(whole({"cursor": longest}, longest, widest), budget, {k: ("read", k) for k in ECHOED_ARGUMENTS},
                   cursor_key="cursor", reserve=MIN_PAGE_BYTES)

    def squeeze(reply: dict[str, Any]) -> dict[str, Any]:
        out = plan(reply)
        if place is not None and out.get("cursor") and out.get("note"):  # the cursor alone: its row (record) said
            out["note"] += " ({}={} with it: where it goes on)".format(*_goes_on_at(place, out["cursor"]).popitem())
        return out

    page_budget = budget - reply_size(squeeze(whole({"cursor": longest}, longest, widest))) + 2
    for tried in range(12):  # the reply's fields (and notes the reader did not count) get room: see below
        page = read(max(MIN_PAGE_BYTES, page_budget))
        reply = squeeze(whole(page.to_dict(), page.cursor, reads.size))  # the size of the entry the read opened
        excess = reply_size(reply) - budget
        if excess <= 0 or page_budget <= MIN_PAGE_BYTES:
            return reply
        page_budget -= max(excess + 32, 0 if tried < 2 else (page_budget - MIN_PAGE_BYTES) // 4)  # (the excess;
        # then a quarter of what is left: a page naming bad rows, a byte read each here, is read the same otherwise)
    return reply


def _goes_on_at(place: str, cursor: str) -> dict[str, int]:
    """``{place: N}``: the row or record (``place``) a row or record read's ``cursor`` goes on at, which its
    next_call names (``row=1, ..., cursor=`` read as a restart) and the read checks beside it (the widest number
    for a cursor with none: the measuring one)."""
    position = cursor_position(cursor)
    return {place: 10 ** 19 if position is None else position}


def whole_seconds(seconds: float) -> int:
    """A time in a reply (``expires_at``, epoch seconds; ``expires_in``, seconds) as a model can use it: whole
    seconds, an int (``1796454151.3062162`` -> ``1796454151``); the store keeps the exact value."""
    return round(seconds)


def ttl_json(ttl: float) -> int | float:
    """A ``ttl`` (seconds) as the call gave it: ``3600``, not ``3600.0``; ``1.5`` stays ``1.5``."""
    return integral(ttl)


ECHOED_ARGUMENTS = ("jq", "select", "columns")
"""The structure arguments a reply echoes that may be long."""
CURSOR_CHARS = 120
"""The longest cursor a structure page carries."""
MIN_PAGE_BYTES = 256
"""The smallest budget a structure page is read with (room for its own fields and some content)."""


__all__ = ["CURSOR_CHARS", "ECHOED_ARGUMENTS", "MIN_PAGE_BYTES", "STRUCTURE_ARGUMENTS",
           "first_character", "going",
           "lines_reply", "range_reply", "structure_reply", "ttl_json", "whole_seconds"]
