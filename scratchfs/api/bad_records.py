"""How a read of records or rows goes on past one that does not parse (a :class:`BadRecord`): whether the lines
around it are mostly JSON (a records read then passes over it), the byte read that shows it and the read that starts
after it, as calls (:class:`~scratchfs.foundation.calls.Call`) the model can make as written. Used by
:class:`~scratchfs.api.structured.StructureReads`."""

from __future__ import annotations

import json

from scratchfs.api.jq_failure import CALL_FILTER_CHARS
from scratchfs.engine.structure import MAX_SLURP_BYTES, ItemPage, ReaderSource
from scratchfs.engine.structure.numbers import LongIntegers
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import BadRecord
from scratchfs.foundation.limits import DEFAULT_READ_BYTES
from scratchfs.foundation.text import plural

__all__ = ["JSON_LINE_START", "many_bad", "mostly_json", "seeing_passed", "way_past"]

_AROUND_BYTES = 32 * 1024  # bytes on each side of a bad record whose lines tell JSON lines from text


def mostly_json(source: ReaderSource, start: int, end: int) -> bool:
    """Whether most of the whole non-empty lines within :data:`_AROUND_BYTES` bytes before ``start`` and after
    ``end`` of ``source`` (the bytes of a record that is no JSON) are JSON: a record read of them goes on. Reads
    up to twice :data:`_AROUND_BYTES` (32 KiB) of ``source``; raises what its reads raise (CorruptBlob)."""
    low = max(0, start - _AROUND_BYTES)
    before = source.read(low, start - low).split(b"\n")[1 if low else 0 :]
    lines = [line for line in before if line.strip()] + _lines_after(source, end)
    return _parsed(lines) * 2 > len(lines)


def _lines_after(source: ReaderSource, end: int) -> list[bytes]:
    """The whole non-empty lines within :data:`_AROUND_BYTES` bytes after byte ``end`` of ``source`` (one the
    reach cuts left out, unless the content ends there). Raises what its read raises (CorruptBlob)."""
    after = source.read(end, _AROUND_BYTES)
    return [line for line in after.split(b"\n")[: None if end + len(after) >= source.size else -1] if line.strip()]


def _parsed(lines: list[bytes]) -> int:
    """How many of ``lines`` are JSON texts."""
    parsed = 0
    for line in lines:
        try:
            json.loads(line, cls=LongIntegers)
            parsed += 1
        except (ValueError, RecursionError):
            pass
    return parsed


JSON_LINE_START = r'^\s*(?:\{|\[\s*(?:[\[{"\]]|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s*[,\]]|true\b|false\b|null\b))'
"""A line that starts a JSON object or array: ``{``, or ``[`` and what a JSON array's first item starts with -- not a
log line's ``[INFO]`` or ``[2026-12-07 10:00:01]`` (a log mixing them with JSON lines: each its own match, pages of
lines no record)."""
_MANY_BAD_SHARE = 4  # a page that ends before a bad record, 1 in this many lines after it bad or more: a whole read


def many_bad(page: ItemPage, source: ReaderSource, handle: str, kind: str | None, jq: str | None,
             budget: int | None) -> ItemPage:
    """``page`` (a records page), its note naming a read that gets the rest in few calls when it ended before a
    bad record (``page.passed``, its last) and 1 in :data:`_MANY_BAD_SHARE` or more of the whole lines in the 32 KiB
    after that record are no JSON either (a log mixing JSON and plain lines: a page a record or two, 500 calls for
    1,000 lines): of JSON lines up to :data:`~scratchfs.engine.structure.MAX_SLURP_BYTES`, ``slurp=true`` with
    ``jq=".[]"`` (or ``".[] | (jq)"``), which passes over every bad record at once; else a search for the lines
    that start a JSON object or array (their text). The call is in ``calls`` too. Reads 32 KiB of ``source``. The
    caller gives it a read's first page alone (no cursor): 500 pages each saying it cost 529 KB where they cost
    321 KB."""
    note = page.extra.get("note", "")
    passed = page.passed if isinstance(page.passed, list) else [page.passed]
    if page.cursor is None or not passed or "the page ends before it" not in note:
        return page
    lines = _lines_after(source, passed[-1].offset + passed[-1].length)
    bad = len(lines) - _parsed(lines)
    if not lines or bad * _MANY_BAD_SHARE < len(lines):
        return page
    if kind == "jsonl" and source.size <= MAX_SLURP_BYTES:
        whole = Call.of("read_handle", handle=handle, jq=".[]" if jq is None else f".[] | ({jq})", slurp=True,
                        budget=budget)
        does = "gives the JSON records alone, those not JSON passed over and counted, many a page"
    else:
        whole = Call.of("read_handle", handle=handle, pattern=JSON_LINE_START, context="line", max_matches=200,
                         budget=budget)
        does = "gives the lines that start a JSON object or array (their text, numbered), many a page"
    page.extra["note"] = str(Advice.of(note, f"; {bad:,} of the {plural(len(lines), 'line')} after it are not JSON "
                                             "either, so pages of records end often: ", whole, f" {does}"))
    page.extra["calls"] = [*page.extra.get("calls", []), whole.to_json()]
    return page


def seeing_passed(page: ItemPage, handle: str, budget: int | None) -> ItemPage:
    """``page``, which passed over a bad record or rows (``page.passed``: a BadRecord, or a list of them for rows),
    its note naming the byte read that shows each (its first :data:`~scratchfs.foundation.limits.DEFAULT_READ_BYTES`
    bytes at most, with ``budget``, the reply budget the caller gave), and its ``calls`` those reads, as data."""
    for bad in page.passed if isinstance(page.passed, list) else [page.passed]:
        see = Call.of("read_handle", handle=handle, offset=bad.offset, length=min(bad.length, DEFAULT_READ_BYTES),
                      budget=budget)
        page.extra["note"] = page.extra["note"].replace(f"{bad} -- passed over",
                                                        f"{bad} -- its bytes: {see} -- passed over", 1)
        page.extra["calls"] = [*page.extra.get("calls", []), see.to_json()]  # (as data too)
    return page


def way_past(handle: str, bad: BadRecord, records: int, jq: str | None, budget: int | None = None,
             last: bool = False) -> Advice:
    """How to go on from a bad record of ``handle``: the byte read that shows it (its first
    :data:`~scratchfs.foundation.limits.DEFAULT_READ_BYTES` bytes at most) and the records read that starts after
    it (``records`` per page, the same ``jq``; a filter over
    :data:`~scratchfs.api.jq_failure.CALL_FILTER_CHARS` characters is named, not repeated), both with
    ``budget`` (the reply budget the caller gave; ``None``: none named); ``last``: the content ends with it (its
    last line, cut short, say), which the answer says instead of a read after it."""
    shown = min(bad.length, DEFAULT_READ_BYTES)
    see = Advice.of("see its bytes: ", Call.of("read_handle", handle=handle, offset=bad.offset, length=shown,
                                                budget=budget),
                    f" (of {bad.length:,}; next_offset goes on)" if shown < bad.length else "")
    if last:
        return see + "; it is the last record: the content ends with it"
    long_jq = jq is not None and len(jq) > CALL_FILTER_CHARS
    on = Call.of("read_handle", handle=handle, record=bad.record + 1, records=records, jq=None if long_jq else jq,
                 budget=budget)
    return Advice.of(see, "; read on after it: ", on, " with the same jq" if long_jq else "")
